"""gohr-random: tries a random piece in a random bucket, learning nothing.

Run it as ``python -m referee.games.gohr.bots.random_bot`` under a captive server that
speaks standard mode (a web table's seat, or ``referee play gohr ... output=standard``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from referee.games.gohr.bots.player import player_main


class RandomStrategy:
    """Any piece, any bucket."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def new_board(self, pieces: list[dict[str, Any]]) -> None:
        """Nothing to remember."""

    def choose(self, pieces: list[dict[str, Any]]) -> tuple[int, int]:
        """A random piece and bucket."""
        return int(self.rng.choice(pieces)["id"]), self.rng.randrange(4)

    def learn(self, piece: int, bucket: int, code: int) -> None:
        """Nothing to learn."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the random player on standard input and output."""
    return player_main(argv, "gohr-random", "Random GOHR player.", RandomStrategy)


if __name__ == "__main__":
    raise SystemExit(main())
