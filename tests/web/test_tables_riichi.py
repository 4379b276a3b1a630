"""Riichi tables on a real server: a person plays a whole east game against built-in mjai
bots over the page's WebSocket while someone watches, and no state shows another seat's
concealed tiles; clicks the engine refuses say why and cost nothing; a program joins a
seat with ``referee connect riichi URL``; a person lets a built-in bot play for them and
takes the seat back; a person who leaves gets the pinch-hitter; the records (with their
mjai logs beside them) and the game's store replay OK."""

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
from table_server import Server, next_message, running_server

from referee.core.record import GameRecord

GAME = {"room": "tenhou", "length": "east", "person_turn": "60", "program_turn": "10"}
GREEDY = "bot:greedy"
TSUMOGIRI = "bot:tsumogiri"
GREEDY_PROGRAM = [sys.executable, "-m", "referee.games.riichi.bots.greedy"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("riichi") / "data") as running:
        yield running


def hidden_kept(state: dict[str, Any], raw: str) -> None:
    """Nothing of another seat's concealed tiles in ``state`` (received as ``raw``): no
    hand or drawn tile of another seat (a winner's, once won, is public), the seat's own
    hand only in its own state, legal answers only for the seat asked; spectators see
    every hand once the game is over (the table reveals it then), a seat never."""
    view, you = state["view"], state["you"]
    if you is None and view["over"]:
        return
    winners = {i for i, d in enumerate(view["result"]["d"]) if d > 0} if view["result"] \
        else set()
    for seat, row in enumerate(view["frame"]["s"]):
        if seat != you and seat not in winners:
            assert row[2] == "" and row[3] == "", (seat, raw[:600])
    if view["last"]:
        assert len(view["last"]["hands"]) == len(view["last"]["winners"])
    if you is None:
        assert '"hand"' not in raw and '"legal"' not in raw and '"drawn"' not in raw
    else:
        assert len(view["hand"]) + (view["drawn"] is not None) == view["held"][you]
    if "legal" in view:
        assert state["table"]["asking"] == you or state["table"]["to_play"] == you


async def states(ws: Any, seen: list[dict[str, Any]], timeout: float = 60) -> dict[str, Any]:
    """The next state, checked for hidden tiles and kept in ``seen``."""
    while True:
        raw = await asyncio.wait_for(ws.recv(), timeout)
        message = json.loads(raw)
        if message["type"] == "state":
            hidden_kept(message, raw)
            seen.append(message)
            return message  # type: ignore[no-any-return]


def answer(view: dict[str, Any]) -> dict[str, Any]:
    """A legal answer: win when one can, riichi or pon when offered, else pass; discard
    the drawn tile when allowed, else the first tile allowed."""
    legal = view["legal"]
    calls = {call["name"]: call for call in legal["calls"]}
    for name in ("tsumo", "ron", "riichi", "pon"):
        if name in calls:
            return calls[name]["move"]  # type: ignore[no-any-return]
    if legal["tsumogiri"]:
        return {"type": "dahai", "pai": view["drawn"], "tsumogiri": True}
    if legal["discard"]:
        return {"type": "dahai", "pai": legal["discard"][0], "tsumogiri": False}
    return calls["pass"]["move"]  # type: ignore[no-any-return]


def asked(state: dict[str, Any]) -> bool:
    return state["table"]["asking"] == state["you"] and "legal" in state["view"]


PACE = 0.055
"""Seconds a test's person waits before each answer: a page may send 20 messages a
second (the server cuts a flood), and a Riichi game asks a person a few hundred times."""


async def send_move(ws: Any, move: dict[str, Any]) -> None:
    """Send a move as a person's page does, at a person's pace."""
    await asyncio.sleep(PACE)
    await ws.send(json.dumps({"type": "move", "move": move}))


async def play_out(ws: Any, seen: list[dict[str, Any]]) -> dict[str, Any]:
    """Answer every question of this page's seat until the game ends; its last state."""
    while True:
        state = await states(ws, seen)
        if state["table"]["status"] != "playing":
            return state
        if asked(state):
            await send_move(ws, answer(state["view"]))


async def watch_out(ws: Any, seen: list[dict[str, Any]]) -> dict[str, Any]:
    """Every state a spectator gets until the game ends."""
    while True:
        state = await states(ws, seen)
        if state["table"]["status"] != "playing":
            return state


def replay_ok(*paths: Path) -> None:
    """``referee replay riichi PATH`` says OK for each."""
    for path in paths:
        done = subprocess.run([sys.executable, "-m", "referee.cli", "replay", "riichi",
                               str(path)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and "OK" in done.stdout and "FAIL" not in done.stdout, \
            done.stdout + done.stderr


def wait_record(server: Server, table: str) -> GameRecord:
    path = server.data / "records" / "riichi" / f"game-{table}.json"
    for _ in range(300):
        if path.exists():
            break
        time.sleep(0.1)
    return GameRecord.read(path)


def test_a_person_plays_a_whole_game_and_a_spectator_sees_no_hidden_tile(
        server: Server) -> None:
    alice = server.person("alice")
    viewer = server.person("victor")
    table = alice.open_table("riichi", seat0="me", seat1=GREEDY, seat2=TSUMOGIRI,
                             seat3=GREEDY, **GAME)

    async def game() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        mine: list[dict[str, Any]] = []
        watched: list[dict[str, Any]] = []
        async with alice.socket(table) as ws, viewer.socket(table) as spectator:
            await asyncio.gather(play_out(ws, mine), watch_out(spectator, watched))
        return mine, watched

    mine, watched = asyncio.run(game())
    last = mine[-1]
    assert last["table"]["status"] == "finished"
    assert watched[-1]["table"]["status"] == "finished"
    questions = [s["view"]["legal"] for s in mine if "legal" in s["view"]]
    assert questions and all(q["discard"] or q["tsumogiri"] or q["calls"] for q in questions)
    assert any(q["tsumogiri"] for q in questions)
    assert all(c["name"] != "pass" or not (q["discard"] or q["tsumogiri"])
               for q in questions for c in q["calls"])  # a pass only in a claim window
    hands = {s["view"]["hand_number"] for s in mine}
    assert len(hands) >= 4 and min(hands) == 1
    assert any(s["view"]["last"] for s in mine)  # the hand before stays in sight
    walls = [s["view"]["wall"] for s in mine if s["view"]["hand_number"] == 1]
    assert walls[0] > walls[-1] >= 0
    final = last["view"]
    assert final["over"] and "Game over:" in final["result"]["l"]
    results = [s["view"]["last"]["result"] for s in mine if s["view"]["last"]]
    wins = [r for r in results if "wins" in r["h"]]
    assert all(any(line.endswith(" han") for line in r["l"]) for r in wins)  # the yaku
    record = wait_record(server, table)
    assert [p.name for p in record.players] == ["alice", "greedy", "tsumogiri", "greedy"]
    assert record.finished and record.outcome is not None and record.outcome.value == "normal"
    assert record.settings["points"] == final["scores"]
    assert record.settings["rules"]["game_length"] == "east"
    assert {move.seat for move in record.moves} == {0, 1, 2, 3}
    assert not record.faults and not any(m.info.get("default") for m in record.moves)
    assert (record_folder(server) / record.settings["mjai_log"]).exists()
    assert alice.client.get(f"/tables/{table}/record").json()["moves"]
    replay_ok(record_folder(server), server.data / "stores" / "riichi")


def record_folder(server: Server) -> Path:
    return server.data / "records" / "riichi"


def test_refused_clicks_say_why_and_cost_nothing(server: Server) -> None:
    bob = server.person("bob")
    table = bob.open_table("riichi", seat0="me", seat1=TSUMOGIRI, seat2=TSUMOGIRI,
                           seat3=TSUMOGIRI, **GAME)

    async def game() -> tuple[list[str], dict[str, Any]]:
        reasons = []
        seen: list[dict[str, Any]] = []
        async with bob.socket(table) as ws:
            state = await states(ws, seen)
            while not (asked(state) and state["view"]["legal"]["tsumogiri"]):
                if asked(state):
                    await send_move(ws, answer(state["view"]))
                state = await states(ws, seen)
            view = state["view"]
            missing = next(name for name in ("1m", "9p", "E", "C", "5s", "2p", "7s")
                           if name not in view["hand"] and name != view["drawn"])
            for bad in ({"type": "dahai", "pai": missing, "tsumogiri": False},
                        {"type": "pon", "target": 1, "pai": "1m", "consumed": ["1m", "1m"]},
                        {"type": "none"}, {"type": "castle"}, {"pai": "1m"},
                        {"type": "dahai", "pai": "9x"}):
                await send_move(ws, bad)
                reasons.append((await next_message(ws, "refused"))["reason"])
            good = answer(view)
            await ws.send(json.dumps({"type": "move", "move": good}))
            await ws.send(json.dumps({"type": "move", "move": good}))  # (now out of turn)
            reasons.append((await next_message(ws, "refused"))["reason"])
            last = await play_out(ws, seen)
        return reasons, last

    reasons, last = asyncio.run(game())
    assert reasons[0].endswith(" is not in the hand"), reasons
    assert reasons[1].startswith("pon is not possible now (possible: dahai")
    assert reasons[2].startswith("none is not possible now (possible: dahai")
    assert reasons[3] == "unknown action type 'castle'"
    assert reasons[4] == "unknown action type None"
    assert reasons[5] == "'9x' is not an mjai tile name"
    assert reasons[6] == "it is not your turn"
    assert last["table"]["status"] == "finished"
    record = wait_record(server, table)
    assert record.outcome is not None and record.outcome.value == "normal"
    assert not record.faults and not any(m.info.get("default") for m in record.moves)


def test_a_program_joins_with_referee_connect_and_a_person_lets_a_bot_play_for_them(
        server: Server) -> None:
    carol = server.person("carol")
    table = carol.open_table("riichi", seat0="me", seat1="remote", seat2=TSUMOGIRI,
                             seat3=TSUMOGIRI, **GAME)
    page = carol.client.get(f"/tables/{table}").text
    found = re.search(r"referee connect riichi (\S+) --seat 2 -- COMMAND", page)
    assert found, page
    joined = subprocess.Popen([sys.executable, "-m", "referee.cli", "connect", "riichi",
                               html.unescape(found.group(1)), "--seat", "2", "--name",
                               "far-greedy", "--", *GREEDY_PROGRAM],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    async def game() -> dict[str, Any]:
        seen: list[dict[str, Any]] = []
        async with carol.socket(table) as ws:
            state = await states(ws, seen)
            while not asked(state):
                state = await states(ws, seen)
            await ws.send(json.dumps({"type": "deputy", "program": "greedy"}))
            for _ in range(30):  # greedy answers for carol: the game goes on without her
                state = await states(ws, seen)
            assert state["table"]["seats"][0]["deputy"]
            await ws.send(json.dumps({"type": "take-back"}))
            while state["table"]["status"] == "playing" and not asked(state):
                state = await states(ws, seen)
            assert not state["table"]["seats"][0]["deputy"]
            if state["table"]["status"] == "playing":
                await send_move(ws, answer(state["view"]))
            return await play_out(ws, seen)

    try:
        last = asyncio.run(game())
        _out, err = joined.communicate(timeout=60)
    finally:
        joined.kill()
    assert last["table"]["status"] == "finished", last
    assert joined.returncode == 0 and "the seat's game is over" in err, err
    record = wait_record(server, table)
    assert [p.name for p in record.players] == ["carol", "far-greedy", "tsumogiri",
                                                "tsumogiri"]
    assert record.outcome is not None and record.outcome.value == "normal", record.reason
    notes = [n.text for n in record.notes if n.kind == "table"]
    assert notes[:2] == ["carol lets greedy play: greedy plays seat 1",
                         "carol plays seat 1 again"], notes
    assert not record.faults and not any(m.info.get("default") for m in record.moves)
    assert {m.seat for m in record.moves} == {0, 1, 2, 3}
    replay_ok(record_folder(server) / f"game-{table}.json")


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose people's seats wait one second for them to come back."""
    with running_server(tmp_path_factory.mktemp("away") / "data", "--away", "1") as running:
        yield running


def test_a_person_who_leaves_gets_the_pinch_hitter(quick_server: Server) -> None:
    dave = quick_server.person("dave")
    erin = quick_server.person("erin")
    table = dave.open_table("riichi", seat0="me", seat1="open", seat2=TSUMOGIRI,
                            seat3=GREEDY, pinch_hit="on", **GAME)
    page = dave.client.get(f"/tables/{table}").text
    invite = re.search(r"invite=([\w-]+)", page)
    assert invite
    sat = erin.post(f"/tables/{table}/sit", {"seat": "1", "invite": invite.group(1)},
                    f"/tables/{table}")
    assert sat.status_code == 303

    async def game() -> dict[str, Any]:
        mine: list[dict[str, Any]] = []
        theirs: list[dict[str, Any]] = []
        async with dave.socket(table) as ws:
            async with erin.socket(table) as other:  # erin answers a few, then leaves
                task = asyncio.ensure_future(play_out(ws, mine))
                answered = 0
                while answered < 5:
                    state = await states(other, theirs)
                    if asked(state):
                        await send_move(other, answer(state["view"]))
                        answered += 1
            return await task

    last = asyncio.run(game())
    assert last["table"]["status"] == "finished", last
    record = wait_record(quick_server, table)
    assert record.outcome is not None and record.outcome.value == "normal"
    notes = [n.text for n in record.notes if n.kind == "table"]
    assert any(n.startswith("erin left the table: greedy plays seat 2") for n in notes), notes
    assert not record.faults
    replay_ok(quick_server.data / "records" / "riichi" / f"game-{table}.json")


def test_bad_settings_are_refused_naming_the_field(server: Server) -> None:
    gus = server.person("gus")
    seats = {"seat0": "me", "seat1": GREEDY, "seat2": GREEDY, "seat3": GREEDY}
    for form, words in (({"room": "kyoto"}, "Room: 'kyoto' is not one of tenhou, "
                                            "mahjong_soul, mjai_app"),
                        ({"length": "west"}, "Game length: 'west' is not one of east, south"),
                        ({"max_failures": "0"}, "Failures before a bot forfeits: 0 is "
                                                "outside 1..1000")):
        bad = gus.post("/tables", {"game": "riichi", **seats, **form},
                       "/tables/new?game=riichi")
        assert bad.status_code == 400 and words in html.unescape(bad.text), bad.text[-800:]
    board = gus.client.get("/games/riichi/board.js")
    assert board.status_code == 200 and "/static/report/tiles.js" in board.text
    assert gus.client.get("/games/riichi/board.css").status_code == 200
