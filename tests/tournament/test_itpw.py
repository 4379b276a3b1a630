"""ITPW group forming: random groups, the one-game information, the variance-driven groups."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from decimal import Decimal, localcontext

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.tournament.itpw import (
    Result,
    expected_variance_decrease,
    outcome_information,
    random_groups,
    variance_groups,
)
from referee.tournament.ratings import BayesEloParams, ResultTable, rate

C = math.log(10.0) / 400.0
DEFAULTS = BayesEloParams.bayeselo_defaults()


def assert_partition(groups: list[list[str]], players: list[str], size: int) -> None:
    assert all(len(g) == size for g in groups)
    flat = [p for g in groups for p in g]
    assert sorted(flat) == sorted(players)
    assert len(set(flat)) == len(flat)


def play(true: dict[str, float], pairs: list[tuple[str, str]], games: int, seed: int,
         drawelo: float = 97.3) -> list[Result]:
    """``games`` games per pair, seats alternating, outcomes drawn from the model."""
    rng = random.Random(seed)
    out: list[Result] = []
    for a, b in pairs:
        for k in range(games):
            first, second = (a, b) if k % 2 == 0 else (b, a)
            d = true[first] - true[second]
            win = 1 / (1 + 10 ** ((drawelo - d) / 400))
            loss = 1 / (1 + 10 ** ((drawelo + d) / 400))
            u = rng.random()
            out.append((first, second, 1.0 if u < win else 0.0 if u < win + loss else 0.5))
    return out


def round_robin(names: list[str]) -> list[tuple[str, str]]:
    return list(itertools.combinations(names, 2))


# -- random groups -------------------------------------------------------------------------
def test_random_groups_partition_and_reproducible() -> None:
    players = [f"p{i}" for i in range(12)]
    groups = random_groups(players, 4, random.Random(7))
    assert_partition(groups, players, 4)
    assert groups == random_groups(players, 4, random.Random(7))
    assert players == [f"p{i}" for i in range(12)]  # the input is not shuffled in place
    draws = {tuple(map(tuple, random_groups(players, 4, random.Random(s)))) for s in range(20)}
    assert len(draws) > 1  # really random across seeds
    assert_partition(random_groups(players, 3, random.Random(1)), players, 3)
    assert random_groups([], 4, random.Random(1)) == []


@pytest.mark.parametrize("count, size", [(7, 4), (5, 2), (4, 0), (4, -2)])
def test_random_groups_bad_size(count: int, size: int) -> None:
    with pytest.raises(ValueError):
        random_groups([f"p{i}" for i in range(count)], size, random.Random(1))


def test_random_groups_rejects_duplicates() -> None:
    with pytest.raises(ValueError, match="unique"):
        random_groups(["a", "b", "a", "c"], 2, random.Random(1))


# -- one game's outcome and information ------------------------------------------------------
def log_probabilities(diff: Decimal, drawelo: Decimal) -> tuple[Decimal, Decimal, Decimal]:
    """log P(win / draw / loss), BayesElo's literal formulas, in 60-digit decimals."""
    ten = Decimal(10)
    win = 1 / (1 + ten ** ((drawelo - diff) / 400))
    loss = 1 / (1 + ten ** ((drawelo + diff) / 400))
    return win.ln(), (1 - win - loss).ln(), loss.ln()


@pytest.mark.parametrize("drawelo", [97.3, 0.01, 250.0])
@pytest.mark.parametrize("diff", [-900.0, -120.0, 0.0, 37.5, 300.0, 900.0])
def test_outcome_information_matches_the_model(diff: float, drawelo: float) -> None:
    pw, pd, pl, iw, idr, il = outcome_information(diff, drawelo)
    assert pw + pd + pl == pytest.approx(1.0, abs=1e-14)
    assert min(pw, pd, pl) > 0
    assert min(iw, idr, il) >= 0
    assert pw == pytest.approx(1 / (1 + 10 ** ((drawelo - diff) / 400)), rel=1e-12)
    assert pl == pytest.approx(1 / (1 + 10 ** ((drawelo + diff) / 400)), rel=1e-12)
    # observed information = -(second difference of log P), computed to 60 digits
    with localcontext() as ctx:
        ctx.prec = 60
        h = Decimal("0.001")
        d, e = Decimal(diff), Decimal(drawelo)
        below, here, above = (log_probabilities(d + k * h, e) for k in (-1, 0, 1))
        numeric = [float(-(above[o] - 2 * here[o] + below[o]) / (h * h)) for o in range(3)]
    assert iw == pytest.approx(numeric[0], rel=1e-6)
    assert idr == pytest.approx(numeric[1], rel=1e-6)
    assert il == pytest.approx(numeric[2], rel=1e-6)


def test_outcome_information_symmetry() -> None:
    pw, pd, pl, iw, idr, il = outcome_information(150.0, 97.3)
    qw, qd, ql, jw, jdr, jl = outcome_information(-150.0, 97.3)
    assert (pw, pd, pl) == pytest.approx((ql, qd, qw), rel=1e-12)
    assert (iw, idr, il) == pytest.approx((jl, jdr, jw), rel=1e-12)
    # an even game carries the most information: more than a lopsided one
    even = outcome_information(0.0, 97.3)
    expected = [sum(x[k] * x[k + 3] for k in range(3)) for x in (even, (pw, pd, pl, iw, idr, il))]
    assert expected[0] > expected[1]


# -- the Sherman-Morrison step -----------------------------------------------------------------
def laplacian(weights: dict[tuple[int, int], float], n: int) -> np.ndarray:
    info = np.zeros((n, n))
    for (i, j), w in weights.items():
        info[i, i] += w
        info[j, j] += w
        info[i, j] -= w
        info[j, i] -= w
    return info


def brute_force(info: np.ndarray, a: int, b: int, outcome: tuple[float, ...],
                inverse: str) -> float:
    """Add one game's information to the matrix and invert it again, outcome by outcome."""
    invert = np.linalg.inv if inverse == "inv" else np.linalg.pinv
    before = invert(info)[a, a]
    u = np.zeros(len(info))
    u[a], u[b] = 1.0, -1.0
    return sum(p * float(before - invert(info + h * np.outer(u, u))[a, a])
               for p, h in zip(outcome[:3], outcome[3:], strict=True))


WEIGHTS = {(0, 1): 3e-4, (1, 2): 1e-4, (0, 2): 5e-5, (2, 3): 2e-4}


@pytest.mark.parametrize("a, b, diff", [(0, 1, 40.0), (0, 3, -250.0), (3, 1, 600.0),
                                        (2, 1, 0.0)])
def test_expected_variance_decrease_regularised(a: int, b: int, diff: float) -> None:
    info = laplacian(WEIGHTS, 4) + np.diag([1e-5, 2e-5, 1e-5, 3e-5])  # a prior: invertible
    outcome = outcome_information(diff, 97.3)
    got = expected_variance_decrease(np.linalg.inv(info), a, b, outcome[:3], outcome[3:])
    assert got > 0
    assert got == pytest.approx(brute_force(info, a, b, outcome, "inv"), rel=1e-8)


@pytest.mark.parametrize("a, b", [(0, 1), (0, 3), (3, 1), (1, 2)])
def test_expected_variance_decrease_pseudo_inverse(a: int, b: int) -> None:
    """Mean-0 ratings of a connected graph: the covariance is the Laplacian's pseudo-inverse."""
    info = laplacian(WEIGHTS, 4)
    outcome = outcome_information(-75.0, 0.01)
    got = expected_variance_decrease(np.linalg.pinv(info), a, b, outcome[:3], outcome[3:])
    assert got > 0
    assert got == pytest.approx(brute_force(info, a, b, outcome, "pinv"), rel=1e-8)


def test_expected_variance_decrease_needs_two_players() -> None:
    outcome = outcome_information(0.0, 97.3)
    with pytest.raises(ValueError):
        expected_variance_decrease(np.linalg.pinv(laplacian(WEIGHTS, 4)), 2, 2, outcome[:3],
                                   outcome[3:])


# -- variance groups ---------------------------------------------------------------------------
SPREAD = {f"s{k}": 100.0 * (11 - k) for k in range(12)}  # s0 best (1100) ... s11 (0)


def spread_results(seed: int = 0) -> list[Result]:
    return play(SPREAD, round_robin(list(SPREAD)), 30, seed)


def fitted_order(results: list[Result]) -> list[str]:
    return [p.name for p in rate(ResultTable.from_results(results), DEFAULTS,
                                 intervals=False).players]


def test_variance_groups_partition() -> None:
    players = list(SPREAD)
    groups = variance_groups(players, 4, spread_results(), DEFAULTS, {})
    assert_partition(groups, players, 4)
    assert_partition(variance_groups(players, 3, spread_results(), DEFAULTS, {}), players, 3)
    assert_partition(variance_groups(players, 1, spread_results(), DEFAULTS, {}), players, 1)


def test_top_player_meets_close_rivals() -> None:
    results = spread_results()
    players = list(SPREAD)
    assert fitted_order(results) == players  # the data really show the strengths
    groups = variance_groups(players[::-1], 4, results, DEFAULTS, {})
    assert groups[0][0] == "s0"
    assert set(groups[0]) == {"s0", "s1", "s2", "s3"}
    # and each later group is again a band of neighbours
    assert [set(g) for g in groups[1:]] == [{"s4", "s5", "s6", "s7"}, {"s8", "s9", "s10", "s11"}]


def test_met_pairs_are_avoided() -> None:
    players = [f"e{k}" for k in range(8)]
    # everyone drew everyone equally often: all candidates are alike
    results: list[Result] = [(a, b, 0.5) for a, b in round_robin(players) for _ in range(6)]
    baseline = variance_groups(players, 4, results, DEFAULTS, {})
    assert_partition(baseline, players, 4)
    leader, partner = baseline[0][0], baseline[0][1]
    key = frozenset({leader, partner})
    avoided = variance_groups(players, 4, results, DEFAULTS, {key: 10})
    assert avoided[0][0] == leader
    assert partner not in avoided[0]
    # only differences matter: everyone having met equally often changes nothing
    uniform = {frozenset(p): 5 for p in round_robin(players)}
    assert variance_groups(players, 4, results, DEFAULTS, uniform) == baseline


def test_met_is_weighed_against_information() -> None:
    """The met factor divides the score; it does not override it: one meeting more with
    close rivals still beats the lopsided games against players never met."""
    results = spread_results()
    players = list(SPREAD)
    close = {frozenset({"s0", f"s{k}"}): 1 for k in range(1, 9)}
    assert variance_groups(players, 4, results, DEFAULTS, close)[0] == ["s0", "s1", "s2", "s3"]
    # but with the same one meeting more, the better rival s1 is the one dropped
    assert variance_groups(players, 4, results, DEFAULTS,
                           {frozenset({"s0", "s1"}): 1})[0] == ["s0", "s2", "s3", "s4"]
    # only the excess over the least-met candidate counts
    base = {frozenset({"s0", f"s{k}"}): 100 for k in range(1, 12)}
    assert variance_groups(players, 4, results, DEFAULTS,
                           {**base, frozenset({"s0", "s1"}): 101})[0] == ["s0", "s2", "s3", "s4"]
    far = {frozenset({"s0", f"s{k}"}): 1000 for k in range(1, 9)}
    assert variance_groups(players, 4, results, DEFAULTS, far)[0] == ["s0", "s9", "s10", "s11"]


def test_past_results_of_the_pair_shape_the_simulation() -> None:
    """(Nearly) equal ratings; e0 drew all its games with e4..e7 but won and lost against
    e1..e3. Judged by its own past a game with e4..e7 is a likely draw, which says the most
    (a draw's information is the win's plus the loss's); the model alone prefers e1..e3,
    whose decisive games told less so far."""
    params = BayesEloParams(advantage=0.0)
    players = [f"e{k}" for k in range(8)]
    results: list[Result] = [(a, b, 0.5) for a, b in round_robin(players[1:]) for _ in range(6)]
    for k in range(1, 4):
        results += [("e0", f"e{k}", 1.0), (f"e{k}", "e0", 1.0)] * 3
    for k in range(4, 8):
        results += [("e0", f"e{k}", 0.5)] * 6
    results += [("e0", f"e{k}", 1.0) for k in range(1, 8)]  # e0 a little ahead
    ratings = rate(ResultTable.from_results(results), params, intervals=False)
    assert ratings.players[0].name == "e0"
    assert ratings.players[1].elo - ratings.players[-1].elo < 5.0
    past = variance_groups(players, 4, results, params, {}, prior_weight=0.0)[0]
    assert past[0] == "e0"
    assert set(past[1:]) <= {"e4", "e5", "e6", "e7"}
    model = variance_groups(players, 4, results, params, {}, prior_weight=1e9)[0]
    assert model == ["e0", "e1", "e2", "e3"]
    assert variance_groups(players, 4, results, params, {})[0] == past  # 4 virtual games


def test_deterministic() -> None:
    results = play(SPREAD, round_robin(list(SPREAD))[::3], 5, seed=11)
    players = list(SPREAD)
    met = Counter(frozenset((a, b)) for a, b, _ in results)
    first = variance_groups(players, 4, results, DEFAULTS, met)
    assert variance_groups(players, 4, iter(results), DEFAULTS, dict(met)) == first
    shuffled = players[:]
    random.Random(5).shuffle(shuffled)
    # every player has results, so the given order does not matter
    assert variance_groups(shuffled, 4, results, DEFAULTS, met) == first


def test_fallback_without_results() -> None:
    players = [f"n{k}" for k in range(8)]
    assert variance_groups(players, 4, [], DEFAULTS, {}) == [players[:4], players[4:]]
    assert variance_groups(players, 2, iter([]), DEFAULTS, {}) == [
        players[0:2], players[2:4], players[4:6], players[6:8]]


def test_fallback_when_ratings_are_infinite() -> None:
    players = ["a", "b", "c", "d"]
    no_prior = BayesEloParams(prior=0.0)
    results: list[Result] = [("a", "b", 1.0), ("c", "d", 1.0)]
    assert variance_groups(players, 2, results, no_prior, {}) == [["a", "b"], ["c", "d"]]


def test_new_players_go_last() -> None:
    rated = list(SPREAD)[:8]
    newcomers = ["x1", "x2", "x3", "x4"]
    players = [*newcomers[:2], *rated, *newcomers[2:]]
    results = play(SPREAD, round_robin(rated), 20, seed=4)
    groups = variance_groups(players, 4, results, DEFAULTS, {})
    assert_partition(groups, players, 4)
    assert set(groups[0]) == {"s0", "s1", "s2", "s3"}
    assert not set(groups[1]) & set(newcomers)  # the rated ones learn nothing from newcomers
    assert groups[2] == newcomers  # left over: given order


def test_results_of_other_players_are_used() -> None:
    """A player who left still shapes the fit; only the given players are grouped."""
    players = list(SPREAD)[:8]
    results = play(SPREAD, round_robin(list(SPREAD)), 10, seed=8)
    groups = variance_groups(players, 4, results, DEFAULTS, {})
    assert_partition(groups, players, 4)
    assert set(groups[0]) == {"s0", "s1", "s2", "s3"}


def test_disconnected_rating_graph() -> None:
    left = [f"l{k}" for k in range(4)]
    right = [f"r{k}" for k in range(4)]
    true = {**{n: 300.0 * k for k, n in enumerate(left)},
            **{n: 300.0 * k + 150 for k, n in enumerate(right)}}
    results = play(true, round_robin(left) + round_robin(right), 10, seed=2)
    assert not rate(ResultTable.from_results(results), DEFAULTS, intervals=False).connected
    groups = variance_groups(left + right, 4, results, DEFAULTS, {})
    assert_partition(groups, left + right, 4)
    assert groups == variance_groups(left + right, 4, results, DEFAULTS, {})


def test_bad_arguments() -> None:
    results = spread_results()
    with pytest.raises(ValueError):
        variance_groups(list(SPREAD)[:10], 4, results, DEFAULTS, {})
    with pytest.raises(ValueError):
        variance_groups(list(SPREAD), 0, results, DEFAULTS, {})
    with pytest.raises(ValueError, match="unique"):
        variance_groups(["s0", "s1", "s0", "s2"], 2, results, DEFAULTS, {})
    with pytest.raises(ValueError, match="prior_weight"):
        variance_groups(list(SPREAD), 4, results, DEFAULTS, {}, prior_weight=-1.0)


def test_prior_weight_zero_uses_the_past_alone() -> None:
    groups = variance_groups(list(SPREAD), 4, spread_results(), DEFAULTS, {}, prior_weight=0.0)
    assert_partition(groups, list(SPREAD), 4)
    assert set(groups[0]) == {"s0", "s1", "s2", "s3"}


def test_hundred_players() -> None:
    # the time this takes is measured by benchmarks/bench_itpw_groups.py
    rng = random.Random(9)
    true = {f"p{k:03d}": rng.gauss(0.0, 200.0) for k in range(100)}
    names = list(true)
    pairs = [(g[i], g[j]) for _ in range(20) for g in random_groups(names, 4, rng)
             for i, j in itertools.combinations(range(4), 2)]
    results = play(true, pairs, 4, seed=10)
    met = Counter(frozenset((a, b)) for a, b, _ in results)
    groups = variance_groups(names, 4, results, DEFAULTS, met)
    assert_partition(groups, names, 4)
    assert groups == variance_groups(names, 4, reversed(results), DEFAULTS, dict(met))
    # the best rated player heads the first group
    ratings = rate(ResultTable.from_results(results), DEFAULTS, intervals=False)
    assert groups[0][0] == ratings.players[0].name


# -- property ----------------------------------------------------------------------------------
NAMES = [f"h{k}" for k in range(10)]


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[str], int, list[Result], dict[frozenset[str], int]]:
    size = draw(st.sampled_from([1, 2, 3, 4]))
    count = size * draw(st.integers(0, 10 // size))
    players = draw(st.permutations(NAMES)).copy()[:count]
    pool = [*NAMES, "gone"]  # results may involve players not being grouped
    pair = st.tuples(st.sampled_from(pool), st.sampled_from(pool)).filter(lambda p: p[0] != p[1])
    results = [(a, b, s) for (a, b), s in draw(st.lists(
        st.tuples(pair, st.sampled_from([1.0, 0.5, 0.0])), max_size=40))]
    met = draw(st.dictionaries(st.frozensets(st.sampled_from(pool), min_size=2, max_size=2),
                               st.integers(0, 20), max_size=10))
    return players, size, results, met


@settings(max_examples=80)
@given(scenarios(), st.sampled_from([DEFAULTS, BayesEloParams.gomocup(),
                                     BayesEloParams(prior=0.0)]),
       st.sampled_from([0.0, 4.0]))
def test_any_results_give_a_partition(
        scenario: tuple[list[str], int, list[Result], dict[frozenset[str], int]],
        params: BayesEloParams, prior_weight: float) -> None:
    players, size, results, met = scenario
    groups = variance_groups(players, size, results, params, met, prior_weight)
    assert_partition(groups, players, size)
    assert groups == variance_groups(players, size, results, params, met, prior_weight)
