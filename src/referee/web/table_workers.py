"""The worker processes that play the server's tables of programs only.

A table whose every seat is one of the server's programs (built-in bots, registered
programs) needs nothing of the server's process but its spectators, and instant programs
play it as fast as the referee can: a hundred of them in the server's threads would leave
the event loop that serves every page a hundredth of the interpreter. So such a table is
played in a worker process (``table_worker``), a few of them beside the server at a lower
CPU priority, which sends back every state and the finished record over a pipe; the
server's process only relays the states to the pages (``Hub``: the worker sends a table's
states no more often than its spectators are shown them) and files the record as it
does a table it plays itself. A worker that dies takes its tables down as aborted, with
the reason; the next table starts another. Nothing here knows a game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import threading
from typing import TYPE_CHECKING, Any

import orjson

from referee.core.record import GameRecord
from referee.web import table_worker
from referee.web.person_seat import Message

if TYPE_CHECKING:
    from referee.web.tables import SeatInfo, TablePlan, Tables

log = logging.getLogger(__name__)

__all__ = ["TableWorkers", "WorkedTable"]

BATCH = 256
"""The most messages of a worker read before their states go to the hub."""
LOST = "the worker process playing the table stopped"
"""A table's result when its worker process died during its game."""


class WorkedTable:
    """A table being played in a worker process, as the server's pages see it."""

    def __init__(self, workers: TableWorkers, plan: TablePlan) -> None:
        self.workers = workers
        self.plan = plan
        self.id = plan.id
        self.game = plan.game
        self.seats: list[SeatInfo] = list(plan.seats)
        self.status = "playing"
        self.result = ""
        self.states: dict[int | None, str] = {}
        self.lock = threading.Lock()

    def start(self) -> None:
        """Hand the game to a worker process."""
        self.workers.play(self)

    def keep(self, states: dict[int | None, str]) -> None:
        """The worker's newest states, kept for the pages that connect next."""
        with self.lock:
            self.states = states

    def show(self, states: dict[int | None, str]) -> None:
        """The table's last states: kept, and sent to its pages."""
        self.keep(states)
        self.workers.tables.hub.post(self.id, states)

    def ended_states(self, status: str, result: str) -> dict[int | None, str]:
        """The newest states told that the game ended so (a table whose worker is gone:
        its last board, with why it stopped)."""
        ended: dict[int | None, str] = {}
        with self.lock:
            for seat, text in self.states.items():
                state = orjson.loads(text)
                state["table"].update(status=status, result=result, asking=None,
                                      left_ms=None)
                ended[seat] = orjson.dumps(state).decode()
        return ended

    def state_for(self, seat: int | None) -> str | None:
        """The newest state a page of ``seat`` sees (for a page that just connected)."""
        with self.lock:
            return self.states.get(seat, self.states.get(None))

    def submit(self, seat: int, message: Message) -> str | None:
        """Nobody plays such a table from a page: every message is refused."""
        return "programs play every seat of this table"

    def arrive(self, seat: int | None) -> None:
        """A page connected (a spectator's: nobody sits at such a table)."""

    def depart(self, seat: int | None, loop: asyncio.AbstractEventLoop) -> None:
        """A page closed."""


class _Worker:
    """One worker process: its pipe, the tables it plays, the thread reading it."""

    def __init__(self, workers: TableWorkers, number: int) -> None:
        self.workers = workers
        context = multiprocessing.get_context("spawn")  # (no fork of a threaded server)
        self.pipe, child = context.Pipe()
        tables = workers.tables
        self.process = context.Process(
            target=table_worker.serve, args=(child, str(tables.data), tables.sandbox),
            name=f"referee-table-worker-{number}", daemon=True)
        self.process.start()
        child.close()
        self.sending = threading.Lock()
        self.tables: dict[str, WorkedTable] = {}
        self.alive = True
        self.reader = threading.Thread(target=self._read, name=self.process.name, daemon=True)
        self.reader.start()

    def play(self, table: WorkedTable) -> None:
        """Start ``table``'s game in this process (aborted, with the reason, if the
        process is gone)."""
        with self.sending:
            self.tables[table.id] = table
            try:
                self.pipe.send(("start", table.plan))
                return
            except (OSError, ValueError):
                pass
        log.warning("table %s: %s before the game began", table.id, LOST)
        self._end(table, None, "aborted", LOST, {})

    def stop(self) -> None:
        """End the process (its games with it)."""
        with self.sending, contextlib.suppress(OSError, ValueError):
            self.pipe.send(("stop",))
        self.process.join(2)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(2)

    def _read(self) -> None:
        """Take the process's messages until its pipe closes, then abort what is left;
        the states that came meanwhile go to the hub together (one call on its loop)."""
        while True:
            try:
                messages = [self.pipe.recv()]
                while len(messages) < BATCH and self.pipe.poll():
                    messages.append(self.pipe.recv())
            except (EOFError, OSError):
                break
            states: dict[str, dict[int | None, str]] = {}
            for message in messages:
                try:
                    if message[0] == "states":
                        for table_id, table_states in message[1].items():
                            table = self.tables.get(table_id)
                            if table is not None:
                                table.keep(table_states)
                                states[table_id] = table_states
                        continue
                    if states:  # (what came before an end goes first)
                        self.workers.tables.hub.post_many(states, paced=True)
                        states = {}
                    self._take(message)
                except Exception:  # one bad message must not stop the relay
                    log.exception("%s: a message could not be taken", self.process.name)
            if states:
                self.workers.tables.hub.post_many(states, paced=True)
        self.alive = False
        self.process.join(5)
        for table in list(self.tables.values()):
            log.warning("table %s: %s (exit status %s)", table.id, LOST,
                        self.process.exitcode)
            self._end(table, None, "aborted", LOST, table.ended_states("aborted", LOST))

    def _take(self, message: tuple[Any, ...]) -> None:
        kind, table_id = message[0], message[1]
        table = self.tables.get(table_id)
        if table is None:
            return
        if kind == "note":
            self.workers.tables.hub.note(table_id, message[2], message[3])
        elif kind == "finished":
            data, status, result, states = message[2:6]
            record = GameRecord.from_dict(data, f"table {table_id}") if data else None
            self._end(table, record, status, result, states)

    def _end(self, table: WorkedTable, record: GameRecord | None, status: str,
             result: str, states: dict[int | None, str]) -> None:
        """The game's end filed as the server files its own tables', then shown (once)."""
        with self.sending:
            if self.tables.pop(table.id, None) is None:
                return
        tables = self.workers.tables
        table.status, table.result = status, result
        try:
            tables.file(table.game, table.id, record, status, result)
        finally:
            if states:
                table.show(states)
            tables.forget(table.id)


class TableWorkers:
    """Up to ``count`` worker processes, started as tables need them; each table goes
    to the one playing the fewest."""

    def __init__(self, tables: Tables, count: int) -> None:
        self.tables = tables
        self.count = count
        self.workers: list[_Worker] = []
        self.started = 0
        self.lock = threading.Lock()

    def table(self, plan: TablePlan) -> WorkedTable:
        """The server's side of ``plan``'s table (``start`` hands it to a worker)."""
        return WorkedTable(self, plan)

    def play(self, table: WorkedTable) -> None:
        """Start ``table``'s game in the least busy worker (a new one while there are
        fewer than ``count``)."""
        with self.lock:
            self.workers = [worker for worker in self.workers if worker.alive]
            if len(self.workers) < self.count:
                self.started += 1
                self.workers.append(_Worker(self, self.started))
            worker = min(self.workers, key=lambda candidate: len(candidate.tables))
        worker.play(table)

    def close(self) -> None:
        """End every worker process."""
        with self.lock:
            workers, self.workers = self.workers, []
        for worker in workers:
            worker.stop()
