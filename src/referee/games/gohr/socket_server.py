"""The socket-based captive server: many clients at once, each its own session.

A client connects and sends ``GAME <arguments>`` (the command line of the pipe server,
quotes optional); the session then speaks exactly as the pipe server does, in standard
output mode unless the arguments say otherwise. Bad arguments are answered ``-5 0 0`` with
a comment saying why, and the client may send another ``GAME``.

Safety: the server binds 127.0.0.1 unless told otherwise; every file a client names must
lie inside the data folder given at start (``inputDir`` too); clients cannot make it write
results files (neither does the reference's socket server); a session idle for ``idle``
seconds is closed; a connection that sends no command within ``first_line`` seconds is
told so and closed, however slowly bytes trickle in (a slot is not held by connections
that never start); at most ``max_sessions`` sessions run at once (others are told so and
closed); a line longer than ``MAX_LINE`` bytes is answered INVALID_COMMAND with the limit
and the session is closed (a socket client that overran the limit cannot be resynchronised
reliably). A connection the server closes is shut for writing first and drained for a
moment, so the client reads the reason before the connection ends.

Speed: ``serve(..., workers=N)`` forks N worker processes accepting on the one listening
socket, each serving its sessions in threads, so the sessions use every core instead of
sharing one interpreter. The session cap counts across workers, and a worker that dies is
replaced. Sessions set TCP_NODELAY, so a client that writes two commands at once does not
wait for its delayed ACK to get the second answer. (An asyncio event loop per worker was
measured too: slower, 6,000 moves/s for one client against 9,800 with threads, and higher
latencies under load.)
"""

from __future__ import annotations

import dataclasses
import logging
import multiprocessing
import shlex
import signal
import socket
import socketserver
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.sharedctypes import SynchronizedArray
from pathlib import Path
from typing import Protocol

from referee.core.errors import ConfigError, RefereeError
from referee.games.gohr.board import BoardGenerationError
from referee.games.gohr.captive import (
    MAX_LINE,
    CaptiveSession,
    LineSource,
    LineTooLong,
    read_command,
)
from referee.games.gohr.engine import Code
from referee.games.gohr.setup import build_setup, split_arguments

log = logging.getLogger(__name__)

FULL = "# the server is full: try again later"
IDLE = "# idle for too long: closing the session"
FIRST_LINE = "# no command within {:g} s of connecting: closing the connection (start with " \
    "GAME <arguments>)"
MAX_WAIT = 365 * 86400.0
"""The longest idle or first-line time (seconds): a year."""
_LINGER = 1.0
"""Seconds a connection the server closes is drained, so its client reads why."""
_LINGER_BYTES = 4 << 20
"""Bytes drained at most from such a connection."""


@dataclass(frozen=True)
class ServerConfig:
    """What the server allows."""

    data: Path
    """The data folder: every rule, board, trial list and condition file is inside it."""
    idle: float = 600.0
    """Seconds a session may stay silent before it is closed."""
    max_sessions: int = 64
    first_line: float = 10.0
    """Seconds a new connection has to send its first command (its slot is then free)."""


class FirstLineTimeout(RefereeError):
    """A connection sent no command in time."""


class ConnectionLines:
    """A connection's bytes as lines for ``read_command``. Until ``started``, reads must
    complete by the first-line deadline (a line sent a byte at a time does not extend it)
    or raise ``FirstLineTimeout``; from then on they go to the buffered socket file, each
    read within the idle time (else ``TimeoutError``)."""

    def __init__(self, sock: socket.socket, rfile: LineSource, first_line: float,
                 idle: float) -> None:
        self._sock = sock
        self._rfile = rfile
        self._deadline: float | None = time.monotonic() + first_line
        self._idle = idle
        self._buf = bytearray()

    def started(self) -> None:
        """The first command came: from now on the idle time applies."""
        if self._deadline is not None:
            self._deadline = None
            self._sock.settimeout(self._idle)

    def readline(self, size: int = -1, /) -> bytes:
        """One line of at most ``size`` bytes (less at the end of the stream)."""
        buf = self._buf
        while True:
            if buf:
                end = buf.find(b"\n", 0, len(buf) if size < 0 else size)
                if end >= 0 or 0 <= size <= len(buf):
                    cut = end + 1 if end >= 0 else size
                    line = bytes(buf[:cut])
                    del buf[:cut]
                    return line
            if self._deadline is None:  # what is left here, then the socket file
                head = bytes(buf)
                buf.clear()
                return head + self._rfile.readline(size - len(head) if size >= 0 else -1)
            left = self._deadline - time.monotonic()
            if left <= 0:
                raise FirstLineTimeout()
            self._sock.settimeout(left)
            try:
                data = self._sock.recv(65536)
            except TimeoutError:
                raise FirstLineTimeout() from None
            if not data:  # the end: what came of a last line, then nothing
                head = bytes(buf)
                buf.clear()
                return head
            buf += data


class SessionSlots(Protocol):
    """Admission to the session cap: ``acquire`` a slot without waiting, ``release`` it."""

    def acquire(self) -> bool:
        """Take a slot if one is free."""

    def release(self) -> None:
        """Give a slot back."""


class LocalSlots:
    """The session cap of a server in one process."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self._lock = threading.Lock()

    def acquire(self) -> bool:
        """Take a slot if fewer than ``limit`` sessions run."""
        with self._lock:
            if self.used >= self.limit:
                return False
            self.used += 1
            return True

    def release(self) -> None:
        """Give a slot back."""
        with self._lock:
            self.used = max(0, self.used - 1)


class SharedSlots:
    """The session cap shared by worker processes: one counter per worker in shared memory
    (a worker that dies has its counter reset by the parent, so its slots are not lost)."""

    def __init__(self, counts: SynchronizedArray[int], index: int, limit: int) -> None:
        self.counts = counts
        self.index = index
        self.limit = limit

    def acquire(self) -> bool:
        """Take a slot if fewer than ``limit`` sessions run in all workers together."""
        with self.counts.get_lock():
            if sum(self.counts[:]) >= self.limit:
                return False
            self.counts[self.index] += 1
            return True

    def release(self) -> None:
        """Give this worker's slot back."""
        with self.counts.get_lock():
            if self.counts[self.index] > 0:
                self.counts[self.index] -= 1


class _Handler(socketserver.StreamRequestHandler):
    """One client connection."""

    server: CaptiveSocketServer
    disable_nagle_algorithm = True
    """TCP_NODELAY: an answer leaves at once. Without it, a client that writes two
    commands at once gets the second answer only once its delayed ACK of the first comes
    (about 40 ms a round trip; benchmarks.md)."""

    def handle(self) -> None:
        server = self.server
        config = server.config
        if not server.slots.acquire():
            self._send([FULL])
            self._linger()
            return
        closing = False
        try:
            closing = self._serve(ConnectionLines(self.request, self.rfile,
                                                  config.first_line, config.idle))
        except FirstLineTimeout:
            log.info("client %s sent no command within %g s: closed", self.client_address,
                     config.first_line)
            self._send([FIRST_LINE.format(config.first_line)])
            closing = True
        except TimeoutError:
            self._send([IDLE])
            closing = True
        except (ConnectionError, OSError) as exc:
            log.info("client %s went away: %s", self.client_address, exc)
        finally:
            server.slots.release()
        if closing:
            self._linger()

    def _send(self, lines: list[str]) -> None:
        try:
            self.wfile.write("".join(line + "\n" for line in lines).encode())
            self.wfile.flush()
        except OSError:
            pass

    def _linger(self) -> None:
        """Close our side, then read what the client still sends (for a moment), so the
        last lines reach it instead of being lost to a reset."""
        sock: socket.socket = self.request
        try:
            sock.shutdown(socket.SHUT_WR)
            end = time.monotonic() + _LINGER
            drained = 0
            while drained < _LINGER_BYTES and (left := end - time.monotonic()) > 0:
                sock.settimeout(left)
                data = sock.recv(65536)
                if not data:
                    return
                drained += len(data)
        except OSError:  # a timeout or a reset: nothing more to wait for
            pass

    def _serve(self, lines: ConnectionLines) -> bool:
        """The session's commands until its end; whether the server ends it (rather
        than the client's EXIT or its end of the connection)."""
        session: CaptiveSession | None = None
        try:
            while True:
                try:
                    line = read_command(lines, skip_overlong=False)
                except LineTooLong as exc:  # its rest cannot be told from the next line
                    log.info("client %s sent a line over %d bytes: closed",
                             self.client_address, MAX_LINE)
                    reason = f"{exc}: closing the session"
                    self._send(session.refusal(reason) if session is not None
                               else [f"{Code.INVALID_COMMAND} 0 0", f"# {reason}"])
                    return True
                if line is None:
                    return False
                words = line.split(None, 1)
                if not words:
                    continue
                lines.started()
                if session is None:
                    session = self._start(words)
                    continue
                answer, done = session.handle(line)
                self._send(answer)
                if done:
                    return False
        except BoardGenerationError as exc:  # a NEW that no board can satisfy
            self._send([f"# {exc}"])
            return True
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
    """The threaded TCP server; ``serve_forever`` runs it, ``shutdown`` (from another
    thread) stops it, ``server_close`` releases the port."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], config: ServerConfig) -> None:
        if not config.data.is_dir():
            raise ConfigError(f"{config.data}: the data folder does not exist")
        if config.max_sessions < 1:
            raise ConfigError(f"max sessions must be at least 1, got {config.max_sessions}")
        for name, value in (("idle time", config.idle), ("first-line time", config.first_line)):
            if not 0 < value <= MAX_WAIT:
                raise ConfigError(f"the {name} must be more than 0 s and at most a year, "
                                  f"got {value:g} s")
        self.config = dataclasses.replace(config, data=config.data.resolve())
        self.slots: SessionSlots = LocalSlots(config.max_sessions)
        super().__init__(address, _Handler)
        # workers share this socket and all wake for one connection: the ones that lose
        # the race must not block in accept (deaf to shutdown until the next client)
        self.socket.setblocking(False)

    def handle_error(self, request: object, client_address: object) -> None:
        """A session that failed unexpectedly: logged (the server goes on)."""
        log.exception("the session of %s failed", client_address)

    def stop_on_sigterm(self) -> None:
        """Make SIGTERM end ``serve_forever`` (call in the main thread before it)."""
        signal.signal(signal.SIGTERM,
                      lambda *_: threading.Thread(target=self.shutdown, daemon=True).start())


def _worker(server: CaptiveSocketServer, slots: SessionSlots) -> None:
    """A worker process: serve sessions on the inherited listening socket until SIGTERM."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    server.slots = slots
    server.stop_on_sigterm()
    try:
        server.serve_forever()
    finally:
        server.server_close()


def serve(server: CaptiveSocketServer, workers: int = 1,
          started: Callable[[list[int]], None] | None = None) -> None:
    """Serve until SIGTERM or Ctrl-C: in this process (``workers`` 1) or in ``workers``
    forked processes sharing the listening socket and the session cap; a worker that dies
    is replaced. ``started`` gets the workers' process ids."""
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        if started is not None:
            started([multiprocessing.current_process().pid or 0])
        server.stop_on_sigterm()
        server.serve_forever()
        return
    context = multiprocessing.get_context("fork")
    counts = context.Array("i", workers)
    stopping = threading.Event()

    def spawn(index: int) -> multiprocessing.process.BaseProcess:
        counts[index] = 0
        slots = SharedSlots(counts, index, server.config.max_sessions)
        proc = context.Process(target=_worker, args=(server, slots), daemon=True,
                               name=f"gohr-worker-{index}")
        proc.start()
        return proc

    procs = [spawn(k) for k in range(workers)]
    previous = signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    if started is not None:
        started([p.pid or 0 for p in procs])
    try:
        while not stopping.wait(0.2):
            for k, proc in enumerate(procs):
                if not proc.is_alive():
                    log.warning("worker %d (pid %s) ended with %s; starting another",
                                k, proc.pid, proc.exitcode)
                    proc.join()
                    procs[k] = spawn(k)
    finally:
        signal.signal(signal.SIGTERM, previous)
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
        for proc in procs:
            proc.join(10)
            if proc.is_alive():
                proc.kill()
                proc.join()
