"""Riichi tile ids and mjai names: every tile named and read back, red fives, bad names."""

from __future__ import annotations

import pytest

from referee.games.riichi.tiles import (
    RED_FIVES,
    TILES,
    is_red,
    kind_name,
    kind_of,
    mjai_name,
    parse_mjai,
    tile_of,
)


def test_every_tile_has_a_name_that_reads_back() -> None:
    names = [mjai_name(t) for t in range(TILES)]
    assert names.count("5mr") == names.count("5pr") == names.count("5sr") == 1
    assert names.count("5m") == 3 and names.count("E") == 4
    for tile in range(TILES):
        kind, red = parse_mjai(mjai_name(tile))
        assert kind == kind_of(tile) and red == is_red(tile)
    assert [kind_name(k) for k in (0, 8, 9, 18, 26, 27, 30, 31, 32, 33)] == [
        "1m", "9m", "1p", "1s", "9s", "E", "N", "P", "F", "C"]
    assert sorted(RED_FIVES) == [16, 52, 88]


def test_tile_of_hands_out_distinct_copies() -> None:
    taken: set[int] = set()
    for _ in range(3):
        taken.add(tile_of("5m", taken))
    assert taken == {17, 18, 19}  # the red five is not an ordinary copy
    with pytest.raises(ValueError, match="no copy of 5m is left"):
        tile_of("5m", taken)
    assert tile_of("5mr", taken) == 16
    with pytest.raises(ValueError, match="already in play"):
        tile_of("5mr", {16})
    plain: set[int] = set()  # without red fives copy 0 is a plain five like the others
    for _ in range(4):
        plain.add(tile_of("5p", plain, red_fives=False))
    assert plain == {52, 53, 54, 55}
    with pytest.raises(ValueError, match="no copy of 5p is left"):
        tile_of("5p", plain, red_fives=False)
    assert tile_of("E", {108}) == 109


@pytest.mark.parametrize("name", ["", "0m", "10m", "5z", "6mr", "Er", "?", "5m r", "x"])
def test_bad_names_are_named(name: str) -> None:
    with pytest.raises(ValueError, match="is not an mjai tile name"):
        parse_mjai(name)
