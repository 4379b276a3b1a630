"""Gomoku as a PettingZoo AEC environment, over the engine that referees matches
(``referee.envs.make("gomoku", ...)``; the layout is in docs/envs.md).

Observation: ``(height, width, 3)``; plane 0 the seat's own stones, plane 1 the
opponent's, plane 2 all ones when the seat plays black (renju treats the colours apart).
Action: ``y * width + x``. The mask is the empty points, less black's forbidden points in
renju (masked, as the referee would forfeit them). Rewards: 1 for the win, 0 for the
loss, 0.5 each for a draw (the scores of a Gomocup match).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from referee.core.aec import EngineEnv
from referee.games.gomoku.board import BLACK, PAD, Rule
from referee.games.gomoku.game import GomokuGame, Move
from referee.games.gomoku.openings import Offsets, place_opening, read_openings
from referee.games.gomoku.renju import RenjuJudge, forbidden

__all__ = ["GomokuEnvGame", "make_env"]


@dataclass
class GomokuEnvGame:
    """Gomoku for ``EngineEnv``: board, rule and openings (one drawn per game)."""

    width: int = 15
    height: int = 15
    rule: Rule = Rule.FREESTYLE
    renju_judge: RenjuJudge = RenjuJudge.RIF
    openings: Sequence[Offsets] = ()
    draw_at_empty: int = 0
    name: str = "gomoku"
    seats: int = 2
    actions: int = field(init=False)
    observation_shape: tuple[int, ...] = field(init=False)
    observation_high: float = 1.0

    _view: tuple[bytearray, np.ndarray[Any, Any]] | None = field(default=None, init=False,
                                                                repr=False)

    def __post_init__(self) -> None:
        self.actions = self.width * self.height
        self.observation_shape = (self.height, self.width, 3)
        GomokuGame(self.width, self.height, self.rule)  # checks the size
        for offsets in self.openings:  # each fits the board
            place_opening(offsets, self.width, self.height)

    def new_engine(self, seed: int) -> GomokuGame:
        """A new game; seat 0 plays black, after an opening drawn from ``seed``."""
        opening: list[tuple[int, int]] = []
        if self.openings:
            offsets = random.Random(seed).choice(list(self.openings))
            opening = place_opening(offsets, self.width, self.height)
        return GomokuGame(self.width, self.height, self.rule, opening=opening,
                          renju_judge=self.renju_judge, draw_at_empty=self.draw_at_empty)

    def copy_engine(self, engine: GomokuGame) -> GomokuGame:
        """An independent copy (the environment's ``state`` and ``clone``)."""
        return engine.copy()

    def _cells(self, engine: GomokuGame) -> np.ndarray[Any, Any]:
        """The board's points as a ``(height, width)`` view of the engine's own cells
        (made once per game: the engine changes its cells in place)."""
        board = engine.board
        if self._view is not None and self._view[0] is board.cells:
            return self._view[1]
        start = PAD * board.stride + PAD
        flat = np.frombuffer(board.cells, dtype=np.uint8,
                             count=self.height * board.stride, offset=start)
        view = flat.reshape(self.height, board.stride)[:, :self.width]
        self._view = (board.cells, view)
        return view

    def observe(self, engine: GomokuGame, seat: int) -> np.ndarray[Any, Any]:
        """Own stones, the opponent's, and whether the seat plays black."""
        table = _PLANES_BLACK if engine.color_of(seat) == BLACK else _PLANES_WHITE
        planes: np.ndarray[Any, Any] = np.take(table, self._cells(engine), axis=0)
        return planes

    def observe_bytes(self, engine: GomokuGame, seat: int) -> np.ndarray[Any, Any]:
        """``observe`` as uint8 (what datasets store), made as cheaply."""
        black = engine.color_of(seat) == BLACK
        table = _BYTES_BLACK if black else _BYTES_WHITE
        planes: np.ndarray[Any, Any] = np.take(table, self._cells(engine), axis=0)
        return planes

    def legal_mask(self, engine: GomokuGame, seat: int) -> np.ndarray[Any, Any]:
        """The empty points (less black's forbidden points in renju); none off turn."""
        if engine.to_play() != seat:
            return np.zeros(self.width * self.height, dtype=np.int8)
        mask: np.ndarray[Any, Any] = (self._cells(engine) == 0).astype(np.int8).reshape(-1)
        board = engine.board
        if self.rule is Rule.RENJU and board.to_move == BLACK:
            for index in np.flatnonzero(mask):
                y, x = divmod(int(index), self.width)
                if forbidden(board, x, y, self.renju_judge) is not None:
                    mask[index] = 0
        return mask

    def action(self, engine: GomokuGame, seat: int, index: int) -> Move:
        """The move at point ``index`` (``y * width + x``)."""
        y, x = divmod(index, self.width)
        return Move(x, y)

    def index(self, engine: GomokuGame, seat: int, action: Any) -> int:
        """The action number of a move."""
        if not isinstance(action, Move):
            raise ValueError(f"not a single move: {action!r}")
        return action.y * self.width + action.x

    def render(self, engine: GomokuGame) -> str:
        """The board as the referee prints it."""
        return engine.board.render()


# The three planes of each point, by its cell (empty, black, white), for each colour
_PLANES_BLACK = np.array([[0, 0, 1], [1, 0, 1], [0, 1, 1]], dtype=np.float32)
_PLANES_WHITE = np.array([[0, 0, 0], [0, 1, 0], [1, 0, 0]], dtype=np.float32)
_BYTES_BLACK = _PLANES_BLACK.astype(np.uint8)
_BYTES_WHITE = _PLANES_WHITE.astype(np.uint8)


def make_env(size: int = 15, width: int | None = None, height: int | None = None,
             rule: str = "freestyle", renju_judge: str = "rif",
             openings: str | Path | Sequence[Offsets] | None = None, draw_at_empty: int = 0,
             render_mode: str | None = None,
             max_moves: int | None = None) -> EngineEnv[GomokuGame]:
    """The Gomoku AEC environment: ``size`` (or ``width`` x ``height``), ``rule``
    (freestyle, exact5, renju, caro, caro5), ``renju_judge`` (rif, gomocup), ``openings``
    (a Gomocup openings file or a list of centre offsets; one is drawn per game from the
    seed), ``draw_at_empty``, ``render_mode`` (``"ansi"`` or ``"human"``) and
    ``max_moves``."""
    if isinstance(openings, str | Path):
        openings = read_openings(openings)
    width = width or size
    game = GomokuEnvGame(width, height or width, Rule.parse(rule), RenjuJudge.parse(renju_judge),
                         list(openings or ()), draw_at_empty)
    return EngineEnv(game, render_mode=render_mode, max_moves=max_moves)
