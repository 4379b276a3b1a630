"""Group forming for the ITPW tournament format (``planowanie``: groups of G players).

Each round the players are split into groups of ``size`` (usually 4); a group plays the
``size`` cyclic seat rotations and every game gives each pair of its players a pairwise win,
draw or loss. The ranking is BayesElo over those pairwise results (:mod:`ratings`).

The spec: "For the first 10-20 rounds the groups are drawn completely at random
(:func:`random_groups`). In later rounds groups are chosen to minimise the variance of the
Elo ratings (:func:`variance_groups`): compute the ratings from all matches so far; take the
highest-ranked program A not yet placed in a group; for each possible opponent B, simulate
games between A and B and see how much the variance of A's rating changes; choose as A's
opponents those for which the variance decreases most on average. In the simulation the
probabilities of win, draw and loss come from the two ratings and from the past results
between just these two players. The organisers also prefer pairs that have played each other
the fewest times."

Units: everything here is in *unscaled* Elo, the maximum-likelihood fit BayesElo works in
(``Ratings`` shows ``scale * elo + offset`` and ``scale**2 * covariance``). With ``c =
ln(10) / 400`` and ``sigma`` the logistic function, a game between A and B (rating
difference ``D``; the first-move advantage is ignored: the seats rotate) ends

* ``P(win) = sigma(c (D - E))``, ``P(loss) = sigma(c (-D - E))``, and a draw otherwise,
  which is ``P(draw) = (10^(2E/400) - 1) P(win) P(loss)`` (``E`` = drawelo).

The observed information of one game (minus the second derivative of ``log P(outcome)`` in
``D``) is ``c^2 pw (1 - pw)`` for a win, ``c^2 pl (1 - pl)`` for a loss and, for a draw,
their sum ``c^2 (pw (1 - pw) + pl (1 - pl))``: ``log P(draw)`` is a linear term minus the two
softplus terms of the win and the loss (the same sum BayesElo's covariance uses for draws).
This equals ``(g'/g)^2 - g''/g`` with ``g = P(draw)``, without its cancellations.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from referee.tournament.bayeselo_mm import FloatArray, IntArray
from referee.tournament.ratings import BayesEloParams, Result, ResultTable, rate

__all__ = [
    "UNRATED_VARIANCE",
    "Result",
    "expected_variance_decrease",
    "outcome_information",
    "random_groups",
    "variance_groups",
]

UNRATED_VARIANCE = 1.0e6
"""Variance (unscaled Elo^2, a standard deviation of 1,000) given to players without results:
they sit at rating 0 (the rated players' mean), uncorrelated with everyone."""

_C = math.log(10.0) / 400.0


def _check_size(count: int, size: int) -> None:
    if size < 1:
        raise ValueError(f"group size must be >= 1, not {size}")
    if count % size:
        raise ValueError(f"{count} players cannot be split into groups of {size}")


def _check_unique(players: Sequence[str]) -> None:
    if len(set(players)) != len(players):
        raise ValueError("player names must be unique")


def random_groups(players: Sequence[str], size: int, rng: random.Random) -> list[list[str]]:
    """Shuffle and cut into groups of `size` (len(players) must be a multiple of size, else
    ValueError). The same ``rng`` state gives the same groups."""
    _check_size(len(players), size)
    _check_unique(players)
    order = list(players)
    rng.shuffle(order)
    return [order[k: k + size] for k in range(0, len(order), size)]


def _sigmoid(x: FloatArray) -> FloatArray:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * x)), dtype=np.float64)


def _outcomes(diff: FloatArray, drawelo: float) -> tuple[FloatArray, ...]:
    """Vectorised :func:`outcome_information`: six arrays shaped like ``diff``."""
    e = _C * drawelo
    pw = _sigmoid(_C * diff - e)
    pl = _sigmoid(-_C * diff - e)
    pd = math.expm1(2.0 * e) * pw * pl
    iw = _C * _C * pw * (1.0 - pw)
    il = _C * _C * pl * (1.0 - pl)
    return pw, pd, pl, np.maximum(iw, 0.0), np.maximum(iw + il, 0.0), np.maximum(il, 0.0)


def outcome_information(diff: float, drawelo: float
                        ) -> tuple[float, float, float, float, float, float]:
    """``(p_win, p_draw, p_loss, info_win, info_draw, info_loss)`` of one game.

    ``diff`` is the (unscaled) rating of the player minus its opponent's, ``drawelo`` the fit's
    drawelo. The probabilities are BayesElo's model without advantage; each ``info`` is the
    observed Fisher information ``-d^2/dD^2 log P(outcome)`` in unscaled Elo^-2 units (closed
    forms in the module docstring; all >= 0).
    """
    arrays = _outcomes(np.array([float(diff)]), float(drawelo))
    pw, pd, pl, iw, idr, il = (float(x[0]) for x in arrays)
    return pw, pd, pl, iw, idr, il


def _decreases(cov: FloatArray, a: int, b: IntArray, probabilities: Sequence[FloatArray],
               infos: Sequence[FloatArray]) -> FloatArray:
    """Expected decrease of ``Var(a)`` for each opponent in ``b`` (vectorised)."""
    s_aa = float(cov[a, a])
    s_ab = cov[a, b]
    su_a = s_aa - s_ab  # (S u)_a with u = e_a - e_b
    usu = np.maximum(s_aa + cov[b, b] - 2.0 * s_ab, 0.0)  # u^T S u
    total = np.zeros(len(b))
    for p, h in zip(probabilities, infos, strict=True):
        total += p * h * su_a * su_a / (1.0 + h * usu)
    return total


def expected_variance_decrease(cov: FloatArray, a: int, b: int,
                               probabilities: tuple[float, float, float],
                               infos: tuple[float, float, float]) -> float:
    """Expected decrease of ``Var(rating a)`` after one more game ``a``-``b``.

    ``cov`` is the (unscaled) rating covariance, ``probabilities`` / ``infos`` the win, draw and
    loss probabilities of ``a`` and the information ``h`` of each outcome. Averages the
    Sherman-Morrison update ``Var' = S_aa - h (S u)_a^2 / (1 + h u^T S u)`` (``u = e_a - e_b``)
    over the outcomes: exactly the variance after adding ``h u u^T`` to the information matrix
    when ``S`` is its inverse, or its pseudo-inverse and ``u`` lies in its range (``a`` and ``b``
    connected by games).
    """
    if a == b:
        raise ValueError("a player cannot play itself")
    matrix = np.asarray(cov, dtype=np.float64)
    result = _decreases(matrix, a, np.array([b], dtype=np.int64),
                        [np.array([float(p)]) for p in probabilities],
                        [np.array([float(h)]) for h in infos])
    return float(result[0])


def _in_order(players: Sequence[str], size: int) -> list[list[str]]:
    return [list(players[k: k + size]) for k in range(0, len(players), size)]


def variance_groups(players: Sequence[str], size: int, results: Iterable[Result],
                    params: BayesEloParams, met: Mapping[frozenset[str], int],
                    prior_weight: float = 4.0) -> list[list[str]]:
    """Groups of ``size`` chosen greedily to shrink the rating variances (deterministic).

    All ``results`` are rated once (players outside ``players`` still inform the fit). The
    unplaced players are taken best first (players without results last, in the given order,
    at rating 0 with variance :data:`UNRATED_VARIANCE`); for the best unplaced A every unplaced
    candidate B is scored by the expected decrease of A's variance after one simulated game,
    the outcome probabilities blending the model with the pair's past results:
    ``p_o = (prior_weight * model_o + n_o) / (prior_weight + n_ab)``. The score is divided by
    ``1 + met(A, B) - min over candidates of met(A, .)`` (``met`` maps ``frozenset({x, y})``
    to the games x and y played together, missing = 0), so pairs that met less are preferred.
    A's group is A and the ``size - 1`` best-scoring candidates (ties: rating order). Repeat
    until everyone is placed.

    Fallback: when the results cannot be rated (no results, or ratings infinite with
    ``prior == 0``) the groups are ``players`` cut in the given order. With a disconnected
    rating graph the covariance is the pseudo-inverse (within-component), and the update is
    applied as is across components (``S_ab = 0``: the two variances simply add).
    ``len(players)`` must be a multiple of ``size``.
    """
    _check_size(len(players), size)
    _check_unique(players)
    if prior_weight < 0:
        raise ValueError("prior_weight must be >= 0")
    table = ResultTable.from_results(results)
    try:
        ratings = rate(table, params, intervals=False)
    except ValueError:
        return _in_order(players, size)

    # -- one index space: rated players (best first), then the unrated ones -----------------
    rated = [p.name for p in ratings.players]
    index = {name: k for k, name in enumerate(rated)}
    unrated = [name for name in players if name not in index]
    for name in unrated:
        index[name] = len(index)
    total = len(index)
    scale = ratings.scale
    elo = np.zeros(total)
    elo[: len(rated)] = [(p.elo - ratings.offset) / scale for p in ratings.players]
    cov = np.zeros((total, total))
    cov[: len(rated), : len(rated)] = ratings.covariance / (scale * scale)
    cov[np.arange(len(rated), total), np.arange(len(rated), total)] = UNRATED_VARIANCE

    # past outcomes per unordered pair, seen from the row player: [row, col, (w, d, l)]
    past = np.zeros((total, total, 3))
    table_index = np.array([index[name] for name in table.players], dtype=np.int64)
    matrix = table.matrix().astype(np.float64)
    past[np.ix_(table_index, table_index)] = matrix + matrix[:, :, ::-1].transpose(1, 0, 2)

    met_rows = np.zeros((total, total))
    for pair, games in met.items():
        names = tuple(pair)
        if len(names) == 2 and names[0] in index and names[1] in index:
            i, j = index[names[0]], index[names[1]]
            met_rows[i, j] = met_rows[j, i] = float(games)

    wanted = set(players)
    unplaced = [index[name] for name in rated if name in wanted]
    unplaced += [index[name] for name in unrated]
    names_by_index = {k: name for name, k in index.items()}
    groups: list[list[str]] = []
    while unplaced:
        a, candidates = unplaced[0], np.array(unplaced[1:], dtype=np.int64)
        chosen: list[int] = []
        if size > 1:
            model = _outcomes(elo[a] - elo[candidates], ratings.drawelo)
            seen = past[a, candidates]  # (candidates, 3)
            n_ab = seen.sum(axis=1)
            probabilities = [(prior_weight * model[o] + seen[:, o]) / (prior_weight + n_ab)
                             if prior_weight > 0 else
                             np.where(n_ab > 0, seen[:, o] / np.maximum(n_ab, 1.0), model[o])
                             for o in range(3)]
            score = _decreases(cov, a, candidates, probabilities, model[3:])
            meetings = met_rows[a, candidates]
            score = score / (1.0 + meetings - meetings.min())
            # stable sort on -score keeps rating order among equal scores
            best = np.argsort(-score, kind="stable")[: size - 1]
            chosen = [int(candidates[k]) for k in sorted(best.tolist())]
        group = [a, *chosen]
        groups.append([names_by_index[k] for k in group])
        taken = set(group)
        unplaced = [k for k in unplaced if k not in taken]
    return groups
