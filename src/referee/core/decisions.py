"""A game's decisions as training data sees them: what the seat observed (as the game's
environment shows it), the legal actions and the action taken, replayed from a record;
and the position of a decision (``Position``: the environment's engine at that point), by
which ``referee.envs.at_decision`` gives a dataset row's environment back.

Each game that makes datasets (``referee dataset GAME``) gives a ``GameData`` in its
folder, found through the registry's ``data`` entry; ``training.dataset`` writes them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from referee.core.record import GameRecord

__all__ = ["Decision", "GameData", "Position", "position_at", "replayed_position"]


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


@dataclass(frozen=True)
class Position:
    """Where a decision was taken: the environment's game (its ``EnvGame``) and engine,
    numbered as the environment numbers the seats (``decision.env_seat`` is to play), an
    engine of its own; ``moves``, the actions the environment had taken before it."""

    game: Any
    engine: Any
    moves: int
    decision: Decision


def position_at(steps: Iterable[tuple[Decision, Any, int]], game: Any, ply: int,
                copy_engine: Callable[[Any], Any]) -> Position:
    """The position of decision ``ply`` (from 1) among ``steps``: each decision with the
    engine it was taken on (live: copied here) and the actions played before it.
    ``ValueError`` if there are fewer decisions."""
    count = 0
    for count, (decision, engine, moves) in enumerate(steps, start=1):
        if count == ply:
            return Position(game, copy_engine(engine), moves, decision)
    raise ValueError(f"no decision {ply}: the game has {count}")


def replayed_position(game: Any, engine: Any, decisions: Iterable[Decision],
                      ply: int) -> Position:
    """The position of decision ``ply`` (from 1) of a game whose every action up to its
    last decision is a decision: ``engine`` (the environment's, as the game began)
    played on with the decisions' actions until then."""
    count = 0
    for count, decision in enumerate(decisions, start=1):
        seat = decision.env_seat
        if engine.to_play() != seat:
            raise ValueError(f"decision {count} is seat {seat}'s, but the environment asks "
                             f"seat {engine.to_play()}")
        if count == ply:
            return Position(game, engine, count - 1, decision)
        engine.apply(seat, game.action(engine, seat, decision.action))
    raise ValueError(f"no decision {ply}: the game has {count}")


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

    def position(self, record: GameRecord, ply: int) -> Position:
        """Where the record's decision ``ply`` (from 1, as ``decisions`` numbers them) was
        taken (``ValueError`` if it has no such decision, or cannot be replayed)."""
