"""Tenhou's meld bit field (the ``m`` of mjlog's ``N`` and ``AGARI``) decoded.

Tenhou's meld field ``m`` (bit 0 is the lowest):

- bits 0-1: the seat the tile came from, counted from the caller (1 right, 2 across, 3 left);
  0 for a closed kan.
- bit 2 set, a chi: bits 3-4, 5-6 and 7-8 are the copies (0-3) of the run's first, second and
  third tile; bits 10-15 hold ``run * 3 + called``, where ``run = suit * 7 + rank - 1`` of the
  run's lowest tile (rank 1-7) and ``called`` is which of the three was taken.
- else bit 3 set, a pon, or bit 4 set, an added kan: bits 5-6 are the copy left out of the pon
  (the copy added, for the kan); bits 9-15 hold ``kind * 3 + called``, ``called`` indexing the
  three pon tiles in copy order.
- else bit 5 set: a North taken out in three-player (not supported here).
- else a kan from a discard, or a closed kan when bits 0-1 are 0: bits 8-15 are the tile id
  ``kind * 4 + copy`` of the tile called (any tile of the kind for a closed kan).
"""

from __future__ import annotations

from referee.games.riichi.melds import Meld, MeldType
from referee.games.riichi.tiles import TILES, kind_of

__all__ = ["decode_meld"]


def decode_meld(m: int, who: int) -> Meld:
    """The meld of Tenhou's bit field ``m`` called by seat ``who`` (see the module notes).

    For an added kan the meld's ``taken``/``target`` are those of the pon it grew from.
    ``ValueError`` for a three-player North or a field that does not decode.
    """
    if not 0 <= m < 1 << 16:
        raise ValueError(f"meld field {m} out of range")
    offset = m & 0x3
    target = (who + offset) % 4 if offset else None
    if m & 0x4:
        if not offset:
            raise ValueError(f"chi {m} taken from the caller")
        pattern = m >> 10
        run, called = divmod(pattern, 3)
        suit, low = divmod(run, 7)
        if suit > 2:
            raise ValueError(f"chi {m} has no suit")
        first = suit * 9 + low
        copies = ((m >> 3) & 3, (m >> 5) & 3, (m >> 7) & 3)
        tiles = tuple((first + i) * 4 + copies[i] for i in range(3))
        return Meld(MeldType.CHI, tiles, tiles[called], target)
    if m & 0x18:
        if not offset:
            raise ValueError(f"pon {m} taken from the caller")
        kind, called = divmod(m >> 9, 3)
        if kind >= 34:
            raise ValueError(f"pon {m} has no tile kind")
        left_out = (m >> 5) & 3
        pon = tuple(kind * 4 + c for c in range(4) if c != left_out)
        if m & 0x8:
            return Meld(MeldType.PON, pon, pon[called], target)
        return Meld(MeldType.KAKAN, tuple(range(kind * 4, kind * 4 + 4)), pon[called], target)
    if m & 0x20:
        raise ValueError(f"meld {m} is a three-player North (not supported)")
    tile = m >> 8
    if tile >= TILES:
        raise ValueError(f"kan {m} has no tile")
    tiles = tuple(range(kind_of(tile) * 4, kind_of(tile) * 4 + 4))
    if target is None:
        return Meld(MeldType.ANKAN, tiles)
    return Meld(MeldType.DAIMINKAN, tiles, tile, target)
