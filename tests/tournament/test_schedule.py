"""Schedules: who meets whom, colours swapped in pairs, stable keys and seeds."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from referee.tournament.schedule import Gauntlet, RoundRobin, Swiss, derive_seed, make_schedule

PLAYERS = ["a", "b", "c", "d"]


def test_round_robin_plays_every_opening_with_both_colours() -> None:
    schedule = RoundRobin(PLAYERS, rounds=2, seed=1, openings=3)
    games = [g for r in (1, 2) for g in schedule.round_games(r, {}, {})]
    assert len(games) == schedule.total_games() == 6 * 3 * 2 * 2
    assert len({g.key for g in games}) == len(games)
    seats = Counter(g.seats for g in games)
    for first in PLAYERS:
        for second in PLAYERS:
            if first != second:
                assert seats[(first, second)] == 3 * 2  # 3 openings x 2 rounds, each colour
    pairs = Counter(g.pair for g in games)
    assert set(pairs.values()) == {2}
    for pair in pairs:
        a, b = [g for g in games if g.pair == pair]
        assert a.seats == b.seats[::-1] and a.opening == b.opening


def test_seeds_and_keys_are_stable_and_distinct() -> None:
    one = RoundRobin(PLAYERS, 1, seed=7, openings=0).round_games(1, {}, {})
    two = RoundRobin(PLAYERS, 1, seed=7, openings=0).round_games(1, {}, {})
    other = RoundRobin(PLAYERS, 1, seed=8, openings=0).round_games(1, {}, {})
    assert one == two
    assert [g.seed for g in one] != [g.seed for g in other]
    assert len({g.seed for g in one}) == len(one)
    assert all(g.opening is None for g in one)
    assert derive_seed(1, "x") == derive_seed(1, "x") < 2**63


def test_gauntlet_meets_everyone_once_per_colour() -> None:
    schedule = Gauntlet(PLAYERS, 1, 1, 0, champion="c")
    games = schedule.round_games(1, {}, {})
    assert len(games) == schedule.total_games() == 6
    assert all("c" in g.seats for g in games)
    assert Counter(g.seats[0] for g in games)["c"] == 3


def test_swiss_pairs_by_score_and_avoids_rematches() -> None:
    schedule = Swiss(PLAYERS, rounds=3, seed=1, openings=0)
    first = schedule.round_games(1, {}, {})
    assert {frozenset(g.seats) for g in first} == {frozenset("ab"), frozenset("cd")}
    scores = {"a": 2.0, "b": 0.0, "c": 1.5, "d": 0.5}
    met = {frozenset("ab"): 2, frozenset("cd"): 2}
    second = schedule.round_games(2, scores, met)
    assert {frozenset(g.seats) for g in second} == {frozenset("ac"), frozenset("db")}


def test_swiss_odd_field_gives_a_bye_to_the_lowest_without_one() -> None:
    schedule = Swiss(["a", "b", "c"], rounds=2, seed=1, openings=0)
    games = schedule.round_games(1, {"a": 1.0, "b": 0.5, "c": 0.0}, {})
    assert schedule.sitting_out(games) == ["c"]
    games = schedule.round_games(2, {"a": 1.0, "b": 0.5, "c": 0.0}, {frozenset("c"): 1})
    assert schedule.sitting_out(games) == ["b"]
    assert schedule.total_games() == 4


@given(st.integers(2, 9), st.integers(0, 4), st.integers(1, 3))
def test_round_robin_counts(n: int, openings: int, rounds: int) -> None:
    players = [f"p{i}" for i in range(n)]
    schedule = make_schedule("round-robin", players, rounds, 5, openings)
    games = [g for r in range(1, rounds + 1) for g in schedule.round_games(r, {}, {})]
    assert len(games) == schedule.total_games() == n * (n - 1) * max(openings, 1) * rounds
    per_player = Counter(p for g in games for p in g.seats)
    assert len(set(per_player.values())) == 1  # everyone plays as often


def test_openings_used_by_each_schedule() -> None:
    players = ["a", "b", "c", "d"]
    assert RoundRobin(players, 1, 0, 5).openings_used() == 5
    assert Gauntlet(players, 1, 0, 5, "a").openings_used() == 5
    swiss = Swiss(players, 3, 0, 5)
    assert swiss.openings_used() == 3
    played = set()
    for number in range(1, 4):
        played |= {g.opening for g in swiss.round_games(number, {}, {})}
    assert len(played) == swiss.openings_used()
    assert Swiss(players, 8, 0, 5).openings_used() == 5
