"""A WebSocket's fast lane: a frame written straight to the connection's socket.

Every message a page is sent through ASGI passes the application's middleware, uvicorn's
ASGI layer, the WebSocket library's framing and one write, and every message it sends
comes back through a queue, a task's wake-up and a pause of the socket's reading: some
hundred microseconds of the event loop a message, which a thousand spectators of a
hundred tables of instant programs make more than the loop has. So the server's
WebSocket protocol (uvicorn's sans-I/O one, ``LaneProtocol``) puts a ``Lane`` in each
connection's ASGI scope (``LANE``): the live part frames a table's state once
(``text_frame``) and writes the same bytes to every spectator's socket, and a short
message the lane's ``take`` claims (a page's word that it showed a state) is taken on
the spot. Only while a connection is open and its socket's buffer takes more; otherwise
the ordinary ASGI path is used, which waits for the socket. Nothing here knows a game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import State

__all__ = ["LANE", "Lane", "LaneProtocol", "lane_of", "text_frame"]

LANE = "referee.lane"
"""The key of a connection's ``Lane`` in its ASGI scope's ``extensions``."""


def text_frame(text: str) -> bytes:
    """``text`` as one unmasked, uncompressed WebSocket text frame (a server's)."""
    return bytes(Frame(Opcode.TEXT, text.encode()).serialize(mask=False, extensions=[]))


class Lane:
    """One connection's way around ASGI."""

    def __init__(self, protocol: LaneProtocol) -> None:
        self.protocol = protocol
        self.take: Callable[[bytes], bool] | None = None
        """Claims a text message the page sent (``True``: taken, not passed to ASGI)."""

    def open(self) -> bool:
        """Whether a frame may be written now: the handshake done, nobody closing, and
        the socket's buffer under its high-water mark."""
        protocol = self.protocol
        return (protocol.handshake_complete and not protocol.close_sent
                and not protocol.disconnected and protocol.initial_response is None
                and protocol.conn.state is State.OPEN and protocol.writable.is_set()
                and not protocol.transport.is_closing())

    def write(self, frame: bytes) -> bool:
        """Write ``frame`` (from ``text_frame``) if the lane is open; whether it was."""
        if not self.open():
            return False
        self.protocol.transport.write(frame)
        return True


class LaneProtocol(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol with a ``Lane`` for each connection."""

    lane: Lane | None = None

    def handle_connect(self, event: Any) -> None:
        """The handshake's request: the connection's scope gets its lane."""
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:
            self.lane = Lane(self)
            scope["extensions"][LANE] = self.lane

    def handle_text(self, event: Frame) -> None:
        """A text frame: claimed by the lane's ``take``, or on to the application."""
        lane = self.lane
        if (event.fin and lane is not None and lane.take is not None and not self.close_sent
                and lane.take(bytes(event.data))):
            return
        super().handle_text(event)


def lane_of(scope: Any) -> Lane | None:
    """The connection's lane (``None``: served by another protocol)."""
    lane = scope.get("extensions", {}).get(LANE)
    return lane if isinstance(lane, Lane) else None
