"""``core.toml_read.toml_table`` reads TOML as ``tomllib`` does, nesting held to the 1,024
levels JSON is held to: deeper is a ``TOMLDecodeError``, never ``RecursionError``."""

from __future__ import annotations

import sys
import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.nesting import value_depth
from referee.core.toml_read import toml_table

SHAPES = {
    "arrays": lambda n: "a = " + "[" * n + "1" + "]" * n,
    "inline tables": lambda n: "a = " + "{b = " * n + "1" + "}" * n,
    "both": lambda n: "a = " + "{b = [" * (n // 2) + "[" * (n % 2) + "1" + "]" * (n % 2)
                      + "]}" * (n // 2),
    "dotted keys": lambda n: ".".join(["k"] * (n + 1)) + " = 1",
    "a table header": lambda n: "[" + ".".join(["k"] * n) + "]\nx = [1]",
}
"""A TOML text of each way to nest, ``n`` levels under the file's own table (the header's
text adds one, its array)."""


@settings(max_examples=60, deadline=5000)
@given(st.sampled_from(sorted(SHAPES)), st.integers(1000, 1040))
def test_toml_nests_1024_levels_deep_and_no_deeper(shape: str, levels: int) -> None:
    text = SHAPES[shape](levels)
    depth = levels + (2 if shape == "a table header" else 1)  # the file's table, the array
    limit = sys.getrecursionlimit()
    if depth <= 1024:
        assert value_depth(toml_table(text)) == depth
    else:
        with pytest.raises(tomllib.TOMLDecodeError, match="^nested deeper than 1024 levels$"):
            toml_table(text)
    assert sys.getrecursionlimit() == limit


def test_far_too_deep_and_bad_toml_are_decode_errors() -> None:
    with pytest.raises(tomllib.TOMLDecodeError, match="nested deeper than 1024 levels"):
        toml_table("a = " + "[" * 100_000 + "]" * 100_000)
    with pytest.raises(tomllib.TOMLDecodeError, match="Invalid value"):
        toml_table("a = [")
    assert toml_table('name = "t"\n[settings]\nsize = 9\n') == {"name": "t",
                                                               "settings": {"size": 9}}
