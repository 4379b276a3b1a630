"""Standings of finished games: points, wins, draws, losses and faults per player.

Game-neutral arithmetic shared by a match's summary and a tournament's standings: a game
adds its scores to each seat's points (see ``counted_points``), a win to the best score, a
draw to everyone when all scores are equal, a loss otherwise, and its faults.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Standing", "count_game", "counted_points"]


def counted_points(scores: Sequence[float], offender: int | None,
                   points_game: bool) -> Sequence[float]:
    """What a finished game adds to each seat's points in the standings.

    Where a game's scores are its own points (``points_game``: cards, tiles) a game that a
    fault ended adds nothing: its scores are then the forfeit's results (1 win, 0 loss),
    another unit, which would be added to card points. Otherwise the scores as they are.
    """
    if points_game and offender is not None:
        return [0.0] * len(scores)
    return scores


@dataclass
class Standing:
    """One player's line in the standings."""

    name: str
    points: float = 0.0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    elo: float | None = None
    minus: float | None = None
    plus: float | None = None

    @property
    def score(self) -> float:
        """Points per game (0 without games)."""
        return self.points / self.games if self.games else 0.0


def count_game(table: dict[str, Standing], seats: Sequence[str], scores: Sequence[float],
               offender: int | None, outcome: str | None, points_game: bool,
               faults: Sequence[tuple[int, str]] = ()) -> None:
    """Add one finished game to ``table`` (lines made as needed): points (see
    ``counted_points``); a win for the best score (every seat but the offender after a
    fault), a draw when every score is equal, a loss otherwise; the offender's fault, and
    the ``(seat, outcome)`` faults a replacement survived."""
    best = max(scores)
    everyone_equal = all(s == best for s in scores)
    points = counted_points(scores, offender, points_game)
    for seat, (name, score) in enumerate(zip(seats, scores, strict=True)):
        line = table.setdefault(name, Standing(name))
        line.games += 1
        line.points += points[seat]
        if everyone_equal:
            line.draws += 1
        elif score == best:
            line.wins += 1
        else:
            line.losses += 1
        if offender == seat and outcome:
            line.faults[outcome] = line.faults.get(outcome, 0) + 1
    for seat, kind in faults:
        line = table.setdefault(seats[seat], Standing(seats[seat]))
        line.faults[kind] = line.faults.get(kind, 0) + 1


