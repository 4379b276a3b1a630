"""The server's HTTP connections, guarded against being held idle.

uvicorn's h11 protocol waits for a connection's first request as long as the client
likes, so ten thousand connections that send nothing (or a header a byte a minute) would
hold ten thousand of the server's file descriptors. ``GuardedH11Protocol`` answers a
connection that has not sent a whole request head within ``head_timeout`` seconds with
``408 Request Timeout`` and closes it, and counts how many it closed so, logging a
summary at most once a second (a flood is one line a second, not ten thousand). The
connections that upgrade to WebSockets are counted and limited by ``SocketLimits``.
Nothing here knows a game.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

__all__ = ["HEAD_TIMEOUT", "GuardedH11Protocol", "guarded_protocol"]

HEAD_TIMEOUT = 10.0
"""Seconds a new connection has to send its first request's head."""

_BODY = b"no request came within the time: disconnected\n"
TIMED_OUT = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
             b"connection: close\r\ncontent-length: " + str(len(_BODY)).encode() +
             b"\r\n\r\n" + _BODY)
"""What a connection that sent no request in time is answered before it is closed."""


class _Summary:
    """The connections closed for sending no request, told in one line a second."""

    def __init__(self) -> None:
        self.closed: Counter[str] = Counter()
        self.told = 0.0

    def add(self, address: str, timeout: float) -> None:
        self.closed[address] += 1
        now = time.monotonic()
        if now - self.told >= 1.0:
            total = sum(self.closed.values())
            top = ", ".join(f"{where} {count}" for where, count in self.closed.most_common(3))
            log.warning("%d connection(s) sent no request within %g s: disconnected (%s)",
                        total, timeout, top)
            self.closed.clear()
            self.told = now


SUMMARY = _Summary()


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose first request's head does not
    come within ``head_timeout`` seconds (with a 408 and a logged reason)."""

    head_timeout = HEAD_TIMEOUT

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the connection, and its clock for the first request."""
        super().connection_made(transport)
        self.head_timer: asyncio.TimerHandle | None = self.loop.call_later(
            self.head_timeout, self._head_late)

    def handle_events(self) -> None:
        """Parse what came; the clock stops at the first request's head."""
        super().handle_events()
        if self.headers is not None and self.head_timer is not None:  # (a request's head)
            self.head_timer.cancel()
            self.head_timer = None

    def connection_lost(self, exc: Exception | None) -> None:
        """The connection closed: its clock stops."""
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None
        super().connection_lost(exc)

    def _head_late(self) -> None:
        self.head_timer = None
        if self.headers is not None or self.transport.is_closing():
            return
        address = self.client[0] if self.client else "?"
        SUMMARY.add(str(address), self.head_timeout)
        self.transport.write(TIMED_OUT)
        self.transport.close()


def guarded_protocol(head_timeout: float) -> type[GuardedH11Protocol]:
    """The guarded protocol with its own ``head_timeout`` (seconds)."""
    attributes: dict[str, Any] = {"head_timeout": head_timeout,
                                  "__doc__": GuardedH11Protocol.__doc__}
    return type("GuardedH11Protocol", (GuardedH11Protocol,), attributes)
