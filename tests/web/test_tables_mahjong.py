"""ICGA Mahjong tables on a real server: a person plays a whole game against three
built-in AIs over the page's WebSocket while someone watches, and neither state shows
another seat's concealed tiles; clicks the engine refuses say why and cost nothing; a
mixed table (two people, a built-in AI, a program joining with ``referee connect mahjong
URL``) where one person leaves mid-hand and the pinch-hitter (the framework's dummy AI)
plays on; a person lets a built-in AI play for them and takes the seat back; the games
land in the records and the game's store, which ``replay`` reads."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

from table_server import (
    Play,
    Server,
    module_server,
    next_message,
    settings_refused,
    sit_invited,
    together,
)
from tile_tables import board_files_served, own_hand_only

GAME = {"hands": "2", "scoring": "taiwan", "person_turn": "60", "program_turn": "10"}
RANDOM = "bot:random"


server = module_server("mahjong")
"""The module's server."""


def hidden_kept(state: dict[str, Any], raw: str) -> None:
    """Nothing of another seat's concealed tiles in ``state`` (received as ``raw``): no
    hand, drawn tile or concealed kong of another seat (the winner's hand once it has
    won is public), the seat's own hand only in its own state, legal answers only for
    the seat asked; spectators see every hand once the game is over (the table's
    ``reveal``), a seat never."""
    view, you = state["view"], state["you"]
    if you is None and view["over"]:
        return  # the game is over: the table shows spectators every hand (reveal after)
    result = view["result"]
    winner = result["winner"] if result else None
    for seat, row in enumerate(view["frame"]["s"]):
        if seat == you:
            continue
        if seat != winner:
            assert row[2] == "" and row[3] == "", (seat, raw[:400])
        assert all(meld[0] != "concealed kong" for meld in row[4]), raw[:400]
    own_hand_only(state, raw)


def answer(view: dict[str, Any]) -> dict[str, Any]:
    """A legal answer: win when one can, a pung or chow now and then, else pass; throw
    the drawn tile or the first one allowed."""
    legal = view["legal"]
    if legal["ask"] == "throw":
        tile = view["drawn"] if view["drawn"] in legal["throw"] else legal["throw"][0]
        return {"action": "throw", "tiles": [tile]}
    claims = {claim["action"]: claim for claim in legal["claims"]}
    pick = claims.get("win") or claims.get("pung") or claims.get("chow") or claims["pass"]
    return {"action": pick["action"], "tiles": pick["tiles"]}


MAHJONG = Play("mahjong", hidden_kept, answer)
"""A page's play: every state checked for hidden tiles, the answers ``answer``'s."""


def test_a_person_plays_a_whole_game_and_a_spectator_sees_no_hidden_tile(
        server: Server) -> None:
    alice = server.person("alice")
    viewer = server.person("victor")
    table = alice.open_table("mahjong", seat0="me", seat1=RANDOM, seat2="bot:greedy",
                             seat3=RANDOM, **GAME)
    mine: list[dict[str, Any]] = []
    watched: list[dict[str, Any]] = []
    together(alice, viewer, table, lambda ws: MAHJONG.play_out(ws, mine),
             lambda ws: MAHJONG.watch_out(ws, watched))
    last = mine[-1]
    assert last["table"]["status"] == "finished"
    assert watched[-1]["table"]["status"] == "finished"
    asked = [s for s in mine if "legal" in s["view"]]
    assert asked and {s["view"]["legal"]["ask"] for s in asked} >= {"throw"}
    assert all(s["view"]["legal"]["claims"] or s["view"]["legal"]["throw"] for s in asked)
    assert {s["view"]["number"] for s in mine} == {1, 2}
    assert any(s["view"]["last"] for s in mine)  # the first hand's result stays in sight
    walls = [s["view"]["wall"] for s in mine if s["view"]["number"] == 1]
    assert walls[0] > walls[-1] >= 0
    final = last["view"]
    assert final["over"] and final["result"] is not None
    if final["result"]["winner"] is not None:
        assert final["result"]["tai"] >= 0 and final["frame"]["x"]["l"][-1].endswith("points")
    record = MAHJONG.record(server, table)
    assert [p.name for p in record.players] == ["alice", "random", "greedy", "random"]
    assert record.finished and record.outcome is not None and record.outcome.value == "normal"
    assert record.scores == [float(t) for t in final["totals"]]
    assert len(record.settings["hands_played"]) == 2 and record.settings["scoring"] == "taiwan"
    assert {move.seat for move in record.moves} == {0, 1, 2, 3}
    assert not any(move.info.get("illegal") for move in record.moves)
    assert alice.client.get(f"/tables/{table}/record").json()["moves"]
    MAHJONG.replay_ok(MAHJONG.records(server), server.data / "stores" / "mahjong")


def test_refused_clicks_say_why_and_cost_nothing(server: Server) -> None:
    bob = server.person("bob")
    table = bob.open_table("mahjong", seat0="me", seat1=RANDOM, seat2=RANDOM, seat3=RANDOM,
                           hands="1", person_turn="60", program_turn="10")

    async def game() -> tuple[list[str], dict[str, Any]]:
        reasons = []
        seen: list[dict[str, Any]] = []
        async with bob.socket(table) as ws:
            state = await MAHJONG.state(ws, seen)
            while not ("legal" in state["view"] and state["view"]["legal"]["ask"] == "throw"):
                if "legal" in state["view"]:
                    await MAHJONG.send(ws, answer(state["view"]))
                state = await MAHJONG.state(ws, seen)
            view = state["view"]
            not_mine = next(t for t in range(110, 474)
                            if t not in view["hand"] and t != view["drawn"] and t % 10 < 4
                            and t // 10 % 10)
            for bad in ({"action": "throw", "tiles": [not_mine]}, {"action": "pass"},
                        {"action": "win"}, {"action": "throw", "tiles": ["5m"]},
                        {"action": "throw"}, {"action": "riichi"}, {"tiles": [1]}):
                await MAHJONG.send(ws, bad)
                reasons.append((await next_message(ws, "refused"))["reason"])
            good = answer(view)
            await MAHJONG.send(ws, good)
            await MAHJONG.send(ws, good)  # (now out of turn)
            reasons.append((await next_message(ws, "refused"))["reason"])
            last = await MAHJONG.play_out(ws, seen)
        return reasons, last

    reasons, last = asyncio.run(game())
    assert reasons[0] == f"tiles {reasons[0].split()[1]} are not all in the hand"
    assert reasons[1] == "a discard is required (/ask throw)"
    assert reasons[2] == "/hu answers /ask hu, not /ask throw"
    assert reasons[3] == reasons[4] == "throw names 1 tile(s) by their ids"
    assert reasons[5].startswith("expected an action: throw, chow, pung, kong")
    assert reasons[6] == reasons[5]
    assert reasons[7] == "it is not your turn"
    assert last["table"]["status"] == "finished"
    record = MAHJONG.record(server, table)
    assert record.outcome is not None and record.outcome.value == "normal"
    assert not record.faults and not any(move.info.get("illegal") for move in record.moves)


quick_server = module_server("away", "--away", "1")
"""A server whose people's seats wait one second for them to come back."""


def test_a_mixed_table_two_people_a_bot_a_program_and_the_pinch_hitter(
        quick_server: Server) -> None:
    carol = quick_server.person("carol")
    dave = quick_server.person("dave")
    table = carol.open_table("mahjong", seat0="me", seat1="open", seat2="bot:greedy",
                             seat3="remote", pinch_hit="on", **GAME)
    url = MAHJONG.join_url(carol, table, 4)
    wrong = subprocess.run([sys.executable, "-m", "referee.cli", "connect", "mahjong",
                            url.replace("?join=", "?join=x"), "--seat", "4",
                            "--sandbox", "off", "--", "greedy"],
                           capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2, wrong.stderr
    assert "refused" in wrong.stderr and "does not wait for this program" in wrong.stderr
    assert "Traceback" not in wrong.stderr
    joined = MAHJONG.connect(url, 4, ["greedy"], "--name", "far-greedy", "--sandbox", "off",
                             "--out", str(quick_server.data.parent / "far"))
    assert joined.stderr is not None
    said = [joined.stderr.readline() for _ in range(3)]
    assert "joined" in said[-1] and "as far-greedy, seat 4" in said[-1], said
    sit_invited(carol, dave, table, 1)  # (the table starts on the last of the two)

    async def game() -> dict[str, Any]:
        mine: list[dict[str, Any]] = []
        theirs: list[dict[str, Any]] = []
        async with carol.socket(table) as ws:
            async with dave.socket(table) as other:  # dave answers a few, then leaves
                async def dave_plays() -> None:
                    answered = 0
                    while answered < 3:
                        state = await MAHJONG.state(other, theirs)
                        if state["table"]["asking"] == 1 and "legal" in state["view"]:
                            await MAHJONG.send(other, answer(state["view"]))
                            answered += 1
                task = asyncio.ensure_future(MAHJONG.play_out(ws, mine))
                await dave_plays()
            return await task

    try:
        last = asyncio.run(game())
        _out, err = joined.communicate(timeout=120)
    finally:
        joined.kill()
    assert last["table"]["status"] == "finished", last
    assert joined.returncode == 0, err
    assert "the seat's game is over" in err and "Traceback" not in err
    record = MAHJONG.record(quick_server, table)
    assert [p.name for p in record.players] == ["carol", "dave", "greedy", "far-greedy"]
    assert record.outcome is not None and record.outcome.value == "normal"
    notes = [n.text for n in record.notes if n.kind == "table"]
    assert any(n.startswith("dave left the table: dummy plays seat 2") for n in notes), notes
    assert {move.seat for move in record.moves} == {0, 1, 2, 3}
    assert len(record.settings["hands_played"]) == 2
    MAHJONG.replay_ok(MAHJONG.record_file(quick_server, table))


def test_a_person_lets_an_ai_play_for_them_and_takes_the_seat_back(server: Server) -> None:
    erin = server.person("erin")
    table = erin.open_table("mahjong", seat0="me", seat1=RANDOM, seat2=RANDOM,
                            seat3=RANDOM, **GAME)

    async def game() -> dict[str, Any]:
        seen: list[dict[str, Any]] = []
        async with erin.socket(table) as ws:
            state = await MAHJONG.state(ws, seen)
            while "legal" not in state["view"]:
                state = await MAHJONG.state(ws, seen)
            await ws.send(json.dumps({"type": "deputy", "program": "greedy"}))
            moves = 0
            while moves < 8:  # greedy answers for erin: the game goes on without her
                state = await MAHJONG.state(ws, seen)
                moves += 1
            assert state["table"]["seats"][0]["deputy"]
            await ws.send(json.dumps({"type": "take-back"}))
            while True:  # asked again
                state = await MAHJONG.state(ws, seen)
                if state["table"]["asking"] == 0 or state["table"]["status"] != "playing":
                    break
            assert not state["table"]["seats"][0]["deputy"]
            if state["table"]["status"] == "playing":
                await MAHJONG.send(ws, answer(state["view"]))
            return await MAHJONG.play_out(ws, seen)

    last = asyncio.run(game())
    assert last["table"]["status"] == "finished"
    record = MAHJONG.record(server, table)
    notes = [n.text for n in record.notes if n.kind == "table"]
    assert notes[:2] == ["erin lets greedy play: greedy plays seat 1",
                         "erin plays seat 1 again"], notes
    assert record.outcome is not None and record.outcome.value == "normal"
    assert not record.faults
    MAHJONG.replay_ok(MAHJONG.record_file(server, table))


def test_a_program_whose_connection_is_lost_gets_the_dummy_ai_to_the_end(
        server: Server) -> None:
    fay = server.person("fay")
    table = fay.open_table("mahjong", seat0="me", seat1="remote", seat2=RANDOM,
                           seat3=RANDOM, **GAME)
    joined = MAHJONG.connect(MAHJONG.join_url(fay, table, 2), 2, ["random"], "--sandbox",
                             "off", "--out", str(server.data.parent / "lost"))

    async def game() -> dict[str, Any]:
        seen: list[dict[str, Any]] = []
        async with fay.socket(table) as ws:
            while True:
                state = await MAHJONG.state(ws, seen)
                if state["table"]["status"] != "playing":
                    return state
                if joined.poll() is None and state["view"]["frame"]["s"][1][5]:
                    joined.kill()  # the program has thrown: its connection is lost
                if state["table"]["asking"] == 0 and "legal" in state["view"]:
                    await MAHJONG.send(ws, answer(state["view"]))

    try:
        last = asyncio.run(game())
    finally:
        joined.kill()
        joined.communicate(timeout=30)
    assert last["table"]["status"] == "finished"
    record = MAHJONG.record(server, table)
    assert record.outcome is not None and record.outcome.value == "normal"
    taken = [n.text for n in record.notes if n.kind == "takeover-at"]
    assert taken and "the dummy AI plays for random-2 to the end of the game" in taken[0], \
        [(n.kind, n.text) for n in record.notes]
    assert record.faults and record.faults[0].seat == 1
    MAHJONG.replay_ok(MAHJONG.record_file(server, table))


def test_bad_settings_are_refused_naming_the_field(server: Server) -> None:
    gus = server.person("gus")
    settings_refused(gus, "mahjong", (
        ({"hands": "99"}, "Hands: 99 is outside 1..64"),
        ({"scoring": "riichi"}, "Tai table: 'riichi' is not one of icga, taiwan"),
        ({"per_tai": "-1"}, "Points per tai: -1 is outside 0..1000000"),
        ({"reserve": "x"}, "Reserved tiles: 'x' is not a whole number"),
    ), {"seat0": "me", "seat1": RANDOM, "seat2": RANDOM, "seat3": RANDOM})
    board_files_served(gus, "mahjong")
