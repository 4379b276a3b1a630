"""Renju forbidden points: where black may not play (overline, double four, double three).

Only black is restricted; white may play anywhere. The rules, for a black stone ``p``:

* a stone that makes an *exact five* (exactly five in a row) in any direction is never
  forbidden, whatever else it makes;
* otherwise a stone that makes an *overline* (six or more in a row) is forbidden;
* a *four* is a line through ``p`` where one more black stone makes an exact five with
  ``p`` in it. Fours are counted by their four stones: the straight four ``.XXXX.`` is
  one four, while ``X.XXX.X`` (``p`` in the middle) and ``XX.XX.XX`` are two fours in
  one line. Two fours or more make a *double four*, forbidden;
* a *three* is a line through ``p`` where one more black stone at a point ``q`` makes a
  *straight four* (four in a row whose two ends both give an exact five) holding both
  ``p`` and ``q``, and ``q`` is not itself forbidden once ``p`` is on the board (checked
  recursively). A line holds at most one three. Threes in two directions or more make a
  *double three*, forbidden. A four and a three together (four-three) are allowed.

The board edge blocks a line like a white stone does.

Two judges read the recursive three rule differently (``RenjuJudge``): ``RIF`` (the
default) follows the RIF rules' letter, where a straight-four point that also makes an
exact five in another line is not forbidden, so the three counts; ``GOMOCUP`` follows
GomocupJudge, Piskvork and Rapfi, where such a point cannot complete the three, so it is
no three (at every depth of the recursive check).

How it is fast: each of the four lines through the point is read as an 11-byte slice (the
point and five cells each side) of one copy of the board cells. Everything a line can
tell (five, overline, number of fours, the points that turn it into a straight four) is
worked out once per distinct slice and kept in a cache; the few points that have threes
in two directions or more are then settled by the recursive check. The same steps, line
facts (``_facts``), what they tell alone (``_direct``) and the recursive check
(``_double_three``), serve ``forbidden_track``, which keeps every point's line facts up to
date as stones are placed.
"""

from __future__ import annotations

import enum
from typing import Final

from .board import BLACK, EMPTY, WALL, Board

__all__ = ["Forbidden", "RenjuJudge", "forbidden", "is_forbidden"]


class Forbidden(enum.Enum):
    """Why a point is forbidden for black under renju rules."""

    OVERLINE = "overline"
    DOUBLE_FOUR = "double-four"
    DOUBLE_THREE = "double-three"


class RenjuJudge(enum.Enum):
    """Whose reading of the recursive three rule decides (see the module's notes)."""

    RIF = "rif"
    GOMOCUP = "gomocup"

    @classmethod
    def parse(cls, text: str) -> RenjuJudge:
        """``"rif"`` or ``"gomocup"`` (any case); ``ValueError`` naming both otherwise."""
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise ValueError(f"unknown renju judge {text!r}: expected rif or gomocup") from None


# -- per-line facts ---------------------------------------------------------------------
_REACH: Final = 5
"""Cells read each side of the point: a five holding the point spans at most 4 cells each
side, and the cell just past it tells an exact five from an overline. The board's wall
frame (``PAD``) is 5 cells wide, so such a read never leaves the array."""
_WIDTH: Final = 2 * _REACH + 1
_CENTRE: Final = _REACH

_FIVE: Final = 1
_OVERLINE: Final = 2

_Facts = tuple[int, int, tuple[int, ...]]
"""``(kind, fours, three_points)`` of one line through the point, once black plays there.

``kind`` is ``_FIVE``, ``_OVERLINE`` or 0; ``fours`` is the number of fours holding the
point; ``three_points`` are the offsets (in steps from the point) of the empty points that
would turn the line into a straight four holding the point: the line is a three when one
of them is not forbidden. No line has both fours and three points (checked over all
``3**10`` lines), so a line is a four, a three or neither, as the rules have it.
"""

_NOTHING: Final[_Facts] = (0, 0, ())
_FACTS: dict[bytes, _Facts] = {}
"""Cache: line slice (cells as on the board, the centre not yet black) -> its facts.

At most ``4**10`` keys in principle; in practice far fewer, as walls only come in runs
from the edge (about 10**5 at most). Pure: the value depends on the key alone."""


def _run(line: list[int], centre: int) -> tuple[int, int]:
    """First and last index of the black run through ``centre`` in ``line``."""
    lo = centre
    while lo > 0 and line[lo - 1] == BLACK:
        lo -= 1
    hi = centre
    last = len(line) - 1
    while hi < last and line[hi + 1] == BLACK:
        hi += 1
    return lo, hi


def _analyse(key: bytes) -> _Facts:
    """The facts of one 11-cell line with black about to play at its centre."""
    # Only three kinds of cell matter: empty, black, and anything else (white or wall).
    line = [c if c in (EMPTY, BLACK) else WALL for c in key]
    line[_CENTRE] = BLACK
    lo, hi = _run(line, _CENTRE)
    length = hi - lo + 1
    if length == 5:
        return (_FIVE, 0, ())
    if length > 5:
        return (_OVERLINE, 0, ())

    # Fours: each empty point that makes an exact five holding the centre, told apart by
    # the four stones it completes (both ends of a straight four complete the same four).
    fours: set[tuple[int, ...]] = set()
    for q in range(1, _WIDTH - 1):
        if line[q] != EMPTY:
            continue
        line[q] = BLACK
        lo, hi = _run(line, _CENTRE)
        if hi - lo == 4 and lo <= q <= hi:
            fours.add(tuple(k for k in range(lo, hi + 1) if k != q))
        line[q] = EMPTY

    # Threes: empty points that make a straight four holding the centre and themselves:
    # a run of exactly four, both ends empty, and no black just past either end (so both
    # ends give an exact five, not an overline). A four spans at most 3 cells each side.
    threes: list[int] = []
    for q in range(_CENTRE - 3, _CENTRE + 4):
        if line[q] != EMPTY:
            continue
        line[q] = BLACK
        lo, hi = _run(line, _CENTRE)
        if (
            hi - lo == 3
            and lo <= q <= hi
            and line[lo - 1] == EMPTY
            and line[hi + 1] == EMPTY
            and line[lo - 2] != BLACK
            and line[hi + 2] != BLACK
        ):
            threes.append(q - _CENTRE)
        line[q] = EMPTY

    if not fours and not threes:
        return _NOTHING
    return (0, len(fours), tuple(threes))


# -- the check --------------------------------------------------------------------------
_BLACK_BYTE: Final = bytes([BLACK])


def forbidden(
    board: Board, x: int, y: int, judge: RenjuJudge = RenjuJudge.RIF
) -> Forbidden | None:
    """Why BLACK may not play at the empty point ``(x, y)`` under renju rules, or ``None``.

    The board's own rule is not consulted (callers use this for renju). ``(x, y)`` must be
    an empty point of the board; the board is not changed. ``judge`` chooses the reading
    of the recursive three rule.
    """
    if not board.on_board(x, y):
        raise ValueError(f"point {x},{y} is not on the board")
    i = board.index(x, y)
    if board.cells[i] != EMPTY:
        raise ValueError(f"point {x},{y} is not empty")
    return _verdict(bytes(board.cells), i, board.directions, judge is RenjuJudge.GOMOCUP)


def is_forbidden(board: Board, x: int, y: int, judge: RenjuJudge = RenjuJudge.RIF) -> bool:
    """Whether BLACK may not play at the empty point ``(x, y)`` under renju rules."""
    return forbidden(board, x, y, judge) is not None


def _facts(cells: bytes, i: int, step: int) -> _Facts:
    """The facts of the line through cell ``i`` along ``step`` (cached by its slice)."""
    start = i - _REACH * step
    key = cells[start : start + _WIDTH * step : step]
    f = _FACTS.get(key)
    if f is None:
        f = _FACTS[key] = _analyse(key)
    return f


def _verdict(
    cells: bytes, i: int, directions: tuple[int, ...], gomocup: bool
) -> Forbidden | None:
    """The verdict for black at the empty cell ``i`` of ``cells`` (a copy of the board cells)."""
    facts = _FACTS
    lines: list[_Facts] = []
    quiet = True
    for step in directions:
        start = i - _REACH * step
        key = cells[start : start + _WIDTH * step : step]  # as _facts(), inlined: hot path
        f = facts.get(key)
        if f is None:
            f = facts[key] = _analyse(key)
        lines.append(f)
        if f is not _NOTHING:
            quiet = False
    if quiet:  # most points: nothing in any line
        return None
    found = _direct(lines, directions)
    if isinstance(found, list):
        return _double_three(cells, i, found, directions, gomocup)
    return found


_Threes = list[tuple[int, tuple[int, ...]]]
"""Candidate threes of a point: ``(step, three_points)`` for each line that has some."""


def _direct(lines: list[_Facts], directions: tuple[int, ...]) -> Forbidden | _Threes | None:
    """What the lines through a point tell on their own: ``None`` (allowed), the reason it
    is forbidden, or, when it has candidate threes in two directions or more and nothing
    else decides, those threes, for ``_double_three`` to settle.

    ``lines`` are the facts of the lines along ``directions``, in the same order. The
    answer depends on them alone, except in the last case, where it depends on the board.
    """
    overline = False
    fours = 0
    threes: _Threes = []
    for step, f in zip(directions, lines, strict=True):
        if f is _NOTHING:
            continue
        kind, n, points = f
        if kind == _FIVE:
            return None
        if kind == _OVERLINE:
            overline = True
        fours += n
        if points:
            threes.append((step, points))
    if overline:
        return Forbidden.OVERLINE
    if fours >= 2:
        return Forbidden.DOUBLE_FOUR
    if len(threes) < 2:
        return None
    return threes


def _double_three(
    cells: bytes, i: int, threes: _Threes, directions: tuple[int, ...], gomocup: bool
) -> Forbidden | None:
    """Whether two or more of the candidate ``threes`` of the empty cell ``i`` are real
    threes (``DOUBLE_THREE``) or not (``None``): a three counts only if one of its
    straight-four points can be played once black is on ``i`` (checked recursively)."""
    after = cells[:i] + _BLACK_BYTE + cells[i + 1 :]
    real = 0
    left = len(threes)
    for step, points in threes:
        left -= 1
        if any(_completes(after, i + off * step, directions, gomocup) for off in points):
            real += 1
            if real >= 2:
                return Forbidden.DOUBLE_THREE
        if real + left < 2:
            break
    return None


def _completes(cells: bytes, q: int, directions: tuple[int, ...], gomocup: bool) -> bool:
    """Whether black may play the straight-four point ``q`` of a three: it is not forbidden,
    and for the Gomocup judge it makes no exact five in any line either."""
    if gomocup and any(_facts(cells, q, step)[0] == _FIVE for step in directions):
        return False
    return _verdict(cells, q, directions, gomocup) is None
