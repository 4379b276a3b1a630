"""Head-to-head statistics against fastchess' reference numbers and independent derivations."""

from __future__ import annotations

import math
import random

import pytest

from referee.tournament.stats import (
    SPRT,
    HeadToHead,
    Pentanomial,
    SprtVerdict,
    Trinomial,
    elo_pentanomial,
    elo_to_score,
    elo_wdl,
    score_to_elo,
)


# -- fastchess' own test values (tests/sprt_test.cpp, tests/elo_test.cpp) -----------------------
@pytest.mark.parametrize(("wins", "losses", "draws", "elo0", "elo1", "model", "llr"), [
    (36433, 36027, 68692, 0, 2, "normalized", 0.92),
    (10871, 10650, 20431, -1.75, 0.25, "normalized", 2.30),
    (21404, 21184, 40708, 0.5, 2.5, "logistic", -1.57),
    (57433, 57030, 106593, 0, 2, "logistic", -2.59),
    (68965, 68526, 128429, 0, 2, "bayesian", -1.26),
    (21629, 21484, 41111, 0.5, 2.5, "bayesian", -1.13),
])
def test_trinomial_llr_matches_fastchess(wins: int, losses: int, draws: int, elo0: float,
                                         elo1: float, model: str, llr: float) -> None:
    sprt = SPRT(elo0, elo1, 0.05, 0.05, model)  # type: ignore[arg-type]
    assert sprt.llr(wins, draws, losses) == pytest.approx(llr, rel=0.01)


@pytest.mark.parametrize(("counts", "elo0", "elo1", "model", "llr"), [
    ((365, 16618, 36029, 200, 16974, 390), 0, 2, "normalized", 2.25),
    ((127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
    ((223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
    ((871, 26175, 55003, 980, 26678, 821), 0, 2, "logistic", -4.98),
])
def test_pentanomial_llr_matches_fastchess(counts: tuple[int, ...], elo0: float, elo1: float,
                                           model: str, llr: float) -> None:
    sprt = SPRT(elo0, elo1, 0.05, 0.05, model)  # type: ignore[arg-type]
    assert sprt.llr_pentanomial(Pentanomial(*counts)) == pytest.approx(llr, rel=0.01)


@pytest.mark.parametrize(("wins", "losses", "draws", "elo", "error"), [
    (0, 36, 14, -315.34, 95.43),
    (859, 772, 1329, 10.21, 9.28),
    (1164, 1267, 3049, -6.53, 6.12),
])
def test_elo_matches_fastchess(wins: int, losses: int, draws: int, elo: float,
                               error: float) -> None:
    estimate = elo_wdl(wins, draws, losses)
    assert estimate.elo == pytest.approx(elo, rel=0.01)
    assert estimate.elo_error == pytest.approx(error, rel=0.01)


# -- independent derivations ----------------------------------------------------------------
def constrained_mle_trinomial(counts: tuple[int, int, int], s: float) -> list[float]:
    """max sum n_i log p_i over (pL, pD, pW) with pW + pD/2 = s, by golden-section on pD."""
    n_l, n_d, n_w = counts

    def probs(pd: float) -> tuple[float, float, float]:
        pw = s - pd / 2
        return 1 - pw - pd, pd, pw

    def ll(pd: float) -> float:
        return sum(n * math.log(p) for n, p in zip(counts, probs(pd), strict=True))

    lo, hi = 1e-12, min(2 * s, 2 * (1 - s)) - 1e-12
    g = (math.sqrt(5) - 1) / 2
    for _ in range(300):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        lo, hi = (lo, b) if ll(a) > ll(b) else (a, hi)
    assert n_l + n_d + n_w > 0
    return list(probs((lo + hi) / 2))


def test_logistic_llr_is_the_constrained_likelihood_ratio() -> None:
    wins, draws, losses = 1200, 2300, 1100
    sprt = SPRT(0.0, 5.0, model="logistic")
    p0 = constrained_mle_trinomial((losses, draws, wins), elo_to_score(0.0))
    p1 = constrained_mle_trinomial((losses, draws, wins), elo_to_score(5.0))
    expected = sum(n * math.log(b / a) for n, a, b in zip((losses, draws, wins), p0, p1,
                                                           strict=True))
    assert sprt.llr(wins, draws, losses) == pytest.approx(expected, rel=1e-6)


def test_normalized_llr_close_to_fishtest_approximation() -> None:
    """fishtest's LLR_normalized_alt: (N/2) log((1 + (t - t0)^2) / (1 + (t - t1)^2))."""
    wins, draws, losses = 5100, 9800, 4900
    sprt = SPRT(0.0, 2.0)
    games = wins + draws + losses
    score = (wins + draws / 2) / games
    var = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / games
    t = (score - 0.5) / math.sqrt(var)
    t0, t1 = 0.0, 2.0 / (800 / math.log(10))
    approx = games / 2 * math.log((1 + (t - t0) ** 2) / (1 + (t - t1) ** 2))
    assert sprt.llr(wins, draws, losses) == pytest.approx(approx, rel=0.02)


def test_estimate_formulas() -> None:
    est = elo_wdl(60, 30, 10)
    score = 0.75
    var = (0.6 * 0.25**2 + 0.3 * 0.25**2 + 0.1 * 0.75**2)
    assert est.score == score and est.variance == pytest.approx(var)
    assert est.elo == pytest.approx(-400 * math.log10(1 / score - 1))
    half = 1.959963984540054 * math.sqrt(var / 100)
    assert est.elo_error == pytest.approx((score_to_elo(score + half)
                                           - score_to_elo(score - half)) / 2)
    assert est.nelo == pytest.approx(0.25 / math.sqrt(var) * 800 / math.log(10))
    assert est.los == pytest.approx(0.5 * math.erfc(-0.25 / math.sqrt(var / 100) / math.sqrt(2)))
    assert est.draw_ratio == pytest.approx(0.3)
    assert "Elo: 190.85 +/- " in str(est)


def test_degenerate_counts() -> None:
    assert elo_wdl(0, 10, 0).los == 0.5
    assert elo_wdl(5, 0, 0).elo == math.inf and elo_wdl(5, 0, 0).los == 1.0
    assert elo_wdl(0, 0, 5).elo == -math.inf
    assert math.isnan(score_to_elo(1.2))
    with pytest.raises(ValueError):
        elo_wdl(0, 0, 0)
    with pytest.raises(ValueError):
        elo_pentanomial((0, 0, 0, 0, 0))


def test_pentanomial_counting() -> None:
    penta = Pentanomial.from_pairs([(1, 0), (0.5, 0.5), (1, 1), (0, 0.5), (0.5, 1), (0, 0)])
    assert penta == Pentanomial(ll=1, ld=1, wl=1, dd=1, wd=1, ww=1)
    assert penta.buckets() == (1, 1, 2, 1, 1)
    assert penta.trinomial() == Trinomial(4, 4, 4)
    assert Trinomial.from_scores([1, 0.5, 0, 1]) == Trinomial(2, 1, 1)
    assert elo_pentanomial(penta).score == 0.5
    assert elo_pentanomial(penta).elo == elo_pentanomial([1, 1, 2, 1, 1]).elo


# -- simulations ------------------------------------------------------------------------------
def play(rng: random.Random, elo: float, draw: float = 0.4) -> float:
    """One game of the player under test: draws ``draw`` of the time, the rest per Elo."""
    win = elo_to_score(elo) - draw / 2
    u = rng.random()
    return 1.0 if u < win else 0.5 if u < win + draw else 0.0


def run_sprt(sprt: SPRT, elo: float, seed: int, pentanomial: bool) -> tuple[SprtVerdict, int]:
    rng = random.Random(seed)
    scores: list[float] = []
    pairs: list[tuple[float, float]] = []
    for games in range(2, 200_001, 2):
        pair = (play(rng, elo), play(rng, elo))
        pairs.append(pair)
        scores.extend(pair)
        if games % 200:
            continue
        result = (Pentanomial.from_pairs(pairs) if pentanomial
                  else Trinomial.from_scores(scores))
        verdict = sprt.verdict(result)
        if verdict is not SprtVerdict.CONTINUE:
            return verdict, games
    return SprtVerdict.CONTINUE, 200_000


@pytest.mark.parametrize("pentanomial", [False, True])
def test_sprt_accepts_h1_for_a_clearly_stronger_player(pentanomial: bool) -> None:
    sprt = SPRT(0.0, 10.0, model="logistic")
    verdict, _ = run_sprt(sprt, 60.0, seed=1, pentanomial=pentanomial)
    assert verdict is SprtVerdict.H1


@pytest.mark.parametrize("model", ["normalized", "logistic"])
def test_sprt_accepts_h0_for_equal_players(model: str) -> None:
    sprt = SPRT(0.0, 15.0, model=model)  # type: ignore[arg-type]
    verdict, _ = run_sprt(sprt, 0.0, seed=2, pentanomial=True)
    assert verdict is SprtVerdict.H0


def test_bounds_and_verdicts() -> None:
    sprt = SPRT(0.0, 5.0, alpha=0.05, beta=0.05)
    assert sprt.lower == pytest.approx(math.log(0.05 / 0.95))
    assert sprt.upper == pytest.approx(math.log(0.95 / 0.05))
    assert sprt.verdict(3.0) is SprtVerdict.H1
    assert sprt.verdict(-3.0) is SprtVerdict.H0
    assert sprt.verdict(0.0) is SprtVerdict.CONTINUE
    assert str(SprtVerdict.H1) == "H1 accepted"
    for bad in [(5.0, 0.0), (0.0, 5.0, 0.0), (0.0, 5.0, 0.6, 0.5)]:
        with pytest.raises(ValueError):
            SPRT(*bad)
    with pytest.raises(ValueError):
        SPRT(0.0, 5.0, model="bayesian").llr_pentanomial((1, 2, 3, 2, 1))


def test_pentanomial_and_trinomial_agree_on_independent_pairs() -> None:
    rng = random.Random(7)
    pairs = [(play(rng, 20.0), play(rng, 20.0)) for _ in range(40_000)]
    penta = Pentanomial.from_pairs(pairs)
    tri = penta.trinomial()
    by_pair, by_game = elo_pentanomial(penta), elo_wdl(*tri)
    assert by_pair.score == pytest.approx(by_game.score, abs=1e-12)
    assert by_pair.elo == pytest.approx(by_game.elo, abs=1e-9)
    assert by_pair.elo_error == pytest.approx(by_game.elo_error, rel=0.05)
    assert by_pair.nelo == pytest.approx(by_game.nelo, rel=0.05)
    assert by_pair.los == pytest.approx(by_game.los, abs=0.01)
    sprt = SPRT(0.0, 10.0)
    assert sprt.llr_pentanomial(penta) == pytest.approx(sprt.llr(*tri), rel=0.1)


def test_verdict_from_games_uses_pairs() -> None:
    sprt = SPRT(0.0, 10.0, model="logistic")
    games = []
    for k in range(600):
        games.append((("new", "old"), (1.0, 0.0), f"p{k}"))
        games.append((("old", "new"), (0.5, 0.5), f"p{k}"))
    assert sprt.verdict_from_games(games, "new") == "H1 accepted"
    assert sprt.verdict_from_games(games[:2], "new") is None
    assert sprt.verdict_from_games([], "new") is None
    lone = [(("old", "new"), (1.0, 0.0), None)] * 400
    assert sprt.verdict_from_games(lone, "new") == "H0 accepted"


def test_head_to_head_counts_pairs_singles_and_unfinished_pairs() -> None:
    match = HeadToHead("new")
    assert match.estimate() is None and match.verdict(SPRT(0, 10)) is None
    assert match.summary() == "new: no games yet"
    match.add(("new", "old"), (1.0, 0.0), "p1")
    assert match.pentanomial().pairs == 0 and match.trinomial() == (1, 0, 0)
    match.add(("old", "new"), (0.5, 0.5), "p1")  # completes p1: a WD pair
    match.add(("old", "new"), (1.0, 0.0), "p2")  # p2 still open: a loss
    match.add(("new", "old"), (0.0, 1.0), None)  # a lone game: a loss
    match.add(("x", "y"), (1.0, 0.0), None)  # not the player's game
    match.add(("new", "a", "b"), (1.0, 0.0, 0.0), None)  # not a two-seat game
    assert match.pentanomial() == Pentanomial(0, 0, 0, 0, 1, 0)
    assert match.trinomial() == Trinomial(1, 1, 2) and match.games == 4
    estimate = match.estimate()
    assert estimate is not None and estimate.samples == 1  # one complete pair
    assert "Ptnml(0-2): 0, 0, 0, 1, 0" in match.summary()
    assert "games 4, W 1 D 1 L 2" in match.summary()


def test_head_to_head_without_pairs_uses_games_and_finds_the_verdict() -> None:
    match = HeadToHead("new")
    for _ in range(400):
        match.add(("old", "new"), (1.0, 0.0), None)
    estimate = match.estimate()
    assert estimate is not None and estimate.samples == 400 and estimate.score == 0.0
    assert match.verdict(SPRT(0.0, 10.0)) == "H0 accepted"
