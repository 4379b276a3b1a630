"""pbrain-threat: a fast threat-space brain (``python -m referee.games.gomoku.bots.threat_brain``).

Every candidate move (an empty point within two cells of a stone) is classified in each of
the four line directions by a memoised table of line shapes (five, open four, four, open
three, three, twos...), computed once per 11-cell pattern and rule. The move is then:

1. a five if there is one; else block the opponent's five;
2. the first move of a forced win found by a time-limited threat-space search: a VCF
   (victory by continuous fours), or up to two open threes each answered by a VCF
   whatever the defence (``Vct``); open fours and double threats are its shortest cases;
3. otherwise the best candidate by a pattern evaluation (own shapes plus the opponent's
   shapes at the same point, i.e. attack plus defence, with bonuses for moves that build
   in two lines), taking the first one after which the opponent has no VCF, no winning
   open three and no double open three. This is how open threes and fours get blocked,
   with the block that also builds for us preferred.

A move takes at most ``THINK_CAP`` seconds (less if the manager's clock says so); all
searches stop at their deadline and fall back to the evaluation.

The rule is respected: overlines do not win under exact five, caro5 or renju-for-black
(the line tables know it), caro fives closed at both ends (by stones or the edge) do not
win, and under renju
black never plays a forbidden point (``referee.games.gomoku.renju.is_forbidden``).
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Iterable, Sequence

from referee.games.gomoku.board import BLACK, EMPTY, WALL, WHITE, Board, Rule, opponent
from referee.games.gomoku.bots.brain import (
    SWAP,
    Point,
    Strategy,
    Swap2Choice,
    brain_main,
    format_about,
    is_legal,
)

NAME = "pbrain-threat"
VERSION = "1.0"

THINK_CAP = 0.05
"""Seconds a move may take at most, whatever the manager allows."""

# Shapes of one line through a point, weakest first.
NONE, ONE, TWO, OPEN2, THREE, OPEN3, FOUR, OPEN4, FIVE = range(9)
# The shape one stone short of a shape: what "one more stone makes X" means.
_WEAKER = (NONE, NONE, ONE, ONE, TWO, OPEN2, THREE, OPEN3, FOUR)
_WEIGHT = (0, 2, 20, 120, 150, 1000, 900, 1_000_000, 10_000_000)

WIN_VALUE = 10_000_000
FORCED_WIN_VALUE = 1_000_000
FOUR_THREE_VALUE = 100_000
DOUBLE_THREE_VALUE = 50_000
THREAT_COMBO_VALUE = 4_000
"""Bonus for a four or open three that also builds a two or three in another line."""
BUILD_COMBO_VALUE = 1_000
"""Bonus for building twos or threes in two lines at once."""
DEFENCE = 0.9
"""Weight of the opponent's value at a point (blocking) against our own (building)."""

SAFETY_CHECKS = 12
"""How many of the best candidates are checked for leaving the opponent a winning attack."""

VCF_DEPTHS = (2, 4, 12)
"""Iterative deepening of the VCF: the most fours in one line, short wins first."""
ATTACK_NODES = 3000
"""Search nodes for our own VCF / winning-three search."""
ATTACK_SHARE = 0.4
"""Share of the move's remaining time given to our own attack search."""
MIN_ATTACK_TIME = 0.01
"""Seconds our attack search gets even when the evaluation used up the move's time."""
SAFETY_NODES = 400
"""Search nodes for checking that one candidate leaves the opponent no winning attack."""
ATTACK_DEPTH = 2
"""Open threes in a row that our own threat search may play."""
MAX_THREES = 8
"""Open threes tried by the threat search (the most valuable ones)."""

_HALF = 5
"""A line window is the point and ``_HALF`` cells each side (11 cells)."""
_CENTER = _HALF
_OWN, _OTHER, _BLOCKED = 1, 2, 3

LineInfo = tuple[int, tuple[int, ...]]
"""A line's shape for a stone at its centre, and the offsets where it would make five."""


# -- line shapes ------------------------------------------------------------------------
def _is_five(line: tuple[int, ...], exact: bool, caro: bool) -> bool:
    """Whether the own run through the centre of ``line`` wins under the rule."""
    left = _CENTER
    while left > 0 and line[left - 1] == _OWN:
        left -= 1
    right = _CENTER
    while right < 2 * _HALF and line[right + 1] == _OWN:
        right += 1
    length = right - left + 1
    if length < 5 or (exact and length != 5):
        return False
    return not (caro and length == 5 and line[left - 1] != EMPTY and line[right + 1] != EMPTY)


def _with_own(line: tuple[int, ...], q: int) -> tuple[int, ...]:
    return (*line[:q], _OWN, *line[q + 1 :])


@functools.cache
def _classify(line: tuple[int, ...], exact: bool, caro: bool) -> LineInfo:
    """The shape of a normalised line (centre own) and its five-making offsets."""
    if _is_five(line, exact, caro):
        return FIVE, ()
    near = _live_empties(line)
    wins = tuple(q - _CENTER for q in near if _is_five(_with_own(line, q), exact, caro))
    if wins:
        return (OPEN4 if len(wins) > 1 else FOUR), wins
    best = NONE
    for q in near:
        best = max(best, _WEAKER[_classify(_with_own(line, q), exact, caro)[0]])
        if best == OPEN3:
            break
    return best, ()


def _live_empties(line: tuple[int, ...]) -> list[int]:
    """Empty cells of the 5-cell windows through the centre that hold no enemy or wall.

    Only stones there can ever be part of a five with the centre.
    """
    live: set[int] = set()
    for start in range(_CENTER - 4, _CENTER + 1):
        window = range(start, start + 5)
        if all(line[q] in (EMPTY, _OWN) for q in window):
            live.update(q for q in window if line[q] == EMPTY)
    return sorted(live)


def _normalise(key: bytes, color: int) -> tuple[int, ...]:
    """Cells as seen by ``color``: own, other, blocked (wall), empty; centre own."""
    other = opponent(color)
    mapped = [
        _OWN if c == color else _OTHER if c == other else _BLOCKED if c == WALL else EMPTY
        for c in key
    ]
    mapped[_CENTER] = _OWN
    return tuple(mapped)


_TABLES: dict[tuple[bool, bool, int], dict[bytes, LineInfo]] = {}


def _table(rule: Rule, color: int) -> tuple[dict[bytes, LineInfo], bool, bool]:
    """The line cache for ``color`` under ``rule``, with the rule's (exact, caro) flags."""
    exact = rule.exact_for(color)
    caro = rule.caro
    return _TABLES.setdefault((exact, caro, color), {}), exact, caro


@functools.cache
def point_value(shapes: tuple[int, ...]) -> int:
    """The value of playing a point with these four line shapes (double threats count)."""
    fours = sum(1 for s in shapes if s >= FOUR)
    threes = shapes.count(OPEN3)
    if FIVE in shapes:
        return WIN_VALUE
    if OPEN4 in shapes or fours >= 2:
        return FORCED_WIN_VALUE
    if fours and threes:
        return FOUR_THREE_VALUE
    if threes >= 2:
        return DOUBLE_THREE_VALUE
    value = sum(_WEIGHT[s] for s in shapes)
    building = shapes.count(OPEN2) + shapes.count(THREE)
    if fours + threes and building:
        value += THREAT_COMBO_VALUE
    if building >= 2:
        value += BUILD_COMBO_VALUE
    return value


class Lines:
    """Line shapes of the points of one board, looked up in the memoised tables."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.cells = board.cells
        self.steps = board.directions
        self.tables = {color: _table(board.rule, color) for color in (BLACK, WHITE)}

    def key(self, i: int, step: int) -> bytes:
        """The 11 cells centred on ``i`` along ``step`` (the board's frame covers them)."""
        return bytes(self.cells[i - _HALF * step : i + _HALF * step + 1 : step])

    def line(self, i: int, step: int, color: int) -> LineInfo:
        """The shape of ``color``'s line through ``i`` along ``step`` if it played at ``i``."""
        table, exact, caro = self.tables[color]
        key = self.key(i, step)
        info = table.get(key)
        if info is None:
            info = table[key] = _classify(_normalise(key, color), exact, caro)
        return info

    def infos(self, i: int, color: int) -> list[LineInfo]:
        """The four line shapes of ``color`` playing at ``i``, one per direction."""
        return [self.line(i, step, color) for step in self.steps]

    def fives_after(self, i: int, color: int, infos: Sequence[LineInfo]) -> set[int]:
        """The points where ``color`` would make five once it has played at ``i``."""
        return {
            i + offset * step
            for step, (shape, wins) in zip(self.steps, infos, strict=True)
            if shape >= FOUR
            for offset in wins
        }


def shapes_of(infos: Iterable[LineInfo]) -> tuple[int, ...]:
    """Just the shapes of some line infos."""
    return tuple(shape for shape, _ in infos)


def candidates(board: Board) -> list[int]:
    """Empty cells within two points of a stone (where every four or five must be)."""
    cells = board.cells
    stride = board.stride
    near = [dy * stride + dx for dy in range(-2, 3) for dx in range(-2, 3) if dx or dy]
    found: dict[int, None] = {}
    for x, y in board.moves:
        i = board.index(x, y)
        for offset in near:
            if cells[i + offset] == EMPTY:
                found[i + offset] = None
    return list(found)


# -- search -----------------------------------------------------------------------------
class OutOfTime(Exception):
    """A search ran out of time or nodes."""


class Budget:
    """A deadline and a node allowance for a search (checked at every node)."""

    def __init__(self, deadline: float, max_nodes: int) -> None:
        self.deadline = deadline
        self.max_nodes = max_nodes
        self.nodes = 0

    def tick(self) -> None:
        """Count a node; raise ``OutOfTime`` past the deadline or the node allowance."""
        self.nodes += 1
        if self.nodes > self.max_nodes or (
            self.nodes % 8 == 0 and time.monotonic() > self.deadline
        ):
            raise OutOfTime


def _put(board: Board, i: int, color: int) -> None:
    """Play a stone at cell ``i`` during a search (undone by ``_take``)."""
    board.cells[i] = color
    board.moves.append(board.point(i))


def _take(board: Board, i: int) -> None:
    """Take back the search stone at cell ``i`` (the last one put)."""
    board.cells[i] = EMPTY
    board.moves.pop()


_REACH = (1, -1, 2, -2, 3, -3, 4, -4)
"""Offsets along a line where a stone can change the shapes of a point."""


def line_points(lines: Lines, m: int, color: int, shapes: range) -> list[int]:
    """Empty points on the four lines through ``m`` where ``color`` makes one of ``shapes``.

    Only the line through ``m`` is looked at for each point: these are the points whose
    shapes a stone at ``m`` may have changed.
    """
    cells = lines.cells
    found = []
    for step in lines.steps:
        for k in _REACH:
            j = m + k * step
            if cells[j] == EMPTY and lines.line(j, step, color)[0] in shapes:
                found.append(j)
    return found


def line_fours(lines: Lines, m: int, color: int) -> list[int]:
    """Empty points on the lines through ``m`` where ``color`` makes a four (or five)."""
    return line_points(lines, m, color, range(FOUR, FIVE + 1))


def line_threes(lines: Lines, m: int, color: int) -> list[int]:
    """Empty points on the lines through ``m`` where ``color`` makes an open three."""
    return line_points(lines, m, color, range(OPEN3, OPEN3 + 1))


class Search:
    """What the VCF and VCT searches share: the board, the two sides and the budget.

    The board is changed during a search and restored before it returns.
    """

    def __init__(self, lines: Lines, attacker: int, budget: Budget) -> None:
        self.lines = lines
        self.board = lines.board
        self.cells = lines.board.cells
        self.attacker = attacker
        self.defender = opponent(attacker)
        self.budget = budget
        self.renju = lines.board.rule is Rule.RENJU

    def forbidden(self, i: int, color: int) -> bool:
        """Whether ``color`` may not play at cell ``i`` (renju black only)."""
        if not (self.renju and color == BLACK):
            return False
        return not is_legal(self.board, *self.board.point(i), BLACK)

    def makes_four(self, i: int, color: int) -> bool:
        """Whether ``color`` playing at empty cell ``i`` makes a four or better."""
        return self.cells[i] == EMPTY and any(
            shape >= FOUR for shape, _ in self.lines.infos(i, color)
        )


class Vcf(Search):
    """Victory by continuous fours: every attacking move is a four, so each reply is forced."""

    def __init__(self, lines: Lines, attacker: int, budget: Budget) -> None:
        super().__init__(lines, attacker, budget)
        self.failed: set[frozenset[int]] = set()
        self.placed: list[int] = []

    def search(self, fours: Iterable[int], threats: Iterable[int] = ()) -> int | None:
        """The first move of a VCF, or ``None``; ``fours`` holds every attacking four point.

        ``threats`` are the defender's five points, which the attacker must block first.
        Raises ``OutOfTime`` when the budget runs out.
        """
        fours = [i for i in dict.fromkeys(fours) if self.makes_four(i, self.attacker)]
        for depth in VCF_DEPTHS:
            self.failed.clear()
            found = self._attack(fours, set(threats), depth)
            if found is not None:
                return found
        return None

    def _put(self, i: int, color: int) -> None:
        _put(self.board, i, color)
        self.placed.append(i * 4 + color)

    def _take(self, i: int) -> None:
        _take(self.board, i)
        self.placed.pop()

    def _attack(self, fours: list[int], threats: set[int], depth: int) -> int | None:
        """The attacker is to move: a winning four, or ``None``."""
        self.budget.tick()
        threats = {t for t in threats if self.cells[t] == EMPTY}
        if len(threats) > 1:
            return None
        key = frozenset(self.placed)
        if key in self.failed:
            return None
        for m in list(threats) or fours:
            if self.cells[m] == EMPTY and self._wins_with(m, fours, threats, depth):
                return m
        self.failed.add(key)
        return None

    def _wins_with(self, m: int, fours: list[int], threats: set[int], depth: int) -> bool:
        """Whether the four at ``m`` (if it is one) wins by force."""
        infos = self.lines.infos(m, self.attacker)
        if any(shape == FIVE for shape, _ in infos):
            return True
        wins = self.lines.fives_after(m, self.attacker, infos)
        if not wins or self.forbidden(m, self.attacker):
            return False
        if len(wins) > 1:
            return True
        if depth <= 1:
            return False
        (w,) = wins
        self._put(m, self.attacker)
        try:
            return self._defend(m, w, fours, threats, depth)
        finally:
            self._take(m)

    def _defend(self, m: int, w: int, fours: list[int], threats: set[int], depth: int) -> bool:
        """The defender must block at ``w``; whether the attack still wins."""
        if self.forbidden(w, self.defender):
            return True
        blocks = self.lines.infos(w, self.defender)
        if any(shape == FIVE for shape, _ in blocks):
            return False
        threats = threats | self.lines.fives_after(w, self.defender, blocks)
        self._put(w, self.defender)
        try:
            kept = [f for f in fours if f != m and f != w]
            new = [f for f in line_fours(self.lines, m, self.attacker) if f != w]
            return self._attack(list(dict.fromkeys(new + kept)), threats, depth - 1) is not None
        finally:
            self._take(w)


class Vct(Search):
    """A shallow threat-space search: open threes and fours, then a VCF against every defence.

    A three wins if the defender has no VCF of its own (the three gives it a free move)
    and, whatever it plays on the three's lines or as a four, the attacker then wins again
    (by VCF, or by another winning three while ``depth`` allows).
    """

    def __init__(self, lines: Lines, attacker: int, budget: Budget, depth: int = 1) -> None:
        super().__init__(lines, attacker, budget)
        self.depth = depth

    def search(
        self,
        threes: list[int],
        fours: list[int],
        defender_fours: list[int],
        threats: Iterable[int] = (),
    ) -> int | None:
        """The first move of a VCF or of a winning three, or ``None``.

        ``threats`` are the defender's five points: with any, only a VCF is looked for.
        """
        return self._search(threes, fours, defender_fours, set(threats), self.depth)

    def _search(
        self, threes: list[int], fours: list[int], dfours: list[int], threats: set[int], depth: int
    ) -> int | None:
        found = Vcf(self.lines, self.attacker, self.budget).search(fours, threats)
        if found is not None or threats or depth <= 0:
            return found
        for t in threes[:MAX_THREES]:
            if self.cells[t] == EMPTY and self._three_wins(t, threes, fours, dfours, depth):
                return t
        return None

    def _three_wins(
        self, t: int, threes: list[int], fours: list[int], dfours: list[int], depth: int
    ) -> bool:
        """Whether the open three at ``t`` (if it is one) wins against every defence."""
        shapes = shapes_of(self.lines.infos(t, self.attacker))
        if OPEN3 not in shapes or max(shapes) >= FOUR or self.forbidden(t, self.attacker):
            return False
        steps = [step for step, s in zip(self.lines.steps, shapes, strict=True) if s == OPEN3]
        _put(self.board, t, self.attacker)
        try:
            if Vcf(self.lines, self.defender, self.budget).search(dfours) is not None:
                return False
            fours = line_fours(self.lines, t, self.attacker) + fours
            threes = line_threes(self.lines, t, self.attacker) + [x for x in threes if x != t]
            replies = [t + k * step for step in steps for k in _REACH] + dfours
            return all(
                self._survives(r, threes, fours, dfours, depth)
                for r in dict.fromkeys(replies)
                if self.cells[r] == EMPTY
            )
        finally:
            _take(self.board, t)

    def _survives(
        self, r: int, threes: list[int], fours: list[int], dfours: list[int], depth: int
    ) -> bool:
        """Whether the attacker still wins after the defender answers at ``r``."""
        if self.forbidden(r, self.defender):
            return True
        infos = self.lines.infos(r, self.defender)
        if any(shape == FIVE for shape, _ in infos):
            return False
        threats = self.lines.fives_after(r, self.defender, infos)
        _put(self.board, r, self.defender)
        try:
            dfours = line_fours(self.lines, r, self.defender) + dfours
            unique = list(dict.fromkeys(threes))
            return self._search(unique, fours, dfours, threats, depth - 1) is not None
        finally:
            _take(self.board, r)


class _Move:
    """Choosing one move for ``me`` on a private copy of the board."""

    def __init__(self, board: Board, me: int, deadline: float) -> None:
        self.board = board
        self.me = me
        self.them = opponent(me)
        self.deadline = deadline
        self.lines = Lines(board)
        self.cands = candidates(board)
        self.mine = {i: self.lines.infos(i, me) for i in self.cands}
        self.theirs = {i: self.lines.infos(i, self.them) for i in self.cands}
        self.my_shapes = {i: shapes_of(v) for i, v in self.mine.items()}
        self.their_shapes = {i: shapes_of(v) for i, v in self.theirs.items()}

    def legal(self, i: int, color: int | None = None) -> bool:
        """Whether ``color`` (by default ``me``) may play at cell ``i``."""
        return is_legal(self.board, *self.board.point(i), self.me if color is None else color)

    def score(self, i: int) -> float:
        """Attack plus weighted defence value of playing at ``i``."""
        mine = point_value(self.my_shapes[i])
        theirs = point_value(self.their_shapes[i])
        return mine + DEFENCE * theirs

    def best(self) -> int | None:
        """The chosen cell, or ``None`` if there are no candidates."""
        for step in (self.five, self.block_five, self.attack, self.safest):
            found = step()
            if found is not None:
                return found
        return None

    def five(self) -> int | None:
        """A point that wins now."""
        return next((i for i in self.cands if FIVE in self.my_shapes[i]), None)

    def block_five(self) -> int | None:
        """The best legal point that stops the opponent's five (the game may be lost anyway)."""
        blocks = [i for i in self.cands if FIVE in self.their_shapes[i]]
        blocks.sort(key=self.score, reverse=True)
        return next((i for i in blocks if self.legal(i)), None)

    def points(self, color: int, least: int) -> list[int]:
        """The empty candidates where ``color`` makes a shape of at least ``least``."""
        shapes = self.my_shapes if color == self.me else self.their_shapes
        cells = self.board.cells
        return [i for i in self.cands if max(shapes[i]) >= least and cells[i] == EMPTY]

    def threes(self, color: int) -> list[int]:
        """The candidates where ``color`` makes an open three, most valuable first."""
        shapes = self.my_shapes if color == self.me else self.their_shapes
        found = [i for i in self.points(color, OPEN3) if OPEN3 in shapes[i]]
        found.sort(key=lambda i: point_value(shapes[i]), reverse=True)
        return found[:MAX_THREES]

    def attack(self) -> int | None:
        """The first move of our VCF, or of a winning three, if found in time."""
        now = time.monotonic()
        share = max((self.deadline - now) * ATTACK_SHARE, MIN_ATTACK_TIME)
        budget = Budget(now + share, ATTACK_NODES)
        search = Vct(self.lines, self.me, budget, ATTACK_DEPTH)
        try:
            return search.search(
                self.threes(self.me), self.points(self.me, FOUR), self.points(self.them, FOUR)
            )
        except OutOfTime:
            return None

    def safest(self) -> int | None:
        """The best-scoring legal candidate after which the opponent has no winning attack."""
        ranked = sorted(self.cands, key=self.score, reverse=True)
        legal = (i for i in ranked if self.legal(i))
        first = unknown = None
        for checked, i in enumerate(legal):
            first = i if first is None else first
            if checked >= SAFETY_CHECKS or time.monotonic() > self.deadline:
                break
            verdict = self.safe(i)
            if verdict:
                return i
            if verdict is None and unknown is None:
                unknown = i
        return first if unknown is None else unknown

    def safe(self, d: int) -> bool | None:
        """Whether, after we play ``d``, the opponent has no VCF, winning three or double three.

        ``None`` if the search ran out of time or nodes before it could tell.
        """
        our_fives = self.lines.fives_after(d, self.me, self.mine[d])
        _put(self.board, d, self.me)
        try:
            if not our_fives and self.their_double_three():
                return False
            budget = Budget(self.deadline, SAFETY_NODES)
            their_fours = self.points(self.them, FOUR)
            if our_fives:
                vcf = Vcf(self.lines, self.them, budget)
                return vcf.search(their_fours, our_fives) is None
            our_fours = self.points(self.me, FOUR) + line_fours(self.lines, d, self.me)
            vct = Vct(self.lines, self.them, budget)
            return vct.search(self.threes(self.them), their_fours, our_fours) is None
        except OutOfTime:
            return None
        finally:
            _take(self.board, d)

    def their_double_three(self) -> bool:
        """Whether the opponent has a (legal) double open three on the current board."""
        for i, shapes in self.their_shapes.items():
            if shapes.count(OPEN3) < 2 or self.board.cells[i] != EMPTY:
                continue
            now = shapes_of(self.lines.infos(i, self.them))
            if now.count(OPEN3) >= 2 and self.legal(i, self.them):
                return True
        return False


# -- the strategy ------------------------------------------------------------------------
_OPENINGS: tuple[tuple[Point, Point, Point], ...] = (
    ((0, 0), (1, 0), (2, 2)),
    ((0, 0), (1, 1), (2, 0)),
    ((0, 0), (0, 1), (2, 1)),
    ((0, 0), (2, 0), (1, 2)),
    ((0, 0), (1, 0), (-1, 2)),
    ((0, 0), (-1, 1), (2, 1)),
    ((0, 0), (2, 2), (1, -1)),
)
"""Swap2 openings as offsets from the centre: black, white, black."""

SWAP_MARGIN = 1.5
"""Take black in swap2 when black's potential is this many times white's (white moves next)."""
POTENTIAL_POINTS = 3
"""How many of a side's best points make its potential."""


class ThreatStrategy(Strategy):
    """Threat-space search over a pattern evaluation; deterministic."""

    def __init__(self, think_cap: float = THINK_CAP) -> None:
        self.think_cap = think_cap

    def choose(self, board: Board, color: int) -> Point:
        """Win, block, VCF, or the best safe point by evaluation."""
        start = time.monotonic()
        if not board.moves:
            return self._opening(board, color)
        deadline = start + max(min(self.time_budget, self.think_cap), 0.0)
        best = _Move(board.copy(), color, deadline).best()
        if best is None:
            return self._any_legal(board, color)
        return board.point(best)

    def _opening(self, board: Board, color: int) -> Point:
        center = board.center
        if is_legal(board, *center, color):
            return center
        return self._any_legal(board, color)

    @staticmethod
    def _any_legal(board: Board, color: int) -> Point:
        points = list(board.empty_points())
        cx, cy = board.center
        points.sort(key=lambda p: abs(p[0] - cx) + abs(p[1] - cy))
        return next((p for p in points if is_legal(board, *p, color)), points[0])

    def swap2_place3(self, board: Board) -> tuple[Point, Point, Point]:
        """The listed opening whose evaluation is closest to even."""
        cx, cy = board.center
        best: tuple[float, tuple[Point, Point, Point]] | None = None
        for offsets in _OPENINGS:
            stones = tuple((cx + dx, cy + dy) for dx, dy in offsets)
            if not all(board.is_empty(*p) for p in stones) or len(set(stones)) != 3:
                continue
            trial = board.copy()
            for p in stones:
                trial.place(*p)
            balance = abs(self.black_advantage(trial))
            if best is None or balance < best[0]:
                best = (balance, (stones[0], stones[1], stones[2]))
        if best is None:
            raise ValueError("the board is too small for a swap2 opening")
        return best[1]

    def swap2_choose(self, board: Board, stones: Sequence[Point]) -> Swap2Choice:
        """Take black if black is clearly better, else stay white and play the 4th stone."""
        return self._pick_colour(board)

    def swap2_final(self, board: Board, stones: Sequence[Point]) -> Swap2Choice:
        """Take black if black is clearly better, else take white and play the 6th stone."""
        return self._pick_colour(board)

    def _pick_colour(self, board: Board) -> Swap2Choice:
        if self.black_advantage(board) > 0:
            return SWAP
        return (self.choose(board, WHITE),)

    @staticmethod
    def black_advantage(board: Board) -> float:
        """How much better black stands with white to move (positive: take black)."""
        lines = Lines(board)
        cands = candidates(board)
        black = _potential(point_value(shapes_of(lines.infos(i, BLACK))) for i in cands)
        white = _potential(point_value(shapes_of(lines.infos(i, WHITE))) for i in cands)
        return black - SWAP_MARGIN * white


def _potential(values: Iterable[int]) -> int:
    """A side's potential: the sum of its few best point values."""
    return sum(sorted(values, reverse=True)[:POTENTIAL_POINTS])


def main(argv: Sequence[str] | None = None) -> int:
    """Run the threat brain on stdin/stdout."""
    parser = argparse.ArgumentParser(prog=NAME, description="Threat-space Gomocup brain.")
    parser.parse_args(argv)
    return brain_main(ThreatStrategy(), format_about(NAME, VERSION))


if __name__ == "__main__":
    raise SystemExit(main())
