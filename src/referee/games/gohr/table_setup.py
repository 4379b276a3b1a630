"""What a GOHR table plays: its rule set (one of the examples, or one pasted) and its
boards (random ones drawn from the table's seed as ``referee play gohr RULES N [S C]``
draws them, or given boards as a board file holds one), checked by the same code as
the command line's arguments, each problem naming its field."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

from referee.core.errors import ConfigError
from referee.games.gohr.board import Board, generate_board, parse_board, parse_board_spec
from referee.games.gohr.ruleset import RuleSet, parse_ruleset

__all__ = ["EXAMPLES", "PASTED", "board_object", "check_boards", "check_rules", "make_boards",
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


def check_rules(name: str, text: str) -> tuple[str, RuleSet]:
    """The rule set a table plays (an example's text, or ``text`` when ``name`` is
    ``pasted``) and its text; ``ConfigError`` naming the field."""
    if name != PASTED:
        if name not in EXAMPLES:
            raise ConfigError(f"Rule set: {name!r} is not one of the examples")
        return EXAMPLES[name], parse_ruleset(EXAMPLES[name], name)
    if not text.strip():
        raise ConfigError("Pasted rule set: empty (paste a rule set, or choose an example)")
    try:
        return text, parse_ruleset(text, PASTED)
    except ConfigError as exc:
        raise ConfigError(f"Pasted rule set: {exc}") from None


def random_spec(pieces: str, shapes: str, colors: str) -> list[str]:
    """The board arguments of ``referee play gohr RULES N [S C]`` for random boards."""
    if bool(shapes) != bool(colors):
        raise ConfigError("Random boards: give both the numbers of shapes and colors, "
                          "or neither")
    spec = [pieces, shapes, colors] if shapes else [pieces]
    try:
        parse_board_spec(spec)
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


def make_boards(settings: Mapping[str, Any], seed: int) -> list[dict[str, Any]]:
    """The boards of one game (as board-file objects): the given ones in turn, or random
    ones drawn from ``seed``."""
    count = int(settings["episodes"])
    if settings["boards"] == "given":
        given = list(settings["given"])
        return [given[k % len(given)] for k in range(count)]
    params = parse_board_spec(list(settings["spec"]))
    rng = random.Random(seed)
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
