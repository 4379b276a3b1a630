"""Results read from a store: standings, crosstable, pairwise results for ratings, PGN,
the terminal's tables (their captions say what the columns count: ``core.standings``).

A game with two seats gives one pairwise result (seat 0 moves first: in Gomoku it plays
black, the side of the advantage in BayesElo's model). A game with more seats gives a
result for every pair of seats, by their scores; where a seat's fault ended the game, only
that seat's results count (its losses to each other seat), as the ITPW format rates; where
a seat's program faulted and a replacement played on for it (ICGA Mahjong's dummy AI,
Riichi's safe default), it loses to every other seat, whatever its score. The
standings count whole games (``core.standings``): with more seats too, a game is won,
drawn or lost once by each player.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table

from referee.core.standings import Standing, Units, count_game, pair_result
from referee.tournament.ratings import (
    BayesEloParams,
    Ratings,
    Result,
    ResultTable,
    bayeselo_round,
    rate,
)
from referee.tournament.store import GameRow


def pairwise(rows: Iterable[GameRow]) -> Iterator[Result]:
    """Pairwise results of finished games, in seat order (first = the earlier seat), as
    ``core.standings.pair_result`` gives them (a replaced seat's fault loses)."""
    for row in rows:
        scores = row.scores
        if scores is None:
            continue
        faulty = {seat for seat, _ in row.faults}
        for a, b in itertools.combinations(range(len(row.seats)), 2):
            result = pair_result(scores, row.offender, a, b, faulty)
            if result is not None:
                yield row.seats[a], row.seats[b], result


def standings(rows: Iterable[GameRow], players: Sequence[str],
              points_game: bool = False) -> list[Standing]:
    """Points, wins, draws, losses and faults per player, best first (``points_game``:
    the game's scores are its own points, see ``counted_points``)."""
    table = {name: Standing(name) for name in players}
    for row in rows:
        if row.scores is not None:
            count_game(table, row.seats, row.scores, row.offender, row.outcome, points_game,
                       row.faults)
    order = {name: i for i, name in enumerate(players)}
    return sorted(table.values(), key=lambda s: (-s.points, order.get(s.name, len(order))))


@dataclass
class PairRecord:
    """One player's games against one opponent, counted as the ratings count them."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def points(self) -> float:
        """Wins plus half the draws."""
        return self.wins + 0.5 * self.draws

    def add(self, score: float) -> None:
        """Count one game in which this player scored ``score`` (1, 0.5 or 0)."""
        self.games += 1
        if score > 0.5:
            self.wins += 1
        elif score < 0.5:
            self.losses += 1
        else:
            self.draws += 1


def crosstable(rows: Iterable[GameRow],
               players: Sequence[str]) -> dict[str, dict[str, PairRecord]]:
    """Each player's games, wins, draws, losses and points against each opponent."""
    cross = {a: {b: PairRecord() for b in players if b != a} for a in players}
    for first, second, score in pairwise(rows):
        cross.setdefault(first, {}).setdefault(second, PairRecord()).add(score)
        cross.setdefault(second, {}).setdefault(first, PairRecord()).add(1.0 - score)
    return cross


def final_table(lines: Sequence[Standing], title: str = "Final standings") -> Table:
    """Points, games, wins, draws, losses and faults per player, best first (what they
    count: ``core.standings.standings_legend``)."""
    table = Table(title=title)
    for column in ("#", "player", "points", "games", "won", "drawn", "lost", "faults"):
        table.add_column(column, justify="left" if column in ("player", "faults") else "right",
                         overflow="fold")
    for rank, line in enumerate(lines, start=1):
        faults = ", ".join(f"{kind} {n}" for kind, n in sorted(line.faults.items())) or "-"
        table.add_row(str(rank), line.name, f"{line.points:g}", str(line.games),
                      str(line.wins), str(line.draws), str(line.losses), faults)
    return table


def standings_table(points: dict[str, float], title: str = "Standings") -> Table:
    """A small table of points, best first (shown while a tournament runs)."""
    table = Table(title=title)
    table.add_column("#", justify="right")
    table.add_column("player", overflow="fold")
    table.add_column("points", justify="right")
    ranked = sorted(points.items(), key=lambda item: -item[1])
    for rank, (name, value) in enumerate(ranked, start=1):
        table.add_row(str(rank), name, f"{value:g}")
    return table


def write_results_pgn(rows: Sequence[GameRow], path: Path, event: str) -> Path:
    """Every pairwise result of finished games as PGN (for BayesElo, Ordo and the like)."""
    from referee.tournament.pgn import write_pgn_results

    date = dt.date.today().strftime("%Y.%m.%d")
    rounds = [row.round for row in rows for _ in pairwise([row])]
    write_pgn_results(path, pairwise(rows), event=event, date=date, rounds=rounds)
    return path


def rate_results(results: Iterable[Result], params: BayesEloParams) -> Ratings | None:
    """BayesElo ratings of pairwise results (None until two players have met)."""
    table = ResultTable.from_results(results)
    if len(table.players) < 2:
        return None
    return rate(table, params)


def ratings_table(ratings: Ratings, title: str = "Ratings (BayesElo)",
                  units: Units | None = None) -> Table:
    """The rating list as a table: Elo with its interval, games, score, draws, LOS. With
    ``units`` of more than two seats, the games column counts pairwise results and is
    headed so (``results``: ``core.standings.ratings_legend``)."""
    table = Table(title=title)
    games = "results" if units is not None and units.pairwise else "games"
    for column in ("#", "player", "Elo", "+", "-", games, "score", "oppo.", "draws",
                   "LOS next"):
        table.add_column(column, justify="left" if column == "player" else "right",
                         overflow="fold")
    count = len(ratings.players)
    for k, p in enumerate(ratings.players):
        los = ratings.los_text(k, k + 1) if k + 1 < count else ""
        r = bayeselo_round
        table.add_row(str(p.rank), p.name, str(r(p.elo)), str(r(p.plus)), str(r(p.minus)),
                      str(p.games), f"{p.score_percent:.1f}%", str(r(p.opponents_elo)),
                      f"{r(p.draws_percent)}%", los)
    return table
