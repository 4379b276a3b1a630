"""planowanie-random: declares and plays uniformly at random among the legal choices.

Run it as ``python -m referee.games.planowanie.bots.random_player`` (or the
``planowanie-random`` script). Seed it with ``--seed N`` or ``REFEREE_BRAIN_SEED`` for a
repeatable game; by default it is seeded from the system.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from referee.games.planowanie.bots.player import player_main
from referee.games.planowanie.rules import SeatView

NAME = "planowanie-random"


class RandomStrategy:
    """Uniformly random declarations and legal cards."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def declare(self, view: SeatView) -> int:
        """Any number from 0 to the cards in hand."""
        return self.rng.randint(0, view.table.cards)

    def move(self, view: SeatView) -> int:
        """Any legal card."""
        return self.rng.choice(view.legal_cards())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the random player on stdin/stdout."""
    return player_main(argv, NAME, "Random Planowanie player.", RandomStrategy)


if __name__ == "__main__":
    raise SystemExit(main())
