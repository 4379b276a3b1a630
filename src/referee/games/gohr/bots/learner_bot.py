"""gohr-learner: never repeats a refused attempt until the board changes.

Since the last accepted move, it remembers the pieces found immovable and the buckets
each piece was denied, and tries a piece and a bucket not yet refused (at random among
them); an accepted move changes the board, so it starts remembering afresh. Run it as
``python -m referee.games.gohr.bots.learner_bot`` under a captive server in standard mode.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from referee.games.gohr.bots.player import player_main


class LearnerStrategy:
    """Random attempts, none refused since the board last changed."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self.immovable: set[int] = set()
        self.denied: dict[int, set[int]] = {}

    def new_board(self, pieces: list[dict[str, Any]]) -> None:
        """Forget what was refused."""
        self.immovable.clear()
        self.denied.clear()

    def choose(self, pieces: list[dict[str, Any]]) -> tuple[int, int]:
        """A piece not known immovable and a bucket it was not denied."""
        options = [(int(p["id"]), bucket) for p in pieces if int(p["id"]) not in self.immovable
                   for bucket in range(4) if bucket not in self.denied.get(int(p["id"]), ())]
        if not options:  # everything refused: the board should have changed
            return int(self.rng.choice(pieces)["id"]), self.rng.randrange(4)
        return self.rng.choice(options)

    def learn(self, piece: int, bucket: int, code: int) -> None:
        """Remember a refusal; an accepted move changes the board."""
        if code == 0:
            self.new_board([])
        elif code == 7:
            self.immovable.add(piece)
        elif code == 4:
            self.denied.setdefault(piece, set()).add(bucket)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the learner on standard input and output."""
    return player_main(argv, "gohr-learner", "A GOHR player that never repeats a refusal.",
                       LearnerStrategy)


if __name__ == "__main__":
    raise SystemExit(main())
