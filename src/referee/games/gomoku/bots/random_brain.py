"""pbrain-random: plays a uniformly random legal move (``python -m ...bots.random_brain``).

Seed it with ``--seed N`` or the ``REFEREE_BRAIN_SEED`` environment variable for a
repeatable game; by default it is seeded from the system. Under renju it never plays a
forbidden point as black. In swap2 it picks an option at random, with its stones on free
points near the centre.
"""

from __future__ import annotations

import argparse
import logging
import random
from collections.abc import Sequence

from referee.core.botseed import SEED_ENV, seed_from
from referee.games.gomoku.board import Board
from referee.games.gomoku.bots.brain import (
    SWAP,
    Point,
    Strategy,
    Swap2Choice,
    brain_main,
    format_about,
    is_legal,
)

log = logging.getLogger(__name__)

NAME = "pbrain-random"
VERSION = "1.0"
NEAR_CENTER = 2
"""Swap2 stones go within this many points of the centre (further out if it is full)."""


class RandomStrategy(Strategy):
    """Uniformly random legal moves and swap2 choices."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, board: Board, color: int) -> Point:
        """Any empty point, not renju-forbidden for black."""
        points = list(board.empty_points())
        if not points:
            raise ValueError("the board is full")
        self.rng.shuffle(points)
        return next((p for p in points if is_legal(board, *p, color)), points[0])

    def _near_center(self, board: Board, count: int) -> list[Point]:
        """``count`` distinct random empty points, as near the centre as the board allows."""
        cx, cy = board.center
        radius = NEAR_CENTER
        while True:
            points = [
                p
                for p in board.empty_points()
                if abs(p[0] - cx) <= radius and abs(p[1] - cy) <= radius
            ]
            if len(points) >= count or radius > max(board.width, board.height):
                return self.rng.sample(points, min(count, len(points)))
            radius += 1

    def _stones(self, board: Board, count: int) -> tuple[Point, ...]:
        """``count`` random stones near the centre, each legal for its colour in turn."""
        trial = board.copy()
        chosen: list[Point] = []
        for _ in range(count):
            options = self._near_center(trial, 25)
            color = trial.to_move
            point = next((p for p in options if is_legal(trial, *p, color)), options[0])
            trial.place(*point)
            chosen.append(point)
        return tuple(chosen)

    def swap2_place3(self, board: Board) -> tuple[Point, Point, Point]:
        """Three random stones near the centre."""
        first, second, third = self._stones(board, 3)
        return first, second, third

    def swap2_choose(self, board: Board, stones: Sequence[Point]) -> Swap2Choice:
        """SWAP, one stone or two stones, at random."""
        option = self.rng.randrange(3)
        return SWAP if option == 0 else self._stones(board, option)

    def swap2_final(self, board: Board, stones: Sequence[Point]) -> Swap2Choice:
        """SWAP or one stone, at random."""
        return SWAP if self.rng.randrange(2) == 0 else self._stones(board, 1)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the random brain on stdin/stdout."""
    parser = argparse.ArgumentParser(prog=NAME, description="Random-move Gomocup brain.")
    parser.add_argument("--seed", type=int, default=None, help=f"random seed (or ${SEED_ENV})")
    args = parser.parse_args(argv)
    strategy = RandomStrategy(seed_from(args.seed))
    return brain_main(strategy, format_about(NAME, VERSION))


if __name__ == "__main__":
    raise SystemExit(main())
