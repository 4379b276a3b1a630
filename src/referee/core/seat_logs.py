"""Which part of which stderr log each seat's bot wrote during a game.

A bot's stderr is appended to a log file that outlives the game (``core.players``: one
file per player and tag in a game's folder), so several games played in one folder share
it. Each bot process knows where its output begins and ends in its log (the size of the
file when it started and once it was stopped and drained: ``BotProcess.stderr_span``).
:func:`seat_logs` collects the processes started in a block, in this thread, that play a
seat, and :meth:`SeatLogs.note` puts each seat's range in the game's record
(``PlayerInfo.stderr``): from the start of the seat's first process to the end of its
last (a game that starts a program again, each hand, appends to the same file, and no
other bot writes that file meanwhile).

A readiness check's bot has no seat, so it is never counted; a bot that crashes has its
last words in its range, since the range ends only once its stderr is drained.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from referee.core.live_bots import spawn_listener
from referee.core.process import BotProcess
from referee.core.record import GameRecord, StderrLog

log = logging.getLogger(__name__)

__all__ = ["SeatLogs", "rebase_stderr_logs", "seat_logs"]


class SeatLogs:
    """The bot processes a game started for its seats (see :func:`seat_logs`)."""

    def __init__(self) -> None:
        self.processes: list[BotProcess] = []

    def started(self, process: BotProcess) -> None:
        """Keep ``process`` if it plays a seat and has a log (a spawn listener)."""
        if process.seat is not None and process.stderr_log is not None \
                and all(p is not process for p in self.processes):
            self.processes.append(process)

    def spans(self) -> dict[int, tuple[Path, int, int]]:
        """Each seat's log and byte range: from the start of its first process that ran
        to the end of its last (processes that never ran are left out)."""
        found: dict[int, tuple[Path, int, int]] = {}
        for process in self.processes:
            span = process.stderr_span()
            if process.pid is None or span is None or process.stderr_log is None \
                    or process.seat is None:
                continue
            seat, path = process.seat, process.stderr_log
            if seat not in found:
                found[seat] = (path, *span)
                continue
            known, start, end = found[seat]
            if known != path:
                log.warning("seat %d wrote two stderr logs in one game (%s, %s): only the "
                            "first is noted", seat, known, path)
                continue
            found[seat] = (known, min(start, span[0]), max(end, span[1]))
        return found

    def note(self, record: GameRecord, folder: Path) -> None:
        """Put each seat's range in ``record`` (``PlayerInfo.stderr``), the log's path
        relative to ``folder`` (the folder the game was played in); a log outside it is
        left out, with a warning."""
        for seat, (path, start, end) in sorted(self.spans().items()):
            if not 0 <= seat < len(record.players):
                continue
            try:
                relative = PurePosixPath(Path(os.path.abspath(path))
                                         .relative_to(os.path.abspath(folder)))
            except ValueError:
                log.warning("seat %d's stderr log %s is outside %s: not noted in the record",
                            seat, path, folder)
                continue
            record.players[seat].stderr = StderrLog(str(relative), start, end)


@contextlib.contextmanager
def seat_logs() -> Iterator[SeatLogs]:
    """Collect the seats' bot processes this thread starts inside the block (nesting with
    any other spawn listener); once they are stopped, :meth:`SeatLogs.note` the record."""
    logs = SeatLogs()
    with spawn_listener(logs.started):
        yield logs


def rebase_stderr_logs(record: GameRecord, prefix: str) -> None:
    """Make the record's log paths relative to a folder ``prefix`` up (``/``-separated:
    a tournament's ``slots/2`` turns ``logs/x.stderr.log`` into
    ``slots/2/logs/x.stderr.log``, relative to its store's folder)."""
    for player in record.players:
        if player.stderr is not None:
            player.stderr.path = str(PurePosixPath(prefix) / player.stderr.path)
