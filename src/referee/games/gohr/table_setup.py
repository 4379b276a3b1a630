"""What a GOHR table plays: its rule set (one of the examples, or one pasted, its rows on
lines of their own or separated by ``;``) and its boards (random ones drawn from the
table's seed as ``referee play gohr RULES N [S C] colors=... shapes=...`` draws them, or
given boards as a board file holds one, in turn or shuffled as a trial list's
``initial_boards_order=random``), checked by the same code as the command line's
arguments, each problem naming its field (a pasted rule set's: the line too)."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.core.errors import ConfigError
from referee.games.gohr.board import Board, generate_board, parse_board, parse_board_spec
from referee.games.gohr.ruleset import RuleSet, RuleSyntaxError, parse_ruleset

__all__ = ["EXAMPLES", "GIVEN_ORDERS", "PASTED", "RULES_LONGEST", "PastedRules", "board_object",
           "check_boards", "check_rules", "make_boards", "name_list", "pasted_rows",
           "random_spec", "record_boards", "record_rules"]

EXAMPLES: Mapping[str, str] = {
    "colors": "# Each color has its own bucket.\n"
              "(*,*,red,*,[0]) (*,*,blue,*,[1]) (*,*,black,*,[2]) (*,*,yellow,*,[3])\n",
    "shapes": "# Each shape has its own bucket.\n"
              "(*,square,*,*,[0]) (*,star,*,*,[1]) (*,circle,*,*,[2]) "
              "(*,triangle,*,*,[3])\n",
    "nearest bucket": "# Every piece goes to a bucket nearest to it.\n"
                      "(*,*,*,*,[Nearby])\n",
    "reading order": "# The pieces go in reading order (top row first, left to right),\n"
                     "# into any bucket.\n"
                     "(*,*,*,L1,[0,1,2,3])\n",
    "clockwise": "# The first piece anywhere; then each piece into the bucket clockwise\n"
                 "# after the previous one's.\n"
                 "(1,*,*,*,[0,1,2,3])\n"
                 "(*,*,*,*,[((p+1)%4)])\n",
    "farthest first": "# The pieces farthest from the buckets go first, into any bucket.\n"
                      "(*,*,*,Farthest,[0,1,2,3])\n",
    "anything goes": "# Every move is accepted.\n"
                     "(*,*,*,*,[0,1,2,3])\n",
}
"""The example rule sets a table offers, by name."""
PASTED = "pasted"
"""The rule-set choice that takes the pasted text."""


RULES_LONGEST = 20_000
"""The most characters a pasted rule set may have (a line break counts one)."""
PASTED_LABEL = "Pasted rule set"
"""How errors name the pasted rule set's field."""


@dataclass(frozen=True)
class PastedRules:
    """A pasted rule set with each rule row (or comment, or order) on a line of its own:
    ``text``, and where each of its lines was in the text as pasted (``places``: its line
    number there and the offset of its first character in that line)."""

    text: str
    places: tuple[tuple[int, int], ...]

    def where(self, line: int, column: int) -> str:
        """Line ``line``, column ``column`` of ``text`` as the person sees them in what
        they pasted, with the row: ``line 3, column 9 (in "(*,*,reed,*,[0])")``."""
        if not 1 <= line <= len(self.places):
            return f"line {line}"
        pasted, offset = self.places[line - 1]
        row = self.text.split("\n")[line - 1]
        shown = row if len(row) <= 60 else row[:57] + "..."
        at = f", column {offset + column}" if column > 0 else ""
        return f"line {pasted}{at} (in \"{shown}\")"


def pasted_rows(text: str) -> PastedRules:
    """A pasted rule set's rows on lines of their own. Its lines are the lines pasted (as
    ``parse_ruleset`` counts them: CRLF, LF...); ``;`` outside a string also ends a row
    (for programs and links, which send a rule set as one line), and in a text of one
    line it ends a ``#`` comment too (there, nothing else could); in a text of several
    lines a comment holds its ``;`` as rule files' comments do. Each row is stripped;
    the blank lines pasted are kept (so line numbers agree), the empty rows left between
    two ``;`` are dropped."""
    lines = text.splitlines()
    one_line = len(lines) == 1
    rows: list[str] = []
    places: list[tuple[int, int]] = []
    for number, line in enumerate(lines, start=1):
        parts = _split_row_line(line, one_line)
        kept = [(start, part) for start, part in parts if part.strip()] or [(0, "")]
        for start, part in kept:
            rows.append(part.strip())
            places.append((number, start + len(part) - len(part.lstrip())))
    while rows and not rows[-1]:
        rows.pop()
        places.pop()
    while rows and not rows[0]:
        rows.pop(0)
        places.pop(0)
    return PastedRules("\n".join(rows), tuple(places))


def _split_row_line(line: str, one_line: bool) -> list[tuple[int, str]]:
    """One pasted line cut at each ``;`` that ends a row: (offset, part) pairs."""
    parts: list[tuple[int, str]] = []
    start = 0
    in_string = in_comment = False
    for index, ch in enumerate(line):
        if in_string:
            in_string = ch != '"'
        elif ch == '"' and not in_comment:
            in_string = True
        elif ch == "#":
            in_comment = True
        elif ch == ";" and (one_line or not in_comment):
            parts.append((start, line[start:index]))
            start, in_comment = index + 1, False
    parts.append((start, line[start:]))
    return parts


def check_rules(name: str, text: str) -> tuple[str, RuleSet]:
    """The rule set a table plays (an example's text, or the pasted ``text`` with its
    rows on lines of their own, ``pasted_rows``, when ``name`` is ``pasted``) and its
    text; ``ConfigError`` naming the field, and for a pasted rule set that the engine's
    parser refuses, the line and column pasted and the reason."""
    if name != PASTED:
        if name not in EXAMPLES:
            raise ConfigError(f"Rule set: {name!r} is not one of the examples")
        return EXAMPLES[name], parse_ruleset(EXAMPLES[name], name)
    if len(text) > RULES_LONGEST:
        raise ConfigError(f"{PASTED_LABEL}: too long ({len(text)} characters, at most "
                          f"{RULES_LONGEST})")
    pasted = pasted_rows(text)
    if not pasted.text:
        raise ConfigError(f"{PASTED_LABEL}: empty (paste a rule set, or choose an example)")
    try:
        return pasted.text, parse_ruleset(pasted.text, PASTED)
    except RuleSyntaxError as exc:
        where = f"{pasted.where(exc.line, exc.column)}: " if exc.line > 0 else ""
        raise ConfigError(f"{PASTED_LABEL}: {where}{exc.detail}") from None
    except ConfigError as exc:
        raise ConfigError(f"{PASTED_LABEL}: {exc}") from None


NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,23}")
"""A color's or shape's name in a list of them (as a rule names it: a word)."""
MOST_NAMES = 36
"""The most names a list of colors or of shapes may have (a board has 36 cells)."""


def name_list(text: str, label: str) -> list[str]:
    """A ``colors=`` or ``shapes=`` value (names separated by ``;``, as ``referee play
    gohr`` takes it; commas and spaces too) as its names; ``ConfigError`` naming the
    field (``label``)."""
    names = [name for name in re.split(r"[;,\s]+", text) if name]
    if len(names) > MOST_NAMES:
        raise ConfigError(f"{label}: {len(names)} names, at most {MOST_NAMES}")
    for name in names:
        if not NAME.fullmatch(name):
            raise ConfigError(f"{label}: {name[:30]!r} is not a name (a letter, then "
                              "letters, digits or _, at most 24)")
    return names


def random_spec(pieces: str, shapes: str, colors: str,
                color_list: Sequence[str] = (), shape_list: Sequence[str] = ()) -> list[str]:
    """The board arguments of ``referee play gohr RULES N [S C]`` for random boards
    (with ``colors=`` and ``shapes=`` lists when given: empty, the four usual ones)."""
    if bool(shapes) != bool(colors):
        raise ConfigError("Random boards: give both the numbers of shapes and colors, "
                          "or neither")
    spec = [pieces, shapes, colors] if shapes else [pieces]
    try:
        parse_board_spec(spec, colors=color_list or None, shapes=shape_list or None)
    except ConfigError as exc:
        raise ConfigError(f"Random boards: {exc}") from None
    return spec


def check_boards(text: str) -> list[dict[str, Any]]:
    """Given boards: one board file's JSON (``{"value": [pieces...]}``) or a list of
    them, as board-file objects; ``ConfigError`` naming the field."""
    label = "Given boards"
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{label}: not valid JSON ({exc})") from None
    items = data if isinstance(data, list) else [data]
    if not items:
        raise ConfigError(f"{label}: an empty list")
    boards = []
    for number, item in enumerate(items, start=1):
        where = f"{label}, board {number}" if len(items) > 1 else label
        board = parse_board(json.dumps(item), where)
        if any(piece.image is not None for piece in board):
            raise ConfigError(f"{where}: image pieces are not played at a web table")
        if not len(board):
            raise ConfigError(f"{where}: no piece on it")
        boards.append(board_object(board))
    return boards


def board_object(board: Board) -> dict[str, Any]:
    """A board as a board file's object."""
    return {"id": board.id, "value": [piece.to_dict() for piece in board]}


GIVEN_ORDERS = ("in turn", "shuffled")
"""How given boards follow each other: in the order given, or (as a trial list's
``initial_boards_order=random``) a fresh random order on each pass through them."""


def make_boards(settings: Mapping[str, Any], seed: int) -> list[dict[str, Any]]:
    """The boards of one game (as board-file objects): the given ones in turn (or
    shuffled anew on each pass through them), or random ones, all drawn from ``seed``."""
    count = int(settings["episodes"])
    rng = random.Random(seed)
    if settings["boards"] == "given":
        given = list(settings["given"])
        if settings.get("given_order") != "shuffled":
            return [given[k % len(given)] for k in range(count)]
        boards: list[dict[str, Any]] = []
        while len(boards) < count:
            boards += rng.sample(given, len(given))
        return boards[:count]
    params = parse_board_spec(list(settings["spec"]),
                              colors=settings.get("color_list") or None,
                              shapes=settings.get("shape_list") or None)
    return [board_object(generate_board(params, rng)) for _ in range(count)]


def record_rules(settings: Mapping[str, Any]) -> RuleSet:
    """The rule set of a record's (or a table's) settings; ``ValueError`` if it has none."""
    text = settings.get("rules_text")
    if not isinstance(text, str):
        raise ValueError("the settings hold no rule set (rules_text)")
    try:
        return parse_ruleset(text, str(settings.get("rules", PASTED)))
    except ConfigError as exc:
        raise ValueError(f"the recorded rule set: {exc}") from None


def record_boards(settings: Mapping[str, Any]) -> list[Board]:
    """The boards a record's settings say were played; ``ValueError`` if they are bad."""
    items = settings.get("board_list")
    if not isinstance(items, list) or not items:
        raise ValueError("the settings hold no boards (board_list)")
    try:
        return [parse_board(json.dumps(item), f"board {k + 1}")
                for k, item in enumerate(items)]
    except ConfigError as exc:
        raise ValueError(f"the recorded boards: {exc}") from None
