"""TOML read as ``tomllib`` reads it, nesting held to ``core.nesting.MAX_DEPTH`` levels
(arrays and tables, the file's own table the first) as JSON's is: deeper is a
``tomllib.TOMLDecodeError`` saying so, never ``RecursionError``."""

from __future__ import annotations

import tomllib
from typing import Any

from referee.core.nesting import MAX_DEPTH, TOO_DEEP, room_for_nesting, value_depth

__all__ = ["toml_table"]


def toml_table(text: str) -> dict[str, Any]:
    """The table of a TOML text; ``tomllib.TOMLDecodeError`` if it is not TOML or is nested
    deeper than ``MAX_DEPTH`` levels (``nested deeper than 1024 levels``)."""
    try:
        with room_for_nesting():
            table = tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError(TOO_DEEP) from None
    if value_depth(table) > MAX_DEPTH:  # (dotted keys and [a.b.c] nest without recursion)
        raise tomllib.TOMLDecodeError(TOO_DEEP)
    return table
