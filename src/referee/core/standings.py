"""Standings of finished games: points, wins, draws, losses and faults per player.

Game-neutral arithmetic shared by a match's summary and a tournament's standings: a game
adds its scores to each seat's points (see ``counted_points``), a whole game's result to
each seat (``game_result``: one rule for two players and for more) and its faults. What
each column counts is said in one wording (``meanings``) by the terminal's tables and the
results site's legends.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

__all__ = ["RESULT_RULE", "Standing", "Units", "count_game", "counted_points", "game_result",
           "meanings", "pair_result", "ratings_legend", "standings_legend"]


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


def game_result(scores: Sequence[float], offender: int | None, seat: int,
                faulty: Collection[int] = ()) -> str:
    """``win``, ``draw`` or ``loss``: what a finished game was for ``seat``, whatever the
    number of seats. A game a fault ended is lost by the offender and won by every other
    seat. A seat in ``faulty`` (its program faulted and a replacement played on for it:
    ICGA Mahjong's dummy AI, Riichi's safe default) loses, whatever its score, and the
    others are compared without it. Otherwise the best score alone wins, seats sharing the
    best score draw (two players with equal scores, or two of four sharing first place),
    the others lose."""
    if offender is not None:
        return "loss" if seat == offender else "win"
    if seat in faulty:
        return "loss"
    best = max(score for at, score in enumerate(scores) if at not in faulty)
    if scores[seat] != best:
        return "loss"
    return "draw" if sum(score == best for at, score in enumerate(scores)
                         if at not in faulty) > 1 else "win"


def pair_result(scores: Sequence[float], offender: int | None, first: int, second: int,
                faulty: Collection[int] = ()) -> float | None:
    """The pairwise result of seats ``first`` and ``second`` for ``first`` (1 a win, 0.5
    a draw, 0 a loss), as the ratings count it; ``None``: the pair gives none. A game a
    fault ended gives only the offender's losses (the ITPW format's rule); a seat in
    ``faulty`` loses to every seat that did not fault, and two of them give no result;
    otherwise the two scores decide."""
    if offender is not None:
        if offender not in (first, second):
            return None
        return 0.0 if offender == first else 1.0
    first_faulted, second_faulted = first in faulty, second in faulty
    if first_faulted or second_faulted:
        return None if first_faulted and second_faulted else 0.0 if first_faulted else 1.0
    a, b = scores[first], scores[second]
    return 1.0 if a > b else 0.0 if a < b else 0.5


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
    ``counted_points``); a win, draw or loss for each seat (``game_result``); the
    offender's fault, and the ``(seat, outcome)`` faults a replacement survived."""
    points = counted_points(scores, offender, points_game)
    faulty = {seat for seat, _ in faults}
    for seat, (name, _) in enumerate(zip(seats, scores, strict=True)):
        line = table.setdefault(name, Standing(name))
        line.games += 1
        line.points += points[seat]
        result = game_result(scores, offender, seat, faulty)
        if result == "win":
            line.wins += 1
        elif result == "draw":
            line.draws += 1
        else:
            line.losses += 1
        if offender == seat and outcome:
            line.faults[outcome] = line.faults.get(outcome, 0) + 1
    for seat, kind in faults:
        line = table.setdefault(seats[seat], Standing(seats[seat]))
        line.faults[kind] = line.faults.get(kind, 0) + 1


RESULT_RULE = ("the best score alone wins, a shared best score draws, a lower one loses; a "
               "game a fault ended is lost by the player at fault, won by the others; a "
               "player whose program faulted and was replaced for the rest of the game "
               "loses it")
"""How a whole game is won, drawn or lost (``game_result``), in words."""


@dataclass(frozen=True)
class Units:
    """How results are counted, for the legends: players in a game (the most any game
    had), what its points are (``GameAdapter.points_unit``) and whether they are the
    game's own (``GameAdapter.scores_are_points``)."""

    seats: int = 2
    points_unit: str = "1 a win, \u00bd a draw"
    points_game: bool = False

    @property
    def pairwise(self) -> bool:
        """Whether a game gives a player more than one pairwise result."""
        return self.seats > 2


def meanings(units: Units) -> dict[str, str]:
    """What each column of the standings counts, by its name on the results site
    (``Games``, ``Points``, ``W / D / L``, ``Results`` with more than two seats, ``Score``):
    one wording for the site's legends and the terminal's captions."""
    points = f"{units.points_unit}, added up"
    if units.points_game:
        points += " (a game a fault ended adds none)"
    out = {
        "Games": "games played",
        "Points": points,
        "W / D / L": f"games won, drawn and lost: {RESULT_RULE}",
    }
    if units.pairwise:
        out["Results"] = (f"pairwise results, {units.seats - 1} a game: one against each "
                          "other player of the game, by the two scores (a game a fault "
                          "ended gives only the faulty player's losses; a player replaced "
                          "after a fault loses to each of the others)")
        out["Score"] = ("the points of those results (1 a win, \u00bd a draw) in percent "
                        "of them: what the ratings count")
    else:
        out["Score"] = ("the points of the results (1 a win, \u00bd a draw) in percent of "
                        "the games: what the ratings count")
    return out


def standings_legend(units: Units) -> str:
    """What a terminal's table of points, games and won / drawn / lost counts, in one line
    (printed under it)."""
    return (f"points: {meanings(units)['Points']}; games: whole games, won / drawn / lost: "
            f"{RESULT_RULE}")


def ratings_legend(units: Units) -> str:
    """What a terminal's rating list counts where a game gives several pairwise results
    (its ``results`` column), in one line (printed under it); ``""`` with two seats."""
    if not units.pairwise:
        return ""
    said = meanings(units)
    return f"results: {said['Results']}; score: {said['Score']}"
