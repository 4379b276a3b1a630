"""BayesElo's maximum-likelihood fit (``mm``): the condensed counts, the MM iterations.

Facts from Coulom's ``bayeselo`` (``CCondensedResults``, ``CBradleyTerry``), re-implemented:
the counts of every pair that met, with the prior's virtual draws; gammas from 1, Hunter's
minorization-maximization with the two thetas, up to ``max_iterations`` rounds, stopped when
the largest ``|g' - g| / (g' + g)`` (and the change of an estimated theta) is below
``epsilon``; ratings ``400 log10(gamma)`` shifted to mean 0.

Two ways to run the rounds (``fit``):

* **Together** (``fit_jacobi``, vectorised): every gamma from the previous round's. When
  every player is linked to every other through games, the fit has one answer, and this
  finds it fast.
* **One player after another** (``fit_sweep``), exactly as BayesElo's ``UpdateGammas``:
  players from the last to the first, each from the newest gammas of the players already
  swept this round (Gauss-Seidel). Where players fall into groups that never met, each
  group's ratings are fixed only up to a shift, and the shift BayesElo ends with depends on
  its path; sweeping as it does (same order, same start, same stopping rule) ends where it
  does, so the offset between the groups matches bayeselo's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from referee.tournament.ratings import BayesEloParams

__all__ = ["FloatArray", "IntArray", "MMResult", "Pairs", "check_finite", "condense",
           "connected", "fit", "fit_jacobi", "fit_sweep"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


# -- the condensed, prior-augmented data ----------------------------------------------------
@dataclass
class Pairs:
    """Unordered pairs a < b that met, with counts for both colour orders (prior included)."""

    n: int
    a: IntArray
    b: IntArray
    w_ab: FloatArray  # a first, a wins
    d_ab: FloatArray
    l_ab: FloatArray
    w_ba: FloatArray  # b first, b wins
    d_ba: FloatArray
    l_ba: FloatArray
    true_games: FloatArray  # games between a and b (no prior)


def condense(matrix: IntArray, prior: float) -> Pairs:
    n = matrix.shape[0]
    totals = matrix.sum(axis=2)
    met = totals + totals.T
    a, b = np.nonzero(np.triu(met, 1))
    a = a.astype(np.int64)
    b = b.astype(np.int64)
    wab, dab, lab = (matrix[a, b, k].astype(np.float64) for k in range(3))
    wba, dba, lba = (matrix[b, a, k].astype(np.float64) for k in range(3))
    games = met[a, b].astype(np.float64)
    if prior > 0 and len(a):
        per_player = np.bincount(a, games, n) + np.bincount(b, games, n)
        virtual = prior * 0.25 * games * (1.0 / per_player[a] + 1.0 / per_player[b])
        dab = dab + virtual
        dba = dba + virtual
    return Pairs(n, a, b, wab, dab, lab, wba, dba, lba, games)


def check_finite(pairs: Pairs, names: list[str]) -> None:
    n = pairs.n
    up = (np.bincount(pairs.a, pairs.w_ab + pairs.d_ab + pairs.l_ba + pairs.d_ba, n)
          + np.bincount(pairs.b, pairs.w_ba + pairs.d_ba + pairs.l_ab + pairs.d_ab, n))
    down = (np.bincount(pairs.a, pairs.l_ab + pairs.d_ab + pairs.w_ba + pairs.d_ba, n)
            + np.bincount(pairs.b, pairs.l_ba + pairs.d_ba + pairs.w_ab + pairs.d_ab, n))
    bad = [names[i] for i in np.nonzero((up <= 0) | (down <= 0))[0]]
    if bad:
        raise ValueError("ratings are infinite without a prior for players who won or lost "
                         f"every game: {', '.join(bad[:10])}; use prior > 0")


def connected(pairs: Pairs) -> bool:
    """Whether every player is linked to every other through games: a breadth-first
    search from the first player, a whole layer of players at a time."""
    n = pairs.n
    if n <= 1:
        return True
    ends = np.concatenate([pairs.a, pairs.b])
    order = np.argsort(ends, kind="stable")
    neighbours = np.concatenate([pairs.b, pairs.a])[order]
    start = np.searchsorted(ends[order], np.arange(n + 1))
    seen = np.zeros(n, dtype=bool)
    seen[0] = True
    layer = np.zeros(1, dtype=np.int64)
    while layer.size:
        first, count = start[layer], start[layer + 1] - start[layer]
        at = np.repeat(first - np.cumsum(count) + count, count) + np.arange(int(count.sum()))
        reached = np.zeros(n, dtype=bool)
        reached[neighbours[at]] = True
        reached &= ~seen
        seen |= reached
        layer = np.flatnonzero(reached)
    return bool(seen.all())


def groups(pairs: Pairs) -> IntArray:
    """Each player's group: players linked through games share one, numbered by its
    first player (the smallest label spread along every pair until none moves)."""
    label = np.arange(pairs.n, dtype=np.int64)
    a, b = pairs.a, pairs.b
    if a.size == 0:
        return label
    while True:
        low = np.minimum(label[a], label[b])
        moved = label.copy()
        np.minimum.at(moved, a, low)
        np.minimum.at(moved, b, low)
        moved = moved[moved]  # (follow each label to its own: a shortcut, a step a loop)
        if np.array_equal(moved, label):
            return label
        label = moved


# -- maximum likelihood (MM) ------------------------------------------------------------------
@dataclass(frozen=True)
class MMResult:
    """Maximum-likelihood ratings (unscaled, mean 0) and the model's two parameters."""

    elo: FloatArray
    advantage: float
    drawelo: float
    iterations: int
    converged: bool


def fit_jacobi(pairs: Pairs, params: BayesEloParams) -> MMResult:
    """MM with every gamma updated at once from the previous round's (vectorised)."""
    n = pairs.n
    a, b = pairs.a, pairs.b
    wd_ab = pairs.w_ab + pairs.d_ab
    ld_ab = pairs.l_ab + pairs.d_ab
    wd_ba = pairs.w_ba + pairs.d_ba
    ld_ba = pairs.l_ba + pairs.d_ba
    wins_like = (np.bincount(a, wd_ab + pairs.l_ba + pairs.d_ba, n)
                 + np.bincount(b, wd_ba + pairs.l_ab + pairs.d_ab, n))
    tw = 1.0 if params.estimate_advantage else math.pow(10.0, params.advantage / 400.0)
    td = 1.0 if params.estimate_drawelo else math.pow(10.0, params.drawelo / 400.0)
    gamma = np.ones(n)
    converged = False
    iterations = 0
    while iterations < params.max_iterations:
        iterations += 1
        ga, gb = gamma[a], gamma[b]
        tdw = td * tw
        r1 = wd_ab / (tw * ga + td * gb)
        r2 = ld_ab / (tdw * ga + gb)
        r3 = wd_ba / (tw * gb + td * ga)
        r4 = ld_ba / (tdw * gb + ga)
        denominator = (np.bincount(a, tw * r1 + tdw * r2 + td * r3 + r4, n)
                       + np.bincount(b, tw * r3 + tdw * r4 + td * r1 + r2, n))
        new = wins_like / denominator
        diff = float(np.max(np.abs(new - gamma) / (new + gamma))) if n else 0.0
        gamma = new
        if params.estimate_advantage or params.estimate_drawelo:
            tw, td, diff = _thetas(pairs, gamma, tw, td, diff, params)
        if diff < params.epsilon:
            converged = True
            break
    return _result(gamma, tw, td, iterations, converged, params)


def _thetas(pairs: Pairs, gamma: FloatArray, tw: float, td: float, diff: float,
            params: BayesEloParams) -> tuple[float, float, float]:
    """One MM update of the estimated thetas from the newest gammas (thetaW first, then
    thetaD with the new thetaW), and the round's difference grown by their changes."""
    a, b = pairs.a, pairs.b
    wd_ab = pairs.w_ab + pairs.d_ab
    ld_ab = pairs.l_ab + pairs.d_ab
    wd_ba = pairs.w_ba + pairs.d_ba
    ld_ba = pairs.l_ba + pairs.d_ba
    ga, gb = gamma[a], gamma[b]
    if params.estimate_advantage:
        den = float(np.sum(wd_ab * ga / (tw * ga + td * gb)
                           + ld_ab * td * ga / (td * tw * ga + gb)
                           + wd_ba * gb / (tw * gb + td * ga)
                           + ld_ba * td * gb / (td * tw * gb + ga)))
        new_tw = float(np.sum(wd_ab + wd_ba)) / den
        diff = max(diff, abs(tw - new_tw))
        tw = new_tw
    if params.estimate_drawelo:
        den = float(np.sum(wd_ab * gb / (tw * ga + td * gb)
                           + ld_ab * tw * ga / (td * tw * ga + gb)
                           + wd_ba * ga / (tw * gb + td * ga)
                           + ld_ba * tw * gb / (td * tw * gb + ga)))
        c = float(np.sum(pairs.d_ab + pairs.d_ba)) / den
        new_td = c + math.sqrt(c * c + 1.0)
        diff = max(diff, abs(td - new_td))
        td = new_td
    return tw, td, diff


def _result(gamma: FloatArray, tw: float, td: float, iterations: int, converged: bool,
            params: BayesEloParams) -> MMResult:
    """Ratings ``400 log10(gamma)`` shifted to mean 0, and the thetas in Elo."""
    elo = 400.0 * np.log10(gamma)
    elo -= elo.mean() if len(elo) else 0.0
    advantage = 400.0 * math.log10(tw) if params.estimate_advantage else params.advantage
    drawelo = 400.0 * math.log10(td) if params.estimate_drawelo else params.drawelo
    return MMResult(elo, advantage, drawelo, iterations, converged)


def fit(pairs: Pairs, params: BayesEloParams, linked: bool | None = None) -> MMResult:
    """BayesElo's ``mm`` on condensed counts: swept as BayesElo does when players fall into
    separate groups (the groups' offsets depend on the path), all at once otherwise.
    ``linked``: whether they are all linked (``connected``), if already known."""
    if connected(pairs) if linked is None else linked:
        return fit_jacobi(pairs, params)
    return fit_sweep(pairs, params)


def _records(pairs: Pairs) -> list[list[tuple[int, float, float, float, float, float, float]]]:
    """Each player's opponents with its counts as BayesElo's ``CCondensedResult`` holds them:
    ``(opponent, w_ij, d_ij, l_ij, w_ji, d_ji, l_ji)``, ``i`` the player (``ij``: it moved
    first)."""
    records: list[list[tuple[int, float, float, float, float, float, float]]] = [
        [] for _ in range(pairs.n)]
    rows = zip(pairs.a.tolist(), pairs.b.tolist(), pairs.w_ab.tolist(), pairs.d_ab.tolist(),
               pairs.l_ab.tolist(), pairs.w_ba.tolist(), pairs.d_ba.tolist(),
               pairs.l_ba.tolist(), strict=True)
    for a, b, wab, dab, lab, wba, dba, lba in rows:
        records[a].append((b, wab, dab, lab, wba, dba, lba))
        records[b].append((a, wba, dba, lba, wab, dab, lab))
    return records


def fit_sweep(pairs: Pairs, params: BayesEloParams) -> MMResult:
    """MM swept player by player, from the last player to the first, as BayesElo does."""
    n = pairs.n
    records = _records(pairs)
    tw = 1.0 if params.estimate_advantage else math.pow(10.0, params.advantage / 400.0)
    td = 1.0 if params.estimate_drawelo else math.pow(10.0, params.drawelo / 400.0)
    wins_like = [sum(w + d + lji + dji for _, w, d, _l, _w, dji, lji in rec) for rec in records]
    gamma = [1.0] * n
    converged = False
    iterations = 0
    while iterations < params.max_iterations:
        iterations += 1
        old = gamma[:]
        tdw = td * tw
        for p in range(n - 1, -1, -1):
            g = old[p]
            total = 0.0
            for o, wij, dij, lij, wji, dji, lji in records[p]:
                go = gamma[o]  # already this round's value when o > p
                total += ((dij + wij) * tw / (tw * g + td * go)
                          + (dij + lij) * tdw / (tdw * g + go)
                          + (dji + wji) * td / (tw * go + td * g)
                          + (dji + lji) / (tdw * go + g))
            gamma[p] = wins_like[p] / total
        diff = max((abs(x - y) / (x + y) for x, y in zip(gamma, old, strict=True)),
                   default=0.0)
        if params.estimate_advantage or params.estimate_drawelo:
            tw, td, diff = _thetas(pairs, np.array(gamma), tw, td, diff, params)
        if diff < params.epsilon:
            converged = True
            break
    return _result(np.array(gamma), tw, td, iterations, converged, params)
