"""How deep the values of a file may nest: one limit for every JSON and TOML file the
referee reads (orjson's, 1,024 levels of arrays and objects or tables), the reason said
when a file goes past it, and room on the stack for the standard library's readers, which
recurse once or more per level (``json``'s C scanner, ``tomllib``), to read as deep as
that wherever they are called from.

Without the room, Python's default recursion limit (1,000 frames, some of them taken by
the caller) ends a read of a few hundred levels in ``RecursionError``.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["MAX_DEPTH", "TOO_DEEP", "room_for_nesting", "value_depth"]

MAX_DEPTH = 1024
"""The deepest nesting read: orjson's limit, which the other readers are held to."""

TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels"
"""The reason given for a file nested deeper."""

_ROOM = 4 * MAX_DEPTH + 128
"""Frames added to the recursion limit while a reader runs: tomllib takes up to three a
level (a value, an inline table, its key and value), json's scanner one."""

_lock = threading.Lock()
_readers = 0  # reads in progress with the room added
_limit = 0  # the recursion limit before the first of them


@contextlib.contextmanager
def room_for_nesting() -> Iterator[None]:
    """Within the block the recursion limit is high enough for a reader to go
    ``MAX_DEPTH`` levels deep; the limit is put back when the last such block ends (the
    limit is the interpreter's: threads reading at once share the raised one)."""
    global _readers, _limit
    with _lock:
        if _readers == 0:
            _limit = sys.getrecursionlimit()
            sys.setrecursionlimit(_limit + _ROOM)
        _readers += 1
    try:
        yield
    finally:
        with _lock:
            _readers -= 1
            if _readers == 0:
                sys.setrecursionlimit(_limit)


def value_depth(value: Any) -> int:
    """How deep lists and dicts nest in ``value`` (a scalar 0, ``[]`` 1, ``[{}]`` 2),
    found without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        elif not isinstance(item, list):
            continue
        deepest = max(deepest, depth)
        stack.extend((inner, depth + 1) for inner in item
                     if isinstance(inner, list | dict))
    return deepest
