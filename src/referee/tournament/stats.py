"""Head-to-head statistics as fastchess reports them: Elo, nElo, LOS and the SPRT.

Definitions (fastchess ``elo_wdl.cpp``, ``elo_pentanomial.cpp``, ``sprt.cpp``; fishtest
``LLRcalc.py``):

* **Elo** is logistic Elo: ``-400 log10(1/score - 1)``; its error bar is half the distance
  between the Elo of ``score +- 1.959963984540054 * sqrt(variance / N)``, where ``N`` is the
  number of games (trinomial) or game pairs (pentanomial) and ``variance`` is the empirical
  variance of one game's score (trinomial) or of one pair's mean score (pentanomial).
* **nElo** (normalized Elo): ``(score - 0.5) / sigma * 800 / ln 10`` with ``sigma`` the
  standard deviation of one game's score: ``sqrt(variance)`` (trinomial) or
  ``sqrt(2 * pair variance)`` (pentanomial); error bar computed like Elo's.
* **LOS**: ``(1 - erf(-(score - 0.5) / sqrt(2 variance / N))) / 2``.
* **Pentanomial**: pairs of games on one opening with colours swapped; a pair scores 0, 0.5,
  1, 1.5 or 2 points (LL, LD, WL or DD, WD, WW), i.e. a mean of 0, 0.25, 0.5, 0.75, 1.
* **SPRT** (generalised SPRT, Michel Van den Bergh's MLE method as in fishtest and
  fastchess): zero counts are replaced by 1e-3; for hypothesis ``k`` the maximum-likelihood
  distribution of the outcomes under the constraint ``expected score = L(elo_k)`` (model
  ``logistic``) or ``(mu - 0.5) / sigma = t_k`` (model ``normalized``, fastchess' default,
  ``t = nElo / (800 / ln 10)``, times ``sqrt 2`` for pentanomial counts) is found by solving
  the secular equation; ``LLR = N * sum(p_hat_i * log(p1_i / p0_i))``. Model ``bayesian``
  (trinomial only) converts the bounds through a drawelo estimated from the counts. Bounds
  are ``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``; H1 is accepted at or
  above the upper bound, H0 at or below the lower one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Literal, NamedTuple

__all__ = [
    "CI95_Z",
    "SPRT",
    "EloEstimate",
    "HeadToHead",
    "Pentanomial",
    "SprtVerdict",
    "Trinomial",
    "elo_pentanomial",
    "elo_to_score",
    "elo_wdl",
    "score_to_elo",
]

CI95_Z = 1.959963984540054
NELO_PER_T = 800.0 / math.log(10.0)  # 347.43558552260146
SprtModel = Literal["normalized", "logistic", "bayesian"]


# -- counts ----------------------------------------------------------------------------------
class Trinomial(NamedTuple):
    """Wins, draws and losses of the player under test."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        """Number of games."""
        return self.wins + self.draws + self.losses

    @classmethod
    def from_scores(cls, scores: Iterable[float]) -> Trinomial:
        """Count game scores of the player under test (1, 0.5 or 0)."""
        w = d = lo = 0
        for s in scores:
            if s > 0.5:
                w += 1
            elif s < 0.5:
                lo += 1
            else:
                d += 1
        return cls(w, d, lo)


class Pentanomial(NamedTuple):
    """Game pairs (colours swapped) by outcome of the player under test, fastchess' six."""

    ll: int
    ld: int
    wl: int
    dd: int
    wd: int
    ww: int

    @property
    def pairs(self) -> int:
        """Number of game pairs."""
        return self.ll + self.ld + self.wl + self.dd + self.wd + self.ww

    def buckets(self) -> tuple[int, int, int, int, int]:
        """Pairs scoring 0, 0.5, 1, 1.5, 2 points (fishtest's five frequencies)."""
        return (self.ll, self.ld, self.wl + self.dd, self.wd, self.ww)

    def trinomial(self) -> Trinomial:
        """The same games counted one by one."""
        return Trinomial(wins=self.wl + self.wd + 2 * self.ww,
                         draws=self.ld + 2 * self.dd + self.wd,
                         losses=2 * self.ll + self.ld + self.wl)

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[float, float]]) -> Pentanomial:
        """Count pairs of game scores of the player under test (each 1, 0.5 or 0)."""
        counts = {"ll": 0, "ld": 0, "wl": 0, "dd": 0, "wd": 0, "ww": 0}
        for first, second in pairs:
            kinds = sorted("w" if s > 0.5 else "l" if s < 0.5 else "d" for s in (first, second))
            key = {"ll": "ll", "dl": "ld", "lw": "wl", "dd": "dd", "dw": "wd",
                   "ww": "ww"}["".join(kinds)]
            counts[key] += 1
        return cls(**counts)


# -- Elo estimates ---------------------------------------------------------------------------
def score_to_elo(score: float) -> float:
    """Logistic Elo difference of an expected score (+-inf at 1 / 0, nan outside [0, 1])."""
    if math.isnan(score) or score < 0.0 or score > 1.0:
        return math.nan
    if score == 1.0:
        return math.inf
    if score == 0.0:
        return -math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_to_score(elo: float) -> float:
    """Expected score of a logistic Elo difference: ``1 / (1 + 10^(-elo/400))``."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def _div(x: float, y: float) -> float:
    """IEEE division (as C++ gives it): x/0 is +-inf, 0/0 is nan."""
    if y != 0.0:
        return x / y
    if x == 0.0 or math.isnan(x):
        return math.nan
    return math.copysign(math.inf, x)


@dataclass(frozen=True)
class EloEstimate:
    """A head-to-head result as fastchess prints it (Elo, nElo, LOS), 95 % error bars."""

    elo: float
    elo_error: float
    nelo: float
    nelo_error: float
    los: float
    score: float
    draw_ratio: float
    variance: float
    samples: int

    def __str__(self) -> str:
        """``Elo: x +/- y, nElo: x +/- y, LOS: z %`` with fastchess' two decimals."""
        return (f"Elo: {self.elo:.2f} +/- {self.elo_error:.2f}, "
                f"nElo: {self.nelo:.2f} +/- {self.nelo_error:.2f}, LOS: {100 * self.los:.2f} %")


def _estimate(score: float, variance: float, samples: int, sigma: float,
              draw_ratio: float) -> EloEstimate:
    per_sample = variance / samples
    half = CI95_Z * math.sqrt(per_sample)
    upper, lower = score + half, score - half
    elo = score_to_elo(score)
    elo_error = (score_to_elo(upper) - score_to_elo(lower)) / 2.0
    nelo = _div(score - 0.5, sigma) * NELO_PER_T
    nelo_error = (_div(upper - 0.5, sigma) - _div(lower - 0.5, sigma)) / 2.0 * NELO_PER_T
    x = _div(-(score - 0.5), math.sqrt(2.0 * per_sample))
    los = 0.5 if math.isnan(x) else (1.0 - math.erf(x)) / 2.0
    return EloEstimate(elo, elo_error, nelo, nelo_error, los, score, draw_ratio, variance,
                       samples)


def elo_wdl(wins: int, draws: int, losses: int) -> EloEstimate:
    """Elo / nElo / LOS from game counts (fastchess' ``EloWDL``)."""
    games = wins + draws + losses
    if games <= 0:
        raise ValueError("no games")
    w, d, lo = wins / games, draws / games, losses / games
    score = w + 0.5 * d
    variance = w * (1 - score) ** 2 + d * (0.5 - score) ** 2 + lo * score**2
    return _estimate(score, variance, games, math.sqrt(variance), d)


def elo_pentanomial(penta: Pentanomial | Sequence[int]) -> EloEstimate:
    """Elo / nElo / LOS from game-pair counts (fastchess' ``EloPentanomial``).

    ``penta`` is a :class:`Pentanomial` or fishtest's five frequencies (pairs scoring 0,
    0.5, 1, 1.5, 2 points).
    """
    buckets = penta.buckets() if isinstance(penta, Pentanomial) else tuple(penta)
    if len(buckets) != 5:
        raise ValueError("pentanomial counts need five frequencies")
    pairs = sum(buckets)
    if pairs <= 0:
        raise ValueError("no game pairs")
    p = [c / pairs for c in buckets]
    values = (0.0, 0.25, 0.5, 0.75, 1.0)
    score = sum(pi * a for pi, a in zip(p, values, strict=True))
    variance = sum(pi * (a - score) ** 2 for pi, a in zip(p, values, strict=True))
    if isinstance(penta, Pentanomial):
        draws = (penta.ld + 2 * penta.dd + penta.wd) / (2 * pairs)
    else:
        draws = math.nan
    return _estimate(score, variance, pairs, math.sqrt(2.0 * variance), draws)


# -- generalised SPRT ------------------------------------------------------------------------
def _regularize(counts: Sequence[float]) -> list[float]:
    return [c if c != 0 else 1e-3 for c in counts]


def _secular(weights: Sequence[float], values: Sequence[float]) -> float:
    """Root of ``sum_i w_i v_i / (1 + x v_i) = 0`` between ``-1/max v`` and ``-1/min v``."""
    lo_v, hi_v = min(values), max(values)
    if not (lo_v < 0.0 < hi_v):
        raise ValueError("the hypothesis is outside the range of the outcomes")
    lower, upper = -1.0 / hi_v, -1.0 / lo_v

    def f(x: float) -> float:
        return sum(w * v / (1.0 + x * v) for w, v in zip(weights, values, strict=True))

    # f decreases from +inf at ``lower`` to -inf at ``upper``: bisect to machine precision
    a, b = lower, upper
    for _ in range(200):
        mid = (a + b) / 2.0
        if mid in (a, b):
            break
        if f(mid) > 0.0:
            a = mid
        else:
            b = mid
    return (a + b) / 2.0


def _mle_expected(p_hat: Sequence[float], values: Sequence[float], s: float) -> list[float]:
    """Most likely distribution with expected value ``s`` given frequencies ``p_hat``."""
    shifted = [a - s for a in values]
    x = _secular(p_hat, shifted)
    return [p / (1.0 + x * a) for p, a in zip(p_hat, shifted, strict=True)]


def _mle_t_value(p_hat: Sequence[float], values: Sequence[float], ref: float,
                 t: float) -> list[float]:
    """Most likely distribution with ``(mu - ref) / sigma = t`` given frequencies ``p_hat``."""
    n = len(values)
    p = [1.0 / n] * n
    for _ in range(100):
        mu = sum(pi * a for pi, a in zip(p, values, strict=True))
        sigma = math.sqrt(sum(pi * (a - mu) ** 2 for pi, a in zip(p, values, strict=True)))
        phi = [a - ref - t * sigma * (1.0 + ((a - mu) / sigma) ** 2) / 2.0 for a in values]
        x = _secular(p_hat, phi)
        new = [ph / (1.0 + x * f) for ph, f in zip(p_hat, phi, strict=True)]
        change = max(abs(u - v) for u, v in zip(new, p, strict=True))
        p = new
        if change < 1e-12:
            break
    return p


def _gllr(counts: Sequence[float], p0: Sequence[float], p1: Sequence[float]) -> float:
    return sum(c * (math.log(b) - math.log(a)) for c, a, b in zip(counts, p0, p1, strict=True))


class SprtVerdict(Enum):
    """Outcome of an SPRT so far."""

    H0 = "H0 accepted"
    H1 = "H1 accepted"
    CONTINUE = "continue"

    def __str__(self) -> str:
        """The readable value."""
        return self.value


class SPRT:
    """Sequential probability ratio test of ``elo0`` (H0) against ``elo1`` (H1), fastchess' way.

    ``model`` is ``"normalized"`` (fastchess' default; bounds in nElo), ``"logistic"``
    (logistic Elo) or ``"bayesian"`` (BayesElo bounds, trinomial only).
    """

    def __init__(self, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05,
                 model: SprtModel = "normalized") -> None:
        """Check the parameters as fastchess does and compute the bounds."""
        if not elo0 < elo1:
            raise ValueError("elo0 must be less than elo1")
        if not 0.0 < alpha < 1.0 or not 0.0 < beta < 1.0:
            raise ValueError("alpha and beta must be between 0 and 1")
        if alpha + beta >= 1.0:
            raise ValueError("the sum of alpha and beta must be less than 1")
        if model not in ("normalized", "logistic", "bayesian"):
            raise ValueError(f"unknown SPRT model {model!r}")
        self.elo0 = elo0
        self.elo1 = elo1
        self.alpha = alpha
        self.beta = beta
        self.model: SprtModel = model
        self.lower = math.log(beta / (1.0 - alpha))
        self.upper = math.log((1.0 - beta) / alpha)

    def describe(self, llr: float) -> str:
        """fastchess' SPRT line: ``LLR: x (lower, upper) [elo0, elo1]``."""
        return (f"LLR: {llr:.2f} ({self.lower:.2f}, {self.upper:.2f}) "
                f"[{self.elo0:g}, {self.elo1:g}]")

    def __repr__(self) -> str:
        """Parameters, for logs."""
        return (f"SPRT(elo0={self.elo0}, elo1={self.elo1}, alpha={self.alpha}, "
                f"beta={self.beta}, model={self.model!r})")

    def llr(self, wins: int, draws: int, losses: int) -> float:
        """Log-likelihood ratio of game counts of the player under test."""
        counts = _regularize([losses, draws, wins])
        total = sum(counts)
        p_hat = [c / total for c in counts]
        values = (0.0, 0.5, 1.0)
        if self.model == "normalized":
            t0, t1 = self.elo0 / NELO_PER_T, self.elo1 / NELO_PER_T
            p0 = _mle_t_value(p_hat, values, 0.5, t0)
            p1 = _mle_t_value(p_hat, values, 0.5, t1)
        else:
            if self.model == "bayesian":
                if wins == 0 or losses == 0:
                    return 0.0
                loss_p, win_p = p_hat[0], p_hat[2]
                drawelo = 200.0 * math.log10((1 - loss_p) / loss_p * (1 - win_p) / win_p)
                s0 = _bayeselo_score(self.elo0, drawelo)
                s1 = _bayeselo_score(self.elo1, drawelo)
            else:
                s0, s1 = elo_to_score(self.elo0), elo_to_score(self.elo1)
            p0 = _mle_expected(p_hat, values, s0)
            p1 = _mle_expected(p_hat, values, s1)
        return _gllr(counts, p0, p1)

    def llr_pentanomial(self, penta: Pentanomial | Sequence[int]) -> float:
        """Log-likelihood ratio of game-pair counts (a :class:`Pentanomial` or five counts)."""
        if self.model == "bayesian":
            raise ValueError("the bayesian model has no pentanomial form")
        buckets = penta.buckets() if isinstance(penta, Pentanomial) else tuple(penta)
        if len(buckets) != 5:
            raise ValueError("pentanomial counts need five frequencies")
        counts = _regularize(buckets)
        total = sum(counts)
        p_hat = [c / total for c in counts]
        values = (0.0, 0.25, 0.5, 0.75, 1.0)
        if self.model == "normalized":
            root2 = math.sqrt(2.0)
            t0, t1 = root2 * self.elo0 / NELO_PER_T, root2 * self.elo1 / NELO_PER_T
            p0 = _mle_t_value(p_hat, values, 0.5, t0)
            p1 = _mle_t_value(p_hat, values, 0.5, t1)
        else:
            p0 = _mle_expected(p_hat, values, elo_to_score(self.elo0))
            p1 = _mle_expected(p_hat, values, elo_to_score(self.elo1))
        return _gllr(counts, p0, p1)

    def verdict(self, result: float | Trinomial | Pentanomial) -> SprtVerdict:
        """H1 / H0 accepted or continue, from an LLR or from counts."""
        if isinstance(result, Pentanomial):
            llr = self.llr_pentanomial(result)
        elif isinstance(result, Trinomial):
            llr = self.llr(result.wins, result.draws, result.losses)
        else:
            llr = float(result)
        if llr >= self.upper:
            return SprtVerdict.H1
        if llr <= self.lower:
            return SprtVerdict.H0
        return SprtVerdict.CONTINUE

    def verdict_from_games(self, games: Iterable[tuple[Sequence[str], Sequence[float],
                                                        str | None]],
                           player: str) -> str | None:
        """The verdict for ``player`` from ``(seats, scores, pair key)`` of finished games.

        See :class:`HeadToHead` for how games are counted. Returns the verdict's text, or
        None while the test goes on.
        """
        match = HeadToHead(player)
        for seats, scores, pair in games:
            match.add(seats, scores, pair)
        return match.verdict(self)


class HeadToHead:
    """Running counts of one player's games against the others, fed one game at a time.

    Games of a pair (same pair key, colours swapped) count as pentanomial pairs once both
    are finished, as fastchess reports them; the games of unfinished pairs and games
    without a pair key count one by one (trinomial). While no pair is complete, the whole
    match is counted one game at a time.
    """

    def __init__(self, player: str) -> None:
        """Counts for ``player`` (its opponents are whoever sits in the other seat)."""
        self.player = player
        self._singles = [0, 0, 0]  # wins, draws, losses of games without a pair key
        self._open: dict[str, float] = {}  # pair key -> score of its first finished game
        self._pairs = {"ll": 0, "ld": 0, "wl": 0, "dd": 0, "wd": 0, "ww": 0}

    def add(self, seats: Sequence[str], scores: Sequence[float], pair: str | None) -> None:
        """Count one finished two-seat game (others, or without ``player``, are ignored)."""
        if len(seats) != 2 or len(scores) != 2 or self.player not in seats:
            return
        score = float(scores[list(seats).index(self.player)])
        if pair is None:
            self._singles[0 if score > 0.5 else 2 if score < 0.5 else 1] += 1
            return
        first = self._open.pop(pair, None)
        if first is None:
            self._open[pair] = score
            return
        counted = Pentanomial.from_pairs([(first, score)])
        for key, value in counted._asdict().items():
            self._pairs[key] += value

    def pentanomial(self) -> Pentanomial:
        """The complete pairs."""
        return Pentanomial(**self._pairs)

    def trinomial(self) -> Trinomial:
        """Every game, counted one by one."""
        loose = Trinomial.from_scores(self._open.values())
        paired = self.pentanomial().trinomial()
        return Trinomial(*(a + b + c for a, b, c in zip(self._singles, loose, paired,
                                                         strict=True)))

    @property
    def games(self) -> int:
        """Games counted."""
        return self.trinomial().games

    def estimate(self) -> EloEstimate | None:
        """Elo, nElo and LOS: pentanomial once a pair is complete, else from the games."""
        penta = self.pentanomial()
        if penta.pairs:
            return elo_pentanomial(penta)
        tri = self.trinomial()
        return elo_wdl(*tri) if tri.games else None

    def llr(self, sprt: SPRT) -> float | None:
        """The SPRT's log-likelihood ratio so far (None before any game).

        Pentanomial once a pair is complete (except for the bayesian model), else from
        the games one by one.
        """
        penta = self.pentanomial()
        if penta.pairs and sprt.model != "bayesian":
            return sprt.llr_pentanomial(penta)
        tri = self.trinomial()
        return sprt.llr(*tri) if tri.games else None

    def verdict(self, sprt: SPRT) -> str | None:
        """The SPRT's verdict as text, or None while it goes on (or before any game)."""
        llr = self.llr(sprt)
        if llr is None:
            return None
        verdict = sprt.verdict(llr)
        return None if verdict is SprtVerdict.CONTINUE else verdict.value

    def summary(self) -> str:
        """fastchess-style lines: games and W/D/L, Elo / nElo / LOS, pentanomial counts."""
        tri = self.trinomial()
        estimate = self.estimate()
        if estimate is None:
            return f"{self.player}: no games yet"
        score = 100.0 * (tri.wins + 0.5 * tri.draws) / tri.games
        lines = [f"{self.player}: games {tri.games}, W {tri.wins} D {tri.draws} L {tri.losses}"
                 f" (score {score:.1f} %)", str(estimate)]
        penta = self.pentanomial()
        if penta.pairs:
            lines.append("Ptnml(0-2): " + ", ".join(str(c) for c in penta.buckets()))
        return "\n".join(lines)


def _bayeselo_score(bayeselo: float, drawelo: float) -> float:
    win = 1.0 / (1.0 + math.pow(10.0, (-bayeselo + drawelo) / 400.0))
    loss = 1.0 / (1.0 + math.pow(10.0, (bayeselo + drawelo) / 400.0))
    return win + 0.5 * (1.0 - win - loss)
