"""A game's decisions as training data sees them: what the seat observed (as the game's
environment shows it), the legal actions and the action taken, replayed from a record.

Each game that makes datasets (``referee dataset GAME``) gives a ``GameData`` in its
folder, found through the registry's ``data`` entry; ``training.dataset`` writes them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from referee.core.record import GameRecord

__all__ = ["Decision", "GameData"]


@dataclass(frozen=True)
class Decision:
    """One decision of a replayed game."""

    seat: int
    observation: np.ndarray[Any, Any]
    action_mask: np.ndarray[Any, Any]
    action: int


class GameData(Protocol):
    """What a game gives the dataset writer (its ``games/<game>/env.py``)."""

    name: str

    def layout(self, record: GameRecord) -> tuple[tuple[int, ...], int, float, str]:
        """The observation shape, the number of actions, the largest observation value and
        the variant (rules in words) of the environment that replays ``record``."""

    def decisions(self, record: GameRecord) -> Iterator[Decision]:
        """The record's decisions, replayed through the engine (``ValueError`` if it
        cannot be)."""

    def foreign_records(self, path: Path) -> Iterator[GameRecord] | None:
        """The games of a file in a format of the game's own (``None``: not one)."""
