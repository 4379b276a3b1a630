"""Boards of the Game of Hidden Rules: pieces, cells, buckets, board files, ASCII art, generation.

Coordinates follow the reference server: ``x`` is the column and ``y`` the row, both 1..6 counted
from the bottom-left corner; the cell number is ``x + (y-1)*6``. Buckets are numbered clockwise
from the top-left corner and sit at (row, col) 0=(7,0), 1=(7,7), 2=(0,7), 3=(0,0).

Nothing here knows about rules: this module is pure data, file formats and random generation.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.core.errors import ConfigError
from referee.core.json_read import json_value

N = 6
"""Side of the board."""
NCELLS = N * N
"""Number of cells, numbered 1..36."""
BUCKETS = (0, 1, 2, 3)
"""Bucket ids, clockwise from the top-left corner."""
BUCKET_POS: Mapping[int, tuple[int, int]] = {0: (7, 0), 1: (7, 7), 2: (0, 7), 3: (0, 0)}
"""(row, col) of each bucket, as given in ``MOVE row col Brow Bcol``."""

LEGACY_COLORS = ("RED", "BLACK", "BLUE", "YELLOW")
"""The default colors of random boards."""
LEGACY_SHAPES = ("SQUARE", "STAR", "CIRCLE", "TRIANGLE")
"""The default shapes of random boards."""

_SHAPE_SYMBOLS = {"SQUARE": "#", "STAR": "*", "CIRCLE": "O", "TRIANGLE": "T"}
_COLOR_SYMBOLS = {"RED": "r", "BLACK": "b", "BLUE": "g", "YELLOW": "y"}
_PIECE_KEYS = ("id", "color", "shape", "x", "y", "image")
_IGNORED_KEYS = frozenset({"buckets", "dropped"})


class BoardGenerationError(ConfigError):
    """No board meeting the generation conditions was found (the conditions may be impossible)."""


# --------------------------------------------------------------------------- cells and buckets


def cell_of(x: int, y: int) -> int:
    """The cell number 1..36 of column ``x`` and row ``y`` (both 1..6)."""
    if not (1 <= x <= N and 1 <= y <= N):
        raise ValueError(f"({x}, {y}) is off the {N}x{N} board")
    return x + (y - 1) * N


def xy_of(cell: int) -> tuple[int, int]:
    """The (x, y) of cell number ``cell`` (1..36)."""
    if not 1 <= cell <= NCELLS:
        raise ValueError(f"cell {cell} is not in 1..{NCELLS}")
    return (cell - 1) % N + 1, (cell - 1) // N + 1


def bucket_at(row: int, col: int) -> int | None:
    """The bucket id at (row, col), or None if no bucket is there."""
    for bucket, pos in BUCKET_POS.items():
        if pos == (row, col):
            return bucket
    return None


def nearby(x: int, y: int) -> int:
    """The bucket of the quadrant of cell (x, y): x<=3 left, y<=3 bottom."""
    if not (1 <= x <= N and 1 <= y <= N):
        raise ValueError(f"({x}, {y}) is off the {N}x{N} board")
    left = x <= N // 2
    bottom = y <= N // 2
    if bottom:
        return 3 if left else 2
    return 0 if left else 1


def remotest(x: int, y: int) -> int:
    """The Nearby bucket of the mirrored cell (7-x, 7-y)."""
    return nearby(N + 1 - x, N + 1 - y)


# --------------------------------------------------------------------------- pieces and boards


@dataclass(frozen=True)
class Piece:
    """One game piece.

    A shape-and-color piece has ``image`` None; rules see its shape and color only, and
    ``props`` (extra keys of a board file) are shown but never matched, as the reference
    does. An image-and-property-based piece has ``image`` (its key under the shapes folder,
    or a composite name) and takes every property from ``props`` (its ``properties.csv``
    line, or what its composite name says).
    """

    id: int
    color: str
    shape: str
    x: int
    y: int
    props: Mapping[str, Any] = field(default_factory=dict, hash=False)
    image: str | None = None
    label: str | None = field(default=None, compare=False)
    """The label CGS 8.060 shows (``version=8``): set for a piece read from a board file
    (``java_label`` of its id), none for a piece of a random board."""
    cell: int = field(init=False, repr=False, compare=False)
    """The cell number 1..36 of this piece (from ``x`` and ``y``)."""

    def __post_init__(self) -> None:
        if not (1 <= self.x <= N and 1 <= self.y <= N):
            raise ValueError(f"piece {self.id} is at x={self.x}, y={self.y}, off the {N}x{N} board")
        object.__setattr__(self, "cell", cell_of(self.x, self.y))

    def to_dict(self) -> dict[str, Any]:
        """The board-file object of this piece: id, color, shape, x, y, then the extra keys
        of a board file; an image piece gives the color and shape its properties give (if
        any), x, y and its ``image`` instead of its properties (they come from its
        properties file)."""
        out: dict[str, Any] = {"id": self.id}
        if self.image is None:
            out.update(color=self.color, shape=self.shape, x=self.x, y=self.y)
            out.update(self.props)
            return out
        for key, own in (("color", self.color), ("shape", self.shape)):
            value = own or self.props.get(key)
            if value not in (None, ""):
                out[key] = value
        out.update(x=self.x, y=self.y, image=self.image)
        return out

    def shown_properties(self) -> dict[str, int | str]:
        """The properties an image piece's JSON object adds after its own fields, as the
        reference writes them (Piece.getExtraFields through ImageObject.toPropMap and
        JsonReflect): every property, an integer as a number, no empty value and no
        property named ``version``. Nothing for a shape-and-color piece."""
        if self.image is None:
            return {}
        return {key: java_value(str(value)) for key, value in self.props.items()
                if str(value) != "" and key != "version"}


_INT_MIN, _INT_MAX = -(1 << 31), (1 << 31) - 1
_JAVA_INT = re.compile(r"[+-]?\d+")


def java_value(text: str) -> int | str:
    """A property value as the reference keeps it (PropMap.putString): the integer
    ``Integer.parseInt`` reads (optional sign, decimal digits, 32 bits), else the text."""
    if _JAVA_INT.fullmatch(text) and len(text.lstrip("+-").lstrip("0")) <= 10:
        number = int(text)
        if _INT_MIN <= number <= _INT_MAX:
            return number
    return text


def java_label(piece_id: int) -> str | None:
    """The label CGS 8.060 gives a piece read from a board file (Piece.setId): the one
    character ``'A' + id`` (B, C, D for ids 1, 2, 3; ``[`` for 26, the char arithmetic
    wrapping at 16 bits), none for a negative id."""
    if piece_id < 0:
        return None
    return chr((ord("A") + piece_id) & 0xFFFF)


@dataclass(frozen=True)
class Board:
    """A board: its pieces (at most one per cell, distinct ids), an id and an optional name."""

    pieces: tuple[Piece, ...]
    id: str | int = 0
    name: str | None = None

    def __post_init__(self) -> None:
        problem = _board_problem(self.pieces)
        if problem is not None:
            raise ValueError(problem)

    def __iter__(self) -> Iterator[Piece]:
        return iter(self.pieces)

    def __len__(self) -> int:
        return len(self.pieces)

    def at(self, x: int, y: int) -> Piece | None:
        """The piece on cell (x, y), or None."""
        return self.at_cell(cell_of(x, y))

    def at_cell(self, cell: int) -> Piece | None:
        """The piece on cell number ``cell``, or None."""
        for piece in self.pieces:
            if piece.cell == cell:
                return piece
        return None

    def by_id(self, piece_id: int) -> Piece | None:
        """The piece with this id, or None."""
        for piece in self.pieces:
            if piece.id == piece_id:
                return piece
        return None

    def without(self, piece_id: int) -> Board:
        """This board with the piece of id ``piece_id`` removed (no need to check it again)."""
        board = object.__new__(Board)
        object.__setattr__(board, "pieces", tuple(p for p in self.pieces if p.id != piece_id))
        object.__setattr__(board, "id", self.id)
        object.__setattr__(board, "name", self.name)
        return board

    def to_json_line(self, buckets: Mapping[int, Collection[int]] | None = None, *,
                     board_id: str | int | None = None, labels: bool = False) -> str:
        """The one-line JSON display the captive server prints.

        ``{"id":0,"value":[{"id":..,"color":..,"shape":..,"x":..,"y":..,"buckets":[..]}]}``
        (an image piece: ``..,"x":..,"y":..,"image":..``); when ``buckets`` (piece id to
        bucket ids) is given every piece gets a sorted ``buckets`` list (missing ids get
        ``[]``). ``board_id`` replaces the board's id; ``labels`` adds each piece's
        ``label`` (if it has one) before its buckets. An image piece then lists every
        property (``shown_properties``). The order is the reference's (JsonReflect: the
        fields of Piece as declared, then its extra fields).
        """
        values = []
        for piece in self.pieces:
            obj = piece.to_dict()
            if labels and piece.label is not None:
                obj["label"] = piece.label
            if buckets is not None:
                obj["buckets"] = sorted(buckets.get(piece.id, ()))
            obj.update(piece.shown_properties())
            values.append(obj)
        shown = self.id if board_id is None else board_id
        return json.dumps({"id": shown, "value": values}, separators=(",", ":"))

    def to_file_text(self) -> str:
        """The predefined board file text: ``{"id":..,"value":[..],"name":..}``."""
        out: dict[str, Any] = {"id": self.id, "value": [p.to_dict() for p in self.pieces]}
        if self.name is not None:
            out["name"] = self.name
        return json.dumps(out, indent=1) + "\n"


def _board_problem(pieces: Sequence[Piece]) -> str | None:
    """What is wrong with this list of pieces, or None."""
    cells: dict[int, Piece] = {}
    ids: set[int] = set()
    for piece in pieces:  # each piece checked its own cell when it was made
        if piece.id in ids:
            return f"two pieces have id {piece.id}"
        ids.add(piece.id)
        other = cells.get(piece.cell)
        if other is not None:
            return (
                f"pieces {other.id} and {piece.id} are both on cell {piece.cell} "
                f"(x={piece.x}, y={piece.y})"
            )
        cells[piece.cell] = piece
    return None


# --------------------------------------------------------------------------- reading and writing


def _int_field(obj: Mapping[str, Any], key: str, where: str) -> int:
    value = obj.get(key)
    if isinstance(value, bool):
        raise ValueError(f"{where}: {key!r} must be an integer, not {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    if value is None:
        raise ValueError(f"{where}: missing {key!r}")
    raise ValueError(f"{where}: {key!r} must be an integer, not {value!r}")


def _str_field(obj: Mapping[str, Any], key: str, where: str) -> str:
    value = obj.get(key)
    if value is None:
        raise ValueError(f"{where}: missing {key!r}")
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: {key!r} must be a non-empty string, not {value!r}")
    return value.strip()


def normalize_color(color: str) -> str:
    """Colors are case-insensitive names: stored upper-case."""
    return color.upper()


def normalize_shape(shape: str) -> str:
    """The four legacy shapes are stored upper-case; custom shapes (file paths) keep their case."""
    return shape.upper() if shape.upper() in LEGACY_SHAPES else shape


PropertyLookup = Callable[[str], Mapping[str, str]]
"""The properties of an image (its key under the shapes folder, or a composite name)."""


def _piece_from_obj(obj: Any, index: int, lookup: PropertyLookup | None = None) -> Piece:
    where = f"piece #{index + 1}"
    if not isinstance(obj, dict):
        raise ValueError(f"{where} is not a JSON object")
    piece_id = _int_field(obj, "id", where) if "id" in obj else index
    x = _int_field(obj, "x", where)
    y = _int_field(obj, "y", where)
    props = {k: v for k, v in obj.items() if k not in _PIECE_KEYS and k not in _IGNORED_KEYS}
    image = _str_field(obj, "image", where) if "image" in obj else None
    # image-and-property-based objects may omit color/shape
    color = normalize_color(_str_field(obj, "color", where)) if "color" in obj else ""
    shape = normalize_shape(_str_field(obj, "shape", where)) if "shape" in obj else ""
    if image is None and not (color and shape):
        raise ValueError(f"{where}: needs a color and a shape, or an image")
    if image is not None and lookup is not None:
        props = dict(lookup(image))
    label = java_label(piece_id) if "id" in obj else None
    return Piece(piece_id, color, shape, x, y, props, image, label)


def parse_board(text: str, source: str = "<board>", lookup: PropertyLookup | None = None
                ) -> Board:
    """Parse a predefined board file or a server JSON line; ``source`` names it in errors.

    ``lookup`` gives image pieces their properties (without it they keep the extra keys of
    the file).

    Raises ConfigError naming ``source`` and the problem: bad JSON, a missing or malformed
    ``value`` list, a cell off the board, two pieces on one cell, duplicate ids.
    """
    try:
        data = json_value(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{source}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a board must be a JSON object with a 'value' list")
    values = data.get("value")
    if not isinstance(values, list):
        raise ConfigError(f"{source}: a board needs a 'value' list of pieces")
    try:
        pieces = tuple(_piece_from_obj(obj, i, lookup) for i, obj in enumerate(values))
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    except ValueError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    problem = _board_problem(pieces)
    if problem is not None:
        raise ConfigError(f"{source}: {problem}")
    board_id = data.get("id", 0)
    if not isinstance(board_id, (str, int)) or isinstance(board_id, bool):
        raise ConfigError(f"{source}: board 'id' must be a string or an integer")
    name = data.get("name")
    if name is not None and not isinstance(name, str):
        raise ConfigError(f"{source}: board 'name' must be a string")
    return Board(pieces, board_id, name)


def read_board(path: str | Path, lookup: PropertyLookup | None = None) -> Board:
    """Read a predefined board file (ConfigError naming the file if it is unreadable or bad)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read board file ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: board file is not UTF-8 text") from None
    return parse_board(text, str(path), lookup)


def write_board(board: Board, path: str | Path) -> None:
    """Write ``board`` as a predefined board file."""
    Path(path).write_text(board.to_file_text(), encoding="utf-8")


# --------------------------------------------------------------------------- ASCII art


def color_symbol(color: str) -> str:
    """ASCII color letter: lowercase first letter, except BLUE which is ``g``."""
    up = color.upper()
    if up in _COLOR_SYMBOLS:
        return _COLOR_SYMBOLS[up]
    return color[:1].lower() or " "


def shape_symbol(shape: str) -> str:
    """ASCII shape sign: ``#`` square, ``*`` star, ``O`` circle, ``T`` triangle.

    Custom shapes (not in the reference's ASCII art) use the upper-cased first letter of the
    file name.
    """
    up = shape.upper()
    if up in _SHAPE_SYMBOLS:
        return _SHAPE_SYMBOLS[up]
    base = shape.rsplit("/", 1)[-1]
    return base[:1].upper() or "?"


def piece_icon(piece: Piece) -> str:
    """The two ASCII characters of a piece: color letter and shape sign; an image piece
    shows the first letter of its ``color`` property (blank without one) and, as the
    reference does, the first character of its image's file name."""
    if piece.image is None:
        return color_symbol(piece.color) + shape_symbol(piece.shape)
    color = str(piece.props.get("color", "")) or piece.color
    base = piece.image.rstrip("/").rsplit("/", 1)[-1]
    return (color_symbol(color) if color else " ") + (base[:1] or "?")


Marks = Callable[[int, Piece | None], tuple[str, str]]
"""The two characters around a cell of the ASCII board, from its number and its piece."""


def _ascii_grid(board: Board, marks: Marks) -> list[str]:
    """The ASCII board's lines from its top divider to its bottom one (one piece a cell)."""
    div = "#---+" + "-----" * N
    lines = [div]
    for y in range(N, 0, -1):
        row = f"# {y} |"
        for x in range(1, N + 1):
            piece = board.at(x, y)
            left, right = marks(cell_of(x, y), piece)
            row += " " + left + (" ." if piece is None else piece_icon(piece)) + right
        lines.append(row)
    lines.append(div)
    return lines


def render_ascii(board: Board, movable: Collection[int] = (), last_cell: int | None = None) -> str:
    """The FULL-mode ASCII board of CGS 7.x (comment lines starting with ``#``, joined by
    newlines).

    ``movable`` holds the ids of pieces to mark ``(..)``; ``last_cell`` the cell the last MOVE
    was applied to, marked ``[..]`` (``[ .]`` once its piece is gone). Layout of the reference
    (Episode.graphicDisplayAscii, one piece per cell)::

        #---+------------------------------
        # 6 |  rO   .    .  ...
        ...
        #---+------------------------------
        #   |   1    2    3    4    5    6
    """
    movable_ids = set(movable)

    def marks(cell: int, piece: Piece | None) -> tuple[str, str]:
        if cell == last_cell:
            return "[", "]"
        if piece is not None and piece.id in movable_ids:
            return "(", ")"
        return " ", " "

    lines = _ascii_grid(board, marks)
    lines.append("#   |" + "".join(f"   {x} " for x in range(1, N + 1)))
    return "\n".join(lines)


def render_ascii_8(board: Board, last_piece: int | None = None,
                   emptied: int | None = None) -> str:
    """The FULL-mode ASCII board of CGS 8.060 (``version=8``): the same grid, with no mark
    on the pieces that can move; ``[..]`` around ``last_piece`` (the piece of the last
    move attempt, while it is on the board) and ``( .)`` on ``emptied`` (the cell an
    accepted move emptied); the column numbers end with three spaces, not one
    (Episode.graphicDisplayAscii of 8.060, one piece per cell)."""

    def marks(cell: int, piece: Piece | None) -> tuple[str, str]:
        if piece is not None and piece.id == last_piece:
            return "[", "]"
        if piece is None and cell == emptied:
            return "(", ")"
        return " ", " "

    lines = _ascii_grid(board, marks)
    lines.append("#   |  " + "".join(f" {x}   " for x in range(1, N + 1)))
    return "\n".join(lines)


# --------------------------------------------------------------------------- generation


@dataclass(frozen=True)
class GenParams:
    """The six-parameter random board distribution, with its color and shape lists.

    ``min_shapes``/``max_shapes`` (and colors) of 0 mean "each piece draws from the whole list".
    """

    min_objects: int
    max_objects: int
    min_shapes: int = 0
    max_shapes: int = 0
    min_colors: int = 0
    max_colors: int = 0
    colors: tuple[str, ...] = LEGACY_COLORS
    shapes: tuple[str, ...] = LEGACY_SHAPES

    def __post_init__(self) -> None:
        if not 1 <= self.min_objects <= self.max_objects <= NCELLS:
            raise ConfigError(
                f"number of objects {self.min_objects}:{self.max_objects} must satisfy "
                f"1 <= min <= max <= {NCELLS}"
            )
        for what, lo, hi, pool in (
            ("shapes", self.min_shapes, self.max_shapes, self.shapes),
            ("colors", self.min_colors, self.max_colors, self.colors),
        ):
            if not pool:
                raise ConfigError(f"the list of {what} is empty")
            if len(set(pool)) != len(pool):
                raise ConfigError(f"the list of {what} has duplicates: {';'.join(pool)}")
            if not 0 <= lo <= hi:
                raise ConfigError(f"number of {what} {lo}:{hi} must satisfy 0 <= min <= max")
            if hi > len(pool):
                raise ConfigError(
                    f"cannot have {hi} distinct {what}: only {len(pool)} available "
                    f"({';'.join(pool)})"
                )
            if hi > self.min_objects:
                raise ConfigError(
                    f"cannot have {hi} distinct {what} on a board of {self.min_objects} "
                    f"objects: the maximum number of {what} must not exceed the minimum "
                    f"number of objects"
                )


def _parse_range(text: str, what: str) -> tuple[int, int]:
    parts = text.strip().split(":")
    try:
        if len(parts) == 1:
            n = int(parts[0])
            return n, n
        if len(parts) == 2:
            return int(parts[0]), int(parts[1])
    except ValueError:
        pass
    raise ConfigError(f"bad {what} {text!r}: expected a number N or a range N1:N2")


def parse_name_list(text: str) -> tuple[str, ...]:
    """A ``colors=`` / ``shapes=`` value: semicolon-separated names (blanks dropped)."""
    return tuple(part.strip() for part in text.split(";") if part.strip())


def parse_board_spec(
    args: Sequence[str],
    colors: Sequence[str] | None = None,
    shapes: Sequence[str] | None = None,
) -> GenParams:
    """Parse the board-spec arguments of the captive server.

    One argument ``N`` or ``N1:N2`` (number of objects; shapes and colors drawn freely), or three
    (objects, shapes, colors), each a number or a range ``N1:N2``. ``colors``/``shapes`` replace
    the legacy lists (names are normalized: colors upper-case, legacy shapes upper-case).
    """
    if len(args) not in (1, 3):
        raise ConfigError(
            f"board spec {' '.join(args)!r}: expected 1 argument (objects) or 3 "
            f"(objects shapes colors), each N or N1:N2; got {len(args)}"
        )
    lo_o, hi_o = _parse_range(args[0], "number of objects")
    lo_s = hi_s = lo_c = hi_c = 0
    if len(args) == 3:
        lo_s, hi_s = _parse_range(args[1], "number of shapes")
        lo_c, hi_c = _parse_range(args[2], "number of colors")
        if lo_s < 1 or lo_c < 1:
            raise ConfigError(
                f"board spec {' '.join(args)!r}: the numbers of shapes and colors must be >= 1"
            )
    color_list = LEGACY_COLORS if colors is None else tuple(normalize_color(c) for c in colors)
    shape_list = LEGACY_SHAPES if shapes is None else tuple(normalize_shape(s) for s in shapes)
    return GenParams(lo_o, hi_o, lo_s, hi_s, lo_c, hi_c, color_list, shape_list)


def _assign(values: Sequence[str], k: int, n: int, rng: random.Random) -> list[str]:
    """Values for n pieces: k distinct chosen values all present (k=0: free draws)."""
    if k == 0:
        return [rng.choice(values) for _ in range(n)]
    chosen = rng.sample(list(values), k)
    out = [rng.choice(chosen) for _ in range(n)]
    for value, j in zip(chosen, rng.sample(range(n), k), strict=True):
        out[j] = value
    return out


def _cells(n: int, rng: random.Random, allowed: Collection[int] | None,
           at_least_one: bool) -> list[int]:
    """``n`` distinct random cells: anywhere; all among ``allowed``; or, with
    ``at_least_one``, one among ``allowed`` and the others anywhere else."""
    if allowed is None:
        return sorted(rng.sample(range(1, NCELLS + 1), n))
    pool = sorted(allowed)
    if at_least_one:
        if not pool:
            raise BoardGenerationError("the conditions allow no cell for the piece a test "
                                       "board must have there")
        first = rng.choice(pool)
        return sorted([first, *rng.sample([c for c in range(1, NCELLS + 1) if c != first],
                                          n - 1)])
    if len(pool) < n:
        raise BoardGenerationError(f"the conditions leave {len(pool)} cells for {n} pieces")
    return sorted(rng.sample(pool, n))


def generate_board(params: GenParams, rng: random.Random,
                   allowed: Collection[int] | None = None, at_least_one: bool = False
                   ) -> Board:
    """Draw one random board: counts uniformly from their ranges, distinct random cells,
    k distinct shapes and colors (each piece takes one, then k pieces are overwritten so all
    appear), piece ids 0..n-1 in increasing cell order.

    ``allowed`` places the pieces directly (a position mask): all of them among these
    cells, or with ``at_least_one`` one of them there and the others anywhere.
    """
    n = rng.randint(params.min_objects, params.max_objects)
    k_shapes = rng.randint(params.min_shapes, params.max_shapes)
    k_colors = rng.randint(params.min_colors, params.max_colors)
    cells = _cells(n, rng, allowed, at_least_one)
    shapes = _assign(params.shapes, k_shapes, n, rng)
    colors = _assign(params.colors, k_colors, n, rng)
    pieces = []
    for i, cell in enumerate(cells):
        x, y = xy_of(cell)
        pieces.append(Piece(i, colors[i], shapes[i], x, y))
    return Board(tuple(pieces))


BoardSource = Callable[[], Board]
"""Something that hands out the initial board of each new episode."""


def generate_image_board(min_objects: int, max_objects: int,
                         draw: Callable[[random.Random], str], lookup: PropertyLookup,
                         rng: random.Random) -> Board:
    """Draw one random board of image pieces: the count uniformly from its range, distinct
    random cells, each piece's image from ``draw``, its properties from ``lookup``; piece
    ids 0..n-1 in increasing cell order."""
    n = rng.randint(min_objects, max_objects)
    cells = sorted(rng.sample(range(1, NCELLS + 1), n))
    pieces = []
    for i, cell in enumerate(cells):
        image = draw(rng)
        x, y = xy_of(cell)
        pieces.append(Piece(i, "", "", x, y, dict(lookup(image)), image))
    return Board(tuple(pieces))


def generate_until(
    source: BoardSource,
    predicate: Callable[[Board], bool],
    tries: int = 1000,
    what: str = "the conditions",
) -> Board:
    """Draw boards from ``source`` until one satisfies ``predicate``;
    ``BoardGenerationError`` (naming ``what``) after ``tries`` boards."""
    if tries < 1:
        raise ValueError("tries must be at least 1")
    for _ in range(tries):
        board = source()
        if predicate(board):
            return board
    raise BoardGenerationError(
        f"no board meeting {what} in {tries} tries: the conditions cannot be met with these "
        "board parameters")
