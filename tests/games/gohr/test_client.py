"""The Python client over a real pipe and a real socket: a random player clears boards."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator

import pytest
from gohr_data import DATA

from referee.games.gohr.client import CaptiveClient, ClientError, Status
from referee.games.gohr.socket_server import CaptiveSocketServer, ServerConfig

RULE = DATA / "rules" / "Rule-001.txt"


def play_randomly(client: CaptiveClient, start: Status, rng: random.Random) -> Status:
    """Random moves (any piece, any bucket) until the episode ends."""
    status = start
    while status.finish == 0:
        piece = rng.choice([int(p["id"]) for p in status.pieces])
        status = client.move(piece, rng.randrange(4))
        assert status.code in (0, 4, 7)
    return status


def test_a_pipe_client_plays_episodes() -> None:
    rng = random.Random(1)
    with CaptiveClient.pipe([str(RULE), "5", "seed=4"]) as client:
        assert client.opening is not None and client.opening.code == 6
        wrong = client.move(99, 0)  # an error answer carries the board: the client keeps in step
        assert (wrong.code, wrong.attempts, len(wrong.pieces)) == (-2, 0, 5)
        end = play_randomly(client, client.opening, rng)
        assert end.finish == 1 and end.attempts >= 5
        after = client.move(0, 0)
        assert (after.code, after.finish, after.attempts, after.pieces) == (-4, 1, end.attempts, ())
        again = client.new()
        assert again.code == 6 and len(again.pieces) == 5
        assert client.display() == again.pieces
        assert set(client.features()) == {"shape", "color"}
        allowed = again.movable()
        piece, buckets = next(iter(allowed.items()))
        assert client.move(piece, buckets[0]).accepted


@pytest.fixture
def server() -> Iterator[CaptiveSocketServer]:
    """A socket server on 127.0.0.1."""
    srv = CaptiveSocketServer(("127.0.0.1", 0), ServerConfig(DATA))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv
    srv.shutdown()
    srv.server_close()


def test_a_socket_client_plays_and_bad_arguments_raise(server: CaptiveSocketServer) -> None:
    host, port = server.server_address[:2]
    with CaptiveClient.connect(str(host), int(port), ["rules/Rule-001.txt", "4"]) as client:
        assert client.opening is not None
        assert play_randomly(client, client.opening, random.Random(2)).finish == 1
    with pytest.raises(ClientError, match="the server refused GAME: .*none.txt"):
        CaptiveClient.connect(str(host), int(port), ["rules/none.txt", "4"])
