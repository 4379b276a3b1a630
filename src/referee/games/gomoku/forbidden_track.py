"""Every renju forbidden point of a position, kept up to date as stones are placed.

``ForbiddenTracker`` answers, after each stone, what calling ``renju.forbidden`` on every
empty point would: the points where black may not play and why. It does so without
checking every point again, from two facts about ``renju``'s check:

* what a line through a point tells on its own (five, overline, fours, the points that
  make it a straight four: ``renju._facts``) depends only on the 11 cells of that line
  centred on the point. A stone at ``s`` is in those cells only for the empty points on
  the four lines through ``s`` at most five steps away, and for each of them in the one
  line that holds ``s``. So after each stone at most 40 line facts change, and the
  tracker keeps all the others. (A white stone only takes facts away, so a line that
  told nothing before it is not even read again);
* the verdict of a point follows from its four line facts alone (``renju._direct``),
  except when they show candidate threes in two directions or more and no five, overline
  or double four. Such a point is a double three only if two of its threes can be
  completed, which the recursive check (``renju._double_three``) reads off the whole
  board, however far. These points are few; the tracker keeps them aside and settles
  every one of them again after every stone.

Only the changed points and those few are judged again after a stone, so a whole game's
forbidden points cost a small fraction of full scans. Pure: no I/O, no clocks.
"""

from __future__ import annotations

from .board import BLACK, EMPTY, WHITE, Board, Rule
from .renju import (
    _FACTS,
    _NOTHING,
    _REACH,
    _WIDTH,
    Forbidden,
    RenjuJudge,
    _analyse,
    _direct,
    _double_three,
    _Facts,
    _Threes,
)

__all__ = ["ForbiddenTracker"]

_OFFSETS = tuple(k for k in range(-_REACH, _REACH + 1) if k)
"""Steps from a stone to the points whose line facts it can change (a line's facts are
read from the point and ``_REACH`` cells each side)."""


class ForbiddenTracker:
    """The renju forbidden points for black of a position built stone by stone.

    Start from an empty ``width`` x ``height`` board, ``place`` stones of either colour
    in any order, and read ``points()`` whenever needed: it is always exactly what
    ``renju.forbidden(board, x, y, judge)`` gives over every empty point of the board.
    """

    __slots__ = ("_board", "_gomocup", "_judge", "_lines", "_pending", "_points")

    def __init__(self, width: int, height: int, judge: RenjuJudge = RenjuJudge.RIF) -> None:
        """An empty board (``ValueError`` for a size ``Board`` does not accept)."""
        self._board = Board(width, height, rule=Rule.RENJU)
        self._judge = judge
        self._gomocup = judge is RenjuJudge.GOMOCUP
        # Line facts of every cell, one list per direction (indexed by cell). On an empty
        # board a lone black stone makes nothing in any line, hence all _NOTHING.
        size = len(self._board.cells)
        self._lines: list[list[_Facts]] = [[_NOTHING] * size for _ in self._board.directions]
        # Cells whose line facts leave the verdict to the recursive check, with their
        # candidate threes (in two directions or more).
        self._pending: dict[int, _Threes] = {}
        self._points: dict[tuple[int, int], Forbidden] = {}

    @property
    def width(self) -> int:
        """Columns of the board."""
        return self._board.width

    @property
    def height(self) -> int:
        """Rows of the board."""
        return self._board.height

    @property
    def judge(self) -> RenjuJudge:
        """The reading of the recursive three rule in use."""
        return self._judge

    def place(self, x: int, y: int, color: int) -> None:
        """Put a stone of ``color`` (``BLACK`` or ``WHITE``) on the empty point ``(x, y)``
        and bring the forbidden points up to date. ``ValueError`` for a bad colour or a
        point that is off the board or taken (the tracker is then unchanged)."""
        if color not in (BLACK, WHITE):
            raise ValueError(f"stone colour {color!r} is neither black nor white")
        board = self._board
        board.place(x, y, color)
        i = board.index(x, y)
        cells = bytes(board.cells)
        directions = board.directions
        lines = self._lines
        points = self._points
        pending = self._pending
        points.pop((x, y), None)
        pending.pop(i, None)

        # The empty points whose line holding the stone now reads differently. A white
        # stone only takes away (it fills an empty cell, and black's runs, fives and
        # overlines are made of black cells), so a line that told nothing still tells
        # nothing after it.
        white = color == WHITE
        facts = _FACTS
        changed: list[int] = []
        for line, step in zip(lines, directions, strict=True):
            back = _REACH * step
            span = _WIDTH * step
            for k in _OFFSETS:
                j = i + k * step
                if cells[j] != EMPTY:  # a stone, or past the edge
                    continue
                old = line[j]
                if white and old is _NOTHING:
                    continue
                start = j - back
                key = cells[start : start + span : step]  # as renju._facts(), inlined
                f = facts.get(key)
                if f is None:
                    f = facts[key] = _analyse(key)
                if f != old:
                    line[j] = f
                    changed.append(j)

        for j in changed:
            found = _direct([line[j] for line in lines], directions)
            if isinstance(found, list):
                pending[j] = found  # settled below
                continue
            pending.pop(j, None)
            self._set(j, found)
        # Points with two candidate threes or more: their verdict may turn on any stone.
        gomocup = self._gomocup
        for j, threes in pending.items():
            self._set(j, _double_three(cells, j, threes, directions, gomocup))

    def _set(self, i: int, verdict: Forbidden | None) -> None:
        """Record the verdict of the empty cell ``i``."""
        point = self._board.point(i)
        if verdict is None:
            self._points.pop(point, None)
        else:
            self._points[point] = verdict

    def points(self) -> dict[tuple[int, int], Forbidden]:
        """Every empty point where black may not play now, with the reason (a new dict)."""
        return dict(self._points)

    def copy(self) -> ForbiddenTracker:
        """An independent copy (to follow another line of play from here)."""
        other = ForbiddenTracker.__new__(ForbiddenTracker)
        other._board = self._board.copy()
        other._judge = self._judge
        other._gomocup = self._gomocup
        other._lines = [line[:] for line in self._lines]
        other._pending = dict(self._pending)  # the threes lists are never changed in place
        other._points = dict(self._points)
        return other
