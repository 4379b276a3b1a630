"""The shared SplitMix64 shuffle: a permutation, fixed per seed, and the very procedure of
the Mahjong walls (so ``make_wall`` can switch to it without changing a wall)."""

from __future__ import annotations

from referee.core.shuffle import splitmix64, splitmix_shuffle
from referee.games.mahjong.tiles import ALL_TILES, make_wall


def test_splitmix64_known_values() -> None:
    # SplitMix64 from state 0: the reference sequence of Vigna's splitmix64.c.
    state, first = splitmix64(0)
    _, second = splitmix64(state)
    assert first == 0xE220A8397B1DCDAF
    assert second == 0x6E789E6AA1B965F4


def test_shuffle_is_a_seeded_permutation() -> None:
    items = list(range(136))
    a = splitmix_shuffle(items, 7)
    assert sorted(a) == items and a != items
    assert a == splitmix_shuffle(items, 7)
    assert a != splitmix_shuffle(items, 8)
    assert splitmix_shuffle(items, 7 + (1 << 64)) == a  # only the low 64 bits count
    assert items == list(range(136))  # the input is not touched
    assert splitmix_shuffle([], 1) == [] and splitmix_shuffle("x", 1) == ["x"]


def test_shuffle_matches_the_mahjong_walls() -> None:
    for seed in (0, 1, 12345, 2**63 + 5):
        assert splitmix_shuffle(ALL_TILES, seed) == make_wall(seed)
