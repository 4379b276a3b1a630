"""The live part: every page of a table holds one WebSocket, and every change reaches it.

A table's game thread posts what each seat and the spectators may now see
(``Hub.post``, from any thread); the event loop hands it to every connection of the
table. A connection keeps only the newest state (each state is whole: the board, the
moves, the clocks), so a page that reads slowly misses nothing but intermediate pictures
and holds no queue; a few small messages (a refused click) wait beside it. A page whose
socket takes no data for ``SEND_TIMEOUT`` seconds is disconnected with the reason.
Nothing here knows a game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field

from starlette.websockets import WebSocket

log = logging.getLogger(__name__)

__all__ = ["SEND_TIMEOUT", "Connection", "Hub"]

SEND_TIMEOUT = 30.0
"""Seconds a page may take to take one message before it is disconnected."""
SPECTATOR_EVERY = 0.04
"""Seconds between two states of a table to its spectators: the newest of those that came
meanwhile is sent (a table of instant programs changes a thousand times a second; its
players' pages get every state at once)."""
NOTES_KEPT = 16
"""Small messages kept for a connection that has not read them (older ones dropped)."""
SEEN = '{"type":"seen"}'
"""What a page sends back for every state it has shown (exactly so): a page that does
is sent a new state only while fewer than ``IN_FLIGHT`` of those sent are unseen, so
that a page (or a network) slower than the table sees the newest board, not a backlog
of old ones in the sockets' buffers. A page that never says it gets each newest state as
soon as its socket takes it."""
IN_FLIGHT = 2
"""States a page that says what it has seen may have unseen."""


@dataclass(eq=False)
class Connection:
    """One page's WebSocket at a table: whose it is and what waits to be sent."""

    websocket: WebSocket
    table: str
    seat: int | None
    """The seat the page's user holds at the table (``None``: a spectator)."""
    user: int | None
    state: str | None = None
    """The newest state not yet sent."""
    notes: deque[str] = field(default_factory=lambda: deque(maxlen=NOTES_KEPT))
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False
    sent: int = 0
    """States sent to the page."""
    seen: int | None = None
    """States the page said it has shown (``None``: it does not say)."""

    def sendable(self) -> bool:
        """Whether the page may be sent its newest state now (not too many unseen)."""
        return self.state is not None and (self.seen is None or
                                           self.sent - self.seen < IN_FLIGHT)

    def acknowledge(self, text: str) -> bool:
        """Whether ``text`` is the page saying it has shown a state sent to it (counted;
        one past what it was sent is not that, and goes on as any message would)."""
        if text != SEEN or (self.seen or 0) >= self.sent:
            return False
        self.seen = (self.seen or 0) + 1
        self.ready.set()
        return True

    async def pump(self) -> None:
        """Send what waits, newest state last, until the connection closes; a page that
        does not take a message in time is closed with the reason."""
        while not self.closed:
            await self.ready.wait()
            self.ready.clear()
            while self.notes or self.sendable():
                if self.notes:
                    text = self.notes.popleft()
                else:
                    text, self.state = self.state or "", None
                    self.sent += 1
                try:
                    await asyncio.wait_for(self.websocket.send_text(text), SEND_TIMEOUT)
                except TimeoutError:
                    log.info("table %s: a page read nothing for %.0f s: disconnected",
                             self.table, SEND_TIMEOUT)
                    await self.close(1008, "the page does not read its messages")
                    return
                except Exception:  # the socket went away: its reader ends the connection
                    self.closed = True
                    return

    def tell(self, text: str) -> None:
        """A small message to this page alone (on the loop's thread)."""
        self.notes.append(text)
        self.ready.set()

    async def close(self, code: int, reason: str) -> None:
        """Close the socket with ``code`` and ``reason`` (once)."""
        if self.closed:
            return
        self.closed = True
        self.ready.set()
        with contextlib.suppress(Exception):
            await self.websocket.close(code, reason)


class Hub:
    """The connections of every table, fed from the tables' threads."""

    def __init__(self) -> None:
        self.rooms: dict[str, set[Connection]] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.watched: dict[str, str] = {}
        """The spectators' newest state of a table, waiting for its turn."""
        self.shown: dict[str, float] = {}
        """When the spectators of a table were last sent a state (the loop's clock)."""

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop the connections live on (the server's)."""
        self.loop = loop

    def join(self, connection: Connection) -> None:
        """Start delivering to ``connection``."""
        self.rooms.setdefault(connection.table, set()).add(connection)

    def leave(self, connection: Connection) -> None:
        """Stop delivering to ``connection``."""
        room = self.rooms.get(connection.table)
        if room is not None:
            room.discard(connection)
            if not room:
                del self.rooms[connection.table]
        connection.closed = True
        connection.ready.set()

    def watching(self, table: str) -> int:
        """How many pages hold a connection to ``table``."""
        return len(self.rooms.get(table, ()))

    def post(self, table: str, states: Mapping[int | None, str]) -> None:
        """Give each connection of ``table`` its state (by seat; ``None``: spectators'),
        from any thread."""
        self._call(self._deliver, table, dict(states))

    def post_many(self, batch: Mapping[str, Mapping[int | None, str]]) -> None:
        """``post`` for several tables at once (one call on the loop), from any thread."""
        self._call(self._deliver_many, {table: dict(states) for table, states in
                                        batch.items()})

    def note(self, table: str, seat: int | None, text: str) -> None:
        """A small message to the connections of ``seat`` at ``table`` (``None``: all)."""
        self._call(self._deliver_note, table, seat, text)

    def _call(self, function: object, *args: object) -> None:
        """Run ``function(*args)`` on the loop (at once if this is the loop's thread)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            function(*args)  # type: ignore[operator]
        else:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(function, *args)  # type: ignore[arg-type]

    def _deliver(self, table: str, states: dict[int | None, str]) -> None:
        room = self.rooms.get(table, ())
        for connection in room:
            if connection.seat is not None and connection.seat in states:
                connection.state = states[connection.seat]
                connection.ready.set()
        watched = states.get(None)
        if watched is None:
            return
        waiting = table in self.watched
        self.watched[table] = watched
        if waiting:
            return  # (its turn is booked)
        assert self.loop is not None
        wait = self.shown.get(table, 0.0) + SPECTATOR_EVERY - self.loop.time()
        if wait <= 0:
            self._show(table)
        else:
            self.loop.call_later(wait, self._show, table)

    def _deliver_many(self, batch: dict[str, dict[int | None, str]]) -> None:
        for table, states in batch.items():
            self._deliver(table, states)

    def _show(self, table: str) -> None:
        """The spectators' newest state of ``table`` to its spectators' pages."""
        text = self.watched.pop(table, None)
        if text is None:
            return
        assert self.loop is not None
        self.shown[table] = self.loop.time()
        room = self.rooms.get(table)
        if not room:
            self.shown.pop(table, None)
            return
        for connection in room:
            if connection.seat is None:
                connection.state = text
                connection.ready.set()

    def _deliver_note(self, table: str, seat: int | None, text: str) -> None:
        for connection in self.rooms.get(table, ()):
            if seat is None or connection.seat == seat:
                connection.notes.append(text)
                connection.ready.set()
