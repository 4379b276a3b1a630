"""BayesElo ratings (Rémi Coulom's model and algorithms) from streamed game results.

Facts taken from Coulom's ``bayeselo`` source (``CBradleyTerry``, ``CCondensedResults``,
``CEloRatingCUI``, ``CCDistribution``, ``CDiscretization``), re-implemented here:

* **Model** (``CBradleyTerry.h``): with ``f(d) = 1 / (1 + 10^(-d/400))`` and ``D`` the rating
  of the first player (the side with the advantage) minus the second's,
  ``P(first wins) = f(D + advantage - drawelo)``, ``P(second wins) = f(-D - advantage -
  drawelo)`` and a draw is the rest. In "gamma" form (``gamma = 10^(elo/400)``,
  ``thetaW = 10^(advantage/400)``, ``thetaD = 10^(drawelo/400)``) this is Hunter's
  generalised Bradley-Terry model with home advantage and ties (Rao-Kupper).
* **Prior** (``CCondensedResults::AddPrior``): ``prior`` virtual draws. For every player
  ``i`` and each opponent ``j`` it met, ``prior * 0.25 * games(i, j) / games(i)`` draws are
  added with ``i`` first and as many with ``j`` first; so a lone pair gets ``prior`` draws
  in all, half with each colour. The prior enters the ratings and the intervals, not the
  games / score / draws columns.
* **MM** (``CBradleyTerry::MinorizationMaximization``): gammas start at 1 (and thetaW /
  thetaD at 1 when estimated), up to 10,000 iterations, stop when the largest
  ``|g' - g| / (g' + g)`` (and ``|theta' - theta|`` of an estimated theta) is below
  ``epsilon`` (1e-5). thetaW is updated after the gammas, thetaD after thetaW, each with the
  newest values; thetaD's update is ``C + sqrt(C^2 + 1)``. BayesElo sweeps the players one
  by one (Gauss-Seidel); where every player is linked to every other through games, all
  gammas are updated at once here, which is also a minorization-maximization step
  (Hunter's minorizer separates the players) and has the same fixed point; where players
  fall into separate groups, the players are swept as BayesElo does, so that the groups end
  at the same offsets (``bayeselo_mm``). Ratings are ``400 log10(gamma)`` shifted to mean 0.
* **Scale** (``CEloRatingCUI``, command ``mm``): after ``mm`` BayesElo displays ratings
  multiplied by ``4x / (1 + x)^2`` with ``x = 10^(-drawelo/400)`` ("maximum-likelihood
  ratings are now scaled down so that they look more like Elostat/SSDF ratings", changelog
  2005-12-18); ``offset`` is then added. ``scale=None`` here does the same; give ``1.0`` for
  raw maximum-likelihood ratings.
* **exactdist** (``GetPlayerDist``): for each player, the likelihood of its own games as its
  rating ``x`` runs over ``resolution`` (1001) bin centres ``elo_min + (k + 0.5) *
  (elo_max - elo_min) / resolution`` of [-1500, 1500], every other rating being moved by
  ``-(x - elo)/(n - 1)`` so that the mean stays 0; the bounds are found on that discrete
  distribution by trapezoid integration from each end until ``(1 - confidence) / 2``
  (``CCDistribution::GetBoundValue``). Here only the bins within 40 nats of the maximum are
  computed (the log-likelihood is concave in ``x``, so the others weigh less than
  ``e^-40``).
* **covariance** (``ComputeCovariance``): the observed information matrix (minus the Hessian
  of the log-likelihood, prior included) with the last player's rating held fixed, inverted,
  then mapped to mean-0 ratings: ``C = A H^-1 A^T`` with ``A = I - 1/n``. The symmetric
  interval is ``z * sqrt(C_ii)``, ``z`` being BayesElo's discretised normal quantile
  (``NormInv``: 1000 bins on [-10, 10]; 1.9600 for 95 %).
* **LOS** (``ComputeLikelihoodOfSuperiority``): ``LOS(i, j) = erfc((elo_j - elo_i) /
  sqrt(2 (C_ii + C_jj - 2 C_ij))) / 2``, 0 on the diagonal.
* **ratings table** (``ratings``): Rank, Name, Elo, +, -, games, score, oppo. (mean rating
  of the opponents weighted by games), draws, with BayesElo 0057's column widths and its
  rounding (half away from zero); ``los_table`` is the ``los`` command (values truncated).

Counts live in a dense players x players table (``result_table``): about 24 bytes per
ordered pair of players (24 MB for 1,000 players), whatever the number of games.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from referee.tournament import bayeselo_mm as mm
from referee.tournament.bayeselo_mm import FloatArray, IntArray, MMResult, Pairs
from referee.tournament.result_table import PairCounts, Result, ResultTable

__all__ = [
    "BayesEloParams",
    "MMResult",
    "PairCounts",
    "PlayerRating",
    "Ratings",
    "Result",
    "ResultTable",
    "bayeselo_round",
    "bayeselo_scale",
    "covariance_matrix",
    "exact_intervals",
    "los_matrix",
    "minorization_maximization",
    "normal_quantile",
    "rate",
    "rate_elo",
]

_LN10_400 = math.log(10.0) / 400.0
_WINDOW_NATS = 40.0


# -- parameters ----------------------------------------------------------------------------
PRESETS = ("gomocup", "bayeselo", "itpw")
"""Names of the BayesElo parameter presets (``BayesEloParams.preset``)."""

@dataclass(frozen=True)
class BayesEloParams:
    """Settings of a BayesElo run (defaults: BayesElo's own, except where noted).

    ``advantage`` / ``drawelo`` are in Elo (``advantage`` / ``drawelo`` commands);
    ``estimate_advantage`` / ``estimate_drawelo`` are ``mm 1 1``'s flags (defaults 0 0:
    fixed). ``scale=None`` applies BayesElo's automatic scale (see :func:`bayeselo_scale`).
    ``elo_min``, ``elo_max``, ``resolution`` and ``confidence`` are ``minelo``, ``maxelo``,
    ``resolution`` and ``confidence``; ``offset`` is ``offset``.
    """

    advantage: float = 32.8
    drawelo: float = 97.3
    prior: float = 2.0
    estimate_advantage: bool = False
    estimate_drawelo: bool = False
    epsilon: float = 1e-5
    max_iterations: int = 10_000
    offset: float = 0.0
    scale: float | None = None
    confidence: float = 0.95
    elo_min: float = -1500.0
    elo_max: float = 1500.0
    resolution: int = 1001

    def __post_init__(self) -> None:
        """Reject settings the model cannot use."""
        if not self.drawelo > 0 and not self.estimate_drawelo:
            raise ValueError("drawelo must be > 0 (draws have probability 0 otherwise)")
        if self.prior < 0:
            raise ValueError("prior must be >= 0")
        if not 0 < self.confidence < 1:
            raise ValueError("confidence must be in (0, 1)")
        if self.resolution < 3 or not self.elo_max > self.elo_min:
            raise ValueError("need resolution >= 3 and elo_max > elo_min")
        if self.epsilon <= 0 or self.max_iterations < 1:
            raise ValueError("need epsilon > 0 and max_iterations >= 1")
        if self.scale is not None and not self.scale > 0:
            raise ValueError("scale must be > 0 (or None for BayesElo's automatic scale)")

    @classmethod
    def bayeselo_defaults(cls) -> BayesEloParams:
        """BayesElo's defaults: advantage 32.8, drawelo 97.3, prior 2, offset 0, auto scale."""
        return cls()

    @classmethod
    def gomocup(cls) -> BayesEloParams:
        """The Gomocup settings: no first-move advantage (``advantage 0``), draws nearly
        impossible (``drawelo 0.01``), as game-AI tournament scripts run BayesElo.

        With ``drawelo`` this small the display scale is 1: ratings are the raw fit. (The
        published Gomocup Elo list, github.com/Gomocup/GomocupEloRating, runs BayesElo's
        defaults with ``offset 1600`` instead: ``bayeselo_defaults()`` with that offset.)
        """
        return cls(advantage=0.0, drawelo=0.01)

    @classmethod
    def itpw(cls) -> BayesEloParams:
        """For games of more seats rated pairwise (the ITPW format): BayesElo's defaults
        without a first-seat advantage, since seats rotate and every pair's order in a
        game is only its seat order (``advantage 0``, ``drawelo 97.3``)."""
        return cls(advantage=0.0)

    @classmethod
    def preset(cls, name: str, **changes: Any) -> BayesEloParams:
        """The named preset (``PRESETS``) with ``changes`` applied."""
        presets = {"gomocup": cls.gomocup, "bayeselo": cls.bayeselo_defaults, "itpw": cls.itpw}
        if name not in presets:
            raise ValueError(f"unknown ratings preset {name!r} (known: {', '.join(PRESETS)})")
        return presets[name]().changed(**changes)

    def changed(self, **changes: Any) -> BayesEloParams:
        """A copy with the given settings changed; ``None`` values change nothing."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def bayeselo_scale(drawelo: float) -> float:
    """BayesElo's display scale after ``mm``: ``4x / (1 + x)^2``, ``x = 10^(-drawelo/400)``."""
    x = math.pow(10.0, -drawelo / 400.0)
    return 4.0 * x / ((1.0 + x) * (1.0 + x))


def minorization_maximization(table: ResultTable,
                              params: BayesEloParams | None = None) -> MMResult:
    """BayesElo's ``mm``: maximum-likelihood ratings (prior included), unscaled, mean 0.

    The ratings are in the order of ``table.players``.
    """
    params = params or BayesEloParams()
    pairs = mm.condense(table.matrix(), params.prior)
    mm.check_finite(pairs, table.players)
    return mm.fit(pairs, params)


# -- covariance and LOS --------------------------------------------------------------------
def _information(pairs: Pairs, elo: FloatArray, advantage: float,
                 drawelo: float) -> FloatArray:
    """Observed information (minus the Hessian of the log-likelihood) in Elo^-2 units."""
    n = pairs.n
    a, b = pairs.a, pairs.b
    gamma = 10.0 ** (elo / 400.0)
    ga, gb = gamma[a], gamma[b]
    tw = math.pow(10.0, advantage / 400.0)
    td = math.pow(10.0, drawelo / 400.0)
    h = ((pairs.w_ab + pairs.d_ab) / (tw * ga + td * gb) ** 2
         + (pairs.l_ab + pairs.d_ab) / (td * tw * ga + gb) ** 2
         + (pairs.w_ba + pairs.d_ba) / (tw * gb + td * ga) ** 2
         + (pairs.l_ba + pairs.d_ba) / (td * tw * gb + ga) ** 2)
    h *= ga * gb * td * tw * _LN10_400 ** 2
    info = np.zeros((n, n))
    info[a, b] = -h
    info[b, a] = -h
    info[np.arange(n), np.arange(n)] = np.bincount(a, h, n) + np.bincount(b, h, n)
    return info


def _covariance(info: FloatArray, connected: bool) -> FloatArray:
    n = info.shape[0]
    if n < 2:
        return np.zeros((n, n))
    if not connected:
        # ratings of separate groups are not tied to each other: the pseudo-inverse gives
        # the within-group (co)variances of mean-0 ratings
        return np.asarray(np.linalg.pinv(info, hermitian=True), dtype=np.float64)
    # with A = I - 1/n, C = A H^-1 A^T where H^-1 is padded with a zero row and column (the
    # last player's, held fixed): the padded inverse centred along both axes
    cov = np.zeros((n, n))
    cov[: n - 1, : n - 1] = np.linalg.inv(info[: n - 1, : n - 1])
    cov -= cov.mean(axis=0)
    cov -= cov.mean(axis=1)[:, None]
    cov += cov.T
    cov /= 2.0
    return cov


def covariance_matrix(table: ResultTable, fit: MMResult,
                      params: BayesEloParams | None = None) -> FloatArray:
    """BayesElo's ``covariance``: covariance of the (unscaled) ratings, Elo^2."""
    params = params or BayesEloParams()
    pairs = mm.condense(table.matrix(), params.prior)
    info = _information(pairs, fit.elo, fit.advantage, fit.drawelo)
    return _covariance(info, mm.connected(pairs))


def los_matrix(elo: FloatArray, covariance: FloatArray) -> FloatArray:
    """BayesElo's ``los``: ``LOS[i, j]`` = probability that ``i`` is stronger than ``j``."""
    var = np.diag(covariance)
    sigma2 = var[:, None] + var[None, :] - covariance - covariance.T
    with np.errstate(divide="ignore", invalid="ignore"):
        x = (elo[None, :] - elo[:, None]) / np.sqrt(2.0 * np.maximum(sigma2, 0.0))
    x = np.nan_to_num(x, nan=0.0)
    los = np.fromiter(map(math.erfc, x.ravel().tolist()), np.float64, x.size)
    los = los.reshape(x.shape) / 2.0
    np.fill_diagonal(los, 0.0)
    return los


# -- exactdist -----------------------------------------------------------------------------
def _bin_values(params: BayesEloParams) -> FloatArray:
    k = np.arange(params.resolution, dtype=np.float64)
    step = (params.elo_max - params.elo_min) / params.resolution
    return params.elo_min + (k + 0.5) * step


def _bound(dist: FloatArray, values: FloatArray, confidence: float, upper: bool) -> float:
    """``CCDistribution::GetBoundValue``: trapezoid mass from one end up to (1 - c) / 2."""
    threshold = (1.0 - confidence) / 2.0
    step = float(values[1] - values[0])
    if upper:
        dist = dist[::-1]
        values = values[::-1]
        step = -step
    mass = np.cumsum(dist) - dist / 2.0
    hit = np.nonzero(mass >= threshold)[0]
    if len(hit) == 0:
        return float(values[-1])
    i = int(hit[0])
    before = float(mass[i - 1]) if i > 0 else 0.0
    start = float(values[i]) - step
    return float(start + step * (threshold - before) / (float(mass[i]) - before))


def normal_quantile(confidence: float) -> float:
    """BayesElo's ``NormInv``: upper bound of a N(0, 1) discretised on 1000 bins of [-10, 10]."""
    bins = -10.0 + (np.arange(1000) + 0.5) * 20.0 / 1000
    dist = np.exp(-bins * bins / 2.0)
    dist[0] = 0.0  # SetNormal leaves the first bin at 0
    dist /= dist.sum()
    return _bound(dist, bins, confidence, upper=True)


class _PlayerRecords:
    """For each player: its opponents and the counts of each pairing (prior included), as
    the terms of its log-likelihood."""

    def __init__(self, pairs: Pairs, elo: FloatArray, advantage: float,
                 drawelo: float) -> None:
        # Each pairing once as (a, b) and once as (b, a); with ij the player moving first
        # and lam = (elo_p - elo_o) ln10/400, u = e^lam, log P of its games is, up to
        # constants: lam * (w_ij + d_ij + l_ji + d_ji)
        #   - (w_ij + d_ij) log(tw u + td) - (l_ij + d_ij) log(td tw u + 1)
        #   - (w_ji + d_ji) log(tw + td u) - (l_ji + d_ji) log(td tw + u),
        # and log(a u + b) = log a + log(u + b / a): the four terms are log(u + offset) times
        # a count (``weights``, one row per term), their constants dropped.
        n = pairs.n
        p = np.concatenate([pairs.a, pairs.b])
        order = np.argsort(p, kind="stable")
        player = p[order]
        del p
        opponent = np.concatenate([pairs.b, pairs.a])[order]
        as_a = (pairs.w_ab + pairs.d_ab, pairs.l_ab + pairs.d_ab, pairs.w_ba + pairs.d_ba,
                pairs.l_ba + pairs.d_ba)  # ij = ab: the four counts with a as the player
        self.weights = np.empty((4, len(order)))
        for row, (mine, theirs) in enumerate(((0, 2), (1, 3), (2, 0), (3, 1))):
            # as b, the player's own first-move counts are the ba ones
            self.weights[row] = np.concatenate([as_a[mine], as_a[theirs]])[order]
        self.linear = np.bincount(player, self.weights[0] + self.weights[3], n)
        tw = math.pow(10.0, advantage / 400.0)
        td = math.pow(10.0, drawelo / 400.0)
        self.offsets = np.array([td / tw, 1.0 / (td * tw), tw / td, td * tw])
        self.opponent_factor = np.exp(-elo[opponent] * _LN10_400)  # e^lam / e^(elo_p ...)
        self.start = np.searchsorted(player, np.arange(n + 1))


_SLAB = 1 << 18
"""Bins x pairings x 4 terms evaluated at once, at most (memory of the temporaries)."""


def _player_loglik(rec: _PlayerRecords, p: int, x: FloatArray, elo: FloatArray,
                   n: int) -> FloatArray:
    """Player ``p``'s log-likelihood (constants dropped) at ratings ``x``, the others
    moved so that the mean stays 0."""
    lo, hi = int(rec.start[p]), int(rec.start[p + 1])
    factor = n / (n - 1) if n > 1 else 1.0
    alpha = (x * factor - elo[p] / (n - 1) if n > 1 else x) * _LN10_400
    total = alpha * float(rec.linear[p])
    weights = rec.weights[:, lo:hi].reshape(-1)  # term by term, each over the pairings
    offsets = rec.offsets[:, None]
    rows = max(1, _SLAB // max(1, weights.size))
    for first in range(0, len(x), rows):
        u = np.multiply.outer(np.exp(alpha[first:first + rows]), rec.opponent_factor[lo:hi])
        terms = np.add(u[:, None, :], offsets)  # (bins, 4 terms, pairings)
        np.log(terms, out=terms)
        total[first:first + rows] -= terms.reshape(len(u), -1) @ weights
    return np.asarray(total, dtype=np.float64)


def _exact_intervals(pairs: Pairs, fit: MMResult, info: FloatArray,
                     params: BayesEloParams) -> tuple[FloatArray, FloatArray]:
    n = pairs.n
    rec = _PlayerRecords(pairs, fit.elo, fit.advantage, fit.drawelo)
    values = _bin_values(params)
    size = params.resolution
    step = float(values[1] - values[0])
    lower = np.zeros(n)
    upper = np.zeros(n)
    factor = n / (n - 1) if n > 1 else 1.0
    for p in range(n):
        e = float(fit.elo[p])
        curvature = float(info[p, p]) * factor * factor
        sigma = 1.0 / math.sqrt(curvature) if curvature > 0 else (values[-1] - values[0])
        half = 1.3 * math.sqrt(2.0 * _WINDOW_NATS) * sigma + 2.0 * step
        lo = max(0, int((e - half - values[0]) / step))
        hi = min(size, int((e + half - values[0]) / step) + 2)
        if hi - lo < 3:
            lo, hi = max(0, min(lo, size - 3)), min(size, max(hi, lo + 3))
        ll = _player_loglik(rec, p, values[lo:hi], fit.elo, n)
        while True:
            top = float(ll.max())
            grow_left = lo > 0 and ll[0] > top - _WINDOW_NATS
            grow_right = hi < size and ll[-1] > top - _WINDOW_NATS
            if not (grow_left or grow_right):
                break
            width = hi - lo
            if grow_left:
                new_lo = max(0, lo - width)
                ll = np.concatenate(
                    [_player_loglik(rec, p, values[new_lo:lo], fit.elo, n), ll])
                lo = new_lo
            if grow_right:
                new_hi = min(size, hi + width)
                ll = np.concatenate(
                    [ll, _player_loglik(rec, p, values[hi:new_hi], fit.elo, n)])
                hi = new_hi
        dist = np.zeros(size)
        dist[lo:hi] = np.exp(ll - ll.max())
        dist /= dist.sum()
        lower[p] = e - _bound(dist, values, params.confidence, upper=False)
        upper[p] = _bound(dist, values, params.confidence, upper=True) - e
    return lower, upper


def exact_intervals(table: ResultTable, fit: MMResult,
                    params: BayesEloParams | None = None) -> tuple[FloatArray, FloatArray]:
    """BayesElo's ``exactdist``: per player (unscaled Elo) ``(minus, plus)`` distances."""
    params = params or BayesEloParams()
    pairs = mm.condense(table.matrix(), params.prior)
    info = _information(pairs, fit.elo, fit.advantage, fit.drawelo)
    return _exact_intervals(pairs, fit, info, params)


# -- the whole run ---------------------------------------------------------------------------
@dataclass(frozen=True)
class PlayerRating:
    """One line of the rating list (ratings and intervals scaled, offset added)."""

    rank: int
    name: str
    elo: float
    minus: float
    plus: float
    covariance_pm: float
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    draw_ratio: float
    opponents_elo: float

    @property
    def score_percent(self) -> float:
        """Score in percent, as BayesElo works it out: ``100 * points / games`` (so 57
        points of 200 games is exactly 28.5, shown 29)."""
        return 100.0 * (self.wins + self.draws / 2) / self.games if self.games else 0.0

    @property
    def draws_percent(self) -> float:
        """Draws in percent of the games (``100 * draws / games``)."""
        return 100.0 * self.draws / self.games if self.games else 0.0

    @property
    def lower(self) -> float:
        """Lower end of the exactdist interval."""
        return self.elo - self.minus

    @property
    def upper(self) -> float:
        """Upper end of the exactdist interval."""
        return self.elo + self.plus


def bayeselo_round(x: float) -> int:
    """BayesElo's ``RoundDouble``: to the nearest whole number, halves away from zero."""
    return int(x + 0.5) if x > 0 else int(x - 0.5)


@dataclass(frozen=True)
class Ratings:
    """A rating list: players best first, the LOS matrix in the same order (worked out
    when first used: a rating list without it needs none), the fit."""

    players: tuple[PlayerRating, ...]
    covariance: FloatArray = field(repr=False)
    advantage: float
    drawelo: float
    prior: float
    scale: float
    offset: float
    confidence: float
    iterations: int
    converged: bool
    connected: bool
    _los_of: tuple[FloatArray, FloatArray, IntArray] = field(repr=False, compare=False)
    """What ``los`` is worked out from: the fit's ratings and covariance, in the players'
    order in the table, and the table's index of each player in ``players``."""
    groups: tuple[int, ...] = field(default=(), compare=False)
    """Each player's group (in ``players``' order): players linked through games share
    one; between groups that never met, a LOS says nothing (the prior alone sets their
    distance)."""

    def __len__(self) -> int:
        """Number of players."""
        return len(self.players)

    @functools.cached_property
    def los(self) -> FloatArray:
        """``los[i, j]``: the likelihood that ``players[i]`` is stronger than ``players[j]``."""
        elo, covariance, index = self._los_of
        return los_matrix(elo, covariance)[np.ix_(index, index)]

    @functools.cached_property
    def _index(self) -> dict[str, int]:
        """Each player's place in ``players`` (and in ``los``)."""
        return {p.name: k for k, p in enumerate(self.players)}

    def player(self, name: str) -> PlayerRating:
        """The line of one player (``KeyError`` if it is not rated)."""
        return self.players[self._index[name]]

    def elo(self, name: str) -> float:
        """A player's rating (scaled, offset added)."""
        return self.player(name).elo

    def los_of(self, first: str, second: str) -> float:
        """Likelihood that ``first`` is stronger than ``second``."""
        return float(self.los[self._index[first], self._index[second]])

    def met(self, first: int, second: int) -> bool:
        """Whether ``players[first]`` and ``players[second]`` are linked through games
        (in one group): only then does a LOS between them mean something."""
        return not self.groups or self.groups[first] == self.groups[second]

    def los_text(self, first: int, second: int) -> str:
        """The LOS of ``players[first]`` over ``players[second]`` as people read it,
        ``62.5%``; ``-`` between groups that never met."""
        if not self.met(first, second):
            return "-"
        return f"{100 * float(self.los[first, second]):.1f}%"

    def table(self, min_games: int = 1) -> str:
        """The rating list as BayesElo's ``ratings`` command prints it."""
        width = max([4, *(len(p.name) for p in self.players)])
        lines = [f"Rank {'Name':<{width}} {'Elo':>5} {'+':>4} {'-':>4} {'games':>5} "
                 f"{'score':>5} {'oppo.':>5} {'draws':>5} "]
        counter = 0
        for p in self.players:
            if p.games < max(1, min_games):
                continue
            counter += 1
            r = bayeselo_round
            lines.append(
                f"{counter:>4} {p.name:<{width}} {r(p.elo):>5} {r(p.plus):>4} "
                f"{r(p.minus):>4} {p.games:>5} {r(p.score_percent):>4}% "
                f"{r(p.opponents_elo):>5} {r(p.draws_percent):>4}% ")
        return "\n".join(lines) + "\n"

    def los_table(self, first: int = 0, count: int | None = None, width: int = 3,
                  layout: str = "readable") -> str:
        """The LOS matrix of players ``first`` .. ``first + count - 1`` (by rank), values
        in units of ``10^-(width - 1)`` (truncated, as BayesElo's ``los``).

        ``layout="bayeselo"`` prints BayesElo 0057's ``los [first] [players] [width]``
        exactly: each column headed by the first ``width - 1`` letters of its player's name,
        cells ``width`` wide with nothing between them. ``"readable"`` (the default) heads
        the columns by rank, starts each row with the rank and the full name, and separates
        the cells by `` | ``, the diagonal marked ``-``, and so the players of groups that
        never met (:meth:`met`: the prior alone sets their distance; BayesElo prints a
        number there).
        """
        width = max(2, width)
        total = len(self.players)
        first = max(0, first)
        count = total if count is None else count
        if first + count > total:
            count = total - first
        if count <= 0:
            first, count = 0, total
        mult = 10.0 ** (min(width, 8) - 1)
        name_width = max((len(p.name) for p in self.players), default=0)
        shown = range(first, first + count)
        if layout == "bayeselo":
            head = " " * name_width + " " + "".join(
                f"{self.players[q].name[: width - 1]:>{width}}" for q in shown)
            lines = [head]
            for p in shown:
                cells = "".join(
                    f"{int(self.los[p, q] * mult):>{width}}" if p != q else " " * width
                    for q in shown)
                lines.append(f"{self.players[p].name:<{name_width}} {cells}")
            return "\n".join(lines) + "\n"
        if layout != "readable":
            raise ValueError(f"unknown LOS layout {layout!r}: expected readable or bayeselo")
        cell = max(width, len(str(first + count)))
        rank = len(str(first + count))
        lines = [" " * (rank + 1 + name_width) + " | "
                 + " | ".join(f"{q + 1:>{cell}}" for q in shown)]
        lines.append("-" * len(lines[0]))
        for p in shown:  # (the diagonal, and players that never met, are "-")
            cells = " | ".join(
                f"{int(self.los[p, q] * mult):>{cell}}" if p != q and self.met(p, q)
                else f"{'-':>{cell}}" for q in shown)
            lines.append(f"{p + 1:>{rank}} {self.players[p].name:<{name_width}} | {cells}")
        return "\n".join(lines) + "\n"


def _fitted(table: ResultTable, params: BayesEloParams
            ) -> tuple[IntArray, Pairs, bool, MMResult, float]:
    """BayesElo's ``mm`` on a table: its counts, pairs, whether every player is connected,
    the fit and the Elo scale. Raises ``ValueError`` for fewer than two players or
    ratings that would be infinite."""
    names = table.players
    if len(names) < 2:
        raise ValueError("ratings need games between at least two players")
    matrix = table.matrix()
    pairs = mm.condense(matrix, params.prior)
    mm.check_finite(pairs, names)
    connected = mm.connected(pairs)
    fit = mm.fit(pairs, params, connected)
    scale = bayeselo_scale(fit.drawelo) if params.scale is None else params.scale
    return matrix, pairs, connected, fit, scale


def rate_elo(table: ResultTable, params: BayesEloParams | None = None) -> dict[str, float]:
    """Only the BayesElo ratings of a result table, by player name: ``rate``'s ``elo``
    without its intervals, covariance and LOS (a rating history's many points need no
    more). Raises ``ValueError`` as ``rate`` does."""
    params = params or BayesEloParams()
    _, _, _, fit, scale = _fitted(table, params)
    return {name: scale * float(fit.elo[i]) + params.offset
            for i, name in enumerate(table.players)}


def rate(table: ResultTable, params: BayesEloParams | None = None, *,
         intervals: bool = True) -> Ratings:
    """Run BayesElo on a result table: ``mm``, ``exactdist``, ``covariance``, ``los``.

    With ``intervals=False`` the exactdist intervals are skipped (minus / plus are 0).
    """
    params = params or BayesEloParams()
    names = table.players
    matrix, pairs, connected, fit, scale = _fitted(table, params)
    info = _information(pairs, fit.elo, fit.advantage, fit.drawelo)
    cov = _covariance(info, connected)
    n = len(names)
    if intervals:
        minus, plus = _exact_intervals(pairs, fit, info, params)
    else:
        minus = plus = np.zeros(n)
    z = normal_quantile(params.confidence)
    cov_pm = z * np.sqrt(np.maximum(np.diag(cov), 0.0))

    wins = matrix[:, :, 0].sum(axis=1) + matrix[:, :, 2].sum(axis=0)
    draws = matrix[:, :, 1].sum(axis=1) + matrix[:, :, 1].sum(axis=0)
    games = matrix.sum(axis=(1, 2)) + matrix.sum(axis=(0, 2))
    losses = games - wins - draws
    opp_weight = np.bincount(pairs.a, pairs.true_games * fit.elo[pairs.b], n) + np.bincount(
        pairs.b, pairs.true_games * fit.elo[pairs.a], n)
    opponents = np.where(games > 0, opp_weight / np.maximum(games, 1), 0.0)

    order = sorted(range(n), key=lambda i: (-float(fit.elo[i]), names[i]))
    players = tuple(
        PlayerRating(
            rank=rank + 1,
            name=names[i],
            elo=scale * float(fit.elo[i]) + params.offset,
            minus=scale * float(minus[i]),
            plus=scale * float(plus[i]),
            covariance_pm=scale * float(cov_pm[i]),
            games=int(games[i]),
            wins=int(wins[i]),
            draws=int(draws[i]),
            losses=int(losses[i]),
            score=float((wins[i] + 0.5 * draws[i]) / games[i]),
            draw_ratio=float(draws[i] / games[i]),
            opponents_elo=scale * float(opponents[i]) + params.offset,
        )
        for rank, i in enumerate(order))
    index = np.array(order, dtype=np.int64)
    labels = mm.groups(pairs)
    return Ratings(
        players=players,
        covariance=scale * scale * cov[np.ix_(index, index)],
        advantage=fit.advantage,
        drawelo=fit.drawelo,
        prior=params.prior,
        scale=scale,
        offset=params.offset,
        confidence=params.confidence,
        iterations=fit.iterations,
        converged=fit.converged,
        connected=connected,
        _los_of=(fit.elo, cov, index),
        groups=tuple(int(labels[i]) for i in order),
    )
