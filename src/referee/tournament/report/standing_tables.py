"""The results site's tables of standings, each with a legend saying what its columns count:
the index's standings, a player's facts and its results against each opponent, and the
crosstable (its cells and its column heads).

Every game gets the same columns, in the same units everywhere (the terminal's tables say
them too: ``core.standings.meanings``): ``Games``, ``Points`` (the game's own, or 1 a win and ½ a
draw) and ``W / D / L`` count whole games; ``Score`` is the pairwise results' share, as
the ratings count them. A tournament whose games seat more than two players gives each
player several pairwise results a game, so its tables also show how many (``Results``),
and the results against an opponent and the crosstable count those.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.core.standings import Standing, meanings
from referee.tournament.ratings import PlayerRating
from referee.tournament.report.readable import percent, points
from referee.tournament.report.summary import Summary

__all__ = ["Column", "column_heads", "crosstable_table", "opponents_table", "player_facts",
           "standings_table"]

HEAD_ROOM = 120
"""Characters the crosstable's column heads may take in all before they are shortened."""
SHORTEST_HEAD = 6
"""The fewest characters a shortened column head keeps (with its ellipsis)."""


@dataclass(frozen=True)
class Column:
    """A column of a table: its label, what it counts (the label's hover text and its
    line in the legend, ``""`` for none) and whether it holds numbers (right-aligned)."""

    label: str
    means: str = ""
    numeric: bool = True


def rating_text(value: float) -> str:
    """A rating to the unit, ``0`` rather than ``-0``."""
    text = f"{value:.0f}"
    return "0" if text == "-0" else text


def _legend(columns: Sequence[Column]) -> list[tuple[str, str]]:
    """The legend of a table: what its columns count, once for the columns that count
    alike (``W / D / L``)."""
    labels: dict[str, list[str]] = {}
    for column in columns:
        if column.means:
            labels.setdefault(column.means, []).append(column.label)
    return [(" / ".join(names), means) for means, names in labels.items()]


def _wdl(summary: Summary) -> list[Column]:
    means = meanings(summary.units)["W / D / L"]
    return [Column("W", means), Column("D", means), Column("L", means)]


def standings_table(summary: Summary) -> dict[str, Any]:
    """The index's standings: players best first by BayesElo, with the intervals, whole
    games (games, points, won / drawn / lost), pairwise results (how many, with more
    than two seats; the score), the opponents' average rating and the LOS to the next;
    ``columns``, ``rows`` (name and cells) and ``legend``."""
    s = summary
    said = meanings(s.units)
    level = f"{100 * s.info.params.confidence:g}%"
    elo = [Column("Elo", "BayesElo rating"),
           Column("+", f"the upper bound of its {level} interval, above the rating"),
           Column("\u2212", f"the lower bound of its {level} interval, below the rating")]
    whole = [Column("Games", said["Games"]), Column("Points", said["Points"])]
    score = [Column("Score", said["Score"])]
    if s.units.pairwise:
        columns = [*elo, *whole, *_wdl(s), Column("Results", said["Results"]), *score]
    else:
        columns = [*elo, *whole, *score, *_wdl(s)]
    columns += [Column("Oppo.", "the opponents' average rating, weighted by the results "
                                "against each"),
                Column("LOS next", "the likelihood that the player is stronger than the "
                                   "next one")]
    by_name = {x.name: x for x in s.standings}
    rated = list(s.ratings.players) if s.ratings is not None else []
    rows = []
    for k, name in enumerate(s.order):
        st = by_name.get(name, Standing(name))
        pairs = s.pairs(name)
        cells: dict[str, object] = {
            "Games": st.games, "Points": points(st.points), "W": st.wins, "D": st.draws,
            "L": st.losses, "Results": pairs.games,
            "Score": percent(100 * pairs.points / pairs.games) if pairs.games else "",
            "Elo": "", "+": "", "\u2212": "", "Oppo.": "", "LOS next": ""}
        if k < len(rated) and s.ratings is not None:
            p = rated[k]
            cells.update({"Elo": rating_text(p.elo), "+": f"+{p.plus:.0f}",
                          "\u2212": f"\u2212{p.minus:.0f}", "Oppo.": rating_text(p.opponents_elo),
                          "Score": percent(p.score_percent)})
            if k + 1 < len(rated):
                cells["LOS next"] = s.ratings.los_text(k, k + 1)
        rows.append({"name": name, "cells": [cells[c.label] for c in columns]})
    return {"columns": columns, "rows": rows, "legend": _legend(columns)}


def player_facts(summary: Summary, name: str, rated: PlayerRating | None
                 ) -> tuple[list[tuple[str, object]], list[tuple[str, str]]]:
    """A player's line of the standings as facts (the same numbers under the same names
    as the index's), and their legend."""
    s = summary
    said = meanings(s.units)
    standing = next((x for x in s.standings if x.name == name), Standing(name))
    pairs = s.pairs(name)
    items: list[tuple[str, object]] = []
    if rated is not None and s.ratings is not None:
        elo = f"{rating_text(rated.elo)} (+{rated.plus:.0f} / \u2212{rated.minus:.0f})"
        items += [("Rank", f"{rated.rank} of {len(s.ratings.players)}"), ("Elo", elo)]
    items += [("Games", standing.games), ("Points", points(standing.points)),
              ("W / D / L", f"{standing.wins} / {standing.draws} / {standing.losses}")]
    legend = [(label, said[label]) for label in ("Games", "Points", "W / D / L")]
    if s.units.pairwise:
        items.append(("Results", pairs.games))
        legend.append(("Results", said["Results"]))
    score = (rated.score_percent if rated is not None
             else 100 * pairs.points / pairs.games if pairs.games else None)
    items.append(("Score", percent(score) if score is not None else "\u2013"))
    legend.append(("Score", said["Score"]))
    return items, legend


def opponents_table(summary: Summary) -> tuple[list[Column], list[tuple[str, str]]]:
    """The columns of a player's results against each opponent (after the opponent) and
    their legend: pairwise results, one a game the two played together (none from a game
    a third player's fault ended)."""
    head = "Results" if summary.units.pairwise else "Games"
    means = ("results against this opponent: one a game they played together, by their "
             "two scores (none from a game another player's fault ended)"
             if summary.units.pairwise else "games against this opponent")
    columns = [Column(head, means), Column("W", "results won, drawn and lost"),
               Column("D", "results won, drawn and lost"),
               Column("L", "results won, drawn and lost"),
               Column("Points", "1 a win, \u00bd a draw"),
               Column("Score", "the points in percent of the results"),
               Column("LOS (this player stronger)",
                      "the likelihood that this player is stronger than the opponent")]
    return columns, _legend(columns)


def crosstable_legend(summary: Summary) -> str:
    """What the crosstable's cells count."""
    if summary.units.pairwise:
        return ("Pairwise results of each player (row) against each opponent (column): in "
                "each game they played together the better of their two scores wins (1), "
                "equal scores draw (\u00bd); a cell is the points out of the results. "
                "Column heads are the players in the same order (full name on hover).")
    return ("Points each player (row) took from each opponent (column), 1 a win and \u00bd "
            "a draw, out of the games they played. Column heads are the players in the "
            "same order (full name on hover).")


def crosstable_table(summary: Summary) -> list[dict[str, Any]]:
    """Each player's row: its points and results against each opponent (``None`` for
    itself, ``""`` for one it never met) and all of them (``total``)."""
    rows = []
    for name in summary.order:
        cells: list[str | None] = []
        mine = summary.heads.get(name, {})
        total, count = 0.0, 0
        for other in summary.order:
            if other == name:
                cells.append(None)
                continue
            head = mine.get(other)
            if head is None or not head.games:
                cells.append("")
                continue
            total += head.points
            count += head.games
            cells.append(f"{points(head.points)}/{head.games}")
        rows.append({"name": name, "cells": cells,
                     "total": f"{points(total)}/{count}" if count else ""})
    return rows


def column_heads(names: Sequence[str]) -> list[str]:
    """The crosstable's column heads: the names themselves while they fit in
    ``HEAD_ROOM`` characters in all, else each cut to an even share of it (at least
    ``SHORTEST_HEAD``), keeping as much of its end as tells it from the names cut alike
    (``heuristic-1``, ``heuristic-2``: ``heur…c-1``, ``heur…c-2``); heads still alike get
    their player's number in the table."""
    if sum(len(name) for name in names) <= HEAD_ROOM:
        return list(names)
    limit = max(SHORTEST_HEAD, HEAD_ROOM // max(1, len(names)))
    alike: dict[str, list[str]] = {}
    for name in names:
        alike.setdefault(_cut(name, limit, 0), []).append(name)
    heads = []
    for name in names:
        group = alike[_cut(name, limit, 0)]
        end = 0
        while end < limit - 2 and any(_cut(other, limit, end) == _cut(name, limit, end)
                                      for other in group if other != name):
            end += 1
        heads.append(_cut(name, limit, end))
    counts = {head: heads.count(head) for head in heads}
    return [head if counts[head] == 1 else f"{k}. {head}"
            for k, head in enumerate(heads, start=1)]


def _cut(name: str, limit: int, end: int) -> str:
    """``name`` in ``limit`` characters: its start, an ellipsis and its last ``end``."""
    if len(name) <= limit:
        return name
    return name[: limit - 1 - end] + "\u2026" + (name[len(name) - end:] if end else "")
