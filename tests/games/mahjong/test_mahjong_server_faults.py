"""The Mahjong referee server against misbehaving clients, in this process over TCP on
127.0.0.1: slow, silent, trickling, overlong and garbled logins; seated clients that send
garbage, a giant line, half a line, nothing, or vanish mid-hand; and a bounded fuzz of
junk connections in the lobby and of junk answers in the game. The server must not
fail, must hold no seat for a client that has not logged in, must refuse it by the
login deadline, and must record each seated client's fault with its reason."""

from __future__ import annotations

import contextlib
import itertools
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from referee.core.errors import ConfigError
from referee.core.outcome import Outcome
from referee.core.record import GameRecord
from referee.games.mahjong.bots.player import run_ai
from referee.games.mahjong.bots.policies import greedy_policy
from referee.games.mahjong.match import MahjongSettings
from referee.games.mahjong.rules import Rules
from referee.games.mahjong.server import MAX_LINE, MahjongServer, ServerConfig
from sockets import read_until_closed

SLACK = 5.0
"""How much later than due an event may come on a loaded machine (seconds)."""


class Table:
    """A server playing one hand, serving in a thread; what it announces."""

    def __init__(self, out: Path, login_time: float = 0.4, move_time: float = 1.0) -> None:
        self.said: list[str] = []
        self._changed = threading.Condition()
        settings = MahjongSettings(Rules(hands=1), seed=4, move_time=move_time)
        self.server = MahjongServer(ServerConfig(settings, out, login_time=login_time),
                                    announce=self._announce)
        self.port = self.server.address[1]
        self.record: GameRecord | None = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _announce(self, text: str) -> None:
        with self._changed:
            self.said.append(text)
            self._changed.notify_all()

    def _serve(self) -> None:
        try:
            self.record = self.server.serve()[0]
        except BaseException as exc:  # the test reports it
            self.error = exc

    def wait_for(self, pattern: str, within: float = SLACK) -> None:
        """Until the server announces a line matching ``pattern``."""
        end = time.monotonic() + within
        with self._changed:
            while not any(re.search(pattern, line) for line in self.said):
                left = end - time.monotonic()
                assert left > 0, f"no {pattern!r} in {self.said}"
                self._changed.wait(left)

    def finish(self, *seats: int) -> GameRecord:
        """Greedy clients take ``seats`` (all four by default) and the hand is played; the
        record."""
        threads = [threading.Thread(target=greedy, args=(self.port, seat, f"greedy-{seat}"),
                                    daemon=True) for seat in seats or (1, 2, 3, 4)]
        for thread in threads:
            thread.start()
        self.thread.join(30)
        for thread in threads:
            thread.join(SLACK)
        assert self.error is None and self.record is not None, self.error
        assert not any(t.is_alive() for t in threads)
        return self.record


def end(table: Table) -> None:
    """End a server still waiting for its table: four clients take the seats and leave
    at once (the dummy AI plays the hand)."""
    for _ in range(10):
        if not table.thread.is_alive():
            return
        with contextlib.suppress(OSError, AssertionError):
            for seat in range(1, 5):
                login(table.port, seat, f"closer-{seat}").close()
        table.thread.join(5)


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[Callable[..., Table]]:
    """Start servers (``Table`` options); each is ended at the end of the test."""
    started: list[Table] = []

    def start(**options: float) -> Table:
        started.append(Table(tmp_path / f"out{len(started)}", **options))
        return started[-1]

    yield start
    for table in started:
        end(table)


def login(port: int, seat: int, account: str) -> socket.socket:
    """A client seated by the server."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(f"/login {seat} {account}\n".encode())
    assert sock.recv(4) == b"/ok\n"
    return sock


def greedy(port: int, seat: int, account: str) -> None:
    """A well-behaved client: the greedy AI answering every hand until the server closes."""
    with login(port, seat, account) as sock, sock.makefile("rw", encoding="utf-8") as file:
        while first := file.readline():
            run_ai(greedy_policy, itertools.chain([first], file), file)


# ------------------------------------------------------------------------------ the lobby


def test_slow_logins_are_seated_and_trickles_past_the_deadline_refused(
        tables: Callable[..., Table]) -> None:
    table = tables(login_time=1.0)
    began = time.monotonic()
    trickle = socket.create_connection(("127.0.0.1", table.port), timeout=30)
    silent = socket.create_connection(("127.0.0.1", table.port), timeout=30)
    slow = socket.create_connection(("127.0.0.1", table.port), timeout=30)
    for byte in b"/login 1 slow\n":  # a byte at a time, within the login time
        slow.sendall(bytes([byte]))
        time.sleep(0.01)
    assert slow.recv(4) == b"/ok\n"
    cr_only = socket.create_connection(("127.0.0.1", table.port), timeout=30)
    cr_only.sendall(b"/login 2 cr\r")  # CR alone ends a line, as in the game
    assert cr_only.recv(4) == b"/ok\n"
    giant = socket.create_connection(("127.0.0.1", table.port), timeout=30)
    giant.sendall(b"/login 3 " + b"x" * 5000)  # no end of line
    assert read_until_closed(giant, SLACK) == b"/refused the login line is longer than 1024 bytes\n"
    garbled = socket.create_connection(("127.0.0.1", table.port), timeout=30)
    garbled.sendall(b"\xff\xfe\x00/login 3 x\n")
    assert (read_until_closed(garbled, SLACK) or b"").startswith(b"/refused expected /login")
    while (answer := read_until_closed(trickle, 0.1)) is None:  # a byte now and then
        with contextlib.suppress(OSError):
            trickle.sendall(b"/")
    assert answer == b"/refused no login within 1 s\n"
    assert read_until_closed(silent, SLACK) == b"/refused no login within 1 s\n"
    assert 1.0 <= time.monotonic() - began < 1.0 + SLACK
    slow.close()
    cr_only.close()
    table.wait_for("slow left; the seat is free")
    table.wait_for("cr left; the seat is free")
    record = table.finish()  # none of them holds a seat: four more fill the table
    assert [p.name for p in record.players] == [f"greedy-{s}" for s in range(1, 5)]
    assert record.faults == [] and record.outcome is Outcome.NORMAL


JUNK = st.one_of(
    st.binary(max_size=200),
    st.sampled_from([b"/login", b"/login 9 x\n", b"/login 1\n", b"/login 1 bad/name\n", b"\r",
                     b"\n", b"\r\n", b"\xff\xfe", b"/login 1 " + b"a" * 40 + b"\n", b" ",
                     b"/ok\n", b"/throw 110\n", b"\x00" * 10]),
    st.integers(1000, 3000).map(lambda n: b"x" * n),
)
"""What a junk client sends before it logs in, piece by piece (never a valid login)."""


def test_junk_connections_hold_no_seat_and_the_game_is_played_after_them(
        tmp_path: Path) -> None:
    table = Table(tmp_path / "out", login_time=0.4)
    count = itertools.count()

    @settings(max_examples=25, deadline=10_000,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(pieces=st.lists(st.tuples(JUNK, st.sampled_from([0.0, 0.0, 0.01, 0.03])),
                           max_size=5),
           end=st.sampled_from(["close", "half-close", "stay"]))
    @example(pieces=[], end="stay")  # connects and says nothing
    @example(pieces=[(b"/log", 0.03), (b"in 1", 0.03)], end="close")  # half a line, gone
    def junk(pieces: list[tuple[bytes, float]], end: str) -> None:
        sock = socket.create_connection(("127.0.0.1", table.port), timeout=SLACK)
        try:
            for data, pause in pieces:
                try:
                    sock.sendall(data)
                except OSError:  # refused and closed already
                    break
                time.sleep(pause)
            if end == "half-close":
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_WR)
                assert read_until_closed(sock, SLACK) is not None
            elif end == "stay":  # refused at once, or when the login time is up
                answer = read_until_closed(sock, 0.4 + SLACK)
                assert answer is not None and answer.startswith(b"/refused ")
                assert answer.count(b"\n") == 1 and answer.endswith(b"\n")
        finally:
            sock.close()
        assert table.thread.is_alive() and table.error is None
        seat, account = next(count) % 4 + 1, f"good-{next(count)}"
        with login(table.port, seat, account):  # every seat is free
            pass
        table.wait_for(f"{account} left; the seat is free")

    try:
        junk()
        record = table.finish()
    finally:
        end(table)
    assert record.faults == [] and record.outcome is Outcome.NORMAL


# ------------------------------------------------------------------------------- the game


def misbehave(port: int, act: bytes, then: str) -> None:
    """Seat 4: logs in, reads until its first question, sends ``act``, then closes the
    connection (``close``) or reads on until the server closes it (``stay``)."""
    sock = login(port, 4, "rogue")
    try:
        file = sock.makefile("rb")
        while not file.readline().startswith(b"/ask"):
            pass
        if act:
            sock.sendall(act)
        if then == "stay":
            while file.readline():
                pass
    finally:
        sock.close()


@pytest.mark.parametrize(("act", "then", "outcome", "reason"), [
    (b"\xff\xfe hello\n", "stay", Outcome.PROTOCOL_ERROR, "expected an instruction"),
    (b"/throw " + b"1" * (MAX_LINE + 10), "stay", Outcome.PROTOCOL_ERROR,
     "sent a line over 64 KiB"),
    (b"/thr", "close", Outcome.CRASH, "disconnected"),
    (b"", "close", Outcome.CRASH, "disconnected"),
    (b"", "stay", Outcome.TIMEOUT, "no answer in time"),
], ids=["garbage", "giant-line", "half-a-line-then-gone", "gone-mid-hand", "silent"])
def test_a_misbehaving_seated_client_is_taken_over_with_its_reason(
        tables: Callable[..., Table], act: bytes, then: str, outcome: Outcome,
        reason: str) -> None:
    table = tables()
    rogue = threading.Thread(target=misbehave, args=(table.port, act, then), daemon=True)
    rogue.start()
    table.wait_for("rogue logged in")
    record = table.finish(1, 2, 3)
    rogue.join(SLACK)
    assert not rogue.is_alive()
    assert [(f.seat, f.outcome) for f in record.faults] == [(3, outcome.value)]
    assert f"rogue: {reason}" in record.faults[0].reason
    takeovers = [n.text for n in record.notes if n.kind == "takeover-at"]
    assert len(takeovers) == 1 and "the dummy AI plays for rogue" in takeovers[0]
    assert record.outcome is Outcome.NORMAL and len(record.settings["hands_played"]) == 1


@settings(max_examples=5, deadline=10_000,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(act=st.binary(min_size=1, max_size=300), then=st.sampled_from(["close", "stay"]))
def test_junk_answers_are_faults_of_their_seat_and_the_game_goes_on(
        tmp_path_factory: pytest.TempPathFactory, act: bytes, then: str) -> None:
    table = Table(tmp_path_factory.mktemp("out"))
    try:
        rogue = threading.Thread(target=misbehave, args=(table.port, act, then), daemon=True)
        rogue.start()
        table.wait_for("rogue logged in")
        record = table.finish(1, 2, 3)
        rogue.join(SLACK)
    finally:
        end(table)
    assert record.outcome is Outcome.NORMAL and len(record.settings["hands_played"]) == 1
    assert {f.seat for f in record.faults} <= {3}
    for fault in record.faults:
        assert fault.reason.startswith("rogue: ") and len(fault.reason) > len("rogue: ")


@pytest.mark.parametrize(("login_time", "move_time", "option"), [
    (0.0, 1.0, "--login-time"), (1e12, 1.0, "--login-time"), (1.0, 1e12, "--move-time"),
])
def test_times_out_of_range_are_refused(tmp_path: Path, login_time: float, move_time: float,
                                        option: str) -> None:
    settings = MahjongSettings(Rules(hands=1), seed=1, move_time=move_time)
    with pytest.raises(ConfigError, match=f"{option} must be more than 0 s and at most a year"):
        MahjongServer(ServerConfig(settings, tmp_path, login_time=login_time))


def test_a_login_time_of_zero_is_a_usage_error(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "referee.cli", "serve", "mahjong", "--port",
                          "0", "--seed", "1", "--out", str(tmp_path), "--login-time", "0"],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 2
    assert "Invalid value for '--login-time': must be more than 0, got '0'" in run.stderr
