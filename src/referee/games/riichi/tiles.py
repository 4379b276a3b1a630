"""Riichi tiles: the 136 tile ids of Tenhou (and of the ``mahjong`` package) and mjai names.

A tile id is ``kind * 4 + copy``. Kinds 0..33: 0-8 man 1-9, 9-17 pin 1-9, 18-26 sou 1-9,
27 East, 28 South, 29 West, 30 North, 31 White (haku, mjai ``P``), 32 Green (hatsu,
``F``), 33 Red (chun, ``C``). The red fives are copy 0 of the fives: ids 16 (``5mr``),
52 (``5pr``) and 88 (``5sr``), as Tenhou deals them.

mjai names: ``1m``..``9m``, ``1p``..``9p``, ``1s``..``9s``, ``E S W N P F C``, the red
fives ``5mr 5pr 5sr``, and ``?`` for a tile not shown.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "KINDS", "RED_FIVES", "TILES", "UNKNOWN", "is_red", "kind_name", "kind_of",
    "mjai_name", "parse_mjai", "tile_of",
]

KINDS: Final = 34
TILES: Final = 136
RED_FIVES: Final = frozenset({16, 52, 88})
UNKNOWN: Final = "?"
_HONORS: Final = ("E", "S", "W", "N", "P", "F", "C")
_SUITS: Final = "mps"


def kind_of(tile: int) -> int:
    """The kind 0..33 of a tile id 0..135."""
    return tile >> 2


def is_red(tile: int) -> bool:
    """Whether the tile is a red five."""
    return tile in RED_FIVES


def kind_name(kind: int) -> str:
    """The mjai name of a kind (no red): ``5m``, ``E``, ``C``."""
    if kind >= 27:
        return _HONORS[kind - 27]
    suit, rank = divmod(kind, 9)
    return f"{rank + 1}{_SUITS[suit]}"


def mjai_name(tile: int) -> str:
    """The mjai name of a tile id (``5mr`` for the red five of man)."""
    return kind_name(kind_of(tile)) + ("r" if tile in RED_FIVES else "")


_KIND_OF_NAME: Final = {kind_name(k): k for k in range(KINDS)}


def parse_mjai(name: str) -> tuple[int, bool]:
    """(kind, red) of an mjai tile name; ``ValueError`` names a bad one."""
    red = name.endswith("r") and len(name) == 3
    kind = _KIND_OF_NAME.get(name[:-1] if red else name)
    if kind is None or (red and kind not in (4, 13, 22)):
        raise ValueError(f"{name!r} is not an mjai tile name")
    return kind, red


def _pools(red_fives: bool) -> dict[str, tuple[int, ...]]:
    """Per mjai name, the tile ids it may stand for, lowest first: a red five its own id;
    any other name the copies of its kind, red fives left out unless ``red_fives`` is
    False (a game without red fives, where copy 0 of a five is a plain five)."""
    pools: dict[str, tuple[int, ...]] = {}
    for kind in range(KINDS):
        ids = range(kind * 4, kind * 4 + 4)
        pools[kind_name(kind)] = tuple(t for t in ids if not (red_fives and t in RED_FIVES))
    for tile in RED_FIVES:
        pools[mjai_name(tile)] = (tile,)
    return pools


_POOLS: Final = {red: _pools(red) for red in (False, True)}


def tile_of(name: str, taken: set[int] | frozenset[int] = frozenset(), *,
            red_fives: bool = True) -> int:
    """A tile id for an mjai name: the red five's own id, otherwise the lowest copy of the
    kind (not red, unless ``red_fives`` is False) that is not in ``taken``; ``ValueError``
    if there is none left or the name is not an mjai tile name."""
    pool = _POOLS[red_fives].get(name)
    if pool is None:
        parse_mjai(name)  # raises, naming the bad name
        raise AssertionError(name)  # pragma: no cover - every good name has a pool
    for tile in pool:
        if tile not in taken:
            return tile
    if len(pool) == 1 and pool[0] in RED_FIVES:
        raise ValueError(f"the red five {name} is already in play")
    raise ValueError(f"no copy of {name} is left")
