"""The Gomoku board: stones, rules of winning, and fast line scans.

The board is a flat ``bytearray`` with a frame of ``PAD`` wall cells around the playing
area (rows are ``width + PAD`` cells apart, every row starting with ``PAD`` walls, and
``PAD`` wall rows above and below plus ``PAD`` cells at the end), so that any scan up to
``PAD`` cells away from a point, in any direction, stays inside the array at a
non-negative index and never needs a bounds check: it simply meets a ``WALL`` cell.

Pure and deterministic: no I/O, no clocks. ``copy()`` is cheap (one bytearray copy).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator

EMPTY = 0
BLACK = 1
WHITE = 2
WALL = 3

PAD = 5
"""Width of the wall frame; scans may look this far past the edge of the board."""

MIN_SIZE = 5
MAX_SIZE = 32


def column(x: int) -> str:
    """The letter(s) of column ``x``: ``a``..``z``, then ``aa``, ``ab``... (boards up to
    32 wide)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[x] if x < 26 else letters[x // 26 - 1] + letters[x % 26]


def point_name(x: int, y: int) -> str:
    """The point as players read it (Piskvork, the Gomocup pages): ``h8`` for ``7,7``."""
    return f"{column(x)}{y + 1}"


def opponent(color: int) -> int:
    """Return the other colour (BLACK <-> WHITE)."""
    return 3 - color


class Rule(enum.Enum):
    """The winning rule of a game, with its Gomocup ``INFO rule`` bitmask.

    The caro rules are GomocupJudge's: a five whose two ends are both blocked (by an
    opponent stone or the edge of the board) does not win; under ``CARO`` (rule 8) a line
    of six or more always wins, under ``CARO5`` (rule 9: 8 + exactly five) it never does.
    """

    FREESTYLE = "freestyle"
    EXACT5 = "exact5"
    RENJU = "renju"
    CARO = "caro"
    CARO5 = "caro5"

    @property
    def bitmask(self) -> int:
        """The value sent to brains as ``INFO rule``."""
        return _BITMASK[self]

    def exact_for(self, color: int) -> bool:
        """Whether only exactly five wins for ``color`` (an overline does not)."""
        return (self is Rule.EXACT5 or self is Rule.CARO5  # (not a set: an Enum's hash
                or (self is Rule.RENJU and color == BLACK))  # is Python code)

    @property
    def caro(self) -> bool:
        """Whether a five blocked at both ends does not win."""
        return self is Rule.CARO or self is Rule.CARO5

    @property
    def judged(self) -> str:
        """What wins under the rule, in words (for match headers and records)."""
        return _JUDGED[self]

    @property
    def title(self) -> str:
        """A human-readable name, also used in Piskvork files."""
        return _TITLE[self]

    @classmethod
    def parse(cls, text: str) -> Rule:
        """Parse a rule name or its Gomocup bitmask (``"renju"``, ``"4"``...)."""
        key = text.strip().lower().replace("-", "").replace("_", "")
        for rule in cls:
            if key in (rule.value, str(rule.bitmask)) or key in _ALIASES.get(rule, ()):
                return rule
        names = ", ".join(r.value for r in cls)
        raise ValueError(f"unknown rule {text!r}: expected one of {names}")


_BITMASK = {Rule.FREESTYLE: 0, Rule.EXACT5: 1, Rule.RENJU: 4, Rule.CARO: 8, Rule.CARO5: 9}
_TITLE = {
    Rule.FREESTYLE: "Freestyle",
    Rule.EXACT5: "Exact five",
    Rule.RENJU: "Renju",
    Rule.CARO: "Caro",
    Rule.CARO5: "Caro (exact five)",
}
_JUDGED = {
    Rule.FREESTYLE: "five or more in a row wins",
    Rule.EXACT5: "exactly five in a row wins (six or more does not)",
    Rule.RENJU: "black wins with exactly five and may not play a forbidden point "
                "(double three, double four, overline); white wins with five or more",
    Rule.CARO: "five or more in a row wins, but an exact five closed at both ends "
               "(opponent stone or board edge) does not",
    Rule.CARO5: "exactly five in a row wins, unless closed at both ends "
                "(opponent stone or board edge)",
}
_ALIASES = {
    Rule.FREESTYLE: ("gomoku", "free"),
    Rule.EXACT5: ("exactfive", "standard", "exact"),
    Rule.CARO5: ("caroexact", "exactcaro", "carofive"),
}


class Board:
    """A rectangular Gomoku board with the stones played so far, in order.

    Coordinates are ``(x, y)`` with ``0 <= x < width`` and ``0 <= y < height``, as in the
    Gomocup protocol. ``index(x, y)`` gives the cell of a point in ``cells``; the four
    line directions are the index steps in ``directions``.
    """

    __slots__ = ("cells", "directions", "height", "moves", "rule", "stride", "width")

    def __init__(self, width: int, height: int | None = None, rule: Rule = Rule.FREESTYLE):
        height = width if height is None else height
        for name, value in (("width", width), ("height", height)):
            if not MIN_SIZE <= value <= MAX_SIZE:
                raise ValueError(f"board {name} {value} is outside {MIN_SIZE}..{MAX_SIZE}")
        self.width = width
        self.height = height
        self.rule = rule
        self.stride = width + PAD
        self.cells = bytearray([WALL]) * ((height + 2 * PAD) * self.stride + PAD)
        for y in range(height):
            start = self.index(0, y)
            self.cells[start : start + width] = bytes(width)
        self.directions = (1, self.stride, self.stride + 1, self.stride - 1)
        self.moves: list[tuple[int, int]] = []

    # -- geometry -----------------------------------------------------------------------
    def index(self, x: int, y: int) -> int:
        """The cell index of point ``(x, y)`` (which must be on the board)."""
        return (y + PAD) * self.stride + x + PAD

    def point(self, index: int) -> tuple[int, int]:
        """The ``(x, y)`` point of a cell index."""
        y, x = divmod(index - PAD, self.stride)
        return x, y - PAD

    def on_board(self, x: int, y: int) -> bool:
        """Whether ``(x, y)`` lies on the board."""
        return 0 <= x < self.width and 0 <= y < self.height

    @property
    def center(self) -> tuple[int, int]:
        """The centre point (rounded down), the origin of opening offsets."""
        return self.width // 2, self.height // 2

    # -- state --------------------------------------------------------------------------
    def copy(self) -> Board:
        """A cheap independent copy."""
        other = Board.__new__(Board)
        other.width = self.width
        other.height = self.height
        other.rule = self.rule
        other.stride = self.stride
        other.cells = self.cells[:]
        other.directions = self.directions
        other.moves = self.moves[:]
        return other

    def __getitem__(self, point: tuple[int, int]) -> int:
        return self.cells[self.index(*point)]

    def is_empty(self, x: int, y: int) -> bool:
        """Whether ``(x, y)`` is on the board and has no stone."""
        return self.on_board(x, y) and self.cells[self.index(x, y)] == EMPTY

    @property
    def to_move(self) -> int:
        """The colour whose stone comes next (black plays first)."""
        return BLACK if len(self.moves) % 2 == 0 else WHITE

    def is_full(self) -> bool:
        """Whether every point holds a stone."""
        return len(self.moves) >= self.width * self.height

    def place(self, x: int, y: int, color: int | None = None) -> None:
        """Put a stone (of the colour to move by default). The point must be empty."""
        i = self.index(x, y)
        if not self.on_board(x, y) or self.cells[i] != EMPTY:
            raise ValueError(f"point {x},{y} is not an empty point of the board")
        self.cells[i] = self.to_move if color is None else color
        self.moves.append((x, y))

    def undo(self) -> tuple[int, int]:
        """Take back the last stone and return its point."""
        x, y = self.moves.pop()
        self.cells[self.index(x, y)] = EMPTY
        return x, y

    def empty_points(self) -> Iterator[tuple[int, int]]:
        """All empty points, row by row."""
        cells = self.cells
        for y in range(self.height):
            base = self.index(0, y)
            for x in range(self.width):
                if cells[base + x] == EMPTY:
                    yield x, y

    def stones(self) -> Iterator[tuple[int, int, int]]:
        """Every stone as ``(x, y, colour)`` in played order."""
        for x, y in self.moves:
            yield x, y, self.cells[self.index(x, y)]

    # -- lines --------------------------------------------------------------------------
    def run_length(self, i: int, step: int, color: int) -> int:
        """Length of the line of ``color`` through cell ``i`` along ``step``.

        Cell ``i`` itself counts as ``color`` whatever it holds, so this also answers
        "how long would the line be if ``color`` played at ``i``".
        """
        cells = self.cells
        n = 1
        j = i + step
        while cells[j] == color:
            n += 1
            j += step
        j = i - step
        while cells[j] == color:
            n += 1
            j -= step
        return n

    def makes_win(self, x: int, y: int, color: int) -> bool:
        """Whether ``color`` playing at ``(x, y)`` completes a winning line under the rule.

        Renju forbidden points are a separate question (see ``renju.forbidden``); a black
        exact five wins in renju even where the same stone also makes a double four.
        """
        return self._winning_step(self.index(x, y), color) is not None

    def _winning_step(self, i: int, color: int) -> int | None:
        """The direction step of a winning line of ``color`` through cell ``i``, if any."""
        rule = self.rule
        exact = rule.exact_for(color)
        caro = rule.caro
        for step in self.directions:
            n = self.run_length(i, step, color)
            if n < 5 or (exact and n != 5):
                continue
            if caro and n == 5 and self._blocked_both_ends(i, step, color):
                continue
            return step
        return None

    def _blocked_both_ends(self, i: int, step: int, color: int) -> bool:
        """Whether the line of ``color`` through ``i`` is closed at both ends, each by an
        opponent stone or the edge of the board (as GomocupJudge judges caro)."""
        cells = self.cells
        j = i + step
        while cells[j] == color:
            j += step
        k = i - step
        while cells[k] == color:
            k -= step
        return cells[j] != EMPTY and cells[k] != EMPTY

    def winner_line(self, x: int, y: int) -> list[tuple[int, int]]:
        """The stones of the winning line through the stone at ``(x, y)``, or ``[]``."""
        i = self.index(x, y)
        color = self.cells[i]
        step = self._winning_step(i, color) if color in (BLACK, WHITE) else None
        if step is None:
            return []
        while self.cells[i - step] == color:
            i -= step
        return [self.point(i + k * step) for k in range(self.run_length(i, step, color))]

    def render(self) -> str:
        """A plain-text picture of the board (``X`` black, ``O`` white, ``.`` empty)."""
        symbols = {EMPTY: ".", BLACK: "X", WHITE: "O"}
        rows = []
        for y in range(self.height):
            base = self.index(0, y)
            rows.append(" ".join(symbols[self.cells[base + x]] for x in range(self.width)))
        return "\n".join(rows)
