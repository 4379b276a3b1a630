"""Sets and melds of a Taiwanese 16-tile hand: what the hand checks, the scoring and the
rules engine share.

A winning hand is 5 sets and a pair. Sets still in the hand (concealed) come out of a
``Decomposition``; sets on the table are ``Meld`` objects. Kinds are 0..33 (see
``tiles``); a chow is named by its lowest kind.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from referee.games.mahjong.tiles import kind_of

__all__ = ["Decomposition", "Meld", "MeldKind", "SetKind"]


class SetKind(enum.Enum):
    """A set inside a decomposition."""

    CHOW = "chow"
    PUNG = "pung"


@dataclass(frozen=True, slots=True)
class Decomposition:
    """One way to read concealed tiles as sets and a pair: ``sets`` sorted, each
    ``(SetKind, kind)`` (a chow by its lowest kind)."""

    pair: int
    sets: tuple[tuple[SetKind, int], ...]


class MeldKind(enum.Enum):
    """A set on the table."""

    CHOW = "chow"
    """Eaten from the left player's discard."""
    PUNG = "pung"
    """Ponged from any player's discard."""
    KONG = "kong"
    """Melded kong: three in hand and a discard (ICGA type 4)."""
    PROMOTED_KONG = "promoted kong"
    """A pung with its fourth tile added on one's own turn (ICGA type 1)."""
    CONCEALED_KONG = "concealed kong"
    """Four in hand, declared on one's own turn (ICGA type 0); hidden from the others."""


@dataclass(frozen=True, slots=True)
class Meld:
    """A set on the table: its TIDs in increasing order, the TID taken from a discard (if
    any) and the seat it was taken from."""

    kind: MeldKind
    tiles: tuple[int, ...]
    claimed: int | None = None
    source: int | None = None

    @property
    def base(self) -> int:
        """The kind of its lowest tile (a chow's name, a pung's or kong's kind)."""
        return kind_of(self.tiles[0])

    @property
    def is_kong(self) -> bool:
        """Whether it is any of the three kongs."""
        return self.kind in (MeldKind.KONG, MeldKind.PROMOTED_KONG, MeldKind.CONCEALED_KONG)

    @property
    def is_concealed(self) -> bool:
        """Only a concealed kong keeps the hand concealed."""
        return self.kind is MeldKind.CONCEALED_KONG
