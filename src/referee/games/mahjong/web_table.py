"""ICGA Mahjong at a web table: the settings a table takes (the scoring tables among
them), what a seat sees, a click as an answer.

The game is played by the match's ``ClientGame`` as in local or network mode: built-in
AIs and registered programs are clients started afresh for every hand (``ProcessChannel``),
a program joining over the network (``referee connect mahjong URL``) is a client over its
link (``LinkChannel``, its wrapper starting the program for every hand), and people's
seats are driven by the server. A faulty program gets the framework's dummy AI for the
rest of the hand; the pinch-hitter is that dummy AI (``DummySeat``); a person may let a
program of theirs play from the hand in play on (``ClientGame.join``).

A seat sees the table as the tile replays of the results site draw it (``frames``): its
own hand and drawn tile, every seat's discards, melds and flowers (set aside face up),
the wall's count, how many tiles each seat holds, and each hand's result with its tai;
never another seat's concealed tiles, drawn tile or concealed kong (the winner's hand is
shown to all once it has won, as ``/hu`` tells every client), unless ``reveal``. The seat
asked is told its legal answers, from the engine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.core.clock import Clock, TimeControl
from referee.core.errors import BotFault, ConfigError
from referee.core.outcome import Outcome
from referee.core.players import PlayerSpec, check_runnable
from referee.core.record import GameRecord
from referee.core.sandbox import plan_sandbox
from referee.core.table import (
    Field,
    FixedSeats,
    LinkedSeat,
    OutsideSeat,
    ProgramSeat,
    TableGame,
    answer_seconds,
    read_fields,
)
from referee.games.mahjong.defaults import MAX_HANDS
from referee.games.mahjong.engine import HandResult, MahjongHand
from referee.games.mahjong.frames import game_frame, tile_code
from referee.games.mahjong.game import MahjongGame
from referee.games.mahjong.match import (
    BUILTIN_PLAYERS,
    TAKEOVERS,
    Channel,
    ClientGame,
    DummySeat,
    LinkChannel,
    MahjongSettings,
    ProcessChannel,
    new_record,
)
from referee.games.mahjong.melds import MeldKind
from referee.games.mahjong.rules import (
    Action,
    ConcealedKong,
    Eat,
    Hu,
    Kong,
    Pass,
    Pong,
    PromotedKong,
    Rules,
    Throw,
    tiles_of,
)
from referee.games.mahjong.scoring import PRESETS, Stakes, preset
from referee.games.mahjong.tiles import tid_name

__all__ = ["DRIVER", "MahjongDriver"]

DUMMY = "dummy"
"""The framework's dummy AI: the pinch-hitter (in-process when it takes a seat over)."""
_NAMES = ["Seat 1", "Seat 2", "Seat 3", "Seat 4"]
"""How the frames' texts name the seats (the board names them by their players)."""
_CLAIMS = {Eat: "chow", Pong: "pung", Kong: "kong", ConcealedKong: "concealed_kong",
           PromotedKong: "promoted_kong", Hu: "win", Pass: "pass"}
"""Each answer's name in a board's move."""
_TILES = {"throw": 1, "chow": 2, "pung": 2, "kong": 3, "concealed_kong": 4,
          "promoted_kong": 1, "win": 0, "pass": 0}
"""How many tiles each move names."""


class MahjongDriver(FixedSeats):
    """ICGA Mahjong's table driver (``core.table.TableDriver``)."""

    game = "mahjong"
    title = "ICGA Mahjong"
    builtins: Mapping[str, str] = {DUMMY: "referee.games.mahjong.bots.dummy_ai",
                                   "greedy": BUILTIN_PLAYERS["greedy"],
                                   "random": BUILTIN_PLAYERS["random"]}
    board_module = "board.js"
    seat_list = ("East (deals first)", "South", "West", "North")
    """The seats' winds in the first hand (seat 1 deals first; the deal passes)."""
    fields = (
        Field("hands", "Hands", "int", 4, low=1, high=MAX_HANDS,
              help="hands in the game (16: four wind rounds, as referee match mahjong "
                   "plays by default)"),
        Field("scoring", "Tai table", "choice", "icga", tuple(PRESETS),
              help="icga (the referee's own table: the ICGA framework defines none) or "
                   "taiwan (a common Taiwanese table, with the eight-flower wins)"),
        Field("base", "Points per win", "int", 100, low=0, high=1_000_000,
              help="paid for a win before the tai"),
        Field("per_tai", "Points per tai", "int", 20, low=0, high=1_000_000),
        Field("reserve", "Reserved tiles", "int", 16, low=0, high=60,
              help="tiles left in the wall when a hand is drawn"),
        Field("takeover", "Dummy AI for a faulty program", "choice", "hand", TAKEOVERS,
              help="how long the dummy AI plays for a program that faults: the rest of "
                   "the hand (the framework) or of the game"),
        Field("kong_from_previous", "Kong on the previous player's discard", "bool", False,
              help="the framework forbids it"),
    )

    def settings(self, form: Mapping[str, str]) -> dict[str, Any]:
        """The table's settings from its form; ``ConfigError`` naming the field."""
        values = read_fields(self.fields, form)
        preset(values["scoring"])
        return values

    # -- playing ------------------------------------------------------------------------
    def play(self, game: TableGame) -> GameRecord:
        """Play the table's game with the match's ``ClientGame``."""
        s = game.settings
        rules = Rules(hands=s["hands"], reserve=s["reserve"], table=preset(s["scoring"]),
                      stakes=Stakes(s["base"], s["per_tai"]),
                      kong_from_previous=bool(s["kong_from_previous"]))
        program_time = game.program_seconds(10.0)
        settings = MahjongSettings(rules, game.seed, program_time, takeover=s["takeover"],
                                   sandbox=game.sandbox)
        plan = plan_sandbox(settings.sandbox)
        suspend = settings.sandbox.suspends(True)
        players = [p.player if isinstance(p, ProgramSeat) else PlayerSpec(p.name)
                   for p in game.seats]
        record = new_record(players, settings)
        record.sandbox = plan.describe(suspend)

        def process(seat: int, player: PlayerSpec, time: TimeControl) -> ProcessChannel:
            channel = ProcessChannel(player, game.work, settings.seed * 4 + seat,
                                     f"seat{seat + 1}-", settings.start_path, plan, suspend,
                                     seat=seat, memory_limit=settings.memory_limit)
            channel.move_time = answer_seconds(time)
            return channel

        channels: list[Channel | None] = []
        links: list[LinkChannel] = []
        for seat, seat_plan in enumerate(game.seats):
            if isinstance(seat_plan, ProgramSeat):
                channels.append(process(seat, seat_plan.player, game.times[seat]))
            elif isinstance(seat_plan, LinkedSeat):
                links.append(LinkChannel(seat_plan.link(), answer_seconds(game.times[seat])))
                channels.append(links[-1])
            else:
                channels.append(None)
        outside = {seat: plan_.make(seat, Clock(game.times[seat]))
                   for seat, plan_ in enumerate(game.seats) if isinstance(plan_, OutsideSeat)}
        table = ClientGame(channels, settings, record, outside)

        def take_over(seat: int, player: PlayerSpec, time: TimeControl) -> Any:
            if player.builtin and player.name == DUMMY:
                table.drop(seat)
                return DummySeat(DUMMY)
            try:
                check_runnable(player)
            except ConfigError as exc:
                raise BotFault(Outcome.CRASH, str(exc)) from None
            return table.join(seat, process(seat, player, time))

        game.take_over = take_over
        game.release = table.drop
        game.record = lambda: record
        try:
            return table.play(watch=game.watch, on_fault=game.on_fault)
        finally:
            for link in links:
                link.hang_up()

    # -- what a seat sees ---------------------------------------------------------------
    def view(self, engine: MahjongGame, seat: int | None, reveal: bool) -> dict[str, Any]:
        """The table as ``seat`` may see it (see the module); the legal answers of the
        seat asked."""
        hand = engine.hand
        question = hand.question
        frame = game_frame(engine, _NAMES, -1 if question is None else question.seat)
        won = hand.result.winner if hand.result is not None else None
        for other, row in enumerate(frame["s"]):
            if reveal or other == seat:
                continue
            if other != won:
                row[2], row[3] = "", ""
            row[4] = [meld for meld, kept in zip(row[4], hand.melds[other], strict=True)
                      if kept.kind is not MeldKind.CONCEALED_KONG]
        view: dict[str, Any] = {
            "frame": frame, "number": engine.number + 1, "hands": engine.rules.hands,
            "wall": max(hand.live, 0), "dealer": hand.dealer,
            "held": [len(tiles) for tiles in hand.hands],
            "hidden_kongs": [sum(m.kind is MeldKind.CONCEALED_KONG for m in melds)
                             for melds in hand.melds],
            "totals": list(engine.totals), "over": question is None,
            "result": None if hand.result is None else _result(hand, hand.result),
            "last": _last(engine),
        }
        if seat is not None:
            drawn = hand.drawn if question is not None and hand.turn == seat and \
                hand.drawn in hand.hands[seat] else None
            view["hand"] = sorted(t for t in hand.hands[seat] if t != drawn)
            view["drawn"] = drawn
            if question is not None and question.seat == seat:
                view["legal"] = _legal(hand, seat)
        return view

    def action(self, engine: MahjongGame, seat: int, move: Mapping[str, Any]) -> Action:
        """``{"action": NAME, "tiles": [TID, ...]}``: NAME one of throw, chow, pung, kong,
        concealed_kong, promoted_kong (with their tiles), win, pass."""
        name = move.get("action")
        if not isinstance(name, str) or name not in _TILES:
            raise ValueError(f"expected an action: {', '.join(_TILES)}")
        tiles = move.get("tiles", [])
        if not (isinstance(tiles, list) and len(tiles) == _TILES[name]
                and all(type(t) is int and 0 <= t < 1000 for t in tiles)):
            raise ValueError(f"{name} names {_TILES[name]} tile(s) by their ids")
        if name == "throw":
            return Throw(tiles[0])
        if name == "chow":
            return Eat(*tiles)
        if name == "pung":
            return Pong(*tiles)
        if name == "kong":
            return Kong(*tiles)
        if name == "concealed_kong":
            return ConcealedKong(*tiles)
        if name == "promoted_kong":
            return PromotedKong(tiles[0])
        return Hu() if name == "win" else Pass()


def _legal(hand: MahjongHand, seat: int) -> dict[str, Any]:
    """The answers of the seat asked: the tiles it may throw, its claims as buttons."""
    question = hand.question
    assert question is not None
    throws: list[int] = []
    claims: list[dict[str, Any]] = []
    discard = None if hand.discard is None else hand.discard[1]
    for option in hand.legal_actions():
        if isinstance(option, Throw):
            throws.append(option.tile)
            continue
        name = _CLAIMS[type(option)]
        tiles = [] if isinstance(option, (Hu, Pass)) else tiles_of(option)
        claims.append({"action": name, "tiles": tiles, "label": _label(name, tiles, discard),
                       "codes": [tile_code(t) for t in tiles]})
    return {"ask": question.ask.value, "throw": sorted(throws), "claims": claims,
            "discard": discard, "discard_code": None if discard is None
            else tile_code(discard)}


def _label(name: str, tiles: Sequence[int], discard: int | None) -> str:
    """A claim button's words (``Chow 3-Wan 4-Wan with 5-Wan``)."""
    words = {"chow": "Chow", "pung": "Pung", "kong": "Kong", "concealed_kong":
             "Concealed kong", "promoted_kong": "Promoted kong", "win": "Win (hu)",
             "pass": "Pass"}[name]
    named = " ".join(tid_name(t) for t in tiles)
    if name in ("chow", "pung", "kong") and discard is not None:
        return f"{words} {named} with {tid_name(discard)}"
    return f"{words} {named}".rstrip()


def _result(hand: MahjongHand, result: HandResult) -> dict[str, Any]:
    """A finished hand as the board says it: who won on whose tile, the tai, the points;
    the winner's tiles (shown to all once it has won)."""
    score = result.score
    return {"winner": result.winner, "discarder": result.discarder, "reason": result.reason,
            "payments": list(result.payments),
            "tai": None if score is None else score.total_tai,
            "patterns": [] if score is None else
            [[name.replace("_", " "), tai] for name, tai in score.patterns],
            "tiles": [] if result.winner is None else
            [tile_code(t) for t in hand.hands[result.winner]]}


def _last(engine: MahjongGame) -> dict[str, Any] | None:
    """The last hand played to its end before the one in play (its result stays in
    sight while the next is dealt)."""
    done = [h for h in engine.finished if h is not engine.hand]
    if not done or done[-1].result is None:
        return None
    return {"number": len(done), **_result(done[-1], done[-1].result)}


DRIVER = MahjongDriver()
"""The driver the registry names."""
