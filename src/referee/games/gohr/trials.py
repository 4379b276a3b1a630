"""Trial lists and predefined boards: the parameter sets of a trial list (or modifier) and
the board source each one describes (a folder of predefined boards, or random boards).

Nothing here knows about rules; files are read once, at construction.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from referee.core.errors import ConfigError
from referee.games.gohr.board import (
    LEGACY_COLORS,
    LEGACY_SHAPES,
    NCELLS,
    Board,
    BoardSource,
    GenParams,
    PropertyLookup,
    generate_board,
    generate_image_board,
    normalize_color,
    normalize_shape,
    parse_name_list,
    read_board,
)
from referee.games.gohr.images import ImageCatalog, ImagePool

ORDER_RANDOM = "random"
ORDER_ALPHA = "alpha"


class PredefinedBoards:
    """The boards of one ``initial_boards`` folder, served in ``initial_boards_order``.

    ``order`` is ``random`` (a fresh random permutation each pass), ``alpha`` (file-name order)
    or the name of a CSV file in the folder listing board names one per line (``.json``
    optional). All boards are read (and checked) at construction; the sequence repeats forever.
    ``lookup`` gives image pieces their properties.
    """

    def __init__(self, folder: str | Path, order: str, rng: random.Random,
                 lookup: PropertyLookup | None = None) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise ConfigError(f"{self.folder}: initial boards folder does not exist")
        self.order = order.strip()
        self._rng = rng
        files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() == ".json")
        if self.order.lower() in (ORDER_RANDOM, ORDER_ALPHA):
            names = [p.name for p in files]
        elif self.order.lower().endswith(".csv"):
            names = self._read_order_file(self.folder / self.order)
        else:
            raise ConfigError(
                f"initial_boards_order {order!r}: expected 'random', 'alpha' or a .csv file name"
            )
        if not names:
            raise ConfigError(f"{self.folder}: no board files (*.json) to use")
        self.boards: dict[str, Board] = {}
        for name in names:
            if name not in self.boards:
                self.boards[name] = read_board(self.folder / name, lookup)
        self.names: tuple[str, ...] = tuple(names)
        self._queue: list[str] = []

    @staticmethod
    def _read_order_file(path: Path) -> list[str]:
        try:
            with path.open(newline="", encoding="utf-8") as fh:
                rows = list(csv.reader(fh))
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read board order file ({exc.strerror})") from None
        except UnicodeDecodeError:
            raise ConfigError(f"{path}: board order file is not UTF-8 text") from None
        names = []
        for row in rows:
            if not row or not row[0].strip() or row[0].lstrip().startswith("#"):
                continue
            name = row[0].strip()
            names.append(name if name.lower().endswith(".json") else name + ".json")
        return names

    def next_board(self) -> Board:
        """The next board of the sequence (a new pass starts when one is used up)."""
        if not self._queue:
            self._queue = list(self.names)
            if self.order.lower() == ORDER_RANDOM:
                self._rng.shuffle(self._queue)
        return self.boards[self._queue.pop(0)]


def _cell(row: Mapping[str, str | None], key: str) -> str:
    value = row.get(key)
    return value.strip() if value else ""


def read_trial_list(path: str | Path) -> list[dict[str, str]]:
    """The parameter sets (rows) of a trial list CSV file, as column-name to value dicts.

    Lines starting with ``#`` and blank lines are skipped (modifier files begin with
    comments).
    """
    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            lines = [line for line in fh if line.strip() and not line.lstrip().startswith("#")]
            reader = csv.DictReader(lines)
            if not reader.fieldnames:
                raise ConfigError(f"{path}: empty trial list file")
            rows = [
                {k.strip(): (v or "").strip() for k, v in r.items() if k is not None}
                for r in reader
            ]
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read trial list ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: trial list is not UTF-8 text") from None
    if not rows:
        raise ConfigError(f"{path}: trial list has no parameter sets")
    return rows


def params_from_row(row: Mapping[str, str | None], source: str = "<trial list>") -> GenParams:
    """The six-parameter distribution of one trial-list (or modifier) row.

    Uses ``min_objects``..``max_colors`` and optional ``colors``/``shapes`` (semicolon lists).
    """
    values: list[int] = []
    for key in (
        "min_objects",
        "max_objects",
        "min_shapes",
        "max_shapes",
        "min_colors",
        "max_colors",
    ):
        text = _cell(row, key)
        if not text:
            raise ConfigError(f"{source}: missing {key}")
        try:
            values.append(int(text))
        except ValueError:
            raise ConfigError(f"{source}: {key} must be an integer, not {text!r}") from None
    colors_text = _cell(row, "colors")
    shapes_text = _cell(row, "shapes")
    colors = (
        tuple(normalize_color(c) for c in parse_name_list(colors_text))
        if colors_text
        else LEGACY_COLORS
    )
    shapes = (
        tuple(normalize_shape(s) for s in parse_name_list(shapes_text))
        if shapes_text
        else LEGACY_SHAPES
    )
    try:
        lo_o, hi_o, lo_s, hi_s, lo_c, hi_c = values
        return GenParams(lo_o, hi_o, lo_s, hi_s, lo_c, hi_c, colors, shapes)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None




def _objects(row: Mapping[str, str | None], source: str) -> tuple[int, int]:
    """``min_objects`` and ``max_objects`` of a row of image objects."""
    counts = []
    for key in ("min_objects", "max_objects"):
        text = _cell(row, key)
        if not text.isdecimal():
            raise ConfigError(f"{source}: {key} must be a number, not {text!r}" if text
                              else f"{source}: missing {key}")
        counts.append(int(text))
    lo, hi = counts
    if not 1 <= lo <= hi <= NCELLS:
        raise ConfigError(f"{source}: objects {lo}:{hi} must satisfy 1 <= min <= max <= "
                          f"{NCELLS}")
    return lo, hi


@dataclass(frozen=True)
class RowBoards:
    """What one trial-list row draws its initial boards from."""

    next_board: BoardSource
    params: GenParams | None = None
    """The random shape-and-color distribution, when that is the source."""
    pool: ImagePool | None = None
    """The image objects of the ``images`` column, if any."""


def boards_from_row(
    row: Mapping[str, str | None],
    boards_dir: str | Path,
    rng: random.Random,
    source: str = "<trial list>",
    catalog: ImageCatalog | None = None,
) -> RowBoards:
    """The initial boards of one trial-list row, as the reference chooses them: predefined
    boards if ``initial_boards`` is set (a folder under ``boards_dir``, in
    ``initial_boards_order``, default ``alpha``); else random boards of image objects if
    ``images`` is set (``min_objects``..``max_objects`` pieces, each drawn from the images);
    else the six-parameter random generator. ``initial_boards_order`` without
    ``initial_boards`` is ignored, as the Java CGS does. ``catalog`` (default: the
    ``shapes`` folder beside ``boards_dir``) gives image objects their properties."""
    if catalog is None:
        catalog = ImageCatalog(Path(boards_dir).parent / "shapes")
    images = _cell(row, "images")
    pool = catalog.expand(images) if images else None
    folder = _cell(row, "initial_boards")
    if folder:
        order = _cell(row, "initial_boards_order") or ORDER_ALPHA
        boards = PredefinedBoards(Path(boards_dir) / folder, order, rng, catalog.properties)
        return RowBoards(boards.next_board, pool=pool)
    if pool is not None:
        lo, hi = _objects(row, source)
        return RowBoards(lambda: generate_image_board(lo, hi, pool.draw, catalog.properties,
                                                      rng), pool=pool)
    params = params_from_row(row, source)
    return RowBoards(lambda: generate_board(params, rng), params=params)


def board_source_from_row(row: Mapping[str, str | None], boards_dir: str | Path,
                          rng: random.Random, source: str = "<trial list>") -> BoardSource:
    """The initial-board source of one trial-list row (see ``boards_from_row``)."""
    return boards_from_row(row, boards_dir, rng, source).next_board
