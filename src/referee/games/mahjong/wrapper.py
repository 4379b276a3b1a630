"""Network mode, the client side: the wrapper of the ICGA framework. It logs in to the
referee server for one seat and runs the AI program for every hand, relaying lines both
ways (or, with ``--human``, lets a person play on the console).

- It sends ``/login <id> <account>`` and waits for ``/ok``; ``/refused <reason>`` (then or
  later) ends it with the reason (``LoginRefused``).
- On ``/start`` it starts the AI program and writes it the ``/start`` line and every
  line after; whatever the AI writes on its standard output goes to the server as it is.
- On ``/exit`` it writes the line, stops relaying, gives the AI a moment to exit and
  stops it (its whole process group); the next ``/start`` starts it again.
- The AI's standard error is the wrapper's. An AI that cannot be started is reported;
  the server then times the seat out and its dummy AI plays it. When the server closes
  the connection the wrapper stops the AI and ends (status 0).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from referee.core.errors import ConfigError, RefereeError
from referee.games.mahjong.human import HumanConsole

log = logging.getLogger(__name__)

__all__ = ["AIRelay", "LoginRefused", "ServerLink", "Wrapper", "default_account"]

LOGIN_WAIT = 30.0
"""Seconds to wait for the server's answer to the login."""
EXIT_GRACE = 1.0
"""Seconds an AI has to exit by itself after ``/exit``."""


class LoginRefused(RefereeError):
    """The server refused the login (or kicked the client): its reason."""


def default_account(command: Sequence[str], seat: int) -> str:
    """The account when none is given: the AI program's name and the seat id
    (``greedy_ai-2`` for ``python -m referee.games.mahjong.bots.greedy_ai``, ``my_ai-1``
    for ``python3 my_ai.py`` or ``./my_ai``), in the characters an account may hold."""
    argv = list(command)
    if "-m" in argv[:-1]:
        name = argv[argv.index("-m") + 1].rsplit(".", 1)[-1]
    elif len(argv) > 1 and not argv[1].startswith("-") and \
            Path(argv[0]).name.startswith("python"):
        name = Path(argv[1]).stem
    else:
        name = Path(argv[0]).stem if argv else "ai"
    name = "".join(c if (c.isascii() and c.isalnum()) or c in "._@+#-" else "_" for c in name)
    return f"{name[:28] or 'ai'}-{seat}"


class ServerLink:
    """The connection to the server, in lines (sending is thread-safe)."""

    def __init__(self, host: str, port: int, timeout: float = 10.0) -> None:
        self.address = f"{host}:{port}"
        try:
            self.sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            raise ConfigError(f"cannot connect to the server at {self.address}: "
                              f"{exc.strerror or exc}") from None
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.settimeout(LOGIN_WAIT)
        self._lock = threading.Lock()
        self._buf = bytearray()

    def send(self, data: bytes) -> None:
        """Send bytes; a lost connection is logged (the read side sees it end)."""
        with self._lock:
            try:
                self.sock.sendall(data)
            except OSError as exc:
                log.info("cannot write to the server: %s", exc)

    def send_line(self, text: str) -> None:
        """Send one line."""
        self.send(text.encode() + b"\n")

    def lines(self) -> Iterator[str]:
        """The server's lines until it closes the connection."""
        while True:
            end = self._buf.find(b"\n")
            if end >= 0:
                raw = bytes(self._buf[:end])
                del self._buf[:end + 1]
                yield raw.rstrip(b"\r").decode("utf-8", errors="replace")
                continue
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                raise RefereeError(f"the server at {self.address} did not answer the "
                                   "login") from None
            except OSError as exc:
                log.info("connection to the server lost: %s", exc)
                return
            if not data:
                return
            self._buf += data

    def close(self) -> None:
        """Close the connection."""
        with contextlib.suppress(OSError):
            self.sock.close()


class AIRelay:
    """One session of the AI program: started on ``/start``, fed the server's lines,
    its output relayed to ``output``; stopped after ``/exit``."""

    def __init__(self, command: Sequence[str], output: Callable[[bytes], None]) -> None:
        self.command = list(command)
        self.output = output
        self.relaying = True
        self._open_line = False
        self._proc = subprocess.Popen(self.command, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, bufsize=0,
                                      start_new_session=True, close_fds=True)
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._stdin = self._proc.stdin
        self._stdout = self._proc.stdout
        self._stdout_fd = self._stdout.fileno()
        self._broken = False
        self._reader = threading.Thread(target=self._relay, name="ai-stdout", daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        """The AI's process id."""
        return self._proc.pid

    def _relay(self) -> None:
        """Copy the AI's output to the server until it closes it (or relaying stops)."""
        while True:
            try:
                data = os.read(self._stdout_fd, 65536)
            except OSError:
                break
            if not data:
                break
            if self.relaying:
                self.output(data)
                self._open_line = not data.endswith((b"\n", b"\r"))
        if self.relaying:
            log.warning("the AI closed its output before /exit (the server will time the "
                        "seat out)")

    def write(self, line: str) -> None:
        """One line to the AI's standard input (lost, once, if it closed it)."""
        if self._broken:
            return
        try:
            self._stdin.write(line.encode() + b"\n")
        except OSError as exc:
            self._broken = True
            log.warning("the AI does not read its input any more: %s", exc)

    def stop(self, grace: float = EXIT_GRACE) -> int | None:
        """Stop relaying, let the AI exit within ``grace`` seconds, then kill its process
        group; its exit status (None if it had to be killed)."""
        self.relaying = False
        with contextlib.suppress(OSError):
            self._stdin.close()
        code: int | None
        try:
            code = self._proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            log.info("the AI did not exit within %.1f s: killing it", grace)
            code = None
        with contextlib.suppress(OSError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        if code is None:
            self._proc.wait()
        self._reader.join(timeout=2)
        with contextlib.suppress(OSError):
            self._stdout.close()
        if self._open_line:  # end a line the AI left open, so the next session's is whole
            self.output(b"\n")
        return code


class Wrapper:
    """Logs in for one seat and plays its hands with an AI program or a person."""

    def __init__(self, link: ServerLink, seat: int, account: str,
                 command: Sequence[str] = (), human: HumanConsole | None = None,
                 notify: Callable[[str], None] = log.warning) -> None:
        if not 1 <= seat <= 4:
            raise ConfigError(f"--id must be a seat 1..4, got {seat}")
        if not command and human is None:
            raise ConfigError("give the AI's command after --, or --human")
        self.link = link
        self.seat = seat
        self.account = account
        self.command = list(command)
        self.human = human
        self.notify = notify
        self.ai: AIRelay | None = None
        self.hands = 0

    def run(self) -> None:
        """Log in, then play until the server closes the connection. ``LoginRefused``
        if the server refuses (or kicks) this client; ``HumanLeft`` if the person's input
        ends."""
        self.link.send_line(f"/login {self.seat} {self.account}")
        lines = self.link.lines()
        try:
            self._login(lines)
            self.link.sock.settimeout(None)
            for line in lines:
                self._hear(line)
        finally:
            self._stop_ai()
            self.link.close()
        self.notify(f"the server closed the connection after {self.hands} hand(s)")

    def _login(self, lines: Iterator[str]) -> None:
        for line in lines:
            words = line.split(maxsplit=1)
            if words[:1] == ["/ok"]:
                self.notify(f"logged in to {self.link.address} as {self.account}, "
                            f"seat {self.seat}")
                return
            if words[:1] == ["/refused"]:
                raise LoginRefused(words[1] if len(words) > 1 else "no reason given")
            log.warning("unexpected line before /ok: %r", line[:80])
        raise LoginRefused("the server closed the connection without an answer")

    def _hear(self, line: str) -> None:
        word = line.split(maxsplit=1)[0] if line.strip() else ""
        if word == "/refused":
            raise LoginRefused(line.partition(" ")[2] or "no reason given")
        if word == "/start":
            self.hands += 1
        if self.human is not None:
            answer = self.human.hear(line)
            if answer is not None:
                self.link.send_line(answer)
            return
        if word == "/start":
            self._stop_ai()
            self._start_ai()
        if self.ai is not None:
            self.ai.write(line)
        elif word and word != "/exit":
            log.debug("no AI running: %r dropped", line[:80])
        if word == "/exit":
            self._stop_ai()

    def _start_ai(self) -> None:
        try:
            self.ai = AIRelay(self.command, self.link.send)
        except OSError as exc:
            self.ai = None
            self.notify(f"cannot start the AI {' '.join(self.command)!r}: "
                        f"{exc.strerror or exc} (the server's dummy AI will play)")
            return
        log.info("hand %d: AI started (pid %d)", self.hands, self.ai.pid)

    def _stop_ai(self) -> None:
        ai, self.ai = self.ai, None
        if ai is not None:
            code = ai.stop()
            log.info("hand %d: AI stopped (exit status %s)", self.hands, code)
