"""Network mode: the ICGA referee server. Four wrappers log in over TCP, one per seat,
and the server plays a game of hands with them, as local mode does with programs on
pipes (``play_clients``: a client that faults is replaced by the dummy AI).

The login (ours: the spec's was a web page) is one line from the client::

    /login <id> <account> [human]    id 1..4 (the seat), account 1..32 of A-Z a-z 0-9 . _ @ + # -

answered ``/ok``, or ``/refused <reason>`` and the connection is closed. ``human`` says a
person plays the seat (the spec's page took a person when no AI path was given): the seat
has the server's time for a person (``human_time``) for each answer instead of the move
time, and the answer is ``/ok move-time=<seconds> takeover=<hand|game>``, for the
person's console to tell. Refused: a
malformed line, an id outside 1..4, no login within the login time, a client once the
table is full. Two clients with the same account or the same seat are *both* refused and
disconnected (the spec: "both of them will be kicked"); the seat is free again. When the
fourth seat is taken the game starts, and every hand is a session: ``/start MJ <id>
<account>`` .. ``/exit <scores>``, exactly the lines local mode writes to a program.
After the game the server sends nothing more and closes the connections.

One process: a lobby thread (``selectors``) accepts and seats clients for the server's
whole life (late comers are told the table is full); the calling thread plays the game.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import select
import selectors
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from referee.core.errors import BotFault, ConfigError, RefereeError
from referee.core.outcome import Outcome
from referee.core.players import PlayerSpec
from referee.core.record import GameRecord
from referee.games.mahjong.match import MahjongSettings, new_record, play_clients

log = logging.getLogger(__name__)

__all__ = ["MAX_LINE", "LoginError", "MahjongServer", "ServerConfig", "SocketChannel",
           "parse_login"]

MAX_LINE = 64 * 1024
"""The longest line a client may send during the game (bytes)."""
MAX_STALE = 1 << 20
"""The most bytes a client's connection is drained of between two hands."""
LOGIN_LINE_MAX = 1024
"""The longest login line."""
MAX_WAIT = 365 * 86400.0
"""The longest login or move time (seconds): a year."""
HUMAN_TIME = 120.0
"""Seconds a person has for each answer unless the server says otherwise: a person reads
the table and the numbered answers first (the move time, 10 s, is an AI's)."""
_ACCEPT_PAUSE = 0.2
"""Seconds the lobby stops accepting after an accept failed (no more file descriptors):
the pending connection would otherwise wake it again at once."""
ACCOUNT = re.compile(r"[A-Za-z0-9._@+#-]{1,32}")
"""What an account may be (the spec: "Account ... should be English")."""
SEATS = 4
_CLOSE_GRACE = 1.0
"""Seconds a refused client has to read its refusal before the socket is closed."""
_POLL_IN = select.POLLIN | select.POLLPRI | select.POLLHUP | select.POLLERR
_POLL_OUT = select.POLLOUT | select.POLLHUP | select.POLLERR


class LoginError(RefereeError):
    """A login line the server refuses; the message is the reason told to the client."""


def parse_login(line: str) -> tuple[int, str, bool]:
    """The seat id (1..4), the account and whether a person plays, of a ``/login <id>
    <account> [human]`` line; ``LoginError`` says what is wrong."""
    words = line.split()
    if not words or words[0] != "/login":
        raise LoginError("expected /login <id> <account> [human]")
    person = len(words) == 4 and words[3] == "human"
    if len(words) != 3 and not person:
        raise LoginError(f"expected /login <id> <account> [human], got {len(words) - 1} "
                         "word(s) after /login")
    text, account = words[1], words[2]
    if not (text.isascii() and text.isdecimal()) or len(text) > 3:
        raise LoginError(f"the id must be a seat number 1..4, got {text[:12]!r}")
    seat = int(text)
    if not 1 <= seat <= SEATS:
        raise LoginError(f"there is no seat {seat}: ids are 1..4")
    if not ACCOUNT.fullmatch(account):
        raise LoginError("the account must be 1 to 32 letters, digits or . _ @ + # -")
    return seat, account, person


@dataclass(frozen=True)
class ServerConfig:
    """Where to listen, how long a login may take, the game, where the record goes."""

    settings: MahjongSettings
    out_dir: Path
    host: str = "127.0.0.1"
    port: int = 0
    login_time: float = 30.0
    """Seconds a client has, once connected, to send its login line."""
    human_time: float = HUMAN_TIME
    """Seconds a seat a person plays (``/login ... human``) has for each answer."""


# ------------------------------------------------------------------------ the game's channel


class SocketChannel:
    """One wrapper's connection as a seat's ``Channel``: lines written and read with
    deadlines. A timeout, a lost connection or a line over ``MAX_LINE`` bytes raises
    ``BotFault`` (TIMEOUT, CRASH, PROTOCOL_ERROR), so the dummy AI takes the seat over."""

    def __init__(self, sock: socket.socket, name: str, command: str,
                 max_line: int = MAX_LINE, move_time: float | None = None) -> None:
        self.sock = sock
        self.name = name
        self.command = command
        self.max_line = max_line
        self.move_time = move_time
        """Seconds for each answer when not the game's (a person's seat)."""
        self.lines_sent = 0
        self.lines_received = 0
        self._buf = bytearray()
        self._eof = False
        sock.setblocking(False)
        self._poll_in = select.poll()
        self._poll_in.register(sock.fileno(), _POLL_IN)
        self._poll_out = select.poll()
        self._poll_out.register(sock.fileno(), _POLL_OUT)

    def open(self, hand: int) -> None:
        """A new session: whatever the client sent since the last one is stale (the
        wrapper starts the AI itself on ``/start``). At most ``MAX_STALE`` bytes are
        dropped: a client that floods the connection faster is not waited for, and what
        it sends next is read as its answers."""
        dropped = len(self._buf)
        self._buf.clear()
        while not self._eof and dropped < MAX_STALE:
            try:
                data = self.sock.recv(65536)
            except BlockingIOError:
                break
            except OSError:
                break
            if not data:
                self._eof = True
            dropped += len(data)
        if dropped:
            log.debug("%s: %d stale byte(s) dropped before hand %d", self.name, dropped,
                      hand + 1)

    def send(self, text: str, deadline: float) -> None:
        """Write ``text`` by ``deadline``; ``BotFault`` if the client is gone or stuck."""
        view = memoryview(text.encode())
        while view:
            try:
                view = view[self.sock.send(view):]
            except BlockingIOError:
                pass
            except OSError as exc:
                self._eof = True
                raise BotFault(Outcome.CRASH,
                               f"connection lost while writing: {exc.strerror or exc}") from None
            if view and not self._poll_out.poll(_ms_until(deadline)):
                raise BotFault(Outcome.TIMEOUT, "does not read from its connection")
        self.lines_sent += text.count("\n")

    def read_line(self, deadline: float) -> str:
        """The client's next non-empty line (CR, LF or CR LF ends it)."""
        while True:
            line = self._next_line()
            if line is not None:
                self.lines_received += 1
                return line
            if len(self._buf) > self.max_line:
                raise BotFault(Outcome.PROTOCOL_ERROR,
                               f"sent a line over {self.max_line // 1024} KiB")
            if self._eof:
                raise BotFault(Outcome.CRASH, "disconnected")
            wait = _ms_until(deadline)
            if wait == 0 or not self._poll_in.poll(wait):
                raise BotFault(Outcome.TIMEOUT, "no answer in time")
            try:
                data = self.sock.recv(65536)
            except BlockingIOError:
                continue
            except OSError as exc:
                self._eof = True
                raise BotFault(Outcome.CRASH,
                               f"connection lost: {exc.strerror or exc}") from None
            if data:
                self._buf += data
            else:
                self._eof = True

    def stray_line(self) -> str | None:
        """A line the client has sent already (what the connection holds now is read,
        without waiting), if any."""
        while not self._eof and not (b"\n" in self._buf or b"\r" in self._buf) \
                and len(self._buf) <= self.max_line:
            try:
                data = self.sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                self._eof = True
                break
            if not data:
                self._eof = True
            self._buf += data
        return self._next_line()

    def _next_line(self) -> str | None:
        buf = self._buf
        while buf:
            lf, cr = buf.find(b"\n"), buf.find(b"\r")
            ends = [i for i in (lf, cr) if i >= 0]
            if not ends:
                return None
            end = min(ends)
            raw = bytes(buf[:end])
            del buf[:end + 1]
            if len(raw) > self.max_line:
                raise BotFault(Outcome.PROTOCOL_ERROR,
                               f"sent a line over {self.max_line // 1024} KiB")
            if raw.strip():
                return raw.decode("utf-8", errors="replace")
        return None

    @property
    def gone(self) -> bool:
        """Whether the connection is lost (no later hand can reach the client)."""
        return self._eof

    def close(self, grace: float) -> None:
        """The hand's session is over: nothing to do (the wrapper stops its AI)."""

    def cpu_time(self) -> float | None:
        """Unknown: the AI runs on the client's machine."""
        return None

    def end_turn(self) -> None:
        """Nothing to check here: the wrapper sandboxes its AI on the client's machine."""


def _ms_until(deadline: float) -> int:
    """Milliseconds until ``deadline`` (at least 1 while it is ahead), 0 once passed."""
    left = deadline - time.monotonic()
    return 0 if left <= 0 else max(1, int(left * 1000.0 + 0.999))


# ----------------------------------------------------------------------------- the lobby


@dataclass(eq=False)
class _Client:
    """A connection the lobby looks after."""

    sock: socket.socket
    peer: str
    deadline: float
    """When it is dropped: no login by then, or (closing) no end of its connection."""
    buf: bytearray = field(default_factory=bytearray)
    seat: int = 0
    """1..4 once seated."""
    account: str = ""
    person: bool = False
    """A person plays the seat (``/login ... human``)."""
    closing: bool = False


class Lobby:
    """Accepts connections and seats the logins, in its own thread, for the server's
    whole life; once four are seated it hands them over (``table``) and refuses the
    rest."""

    def __init__(self, listener: socket.socket, login_time: float,
                 announce: Callable[[str], None], person_terms: str = "") -> None:
        self.listener = listener
        self.login_time = login_time
        self.announce = announce
        self.person_terms = person_terms
        """What ``/ok`` tells a person after it (``move-time=120 takeover=hand``)."""
        self.seated: dict[int, _Client] = {}
        self.table: list[_Client] | None = None
        self.ready = threading.Event()
        """Set when the table is full (or the lobby failed: ``error``)."""
        self.error: BaseException | None = None
        self._clients: set[_Client] = set()
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._stopping = False
        self._resume_accepting: float | None = None
        """When to listen again after an accept failed."""
        listener.setblocking(False)
        self._selector.register(listener, selectors.EVENT_READ, None)
        self._selector.register(self._wake_r, selectors.EVENT_READ, None)

    def run(self) -> None:
        """The lobby's loop, until ``stop``."""
        try:
            while not self._stopping:
                deadlines = [c.deadline for c in self._clients if not c.seat]
                if self._resume_accepting is not None:
                    deadlines.append(self._resume_accepting)
                timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
                for key, _ in self._selector.select(timeout):
                    if key.fileobj is self.listener:
                        self._accept()
                    elif key.fileobj is self._wake_r:
                        with contextlib.suppress(OSError):
                            self._wake_r.recv(64)
                    else:
                        self._readable(key.data)
                self._expire()
                if (self._resume_accepting is not None
                        and time.monotonic() >= self._resume_accepting):
                    self._resume_accepting = None
                    self._selector.register(self.listener, selectors.EVENT_READ, None)
        except BaseException as exc:  # the main thread reports it
            log.exception("the lobby failed")
            self.error = exc
            self.ready.set()
        finally:
            for client in list(self._clients):
                self._drop(client)
            self._selector.close()
            self._wake_r.close()
            self._wake_w.close()

    def stop(self) -> None:
        """End the loop (from another thread)."""
        self._stopping = True
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")

    # -- events -----------------------------------------------------------------------------
    def _accept(self) -> None:
        while True:
            try:
                sock, address = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # e.g. too many open files: keep serving the others
                log.warning("cannot accept a connection: %s", exc)
                self._selector.unregister(self.listener)
                self._resume_accepting = time.monotonic() + _ACCEPT_PAUSE
                return
            sock.setblocking(False)
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            client = _Client(sock, f"{address[0]}:{address[1]}",
                             time.monotonic() + self.login_time)
            self._clients.add(client)
            self._selector.register(sock, selectors.EVENT_READ, client)
            log.info("connection from %s", client.peer)
            if self.table is not None:
                self._refuse(client, "the table is full")

    def _readable(self, client: _Client) -> None:
        try:
            data = client.sock.recv(4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if client.closing:
            if not data:
                self._drop(client)
            return
        if not data:
            if client.seat:
                self.announce(f"seat {client.seat}: {client.account} left; the seat is free")
                del self.seated[client.seat]
            self._drop(client)
            return
        if client.seat:
            return  # nothing is asked before the game: the game's first session drops it
        client.buf += data
        ends = [i for i in (client.buf.find(b"\n"), client.buf.find(b"\r")) if i >= 0]
        if ends and min(ends) <= LOGIN_LINE_MAX:  # CR, LF or CR LF ends it, as in the game
            self._login(client, client.buf[:min(ends)].decode("utf-8", errors="replace"))
        elif len(client.buf) > LOGIN_LINE_MAX:
            self._refuse(client, f"the login line is longer than {LOGIN_LINE_MAX} bytes")

    def _login(self, client: _Client, line: str) -> None:
        if self.table is not None:
            self._refuse(client, "the table is full")
            return
        try:
            seat, account, person = parse_login(line)
        except LoginError as exc:
            self._refuse(client, str(exc))
            return
        clashes = [c for c in self.seated.values() if c.seat == seat or c.account == account]
        if clashes:
            taken = " and ".join(w for w, hit in (
                (f"seat {seat}", any(c.seat == seat for c in clashes)),
                (f"account {account}", any(c.account == account for c in clashes))) if hit)
            for other in clashes:
                same = f"seat {seat}" if other.seat == seat else f"account {account}"
                self._refuse(other, f"another client logged in with the same {same}: "
                                    "both are refused")
            self._refuse(client, f"{taken} already logged in: both are refused")
            return
        client.seat, client.account, client.person = seat, account, person
        client.deadline = float("inf")
        client.buf.clear()
        self.seated[seat] = client
        self._write(client, f"/ok {self.person_terms}".rstrip() + "\n" if person else "/ok\n")
        self.announce(f"seat {seat}: {account} logged in from {client.peer}"
                      + (" (a person)" if person else ""))
        if len(self.seated) == SEATS:
            self.table = [self.seated[s] for s in range(1, SEATS + 1)]
            for member in self.table:
                self._selector.unregister(member.sock)
                self._clients.discard(member)
            self.announce("the table is full: the game starts")
            self.ready.set()

    def _expire(self) -> None:
        now = time.monotonic()
        for client in [c for c in self._clients if c.deadline <= now]:
            if client.closing:
                self._drop(client)
            else:
                self._refuse(client, f"no login within {self.login_time:g} s")

    # -- helpers ----------------------------------------------------------------------------
    def _write(self, client: _Client, text: str) -> None:
        """A short line to a client (it fits in any socket buffer); lost if it is gone."""
        with contextlib.suppress(OSError):
            client.sock.send(text.encode())

    def _refuse(self, client: _Client, reason: str) -> None:
        """Tell the client why, close our side, give it a moment to read (no reset)."""
        if client.closing:
            return
        self.announce(f"refused {client.peer}"
                      f"{f' ({client.account}, seat {client.seat})' if client.seat else ''}"
                      f": {reason}")
        if client.seat and self.seated.get(client.seat) is client:
            del self.seated[client.seat]
        client.seat = 0
        self._write(client, f"/refused {reason}\n")
        with contextlib.suppress(OSError):
            client.sock.shutdown(socket.SHUT_WR)
        client.closing = True
        client.deadline = time.monotonic() + _CLOSE_GRACE

    def _drop(self, client: _Client) -> None:
        self._clients.discard(client)
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(client.sock)
        client.sock.close()


# ----------------------------------------------------------------------------- the server


class MahjongServer:
    """The referee server: binds at once (``ConfigError`` naming host:port if it cannot),
    then ``serve`` waits for the four logins, plays the game and writes the record."""

    def __init__(self, config: ServerConfig,
                 announce: Callable[[str], None] = log.info) -> None:
        for option, value in (("--login-time", config.login_time),
                              ("--move-time", config.settings.move_time),
                              ("--human-time", config.human_time)):
            if not 0 < value <= MAX_WAIT:
                raise ConfigError(f"{option} must be more than 0 s and at most a year, got "
                                  f"{value:g} s")
        self.config = config
        self.announce = announce
        try:
            config.out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot create the output folder {config.out_dir}: "
                              f"{exc.strerror or exc}") from None
        try:
            self.listener = socket.create_server((config.host, config.port), backlog=16)
        except OSError as exc:
            reason = os.strerror(exc.errno) if exc.errno else str(exc)
            raise ConfigError(f"cannot serve on {config.host}:{config.port}: {reason}; "
                              "choose another --port (0: any free one) or --host") from None

    @property
    def address(self) -> tuple[str, int]:
        """The host and the port listened on (the real port when 0 was asked)."""
        host, port = self.listener.getsockname()[:2]
        return str(host), int(port)

    def serve(self) -> tuple[GameRecord, Path]:
        """Wait for the table, play the game, write the record; the record and its path."""
        config = self.config
        terms = (f"move-time={config.human_time:g} "
                 f"takeover={config.settings.takeover}")
        lobby = Lobby(self.listener, config.login_time, self.announce, terms)
        thread = threading.Thread(target=lobby.run, name="mahjong-lobby", daemon=True)
        thread.start()
        table: list[_Client] = []
        try:
            while not lobby.ready.wait(0.5):
                pass
            if lobby.error is not None or lobby.table is None:
                raise RefereeError(f"the lobby failed: {lobby.error}")
            table = lobby.table
            record = self._play(table)
        finally:
            lobby.stop()
            thread.join(timeout=5)
            _close_all([c.sock for c in table])
            self.listener.close()
        path = self.config.out_dir / "game-001.json"
        try:
            record.write(path)
        except OSError as exc:
            raise ConfigError(f"cannot write the record {path}: {exc.strerror or exc}") from None
        return record, path

    def _play(self, table: Sequence[_Client]) -> GameRecord:
        settings = self.config.settings
        human_time = self.config.human_time
        channels = [SocketChannel(c.sock, c.account, c.account,
                                  move_time=human_time if c.person else None) for c in table]
        players = [PlayerSpec(c.account, [f"{'person' if c.person else 'wrapper'} at {c.peer}"])
                   for c in table]
        record = new_record(players, settings)
        record.settings["mode"] = "network"
        if any(c.person for c in table):
            record.settings["human_time"] = human_time
            record.settings["human_seats"] = [c.seat for c in table if c.person]
        play_clients(channels, settings, record)
        record.settings["lines_to_clients"] = sum(c.lines_sent for c in channels)
        record.settings["lines_from_clients"] = sum(c.lines_received for c in channels)
        self.announce(f"the game is over: {record.reason}")
        return record

    def close(self) -> None:
        """Release the port (when ``serve`` is not called)."""
        self.listener.close()


def _close_all(socks: Sequence[socket.socket], grace: float = 2.0) -> None:
    """Close connections without a reset: our side first, then each peer's end (EOF),
    waited for up to ``grace`` seconds together."""
    selector = selectors.DefaultSelector()
    for sock in socks:
        try:
            sock.shutdown(socket.SHUT_WR)
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ, sock)
        except (OSError, ValueError):
            sock.close()
    end = time.monotonic() + grace
    while selector.get_map() and (left := end - time.monotonic()) > 0:
        for key, _ in selector.select(left):
            sock = key.data
            try:
                more = sock.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                more = b""
            if not more:
                selector.unregister(sock)
                sock.close()
    for key in list(selector.get_map().values()):
        key.data.close()
    selector.close()
