"""A program joining a table over the network: its WebSocket carries the game's own
protocol, one line a message, both ways (``referee connect GAME URL --seat N --
COMMAND`` runs the program and relays its lines).

The seat's ``LineLink`` is what the game's protocol code drives, in the table's thread;
the lines it sends go out through the event loop, and the program's lines come in from
the socket. A program whose connection closes faults as a program whose pipes close.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from starlette.websockets import WebSocket, WebSocketDisconnect

from referee.core.line_link import MAX_LINE, LineLink

log = logging.getLogger(__name__)

__all__ = ["ProgramLink"]


class ProgramLink:
    """One program's connection to its seat (see the module)."""

    def __init__(self, websocket: WebSocket, table: str, seat: int, name: str,
                 loop: asyncio.AbstractEventLoop) -> None:
        self.websocket = websocket
        self.table = table
        self.seat = seat
        self.loop = loop
        self.out: asyncio.Queue[str | None] = asyncio.Queue()
        self.link = LineLink(name, self._send_line, self._closed)
        self.used = False
        """Whether a game has taken the link (a link serves one game)."""

    def _send_line(self, line: str) -> None:
        """From the table's thread: a line for the program."""
        with contextlib.suppress(RuntimeError):  # the loop is gone: the server stops
            self.loop.call_soon_threadsafe(self.out.put_nowait, line)

    def _closed(self, why: str) -> None:
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(self.out.put_nowait, None)

    async def run(self) -> None:
        """Relay until either side ends: the program's lines into the link, the table's
        lines out to the program."""
        sender = asyncio.create_task(self._send())
        try:
            while True:
                try:
                    text = await self.websocket.receive_text()
                except (WebSocketDisconnect, RuntimeError, KeyError):
                    break
                if len(text) > MAX_LINE + 2:
                    self.link.feed(text)  # (the link faults it: a protocol error)
                    await self._close(1009, "line too long")
                    break
                for line in text.splitlines() or [""]:
                    if not self.link.running:  # the seat's game is over: the rest is dropped
                        break
                    if not self.link.feed(line):
                        await self._close(1008, "the program floods its seat")
                        break
        finally:
            self.link.hang_up()
            sender.cancel()

    async def _send(self) -> None:
        while True:
            line = await self.out.get()
            if line is None:
                await self._close(1000, "the game is over for this seat")
                return
            try:
                await self.websocket.send_text(line)
            except Exception:
                self.link.hang_up()
                return

    async def _close(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await self.websocket.close(code, reason)
