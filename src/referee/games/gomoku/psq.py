"""Export a Gomoku game record as a Piskvork ``.psq`` file.

The format: a header ``Piskvorky WxH, 11:11, 0``, then one line per stone ``x,y,ms`` with
1-based coordinates in played order (opening and swap2 stones included, 0 ms for stones
not timed one by one), then the two players' names and ``-1``.
"""

from __future__ import annotations

from pathlib import Path

from referee.core.errors import ConfigError
from referee.core.files import write_text_atomic
from referee.core.record import GameRecord
from referee.games.gomoku.protocol import parse_point


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
        for part in move.move.split():
            point = parse_point(part)
            if point is None:
                continue
            lines.append(f"{point[0] + 1},{point[1] + 1},{ms}")
            ms = 0
    lines.extend(player.name for player in record.players)
    lines.append("-1")
    return "\n".join(lines) + "\n"


def write_psq(record: GameRecord, path: Path | str) -> Path:
    """Write the record as ``.psq`` to ``path``, whole or not at all."""
    return write_text_atomic(path, record_to_psq(record))
