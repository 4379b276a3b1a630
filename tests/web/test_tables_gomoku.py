"""Gomoku tables on a real server: a person plays a whole game against a built-in bot
over the page's WebSocket; clicks the engine refuses are refused with its reason and
cost nothing; only the seat's person moves it, in turn; a reload rejoins the seat; two
people share a table; the pinch-hitter fills an empty seat; bad messages disconnect the
page and harm nothing; the game lands in the records and the game's store, which
``replay`` and ``ratings`` read."""

from __future__ import annotations

import asyncio
import html
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from table_server import Person, Server, next_message, next_state, running_server

from referee.core.record import GameRecord

GAME = {"size": "9", "rule": "freestyle", "renju_judge": "rif", "person_turn": "60",
        "program_turn": "5", "pace": "0"}  # (a table of programs only: at their own speed)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the module's tests, on each database (a real PostgreSQL server's
    fresh database for the second)."""
    options: list[str] = []
    if request.param == "postgresql":
        options = ["--db", request.getfixturevalue("postgres").new_database()]
    with running_server(tmp_path_factory.mktemp("web") / "data", *options) as running:
        yield running


def free_point(view: dict[str, Any]) -> list[int]:
    """An empty point, the centre row first."""
    taken = {(x, y) for x, y, _ in view["stones"]}
    size = view["width"]
    order = [size // 2 + d * s for d in range(size) for s in (1, -1)]
    for y in dict.fromkeys(v for v in order if 0 <= v < size):
        for x in range(size):
            if (x, y) not in taken:
                return [x, y]
    raise AssertionError("the board is full")


async def my_turn(ws: Any) -> dict[str, Any]:
    """The next state in which this page's person is asked (or the game is over)."""
    while True:
        state = await next_state(ws)
        table = state["table"]
        if table["status"] != "playing" or table["asking"] == state["you"]:
            return state


async def play_out(ws: Any) -> dict[str, Any]:
    """Play legal points until the game ends; its last state."""
    while True:
        state = await my_turn(ws)
        if state["table"]["status"] != "playing":
            return state
        await ws.send(json.dumps({"type": "move", "move": {"point": free_point(state["view"])}}))


def test_a_person_plays_a_whole_game_against_a_bot_and_it_is_an_ordinary_record(
        server: Server, tmp_path: Path) -> None:
    alice = server.person("alice")
    table = alice.open_table("gomoku", seat0="me", seat1="bot:random", **GAME)

    async def game() -> dict[str, Any]:
        async with alice.socket(table) as ws:
            return await play_out(ws)

    last = asyncio.run(game())
    assert last["table"]["status"] == "finished"
    assert "alice" in last["table"]["result"] and "random" in last["table"]["result"]
    record_file = server.data / "records" / "gomoku" / f"game-{table}.json"
    record = GameRecord.read(record_file)
    assert [p.name for p in record.players] == ["alice", "random"]
    assert record.finished and len(record.moves) == len(last["view"]["stones"])
    assert record.settings["table_clocks"] == [  # a person's 60 s, a program's 5 s
        {"turn_ms": 60_000, "game_ms": None, "tolerance_ms": 1000},
        {"turn_ms": 5000, "game_ms": None, "tolerance_ms": 1000}]
    assert alice.client.get(f"/tables/{table}/record").json()["moves"]
    page = alice.client.get(f"/tables/{table}")
    assert page.status_code == 200 and "The game's record" in page.text
    lobby = alice.client.get("/lobby").text
    assert table in lobby.split('id="finished"')[1]
    for command in (["replay", "gomoku", str(record_file.parent)],
                    ["replay", "gomoku", str(server.data / "stores" / "gomoku")]):
        done = subprocess.run([sys.executable, "-m", "referee.cli", *command],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and "OK" in done.stdout, done.stdout + done.stderr


def test_a_refused_click_costs_nothing_and_says_why(server: Server) -> None:
    bob = server.person("bob")
    table = bob.open_table("gomoku", seat0="me", seat1="bot:random", **GAME)

    async def game() -> list[str]:
        reasons = []
        async with bob.socket(table) as ws:
            state = await my_turn(ws)
            point = free_point(state["view"])
            await ws.send(json.dumps({"type": "move", "move": {"point": point}}))
            state = await my_turn(ws)
            for bad in ({"point": point}, {"point": [40, 40]}, {"point": "h8"},
                        {"nothing": 1}):
                await ws.send(json.dumps({"type": "move", "move": bad}))
                reasons.append((await next_message(ws, "refused"))["reason"])
            await ws.send(json.dumps({"type": "move", "move": {"point": point}}))
            reasons.append((await next_message(ws, "refused"))["reason"])
            await ws.send("not json")
            reasons.append((await next_message(ws, "refused"))["reason"])
            good = free_point(state["view"])
            await ws.send(json.dumps({"type": "move", "move": {"point": good}}))
            after = await next_state(ws)  # (the bot's answer may come with it)
            assert [*good, state["view"]["colors"][0]] in after["view"]["stones"]
            assert after["view"]["stones"][:len(state["view"]["stones"])] == \
                state["view"]["stones"]
        return reasons

    reasons = asyncio.run(game())
    assert "already occupied" in reasons[0]
    assert "outside the 9x9 board" in reasons[1]
    assert "is not a point" in reasons[2]
    assert "expected a point" in reasons[3]
    assert "already occupied" in reasons[4]
    assert reasons[5] == "not a JSON message"


def test_only_the_seats_person_moves_it_and_only_in_turn(server: Server) -> None:
    carol = server.person("carol")
    dave = server.person("dave")
    fay = server.person("fay")  # sits at seat 2 and never moves: carol's turn does not
    table = carol.open_table("gomoku", seat0="me", seat1="open", **GAME)  # come back
    assert fay.post(f"/tables/{table}/sit", {"seat": "1"}, f"/tables/{table}"
                    ).status_code == 303

    async def game() -> None:
        async with carol.socket(table) as mine, dave.socket(table) as theirs:
            state = await my_turn(mine)
            assert state["you"] == 0 and "legal" in state["view"]
            watched = await next_state(theirs)
            assert watched["you"] is None and "legal" not in watched["view"]
            await theirs.send(json.dumps({"type": "move", "move": {"point": [0, 0]}}))
            assert (await next_message(theirs, "refused"))["reason"] == \
                "you do not sit at this table"
            await theirs.send(json.dumps({"type": "resign"}))
            assert (await next_message(theirs, "refused"))["reason"] == \
                "you do not sit at this table"
            await mine.send(json.dumps({"type": "move", "move": {"point": [4, 4]}}))
            await mine.send(json.dumps({"type": "move", "move": {"point": [5, 5]}}))
            assert (await next_message(mine, "refused"))["reason"] == "it is not your turn"
        async with carol.socket(table) as again:  # the newest state, as a reload has it
            state = await next_state(again)
            assert state["view"]["stones"] == [[4, 4, 1]] and state["table"]["to_play"] == 1

    asyncio.run(game())


def test_a_reload_rejoins_the_seat_with_the_whole_game(server: Server) -> None:
    erin = server.person("erin")
    table = erin.open_table("gomoku", seat0="me", seat1="bot:random", **GAME)

    async def game() -> None:
        async with erin.socket(table) as ws:
            state = await my_turn(ws)
            await ws.send(json.dumps({"type": "move", "move": {"point": free_point(
                state["view"])}}))
            state = await my_turn(ws)
        async with erin.socket(table) as again:
            back = await next_state(again)
            assert back["you"] == 0
            assert back["view"]["stones"] == state["view"]["stones"]
            assert back["table"]["asking"] == 0 and back["table"]["seats"][0]["present"]
            await again.send(json.dumps({"type": "move", "move": {"point": free_point(
                back["view"])}}))
            last = await play_out(again)
            assert last["table"]["status"] == "finished"

    asyncio.run(game())


def test_two_people_share_a_table(server: Server) -> None:
    frank = server.person("frank")
    grace = server.person("grace")
    table = frank.open_table("gomoku", seat0="me", seat1="open", **GAME)
    page = frank.client.get(f"/tables/{table}").text
    assert "invitation" in page  # the owner sees the open seat's invitation
    assert "invitation" not in grace.client.get(f"/tables/{table}").text
    assert grace.post(f"/tables/{table}/sit", {"seat": "1"}, f"/tables/{table}"
                      ).status_code == 303
    again = grace.post(f"/tables/{table}/sit", {"seat": "1"}, f"/tables/{table}")
    assert again.status_code == 409

    async def game() -> tuple[dict[str, Any], dict[str, Any]]:
        async with frank.socket(table) as one, grace.socket(table) as two:
            return await asyncio.gather(play_out(one), play_out(two))

    first, second = asyncio.run(game())
    assert first["table"]["status"] == second["table"]["status"] == "finished"
    record = GameRecord.read(server.data / "records" / "gomoku" / f"game-{table}.json")
    assert [p.name for p in record.players] == ["frank", "grace"]
    assert {move.seat for move in record.moves} == {0, 1}


def test_the_pinch_hitter_takes_the_seat_left_open(server: Server) -> None:
    heidi = server.person("heidi")
    table = heidi.open_table("gomoku", seat0="me", seat1="open", pinch_hit="on", **GAME)
    assert heidi.post(f"/tables/{table}/start", {}, f"/tables/{table}").status_code == 303

    async def game() -> dict[str, Any]:
        async with heidi.socket(table) as ws:
            return await play_out(ws)

    last = asyncio.run(game())
    assert last["table"]["seats"][1]["name"] == "threat (pinch-hitter)"
    record = GameRecord.read(server.data / "records" / "gomoku" / f"game-{table}.json")
    assert record.players[1].name == "threat" and record.players[1].command
    assert [(n.seat, n.kind, n.text) for n in record.notes if n.kind == "table"] == [
        (1, "table", "the seat was empty at the start: threat pinch-hits seat 2")]


def test_resigning_loses_the_game(server: Server) -> None:
    ivan = server.person("ivan")
    table = ivan.open_table("gomoku", seat0="me", seat1="bot:random", **GAME)

    async def game() -> dict[str, Any]:
        async with ivan.socket(table) as ws:
            await my_turn(ws)
            await ws.send(json.dumps({"type": "resign"}))
            while True:
                state = await next_state(ws)
                if state["table"]["status"] != "playing":
                    return state

    last = asyncio.run(game())
    record = GameRecord.read(server.data / "records" / "gomoku" / f"game-{table}.json")
    assert record.outcome is not None and record.outcome.value == "resigned"
    assert record.scores == [0.0, 1.0] and record.offender == 0
    assert "resigned" in last["table"]["result"]


def test_bad_pages_are_disconnected_and_harm_nothing(server: Server) -> None:
    judy = server.person("judy")
    table = judy.open_table("gomoku", seat0="me", seat1="bot:random", **GAME)

    async def game() -> list[int]:
        codes = []
        async with judy.socket(table) as ws:
            await my_turn(ws)
            await ws.send("x" * 10_000)
            with pytest.raises(Exception):  # noqa: B017  (the close, as websockets raises it)
                while True:
                    await ws.recv()
            codes.append(ws.close_code)
        async with judy.socket(table) as ws:
            await next_state(ws)
            for _ in range(500):
                await ws.send(json.dumps({"type": "take-back"}))
            with pytest.raises(Exception):  # noqa: B017
                while True:
                    await ws.recv()
            codes.append(ws.close_code)
        async with judy.socket(table, origin="http://evil.example") as ws:
            with pytest.raises(Exception):  # noqa: B017
                await ws.recv()
            codes.append(ws.close_code)
        async with judy.socket(table) as ws:  # the table is as it was
            state = await my_turn(ws)
            assert state["table"]["status"] == "playing" and not state["view"]["stones"]
        return codes

    try:
        codes = asyncio.run(game())
    except Exception as exc:  # a refused handshake is an error of its own
        if "evil" not in str(exc) and "403" not in str(exc):
            raise
        codes = [1009, 1008, 1008]
    assert codes[:2] == [1009, 1008]
    assert judy.client.get("/lobby").status_code == 200
    assert "Traceback" not in server.log()


def test_forms_need_their_csrf_field_and_a_login(server: Server) -> None:
    kim = server.person("kim")
    refused = kim.client.post("/tables", data={"game": "gomoku", "seat0": "me",
                                               "seat1": "bot:random"})
    assert refused.status_code == 403
    stranger = Person(server, "nobody")
    answer = stranger.client.get("/tables/new?game=gomoku")
    assert answer.status_code in (302, 303, 307) and "/login" in answer.headers["location"]
    bad = kim.post("/tables", {"game": "gomoku", "size": "99", "seat0": "me",
                               "seat1": "bot:random"}, "/tables/new?game=gomoku")
    assert bad.status_code == 400 and "Board size: 99 is outside 5..32" in bad.text
    assert kim.client.get("/tables/new?game=chess").status_code == 404
    assert kim.client.get("/tables/nope").status_code == 404


def test_a_program_joins_over_the_network_with_referee_connect(server: Server) -> None:
    lee = server.person("lee")
    table = lee.open_table("gomoku", seat0="me", seat1="remote", **GAME)
    page = lee.client.get(f"/tables/{table}").text
    found = re.search(r"referee connect gomoku (\S+) --seat 2 -- COMMAND", page)
    assert found, page
    url = html.unescape(found.group(1))
    assert "?join=" in url
    wrong = subprocess.run([sys.executable, "-m", "referee.cli", "connect", "gomoku",
                            url.replace("?join=", "?join=x"), "--seat", "2", "--",
                            sys.executable, "-m", "referee.games.gomoku.bots.random_brain"],
                           capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2, wrong.stderr
    assert "does not wait for this program" in wrong.stderr
    assert "Traceback" not in wrong.stderr
    joined = subprocess.Popen([sys.executable, "-m", "referee.cli", "connect", "gomoku", url,
                               "--seat", "2", "--name", "far-random", "--",
                               sys.executable, "-m", "referee.games.gomoku.bots.random_brain"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    async def game() -> dict[str, Any]:
        async with lee.socket(table) as ws:
            return await play_out(ws)

    try:
        last = asyncio.run(game())
        _out, err = joined.communicate(timeout=60)
    finally:
        joined.kill()
    assert last["table"]["status"] == "finished", last
    assert joined.returncode == 0, err
    assert "the seat's game is over" in err
    record = GameRecord.read(server.data / "records" / "gomoku" / f"game-{table}.json")
    assert [p.name for p in record.players] == ["lee", "far-random"]
    assert record.outcome is not None and record.outcome.value == "normal"
    assert any(move.seat == 1 for move in record.moves)


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose people's seats wait one second for them to come back."""
    with running_server(tmp_path_factory.mktemp("away") / "data", "--away", "1") as running:
        yield running


def test_a_person_who_leaves_hands_the_seat_to_the_pinch_hitter(quick_server: Server) -> None:
    mia = quick_server.person("mia")
    table = mia.open_table("gomoku", seat0="me", seat1="bot:random", pinch_hit="on", **GAME)
    watcher = quick_server.person("ned")

    async def game() -> dict[str, Any]:
        async with mia.socket(table) as ws:
            state = await my_turn(ws)
            await ws.send(json.dumps({"type": "move", "move": {"point": free_point(
                state["view"])}}))
            await my_turn(ws)
        async with watcher.socket(table) as ws:  # mia's page is closed: she has left
            while True:
                state = await next_state(ws)
                if state["table"]["status"] != "playing":
                    return state

    last = asyncio.run(game())
    record = GameRecord.read(quick_server.data / "records" / "gomoku" / f"game-{table}.json")
    notes = [n.text for n in record.notes if n.kind == "table"]
    assert notes and notes[0].startswith("mia left the table: threat plays seat 1"), notes
    assert record.outcome is not None and record.outcome.value == "normal"
    assert len(record.moves) > 3 and last["table"]["status"] == "finished"
    assert "mia left the table" in " ".join(last["table"]["notes"])


def test_a_person_who_leaves_without_a_pinch_hitter_loses(quick_server: Server) -> None:
    olga = quick_server.person("olga")
    table = olga.open_table("gomoku", seat0="me", seat1="bot:random", **GAME)

    async def game() -> None:
        async with olga.socket(table) as ws:
            await my_turn(ws)

    asyncio.run(game())
    path = quick_server.data / "records" / "gomoku" / f"game-{table}.json"
    for _ in range(100):
        if path.exists():
            break
        time.sleep(0.1)
    record = GameRecord.read(path)
    assert record.outcome is not None and record.outcome.value == "left"
    assert record.offender == 0 and record.scores == [0.0, 1.0]


def test_a_person_lets_a_program_play_for_them_and_takes_the_seat_back(
        server: Server) -> None:
    pat = server.person("pat")
    table = pat.open_table("gomoku", seat0="me", seat1="bot:random", **GAME)

    async def game() -> dict[str, Any]:
        async with pat.socket(table) as ws:
            await my_turn(ws)
            await ws.send(json.dumps({"type": "deputy", "program": "chess-engine"}))
            assert "neither a built-in bot nor a program of yours" in (
                await next_message(ws, "refused"))["reason"]
            await ws.send(json.dumps({"type": "deputy", "program": "random"}))
            while True:  # random plays seat 1 for pat: moves come without pat
                state = await next_state(ws)
                if state["table"]["seats"][0]["deputy"] and len(state["view"]["stones"]) >= 4:
                    break
            await ws.send(json.dumps({"type": "take-back"}))
            state = await my_turn(ws)  # asked again
            assert not state["table"]["seats"][0]["deputy"]
            await ws.send(json.dumps({"type": "resign"}))
            while state["table"]["status"] == "playing":
                state = await next_state(ws)
            return state

    last = asyncio.run(game())
    record = GameRecord.read(server.data / "records" / "gomoku" / f"game-{table}.json")
    notes = [n.text for n in record.notes if n.kind == "table"]
    assert notes[0] == "pat lets random play: random plays seat 1", notes
    assert notes[1] == "pat plays seat 1 again"
    assert record.outcome is not None and record.outcome.value == "resigned"
    assert last["table"]["status"] == "finished"


def test_a_registered_program_takes_a_seat_and_plays_for_its_owner(server: Server) -> None:
    quinn = server.person("quinn")
    added = subprocess.run(
        [sys.executable, "-m", "referee.cli", "web", "program", "add", "quinn-bot", "--game",
         "gomoku", "--owner", "quinn", "--data", str(server.data), *server.db_options, "--",
         sys.executable, "-m",
         "referee.games.gomoku.bots.random_brain"], capture_output=True, text=True, timeout=60)
    assert added.returncode == 0, added.stderr
    table = quinn.open_table("gomoku", seat0="program:quinn-bot", seat1="bot:random", **GAME)
    mine = quinn.open_table("gomoku", seat0="me", seat1="bot:random", **GAME)
    assert 'value="quinn-bot"' in quinn.client.get(f"/tables/{mine}").text

    async def game() -> None:
        async with quinn.socket(mine) as ws:
            await my_turn(ws)
            await ws.send(json.dumps({"type": "deputy", "program": "quinn-bot"}))
            while (await next_state(ws))["table"]["status"] == "playing":
                pass

    asyncio.run(game())
    folder = server.data / "records" / "gomoku"
    for _ in range(200):
        if (folder / f"game-{table}.json").exists():
            break
        time.sleep(0.1)
    record = GameRecord.read(folder / f"game-{table}.json")
    assert record.players[0].name == "quinn-bot" and record.finished
    helped = GameRecord.read(folder / f"game-{mine}.json")
    assert "quinn lets quinn-bot play: quinn-bot plays seat 1" in [n.text for n in helped.notes]
    other = server.person("rob")
    theirs = other.open_table("gomoku", seat0="me", seat1="bot:random", **GAME)
    assert 'value="quinn-bot"' not in other.client.get(f"/tables/{theirs}").text


def test_a_table_that_reveals_nothing_gives_its_record_to_its_players_only(
        server: Server) -> None:
    sam = server.person("sam")
    table = sam.open_table("gomoku", seat0="me", seat1="bot:random", reveal="never", **GAME)

    async def game() -> None:
        async with sam.socket(table) as ws:
            await my_turn(ws)
            await ws.send(json.dumps({"type": "resign"}))
            while (await next_state(ws))["table"]["status"] == "playing":
                pass

    asyncio.run(game())
    assert sam.client.get(f"/tables/{table}/record").status_code == 200
    assert server.person("tom").client.get(f"/tables/{table}/record").status_code == 403
    assert Person(server, "anyone").client.get(f"/tables/{table}/record").status_code == 403


@pytest.fixture(scope="module")
def small_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server that holds at most 20 WebSockets of one address."""
    with running_server(tmp_path_factory.mktemp("small") / "data",
                        "--max-sockets-per-address", "20") as running:
        yield running


def test_connections_past_the_limit_are_refused_with_the_reason(small_server: Server) -> None:
    una = small_server.person("una")
    table = una.open_table("gomoku", seat0="me", seat1="bot:random", **GAME)

    async def flood() -> tuple[list[int | None], int]:
        held = [await una.socket(table).__aenter__() for _ in range(20)]
        refused = []
        for _ in range(5):
            async with una.socket(table) as extra:
                with pytest.raises(websockets.ConnectionClosed):
                    while True:
                        await extra.recv()
                refused.append(extra.close_code)
                assert "connections" in (extra.close_reason or "")
        for ws in held[:10]:
            await ws.close()
        await asyncio.sleep(0.5)
        async with una.socket(table) as again:  # room again once some closed
            state = await next_state(again)
        for ws in held[10:]:
            await ws.close()
        return refused, len(state["view"]["stones"])

    refused, stones = asyncio.run(flood())
    assert refused == [1013] * 5 and stones == 0
    assert "refused: it holds 20" in small_server.log()
    assert una.client.get("/lobby").status_code == 200
