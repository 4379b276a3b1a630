"""ICGA Mahjong tiles: the spec's tile ids (TIDs), tile kinds, and walls from a seed.

A TID is ``suit * 100 + rank * 10 + copy`` for the 136 suited and honor tiles (suit 1 Wan,
2 Tiao, 3 Tong, 4 honors; ``copy`` 0..3) and ``10 .. 80`` for the 8 flowers. Honor ranks
follow the spec's table: 1 East, 2 West, 3 South, 4 North, 5 Red, 6 Green, 7 White.

A *kind* is 0..33, the tile without its copy number: 0..8 Wan 1..9, 9..17 Tiao,
18..26 Tong, 27 East, 28 South, 29 West, 30 North (seat order), 31 Red, 32 Green,
33 White. Hands are counted per kind (a list of 34 counts) by the hand checks.

Walls are shuffled with SplitMix64 (a fixed, documented generator), so a seed gives the
same wall on every machine and every Python version.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from referee.core.shuffle import splitmix_shuffle

__all__ = [
    "ALL_TILES",
    "FLOWERS",
    "HONOR_NAMES",
    "KINDS",
    "KIND_TABLE",
    "SHORT_NAMES_KEY",
    "SUIT_NAMES",
    "WINDS",
    "counts_of",
    "is_flower",
    "kind_name",
    "kind_of",
    "make_wall",
    "parse_tid",
    "short_name",
    "tid_name",
    "tids_of_kind",
]

KINDS = 34
SUIT_NAMES = ("Wan", "Tiao", "Tong")
WINDS = ("EAST", "SOUTH", "WEST", "NORTH")
"""Seat and round winds in playing order; the kind of wind ``w`` is ``27 + w``."""
HONOR_NAMES = ("East", "South", "West", "North", "Red", "Green", "White")
"""Honor kinds 27..33 in kind order."""
_HONOR_RANK_TO_KIND = {1: 27, 2: 29, 3: 28, 4: 30, 5: 31, 6: 32, 7: 33}
"""The spec numbers the winds East 41, West 42, South 43, North 44."""
_KIND_TO_HONOR_RANK = {kind: rank for rank, kind in _HONOR_RANK_TO_KIND.items()}
FLOWERS = (10, 20, 30, 40, 50, 60, 70, 80)
"""Spring, Summer, Autumn, Winter, Plum, Orchid, Chrysanthemum, Bamboo."""
FLOWER_NAMES = ("Spring", "Summer", "Autumn", "Winter", "Plum", "Orchid",
                "Chrysanthemum", "Bamboo")


def parse_tid(text: str) -> int:
    """A TID from its text; ``ValueError`` names what is wrong."""
    if not text.isdecimal() or len(text) > 3:
        shown = text if len(text) <= 12 else text[:9] + "..."
        raise ValueError(f"{shown!r} is not a tile id")
    tid = int(text)
    if tid not in _VALID:
        raise ValueError(f"{tid} is not a tile id (110..473 or a flower 10..80)")
    return tid


def is_flower(tid: int) -> bool:
    """Whether ``tid`` is one of the 8 flowers."""
    return tid < 100


def _kind(tid: int) -> int:
    suit, rank = divmod(tid // 10, 10)
    if suit == 4:
        return _HONOR_RANK_TO_KIND[rank]
    return (suit - 1) * 9 + rank - 1


KIND_TABLE: tuple[int, ...] = tuple(
    _kind(t) if 110 <= t <= 473 and t // 10 % 10 and (t // 100 < 4 or t // 10 % 10 <= 7)
    else -1 for t in range(474))
"""TID -> kind (-1 for numbers that are no suited or honor tile): the fast path."""


def kind_of(tid: int) -> int:
    """The kind 0..33 of a suited or honor TID."""
    return KIND_TABLE[tid]


def tids_of_kind(kind: int) -> tuple[int, int, int, int]:
    """The four TIDs of a kind."""
    if kind >= 27:
        base = 400 + _KIND_TO_HONOR_RANK[kind] * 10
    else:
        suit, rank = divmod(kind, 9)
        base = (suit + 1) * 100 + (rank + 1) * 10
    return base, base + 1, base + 2, base + 3


def kind_name(kind: int) -> str:
    """``5-Wan``, ``East``, ``Red`` ..."""
    if kind >= 27:
        return HONOR_NAMES[kind - 27]
    suit, rank = divmod(kind, 9)
    return f"{rank + 1}-{SUIT_NAMES[suit]}"


def tid_name(tid: int) -> str:
    """A TID in words (``5-Wan``, ``Plum``)."""
    if is_flower(tid):
        return FLOWER_NAMES[tid // 10 - 1]
    return kind_name(kind_of(tid))


_SHORT_SUITS = ("c", "b", "d")
"""Suit letters of the short names: characters (Wan), bamboo (Tiao), dots (Tong)."""
_SHORT_HONORS = ("E", "S", "W", "N", "Rd", "Gd", "Wd")
"""Honour kinds 27..33 in kind order (as ``HONOR_NAMES``)."""

SHORT_NAMES_KEY = ("1c-9c Wan (characters), 1b-9b Tiao (bamboo), 1d-9d Tong (dots); "
                   "E S W N winds, Rd Gd Wd dragons, F1-F8 flowers")
"""What the short names stand for (the key under a replay)."""


def short_name(tid: int) -> str:
    """A TID in two or three letters, each kind its own: ``5c`` (5-Wan), ``5b`` (5-Tiao),
    ``5d`` (5-Tong), ``E``, ``Rd``, ``F3`` (see ``SHORT_NAMES_KEY``)."""
    return tile_name(tid, _SHORT_SUITS, _SHORT_HONORS, "F")


def tile_name(tid: int, suits: Sequence[str], honors: Sequence[str], flower: str) -> str:
    """A TID written with a letter per suit (Wan, Tiao, Tong) after the rank, a name per
    honor kind (East, South, West, North, Red, Green, White) and ``flower`` before a
    flower's number."""
    if is_flower(tid):
        return f"{flower}{tid // 10}"
    kind = kind_of(tid)
    if kind >= 27:
        return honors[kind - 27]
    suit, rank = divmod(kind, 9)
    return f"{rank + 1}{suits[suit]}"


def counts_of(tids: Iterable[int]) -> list[int]:
    """The 34 per-kind counts of some suited and honor tiles."""
    counts = [0] * KINDS
    table = KIND_TABLE
    for tid in tids:
        counts[table[tid]] += 1
    return counts


ALL_TILES: tuple[int, ...] = tuple(
    sorted([t for kind in range(KINDS) for t in tids_of_kind(kind)] + list(FLOWERS)))
"""The 144 TIDs of a set."""
_VALID = frozenset(ALL_TILES)

def make_wall(seed: int, tiles: Sequence[int] = ALL_TILES) -> list[int]:
    """The 144 tiles in wall order for ``seed`` (Fisher-Yates with SplitMix64; draws come
    from the front, replacements for flowers and kongs from the back)."""
    return splitmix_shuffle(tiles, seed)
