"""A worker process of the server: it plays the tables of programs only it is given.

``serve`` is the process's body (``table_workers`` starts it). Each table's game runs
in a thread of this process on the same ``LiveTable`` as the server's own tables; what
the table would publish to the server's hub goes down the pipe instead (``PipeHost``),
at most one state of a table every ``SPECTATOR_EVERY`` (its newest: nobody sits at such
a table, and its spectators are shown no more), and its end goes back as the record and
the last states, for the server to file. The
process runs at a lower CPU priority than the server's (the relay to the pages comes
first) and ends when the server says so or its pipe closes (the server is gone).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import Mapping
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from referee.core.players import PlayerSpec
from referee.core.record import GameRecord
from referee.core.sandbox import SandboxConfig
from referee.web.collector import settle_collector
from referee.web.live import SPECTATOR_EVERY
from referee.web.program_link import ProgramLink
from referee.web.tables import LiveTable, conclude, record_path

__all__ = ["NICENESS", "PipeHost", "serve"]

NICENESS = 5
"""How much lower the worker's CPU priority is than the server's (``nice``)."""

log = logging.getLogger(__name__)


class PipeHost:
    """The ``TableHost`` of the tables a worker plays: states and ends go to the pipe."""

    def __init__(self, pipe: Connection, data: Path, sandbox: SandboxConfig) -> None:
        self.pipe = pipe
        self.data = data
        self.sandbox = sandbox
        self.leave_grace = 0.0
        self.links: dict[tuple[str, int], ProgramLink] = {}
        self.sending = threading.Lock()
        self.pacing = threading.Condition()
        self.waiting: dict[str, dict[int | None, str]] = {}
        """Each table's newest states not sent yet (its turn comes)."""
        self.sent: dict[str, float] = {}
        """When each table's states were last sent (``time.monotonic``)."""
        threading.Thread(target=self._send_waiting, name="pacer", daemon=True).start()

    @property
    def hub(self) -> PipeHost:
        """This host is its tables' publisher too."""
        return self

    def send(self, message: tuple[Any, ...]) -> None:
        """One message to the server (from any table's thread)."""
        with self.sending, contextlib.suppress(OSError, ValueError):  # the server is gone
            self.pipe.send(message)

    def post(self, table: str, states: Mapping[int | None, str]) -> None:
        """A table's new states, to the server's hub: sent at once by the table's thread,
        which has just made them, unless its last were sent less than
        ``SPECTATOR_EVERY`` ago; then they wait, replaced by newer ones, for their turn.
        Whatever else is due goes with them: under load the tables' threads send each
        other's (a thread of its own would wait for the interpreter behind every game);
        the pacer sends what is due while none posts."""
        with self.pacing:
            fresh = table not in self.waiting  # (a newer state of a waiting table is due
            self.waiting[table] = dict(states)  # when the one it replaces was)
            due = self._due(time.monotonic())
            if due:
                self.send(("states", due))
            if fresh and table in self.waiting:  # (the pacer may wait for nothing)
                self.pacing.notify()

    def _due(self, now: float) -> dict[str, dict[int | None, str]]:
        """The waiting states whose turn has come, taken (with ``pacing`` held)."""
        due = {table: states for table, states in self.waiting.items()
               if now - self.sent.get(table, 0.0) >= SPECTATOR_EVERY}
        for table in due:
            del self.waiting[table]
            self.sent[table] = now
        return due

    def _send_waiting(self) -> None:
        """The pacer: the waiting states once their turn has come."""
        while True:
            with self.pacing:
                while not self.waiting:
                    self.pacing.wait()
                now = time.monotonic()
                due = self._due(now)
                if due:
                    self.send(("states", due))
                    continue
                first = min(self.sent.get(table, 0.0) for table in self.waiting)
                self.pacing.wait(first + SPECTATOR_EVERY - now)

    def note(self, table: str, seat: int | None, text: str) -> None:
        """A small message to a table's pages."""
        self.send(("note", table, seat, text))

    def record_path(self, game: str, table_id: str) -> Path:
        """Where the server writes the table's record (the game writes it there too)."""
        return record_path(self.data, game, table_id)

    def program_of(self, user: int | None, game: str, name: str) -> PlayerSpec | None:
        """No person sits at a worker's table, so no one hands a seat to a program."""
        return None

    def finished(self, table: LiveTable, record: GameRecord | None) -> None:
        """A table's game is over: how it ended, its record and last states, to the
        server (which writes the record and closes the table's row)."""
        table.status, table.result = conclude(table, record)
        states = table.states_of(table.engine) if table.engine is not None else {}
        with self.pacing:  # (its last states go with its end)
            self.waiting.pop(table.id, None)
            self.sent.pop(table.id, None)
            self.send(("finished", table.id, record.to_dict() if record is not None else None,
                       table.status, table.result, states))


def serve(pipe: Connection, data: str, sandbox: SandboxConfig) -> None:
    """The worker process: start every table the server sends, until it says stop or
    its pipe closes; then end at once (the programs end with the process)."""
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="%(levelname)s: %(name)s: %(message)s")
    logging.getLogger("referee.web").setLevel(logging.INFO)
    host = PipeHost(pipe, Path(data), sandbox)
    settle_collector()
    while True:
        try:
            message = pipe.recv()
        except (EOFError, OSError):
            break
        if message[0] == "stop":
            break
        if message[0] == "start":
            try:
                LiveTable(host, message[1]).start()
            except Exception:  # one table that cannot start must not stop the others
                log.exception("table %s: could not start", message[1].id)
                host.send(("finished", message[1].id, None, "aborted",
                           "the game could not start", {}))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
