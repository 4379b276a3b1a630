"""ICGA Mahjong as tournaments see it: the ``[settings]`` table, one game, its replay.

Duplicate play comes from the ITPW schedule: groups of four play every cyclic seat
rotation on the same seed (the same walls), and the ratings are BayesElo over the pairwise
comparisons of the four players' point totals in each game.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from referee.core.adapter import GameTask, PointsGameAdapter
from referee.core.checking import record_seed
from referee.core.errors import BotFault, ConfigError
from referee.core.limits import megabytes
from referee.core.players import PlayerSpec, trial_process
from referee.core.record import GameRecord, MoveRecord
from referee.core.replay import SEAT_WINDS, ReplayStep, ReplayView, Setting, text_lines
from referee.core.sandbox import plan_sandbox
from referee.core.text import seat_name
from referee.core.validation import Megabytes, Seconds
from referee.games.mahjong.defaults import MAX_HANDS, MEMORY_MB
from referee.games.mahjong.frames import frame_info, game_frame, tile_code
from referee.games.mahjong.game import MahjongGame
from referee.games.mahjong.match import (
    BUILTIN_PLAYERS,
    MahjongSettings,
    hand_facts,
    play_mahjong,
    start_path,
)
from referee.games.mahjong.protocol import parse_action
from referee.games.mahjong.rules import Ask, MahjongHand, Rules, options
from referee.games.mahjong.scoring import PRESETS, Stakes, preset
from referee.games.mahjong.tiles import ALL_TILES, SHORT_NAMES_KEY, make_wall, short_name

__all__ = ["MahjongAdapter", "hand_sentence", "mahjong_replay", "record_rules"]

SETTING_LABELS = {
    "hands": "Hands", "reserve": "Tiles kept in reserve", "base": "Base points",
    "per_tai": "Points per tai", "scoring": "Tai table", "move_time": "Time per answer",
    "kong_from_previous": "Kong on the previous player's discard",
    "takeover": "The dummy AI plays a faulty seat for", "start_path": "/start names",
    "hands_played": "Hands played",
}
"""The settings' labels on the results site (and those of what a record adds)."""
SETTING_WORDS = {
    "scoring": {"icga": "icga (the referee's own, not ICGA's: its framework defines none)",
                "taiwan": "taiwan (a common Taiwanese one)"},
    "takeover": {"hand": "the rest of the hand", "game": "the rest of the game"},
    "start_path": {"program": "the program", "command": "the whole command line"},
}


class MahjongTable(BaseModel):
    """The ``[settings]`` table of a Mahjong tournament."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hands: int = Field(default=16, ge=1, le=MAX_HANDS)
    reserve: int = Field(default=16, ge=0, le=60)
    move_time: Seconds = Field(default=10.0, gt=0)
    base: int = Field(default=100, ge=0)
    """Points paid for a win before the tai."""
    per_tai: int = Field(default=20, ge=0)
    kong_from_previous: bool = False
    """Allow a melded kong on the previous player's discard (the framework forbids it)."""
    takeover: Literal["hand", "game"] = "hand"
    start_path: Literal["program", "command"] = "program"
    scoring: Literal["icga", "taiwan"] = "icga"
    """The tai table (``scoring.PRESETS``): ``icga``, the referee's own (not ICGA's: the
    framework defines no tai table), or ``taiwan``."""
    memory: Megabytes = Field(default=MEMORY_MB, ge=0)
    """MB of memory each AI's process tree may use (``"1G"``; 0: no limit)."""


class MahjongAdapter(PointsGameAdapter[MahjongTable, MahjongSettings]):
    """The ICGA Mahjong slice for tournaments: four seats, the walls from the seed."""

    name = "mahjong"
    builtins: Mapping[str, str] = BUILTIN_PLAYERS
    settings_table = MahjongTable
    points_unit = "points the hands paid"
    setting_labels: Mapping[str, str] = SETTING_LABELS

    def settings_from(self, spec: MahjongTable, base: Path) -> MahjongSettings:
        """The hands, the reserve, the clock, the stakes and the tai table."""
        return MahjongSettings(Rules(hands=spec.hands, reserve=spec.reserve,
                                     table=preset(spec.scoring),
                                     stakes=Stakes(spec.base, spec.per_tai),
                                     kong_from_previous=spec.kong_from_previous),
                               move_time=spec.move_time, takeover=spec.takeover,
                               start_path=spec.start_path,
                               memory_limit=megabytes(spec.memory))

    def seat_count(self, settings: MahjongSettings) -> int:
        """Four players a game."""
        return 4

    def describe(self, settings: MahjongSettings) -> dict[str, Any]:
        """Settings as plain data; the choices other than the defaults (the framework's,
        the ``icga`` table) only when made, so that the fingerprint of a tournament that
        leaves them out stays as it was."""
        data: dict[str, Any] = {
            "hands": settings.rules.hands, "reserve": settings.rules.reserve,
            "move_time": settings.move_time, "base": settings.rules.stakes.base,
            "per_tai": settings.rules.stakes.per_tai}
        if settings.rules.kong_from_previous:
            data["kong_from_previous"] = True
        if settings.takeover != "hand":
            data["takeover"] = settings.takeover
        if settings.start_path != "program":
            data["start_path"] = settings.start_path
        if settings.rules.table.name != "icga":
            data["scoring"] = settings.rules.table.name
        if settings.memory_limit != megabytes(MEMORY_MB):
            data["max_memory"] = settings.memory_limit
        return data

    def opening_count(self, settings: MahjongSettings) -> int:
        """No openings: the seed decides the walls."""
        return 0

    def check_player(self, settings: MahjongSettings, player: PlayerSpec,
                     work_dir: Path) -> None:
        """Start the program, deal it a dealer's hand and ask for a discard; it must
        answer with a /throw of one of its tiles in time."""
        tiles = MahjongHand(make_wall(0)).hands[0]
        with trial_process(player, work_dir, "play a hand", plan_sandbox(settings.sandbox),
                           settings.memory_limit) as process:
            deadline = time.monotonic() + settings.move_time
            process.send(f"/start MJ 1 {start_path(player.command, settings.start_path)}\n"
                         "/initGame EAST EAST 1 1 0\n"
                         f"/initCard {' '.join(map(str, tiles))}\n/ask throw\n", deadline)
            answer = process.read_line(deadline)
            action = parse_action(answer, Ask.THROW)
            if action not in options(Ask.THROW, tiles, (), None):
                raise ConfigError(f"player {player.name} answered {answer!r} to /ask throw: "
                                  "not a /throw of one of its tiles")
            process.send("/exit 0 0 0 0\n", time.monotonic() + 1.0)

    def play(self, settings: MahjongSettings, task: GameTask, work_dir: Path) -> GameRecord:
        """One game, seats as scheduled, the walls from the task's seed."""
        chosen = dataclasses.replace(settings, seed=task.seed)
        record = play_mahjong(task.seats, chosen, work_dir)
        record.settings["game_key"] = task.key
        return record

    def replay(self, record: GameRecord) -> ReplayView:
        """Every answer, with the four hands after it."""
        return mahjong_replay(record)

    def move_text(self, record: GameRecord, ply: int) -> str:
        """The answer in words (``discard 7s``)."""
        return move_words(record.moves[ply].move)

    def shown_setting(self, key: str, value: Any, settings: Mapping[str, Any]
                      ) -> Setting | None:
        """For the results site: the choices in words, each hand a record played as a
        sentence; ``None`` for the other settings."""
        words = SETTING_WORDS.get(key, {})
        if isinstance(value, str) and value in words:
            return Setting("", words[value])
        if key == "hands_played" and isinstance(value, list):
            return Setting(f"Hands played ({len(value)})",
                           items=[hand_sentence(k, hand) for k, hand in enumerate(value, 1)])
        return None


def _seat(value: Any) -> str | None:
    """A recorded seat as people number it (``None`` for anything else)."""
    return seat_name(value) if type(value) is int and 0 <= value < 4 else None


def hand_sentence(number: int, hand: Any) -> str:
    """One recorded hand (``hands_played``) in words: ``Hand 1: seat 1 won on seat 3's
    discard, 2 tai (dealer 1, single wait 1); seat 1 +140, seat 3 -140``."""
    if not isinstance(hand, Mapping):
        return f"Hand {number}: {hand}"
    reason = str(hand.get("reason") or "")
    winner, payer = _seat(hand.get("winner")), _seat(hand.get("discarder"))
    if winner is None:
        return f"Hand {number}: {reason or 'no winner'}"
    if "flower" in reason:
        how = (f"won on seven flowers, robbing {payer}'s eighth" if payer else
               "won on all eight flowers")
    elif payer is None:
        how = "won on a tile of its own draw"
    else:
        how = f"won on {payer}'s {'kong tile' if 'kong' in reason else 'discard'}"
    text = f"Hand {number}: {winner} {how}"
    tai, patterns = hand.get("tai"), hand.get("patterns")
    if type(tai) is int:
        text += f", {tai} tai"
        if isinstance(patterns, list) and patterns:
            text += " (" + ", ".join(" ".join(str(p).replace("_", " ") for p in pattern)
                                     if isinstance(pattern, list) else str(pattern)
                                     for pattern in patterns) + ")"
    payments = hand.get("payments")
    if isinstance(payments, list) and len(payments) == 4:
        paid = [f"{seat_name(s)} {p:+d}" for s, p in enumerate(payments)
                if type(p) is int and p]
        if paid:
            text += "; " + ", ".join(paid)
    return text


WIDTH = 760
ROW = 26
STYLE = ("text{font:13px monospace;fill:#222}.who{font-weight:bold}"
         ".act{fill:#a33}.rule{stroke:#ccc}.key{fill:#666;font-size:11px}")


def record_rules(settings: Mapping[str, Any]) -> Rules:
    """The rules a Mahjong record's settings describe; ``ValueError`` if they are bad."""
    numbers = {key: settings.get(key, default) for key, default in
               (("hands", 16), ("reserve", 16), ("base", 100), ("per_tai", 20))}
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in numbers.values()):
        raise ValueError(f"mahjong record: bad settings {numbers}")
    # records from before the setting were played with kongs on any discard
    previous = settings.get("kong_from_previous", True)
    if not isinstance(previous, bool):
        raise ValueError(f"mahjong record: bad kong_from_previous {previous!r}")
    scoring = settings.get("scoring", "icga")  # records before the tables had names: icga
    if scoring not in PRESETS:
        raise ValueError(f"mahjong record: unknown scoring {scoring!r}")
    return Rules(hands=numbers["hands"], reserve=numbers["reserve"], table=PRESETS[scoring],
                 stakes=Stakes(numbers["base"], numbers["per_tai"]),
                 kong_from_previous=previous)


def mahjong_replay(record: GameRecord) -> ReplayView:
    """Replays the record's answers on the walls of its seed: each step shows the hand
    number, the answer and the four concealed hands and melds after it."""
    if record.game != "mahjong":
        raise ValueError(f"not a mahjong record: {record.game!r}")
    game = MahjongGame(record_seed(record), record_rules(record.settings))
    names = [p.name for p in record.players]
    steps = []
    frames = [game_frame(game, names)]
    for move in record.moves:
        seat = game.to_play()
        if seat is None:
            break
        steps.append(_replay_step(game, names, seat, move))
        frames.append(game_frame(game, names, move.seat))
    if game.to_play() is None and frames:  # the game is over: its totals
        order = sorted(range(4), key=lambda s: -game.totals[s])
        end = {"h": "Game over", "l": [], "d": [0] * 4, **frames[-1].get("x", {})}
        end["l"] = [*end["l"], "Game over:",
                    *(f"{names[s]}: {game.totals[s]} points" for s in order)]
        frames[-1] = {**frames[-1], "x": end}
    key = text_lines(["", "", "", "", "", "", SHORT_NAMES_KEY], ROW, rest="key")
    return ReplayView(WIDTH, ROW * 8, key, tuple(steps), STYLE, roles=SEAT_WINDS,
                      frames=tuple(frames), renderer="tiles", frame_info=frame_info(names))


_WORDS = {"/throw": "discard", "/eat": "chow", "/pong": "pung", "/gong": "kong",
          "/hu": "win", "/pass": "pass"}
"""The framework's instructions in the words players use."""
_TILES = frozenset(ALL_TILES)
_HONOR_WORDS = {"E": "East", "S": "South", "W": "West", "N": "North", "C": "Red",
                "F": "Green", "P": "White", **{f"f{k}": f"flower{k}" for k in range(1, 9)}}


def move_words(line: str) -> str:
    """An answer in words, its tiles by name: ``/throw 472`` -> ``discard 7s``, ``/eat 112
    130`` -> ``chow 2m 4m``, honors and flowers in words (``discard White``); the line as
    it is when it is not an instruction."""
    words = line.split()
    if not words or words[0] not in _WORDS:
        return line
    names = []
    for word in words[1:]:
        tid = int(word) if word.isdigit() else -1
        code = tile_code(tid) if tid in _TILES else word
        names.append(_HONOR_WORDS.get(code, code))
    return " ".join([_WORDS[words[0]], *names])


def _replay_step(game: MahjongGame, names: list[str], seat: int,
                 move: MoveRecord) -> ReplayStep:
    """Play one recorded answer of ``seat`` (unless it is illegal or unreadable, which the
    step's note then says): the step, its mark the four hands after it."""
    if move.info.get("illegal"):
        return ReplayStep(move.seat, move.move, note="illegal")
    question = game.hand.question
    assert question is not None
    try:
        action = parse_action(move.move, question.ask)
    except BotFault:
        return ReplayStep(move.seat, move.move, note="unreadable")
    if game.illegal_reason(seat, action) is not None:
        return ReplayStep(move.seat, move.move, note="illegal")
    game.apply(seat, action)
    hand = game.hand
    lines = [f"hand {game.number + 1}: {names[seat]} {move.move}"]
    for s in range(4):
        melds = " ".join("[" + " ".join(short_name(t) for t in m.tiles) + "]"
                         for m in hand.melds[s])
        lines.append(f"{names[s][:12]:<12} "
                     f"{' '.join(short_name(t) for t in hand.hands[s])} {melds}")
    if hand.result is not None:
        lines.append(hand_sentence(game.number + 1, hand_facts(hand.result)))
    return ReplayStep(move.seat, move_words(move.move), mark=text_lines(lines, ROW))
