"""What a captive-server session plays: its arguments turned into rules and a board source.

The arguments are those of the reference server (``Captive``): ``key=value`` options (also
written ``-Dkey=value``) anywhere, and positional arguments in one of these forms:

1. ``RULES.txt BOARD.json``: every episode starts from that board;
2. ``RULES.txt N`` or ``RULES.txt N1:N2``: random boards of that many pieces;
3. ``RULES.txt PIECES SHAPES COLORS``, each a number or a range: random boards with that
   many distinct shapes and colors (``colors=`` and ``shapes=`` give custom lists);
4. ``TRIAL-LIST.csv ROW``: the (1-based) parameter set of a trial list; its rule set and
   boards are found under ``inputDir``;
5. ``R:RULES:MODIFIER``: a rule set under ``inputDir/rules`` and a modifier (a one-row
   trial list of board parameters) under ``inputDir/modifiers``.

With ``root`` (the socket server's data folder) every file must lie inside it: a path that
leads elsewhere is refused, so clients cannot read arbitrary files.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from referee.core.errors import ConfigError
from referee.games.gohr.board import (
    LEGACY_COLORS,
    LEGACY_SHAPES,
    Board,
    BoardSource,
    GenParams,
    generate_board,
    parse_board_spec,
    parse_name_list,
    read_board,
)
from referee.games.gohr.images import ImageCatalog, ImagePool
from referee.games.gohr.ruleset import RuleSet, read_ruleset
from referee.games.gohr.trials import RowBoards, boards_from_row, read_trial_list

OPTIONS = ("seed", "inputDir", "output", "condTrain", "condTest", "colors", "shapes", "log",
           "logappend", "log.nickname", "log.run", "log.format", "version")
"""The ``key=value`` options the server knows."""

Output = Literal["brief", "standard", "full"]


@dataclass(frozen=True)
class Arguments:
    """Arguments split into options (by their canonical key) and positional ones."""

    options: Mapping[str, str]
    positional: tuple[str, ...]


def split_arguments(args: Sequence[str]) -> Arguments:
    """Separate ``key=value`` (or ``-Dkey=value``) options from positional arguments.

    Option keys are matched without regard to case. An argument with ``=`` whose key is
    not an option is an error, except the ``R:...`` form, which holds no ``=``.
    """
    known = {key.lower(): key for key in OPTIONS}
    options: dict[str, str] = {}
    positional: list[str] = []
    for arg in args:
        text = arg[2:] if arg.startswith("-D") else arg
        key, equals, value = text.partition("=")
        if not equals:
            positional.append(arg)
            continue
        canonical = known.get(key.lower())
        if canonical is None:
            raise ConfigError(f"unknown option {key!r} (known: {', '.join(OPTIONS)})")
        options[canonical] = value
    return Arguments(options, tuple(positional))


@dataclass
class GameSetup:
    """Everything a session needs to play episodes."""

    rules: RuleSet
    next_board: BoardSource
    rng: random.Random
    seed: int
    output: Output = "full"
    conditions: RuleSet | None = None
    """The condition file (``condTrain=``/``condTest=``), if any."""
    test_mode: bool = False
    """Whether boards must match a condition (``condTest=``, or ``COND test``)."""
    options: Mapping[str, str] = field(default_factory=dict)
    colors: tuple[str, ...] = LEGACY_COLORS
    """The colors pieces may have (``colors=``, else the legacy ones), upper-case."""
    shapes: tuple[str, ...] = LEGACY_SHAPES
    """The shapes pieces may have (``shapes=``, else the legacy ones), upper-case."""
    version: int = 7
    """The reference version whose answers the session gives (``version=``): 7 for CGS
    7.x, 8 for 8.060's codes and board display."""
    params: GenParams | None = None
    """The random shape-and-color distribution, when boards come from it."""
    pool: ImagePool | None = None
    """The image objects of a trial list's ``images`` column (for FEATURES), if any."""

    @property
    def rule_name(self) -> str:
        """The rule set's name as results files write it."""
        return self.rules.name


class PathResolver:
    """Finds data files: relative to ``base`` (or ``inputDir``), confined to ``root``."""

    def __init__(self, base: Path, root: Path | None) -> None:
        self.base = base
        self.root = root.resolve() if root is not None else None

    def __call__(self, text: str, under: Path | None = None) -> Path:
        """The file ``text`` names (``~`` expanded), relative to ``under`` or the base."""
        if not text:
            raise ConfigError("an empty file name")
        path = Path(os.path.expanduser(text)) if self.root is None else Path(text)
        if not path.is_absolute():
            path = (under or self.base) / path
        if self.root is not None:
            full = path.resolve()
            if not full.is_relative_to(self.root):
                raise ConfigError(f"{text}: outside the server's data folder")
            return full
        return path


def _seed(text: str | None) -> int:
    if text is None:
        return 0
    try:
        return int(text)
    except ValueError:
        raise ConfigError(f"seed={text}: not an integer") from None


VERSIONS = (7, 8)
"""The reference versions ``version=`` may name."""


def _version(text: str | None) -> int:
    if text is None:
        return 7
    major = text.strip().split(".", 1)[0]
    if not major.isdecimal() or int(major) not in VERSIONS:
        raise ConfigError(f"version={text}: expected 7 (the CGS 7.x answers, the default) "
                          "or 8 (those of CGS 8.060)")
    return int(major)


def read_condition_file(path: Path) -> RuleSet:
    """A condition file (the rule language), its errors naming it as one."""
    return read_ruleset(path, "condition file")


def build_setup(args: Sequence[str], *, cwd: Path | None = None, root: Path | None = None,
                read_conditions: Callable[[Path], RuleSet] = read_condition_file
                ) -> GameSetup:
    """The session described by ``args``; ``ConfigError`` names what is wrong.

    ``root`` confines every file to a data folder (the socket server); relative names are
    then taken from it (and ``inputDir`` must lie inside it).
    """
    parsed = split_arguments(args)
    options = parsed.options
    positional = parsed.positional
    if not positional:
        raise ConfigError("missing the rule set (or trial list, or R:rules:modifier) "
                          "argument")
    base = root if root is not None else (cwd or Path.cwd())
    resolve = PathResolver(base, root)
    input_dir = resolve(options["inputDir"]) if "inputDir" in options else base
    seed = _seed(options.get("seed"))
    version = _version(options.get("version"))
    rng = random.Random(seed) if seed else random.Random()
    modes: dict[str, Output] = {"brief": "brief", "standard": "standard", "full": "full"}
    output = modes.get(options.get("output", "full").lower())
    if output is None:
        raise ConfigError(f"output={options['output']}: expected brief, standard or full")
    colors = parse_name_list(options["colors"]) if "colors" in options else None
    shapes = parse_name_list(options["shapes"]) if "shapes" in options else None

    catalog = ImageCatalog(resolve("shapes", input_dir), resolve)
    first, rest = positional[0], positional[1:]
    row: Mapping[str, str] | None = None
    if first.startswith("R:"):
        rules, boards, row, where = _r_form(first, rest, input_dir, resolve, rng, catalog)
    elif first.lower().endswith(".csv"):
        rules, boards, row, where = _trial_list_form(first, rest, input_dir, resolve, rng,
                                                     catalog)
    else:
        rules = read_ruleset(resolve(first))
        boards = _board_form(rest, resolve, rng, colors, shapes, catalog)
        where = first

    if "condTrain" in options and "condTest" in options:
        raise ConfigError("give condTrain= or condTest=, not both")
    named = [(key, options[key], resolve(options[key])) for key in ("condTrain", "condTest")
             if key in options]
    for key, text, path in named:
        if not path.is_file():
            raise ConfigError(f"{path}: no such condition file ({key}={text})")
    if not named and row is not None:
        named = _row_conditions(row, where, input_dir, resolve)
    conditions = None
    test_mode = False
    for key, _, path in named:
        conditions = read_conditions(path)
        test_mode = key == "condTest"
    return GameSetup(rules, boards.next_board, rng, seed, output, conditions, test_mode,
                     dict(options),
                     tuple(c.upper() for c in colors) if colors else LEGACY_COLORS,
                     tuple(s.upper() for s in shapes) if shapes else LEGACY_SHAPES,
                     version, boards.params, boards.pool)


def _row_conditions(row: Mapping[str, str], where: str, input_dir: Path,
                    resolve: PathResolver) -> list[tuple[str, str, Path]]:
    """The condition file a trial-list row names in its ``condTrain`` or ``condTest``
    column (under ``inputDir/cond``, ``.txt`` optional); a missing file is an error, as
    the reference stops on it."""
    named = [(key, row[key].strip()) for key in ("condTrain", "condTest")
             if (row.get(key) or "").strip()]
    if len(named) > 1:
        raise ConfigError(f"{where}: names condTrain and condTest; give one")
    out = []
    for key, name in named:
        path = resolve(name if name.lower().endswith(".txt") else name + ".txt",
                       input_dir / "cond")
        if not path.is_file():
            raise ConfigError(f"{path}: no such condition file ({key} of {where})")
        out.append((key, name, path))
    return out


def _board_form(rest: Sequence[str], resolve: PathResolver, rng: random.Random,
                colors: tuple[str, ...] | None, shapes: tuple[str, ...] | None,
                catalog: ImageCatalog) -> RowBoards:
    if not rest:
        raise ConfigError("missing the board: a board file, a number of pieces, or "
                          "pieces shapes colors")
    if len(rest) == 1 and rest[0].lower().endswith(".json"):
        board = read_board(resolve(rest[0]), catalog.properties)
        return RowBoards(lambda: board)
    params = parse_board_spec(rest, colors=colors, shapes=shapes)
    return RowBoards(lambda: generate_board(params, rng), params=params)


Form = tuple[RuleSet, RowBoards, Mapping[str, str], str]
"""A trial-list form's rule set, boards, parameter row and its name in errors."""


def _trial_list_form(first: str, rest: Sequence[str], input_dir: Path,
                     resolve: PathResolver, rng: random.Random,
                     catalog: ImageCatalog) -> Form:
    path = resolve(first)
    if len(rest) != 1 or not rest[0].isdecimal():
        raise ConfigError(f"{first}: a trial list needs the row number (1-based) after it")
    rows = read_trial_list(path)
    number = int(rest[0])
    if not 1 <= number <= len(rows):
        raise ConfigError(f"{first}: row {number} does not exist (the list has "
                          f"{len(rows)} rows)")
    row = rows[number - 1]
    rule_id = row.get("rule_id") or ""
    if not rule_id:
        raise ConfigError(f"{first}: row {number} names no rule_id")
    if not rule_id.endswith(".txt"):
        rule_id += ".txt"
    rules = read_ruleset(resolve(rule_id, input_dir / "rules"))
    where = f"{first} row {number}"
    return rules, boards_from_row(row, input_dir / "boards", rng, where, catalog), row, where


def _r_form(first: str, rest: Sequence[str], input_dir: Path, resolve: PathResolver,
            rng: random.Random, catalog: ImageCatalog) -> Form:
    parts = first.split(":")
    if len(parts) != 3 or not parts[1] or not parts[2]:
        raise ConfigError(f"{first}: expected R:ruleSet:modifier")
    if rest:
        raise ConfigError(f"{first}: no further arguments expected, got {' '.join(rest)}")
    rules = read_ruleset(resolve(parts[1], input_dir / "rules"))
    modifier = resolve(parts[2], input_dir / "modifiers")
    rows = read_trial_list(modifier)
    if not rows:
        raise ConfigError(f"{parts[2]}: the modifier file has no parameter row")
    boards = boards_from_row(rows[0], input_dir / "boards", rng, parts[2], catalog)
    return rules, boards, rows[0], parts[2]


__all__ = ["OPTIONS", "Arguments", "Board", "GameSetup", "PathResolver", "build_setup",
           "split_arguments"]
