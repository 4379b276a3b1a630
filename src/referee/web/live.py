"""The live part: every page of a table holds one WebSocket, and every change reaches it.

A table's game thread posts what each seat and the spectators may now see
(``Hub.post``, from any thread); the event loop hands it to every connection of the
table. A connection keeps only the newest state (each state is whole: the board, the
moves, the clocks), so a page that reads slowly misses nothing but intermediate pictures
and holds no queue; a few small messages (a refused click) wait beside it. A page whose
socket takes no data for ``SEND_TIMEOUT`` seconds is disconnected with the reason.
A state goes out through the socket's fast lane (``fast_lane``: framed once for all the
table's spectators, written straight to each socket) while nothing else waits for the
connection and its socket takes more; otherwise its pump sends it through ASGI.
A table may show its spectators the game late (``Hub.delay``: a broadcast delay, with
every hidden part), their states kept until they are due. Nothing here knows a game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field

from starlette.websockets import WebSocket

from referee.web.fast_lane import Lane, lane_of, text_frame

log = logging.getLogger(__name__)

__all__ = ["IN_FLIGHT", "SEEN", "SEND_TIMEOUT", "SPECTATOR_EVERY", "Connection", "Delayed", "Hub"]

SEND_TIMEOUT = 30.0
"""Seconds a page may take to take one message before it is disconnected."""
SPECTATOR_EVERY = 0.04
"""Seconds between two states of a table to its spectators: the newest of those that came
meanwhile is sent (a table of instant programs changes a thousand times a second; its
players' pages get every state at once)."""
DELAYED_KEPT = 500
"""The most states of a table kept for its late spectators."""
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
_SEEN = SEEN.encode()


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
    lane: Lane | None = field(default=None, init=False)
    """The socket's way around ASGI (``fast_lane``; ``None``: none), from its scope."""
    busy: bool = False
    """The pump is sending (a state written past it would overtake its message)."""

    def __post_init__(self) -> None:
        self.lane = lane_of(self.websocket.scope)
        if self.lane is not None:
            self.lane.take = self._take

    def _take(self, data: bytes) -> bool:
        """The lane's claim: a page's word that it showed a state, counted at once."""
        return data == _SEEN and self.acknowledge(SEEN)

    def offer(self, text: str, frame: bytes | None = None) -> None:
        """``text`` is the page's newest state: written at once through the lane if
        nothing else waits and the page may take it (``frame``: ``text`` framed, when
        the caller has it), else left for the pump."""
        self.state = text
        self.push(frame)

    def push(self, frame: bytes | None = None) -> None:
        """Send the waiting state through the lane now if it may go, else wake the pump
        (``frame``: the waiting state framed, when the caller has it)."""
        if (self.lane is not None and not self.notes and not self.busy and not self.closed
                and self.state is not None and self.sendable()
                and self.lane.write(frame if frame is not None else text_frame(self.state))):
            self.state = None
            self.sent += 1
            return
        self.ready.set()

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
        if self.state is not None:
            self.push()
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
                self.busy = True
                try:
                    async with asyncio.timeout(SEND_TIMEOUT):  # (no task a message)
                        await self.websocket.send_text(text)
                except TimeoutError:
                    log.info("table %s: a page read nothing for %.0f s: disconnected",
                             self.table, SEND_TIMEOUT)
                    await self.close(1008, "the page does not read its messages")
                    return
                except Exception:  # the socket went away: its reader ends the connection
                    self.closed = True
                    return
                finally:
                    self.busy = False

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


@dataclass(eq=False)
class Delayed:
    """A table's spectators' states waiting to be shown ``seconds`` late: at most one
    per ``step`` of time (the newest of it), so a quick game holds a few hundred."""

    seconds: float
    queue: deque[tuple[float, str]] = field(default_factory=deque)
    due: str | None = None
    """The newest state shown (a spectator who connects gets it)."""
    timer: asyncio.TimerHandle | None = None
    over: bool = False

    @property
    def step(self) -> float:
        """The shortest time between two states kept."""
        return max(SPECTATOR_EVERY, self.seconds / DELAYED_KEPT)

    def add(self, now: float, state: str) -> bool:
        """Keep ``state`` to be shown at ``now + seconds``; whether a wake-up is needed
        (nothing was waiting)."""
        when = now + self.seconds
        if self.queue and when - self.queue[-1][0] < self.step:
            self.queue[-1] = (when, state)  # (the newer of two that close: never early)
            return False
        self.queue.append((when, state))
        return self.timer is None

    def next_due(self) -> float:
        """When the first waiting state is due (the loop's clock)."""
        return self.queue[0][0]

    def take(self, now: float) -> str | None:
        """The newest of the states due by ``now``, taken (``None``: none)."""
        state = None
        while self.queue and self.queue[0][0] <= now:
            state = self.queue.popleft()[1]
        if state is not None:
            self.due = state
        return state


class Hub:
    """The connections of every table, fed from the tables' threads."""

    def __init__(self) -> None:
        self.rooms: dict[str, set[Connection]] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.watched: dict[str, str] = {}
        """The spectators' newest state of a table, waiting for its turn."""
        self.shown: dict[str, float] = {}
        """When the spectators of a table were last sent a state (the loop's clock)."""
        self.delays: dict[str, Delayed] = {}
        """The tables whose spectators see the game late."""

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

    def delay(self, table: str, seconds: float) -> None:
        """Show ``table`` to its spectators ``seconds`` late (before its first state)."""
        self.delays[table] = Delayed(seconds)

    def undelay(self, table: str) -> None:
        """``table`` is over: once its last state has been shown late, it is forgotten
        (from any thread)."""
        self._call(self._undelay, table)

    def delayed(self, table: str) -> bool:
        """Whether ``table``'s spectators see it late."""
        return table in self.delays

    def delayed_state(self, table: str) -> str | None:
        """The spectators' state of ``table`` due now (``None``: none yet)."""
        delayed = self.delays.get(table)
        return None if delayed is None else delayed.due

    def watching(self, table: str) -> int:
        """How many pages hold a connection to ``table``."""
        return len(self.rooms.get(table, ()))

    def post(self, table: str, states: Mapping[int | None, str]) -> None:
        """Give each connection of ``table`` its state (by seat; ``None``: spectators'),
        from any thread."""
        self._call(self._deliver, table, dict(states))

    def post_many(self, batch: Mapping[str, Mapping[int | None, str]],
                  paced: bool = False) -> None:
        """``post`` for several tables at once (one call on the loop), from any thread;
        ``paced``: they come no more often than ``SPECTATOR_EVERY`` a table already, and
        their spectators are shown them at once (a late delivery is not held back more)."""
        self._call(self._deliver_many, {table: dict(states) for table, states in
                                        batch.items()}, paced)

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

    def _deliver(self, table: str, states: dict[int | None, str],
                 paced: bool = False) -> None:
        room = self.rooms.get(table, ())
        for connection in room:
            if connection.seat is not None and connection.seat in states:
                connection.offer(states[connection.seat])
        watched = states.get(None)
        if watched is None:
            return
        delayed = self.delays.get(table)
        if delayed is not None:
            assert self.loop is not None
            if delayed.add(self.loop.time(), watched):
                self._book(table, delayed)
            return
        if paced and table not in self.watched:
            self.watched[table] = watched
            self._show(table)
            return
        self._pace(table, watched)

    def _pace(self, table: str, watched: str) -> None:
        """The spectators' newest state of ``table``, shown at once or at its turn."""
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

    def _deliver_many(self, batch: dict[str, dict[int | None, str]], paced: bool) -> None:
        for table, states in batch.items():
            self._deliver(table, states, paced)

    def _book(self, table: str, delayed: Delayed) -> None:
        """Wake when the first of ``table``'s late states is due."""
        assert self.loop is not None
        delayed.timer = self.loop.call_at(delayed.next_due(), self._due, table)

    def _due(self, table: str) -> None:
        delayed = self.delays.get(table)
        if delayed is None:
            return
        assert self.loop is not None
        state = delayed.take(self.loop.time())
        if state is not None:
            self._pace(table, state)
        if delayed.queue:
            self._book(table, delayed)
        else:
            delayed.timer = None
            if delayed.over:
                del self.delays[table]

    def _undelay(self, table: str) -> None:
        delayed = self.delays.get(table)
        if delayed is None:
            return
        delayed.over = True
        if not delayed.queue:
            del self.delays[table]

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
        frame: bytes | None = None
        for connection in room:
            if connection.seat is None:
                if frame is None:  # (once for all of them, if any)
                    frame = text_frame(text)
                connection.offer(text, frame)

    def _deliver_note(self, table: str, seat: int | None, text: str) -> None:
        for connection in self.rooms.get(table, ()):
            if seat is None or connection.seat == seat:
                connection.notes.append(text)
                connection.ready.set()
