"""A spectator's WebSocket for the game server's benchmark, as light as a client can be.

A thousand spectators in the benchmark's one Python process, each on the ``websockets``
library's connection (a task, a queue and a wake-up a message), cost the machine more
than the server's sending does, and on a 2-core machine they share its cores: the figure
would be the client's. A browser does that work on the spectator's own machine. So each
spectator here is a bare ``asyncio.Protocol``: the HTTP upgrade (RFC 6455, no extension),
the server's frames parsed in place, the page's word that it showed each state written
as one frame made once. Only what the benchmark reads: text frames and the close.
"""

from __future__ import annotations

import asyncio
import base64
import os
import struct
from collections.abc import Callable

from websockets.frames import Frame, Opcode

__all__ = ["ACK", "STOP", "Watcher", "masked_frame", "masked_text_frame", "watch_socket"]

OPCODE_TEXT, OPCODE_CLOSE, OPCODE_PING, OPCODE_PONG = 0x1, 0x8, 0x9, 0xA


def masked_text_frame(text: str) -> bytes:
    """``text`` as a client's text frame (clients must mask; the key is random)."""
    return masked_frame(OPCODE_TEXT, text.encode())


def masked_frame(opcode: int, payload: bytes) -> bytes:
    """A client's frame of ``opcode`` (final, masked with a random key)."""
    return bytes(Frame(Opcode(opcode), payload).serialize(mask=True, extensions=[]))


STOP, ACK = "stop", "ack"
"""What ``on_text`` answers: end the watch, or say the message was shown (anything
else: neither)."""


class Watcher(asyncio.Protocol):
    """One spectator's socket: ``on_text(payload)`` for every text message (``STOP``
    ends the watch, ``ACK`` writes ``ack``); ``done`` is set once the socket is over."""

    def __init__(self, host: str, path: str, origin: str,
                 on_text: Callable[[bytes], str], ack: bytes) -> None:
        self.request = (f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
                        f"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                        f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n"
                        f"Origin: {origin}\r\n\r\n").encode()
        self.on_text = on_text
        self.ack = ack
        self.buffer = bytearray()
        self.upgraded = False
        self.transport: asyncio.Transport | None = None
        self.opened = asyncio.get_running_loop().create_future()
        self.done = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.upgraded:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(self.buffer[:end]).split(b"\r\n", 1)[0]
            del self.buffer[:end + 4]
            if b" 101 " not in status:
                self._finish(ConnectionError(status.decode(errors="replace")))
                return
            self.upgraded = True
            self.opened.set_result(None)
        self._frames()

    def _frames(self) -> None:
        buffer = self.buffer
        while len(buffer) >= 2:
            opcode, length = buffer[0] & 0x0F, buffer[1] & 0x7F
            start = 2
            if length == 126:
                if len(buffer) < 4:
                    return
                length, start = struct.unpack_from("!H", buffer, 2)[0], 4
            elif length == 127:
                if len(buffer) < 10:
                    return
                length, start = struct.unpack_from("!Q", buffer, 2)[0], 10
            if len(buffer) < start + length:
                return
            payload = bytes(buffer[start:start + length])
            del buffer[:start + length]
            if opcode == OPCODE_TEXT:
                answer = self.on_text(payload)
                if answer == STOP:
                    self.close()
                    return
                if answer == ACK:
                    assert self.transport is not None
                    self.transport.write(self.ack)
            elif opcode == OPCODE_PING:  # (the server's keepalive: answered, or it closes)
                assert self.transport is not None
                self.transport.write(masked_frame(OPCODE_PONG, payload))
            elif opcode == OPCODE_CLOSE:
                self.close()
                return

    def close(self) -> None:
        """End the watch (the socket closed without a closing handshake: enough here)."""
        if self.transport is not None:
            self.transport.close()
        self._finish(None)

    def connection_lost(self, exc: Exception | None) -> None:
        self._finish(exc)

    def _finish(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("closed before the upgrade"))
        if not self.done.done():
            self.done.set_result(None)


async def watch_socket(url: str, path: str, on_text: Callable[[bytes], str],
                       ack: bytes) -> Watcher:
    """A ``Watcher`` of ``path`` on the server at ``url`` (``http://host:port``), open."""
    hostport = url.split("//", 1)[1]
    host, port = hostport.rsplit(":", 1)
    loop = asyncio.get_running_loop()
    _, watcher = await loop.create_connection(
        lambda: Watcher(hostport, path, url, on_text, ack), host, int(port))
    await watcher.opened
    return watcher
