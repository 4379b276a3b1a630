"""Piskvork's ``.psq`` files: a Gomoku record written as one, and one read back.

The format: a header ``Piskvorky WxH, 11:11, 0``, then one line per stone ``x,y,ms`` with
1-based coordinates in played order (opening and swap2 stones included, 0 ms for stones
not timed one by one), then the two players' names and ``-1``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from referee.core.errors import ConfigError
from referee.core.files import write_text_atomic
from referee.core.record import GameRecord
from referee.games.gomoku.board import MAX_SIZE, MIN_SIZE
from referee.games.gomoku.protocol import SHORT_POINT, parse_point


def record_to_psq(record: GameRecord) -> str:
    """The ``.psq`` text of a Gomoku record."""
    if record.game != "gomoku":
        raise ConfigError(f"a {record.game} record cannot be written as .psq")
    width = int(record.settings["width"])
    height = int(record.settings["height"])
    lines = [f"Piskvorky {width}x{height}, 11:11, 0"]
    for x, y in record.opening:
        lines.append(f"{x + 1},{y + 1},0")
    for move in record.moves:
        if move.move == "SWAP" or move.info.get("illegal"):
            continue
        ms = round(move.ms)
        single = _stone_head(move.move) if len(move.move) <= SHORT_POINT else None
        if single is not None:  # one stone: the common case
            lines.append(f"{single}{ms}")
            continue
        for point in map(parse_point, move.move.split()):
            if point is None:
                continue
            lines.append(f"{point[0] + 1},{point[1] + 1},{ms}")
            ms = 0
    lines.extend(player.name for player in record.players)
    lines.append("-1")
    return "\n".join(lines) + "\n"


@functools.lru_cache(maxsize=4096)
def _stone_head(text: str) -> str | None:
    """``x,y,`` (1-based) of a move of one stone, ``None`` for any other move (remembered
    per text, as ``parse_point``: a board has at most 1,024 points)."""
    point = parse_point(text)
    return None if point is None else f"{point[0] + 1},{point[1] + 1},"


def write_psq(record: GameRecord, path: Path | str) -> Path:
    """Write the record as ``.psq`` to ``path``, whole or not at all."""
    return write_text_atomic(path, record_to_psq(record))


_HEAD = re.compile(r"Piskvorky (\d+)x(\d+),")
_STONE = re.compile(r"\s*(-?\d+),(-?\d+)(?:,(-?\d+))?\s*")


@dataclass(frozen=True)
class PsqStone:
    """One stone of a ``.psq`` file: its point (0-based), milliseconds, file line."""

    x: int
    y: int
    ms: int
    line: int


@dataclass(frozen=True)
class PsqGame:
    """What a ``.psq`` file holds: the board, the stones in order, and the lines after
    them (the players' names and a result code, as Piskvork writes them)."""

    width: int
    height: int
    stones: list[PsqStone]
    after: list[str]


def read_psq(text: str) -> PsqGame:
    """The game of a ``.psq`` text; ``ValueError`` if the header is not one or the board
    is outside the sizes played."""
    lines = text.splitlines()
    head = _HEAD.match(lines[0]) if lines else None
    if head is None:
        raise ValueError("not a .psq file: the first line is not 'Piskvorky WxH, ...'")
    width, height = int(head[1]), int(head[2])
    if not (MIN_SIZE <= width <= MAX_SIZE and MIN_SIZE <= height <= MAX_SIZE):
        raise ValueError(f"the board {width}x{height} is outside {MIN_SIZE}..{MAX_SIZE}")
    stones = []
    rest = len(lines)
    for number, line in enumerate(lines[1:], start=2):
        stone = _STONE.fullmatch(line)
        if stone is None:
            rest = number - 1
            break
        stones.append(PsqStone(int(stone[1]) - 1, int(stone[2]) - 1, int(stone[3] or 0),
                               number))
    return PsqGame(width, height, stones, lines[rest:])
