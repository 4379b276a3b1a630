"""Mahjong Soul's grading points: how a ranked game changes each player's rank points.

The change of a player's rank points (the annotations' "grading delta", which kanachan
reads from Mahjong Soul's records) is::

    ceil((final points - 25000) / 1000 + uma[rank] + room points[rank])

rounded up to a whole number (+68.2 gives +69, -1.9 gives -1), where ``uma`` is 15, 5, -5,
-15 and the room points of first, second and third place depend on the room and the game
length; fourth place instead loses the last-place penalty of the player's grade:

=========  =============  ==============
room       east           east-south
=========  =============  ==============
Bronze     10, 5, 0       20, 10, 0
Silver     20, 10, 0      40, 20, 0
Gold       40, 20, 0      80, 40, 0
Jade       55, 30, 0      110, 55, 0
Throne     60, 30, 0      120, 60, 0
=========  =============  ==============

Last-place penalties (east / east-south): Novice 0 / 0; Adept 1-3 10 / 20, 20 / 40,
30 / 60; Expert 1-3 40 / 80, 50 / 100, 60 / 120; Master 1-3 80 / 165, 90 / 180,
100 / 195; Saint 1-3 110 / 210, 120 / 225, 130 / 240. Sources: riichi.wiki "Majsoul"
(the formula, the rounding, the penalties, the Bronze to Gold and Throne room points);
the Jade room's points as simulations of the current ladder use them. Celestial players
count soul points instead, by place only; their change is taken here as a Saint 3's
(grade 14), the nearest the formula gives.
"""

from __future__ import annotations

from typing import Final

__all__ = ["grading_delta"]

_UMA: Final = (15, 5, -5, -15)
_ROOM_POINTS: Final = {
    False: ((20, 10, 0), (40, 20, 0), (80, 40, 0), (110, 55, 0), (120, 60, 0)),
    True: ((10, 5, 0), (20, 10, 0), (40, 20, 0), (55, 30, 0), (60, 30, 0)),
}
"""By east game, by room (Bronze .. Throne): first, second and third place's points."""
_LAST_PLACE: Final = {
    False: (0, 0, 0, 20, 40, 60, 80, 100, 120, 165, 180, 195, 210, 225, 240),
    True: (0, 0, 0, 10, 20, 30, 40, 50, 60, 80, 90, 100, 110, 120, 130),
}
"""By east game, by grade (Novice 1 .. Saint 3): the penalty of fourth place."""


def grading_delta(room: int, east: bool, grade: int, rank: int, points: int,
                  start_points: int = 25000) -> int:
    """The rank points a player of ``grade`` (0..15) gains in ``room`` (0 Bronze .. 4
    Throne) for an east (or east-south) game ended in place ``rank`` (1..4) with
    ``points`` (see the module notes)."""
    if not (0 <= room <= 4 and 0 <= grade <= 15 and 1 <= rank <= 4):
        raise ValueError(f"room {room}, grade {grade}, rank {rank}: out of range")
    place = (-_LAST_PLACE[east][min(grade, 14)] if rank == 4
             else _ROOM_POINTS[east][room][rank - 1])
    thousandths = points - start_points + 1000 * (_UMA[rank - 1] + place)
    return -(-thousandths // 1000)  # rounded up, in whole numbers
