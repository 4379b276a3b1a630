"""Riichi mahjong at a web table: the settings a table takes (the room's rules and the
game's length, as ``referee match riichi`` takes them), what a seat sees, a click as an
mjai answer.

The game is played by :class:`~referee.games.riichi.table_game.RiichiTableGame`, the
mjai referee's own loop: built-in and registered bots are mjai programs started as in a
match, a program joining over the network (``referee connect riichi URL``) speaks mjai
over its link, and people's seats are driven by the server.

A seat sees the table as the results site's tile replays draw it (``frames``): its own
hand and drawn tile, every seat's discards (riichi and called tiles marked), melds and
score, the dora indicators, the round, honba, sticks and the live wall's count, and the
result of the hand before with its yaku, han, fu and payments; never another seat's
concealed tiles or drawn tile (a winner's hand is shown to all, as a win shows it), unless
``reveal``. The seat asked is told its legal answers, from the engine, in mjai form: the
tiles it may discard, and its calls as buttons (chi, pon, kan, riichi, tsumo, ron,
kyuushu kyuuhai, pass).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from referee.core.clock import TimeControl
from referee.core.errors import ConfigError
from referee.core.players import PlayerSpec
from referee.core.record import GameRecord
from referee.core.table import (
    Field,
    FixedSeats,
    TableGame,
    read_fields,
)
from referee.games.riichi.adapter import room_rules
from referee.games.riichi.frames import tile_code
from referee.games.riichi.match import BUILTIN_PLAYERS, RiichiMatchSettings
from referee.games.riichi.rules import (
    Action,
    RiichiGame,
    action_from_mjai,
    action_to_mjai,
)
from referee.games.riichi.table_game import RiichiTable, RiichiTableGame, SeatMaker

__all__ = ["DRIVER", "RiichiDriver"]

ROOMS = ("tenhou", "mahjong_soul", "mjai_app")
"""The rooms ``referee match riichi --room`` knows."""
_CALLS = {"chi": "Chi", "pon": "Pon", "daiminkan": "Kan", "ankan": "Kan (closed)",
          "kakan": "Kan (added)", "reach": "Riichi", "ryukyoku": "Kyuushu kyuuhai (draw)",
          "none": "Pass"}
"""How a call's button reads (a win: tsumo or ron)."""
_CLIP = 200


class RiichiDriver(FixedSeats):
    """Riichi's table driver (``core.table.TableDriver``)."""

    game = "riichi"
    title = "Riichi mahjong"
    builtins: Mapping[str, str] = {"greedy": BUILTIN_PLAYERS["greedy"],
                                   "tsumogiri": BUILTIN_PLAYERS["tsumogiri"]}
    board_module = "board.js"
    seat_list = ("East (deals first)", "South", "West", "North")
    """The seats' winds in the first hand (seat 1 deals first; the deal passes)."""
    fields = (
        Field("room", "Room", "choice", "tenhou", ROOMS,
              help="whose rules: Tenhou's or Mahjong Soul's ranked room, or the mjai.app "
                   "simulator's (docs/riichi.md)"),
        Field("length", "Game length", "choice", "south", ("east", "south"),
              help="east-only (tonpuusen) or east-south (hanchan)"),
        Field("max_failures", "Failures before a bot forfeits", "int", 5, low=1, high=1000,
              help="bad, illegal or late answers of a program (each replaced by the safe "
                   "default)"),
    )

    def settings(self, form: Mapping[str, str]) -> dict[str, Any]:
        """The table's settings from its form; ``ConfigError`` naming the field."""
        values = read_fields(self.fields, form)
        try:
            room_rules(values["room"], values["length"])
        except ValueError as exc:
            raise ConfigError(f"Room: {exc}") from None
        return values

    # -- playing ------------------------------------------------------------------------
    def play(self, game: TableGame) -> GameRecord:
        """Play the table's game with :class:`RiichiTableGame` on the table's seed."""
        s = game.settings
        program_time = game.program_seconds(5.0)
        settings = RiichiMatchSettings(room_rules(s["room"], s["length"]), game.seed,
                                       program_time, max_failures=int(s["max_failures"]),
                                       sandbox=game.sandbox)
        players = game.players()
        outside: dict[int, SeatMaker] = game.outside()
        links = game.links()
        run = RiichiTableGame(players, settings, game.work, times=game.times, links=links,
                              log_path=_log_path(game.work, game.record_path))

        def take_over(seat: int, player: PlayerSpec, time: TimeControl) -> Any:
            return run.take_over(seat, player, time)

        game.take_over = take_over
        game.release = run.drop
        game.record = run.current_record
        return run.play(outside=outside, watch=game.watch, on_fault=game.on_fault)

    # -- what a seat sees ---------------------------------------------------------------
    def view(self, engine: RiichiTable, seat: int | None, reveal: bool) -> dict[str, Any]:
        """The table as ``seat`` may see it (see the module); the legal answers of the
        seat asked."""
        game = engine.game
        kyoku = game.kyoku
        assert kyoku is not None
        acting = kyoku.actor if kyoku.phase in ("tsumo", "reach") else -1
        frame = engine.frames.frame(None, acting)
        if game.over:
            frame = engine.frames.game_end(frame)
        winners = _winners(game) if kyoku.result is not None else set()
        for other, row in enumerate(frame["s"]):
            if not (reveal or other == seat or other in winners):
                row[2], row[3] = "", ""
        view: dict[str, Any] = {
            "frame": frame, "over": game.over,
            "hand_number": len(game.results) + (kyoku.result is None),
            "wall": kyoku.source.live_left(), "dealer": kyoku.oya,
            "held": [len(tiles) for tiles in kyoku.hands], "scores": list(game.scores),
            "result": frame.get("x"), "last": _last(engine),
        }
        if seat is not None:
            names = kyoku.names
            drawn = kyoku.drawn if (seat == kyoku.actor and kyoku.phase in ("tsumo", "reach")
                                    and kyoku.drawn in kyoku.hands[seat]) else None
            view["hand"] = [names[t] for t in sorted(kyoku.hands[seat]) if t != drawn]
            view["drawn"] = None if drawn is None else names[drawn]
            if engine.asked == seat and not game.over:
                view["legal"] = _legal(game, seat)
        return view

    def action(self, engine: RiichiTable, seat: int, move: Mapping[str, Any]) -> Action:
        """An mjai answer as the legal ones of the view name them (``{"type": "dahai",
        "pai": "5mr", "tsumogiri": false}``, ``{"type": "pon", ...}``, ``{"type":
        "none"}``...), played by ``seat``."""
        try:
            return action_from_mjai({**move, "actor": seat}, seat)
        except ValueError as exc:
            text = str(exc)
            raise ValueError(text if len(text) <= _CLIP else text[:_CLIP] + "...") from None


def _legal(game: RiichiGame, seat: int) -> dict[str, Any]:
    """The answers of the seat asked: the tiles it may discard (from its hand, and
    whether the drawn tile), its calls as buttons."""
    discard: list[str] = []
    tsumogiri = False
    calls: list[dict[str, Any]] = []
    for option in game.legal_actions(seat):
        if option.type == "dahai":
            if option.tsumogiri:
                tsumogiri = True
            elif option.pai not in discard:
                discard.append(str(option.pai))
            continue
        move = action_to_mjai(option)
        tiles = [*option.consumed, *([option.pai] if option.pai else [])]
        if option.type == "hora":
            name = "tsumo" if option.target == seat else "ron"
            label = f"{name.capitalize()} ({option.pai})"
        else:
            name = {"daiminkan": "kan", "ankan": "kan", "kakan": "kan",
                    "ryukyoku": "kyushu", "none": "pass", "reach": "riichi"}.get(
                        option.type, option.type)
            label = _CALLS[option.type]
            if option.type in ("chi", "pon", "daiminkan"):
                label += f" {' '.join(option.consumed)} with {option.pai}"
            elif option.type in ("ankan", "kakan"):
                label += f" {option.pai or option.consumed[0]}"
        calls.append({"name": name, "label": label, "move": move,
                      "codes": [tile_code(t) for t in tiles]})
    return {"discard": discard, "tsumogiri": tsumogiri, "calls": calls}


def _winners(game: RiichiGame, back: int = 0) -> set[int]:
    """The seats that won the hand in play (``back`` 1: the hand before it)."""
    won: set[int] = set()
    for event in reversed(game.events):
        kind = event.get("type")
        if kind == "start_kyoku":
            if back == 0:
                break
            back -= 1
        elif kind == "hora" and back == 0:
            won.add(int(event["actor"]))
    return won


def _last(engine: RiichiTable) -> dict[str, Any] | None:
    """The hand before the one in play: its result (yaku, han, fu, payments), its dora
    and ura dora, the winners' hands (shown to all once won)."""
    previous, game = engine.previous, engine.game
    if previous is None or previous.result is None:
        return None
    frame = engine.frames.frame(previous)
    winners = sorted(_winners(game, 0 if game.kyoku is previous else 1))
    return {"number": len(game.results) - (game.kyoku is not None
                                           and game.kyoku.result is not None),
            "result": frame["x"], "dora": frame["g"], "winners": winners,
            "hands": [frame["s"][s][2:5] for s in winners]}


def _log_path(work: Path, record: Path | None) -> Path:
    """Where the game's mjai log goes: beside the record the server writes
    (``game-ID.mjson.gz`` beside ``game-ID.json``), as ``referee replay riichi`` reads a
    record through the log beside it; without a record's place, in the work folder."""
    if record is not None:
        return record.with_name(f"{record.stem}.mjson.gz")
    return work / "game.mjson.gz"


DRIVER = RiichiDriver()
"""The driver the registry names."""
