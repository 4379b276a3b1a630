"""Counting helpers shared by the mahjong games: a suit of nine ranks split into sets."""

from __future__ import annotations

__all__ = ["suit_is_sets"]


def suit_is_sets(c: list[int], i: int = 0) -> bool:
    """Whether the nine rank counts ``c`` of one suit, from rank ``i`` on, split into
    pungs (three of a rank) and chows (three ranks in a row) only. ``c`` is changed while
    searching and restored before returning."""
    while i < 9 and c[i] == 0:
        i += 1
    if i == 9:
        return True
    if c[i] >= 3:
        c[i] -= 3
        ok = suit_is_sets(c, i)
        c[i] += 3
        if ok:
            return True
    if i <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        ok = suit_is_sets(c, i)
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
        return ok
    return False
