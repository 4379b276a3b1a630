"""Helpers for tests that talk to the socket servers as a client would."""

from __future__ import annotations

import socket
import time


def read_until_closed(sock: socket.socket, within: float) -> bytes | None:
    """Everything the server sends until it closes the connection (``None`` if it does
    not close it within ``within`` seconds; a reset ends it as a close does)."""
    data = b""
    end = time.monotonic() + within
    while (left := end - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            more = sock.recv(65536)
        except TimeoutError:
            return None
        except ConnectionResetError:
            return data
        if not more:
            return data
        data += more
    return None
