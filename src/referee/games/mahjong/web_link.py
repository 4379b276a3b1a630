"""``referee connect mahjong URL --seat N -- AI-COMMAND``: the ICGA wrapper at a web
table (``referee web``).

The table's page gives the URL, with the seat's join secret. The wrapper opens the
table's program socket (``web.connect_client.program_url``: one line a message, both
ways) instead of a referee server's TCP socket, and plays as in network mode: the AI
program is started afresh on every ``/start`` and stopped after ``/exit`` (a hand is a
session), its output relayed line by line. The join secret stands for the login line.
A refusal (a wrong secret, a seat taken) ends it with the server's reason; the end of
the game closes the socket and the wrapper ends.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.sync.client import connect

from referee.core.errors import ConfigError
from referee.core.line_link import MAX_LINE
from referee.games.mahjong.wrapper import LoginRefused

log = logging.getLogger(__name__)

__all__ = ["TableLink", "is_table_url"]

REFUSED = 1008
"""The close code of a seat the server refuses (``web.program_link``)."""


def is_table_url(text: str) -> bool:
    """Whether ``text`` is a web table's address (``http://`` or ``https://``) rather
    than the ICGA framework's options."""
    return text.startswith(("http://", "https://"))


class TableLink:
    """A web table's program socket as the wrapper's ``Link`` (see the module)."""

    needs_login = False

    def __init__(self, url: str, seat: int, name: str, timeout: float = 20.0) -> None:
        from referee.web.connect_client import program_url

        address = program_url(url, seat, name)
        self.address = url.split("?", 1)[0]
        try:
            self.socket = connect(address, max_size=MAX_LINE * 4, open_timeout=timeout,
                                  user_agent_header="referee connect mahjong")
        except (OSError, InvalidHandshake, InvalidURI, TimeoutError) as exc:
            raise ConfigError(f"{self.address}: cannot connect: {exc}") from None
        self._lock = threading.Lock()
        self._buf = bytearray()
        self.ended = ""
        """How the server closed the socket (its reason), once it has."""

    def send(self, data: bytes) -> None:
        """Send the whole lines of ``data`` (a piece of a line waits for its end), one
        message each; a closed socket is the read side's to see."""
        with self._lock:
            self._buf += data
            while (end := self._buf.find(b"\n")) >= 0:
                line = bytes(self._buf[:end]).rstrip(b"\r").decode("utf-8", "replace")
                del self._buf[:end + 1]
                with contextlib.suppress(ConnectionClosed):
                    self.socket.send(line)

    def send_line(self, text: str) -> None:
        """Send one line."""
        self.send(text.encode() + b"\n")

    def lines(self) -> Iterator[str]:
        """The server's lines until it closes the socket; ``LoginRefused`` if it
        refused the seat."""
        try:
            for message in self.socket:
                text = message if isinstance(message, str) else \
                    message.decode("utf-8", "replace")
                yield from text.splitlines()
        except ConnectionClosed:
            pass
        self.ended = self.socket.close_reason or f"closed ({self.socket.close_code})"
        if self.socket.close_code == REFUSED:
            raise LoginRefused(self.socket.close_reason or "no reason given")

    def logged_in(self) -> None:
        """Nothing to wait for: the URL's secret took the seat."""

    def close(self) -> None:
        """Close the socket."""
        with contextlib.suppress(Exception):
            self.socket.close()
