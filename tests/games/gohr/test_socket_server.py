"""The socket captive server over real TCP sockets on 127.0.0.1: concurrent sessions,
GAME errors, the data folder's fence, idle sessions, the session cap, the first-line
deadline, slow clients, long lines, bytes that are not UTF-8 and two commands at once."""

from __future__ import annotations

import contextlib
import json
import select
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from gohr_data import DATA as GOHR_DATA

from referee.core.errors import ConfigError
from referee.games.gohr.socket_server import FIRST_LINE, CaptiveSocketServer, ServerConfig

DATA = GOHR_DATA
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"sample data {DATA} is absent")


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[CaptiveSocketServer]:
    """A server on an ephemeral port of 127.0.0.1 (settings from the test's marker)."""
    marker = request.node.get_closest_marker("server")
    kwargs = marker.kwargs if marker else {}
    srv = CaptiveSocketServer(("127.0.0.1", 0), ServerConfig(DATA, **kwargs))
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


class Client:
    """A line-based client."""

    def __init__(self, srv: CaptiveSocketServer) -> None:
        self.sock = socket.create_connection(srv.server_address[:2], timeout=10)
        self.file = self.sock.makefile("rwb")

    def send(self, text: str | bytes) -> None:
        self.file.write(text.encode() if isinstance(text, str) else text)
        self.file.flush()

    def line(self) -> str:
        return self.file.readline().decode().rstrip("\n")

    def data(self, count: int) -> list[str]:
        """The next ``count`` non-comment lines."""
        out: list[str] = []
        while len(out) < count:
            line = self.line()
            assert line or out, "connection closed"
            if not line.startswith("#"):
                out.append(line)
        return out

    def close(self) -> None:
        self.file.close()
        self.sock.close()


def test_concurrent_sessions_each_play_their_own_game(server: CaptiveSocketServer) -> None:
    results: dict[int, list[str]] = {}

    def play(k: int) -> None:
        client = Client(server)
        client.send(f"GAME rules/Rule-001.txt 4 seed={k + 1}\n")
        status, board = client.data(2)
        pieces = json.loads(board)["value"]
        moves = []
        for piece in pieces:
            client.send(f"MOVE {piece['id']} {piece['buckets'][0]}\n")
            moves.append(client.data(2)[0])
        client.send("EXIT\n")
        moves.append(client.data(1)[0])
        results[k] = [status, *moves]
        client.close()

    threads = [threading.Thread(target=play, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(results) == 8
    for lines in results.values():
        assert lines[0] == "6 0 0"
        assert lines[-2] == "0 1 4" and lines[-1] == "5 1 4"


def test_bad_game_arguments_answer_minus_five_and_allow_another_try(
        server: CaptiveSocketServer) -> None:
    client = Client(server)
    for bad in ("GAME rules/no-such.txt 3", "GAME", "GAME rules/Rule-001.txt 3 log=x.csv",
                "GAME ../../../../etc/passwd 3", "GAME /etc/passwd 3",
                "GAME rules/Rule-001.txt ../../../../etc/hosts.json",
                "HELLO"):
        client.send(bad + "\n")
        first = client.line()
        assert first in ("-5 0 0", "-1 0 0"), (bad, first)
        reason = client.line()
        assert reason.startswith("#")
        if "etc" in bad:
            assert "outside the server's data folder" in reason
    client.send('GAME "rules/Rule-001.txt" 3 seed=2\n')
    assert client.data(1)[0] == "6 0 0"
    client.close()


@pytest.mark.server(idle=0.5)
def test_idle_sessions_are_closed(server: CaptiveSocketServer) -> None:
    client = Client(server)
    client.send("GAME rules/Rule-001.txt 3\n")
    client.data(2)
    time.sleep(1.0)
    assert client.line() == "# idle for too long: closing the session"
    assert client.line() == ""  # closed
    client.close()


@pytest.mark.server(max_sessions=1)
def test_the_session_cap_turns_extra_clients_away(server: CaptiveSocketServer) -> None:
    first = Client(server)
    first.send("GAME rules/Rule-001.txt 3\n")
    first.data(2)
    second = Client(server)
    assert second.line() == "# the server is full: try again later"
    second.close()
    first.send("EXIT\n")
    first.data(1)
    first.close()


OVERLONG = "# the line is longer than 65536 bytes: closing the session"


def test_an_overlong_line_is_refused_with_the_limit_and_the_session_closed(
        server: CaptiveSocketServer) -> None:
    client = Client(server)
    client.send("GAME rules/Rule-001.txt 3\n")
    client.data(2)
    client.send("MOVE 0 0\n")
    attempts = client.data(2)[0].split()[2]
    client.send(b"MOVE " + b"1" * 300_000 + b"\n")
    assert client.line() == f"-1 0 {attempts}"  # the session's status, nothing counted
    assert client.line() == OVERLONG
    assert client.line() == ""  # closed
    client.close()
    first = Client(server)  # the same as the first line: no session yet
    first.send(b"GAME " + b"x" * 70_000)  # and no end of line at all
    assert [first.line(), first.line(), first.line()] == ["-1 0 0", OVERLONG, ""]
    first.close()
    exact = Client(server)  # the limit itself is allowed: 65536 bytes and the newline
    exact.send(b"GAME rules/Rule-001.txt 3 " + b" " * (65536 - 26) + b"\n")
    assert exact.data(1)[0] == "6 0 0"
    exact.close()


def test_vanishing_clients_and_bytes_that_are_not_utf8_do_not_hurt_the_server(
        server: CaptiveSocketServer) -> None:
    client = Client(server)
    client.send(b"GAME \xff\xfe\n")  # not UTF-8: read leniently, refused as arguments
    assert client.line() == "-5 0 0" and client.line().startswith("#")
    client.send("GAME rules/Rule-001.txt 3\n")
    client.data(2)
    client.send(b"MOVE \xff 1\n")  # U+FFFD starts no token of the reference's
    assert [client.line(), client.line()] == ["-1 0 0", "# Invalid input - cannot parse"]
    client.send(b"\xc3\x28\x00\n")
    assert client.line() == "-1 0 0" and client.line().startswith("# Invalid input")
    client.send("DISPLAY\n")
    assert json.loads(client.line())["value"]
    client.send(b"MOVE 0 ")  # half a line, then gone
    client.close()
    again = Client(server)
    again.send("GAME rules/Rule-001.txt 3\n")
    assert again.data(1)[0] == "6 0 0"
    again.close()


@pytest.mark.server(max_sessions=1, first_line=0.5)
def test_a_silent_connection_loses_its_slot_at_the_first_line_deadline(
        server: CaptiveSocketServer) -> None:
    start = time.monotonic()
    silent = Client(server)
    turned_away = Client(server)  # the silent one holds the only slot
    assert turned_away.line() == "# the server is full: try again later"
    turned_away.close()
    assert silent.line() == FIRST_LINE.format(0.5)
    assert silent.line() == ""  # closed
    assert 0.5 <= time.monotonic() - start < 5
    silent.close()
    good = Client(server)  # the slot is free
    good.send("GAME rules/Rule-001.txt 3\n")
    assert good.data(1)[0] == "6 0 0"
    good.close()


@pytest.mark.server(max_sessions=1, first_line=0.6)
def test_a_trickle_of_bytes_does_not_extend_the_first_line_deadline(
        server: CaptiveSocketServer) -> None:
    start = time.monotonic()
    slow = socket.create_connection(server.server_address[:2], timeout=10)
    received = b""
    while time.monotonic() - start < 8:
        readable, _, _ = select.select([slow], [], [], 0.1)
        if readable:
            data = slow.recv(4096)
            if not data:
                break
            received += data
        else:
            with contextlib.suppress(OSError):
                slow.send(b"G")  # never a whole line
    elapsed = time.monotonic() - start
    slow.close()
    assert received.decode() == FIRST_LINE.format(0.6) + "\n"
    assert 0.6 <= elapsed < 5


@pytest.mark.server(first_line=3)
def test_a_client_sending_a_byte_at_a_time_is_served(server: CaptiveSocketServer) -> None:
    client = Client(server)

    def trickle(text: str) -> None:
        for byte in text.encode():
            client.send(bytes([byte]))
            time.sleep(0.005)

    trickle("GAME rules/Rule-001.txt 3 seed=2\n")
    status, board = client.data(2)
    assert status == "6 0 0"
    piece = json.loads(board)["value"][0]
    trickle(f"MOVE {piece['id']} {piece['buckets'][0] if piece['buckets'] else 0}\n")
    assert client.data(1)[0].split()[2] == "1"  # one attempt counted
    client.close()


@pytest.mark.parametrize(("config", "message"), [
    (ServerConfig(DATA, idle=0.0), "the idle time must be more than 0 s"),
    (ServerConfig(DATA, first_line=0.0), "the first-line time must be more than 0 s"),
    (ServerConfig(DATA, first_line=-1.0), "the first-line time must be more than 0 s"),
    (ServerConfig(DATA, idle=1e12), "at most a year"),  # the socket's timeout cannot be set
    (ServerConfig(DATA, max_sessions=0), "max sessions must be at least 1"),
])
def test_bad_limits_are_refused(config: ServerConfig, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        CaptiveSocketServer(("127.0.0.1", 0), config)


def test_version_8_over_the_socket(server: CaptiveSocketServer) -> None:
    client = Client(server)
    client.send("GAME rules/Rule-001.txt 3 seed=2 version=8\n")
    opening, board = client.data(2)
    assert opening == "6 0 0"
    pieces = json.loads(board)["value"]
    assert json.loads(board)["id"] == 0  # and no labels: 8.060 drops them on random boards
    assert len(pieces) == 3 and all("label" not in p for p in pieces)
    client.send("MOVE 77 0\n")
    assert client.line() == "-10 0 0"  # INVALID_OBJECT_ID, as CGS 8.060 answers
    assert client.line() == "# no piece 77 on the board"
    assert json.loads(client.line())["value"] == pieces
    client.send("MODE brief\n")
    assert client.line() == "# OK, mode=BRIEF"
    piece = pieces[0]
    wrong = next(b for b in range(4) if b not in piece["buckets"])
    client.send(f"MOVE {piece['id']} {wrong}\n")  # brief: the status and 8.060's '# null'
    assert [client.line(), client.line()] == ["4 0 1" if piece["buckets"] else "7 0 1",
                                              "# null"]
    client.send("NEW\n")  # the mode is the session's again (standard), as in 8.060
    piece = json.loads(client.data(2)[1])["value"][0]
    wrong = next(b for b in range(4) if b not in piece["buckets"])
    client.send(f"MOVE {piece['id']} {wrong}\n")
    assert client.line() in ("4 0 1", "7 0 1") and client.line() == "# null"
    assert json.loads(client.line())["id"] == 0  # the board again: standard mode
    client.send("GAME rules/Rule-001.txt 3 version=9\n")  # already playing: a command
    assert client.line().startswith("-1 ")
    client.close()


def test_two_commands_written_at_once_are_answered_without_waiting_for_an_ack(
        server: CaptiveSocketServer) -> None:
    # the server sets TCP_NODELAY: its second answer does not wait for the client's
    # delayed ACK of the first (40 ms on Linux) before it leaves
    client = Client(server)
    client.send("GAME rules/Rule-001.txt 3 seed=1\n")
    client.data(2)
    rounds = []
    for _ in range(25):
        start = time.perf_counter()
        client.send("DISPLAY\nDISPLAY\n")
        assert client.line().startswith('{"id":') and client.line().startswith('{"id":')
        rounds.append(time.perf_counter() - start)
    client.close()
    rounds.sort()
    assert rounds[len(rounds) // 2] < 0.02, rounds
