"""The socket-based captive server: many clients at once, each its own session.

A client connects and sends ``GAME <arguments>`` (the command line of the pipe server,
quotes optional); the session then speaks exactly as the pipe server does, in standard
output mode unless the arguments say otherwise. Bad arguments are answered ``-5 0 0`` with
a comment saying why, and the client may send another ``GAME``.

Safety: the server binds 127.0.0.1 unless told otherwise; every file a client names must
lie inside the data folder given at start (``inputDir`` too); clients cannot make it write
results files; a session idle for ``idle`` seconds is closed; at most ``max_sessions``
sessions run at once (others are told so and closed); lines longer than ``MAX_LINE`` are
refused.
"""

from __future__ import annotations

import logging
import shlex
import socketserver
import threading
from dataclasses import dataclass
from pathlib import Path

from referee.core.errors import ConfigError
from referee.games.gohr.board import BoardGenerationError
from referee.games.gohr.captive import CaptiveSession, read_command
from referee.games.gohr.engine import Code
from referee.games.gohr.setup import build_setup, split_arguments

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServerConfig:
    """What the server allows."""

    data: Path
    """The data folder: every rule, board, trial list and condition file is inside it."""
    idle: float = 600.0
    """Seconds a session may stay silent before it is closed."""
    max_sessions: int = 64


class _Handler(socketserver.StreamRequestHandler):
    """One client connection."""

    server: CaptiveSocketServer

    def handle(self) -> None:
        server = self.server
        if not server.slots.acquire(blocking=False):
            self._send(["# the server is full: try again later"])
            return
        try:
            self.request.settimeout(server.config.idle)
            self._serve()
        except TimeoutError:
            self._send(["# idle for too long: closing the session"])
        except (ConnectionError, OSError) as exc:
            log.info("client %s went away: %s", self.client_address, exc)
        finally:
            server.slots.release()

    def _send(self, lines: list[str]) -> None:
        try:
            self.wfile.write("".join(line + "\n" for line in lines).encode())
            self.wfile.flush()
        except OSError:
            pass

    def _serve(self) -> None:
        session: CaptiveSession | None = None
        try:
            while (line := read_command(self.rfile)) is not None:
                words = line.split(None, 1)
                if not words:
                    continue
                if session is None:
                    session = self._start(words)
                    continue
                answer, done = session.handle(line)
                self._send(answer)
                if done:
                    return
        except BoardGenerationError as exc:  # a NEW that no board can satisfy
            self._send([f"# {exc}"])
        finally:
            if session is not None:
                session.close()

    def _start(self, words: list[str]) -> CaptiveSession | None:
        if words[0].upper() != "GAME":
            self._send([f"{Code.INVALID_COMMAND} 0 0", "# start with GAME <arguments>"])
            return None
        try:
            args = shlex.split(words[1] if len(words) > 1 else "")
            options = split_arguments(args).options
            if "log" in options or "logappend" in options:
                raise ConfigError("the socket server writes no results files (log=)")
            if "output" not in options:
                args.append("output=standard")
            setup = build_setup(args, root=self.server.config.data)
            session = CaptiveSession(setup)
            self._send(session.new_episode())
            return session
        except (ConfigError, ValueError) as exc:
            self._send([f"{Code.INVALID_RULES} 0 0", f"# {exc}"])
            return None


class CaptiveSocketServer(socketserver.ThreadingTCPServer):
    """The threaded TCP server; ``serve_forever`` runs it, ``shutdown`` stops it."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], config: ServerConfig) -> None:
        if not config.data.is_dir():
            raise ConfigError(f"{config.data}: the data folder does not exist")
        if config.max_sessions < 1 or config.idle <= 0:
            raise ConfigError("max sessions must be at least 1 and the idle time positive")
        self.config = ServerConfig(config.data.resolve(), config.idle, config.max_sessions)
        self.slots = threading.BoundedSemaphore(config.max_sessions)
        super().__init__(address, _Handler)
