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
    """One decision of a replayed game: ``seat`` is the record's seat (the player slot),
    ``agent`` the environment's seat that decided, when the two differ (Gomoku's
    environment seats black as ``player_0`` whatever slot the record gives black)."""

    seat: int
    observation: np.ndarray[Any, Any]
    action_mask: np.ndarray[Any, Any]
    action: int
    agent: int | None = None
    """The environment's seat (``player_N``), if it is not ``seat``."""

    @property
    def env_seat(self) -> int:
        """The environment's seat that decided (``agent``, else ``seat``)."""
        return self.seat if self.agent is None else self.agent


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
