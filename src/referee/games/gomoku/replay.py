"""A Gomoku record as a replay: the board in SVG, one step per recorded move.

The base is the board (grid, coordinates as players read them: letters along the top for
``x``, ``a`` = 0, and numbers down the left for ``y``, ``1`` = 0, so the centre of 15x15,
``7,7`` on the wire, is ``h8``), the same for every game of its size; the background is
the opening stones, unnumbered, which the view's ``start`` names (``opening h8 i9 j9``:
the move list's first line). Each step's
text is its move in that notation (``h8``; swap2's stones ``h8 i9 j9``), or as recorded
when it is not points on the board (``SWAP``, an unreadable answer). Stones alternate
black / white from the first stone on the board (opening stones included), as the engine
places them, so swap2 stones (several in one move) get the right colours; ``SWAP`` adds
nothing. Placed stones are numbered 1, 2, 3... in the order they were placed. The current
step's stones are ringed, an illegal move shows as a red cross (no stone), and the winning
line (``settings["win_line"]``) is drawn over the last step. In renju, each step after
which black is to move also crosses black's forbidden points (small red crosses, named
with their reasons on hover), kept by a ``ForbiddenTracker`` as the stones are placed.
"""

from __future__ import annotations

import contextlib
import functools
import html
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from referee.core.record import GameRecord, MoveRecord
from referee.core.replay import ReplayStep, ReplayView
from referee.core.text import clip
from referee.games.gomoku.board import BLACK, MAX_SIZE, MIN_SIZE, WHITE, Rule, column, point_name
from referee.games.gomoku.forbidden_track import ForbiddenTracker
from referee.games.gomoku.protocol import parse_point
from referee.games.gomoku.renju import Forbidden, RenjuJudge

CELL = 30
"""Distance between two lines, in SVG units."""
MARGIN = 42
"""Distance from the picture's edge to the outer lines (room for the coordinates)."""
LABEL = 14
"""Distance from the picture's edge to the middle of the coordinates."""
RADIUS = 13
MAX_TEXT = 80
MIN_SCALE = 0.6
"""The smallest a board is drawn (its coordinates still read; a narrower page scrolls it)."""

STYLE = (
    ".gk-board{fill:#dcb468}"
    ".gk-grid{stroke:#6b5330;stroke-width:1;fill:none}"
    ".gk-lbl{font:11px sans-serif;fill:#5b4526;text-anchor:middle;dominant-baseline:central}"
    ".gk-dot{fill:#6b5330}"
    ".gk-b{fill:#1b1b1b;stroke:#000;stroke-width:1}"
    ".gk-w{fill:#fafafa;stroke:#444;stroke-width:1}"
    ".gk-n{font:bold 12px sans-serif;text-anchor:middle;dominant-baseline:central}"
    ".gk-n3{font-size:9.5px}"
    ".gk-nb{fill:#fff}.gk-nw{fill:#111}"
    ".gk-last{fill:none;stroke:#e0202a;stroke-width:2.5}"
    ".gk-win{stroke:#e0202a;stroke-width:6;stroke-linecap:round;opacity:.55}"
    ".gk-x{stroke:#e0202a;stroke-width:3;stroke-linecap:round;fill:none}"
    ".gk-forbid{stroke:#e0202a;stroke-width:2;stroke-linecap:round;fill:none}"
)
"""The CSS of the classes the fragments use (prefixed ``gk-``; stones also carry ``stone``)."""


def _pos(value: int) -> int:
    return MARGIN + value * CELL


class _Grid(NamedTuple):
    """The SVG text of each point ``x + y * width`` of one board size, made once."""

    width: int
    names: tuple[str, ...]
    """``h8``."""
    circles: tuple[str, ...]
    """``cx=".." cy=".."``: where a stone's circle goes."""
    labels: tuple[str, ...]
    """``x=".." y=".."``: where its number goes."""
    rings: tuple[str, ...]
    """The mark of the last move there."""
    index_of: dict[str, int]
    """The point of each move text as the referee records it (``7,7``)."""
    numbered: tuple[tuple[str, ...], tuple[str, ...]]
    """A white, then a black stone at each point, up to the text of its number (which
    goes next, then ``</text>``), for numbers under 100 (the fast path of a replay)."""


@functools.lru_cache(maxsize=16)
def _grid(width: int, height: int) -> _Grid:
    points = [(x, y) for y in range(height) for x in range(width)]
    labels = tuple(f'x="{_pos(x)}" y="{_pos(y)}"' for x, y in points)
    circles = tuple(f'cx="{_pos(x)}" cy="{_pos(y)}"' for x, y in points)
    numbered = tuple(tuple(
        f'<circle class="stone {"gk-b" if black else "gk-w"}" {circle} r="{RADIUS}"/>'
        f'<text class="gk-n {"gk-nb" if black else "gk-nw"}" {label}>'
        for circle, label in zip(circles, labels, strict=True)) for black in (False, True))
    return _Grid(width, tuple(point_name(x, y) for x, y in points), circles, labels,
                 tuple(_ring(x, y) for x, y in points),
                 {f"{x},{y}": x + y * width for x, y in points}, (numbered[0], numbered[1]))


_new_step = tuple.__new__
"""Makes a ``ReplayStep`` from all its fields, without its Python-level ``__new__``."""


def _stone(grid: _Grid, x: int, y: int, black: bool, number: int | None) -> str:
    index = x + y * grid.width
    colour = "gk-b" if black else "gk-w"
    text = ""
    if number is not None:
        size = " gk-n3" if number >= 100 else ""
        ink = "gk-nb" if black else "gk-nw"
        text = f'<text class="gk-n{size} {ink}" {grid.labels[index]}>{number}</text>'
    return f'<circle class="stone {colour}" {grid.circles[index]} r="{RADIUS}"/>{text}'


def _ring(x: int, y: int) -> str:
    return f'<circle class="gk-last" cx="{_pos(x)}" cy="{_pos(y)}" r="{RADIUS + 2}"/>'


def _cross(x: int, y: int) -> str:
    cx, cy, d = _pos(x), _pos(y), RADIUS - 3
    return (f'<path class="gk-x" d="M{cx - d},{cy - d}L{cx + d},{cy + d}'
            f'M{cx - d},{cy + d}L{cx + d},{cy - d}"/>')


@functools.lru_cache(maxsize=16)
def _board(width: int, height: int) -> str:
    """The board without stones: wood, grid, coordinates, centre point."""
    w_px, h_px = _size(width), _size(height)
    lines = "".join(f"M{_pos(x)},{MARGIN}V{_pos(height - 1)}" for x in range(width))
    lines += "".join(f"M{MARGIN},{_pos(y)}H{_pos(width - 1)}" for y in range(height))
    parts = [
        f'<rect class="gk-board" width="{w_px}" height="{h_px}" rx="4"/>',
        f'<path class="gk-grid" d="{lines}"/>',
    ]
    parts.extend(f'<text class="gk-lbl" x="{_pos(x)}" y="{LABEL}">{column(x)}</text>'
                 for x in range(width))
    parts.extend(f'<text class="gk-lbl" x="{LABEL}" y="{_pos(y)}">{y + 1}</text>'
                 for y in range(height))
    if width % 2 and height % 2:
        parts.append(f'<circle class="gk-dot" cx="{_pos(width // 2)}" '
                     f'cy="{_pos(height // 2)}" r="3"/>')
    return "".join(parts)


@functools.lru_cache(maxsize=256)
def _opening_stones(width: int, height: int, opening: tuple[tuple[int, int], ...]) -> str:
    """The opening's stones, unnumbered, black first (a tournament has few openings)."""
    grid = _grid(width, height)
    return "".join(_stone(grid, x, y, k % 2 == 0, None) for k, (x, y) in enumerate(opening))


MINI_CELL = 6
"""Distance between two lines of a small board (``mini_board``), in its own units."""
MINI_SIZE = 96
"""The longer side of a small board as shown, in pixels (whatever the board's size)."""


def mini_board(width: int, height: int, stones: Sequence[tuple[int, int]]) -> str:
    """A small board (``MINI_CELL`` pixels a line) with ``stones``, black first, then
    alternating; points off the board are left out. Its label names the stones."""
    w, h = width * MINI_CELL, height * MINI_CELL
    half = MINI_CELL / 2
    lines = "".join(f"M{half + x * MINI_CELL:g} {half:g}V{h - half:g}" for x in range(width))
    lines += "".join(f"M{half:g} {half + y * MINI_CELL:g}H{w - half:g}" for y in range(height))
    circles = "".join(
        f'<circle cx="{half + x * MINI_CELL:g}" cy="{half + y * MINI_CELL:g}" '
        f'r="{half - 0.4:g}" fill="{"#1b1b1b" if k % 2 == 0 else "#fafafa"}" '
        f'stroke="#333" stroke-width=".6"/>'
        for k, (x, y) in enumerate(stones) if 0 <= x < width and 0 <= y < height)
    label = html.escape(" ".join(point_name(x, y) for x, y in stones) or "empty board")
    scale = MINI_SIZE / max(w, h)
    return (f'<svg class="mini" xmlns="http://www.w3.org/2000/svg" width="{round(w * scale)}" '
            f'height="{round(h * scale)}" viewBox="0 0 {w} {h}" role="img" '
            f'aria-label="{label}">'
            f'<rect width="{w}" height="{h}" fill="#dcb468"/>'
            f'<path d="{lines}" stroke="#6b5330" stroke-width=".5" fill="none"/>{circles}</svg>')


def _size(lines: int) -> int:
    return 2 * MARGIN + (lines - 1) * CELL


def _points(text: str) -> list[tuple[int, int]] | None:
    points = [parse_point(part) for part in text.split()]
    if not points or any(p is None for p in points):
        return None
    return [p for p in points if p is not None]


def seat_colours(settings: dict[str, Any]) -> tuple[str, ...]:
    """The colour each seat played (``("black", "white")``: the record's ``colors``, else
    its first player's); ``()`` for a record that says neither."""
    colors = settings.get("colors")
    if (isinstance(colors, list) and len(colors) == 2 and all(isinstance(c, str) for c in colors)
            and colors[0] != colors[1]):
        return colors[0], colors[1]
    black = settings.get("black")
    if black is None:
        black = settings.get("swap2_first")
    if black in (0, 1):
        return ("black", "white") if black == 0 else ("white", "black")
    return ()


def move_notation(text: str, width: int, height: int) -> str:
    """A move as players write it: its points on a ``width`` x ``height`` board (``h8``;
    swap2's stones ``h8 i9 j9``), else as recorded (``SWAP``, an unreadable answer; cut
    to ``MAX_TEXT`` characters)."""
    if text.strip().upper() != "SWAP":
        single = parse_point(text)
        points = [single] if single is not None else _points(text)
        if points is not None and all(0 <= x < width and 0 <= y < height for x, y in points):
            return " ".join(point_name(x, y) for x, y in points)
    return clip(text, MAX_TEXT)


def record_size(settings: dict[str, Any]) -> tuple[int, int]:
    """The board's width and height in a record's settings (15 x 15 when it says
    nothing); ``ValueError`` for a size no board has."""
    width = _int_setting(settings, "width", 15)
    return width, _int_setting(settings, "height", width)


def _win_line(line: Any) -> str:
    """The winning line drawn from its first to its last stone ("" if there is none)."""
    try:
        (x1, y1), (x2, y2) = line[0], line[-1]
        ends = [_pos(int(v)) for v in (x1, y1, x2, y2)]
    except (TypeError, ValueError, IndexError):
        return ""
    return '<line class="gk-win" x1="{}" y1="{}" x2="{}" y2="{}"/>'.format(*ends)


def _int_setting(settings: dict[str, Any], key: str, default: int) -> int:
    value = settings.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_SIZE <= value <= MAX_SIZE:
        raise ValueError(f"gomoku record: bad {key} {value!r}")
    return value


def _forbidden_tracker(settings: dict[str, Any], width: int, height: int
                       ) -> ForbiddenTracker | None:
    """A tracker of black's forbidden points for a renju game (``None`` for the others)."""
    if settings.get("rule") != Rule.RENJU.value:
        return None
    try:
        judge = RenjuJudge.parse(str(settings.get("renju_judge", RenjuJudge.RIF.value)))
    except ValueError:
        judge = RenjuJudge.RIF
    return ForbiddenTracker(width, height, judge)


def _track(tracker: ForbiddenTracker, stones: list[tuple[int, int]], placed: int) -> None:
    """Place ``stones`` on the tracker, alternating colours from the ``placed``-th stone
    (black when even); a point already taken is skipped (the record shows it as is)."""
    for k, (x, y) in enumerate(stones):
        with contextlib.suppress(ValueError):
            tracker.place(x, y, BLACK if (placed + k) % 2 == 0 else WHITE)


def _forbidden_mark(points: dict[tuple[int, int], Forbidden]) -> str:
    """Black's forbidden points as small red crosses, named with their reasons on hover."""
    if not points:
        return ""
    d = CELL // 5
    crosses = "".join(f"M{_pos(x) - d},{_pos(y) - d}l{2 * d},{2 * d}m0,{-2 * d}l{-2 * d},{2 * d}"
                      for x, y in sorted(points))
    named = ", ".join(f"{point_name(x, y)} ({why.value})" for (x, y), why in sorted(
        points.items()))
    return (f'<path class="gk-forbid" d="{crosses}"><title>forbidden for black: '
            f"{html.escape(named)}</title></path>")


def gomoku_replay(record: GameRecord) -> ReplayView:
    """The replay of a Gomoku record (see the module docstring)."""
    if record.game != "gomoku":
        raise ValueError(f"not a gomoku record: {record.game!r}")
    settings = record.settings
    width, height = record_size(settings)

    def on_board(point: tuple[int, int]) -> bool:
        return 0 <= point[0] < width and 0 <= point[1] < height

    opening = [(int(p[0]), int(p[1])) for p in record.opening]
    opening = [p for p in opening if on_board(p)]
    grid = _grid(width, height)
    tracker = _forbidden_tracker(settings, width, height)
    if tracker is not None:
        _track(tracker, opening, 0)
    placed = len(opening)  # stones on the board: the next one is black when even
    number = 0
    steps: list[ReplayStep] = []
    index_of, names, rings, numbered = grid.index_of, grid.names, grid.rings, grid.numbered
    for move in record.moves:
        index = index_of.get(move.move)
        if index is not None and number < 99 and not move.info.get("illegal"):
            # one stone as the referee records it: the common case, fast
            number += 1
            stone = numbered[placed % 2 == 0][index]
            step = _new_step(ReplayStep, (move.seat, names[index], f"{stone}{number}</text>",
                                          rings[index], ""))
            stones = [(index % width, index // width)]
        else:
            step, stones = _step(grid, move, placed, number, on_board)
            number += len(stones)
        if tracker is not None:
            _track(tracker, stones, placed)
            if (placed + len(stones)) % 2 == 0:  # black to move: where it may not play
                step = ReplayStep(step.seat, step.text, step.svg,
                                  step.mark + _forbidden_mark(tracker.points()), step.note)
        placed += len(stones)
        steps.append(step)
    if steps:
        last = steps[-1]
        win = _win_line(settings.get("win_line"))
        if win:
            steps[-1] = ReplayStep(last.seat, last.text, last.svg, last.mark + win, last.note)
    return ReplayView(
        width=_size(width),
        height=_size(height),
        background=_opening_stones(width, height, tuple(opening)),
        steps=tuple(steps),
        style=STYLE,
        roles=seat_colours(settings),
        base=_board(width, height),
        start=("opening " + " ".join(point_name(x, y) for x, y in opening)) if opening else "",
        min_width=round(_size(width) * MIN_SCALE),
    )


def _step(grid: _Grid, move: MoveRecord, placed: int, number: int,
          on_board: Callable[[tuple[int, int]], bool]
          ) -> tuple[ReplayStep, list[tuple[int, int]]]:
    """One move as a step, and the stones it put on the board (any move: several stones,
    ``SWAP``, illegal, unreadable)."""
    text = move_notation(move.move, grid.width, len(grid.names) // grid.width)
    if move.move.strip().upper() == "SWAP":
        return ReplayStep(move.seat, text, note="swap"), []
    single = parse_point(move.move)
    points = [single] if single is not None else _points(move.move)
    if move.info.get("illegal"):
        cross = "".join(_cross(*p) for p in points or () if on_board(p))
        return ReplayStep(move.seat, text, svg=cross, note="illegal"), []
    if points is None or not all(on_board(p) for p in points):
        return ReplayStep(move.seat, text, note="unreadable"), []
    svg = "".join(_stone(grid, x, y, (placed + k) % 2 == 0, number + k + 1)
                  for k, (x, y) in enumerate(points))
    mark = "".join(grid.rings[x + y * grid.width] for x, y in points)
    return ReplayStep(move.seat, text, svg=svg, mark=mark), points
