"""A Python client of the captive game server, over a pipe or a socket.

``CaptiveClient.pipe(args)`` starts ``referee gohr ARGS`` as a child process;
``CaptiveClient.connect(host, port, args)`` opens a socket session (``GAME ARGS``). Both
speak standard mode: every ``NEW`` and ``MOVE`` answer is a ``Status`` with the board.
Comment lines are skipped; an unexpected answer raises ``ClientError``.
"""

from __future__ import annotations

import json
import shlex
import socket
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from referee.core.errors import RefereeError


class _Reader(Protocol):
    def readline(self, size: int = -1, /) -> bytes: ...
    def close(self) -> None: ...


class _Writer(Protocol):
    def write(self, data: bytes, /) -> int: ...
    def flush(self) -> None: ...


class ClientError(RefereeError):
    """The server closed the session or answered something unexpected."""


@dataclass(frozen=True)
class Status:
    """A status line and, when the server sends one, the board after it."""

    code: int
    finish: int
    attempts: int
    pieces: tuple[dict[str, Any], ...] = field(default=())

    @property
    def accepted(self) -> bool:
        """Whether the move was accepted."""
        return self.code == 0

    def movable(self) -> dict[int, list[int]]:
        """Piece id -> the buckets it may go to now (pieces that can move)."""
        return {int(p["id"]): list(p["buckets"]) for p in self.pieces if p.get("buckets")}


class CaptiveClient:
    """A session with a captive game server (standard output mode)."""

    def __init__(self, reader: _Reader, writer: _Writer, closer: Any = None) -> None:
        self._reader = reader
        self._writer = writer
        self._closer = closer
        self.opening: Status | None = None
        self.last_comment = ""
        """The last ``#`` line the server sent (the reason of a refusal)."""

    # -- starting -------------------------------------------------------------------------
    @classmethod
    def pipe(cls, args: Sequence[str]) -> CaptiveClient:
        """Start ``referee gohr ARGS`` (output=standard unless ARGS say) as a child."""
        argv = [sys.executable, "-m", "referee.cli", "gohr", *args]
        if not any(a.lower().startswith(("output=", "-doutput=")) for a in args):
            argv.append("output=standard")
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert proc.stdin is not None and proc.stdout is not None
        client = cls(proc.stdout, proc.stdin, proc)
        client.opening = client._status(with_board=True)
        return client

    @classmethod
    def connect(cls, host: str, port: int, args: Sequence[str],
                timeout: float = 30.0) -> CaptiveClient:
        """Open a socket session: ``GAME ARGS``."""
        sock = socket.create_connection((host, port), timeout=timeout)
        stream = sock.makefile("rwb")
        client = cls(stream, stream, sock)
        client._send("GAME " + shlex.join(args))
        opening = client._status(with_board=False)
        if opening.code < 0:
            reason = client._reader.readline().decode("utf-8", "replace").lstrip("#").strip()
            client._reader.close()
            sock.close()
            raise ClientError(f"the server refused GAME: {reason}")
        client.opening = Status(opening.code, opening.finish, opening.attempts, client._board())
        return client

    # -- the wire -------------------------------------------------------------------------
    def _send(self, line: str) -> None:
        try:
            self._writer.write((line + "\n").encode())
            self._writer.flush()
        except OSError as exc:
            raise ClientError(f"the server is gone: {exc}") from None

    def _line(self) -> str:
        while True:
            raw = self._reader.readline()
            if not raw:
                raise ClientError("the server closed the session")
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if not text.startswith("#"):
                return text
            self.last_comment = text[1:].strip()

    def _status(self, with_board: bool) -> Status:
        line = self._line()
        try:
            code, finish, attempts = (int(word) for word in line.split())
        except ValueError:
            raise ClientError(f"expected a status line, got {line[:80]!r}") from None
        if not with_board:
            return Status(code, finish, attempts)
        return Status(code, finish, attempts, self._board())

    def _board(self) -> tuple[dict[str, Any], ...]:
        line = self._line()
        try:
            return tuple(json.loads(line)["value"])
        except (ValueError, KeyError, TypeError):
            raise ClientError(f"expected the board as JSON, got {line[:80]!r}") from None

    # -- commands -------------------------------------------------------------------------
    def new(self) -> Status:
        """Start a new episode."""
        self._send("NEW")
        return self._status(with_board=True)

    def move(self, piece: int, bucket: int) -> Status:
        """Try to move ``piece`` to ``bucket`` (a refusal or an error code comes with the
        board too, as the server sends it)."""
        self._send(f"MOVE {piece} {bucket}")
        return self._status(with_board=True)

    def display(self) -> tuple[dict[str, Any], ...]:
        """The board now."""
        self._send("DISPLAY")
        return self._board()

    def features(self) -> dict[str, list[str]]:
        """The properties pieces may have and their values."""
        self._send("FEATURES")
        line = self._line()
        try:
            value: dict[str, list[str]] = json.loads(line)
        except ValueError:
            raise ClientError(f"expected FEATURES as JSON, got {line[:80]!r}") from None
        return value

    def close(self) -> None:
        """``EXIT`` and release the pipe or socket."""
        try:
            self._send("EXIT")
            self._status(with_board=False)
        except ClientError:
            pass
        closer = self._closer
        if isinstance(closer, subprocess.Popen):
            if closer.stdin is not None:
                closer.stdin.close()
            try:
                closer.wait(timeout=10)
            except subprocess.TimeoutExpired:
                closer.kill()
                closer.wait()
            if closer.stdout is not None:
                closer.stdout.close()
        elif isinstance(closer, socket.socket):
            self._reader.close()
            closer.close()

    def __enter__(self) -> CaptiveClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
