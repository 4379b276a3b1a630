"""The fast shape checks against the ``mahjong`` package (Agari, Shanten) on random hands:
agari, waits (no fifth copy), tenpai, which discards keep a hand tenpai."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from mahjong.agari import Agari
from mahjong.shanten import Shanten

from referee.games.riichi import shape


def _random_hand(rng: random.Random, size: int) -> list[int]:
    return shape.counts_of(rng.sample(range(136), size))


def _built_hand(rng: random.Random, size: int) -> list[int]:
    """Sets and a pair (``size`` 3n+2 tiles), at most four of a kind: often a win."""
    while True:
        counts = [0] * 34
        for _ in range((size - 2) // 3):
            if rng.random() < 0.4:
                counts[rng.randrange(34)] += 3
            else:
                start = rng.randrange(3) * 9 + rng.randrange(7)
                for k in range(start, start + 3):
                    counts[k] += 1
        counts[rng.randrange(34)] += 2
        if max(counts) <= 4:
            return counts


def _special_hand(rng: random.Random) -> list[int]:
    """Seven pairs or thirteen orphans (14 tiles)."""
    counts = [0] * 34
    if rng.random() < 0.5:
        for k in rng.sample(range(34), 7):
            counts[k] = 2
    else:
        for k in shape.ORPHANS:
            counts[k] = 1
        counts[rng.choice(shape.ORPHANS)] += 1
    return counts


def _plus(counts: list[int], kind: int) -> list[int]:
    out = list(counts)
    out[kind] += 1
    return out


def _oracle_waits(counts: list[int]) -> list[int]:
    return [k for k in range(34) if counts[k] < 4 and Agari.is_agari(_plus(counts, k))]


def _hands(seed: int, count: int) -> list[list[int]]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        size = rng.choice((2, 5, 8, 11, 14))
        pick = i % 3
        if pick == 0:
            out.append(_random_hand(rng, size))
        elif pick == 1 or size != 14:
            out.append(_built_hand(rng, size))
        else:
            out.append(_special_hand(rng))
    return out


@settings(max_examples=25, deadline=10_000)
@given(seed=st.integers(0, 2**32 - 1))
def test_agari_waits_and_riichi_discards_match_the_package(seed: int) -> None:
    rng = random.Random(seed)
    for counts in _hands(seed, 120):
        assert shape.is_agari(counts) == Agari.is_agari(counts), counts
        riichi = shape.tenpai_discards(counts)
        assert shape.can_riichi_discard(counts) == bool(riichi), counts
        for k in range(34):
            if counts[k]:
                less = list(counts)
                less[k] -= 1
                assert (k in riichi) == bool(_oracle_waits(less)), (counts, k)
        held = [k for k in range(34) if counts[k]]
        less = list(counts)
        less[rng.choice(held)] -= 1
        waits = shape.waits(less)
        assert waits == _oracle_waits(less), less
        assert shape.is_tenpai(less) == bool(waits)
        if max(less) < 4:  # the package counts a wait on a fifth copy as tenpai
            tenpai = Shanten.calculate_shanten(less) == 0
            assert shape.is_tenpai(less) == tenpai, less


@settings(max_examples=25, deadline=10_000)
@given(seed=st.integers(0, 2**32 - 1))
def test_shanten_matches_the_package_and_bounds_riichi(seed: int) -> None:
    """shanten agrees with the package's; the engine skips the riichi check when the hand
    before the draw is two or more from tenpai, so that must never hide a riichi discard."""
    for counts in _hands(seed, 120):
        total = sum(counts)
        melds = (14 - total) // 3
        if max(counts) < 4 and total in (13, 14) and melds == 0:
            assert shape.shanten(counts) == Shanten.calculate_shanten(counts), counts
        if total % 3 == 2 and shape.can_riichi_discard(counts):
            for k in range(34):
                if counts[k]:
                    before = list(counts)
                    before[k] -= 1
                    assert shape.shanten(before, melds) <= 1, (counts, k)


@settings(max_examples=25, deadline=10_000)
@given(seed=st.integers(0, 2**32 - 1))
def test_improving_kinds_are_the_draws_that_lower_shanten(seed: int) -> None:
    rng = random.Random(seed)
    for counts in _hands(seed, 60):
        held = [k for k in range(34) if counts[k]]
        counts[rng.choice(held)] -= 1  # 3n+1 tiles
        melds = (13 - sum(counts)) // 3
        base = shape.shanten(counts, melds)
        want = 0
        for k in range(34):
            if counts[k] < 4:
                counts[k] += 1
                want |= (shape.shanten(counts, melds) < base) << k
                counts[k] -= 1
        assert shape.improving_kinds(counts, melds) == want, (counts, melds)


def test_known_shapes() -> None:
    def counts(text: str) -> list[int]:
        out = [0] * 34
        suit = {"m": 0, "p": 9, "s": 18, "z": 27}
        digits: list[int] = []
        for ch in text:
            if ch.isdigit():
                digits.append(int(ch))
            else:
                for d in digits:
                    out[suit[ch] + d - 1] += 1
                digits = []
        return out

    chuuren = counts("1112345678999m")
    assert shape.waits(chuuren) == list(range(9))
    kokushi13 = counts("19m19p19s1234567z")
    assert shape.waits(kokushi13) == list(shape.ORPHANS)
    assert shape.kokushi_waits_mask(kokushi13) == sum(1 << k for k in shape.ORPHANS)
    assert shape.waits(counts("19m19p19s1234566z")) == [33]
    assert shape.waits(counts("1122m3344p5566s7z")) == [33]  # seven pairs tanki
    assert shape.is_agari(counts("1122m3344p5566s77z"))
    assert not shape.is_agari(counts("1111m2233p4455s66z"))  # four of a kind: not two pairs
    # A hand whose only wait is a kind it holds four of is not tenpai (Tenhou).
    assert shape.waits(counts("1111m234p567s888s")) == []
    assert shape.waits(counts("123m456p789s1112z")) == [28]
    assert shape.waits(counts("123m456p789s1122z")) == [27, 28]
    assert shape.kinds_of_mask(0b1010) == [1, 3]
