"""A trained policy as a Gomocup brain: ``referee bot gomoku --policy module:callable``.

Each move, the brain's board is turned into the observation the Gomoku environment gives
(``env.py``: own stones, the opponent's, whether it plays black; the mask of legal points)
and the policy's action number ``y * width + x`` is played. The board size and rule come
from the manager (``START``/``RECTSTART``, ``INFO rule``), as for any brain.

Swap2 has no place in the environment: asked to open, the policy places the three stones
one at a time (black, white, black); asked to choose, it plays on as white (the fourth
stone, or the sixth), so it never swaps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from referee.core.policy import Policy, ask
from referee.games.gomoku.board import BLACK, WHITE, Board
from referee.games.gomoku.bots.brain import Point, Strategy, Swap2Choice
from referee.games.gomoku.env import GomokuEnvGame
from referee.games.gomoku.renju import RenjuJudge

__all__ = ["PolicyStrategy"]


@dataclass
class _Position:
    """What ``GomokuEnvGame`` reads of an engine: the board and a seat's colour."""

    board: Board
    color: int

    def color_of(self, seat: int) -> int:
        """The colour of the one seat it describes."""
        return self.color

    def to_play(self) -> int:
        """The one seat it describes (asked to move)."""
        return 0


class PolicyStrategy(Strategy):
    """Moves chosen by ``policy`` from the environment's observation."""

    forgiving = False

    def __init__(self, policy: Policy, renju_judge: RenjuJudge = RenjuJudge.RIF) -> None:
        self.policy = policy
        self.renju_judge = renju_judge
        self._game: GomokuEnvGame | None = None

    def _env_game(self, board: Board) -> GomokuEnvGame:
        game = self._game
        if (game is None or (game.width, game.height) != (board.width, board.height)
                or game.rule is not board.rule):
            game = GomokuEnvGame(board.width, board.height, board.rule, self.renju_judge)
            self._game = game
        return game

    def choose(self, board: Board, color: int) -> Point:
        """The policy's point for ``color`` on ``board``."""
        game = self._env_game(board)
        position = cast(Any, _Position(board, color))
        observation = {"observation": game.observe(position, 0),
                       "action_mask": game.legal_mask(position, 0)}
        y, x = divmod(ask(self.policy, observation, game.actions), board.width)
        return x, y

    def _place(self, board: Board, colors: Sequence[int]) -> list[Point]:
        trial = board.copy()
        points = []
        for color in colors:
            x, y = self.choose(trial, color)
            if not trial.is_empty(x, y):  # the referee judges it (an illegal opening)
                points.append((x, y))
                continue
            trial.place(x, y)
            points.append((x, y))
        return points

    def swap2_place3(self, board: Board) -> tuple[Point, Point, Point]:
        """Three stones, black, white, black, each chosen by the policy."""
        first, second, third = self._place(board, (BLACK, WHITE, BLACK))
        return first, second, third

    def swap2_choose(self, board: Board, stones: Sequence[Point]) -> Swap2Choice:
        """Stay white: the fourth stone."""
        return tuple(self._place(board, (WHITE,)))

    def swap2_final(self, board: Board, stones: Sequence[Point]) -> Swap2Choice:
        """Take white: the sixth stone."""
        return tuple(self._place(board, (WHITE,)))
