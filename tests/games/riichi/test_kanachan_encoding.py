"""The kanachan encodings: the spec's tables, ranges, and decode(encode(x)) == x."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.games.riichi.kanachan.encoding import (
    OPTION_VALUE,
    PROGRESSION_PADDING,
    SPARSE_PADDING,
    EncodingError,
    Move,
    Situation,
    chi_code,
    decode_chi,
    decode_hand,
    decode_option,
    decode_pon,
    decode_progression,
    decode_sparse,
    decode_tile,
    encode_hand,
    encode_option,
    encode_progression,
    encode_sparse,
    encode_tile,
    outcome_code,
    pon_code,
)

TILES = [decode_tile(t) for t in range(37)]


def test_tile_numbers_follow_the_spec() -> None:
    assert [encode_tile(n) for n in ("5mr", "1m", "9m", "5pr", "1p", "5sr", "9s", "E", "C")] \
        == [0, 1, 9, 10, 11, 20, 29, 30, 36]
    with pytest.raises(EncodingError, match="'0m'"):
        encode_tile("0m")
    with pytest.raises(EncodingError, match="37"):
        decode_tile(37)


def test_hand_slots_follow_the_spec_table() -> None:
    expected = {"5mr": 353, "1m": 354, "2m": 358, "5m": 370, "6m": 373, "5pr": 389,
                "1p": 390, "5sr": 425, "1s": 426, "E": 461, "S": 465, "P": 477}
    for name, value in expected.items():
        assert encode_hand([name]) == [value], name
    assert encode_hand(["1m"] * 4) == [354, 355, 356, 357]
    assert encode_hand(["5m"] * 3) == [370, 371, 372]
    assert encode_hand(["9m"] * 4)[-1] == 388
    assert encode_hand(["9s"] * 4)[-1] == 460
    assert encode_hand(["C"] * 4)[-1] == 488
    with pytest.raises(EncodingError, match="4 copies of 5m"):
        encode_hand(["5m"] * 4)


def test_chows_and_pons_follow_the_spec_tables() -> None:
    assert chi_code(["2m", "3m"], "1m") == 0
    assert chi_code(["1m", "3m"], "2m") == 1
    assert chi_code(["4m", "5mr"], "3m") == 6
    assert chi_code(["5mr", "4m"], "3m") == 6  # either order of the hand tiles
    assert chi_code(["3m", "4m"], "5mr") == 13
    assert chi_code(["5mr", "7m"], "6m") == 21
    assert chi_code(["7m", "8m"], "9m") == 29
    assert chi_code(["2p", "3p"], "1p") == 30
    assert chi_code(["7s", "8s"], "9s") == 89
    assert decode_chi(11) == (("5mr", "6m"), "4m")
    assert pon_code(["1m", "1m"], "1m") == 0
    assert pon_code(["5m", "5m"], "5m") == 4
    assert pon_code(["5mr", "5m"], "5m") == 5
    assert pon_code(["5m", "5m"], "5mr") == 6
    assert pon_code(["5p", "5pr"], "5p") == 16
    assert pon_code(["5s", "5s"], "5sr") == 28
    assert pon_code(["C", "C"], "C") == 39
    assert decode_pon(5) == (("5mr", "5m"), "5m")
    for bad in ((["1m", "2m"], "3m"), (["5mr", "5m"], "5mr")):
        with pytest.raises(EncodingError):
            pon_code(*bad)
    with pytest.raises(EncodingError, match="not a chow"):
        chi_code(["1m", "5m"], "3m")
    with pytest.raises(EncodingError, match="honor"):
        chi_code(["E", "S"], "W")


def test_every_chow_and_pon_number_round_trips() -> None:
    for code in range(90):
        consumed, called = decode_chi(code)
        assert chi_code(consumed, called) == code
    for code in range(40):
        consumed, called = decode_pon(code)
        assert pon_code(consumed, called) == code
    for bad in (-1, 90):
        with pytest.raises(EncodingError):
            decode_chi(bad)


def test_every_progression_and_option_value_round_trips_within_range() -> None:
    values = [0, *range(5, PROGRESSION_PADDING)]
    for value in values:
        assert encode_progression(decode_progression(value)) == value
    for bad in (1, 4, PROGRESSION_PADDING, -1):
        with pytest.raises(EncodingError):
            decode_progression(bad)
    for value in range(OPTION_VALUE):
        assert encode_option(decode_option(value)) == value
    for bad in (OPTION_VALUE, OPTION_VALUE + 1, -1):
        with pytest.raises(EncodingError):
            decode_option(bad)


def test_progression_examples_from_the_spec_formulas() -> None:
    assert encode_progression(Move("dahai", 1, "E", tsumogiri=True, riichi=True)) \
        == 5 + 148 + 30 * 4 + 2 + 1
    assert encode_progression(Move("pon", 3, "C", ("C", "C"), rel=2)) \
        == 957 + 3 * 120 + 2 * 40 + 39
    assert encode_progression(Move("daiminkan", 2, "5pr", rel=0)) == 1437 + 2 * 111 + 10
    assert encode_progression(Move("ankan", 0, "9s")) == 1881 + 26
    assert encode_progression(Move("kakan", 3, "C")) == 2017 + 3 * 37 + 36
    assert encode_option(Move("ron", rel=1)) == 544
    assert encode_option(Move("skip")) == 221
    assert encode_option(Move("pon", tile="5m", consumed=("5mr", "5m"), rel=2)) \
        == 312 + 80 + 5
    with pytest.raises(EncodingError, match="rel"):
        encode_option(Move("pon", tile="5m", consumed=("5m", "5m")))


tiles = st.sampled_from(TILES)


@st.composite
def hands(draw: st.DrawFn, most: int = 14) -> list[str]:
    """A possible concealed hand: 1..most tiles, at most 4 of a kind, one red per suit."""
    pool = [n for n in TILES for _ in range(1 if n.endswith("r") else
                                            3 if n[0] == "5" and n[1] in "mps" else 4)]
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=1, max_size=most,
                          unique=True))
    return [pool[i] for i in picks]


@given(hands())
def test_hands_round_trip_in_range(hand: list[str]) -> None:
    values = encode_hand(hand)
    assert values == sorted(values)
    assert all(353 <= v <= 488 for v in values)
    assert sorted(decode_hand(values)) == sorted(hand)


@st.composite
def situations(draw: st.DrawFn) -> Situation:
    return Situation(
        room=draw(st.integers(0, 4)), east=draw(st.booleans()), seat=draw(st.integers(0, 3)),
        wind=draw(st.integers(0, 2)), round=draw(st.integers(0, 3)),
        doras=tuple(draw(st.lists(tiles, min_size=1, max_size=5))),
        left=draw(st.integers(0, 69)),
        grades=tuple(draw(st.lists(st.integers(0, 15), min_size=4, max_size=4))),
        ranks=tuple(draw(st.permutations([0, 1, 2, 3]))),
        hand=tuple(decode_hand(encode_hand(draw(hands(most=13))))),  # the drawn tile apart
        drawn=draw(st.none() | tiles))


@given(situations())
def test_sparse_features_round_trip_in_range(situation: Situation) -> None:
    values = encode_sparse(situation)
    assert all(0 <= v < SPARSE_PADDING for v in values)
    assert len(values) <= 33
    assert decode_sparse(values) == situation


def test_sparse_errors_name_the_problem() -> None:
    base = Situation(0, False, 0, 0, 0, ("1m",), 69, (0,) * 4, (0, 1, 2, 3), ("1m",))
    with pytest.raises(EncodingError, match="round wind 3"):
        encode_sparse(Situation(0, False, 0, 3, 0, ("1m",), 69, (0,) * 4, (0, 1, 2, 3), ()))
    with pytest.raises(EncodingError, match="tiles left 70"):
        encode_sparse(Situation(0, False, 0, 0, 0, ("1m",), 70, (0,) * 4, (0, 1, 2, 3), ()))
    with pytest.raises(EncodingError, match="6 dora"):
        encode_sparse(Situation(0, False, 0, 0, 0, ("1m",) * 6, 1, (0,) * 4, (0, 1, 2, 3), ()))
    with pytest.raises(EncodingError, match="missing"):
        decode_sparse(encode_sparse(base)[1:])
    with pytest.raises(EncodingError, match="526"):
        decode_sparse([526])


def test_outcome_codes_from_every_point_of_view() -> None:
    # seat 0's view; seat 1 is its right neighbour, 2 across, 3 left
    assert outcome_code(0, [0], 0, True, "hora", False) == 0
    assert [outcome_code(0, [w], w, True, "hora", False) for w in (1, 2, 3)] == [1, 2, 3]
    assert [outcome_code(0, [0], d, False, "hora", False) for d in (1, 2, 3)] == [4, 5, 6]
    assert [outcome_code(0, [w], 0, False, "hora", False) for w in (1, 2, 3)] == [7, 8, 9]
    side = {(1, 2): 10, (1, 3): 11, (2, 1): 12, (2, 3): 13, (3, 1): 14, (3, 2): 15}
    for (winner, discarder), code in side.items():
        assert outcome_code(0, [winner], discarder, False, "hora", False) == code
    assert outcome_code(2, [3, 1], 0, False, "hora", False) == 10  # the first winner, 3
    assert outcome_code(1, [3, 1], 0, False, "hora", False) == 6  # its own ron
    assert outcome_code(0, [], None, False, "fanpai", False) == 16
    assert outcome_code(0, [], None, False, "fanpai", True) == 17
    assert outcome_code(0, [], None, False, "kyushukyuhai", False) == 18
