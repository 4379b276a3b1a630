"""Gomoku at a web table: the settings a table takes, what a seat sees, a click as a move.

The board is public (Gomoku hides nothing); a seat to move is told what it may play: the
renju points forbidden to black, or swap2's choices (three stones, then swap or one or
two stones, then swap or one stone). The game is played by ``GomokuMatch`` as in a
match, its outside seats driven by the server.
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
from referee.games.gomoku.board import BLACK, MAX_SIZE, MIN_SIZE, Rule
from referee.games.gomoku.game import GomokuGame, Move, Phase, Stones, Swap
from referee.games.gomoku.match import BUILTIN_BRAINS, GomokuMatch, GomokuSettings, SeatMaker
from referee.games.gomoku.openings import parse_openings, place_opening
from referee.games.gomoku.renju import RenjuJudge, forbidden

__all__ = ["DRIVER", "GomokuDriver"]

_NEEDED = {Phase.SWAP2_OPEN: [3], Phase.SWAP2_ANSWER: [1, 2], Phase.SWAP2_FINAL: [1]}
"""How many stones each swap2 decision places."""


class GomokuDriver:
    """Gomoku's table driver (``core.table.TableDriver``)."""

    game = "gomoku"
    title = "Gomoku"
    builtins: Mapping[str, str] = {"threat": BUILTIN_BRAINS["threat"],
                                   "random": BUILTIN_BRAINS["random"]}
    board_module = "board.js"
    fields = (
        Field("rule", "Rule", "choice", "freestyle",
              tuple(rule.value for rule in Rule), help="what wins: five or more (freestyle), "
              "exactly five, renju (black's forbidden points), caro (a blocked five does not)"),
        Field("size", "Board size", "int", 15, low=MIN_SIZE, high=MAX_SIZE),
        Field("renju_judge", "Renju judge", "choice", "rif", ("rif", "gomocup"),
              help="whose reading of the recursive three rule decides"),
        Field("swap2", "Swap2 opening", "bool", False),
        Field("opening", "Opening stones", "text", "",
              help="x,y offsets from the centre, as a line of an openings file (0,0 1,1)"),
        Field("draw_at_empty", "Draw when this many points are empty", "int", 0, low=0,
              high=MAX_SIZE * MAX_SIZE - 1),
    )

    def settings(self, form: Mapping[str, str]) -> dict[str, Any]:
        """The table's settings from its form; ``ConfigError`` naming the field."""
        values = read_fields(self.fields, form)
        size = values["size"]
        if values["opening"]:
            if values["swap2"]:
                raise ConfigError("Opening stones: choose either opening stones or swap2")
            offsets = parse_openings(values["opening"], "Opening stones")[0]
            place_opening(offsets, size, size, "Opening stones")
            values["opening"] = [list(point) for point in offsets]
        else:
            values["opening"] = []
        if values["draw_at_empty"] >= size * size:
            raise ConfigError(f"Draw when this many points are empty: at most "
                              f"{size * size - 1} on a {size}x{size} board")
        return values

    def seat_count(self, settings: Mapping[str, Any]) -> int:
        """Two seats."""
        return 2

    def seat_names(self, settings: Mapping[str, Any]) -> list[str]:
        """Black and White (the swap2 opener and the answerer, as swap2 decides later)."""
        return ["First (swap2)", "Second (swap2)"] if settings.get("swap2") else \
            ["Black", "White"]

    def play(self, game: TableGame) -> GameRecord:
        """Play the table's game with ``GomokuMatch`` (seat 0 black or the swap2 opener)."""
        s = game.settings
        settings = GomokuSettings.from_options(
            size=s["size"], rule=Rule(s["rule"]), renju_judge=RenjuJudge(s["renju_judge"]),
            swap2=bool(s["swap2"]), draw_at_empty=s["draw_at_empty"], games=1, psq=False,
            seed=game.seed, sandbox=game.sandbox)
        players = game.players()
        outside: dict[int, SeatMaker] = game.outside()
        match = GomokuMatch(players, settings, game.work, write_files=False)
        match.links = game.links()
        game.take_over = match.take_over
        game.release = match.drop
        game.record = match.current_record
        opening = place_opening([(x, y) for x, y in s["opening"]], s["size"], s["size"])
        try:
            return match.play_game(0, first=0, opening=opening, outside=outside,
                                   times=game.times, watch=game.watch,
                                   on_fault=game.on_fault)
        finally:
            match.close()

    def view(self, engine: GomokuGame, seat: int | None, reveal: bool) -> dict[str, Any]:
        """The board (all of it: nothing is hidden) and, for the seat to move, its choices."""
        board = engine.board
        cells, index = board.cells, board.index
        stones = [[x, y, cells[index(x, y)]] for x, y in board.moves]
        to_play = engine.to_play()
        view: dict[str, Any] = {
            "width": board.width, "height": board.height, "rule": engine.rule.value,
            "stones": stones, "last": list(board.moves[-1]) if board.moves else None,
            "win": [list(point) for point in engine.win_line], "phase": engine.phase.value,
            "to_play": to_play, "colors": [engine.color_of(0), engine.color_of(1)],
        }
        if seat is not None and seat == to_play:
            view["legal"] = self._choices(engine)
        return view

    def _choices(self, engine: GomokuGame) -> dict[str, Any]:
        """What the seat to move may do: stones to place (how many), swap, and the renju
        points forbidden to black."""
        board = engine.board
        choices: dict[str, Any] = {"stones": _NEEDED.get(engine.phase, [1]),
                                   "swap": engine.phase in (Phase.SWAP2_ANSWER,
                                                            Phase.SWAP2_FINAL)}
        if engine.rule is Rule.RENJU and board.to_move == BLACK:
            choices["forbidden"] = [
                [x, y] for y in range(board.height) for x in range(board.width)
                if board.is_empty(x, y) and forbidden(board, x, y, engine.renju_judge)]
        return choices

    def action(self, engine: GomokuGame, seat: int, move: Mapping[str, Any]) -> Any:
        """``{"point": [x, y]}``, ``{"stones": [[x, y], ...]}`` or ``{"swap": true}``."""
        if move.get("swap") is True:
            return Swap()
        if "point" in move:
            x, y = _point(move["point"])
            return Move(x, y)
        stones = move.get("stones")
        if isinstance(stones, list) and 1 <= len(stones) <= 3:
            points = tuple(_point(point) for point in stones)
            return Move(*points[0]) if len(points) == 1 else Stones(points)
        raise ValueError("expected a point, stones or swap")


def _point(value: Any) -> tuple[int, int]:
    """``[x, y]`` as a point; ``ValueError`` if it is not two whole numbers."""
    if (isinstance(value, list) and len(value) == 2
            and all(type(n) is int and 0 <= n < 1000 for n in value)):
        return value[0], value[1]
    raise ValueError(f"{str(value)[:40]} is not a point x,y")


DRIVER = GomokuDriver()
"""The driver the registry names."""
