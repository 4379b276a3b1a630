"""Riichi melds (calls): what the engine, the scoring, the log readers and mjai share."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from referee.games.riichi.tiles import kind_of

__all__ = ["Meld", "MeldType"]


class MeldType(enum.Enum):
    """A call, named as mjai names the events."""

    CHI = "chi"
    PON = "pon"
    DAIMINKAN = "daiminkan"
    """Open kan on a discard."""
    KAKAN = "kakan"
    """Added kan: a pon with its fourth tile."""
    ANKAN = "ankan"
    """Closed kan."""


@dataclass(frozen=True, slots=True)
class Meld:
    """A call: its tile ids (sorted), the tile taken from another seat (None for an ankan)
    and that seat (absolute 0..3, None for an ankan)."""

    type: MeldType
    tiles: tuple[int, ...]
    taken: int | None = None
    target: int | None = None

    @property
    def kind(self) -> int:
        """The kind of its lowest tile."""
        return kind_of(self.tiles[0])

    @property
    def is_kan(self) -> bool:
        """Whether it is a kan of any type."""
        return self.type in (MeldType.DAIMINKAN, MeldType.KAKAN, MeldType.ANKAN)

    @property
    def opened(self) -> bool:
        """Whether it opens the hand (every call but an ankan)."""
        return self.type is not MeldType.ANKAN
