"""Replaying recorded GOHR games through the engine (``referee replay gohr``).

A record of a web table's game holds its rule set (``settings.rules_text``), the boards
played (``settings.board_list``, board-file objects) and the move limit; its moves are
the captive server's commands ``MOVE id bucket``, ``NEW`` and ``EXIT``, each with the
response code the server gave (``info.code``: 0 accepted, 4 denied, 7 immovable, 6 for
``NEW``, 5 for ``EXIT``). Every move must be legal, every code the engine's, and the
score the engine's (``core.checking.replay_record``).
"""

from __future__ import annotations

from referee.core.checking import record_checker, replay_record
from referee.core.record import GameRecord
from referee.games.gohr.table_engine import GohrSeries, parse_action
from referee.games.gohr.table_setup import record_boards, record_rules

__all__ = ["check_file", "check_record"]


def check_record(record: GameRecord) -> str:
    """Replay a GOHR record: a summary, or ``ValueError`` naming the first move (or the
    result) the engine disagrees with."""
    if record.game != "gohr":
        raise ValueError(f"a {record.game} record, not a gohr one")
    settings = record.settings
    limit = settings.get("max_moves", 0)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise ValueError(f"bad move limit {limit!r}")
    series = GohrSeries(record_rules(settings), record_boards(settings), limit)
    summary = replay_record(series, record, parse_action)
    played = [move for move in record.moves if not move.info.get("illegal")]
    for k, (move, code) in enumerate(zip(played, series.codes, strict=False), start=1):
        said = move.info.get("code")
        if said is not None and said != code:
            raise ValueError(f"move {k} ({move.move}) is recorded with code {said}, but the "
                             f"engine answers {code}")
    return summary


check_file = record_checker(check_record)
"""Check a record file: its format and a summary, or ``ValueError``."""
