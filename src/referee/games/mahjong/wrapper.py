"""Network mode, the client side: the wrapper of the ICGA framework. It logs in to the
referee server for one seat and runs the AI program for every hand, relaying lines both
ways (or, with ``--human``, lets a person play on the console).

- It sends ``/login <id> <account>`` (``/login <id> <account> human`` for a person: the
  framework's login page took a person when no AI path was given) and waits for ``/ok``
  (for a person, ``/ok move-time=S takeover=hand|game``: the seconds the server gives it
  per answer and how long its dummy AI keeps a seat it takes, which the console tells);
  ``/refused <reason>`` (then or later) ends it with the reason (``LoginRefused``).
- On ``/start`` it starts the AI program through the core (``core.players.start_player``:
  in its sandbox, in its own working folder ``<out>/work/<account>``, its standard error
  in ``<out>/logs/<account>.stderr.log``, the rest of ``<out>`` hidden from it) and writes
  it the ``/start`` line and every line after; whatever the AI writes on its standard
  output goes to the server as it is.
- On ``/exit`` it writes the line, stops relaying, closes the AI's input, gives it a moment
  to exit and kills its whole process tree (daemons too); the next ``/start`` starts it
  again. The AI is never suspended: the relay does not read the game.
- An AI that cannot be started is reported; the server then times the seat out and its
  dummy AI plays it. When the server closes the connection the wrapper stops the AI and
  ends (status 0).
"""

from __future__ import annotations

import contextlib
import logging
import math
import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from referee.core.errors import BotFault, ConfigError, RefereeError
from referee.core.players import PlayerSpec, check_runnable, start_player
from referee.core.sandbox import SandboxPlan
from referee.games.mahjong.human import HumanConsole
from referee.games.mahjong.human_link import Editor, PersonLink

log = logging.getLogger(__name__)

__all__ = ["AIProgram", "AIRelay", "Link", "LoginRefused", "ServerLink", "Wrapper",
           "default_account"]

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
    return account_name(name, seat)


def account_name(name: str, seat: int) -> str:
    """``name`` and the seat id as an account (``mine-2``), in the characters an account
    may hold."""
    name = "".join(c if (c.isascii() and c.isalnum()) or c in "._@+#-" else "_" for c in name)
    return f"{name[:28] or 'ai'}-{seat}"


class Link(Protocol):
    """The wrapper's connection to its server, in lines: a referee server's socket
    (``ServerLink``) or a web table's program socket (``web_link.TableLink``, joined by
    its URL's secret: no login line)."""

    address: str
    needs_login: bool
    """Whether the wrapper logs in with ``/login`` (a web table's URL already says who)."""

    def send(self, data: bytes) -> None:
        """Send bytes (whole lines or pieces of them; thread-safe)."""

    def send_line(self, text: str) -> None:
        """Send one line."""

    def lines(self) -> Iterator[str]:
        """The server's lines until it closes the connection."""

    def logged_in(self) -> None:
        """The game's lines follow: no more waiting for the login's answer."""

    def close(self) -> None:
        """Close the connection."""


class ServerLink:
    """The connection to the server, in lines (sending is thread-safe)."""

    needs_login = True

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

    def logged_in(self) -> None:
        """Read the game's lines without a timeout."""
        self.sock.settimeout(None)

    def close(self) -> None:
        """Close the connection."""
        with contextlib.suppress(OSError):
            self.sock.close()


@dataclass(frozen=True)
class AIProgram:
    """The AI a wrapper starts for every hand: its program (named by the account), the
    output folder of its working folder and stderr log, and its sandbox."""

    player: PlayerSpec
    out: Path
    sandbox: SandboxPlan | None = None
    memory_limit: int | None = None
    """Bytes of memory its process tree may use (``None``: no limit)."""


class AIRelay:
    """One session of the AI program: started on ``/start`` (through the core, in its
    sandbox), fed the server's lines, its output relayed to ``output`` byte for byte;
    stopped after ``/exit``. ``BotFault`` if it cannot be started."""

    def __init__(self, ai: AIProgram, output: Callable[[bytes], None]) -> None:
        self.output = output
        self.relaying = True
        self._open_line = False
        self._broken = False
        self.process = start_player(ai.player, ai.out, seed=None, sandbox=ai.sandbox,
                                    memory_limit=ai.memory_limit)
        self.process.stream_output(self._relay, self._ended)

    @property
    def pid(self) -> int | None:
        """The process id the AI was started with (bubblewrap's when it is isolated)."""
        return self.process.pid

    def _relay(self, data: bytes) -> None:
        """Copy a piece of the AI's output to the server (while relaying)."""
        if self.relaying:
            self.output(data)
            self._open_line = not data.endswith((b"\n", b"\r"))

    def _ended(self, why: BotFault) -> None:
        if self.relaying:
            log.warning("the AI closed its output before /exit (the server will time the "
                        "seat out): %s", why.reason)

    def write(self, line: str) -> None:
        """One line to the AI's standard input (lost, once, if it closed it)."""
        if self._broken:
            return
        try:
            self.process.send(line + "\n")
        except BotFault as exc:
            self._broken = True
            log.warning("the AI does not read its input any more: %s", exc.reason)

    def stop(self, grace: float = EXIT_GRACE) -> int | None:
        """Stop relaying, close the AI's input, let it exit within ``grace`` seconds, then
        kill its whole process tree; its exit status (negative: the signal that killed
        it)."""
        self.relaying = False
        self.process.close_input()
        self.process.stop(grace)
        if self._open_line:  # end a line the AI left open, so the next session's is whole
            self.output(b"\n")
        try:
            self.process.check_folders()
        except BotFault as exc:
            log.warning("the AI's %s (the protocol cannot tell the server)", exc.reason)
        return self.process.returncode


class Wrapper:
    """Logs in for one seat and plays its hands with an AI program or a person."""

    def __init__(self, link: Link, seat: int, account: str,
                 program: AIProgram | None = None, human: HumanConsole | None = None,
                 notify: Callable[[str], None] = log.warning,
                 editor: Editor | None = None) -> None:
        if not 1 <= seat <= 4:
            raise ConfigError(f"--id must be a seat 1..4, got {seat}")
        if program is None and human is None:
            raise ConfigError("give the AI's command after --, or --human")
        self.link = link
        self.seat = seat
        self.account = account
        self.program = program
        self.human = human
        self.notify = notify
        self.editor = editor
        """The person's line editor (a terminal), else standard input is read."""
        self.ai: AIRelay | None = None
        self.hands = 0

    def run(self) -> None:
        """Log in, then play until the server closes the connection. ``LoginRefused``
        if the server refuses (or kicks) this client; ``HumanLeft`` if the person's input
        ends."""
        person = " human" if self.human is not None else ""
        lines = self.link.lines()
        try:
            if self.link.needs_login:
                self.link.send_line(f"/login {self.seat} {self.account}{person}")
                self._login(lines)
            else:
                self.notify(f"joined {self.link.address} as {self.account}, seat "
                            f"{self.seat}")
            self.link.logged_in()
            if self.human is not None:
                PersonLink(self.human, self.human.stdin, self.editor).run(lines, self._hear)
            else:
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
                if self.human is not None:
                    terms = dict(word.partition("=")[::2] for word in line.split()[1:])
                    try:
                        move_time: float | None = float(terms.get("move-time", ""))
                    except ValueError:
                        move_time = None
                    if move_time is not None and not 0 < move_time < math.inf:
                        move_time = None
                    self.human.seat_terms(move_time, terms.get("takeover"))
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
        program = self.program
        assert program is not None
        try:
            check_runnable(program.player)
            self.ai = AIRelay(program, self.link.send)
        except (ConfigError, BotFault) as exc:
            self.ai = None
            self.notify(f"cannot start the AI {' '.join(program.player.command)!r}: "
                        f"{exc} (the server's dummy AI will play)")
            return
        log.info("hand %d: AI started (pid %s)", self.hands, self.ai.pid)

    def _stop_ai(self) -> None:
        ai, self.ai = self.ai, None
        if ai is not None:
            code = ai.stop()
            log.info("hand %d: AI stopped (exit status %s)", self.hands, code)
