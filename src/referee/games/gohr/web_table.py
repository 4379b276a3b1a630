"""The Game of Hidden Rules at a web table: its settings, what the seat sees, a click as
an attempt.

A table plays a series of boards under one rule set (``table_engine.GohrSeries``): the
rule set is one of the examples or one pasted (in a textarea, a row a line; ``;`` ends a
row too, for programs and links), the boards random (pieces, shapes and colors as
``referee play gohr RULES N [S C]`` takes them, with its ``colors=`` and ``shapes=``
lists, drawn from the table's seed) or given (a board file's JSON, or a list of them, in
turn or shuffled). Its one seat is a person, a built-in player, or a program speaking the
captive server's protocol (``table_play``).

The rule is what the player must find out: no view shows it, nor which buckets would
accept a piece (the captive server's JSON tells a program that, never the board); a view
shows the board, the pieces put in each bucket, the last attempt's answer (accepted,
denied, immovable), the move count and the score. With ``reveal`` (the spectators, once
the game is over) the rule set's text is shown too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.core.errors import ConfigError
from referee.core.record import GameRecord
from referee.core.table import (
    Field,
    TableGame,
    read_fields,
)
from referee.games.gohr.board import LEGACY_SHAPES
from referee.games.gohr.engine import Code
from referee.games.gohr.table_engine import Attempt, Exit, GohrSeries, NextBoard
from referee.games.gohr.table_play import GohrTableGame, SeatMaker
from referee.games.gohr.table_setup import (
    EXAMPLES,
    GIVEN_ORDERS,
    PASTED,
    RULES_LONGEST,
    check_boards,
    check_rules,
    make_boards,
    name_list,
    random_spec,
    record_boards,
    record_rules,
)

__all__ = ["DRIVER", "GohrDriver"]

BUILTIN_PLAYERS = {"learner": "referee.games.gohr.bots.learner_bot",
                   "random": "referee.games.gohr.bots.random_bot"}
"""Built-in players by name -> module (the first: the pinch-hitter)."""
RESULTS = {Code.ACCEPT: "accepted", Code.DENY: "denied", Code.IMMOVABLE: "immovable"}
"""How the board names an attempt's answer."""
GIVEN_LONGEST = 64_000
"""The most characters the given boards may have (50 boards of some 20 pieces)."""


class GohrDriver:
    """GOHR's table driver (``core.table.TableDriver``)."""

    game = "gohr"
    title = "Game of Hidden Rules"
    builtins: Mapping[str, str] = BUILTIN_PLAYERS
    board_module = "board.js"
    fields = (
        Field("rules", "Rule set", "choice", "colors", (*EXAMPLES, PASTED),
              help="one of the examples, or 'pasted' to play the rule set pasted below"),
        Field("rules_text", "Pasted rule set", "lines", "", longest=RULES_LONGEST,
              help="a rule file's text, a rule row a line (orders first, # comments), "
                   "played with Rule set 'pasted'; ';' also ends a row"),
        Field("boards", "Boards", "choice", "random", ("random", "given"),
              help="random boards as below, or the given boards"),
        Field("pieces", "Pieces", "text", "5",
              help="random boards: how many pieces, N or N1:N2 (as referee play gohr "
                   "RULES N)"),
        Field("shapes", "Shapes", "text", "",
              help="random boards: how many distinct shapes, N or N1:N2 (with Colors: "
                   "RULES N S C); empty: any"),
        Field("colors", "Colors", "text", "",
              help="random boards: how many distinct colors, N or N1:N2 (with Shapes)"),
        Field("color_list", "Colors to draw from", "text", "",
              help="random boards: the colors' names, separated by ';' (as colors=red;"
                   "green); empty: red, black, blue, yellow"),
        Field("shape_list", "Shapes to draw from", "text", "",
              help="random boards: the shapes' names, separated by ';' (as shapes=...); "
                   "empty: square, star, circle, triangle (the board draws others as "
                   "a ring with their initial)"),
        Field("given", "Given boards", "lines", "", longest=GIVEN_LONGEST,
              help="a board file's JSON ({\"value\": [{\"id\": 0, \"color\": \"RED\", "
                   "\"shape\": \"STAR\", \"x\": 1, \"y\": 1}, ...]}), or a list of them"),
        Field("given_order", "Order of the given boards", "choice", GIVEN_ORDERS[0],
              GIVEN_ORDERS, help="in turn, or shuffled anew on each pass through them (as "
                                 "a trial list's initial_boards_order=random)"),
        Field("episodes", "Boards to play", "int", 3, low=1, high=50),
        Field("max_moves", "Move limit per board", "int", 100, low=0, high=10_000,
              help="the board is over after this many attempts (0: no limit)"),
    )

    def settings(self, form: Mapping[str, str]) -> dict[str, Any]:
        """The table's settings from its form; ``ConfigError`` naming the field (and a
        pasted rule set's line)."""
        values = read_fields(self.fields, form)
        text, rules = check_rules(values["rules"], values["rules_text"])
        values["rules_text"] = text
        values["rule_name"] = rules.name
        values["color_list"] = [name.upper() for name in
                                name_list(values["color_list"], "Colors to draw from")]
        values["shape_list"] = [name.upper() if name.upper() in LEGACY_SHAPES else name
                                for name in name_list(values["shape_list"],
                                                      "Shapes to draw from")]
        if values["boards"] == "given":
            if not values["given"]:
                raise ConfigError("Given boards: empty (paste a board, or choose random "
                                  "boards)")
            values["given"] = check_boards(values["given"])
            values["spec"] = []
        else:
            values["given"] = []
            values["spec"] = random_spec(values["pieces"], values["shapes"],
                                         values["colors"], values["color_list"],
                                         values["shape_list"])
        return values

    def seat_count(self, settings: Mapping[str, Any]) -> int:
        """One seat."""
        return 1

    def seat_names(self, settings: Mapping[str, Any]) -> list[str]:
        """The player."""
        return ["Player"]

    def play(self, game: TableGame) -> GameRecord:
        """Play the table's boards with ``GohrTableGame`` (the boards drawn from the seed)."""
        settings = dict(game.settings)
        settings["board_list"] = make_boards(settings, game.seed)
        series = GohrSeries(record_rules(settings), record_boards(settings),
                            int(settings["max_moves"]), settings["rules_text"])
        players = game.players()
        outside: dict[int, SeatMaker] = game.outside()
        links = game.links()
        run = GohrTableGame(players, series, settings, game.seed, game.work,
                            times=game.times, sandbox=game.sandbox, links=links)
        game.take_over = run.take_over
        game.release = run.drop
        game.record = run.current_record
        return run.play(outside, watch=game.watch, on_fault=game.on_fault)

    def view(self, engine: GohrSeries, seat: int | None, reveal: bool) -> dict[str, Any]:
        """The board, the buckets' pieces, the last answer, the counts and the score;
        never the rule nor which buckets would accept a piece (``reveal``: the rule set)."""
        episode = engine.episode
        attempts, accepted = engine.attempts(), engine.accepted()
        last = engine.last
        view: dict[str, Any] = {
            "board": engine.index + 1, "boards": len(engine.boards),
            "pieces": [_piece(piece.to_dict()) for piece in episode.board],
            "bins": [[_piece(piece) for piece, bucket in engine.dropped if bucket == b]
                     for b in range(4)],
            "moves": episode.attempts, "removed": episode.accepted,
            "start": len(engine.boards[engine.index]), "max_moves": engine.max_moves,
            "total_moves": attempts, "total_removed": accepted,
            "errors": attempts - accepted, "score": engine.score(),
            "last": None if last is None else {
                "piece": _piece(last.piece), "bucket": last.bucket,
                "result": RESULTS.get(last.code, str(int(last.code)))},
            "end": engine.end, "over": engine.to_play() is None,
            "results": [{"board": k + 1, "pieces": r.pieces, "moves": r.attempts,
                         "removed": r.accepted, "end": r.end}
                        for k, r in enumerate(engine.results)],
        }
        if reveal:
            view["rules"] = engine.rules_text
        if seat is not None and seat == engine.to_play():
            view["legal"] = {"pieces": [] if engine.board_over
                             else [piece.id for piece in episode.board],
                             "buckets": [0, 1, 2, 3], "new": True, "exit": True}
        return view

    def action(self, engine: GohrSeries, seat: int, move: Mapping[str, Any]) -> Any:
        """``{"piece": id, "bucket": b}``, ``{"new": true}`` or ``{"exit": true}``."""
        if move.get("new") is True:
            return NextBoard()
        if move.get("exit") is True:
            return Exit()
        piece, bucket = move.get("piece"), move.get("bucket")
        if "piece" in move or "bucket" in move:
            for name, value in (("piece", piece), ("bucket", bucket)):
                if type(value) is not int or not 0 <= value < 1_000_000:
                    raise ValueError(f"{str(value)[:40]} is not a {name} number")
            assert isinstance(piece, int) and isinstance(bucket, int)
            return Attempt(piece, bucket)
        raise ValueError("expected a piece and a bucket, new or exit")


def _piece(data: Mapping[str, Any]) -> dict[str, Any]:
    """A piece as the board draws it."""
    return {key: data[key] for key in ("id", "x", "y", "color", "shape") if key in data}


DRIVER = GohrDriver()
"""The driver the registry names."""
