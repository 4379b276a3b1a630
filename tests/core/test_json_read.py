"""``core.json_read.json_value`` reads every text as ``json.loads`` does, faster, and
refuses nesting deeper than 1,024 levels whichever of the two reads it."""

from __future__ import annotations

import json
import math
import pickle
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.json_read import JsonTooDeep, json_value
from referee.core.nesting import value_depth

SCALARS = (st.none() | st.booleans() | st.integers() | st.text()
           | st.floats(allow_nan=True, allow_infinity=True))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=20)


def same(a: Any, b: Any) -> bool:
    """Equal, NaN equal to NaN, and of the same types all the way down (1 is not 1.0)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


@given(VALUES, st.booleans())
def test_any_json_reads_as_the_standard_library_reads_it(value: Any, as_bytes: bool) -> None:
    text = json.dumps(value)
    assert same(json_value(text.encode() if as_bytes else text), json.loads(text))


@pytest.mark.parametrize("text", [
    "18446744073709551616", "-9223372036854775809", "123456789012345678901234567890",
    '{"seed": 99999999999999999999}', "[1e400, -1e400]", "NaN", "[Infinity]",
    "9223372036854775807", "-9223372036854775808", "18446744073709551615",
])
def test_numbers_orjson_reads_otherwise_keep_their_exact_value(text: str) -> None:
    assert same(json_value(text), json.loads(text))
    assert same(json_value(text.encode()), json.loads(text))


@given(st.text(max_size=30))
def test_a_text_is_refused_exactly_when_the_standard_library_refuses_it(text: str) -> None:
    try:
        expected = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError):
            json_value(text)
    else:
        assert same(json_value(text), expected)


def test_deep_nesting_is_a_value_error_not_a_crash() -> None:
    with pytest.raises(ValueError, match="nested deeper than 1024 levels"):
        json_value("[" * 200_000 + "]" * 200_000)


TAILS = {"plain": "1", "wide integer": "18446744073709551616", "NaN": "NaN"}
"""What the innermost value is: orjson reads the first, json the other two."""


@settings(max_examples=60, deadline=5000)
@given(st.integers(1000, 1050), st.sampled_from(sorted(TAILS)), st.booleans(),
       st.sampled_from(["[", '{"k":', '["a]}[", ']))
def test_nesting_is_read_to_1024_levels_and_refused_past_them_whoever_reads_it(
        depth: int, tail: str, as_bytes: bool, opener: str) -> None:
    closer = {"[": "]", '{"k":': "}", '["a]}[", ': "]"}[opener]
    text = "\n" + opener * depth + TAILS[tail] + closer * depth
    limit = sys.getrecursionlimit()
    if depth <= 1024:
        value = json_value(text.encode() if as_bytes else text)
        for _ in range(depth):
            value = value[-1] if isinstance(value, list) else value["k"]
        assert same(value, json.loads(TAILS[tail]))
    else:
        with pytest.raises(JsonTooDeep) as caught:
            json_value(text.encode() if as_bytes else text)
        error = caught.value
        assert isinstance(error, json.JSONDecodeError)  # handled as any text not JSON is
        assert error.msg == "nested deeper than 1024 levels"
        assert (error.lineno, error.colno) == (2, 1024 * len(opener) + 1)  # the 1,025th
        assert str(pickle.loads(pickle.dumps(error))) == str(error)  # (across processes)
    assert sys.getrecursionlimit() == limit


def test_1024_levels_are_read_from_deep_in_the_stack_and_from_threads_at_once() -> None:
    text = "[" * 1024 + "NaN" + "]" * 1024  # read by json, whose scanner recurses

    def at_depth(frames: int) -> Any:
        return at_depth(frames - 1) if frames else json_value(text)

    frame, depth = sys._getframe(), 0  # the frames under this one (pytest's, xdist's)
    while frame is not None:
        frame, depth = frame.f_back, depth + 1
    assert value_depth(at_depth(sys.getrecursionlimit() - depth - 20)) == 1024
    with ThreadPoolExecutor(4) as pool:
        depths = list(pool.map(lambda _: value_depth(json_value(text)), range(16)))
    assert depths == [1024] * 16
