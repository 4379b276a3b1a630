"""``referee gohr-server --workers N`` as a real program: worker processes share the
listening socket and the session cap, a killed worker is replaced without losing slots,
and SIGTERM stops them all."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from gohr_data import DATA

pytestmark = [
    pytest.mark.skipif(not DATA.is_dir(), reason=f"sample data {DATA} is absent"),
    pytest.mark.skipif(sys.platform == "win32", reason="worker processes need fork"),
]


class ServerProcess:
    """``referee gohr-server --port 0`` started as a child; its port read from stderr."""

    def __init__(self, *options: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "serve", "gohr", "--port", "0",
             "--data", str(DATA), *options], stderr=subprocess.PIPE, text=True)
        assert self.proc.stderr is not None
        banner = self.proc.stderr.readline()
        found = re.search(r"on 127\.0\.0\.1:(\d+),.* (\d+) worker process", banner)
        assert found, banner
        self.port, self.workers = int(found[1]), int(found[2])

    def children(self) -> list[int]:
        """The process ids of the workers now."""
        path = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        return [int(pid) for pid in path.read_text().split()]

    def stop(self) -> int:
        """SIGTERM, then the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def start() -> Iterator[type[ServerProcess]]:
    """Start servers; every one is stopped at the end."""
    started: list[ServerProcess] = []

    class Tracked(ServerProcess):
        def __init__(self, *options: str) -> None:
            super().__init__(*options)
            started.append(self)

    yield Tracked
    for server in started:
        server.stop()


class Session:
    """A client session over TCP."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=20)
        self.file = self.sock.makefile("rwb")

    def send(self, line: str) -> None:
        self.file.write((line + "\n").encode())
        self.file.flush()

    def data(self) -> str:
        """The next line that is not a comment ('' once the server closed the session)."""
        while True:
            line = self.file.readline().decode()
            if not line.startswith("#"):
                return line.rstrip("\n")

    def game(self, args: str = "rules/Rule-001.txt 3") -> str:
        """GAME ARGS: the status line (the board after it is read too)."""
        self.send(f"GAME {args}")
        status = self.data()
        if status == "6 0 0":
            assert json.loads(self.data())["value"]
        return status

    def first(self) -> str:
        """The first line the server sends, comment or not."""
        return self.file.readline().decode().rstrip("\n")

    def close(self) -> None:
        self.file.close()
        self.sock.close()


def play(port: int, seed: int, out: dict[int, list[str]]) -> None:
    """A whole game of 4 pieces, each moved to its first allowed bucket."""
    session = Session(port)
    session.send(f"GAME rules/Rule-001.txt 4 seed={seed}")
    lines = [session.data()]
    pieces = json.loads(session.data())["value"]
    for piece in pieces:
        session.send(f"MOVE {piece['id']} {piece['buckets'][0]}")
        lines.append(session.data())
        session.data()
    session.send("EXIT")
    lines.append(session.data())
    session.close()
    out[seed] = lines


def test_workers_serve_concurrent_sessions_and_sigterm_stops_them_all(
        start: type[ServerProcess]) -> None:
    server = start("--workers", "2")
    assert server.workers == 2
    workers = server.children()
    assert len(workers) == 2
    held = [Session(server.port) for _ in range(6)]  # sessions open at once, in the workers
    for k, session in enumerate(held):
        assert session.game(f"rules/Rule-001.txt 3 seed={k + 1}") == "6 0 0"
    results: dict[int, list[str]] = {}
    threads = [threading.Thread(target=play, args=(server.port, k + 1, results))
               for k in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(results) == list(range(1, 17))
    for lines in results.values():
        assert lines[0] == "6 0 0" and lines[-2] == "0 1 4" and lines[-1] == "5 1 4"
    for session in held:
        session.close()
    assert server.stop() == 0
    for pid in workers:
        assert not Path(f"/proc/{pid}").exists() or \
            "zombie" in Path(f"/proc/{pid}/status").read_text()


def test_the_session_cap_counts_across_workers(start: type[ServerProcess]) -> None:
    server = start("--workers", "2", "--max-sessions", "2")
    first, second = Session(server.port), Session(server.port)
    for session in (first, second):
        assert session.game() == "6 0 0"
    third = Session(server.port)
    assert third.first() == "# the server is full: try again later"
    third.close()
    first.send("EXIT")
    assert first.data().startswith("5 ")
    first.close()
    # the slot is given back when the session's thread ends: a new session gets it then
    deadline = time.monotonic() + 20
    while True:
        fourth = Session(server.port)
        try:
            status = fourth.game()
        except OSError:  # refused and closed before GAME was read
            status = ""
        if status == "6 0 0":
            break
        fourth.close()
        assert status == "", status
        assert time.monotonic() < deadline, "the slot of the ended session never came back"
        time.sleep(0.1)
    fifth = Session(server.port)  # and only that one slot: the cap still holds
    assert fifth.first() == "# the server is full: try again later"
    fifth.close()
    fourth.close()
    second.close()


def test_a_killed_worker_is_replaced_and_its_slots_come_back(
        start: type[ServerProcess]) -> None:
    server = start("--workers", "2", "--max-sessions", "2")
    held = [Session(server.port) for _ in range(2)]
    for session in held:
        assert session.game() == "6 0 0"
    old = server.children()
    for pid in old:
        os.kill(pid, signal.SIGKILL)
    for session in held:  # their sessions die with them
        assert session.data() == ""
        session.close()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        now = server.children()
        if len(now) == 2 and not set(now) & set(old):
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"the workers were not replaced: {server.children()}")
    again = [Session(server.port) for _ in range(2)]  # both slots free again
    for session in again:
        assert session.game() == "6 0 0"
    for session in again:
        session.close()
    assert server.stop() == 0


def test_one_worker_serves_in_its_own_process_and_stops_on_sigterm(
        start: type[ServerProcess]) -> None:
    server = start("--workers", "1")
    assert server.workers == 1 and server.children() == []
    results: dict[int, list[str]] = {}
    play(server.port, 3, results)
    assert results[3][-1] == "5 1 4"
    assert server.stop() == 0


def test_login_time_frees_a_slot_across_workers(start: type[ServerProcess]) -> None:
    server = start("--workers", "2", "--max-sessions", "1", "--login-time", "500ms")
    began = time.monotonic()
    silent = Session(server.port)
    assert silent.first() == ("# no command within 0.5 s of connecting: closing the "
                              "connection (start with GAME <arguments>)")
    assert silent.first() == ""
    assert time.monotonic() - began < 10
    silent.close()
    good = Session(server.port)  # the slot came back, whichever worker serves it
    assert good.game() == "6 0 0"
    good.close()
    assert server.stop() == 0


def test_a_login_time_of_zero_is_a_usage_error() -> None:
    run = subprocess.run([sys.executable, "-m", "referee.cli", "serve", "gohr", "--port", "0",
                          "--login-time", "0"], capture_output=True, text=True, timeout=30)
    assert run.returncode == 2
    assert "Invalid value for '--login-time': must be more than 0, got '0'" in run.stderr
