"""A seeded shuffle that gives the same order on every machine and Python version.

Fisher-Yates driven by SplitMix64 (a fixed, documented 64-bit generator): from the last
position down to 1, position ``i`` swaps with ``j = next() % (i + 1)``. The Mahjong walls
(``referee.games.mahjong.tiles.make_wall``) use exactly this procedure, so that module can
call :func:`splitmix_shuffle` instead of its own copy without changing a single wall.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

__all__ = ["splitmix64", "splitmix_shuffle"]

T = TypeVar("T")
_MASK = (1 << 64) - 1


def splitmix64(state: int) -> tuple[int, int]:
    """The next ``(state, output)`` of SplitMix64 from ``state`` (64-bit integers)."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return state, z ^ (z >> 31)


def splitmix_shuffle(items: Iterable[T], seed: int) -> list[T]:
    """A new list of ``items`` shuffled by ``seed`` (only its low 64 bits count)."""
    out = list(items)
    state = seed & _MASK
    for i in range(len(out) - 1, 0, -1):
        state, value = splitmix64(state)
        j = value % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out
