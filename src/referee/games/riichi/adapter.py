"""Riichi mahjong as tournaments see it: the ``[settings]`` table, one game, its replay.

Duplicate play comes from the ITPW schedule, as for ICGA Mahjong
(:mod:`referee.games.mahjong.adapter`): groups of four play every cyclic seat rotation on
the same seed, so every seat gets the same walls in each of the four games while the
players move round the table; the ratings are BayesElo over the pairwise comparisons of
the four players' final scores (uma and oka included) in each game.

Each game's whole mjai log is kept next to the game slot's bot folders, in
``<work_dir>/mjai/<game key>.mjson.gz`` (the key made safe as a file name; the record's
``mjai_log`` names the file).

A player's ``options`` table (:class:`RiichiPlayerTable`) takes ``batched = true``: the bot
speaks mjai.app's batched style (a JSON array of the events since its last answer, only
when it decides), in the player check and in every game, whatever seat it plays.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from referee.core.adapter import GameTask, PointsGameAdapter
from referee.core.errors import BotFault, ConfigError
from referee.core.json_read import json_value
from referee.core.limits import megabytes
from referee.core.players import PlayerSpec, folder_name, trial_process
from referee.core.process import BotProcess
from referee.core.record import GameRecord, MoveRecord
from referee.core.replay import SEAT_WINDS, ReplayStep, ReplayView, Setting, text_lines
from referee.core.sandbox import SandboxConfig, plan_sandbox
from referee.core.text import seat_name
from referee.core.validation import Megabytes, Seconds
from referee.games.riichi.defaults import MEMORY_MB
from referee.games.riichi.frames import RiichiFrames
from referee.games.riichi.logrules import start_game_event
from referee.games.riichi.match import (
    BUILTIN_PLAYERS,
    CLIP,
    AnswerError,
    RiichiMatchSettings,
    apply_logged,
    mask_event,
    may_pass,
    pass_all,
    play_riichi,
    read_answer,
    seated,
)
from referee.games.riichi.rules import (
    WIND_NAMES,
    Action,
    RiichiGame,
    RiichiKyoku,
    RiichiRules,
    action_from_mjai,
)
from referee.games.riichi.rulesets import PRESETS, preset_rules, rules_from_dict

__all__ = ["ROOMS", "RiichiAdapter", "RiichiPlayerTable", "RiichiSettings", "RiichiTable",
           "record_rules", "riichi_replay", "room_rules"]

ROOMS = PRESETS
"""The rule sets a tournament may choose, by name (:mod:`referee.games.riichi.rulesets`)."""

_DEFAULTS = RiichiMatchSettings()

GAME_LENGTH = {"east": "east round only (tonpuusen)", "south": "east and south rounds (hanchan)"}
SETTING_LABELS = {
    "game": "Game length", "game_length": "Game length", "room": "Rules of",
    "rules": "Rules", "decision_time": "Time per decision", "startup_time": "Start-up time",
    "max_failures": "Faulty answers before a forfeit", "batched": "Batched answers",
    "points": "Points at the end", "ranks": "Places", "hands": "Hands played",
    "failure_counts": "Faulty answers", "failures": "Faulty answers replaced",
    "forfeits": "Forfeits", "mjai_log": "",
}
"""The settings' labels on the results site (and those of what a record adds; ``""``:
the mjai log's file name, offered as a download instead)."""
SETTING_WORDS = {
    "game": GAME_LENGTH, "game_length": GAME_LENGTH,
    "room": {"tenhou": "Tenhou's ranked rooms", "mahjong_soul": "Mahjong Soul's ranked rooms",
             "mjai_app": "the mjai.app simulator"},
}
PLACES = ("1st", "2nd", "3rd", "4th")

CHECK_SEED = 0
"""The wall of the player check: its dealer may only discard on its first draw (no
riichi, tsumo or nine-terminal draw is possible), so a discard is the one right answer."""


def room_rules(room: str, game: str) -> RiichiRules:
    """The rules of ``room`` (a rule set's name: ``tenhou``, ``mahjong_soul``,
    ``mjai_app``) for an ``east`` or ``south`` game; ``ValueError`` (a
    :class:`~referee.games.riichi.rulesets.RulesError`) for an unknown room or length."""
    return preset_rules(room, game)


def record_rules(record: GameRecord) -> RiichiRules:
    """The rules a Riichi record was played under: those it records (``rules``, written
    since the records carry them), else its room's (Tenhou's when it names none) for its
    game length; ``ValueError`` for rules that cannot be read."""
    recorded = record.settings.get("rules")
    if recorded is not None:
        return rules_from_dict(recorded, "riichi record")
    return room_rules(str(record.settings.get("room", "tenhou")),
                      str(record.settings.get("game_length", "south")))


class RiichiTable(BaseModel):
    """The ``[settings]`` table of a Riichi tournament (times in seconds)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    game: Literal["east", "south"] = "south"
    """``east``: an east-only game (tonpuusen); ``south``: east and south (hanchan)."""
    room: Literal["tenhou", "mahjong_soul", "mjai_app"] = "tenhou"
    """Whose rules (:data:`~referee.games.riichi.rulesets.PRESETS`): Tenhou's or Mahjong
    Soul's ranked rooms, or the mjai.app simulator's."""
    decision_time: Seconds = Field(default=_DEFAULTS.decision_time, gt=0)
    startup_time: Seconds = Field(default=_DEFAULTS.startup_time, gt=0)
    """Seconds for a bot's first answer (it may load a model)."""
    max_failures: int = Field(default=_DEFAULTS.max_failures, ge=1)
    """Late, malformed or illegal answers before a bot forfeits the rest of its game."""
    memory: Megabytes = Field(default=MEMORY_MB, ge=0)
    """MB of memory each bot's process tree may use (``"2G"``; 0: no limit)."""


class RiichiPlayerTable(BaseModel):
    """A player's ``options`` table in a Riichi tournament."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    batched: bool = False
    """The bot speaks mjai.app's batched style (``referee match riichi --batched``)."""


def batched(player: PlayerSpec) -> bool:
    """Whether ``player`` asked for mjai.app's batched style (its ``options``)."""
    return player.options.get("batched") is True


@dataclass(frozen=True)
class RiichiSettings:
    """A tournament's settings: the room's name and how every game is played (the seed of
    ``match`` is replaced by each game's own)."""

    room: str
    match: RiichiMatchSettings


class RiichiAdapter(PointsGameAdapter[RiichiTable, RiichiSettings]):
    """The Riichi slice for tournaments: four seats, the walls from the seed."""

    name = "riichi"
    builtins: Mapping[str, str] = BUILTIN_PLAYERS
    points_unit = "final scores (points with uma and oka, in thousands)"
    setting_labels: Mapping[str, str] = SETTING_LABELS

    settings_table = RiichiTable
    player_table = RiichiPlayerTable

    def settings_from(self, spec: RiichiTable, base: Path) -> RiichiSettings:
        """The game length, the room, the clocks and the failures allowed."""
        match = RiichiMatchSettings(room_rules(spec.room, spec.game),
                                    decision_time=spec.decision_time,
                                    max_failures=spec.max_failures,
                                    startup_time=spec.startup_time,
                                    memory_limit=megabytes(spec.memory))
        return RiichiSettings(spec.room, match)

    def seat_count(self, settings: RiichiSettings) -> int:
        """Four players a game."""
        return 4

    def with_sandbox(self, settings: RiichiSettings, sandbox: SandboxConfig) -> RiichiSettings:
        """The same settings, every game's bots in ``sandbox``."""
        return replace(settings, match=replace(settings.match, sandbox=sandbox))

    def describe(self, settings: RiichiSettings) -> dict[str, Any]:
        """Settings as plain data."""
        match = settings.match
        data = {"game": match.rules.game_length, "room": settings.room,
                "decision_time": match.decision_time, "startup_time": match.startup_time,
                "max_failures": match.max_failures}
        if match.memory_limit != megabytes(MEMORY_MB):  # (the fingerprint of a tournament
            data["max_memory"] = match.memory_limit  # that leaves it out stays as it was)
        return data

    def opening_count(self, settings: RiichiSettings) -> int:
        """No openings: the seed decides the walls."""
        return 0

    def check_player(self, settings: RiichiSettings, player: PlayerSpec,
                     work_dir: Path) -> None:
        """Start the program (``{seat}`` in its command line made 0) and tell it, as seat
        0, ``start_game``, then ``start_kyoku`` and its own ``tsumo`` as the dealer of East
        1 (the wall of :data:`CHECK_SEED`).

        It must answer ``none`` to the first two (``startup_time`` for the first answer)
        and a legal ``dahai`` of one of its tiles to the draw within ``decision_time``. A
        batched player (its ``options``) gets the three events as one JSON array, as in
        its games, and answers once, with the ``dahai`` (within ``startup_time``).
        """
        match = settings.match
        game = RiichiGame(match.rules, seed=CHECK_SEED)
        names = [player.name, "seat-2", "seat-3", "seat-4"]
        events = [mask_event(e, 0) for e in (start_game_event(names, match.rules),
                                             *game.events)]
        *greetings, draw = events
        with trial_process(seated(player, 0), work_dir, "play a hand",
                           plan_sandbox(match.sandbox), match.memory_limit) as process:
            wait = match.startup_time
            if batched(player):
                answer = _exchange(process, events, time.monotonic() + wait)
                _check_discard(player.name, game, answer, "its first events (start_game, "
                               "start_kyoku and its tsumo as the dealer, batched)")
                ending: Any = [{"type": "end_game", "scores": game.scores}]
            else:
                for event in greetings:
                    answer = _exchange(process, event, time.monotonic() + wait)
                    wait = match.decision_time
                    if _json(answer) != {"type": "none"}:
                        raise ConfigError(f"player {player.name} answered {answer[:CLIP]!r} "
                                          f"to {event['type']}: expected "
                                          '{"type":"none"}')
                answer = _exchange(process, draw, time.monotonic() + wait)
                _check_discard(player.name, game, answer)
                ending = {"type": "end_game", "scores": game.scores}
            with contextlib.suppress(BotFault):  # checked: how it leaves does not matter
                _send(process, ending, time.monotonic() + 1.0)

    def play(self, settings: RiichiSettings, task: GameTask, work_dir: Path) -> GameRecord:
        """One game, seats as scheduled (each batched as its player's ``options`` say), the
        walls from the task's seed; the mjai log goes to ``work_dir/mjai/<key>.mjson.gz``."""
        chosen = replace(settings.match, seed=task.seed,
                         batched=tuple(batched(player) for player in task.seats))
        log_path = work_dir / "mjai" / f"{folder_name(task.key)}.mjson.gz"
        record = play_riichi(task.seats, chosen, work_dir, log_path)
        record.settings["game_key"] = task.key
        record.settings["room"] = settings.room
        return record

    def replay(self, record: GameRecord) -> ReplayView:
        """Every move, with the four hands and scores after it."""
        return riichi_replay(record)

    def move_text(self, record: GameRecord, ply: int) -> str:
        """The move in a few words (``discard 5m``; the replay adds the hand, ``E1``)."""
        move = record.moves[ply]
        data = _json(move.move)
        if not isinstance(data, dict) or "type" not in data:
            return move.move[:CLIP]
        return _move_text(data, [p.name for p in record.players])

    def shown_setting(self, key: str, value: Any, settings: Mapping[str, Any]
                      ) -> Setting | None:
        """For the results site: the choices in words, a record's results by seat;
        ``None`` for the other settings."""
        words = SETTING_WORDS.get(key, {})
        if isinstance(value, str) and value in words:
            return Setting("", words[value])
        if not isinstance(value, list) or len(value) != 4 or key not in (
                "batched", "points", "ranks", "failure_counts"):
            return _events_setting(key, value)
        if key == "batched":
            batched = [seat_name(s) for s, on in enumerate(value) if on is True]
            return Setting("", ", ".join(batched) + " (mjai.app style)" if batched else "none")
        if key == "ranks":
            return Setting("", ", ".join(f"{seat_name(s)} {PLACES[r - 1]}"
                                         for s, r in enumerate(value)
                                         if type(r) is int and 1 <= r <= 4))
        shown = [(seat_name(s), v) for s, v in enumerate(value)
                 if key == "points" or v]  # faulty answers: the seats that had some
        return Setting("", ", ".join(f"{seat} {v}" for seat, v in shown) or "none")


def _events_setting(key: str, value: Any) -> Setting | None:
    """A record's faulty answers replaced (``failures``) and forfeits, one line each."""
    if key not in ("failures", "forfeits") or not isinstance(value, list):
        return None
    lines = []
    for item in value:
        if not isinstance(item, Mapping):
            lines.append(str(item))
            continue
        seat = item.get("seat")
        who = seat_name(seat) if type(seat) is int and 0 <= seat < 4 else str(seat)
        where = f"{who}, {item.get('hand', '?')}, after move {item.get('moves', '?')}"
        if key == "forfeits":
            lines.append(f"{where}: {item.get('reason', '')}")
        else:
            lines.append(f"{where}: {item.get('kind', '')} ({item.get('line', '')})")
    return Setting(f"{SETTING_LABELS[key]} ({len(lines)})", items=list(lines))


def _send(process: BotProcess, event: dict[str, Any] | list[dict[str, Any]],
          deadline: float) -> None:
    """Send one event (or a batch of them, a JSON array) as an mjai line."""
    process.send(json.dumps(event, separators=(",", ":")) + "\n", deadline)


def _exchange(process: BotProcess, event: dict[str, Any] | list[dict[str, Any]],
              deadline: float) -> str:
    """Send one event (or a batch) as an mjai line; the answer line."""
    _send(process, event, deadline)
    return process.read_line(deadline)


def _json(line: str) -> Any:
    """The line's JSON value (None if it is not JSON)."""
    try:
        return json_value(line)
    except ValueError:
        return None


def _check_discard(name: str, game: RiichiGame, answer: str,
                   asked: str = "its tsumo as the dealer") -> None:
    """``ConfigError`` unless ``answer`` (to what ``asked`` names) is a legal discard of the
    dealer (seat 0)."""
    try:
        action = read_answer(game, 0, answer)
    except AnswerError as exc:
        problem = (f"not an mjai action ({exc.reason})" if exc.kind == "garbage"
                   else f"not a legal dahai of one of its tiles ({exc.reason})")
    else:
        if action.type == "dahai":
            return
        problem = f"not a legal dahai of one of its tiles ({action.type})"
    raise ConfigError(f"player {name} answered {answer[:CLIP]!r} to {asked}: {problem}")


# ------------------------------------------------------------------------------ replay

WIDTH = 760
ROW = 24
STYLE = "text{font:13px monospace;fill:#222}.who{font-weight:bold}.act{fill:#a33}"


def _compact(tiles: Iterable[int], names: Sequence[str]) -> str:
    """Tiles in Tenhou's compact notation (``123m406p55s`` and the honors by their mjai
    letters, ``EESP``), the red five written ``0``."""
    parts = []
    ordered = sorted(tiles)
    for suit in "mps":
        ranks = "".join("0" if names[t].endswith("r") else names[t][0]
                        for t in ordered if names[t][1:2] == suit)
        if ranks:
            parts.append(ranks + suit)
    return "".join(parts) + "".join(names[t] for t in ordered if len(names[t]) == 1)


_WORDS = {"dahai": "discard", "reach": "riichi", "none": "pass", "ryukyoku": "abortive draw",
          "daiminkan": "kan", "ankan": "closed kan", "kakan": "added kan"}
"""mjai's action types in the words players use (the others as they are: chi, pon)."""


def _move_text(data: Mapping[str, Any], names: Sequence[str]) -> str:
    """A move in a few words: ``discard 5m``, ``discard 5m (drawn)``, ``pon 5m (5m 5mr)
    from B``, ``ron 3p from C``, ``tsumo 3p``."""
    kind = str(data["type"])
    target = data.get("target")
    other = isinstance(target, int) and 0 <= target < 4 and target != data.get("actor")
    words = [("ron" if other else "tsumo") if kind == "hora" else _WORDS.get(kind, kind)]
    if data.get("pai"):
        words.append(str(data["pai"]))
    if kind == "dahai" and data.get("tsumogiri"):
        words.append("(drawn)")
    if data.get("consumed"):
        words.append("(" + " ".join(map(str, data["consumed"])) + ")")
    if other and isinstance(target, int):
        words.append(f"from {names[target]}")
    return " ".join(words)


def _table(kyoku: RiichiKyoku, names: Sequence[str]) -> list[str]:
    """One line per seat: name, points, concealed tiles, melds, riichi."""
    lines = []
    for s in range(4):
        melds = " ".join(f"[{_compact(m.tiles, kyoku.names)}]" for m in kyoku.melds[s])
        riichi = " riichi" if kyoku.riichi[s] else ""
        lines.append(f"{names[s][:12]:<12} {kyoku.scores[s]:>6} "
                     f"{_compact(kyoku.hands[s], kyoku.names)} {melds}".rstrip() + riichi)
    return lines


def _mark(head: str, kyoku: RiichiKyoku, names: Sequence[str], end: str = "") -> str:
    """A step's picture: the move (``head``), the table, how the hand ended if it has,
    and ``end`` (the game's end)."""
    lines = [head, *_table(kyoku, names)]
    if kyoku.result is not None:
        lines.append(f"{kyoku.result.reason}: {list(kyoku.result.deltas)}")
    if end:
        lines.append(end)
    return text_lines(lines, ROW)


def _parse(number: int, move: MoveRecord) -> tuple[Action, dict[str, Any]]:
    """The action of recorded move ``number`` (1-based) and its mjai dict."""
    data = _json(move.move)
    try:
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return action_from_mjai(data, move.seat), data
    except ValueError as exc:
        raise ValueError(f"riichi record: move {number} {move.move[:CLIP]!r} is not an mjai "
                         f"action: {exc}") from None


def riichi_replay(record: GameRecord) -> ReplayView:
    """Replays the record's moves through the engine on the walls of its seed: each step
    shows the hand (``E1-0``: East 1, no honba), the move and, after it, every seat's
    points, concealed tiles (Tenhou's compact notation) and melds, and how the hand ended
    when the move ended it.

    The record's moves are enough to rebuild the game: they are every answer the game
    applied but the passes (``none``), as mjai JSON (the bots' answers, or the safe
    defaults that replaced faulty ones), in the order the referee took them, a claim that
    lost to another one included. A move that is not legal while seats are answering a
    discard or a kan means they all passed: the replay passes for them and tries the move
    again. The rules are those the record carries (:func:`record_rules`). A record
    without its result (a game in progress) replays as far as its moves go.
    ``ValueError`` if the record is not a Riichi game or its moves do not fit the game of
    its seed (or, finished, end before it does).
    """
    if record.game != "riichi":
        raise ValueError(f"not a riichi record: {record.game!r}")
    finished = record.outcome is not None  # (else a game in progress: as far as it goes)
    seed = record.seed
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"riichi record: bad seed {seed!r}")
    rules = record_rules(record)
    names = [p.name for p in record.players]
    if len(names) != 4:
        raise ValueError(f"riichi record: {len(names)} players, not 4")
    game = RiichiGame(rules, seed=seed)
    actions = [_parse(number, move) for number, move in enumerate(record.moves, 1)]
    tiles = RiichiFrames(game, names)
    frames = [tiles.frame()]
    steps: list[ReplayStep] = []
    last: tuple[str, RiichiKyoku] | None = None
    for number, (move, (action, data)) in enumerate(zip(record.moves, actions, strict=True),
                                                    1):
        try:
            kyoku = apply_logged(game, move.seat, action)
        except ValueError as exc:
            raise ValueError(f"riichi record: move {number} {move.move[:CLIP]!r} does not "
                             f"fit the game: {exc}") from None
        head = (f"{WIND_NAMES[kyoku.bakaze]}{kyoku.kyoku}-{kyoku.honba} "
                f"{names[move.seat]}: {_move_text(data, names)}")
        last = head, kyoku
        text = f"{WIND_NAMES[kyoku.bakaze]}{kyoku.kyoku} {_move_text(data, names)}"
        steps.append(ReplayStep(move.seat, text, mark=_mark(head, kyoku, names)))
        if number < len(actions):  # the passes the next move implies, as apply_logged
            following = actions[number][0]  # would make them, so that the frame shows
            seat = record.moves[number].seat  # the next draw
            while may_pass(game) and game.illegal_reason(seat, following) is not None:
                pass_all(game)
        elif finished:
            while may_pass(game):  # the passes after the last move, to the end of the game
                pass_all(game)
        frames.append(tiles.frame(kyoku, move.seat))
    if not game.over:
        if finished:
            raise ValueError("riichi record: the moves end before the game does")
    elif last is not None:
        finals = game.final_scores()
        end = f"end: points {[f.points for f in finals]}, final {[f.score for f in finals]}"
        steps[-1] = steps[-1]._replace(mark=_mark(*last, names, end))
        frames[-1] = tiles.game_end(frames[-1])
    return ReplayView(WIDTH, ROW * 8, "", tuple(steps), STYLE, roles=SEAT_WINDS,
                      frames=tuple(frames), renderer="tiles", frame_info=tiles.info())
