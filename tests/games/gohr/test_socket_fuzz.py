"""A bounded fuzz of the socket captive server over TCP on 127.0.0.1: junk clients (random
bytes, commands, giant lines, pauses between their pieces, vanishing, half-closing or
staying silent) against a server with one slot. After each, the server must be up, must
have logged no failure, must free the slot within the first-line deadline, and must serve
a well-behaved client."""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from gohr_data import DATA
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from referee.games.gohr.captive import MAX_LINE
from referee.games.gohr.socket_server import FIRST_LINE, CaptiveSocketServer, ServerConfig
from sockets import read_until_closed

pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"sample data {DATA} is absent")

FIRST = 0.4
"""The server's first-line time in the fuzz (seconds)."""
SLACK = 5.0
"""How much later than due an event may come on a loaded machine (seconds)."""

PIECES = st.one_of(
    st.binary(max_size=200),
    st.sampled_from([
        b"\n", b"\r\n", b"   \n", b"GAME", b"GAME rules/Rule-001.txt 3\n", b"MOVE 0 1\n",
        b"\xff\xfe\x00", b"#", b"EXIT\n", b"NEW\n", b"GAME ../../etc/passwd 3\n",
        b"MODE full\n", b'GAME "unclosed\n', b"DISPLAYFULL\n", b"FEATURES\n",
        b"GAME rules/Rule-001.txt 3 version=8 seed=x\n", b"MOVE 99999999999999999999 0\n",
        b"COND test\n", b"GAME rules/Rule-001.txt 40\n",
    ]),
    st.integers(MAX_LINE - 2, MAX_LINE + 3).map(lambda n: b"9" * n),  # about the limit
)
"""What a junk client sends, piece by piece."""


class Errors(logging.Handler):
    """The server's log records at ERROR and above."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextlib.contextmanager
def running_server() -> Iterator[tuple[CaptiveSocketServer, threading.Thread, Errors]]:
    """A one-slot server on an ephemeral port, its thread and its logged errors."""
    errors = Errors()
    logger = logging.getLogger("referee.games.gohr.socket_server")
    logger.addHandler(errors)
    server = CaptiveSocketServer(("127.0.0.1", 0), ServerConfig(DATA, idle=3.0, max_sessions=1,
                                                                first_line=FIRST))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, thread, errors
    finally:
        server.shutdown()
        server.server_close()
        logger.removeHandler(errors)


def served(port: int, within: float) -> bool:
    """Whether a well-behaved client gets a session and plays within ``within`` seconds
    (a client turned away as the slot is still being freed tries again)."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        with socket.create_connection(("127.0.0.1", port), timeout=SLACK) as sock:
            file = sock.makefile("rwb")
            file.write(b"GAME rules/Rule-001.txt 3 seed=5\n")
            file.flush()
            first = file.readline()
            if first.startswith(b"# the server is full"):
                time.sleep(0.05)
                continue
            assert first == b"6 0 0\n", first
            assert file.readline().startswith(b"# Hello")
            assert file.readline().startswith(b'{"id":0,"value":[')
            file.write(b"EXIT\n")
            file.flush()
            assert file.readline() == b"5 0 0\n"
            assert file.readline().startswith(b"# Goodbye")
            assert file.readline() == b""  # closed once the slot is given back
            return True
    return False


def test_junk_clients_never_hold_the_slot_nor_hurt_the_server() -> None:
    with running_server() as (server, thread, errors):
        port = server.server_address[1]

        @settings(max_examples=25, deadline=10_000,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
        @given(pieces=st.lists(st.tuples(PIECES, st.sampled_from([0.0, 0.0, 0.01, 0.03])),
                               max_size=5),
               end=st.sampled_from(["close", "half-close", "stay"]))
        @example(pieces=[], end="stay")  # connects and says nothing
        @example(pieces=[(b"GA", 0.03), (b"ME", 0.03), (b" x", 0.03)], end="stay")  # a trickle
        @example(pieces=[(b"MOVE " + b"1" * 100_000, 0.0)], end="stay")  # giant, no newline
        @example(pieces=[(b"GAME rules/Rule-001.txt 3\nMOVE 0", 0.0)], end="close")
        def junk(pieces: list[tuple[bytes, float]], end: str) -> None:
            sent = b""
            began = time.monotonic()  # before connecting: the server's clock starts later
            sock = socket.create_connection(("127.0.0.1", port), timeout=SLACK)
            try:
                for data, pause in pieces:
                    try:
                        sock.sendall(data)
                    except OSError:  # the server closed it (a line over the limit)
                        break
                    sent += data
                    time.sleep(pause)
                if end == "half-close":
                    with contextlib.suppress(OSError):
                        sock.shutdown(socket.SHUT_WR)
                    assert read_until_closed(sock, SLACK) is not None  # its session ends
                elif end == "stay" and b"\n" not in sent and len(sent) <= MAX_LINE:
                    answer = read_until_closed(sock, FIRST + SLACK)  # no command: closed in time
                    assert answer is not None
                    assert answer.decode().splitlines()[-1:] == [FIRST_LINE.format(FIRST)]
                    assert time.monotonic() - began >= FIRST
            finally:
                sock.close()
            assert thread.is_alive()
            assert served(port, SLACK)
            assert not errors.records, [r.getMessage() for r in errors.records]

        junk()
