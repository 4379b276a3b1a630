"""Hand checks (``is_winning``, ``decompositions``, ``shanten``, ``waits``) against simple
exhaustive oracles written here, on hands drawn from a real 136-tile set, plus
hand-made examples."""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.games.mahjong.hand import decompositions, is_winning, shanten, waits
from referee.games.mahjong.melds import Decomposition, SetKind

KINDS = 34
C, P = SetKind.CHOW, SetKind.PUNG
SUITED = range(27)


def counts(kinds: Iterable[int]) -> list[int]:
    """Per-kind counts of some kinds."""
    result = [0] * KINDS
    for kind in kinds:
        result[kind] += 1
    return result


def wan(text: str, base: int = 0) -> list[int]:
    """Kinds of digits: ``wan("11123")`` is 1-Wan x3, 2-Wan, 3-Wan (``base`` 9 Tiao,
    18 Tong)."""
    return [base + int(d) - 1 for d in text]


# ---------------------------------------------------------------------------------------
# Oracles: plain recursion over the sorted tiles, no tables.


def is_chow_start(kind: int) -> bool:
    """A chow may start at a suited rank 1..7."""
    return kind < 27 and kind % 9 <= 6


def split_into_sets(tiles: list[int]) -> list[list[tuple[SetKind, int]]]:
    """Every way to split the sorted ``tiles`` into pungs and chows: the lowest tile is
    the lowest tile of its set, so its set is its pung or the chow starting at it."""
    if not tiles:
        return [[]]
    low = tiles[0]
    found: list[list[tuple[SetKind, int]]] = []
    if tiles[:3] == [low, low, low]:
        found += [[(P, low), *rest] for rest in split_into_sets(tiles[3:])]
    if is_chow_start(low) and low + 1 in tiles and low + 2 in tiles:
        rest_tiles = list(tiles)
        for k in (low, low + 1, low + 2):
            rest_tiles.remove(k)
        found += [[(C, low), *rest] for rest in split_into_sets(rest_tiles)]
    return found


def oracle_readings(hand: list[int]) -> set[Decomposition]:
    """Every (pair, sorted sets) reading: try each pair, then every split of the rest."""
    tiles = sorted(k for k in range(KINDS) for _ in range(hand[k]))
    found: set[Decomposition] = set()
    for pair in set(tiles):
        if tiles.count(pair) < 2:
            continue
        rest = list(tiles)
        rest.remove(pair)
        rest.remove(pair)
        for sets in split_into_sets(rest):
            found.add(Decomposition(pair, tuple(sorted(sets, key=lambda s: (s[0].value, s[1])))))
    return found


def oracle_waits(hand: list[int]) -> list[int]:
    """Kinds (with fewer than 4 in hand) whose addition gives an oracle reading."""
    return [k for k in range(KINDS)
            if hand[k] < 4 and oracle_readings([c + (i == k) for i, c in enumerate(hand)])]


SETS_WITH: list[list[tuple[int, int, int]]] = [
    [(t, t, t)] + [(s, s + 1, s + 2) for s in (t - 2, t - 1, t)
                   if s >= 0 and is_chow_start(s) and s // 9 == t // 9]
    for t in range(KINDS)
]
"""For each kind, the sets that contain it."""
ALL_SETS = sorted({s for sets in SETS_WITH for s in sets})


def oracle_shanten(hand: list[int]) -> int:
    """The least number of tiles to draw to hold a winning hand (``total // 3`` sets and
    a pair, at most 4 of a kind), minus one; by exhaustive search, memoized.

    Take the lowest tile left in hand: either no set of the target holds it (drop every
    copy left), or a set or the pair holding it is in the target; that set takes a tile of
    each of its kinds still in hand and the rest is drawn. What is still missing once the
    hand is used up is drawn from scratch: 3 a set, 2 the pair. A hand has at most 17
    tiles, so at most 8 kinds of the target hold 2 or more and the sets and pair from
    scratch always find kinds with room for them."""
    assert sum(hand) <= 17
    rest = list(hand)
    target = [0] * KINDS
    memo: dict[tuple[object, ...], int] = {}

    def walk(low: int, sets_left: int, pair_left: int) -> int:
        while low < KINDS and rest[low] == 0:
            low += 1
        if low == KINDS:
            return 3 * sets_left + 2 * pair_left
        # Sets placed from here on hold kinds low - 2 and up only.
        key = (low, tuple(rest[low:]), tuple(target[max(0, low - 2):]), sets_left, pair_left)
        if key in memo:
            return memo[key]
        dropped = rest[low]
        rest[low] = 0
        best = walk(low + 1, sets_left, pair_left)
        rest[low] = dropped
        options: list[tuple[int, ...]] = [(low, low)] if pair_left else []
        if sets_left:
            options += SETS_WITH[low]
        for kinds in options:
            if any(target[k] + kinds.count(k) > 4 for k in kinds):
                continue
            taken = []
            for k in kinds:
                target[k] += 1
                if rest[k]:
                    rest[k] -= 1
                    taken.append(k)
            is_pair = len(kinds) == 2
            drawn = len(kinds) - len(taken)
            best = min(best, drawn + walk(low, sets_left - (not is_pair), pair_left - is_pair))
            for k in kinds:
                target[k] -= 1
            for k in taken:
                rest[k] += 1
        memo[key] = best
        return best

    return walk(0, sum(hand) // 3, 1) - 1


# ---------------------------------------------------------------------------------------
# Strategies.

@st.composite
def drawn_hand(draw: st.DrawFn, size: int | st.SearchStrategy[int],
               kinds: range = range(KINDS)) -> list[int]:
    """``size`` tiles drawn without replacement from the copies of ``kinds``."""
    n = size if isinstance(size, int) else draw(size)
    pool = [k for k in kinds for _ in range(4)]
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n,
                          unique=True))
    return counts(pool[i] for i in picks)


@st.composite
def built_winning(draw: st.DrawFn, sets: int, kinds: range = range(KINDS)) -> list[int]:
    """A winning hand: a pair and ``sets`` random sets, at most 4 of a kind."""
    hand = [0] * KINDS
    pair = draw(st.sampled_from(list(kinds)))
    hand[pair] += 2
    options = [s for s in ALL_SETS if s[0] in kinds and s[2] in kinds]
    for _ in range(sets):
        free = [s for s in options if all(hand[k] + s.count(k) <= 4 for k in s)]
        for k in draw(st.sampled_from(free)):
            hand[k] += 1
    return hand


@st.composite
def near_winning(draw: st.DrawFn, sets: int, kinds: range = range(KINDS)) -> list[int]:
    """A built winning hand with one tile removed (a 3n+1 hand, often tenpai) or one
    tile swapped (3n+2, often not winning)."""
    hand = draw(built_winning(sets, kinds))
    held = [k for k in range(KINDS) if hand[k]]
    hand[draw(st.sampled_from(held))] -= 1
    if draw(st.booleans()):
        free = [k for k in kinds if hand[k] < 4]
        hand[draw(st.sampled_from(free))] += 1
    return hand


@st.composite
def quad_hand(draw: st.DrawFn, size: int | st.SearchStrategy[int]) -> list[int]:
    """All 4 copies of one kind and ``size - 4`` other tiles, mostly near it (its suit's
    ranks within 3, or the honors): hands where the 4-copies limit matters."""
    n = size if isinstance(size, int) else draw(size)
    quad = draw(st.integers(0, KINDS - 1))
    if quad >= 27:
        near = range(27, KINDS)
    else:
        suit = quad - quad % 9
        near = range(max(suit, quad - 3), min(suit + 9, quad + 4))
    pool = [k for k in near if k != quad for _ in range(4)] + [k for k in range(KINDS)
                                                              if k not in near]
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=n - 4, max_size=n - 4,
                          unique=True))
    hand = counts(pool[i] for i in picks)
    hand[quad] = 4
    return hand


SMALL_SUITS = range(18)
"""Wan and Tiao only: random hands over fewer kinds are winning or tenpai more often."""
ONE_SUIT = range(9)

any_3n2 = st.one_of(
    st.integers(0, 5).flatmap(built_winning),
    st.integers(0, 5).flatmap(lambda n: built_winning(n, ONE_SUIT if n <= 3 else SMALL_SUITS)),
    st.integers(1, 5).flatmap(near_winning).filter(lambda h: sum(h) % 3 == 2),
    st.integers(1, 3).flatmap(lambda n: near_winning(n, ONE_SUIT)).filter(
        lambda h: sum(h) % 3 == 2),
    drawn_hand(st.sampled_from([2, 5, 8, 11, 14, 17])),
    drawn_hand(st.sampled_from([2, 5, 8, 11]), ONE_SUIT),
    drawn_hand(st.sampled_from([5, 8, 11, 14, 17]), SMALL_SUITS),
    quad_hand(st.sampled_from([5, 8, 11, 14, 17])),
)
any_3n1 = st.one_of(
    st.integers(1, 5).flatmap(near_winning).filter(lambda h: sum(h) % 3 == 1),
    st.integers(1, 3).flatmap(lambda n: near_winning(n, ONE_SUIT)).filter(
        lambda h: sum(h) % 3 == 1),
    drawn_hand(st.sampled_from([1, 4, 7, 10, 13, 16])),
    drawn_hand(st.sampled_from([4, 7, 10, 13]), ONE_SUIT),
    drawn_hand(st.sampled_from([7, 10, 13, 16]), SMALL_SUITS),
    quad_hand(st.sampled_from([4, 7, 10, 13, 16])),
)

FAST = settings(max_examples=300,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


# ---------------------------------------------------------------------------------------
# Properties against the oracles.


@FAST
@given(any_3n2)
def test_is_winning_and_decompositions_match_the_oracle(hand: list[int]) -> None:
    expected = oracle_readings(hand)
    assert is_winning(hand) == bool(expected)
    found = decompositions(hand)
    assert set(found) == expected
    assert len(found) == len(expected), "no reading is listed twice"


@FAST
@given(any_3n1)
def test_waits_match_the_oracle(hand: list[int]) -> None:
    assert waits(hand) == oracle_waits(hand)


@settings(max_examples=200)
@given(st.sampled_from([4, 7, 10, 13, 16]).flatmap(drawn_hand))
def test_shanten_matches_the_oracle_on_random_hands(hand: list[int]) -> None:
    assert shanten(hand) == oracle_shanten(hand)


@settings(max_examples=120,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.one_of(any_3n1, any_3n2))
def test_shanten_matches_the_oracle_on_likely_hands(hand: list[int]) -> None:
    assert shanten(hand) == oracle_shanten(hand)


def test_shanten_matches_the_oracle_on_seeded_random_hands() -> None:
    """A fixed sweep over every size, so every run covers all of them."""
    rng = random.Random(7)
    for size in (1, 2, 4, 5, 7, 8, 10, 11, 13, 14, 16, 17):
        for _ in range(25):
            hand = counts(t // 4 for t in rng.sample(range(136), size))
            assert shanten(hand) == oracle_shanten(hand), hand


@FAST
@given(any_3n2)
def test_shanten_is_minus_one_exactly_when_winning(hand: list[int]) -> None:
    assert (shanten(hand) == -1) == is_winning(hand)


@FAST
@given(any_3n1)
def test_tenpai_exactly_when_there_are_waits(hand: list[int]) -> None:
    assert shanten(hand) >= 0
    assert (shanten(hand) == 0) == bool(waits(hand))


@FAST
@given(any_3n1, st.data())
def test_a_draw_lowers_shanten_by_one_at_most(hand: list[int], data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from([k for k in range(KINDS) if hand[k] < 4]))
    after = list(hand)
    after[kind] += 1
    assert shanten(after) >= shanten(hand) - 1
    assert (shanten(after) == -1) == (kind in waits(hand))


@FAST
@given(any_3n2)
def test_a_3n2_hand_is_as_close_as_its_best_discard(hand: list[int]) -> None:
    if is_winning(hand):
        return
    best = min(shanten([c - (i == k) for i, c in enumerate(hand)])
               for k in range(KINDS) if hand[k])
    assert shanten(hand) == best


# ---------------------------------------------------------------------------------------
# Hand-made examples.


def test_five_chows_and_a_pair() -> None:
    hand = counts(wan("123456789") + wan("234", 9) + wan("567", 18) + [27, 27])
    assert is_winning(hand)
    assert decompositions(hand) == [
        Decomposition(27, ((C, 0), (C, 3), (C, 6), (C, 10), (C, 22)))]
    assert shanten(hand) == -1


def test_all_pungs() -> None:
    hand = counts(wan("111999") + wan("555", 9) + [27] * 3 + [31] * 3 + [33, 33])
    assert is_winning(hand)
    assert decompositions(hand) == [
        Decomposition(33, ((P, 0), (P, 8), (P, 13), (P, 27), (P, 31)))]


def test_111222333_reads_as_pungs_or_chows() -> None:
    hand = counts(wan("11122233355") + wan("789", 9) + wan("789", 18))
    assert decompositions(hand) == [
        Decomposition(4, ((C, 0), (C, 0), (C, 0), (C, 15), (C, 24))),
        Decomposition(4, ((C, 15), (C, 24), (P, 0), (P, 1), (P, 2))),
    ]
    # With 44 instead of 55 the pair may also be 11 (123 234 234).
    hand = counts(wan("11122233344"))
    assert decompositions(hand) == [
        Decomposition(0, ((C, 0), (C, 1), (C, 1))),
        Decomposition(3, ((C, 0), (C, 0), (C, 0))),
        Decomposition(3, ((P, 0), (P, 1), (P, 2))),
    ]


def test_not_winning() -> None:
    assert not is_winning(counts([*wan("1235"), 27]))
    assert not is_winning(counts(wan("89") + wan("1", 9) + [5, 5]))  # no chow across suits
    assert not is_winning(counts([27, 28, 29, 31, 31]))  # honors never chow
    assert not is_winning(counts(wan("1122")))  # two pairs
    assert not is_winning(counts(wan("111")))  # 0 (mod 3)
    assert not is_winning(counts([27, 27, 28, 28, 29, 29]))  # three pairs, 0 (mod 3)
    assert not is_winning(counts([*wan("11"), 27, 27, 28, 28]))
    assert not is_winning(counts(wan("1")))
    assert not is_winning(counts(wan("11224455")))
    assert {d.pair for d in decompositions(counts(wan("11223344")))} == {0, 3}  # 11 or 44
    assert is_winning(counts(wan("11")))
    assert is_winning(counts(wan("11223344")[:6] + wan("44")))  # 123 123 + 44
    assert decompositions(counts([*wan("1235"), 27])) == []


def test_four_pairs_across_groups_are_not_a_win() -> None:
    """Four groups of 2 tiles make 8 = 2 (mod 3) but four pairs."""
    assert not is_winning(counts([0, 0, 9, 9, 18, 18, 27, 27]))
    assert not is_winning(counts([27, 27, 28, 28, 29, 29, 30, 30]))


def test_sixteen_tile_tenpai_and_its_waits() -> None:
    # 123 456 Wan, 234 Tiao, 555 Tong, East East, 67 Tong: waits 5 and 8 Tong, and East
    # (55 Tong the pair, 567 Tong, East x3).
    hand = counts(wan("123456") + wan("234", 9) + wan("555", 18) + [27, 27] + wan("67", 18))
    assert sum(hand) == 16
    assert shanten(hand) == 0
    assert waits(hand) == [18 + 4, 18 + 7, 27]
    # Half of a 3-sided wait: 2345678 Wan + sets: 2, 5, 8 (and more).
    hand = counts(wan("2345678") + wan("123", 9) + wan("456", 18) + [31] * 3)
    assert waits(hand) == [1, 4, 7]


def test_a_wait_on_a_kind_held_four_times_is_no_wait() -> None:
    # 1111 Wan + 123 Tiao, 456 Tiao, 789 Tong: the 1-Wan single would need a 5th 1-Wan.
    hand = counts(wan("1111") + wan("123456", 9) + wan("789", 18))
    assert waits(hand) == []
    assert shanten(hand) == 1
    assert shanten(hand) == oracle_shanten(hand)
    # Same with an honor: East x4 + 4 sets (16 tiles).
    hand = counts([27] * 4 + wan("123456789") + wan("123", 18))
    assert waits(hand) == []
    assert shanten(hand) == 1
    # 1111 2 Wan + 123 456 Tiao + 55 Tong: 1-Wan is never a wait, 3-Wan is (111 123).
    hand = counts(wan("11112") + wan("123456", 9) + wan("55", 18))
    assert waits(hand) == oracle_waits(hand) == [2]
    assert shanten(hand) == 0


def test_shanten_examples() -> None:
    assert shanten(counts(wan("1"))) == 0  # waits for its pair
    assert shanten(counts(wan("11"))) == -1
    assert shanten(counts(wan("12"))) == 0  # keep one, draw its pair
    assert shanten(counts([27, 28, 29, 30])) == 2  # E S W N: three draws to EEE SS
    # 16 kinds, one tile each: 12 of each suit (3 sets from 2 tiles), a single for the
    # 4th and 5th sets and the pair: 17 - 9 = 8 tiles to draw.
    far = counts([0, 1, 8, 9, 10, 17, 18, 19, 26, 27, 28, 29, 30, 31, 32, 33])
    assert shanten(far) == oracle_shanten(far) == 7


def test_bad_input() -> None:
    with pytest.raises(ValueError):
        shanten(counts(wan("111")))
    with pytest.raises(ValueError):
        shanten(counts(wan("123456789") + wan("123456789", 9) + wan("1", 18)))  # 19 tiles
    with pytest.raises(ValueError):
        waits(counts(wan("11")))
    with pytest.raises(ValueError):
        is_winning([0] * 33)
    with pytest.raises(ValueError):
        is_winning([5] + [0] * 33)
    with pytest.raises(ValueError):
        shanten([5] + [0] * 33)


def test_answers_survive_the_tables_being_emptied(monkeypatch: pytest.MonkeyPatch) -> None:
    """With tiny memo tables emptied again and again, the answers stay the same."""
    import referee.games.mahjong.hand as hand_module

    rng = random.Random(11)
    hands = [counts(t // 4 for t in rng.sample(range(136), size))
             for size in (13, 14, 16, 17) for _ in range(40)]
    expected = [(shanten(h), is_winning(h)) for h in hands]
    monkeypatch.setattr(hand_module, "_CACHE_LIMIT", 3)
    assert [(shanten(h), is_winning(h)) for h in hands] == expected
    assert [(shanten(h), is_winning(h)) for h in reversed(hands)] == expected[::-1]
