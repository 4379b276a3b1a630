"""Riichi tables on a real server: a person plays a whole east game against built-in mjai
bots over the page's WebSocket while someone watches, and no state shows another seat's
concealed tiles; clicks the engine refuses say why and cost nothing; a program joins a
seat with ``referee connect riichi URL``; a person lets a built-in bot play for them and
takes the seat back; a person who leaves gets the pinch-hitter; the records (with their
mjai logs beside them) and the game's store replay OK."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from table_server import (
    Play,
    Server,
    asked,
    beside,
    module_server,
    next_message,
    settings_refused,
    sit_invited,
    together,
)
from tile_tables import board_files_served, own_hand_only

GAME = {"room": "tenhou", "length": "east", "person_turn": "60", "program_turn": "10"}
GREEDY = "bot:greedy"
TSUMOGIRI = "bot:tsumogiri"
GREEDY_PROGRAM = [sys.executable, "-m", "referee.games.riichi.bots.greedy"]


server = module_server("riichi")
"""The module's server."""


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
    own_hand_only(state, raw)


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


RIICHI = Play("riichi", hidden_kept, answer, paced=True)
"""A page's play: every state checked for hidden tiles, the answers ``answer``'s, paced
as the server allows a page (a Riichi game asks a person a few hundred times)."""


def test_a_person_plays_a_whole_game_and_a_spectator_sees_no_hidden_tile(
        server: Server) -> None:
    alice = server.person("alice")
    viewer = server.person("victor")
    table = alice.open_table("riichi", seat0="me", seat1=GREEDY, seat2=TSUMOGIRI,
                             seat3=GREEDY, **GAME)
    mine: list[dict[str, Any]] = []
    watched: list[dict[str, Any]] = []
    together(alice, viewer, table, lambda ws: RIICHI.play_out(ws, mine),
             lambda ws: RIICHI.watch_out(ws, watched))
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
    record = RIICHI.record(server, table)
    assert [p.name for p in record.players] == ["alice", "greedy", "tsumogiri", "greedy"]
    assert record.finished and record.outcome is not None and record.outcome.value == "normal"
    assert record.settings["points"] == final["scores"]
    assert record.settings["rules"]["game_length"] == "east"
    assert {move.seat for move in record.moves} == {0, 1, 2, 3}
    assert not record.faults and not any(m.info.get("default") for m in record.moves)
    assert (RIICHI.records(server) / record.settings["mjai_log"]).exists()
    assert alice.client.get(f"/tables/{table}/record").json()["moves"]
    RIICHI.replay_ok(RIICHI.records(server), server.data / "stores" / "riichi")


def test_refused_clicks_say_why_and_cost_nothing(server: Server) -> None:
    bob = server.person("bob")
    table = bob.open_table("riichi", seat0="me", seat1=TSUMOGIRI, seat2=TSUMOGIRI,
                           seat3=TSUMOGIRI, **GAME)

    async def game() -> tuple[list[str], dict[str, Any]]:
        reasons = []
        seen: list[dict[str, Any]] = []
        async with bob.socket(table) as ws:
            state = await RIICHI.state(ws, seen)
            while not (asked(state) and state["view"]["legal"]["tsumogiri"]):
                if asked(state):
                    await RIICHI.send(ws, answer(state["view"]))
                state = await RIICHI.state(ws, seen)
            view = state["view"]
            missing = next(name for name in ("1m", "9p", "E", "C", "5s", "2p", "7s")
                           if name not in view["hand"] and name != view["drawn"])
            for bad in ({"type": "dahai", "pai": missing, "tsumogiri": False},
                        {"type": "pon", "target": 1, "pai": "1m", "consumed": ["1m", "1m"]},
                        {"type": "none"}, {"type": "castle"}, {"pai": "1m"},
                        {"type": "dahai", "pai": "9x"}):
                await RIICHI.send(ws, bad)
                reasons.append((await next_message(ws, "refused"))["reason"])
            good = answer(view)
            await ws.send(json.dumps({"type": "move", "move": good}))  # (at once: no pace)
            await ws.send(json.dumps({"type": "move", "move": good}))  # (now out of turn)
            reasons.append((await next_message(ws, "refused"))["reason"])
            last = await RIICHI.play_out(ws, seen)
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
    record = RIICHI.record(server, table)
    assert record.outcome is not None and record.outcome.value == "normal"
    assert not record.faults and not any(m.info.get("default") for m in record.moves)


def test_a_program_joins_with_referee_connect_and_a_person_lets_a_bot_play_for_them(
        server: Server) -> None:
    carol = server.person("carol")
    table = carol.open_table("riichi", seat0="me", seat1="remote", seat2=TSUMOGIRI,
                             seat3=TSUMOGIRI, **GAME)
    joined = RIICHI.connect(RIICHI.join_url(carol, table, 2), 2, GREEDY_PROGRAM,
                            "--name", "far-greedy")

    async def game() -> dict[str, Any]:
        seen: list[dict[str, Any]] = []
        async with carol.socket(table) as ws:
            state = await RIICHI.state(ws, seen)
            while not asked(state):
                state = await RIICHI.state(ws, seen)
            await ws.send(json.dumps({"type": "deputy", "program": "greedy"}))
            for _ in range(30):  # greedy answers for carol: the game goes on without her
                state = await RIICHI.state(ws, seen)
            assert state["table"]["seats"][0]["deputy"]
            await ws.send(json.dumps({"type": "take-back"}))
            while state["table"]["status"] == "playing" and not asked(state):
                state = await RIICHI.state(ws, seen)
            assert not state["table"]["seats"][0]["deputy"]
            if state["table"]["status"] == "playing":
                await RIICHI.send(ws, answer(state["view"]))
            return await RIICHI.play_out(ws, seen)

    last, err = beside(joined, lambda: asyncio.run(game()))
    assert last["table"]["status"] == "finished", last
    assert joined.returncode == 0 and "the seat's game is over" in err, err
    record = RIICHI.record(server, table)
    assert [p.name for p in record.players] == ["carol", "far-greedy", "tsumogiri",
                                                "tsumogiri"]
    assert record.outcome is not None and record.outcome.value == "normal", record.reason
    notes = [n.text for n in record.notes if n.kind == "table"]
    assert notes[:2] == ["carol lets greedy play: greedy plays seat 1",
                         "carol plays seat 1 again"], notes
    assert not record.faults and not any(m.info.get("default") for m in record.moves)
    assert {m.seat for m in record.moves} == {0, 1, 2, 3}
    RIICHI.replay_ok(RIICHI.record_file(server, table))


quick_server = module_server("away", "--away", "1")
"""A server whose people's seats wait one second for them to come back."""


def test_a_person_who_leaves_gets_the_pinch_hitter(quick_server: Server) -> None:
    dave = quick_server.person("dave")
    erin = quick_server.person("erin")
    table = dave.open_table("riichi", seat0="me", seat1="open", seat2=TSUMOGIRI,
                            seat3=GREEDY, pinch_hit="on", **GAME)
    sit_invited(dave, erin, table, 1)

    async def game() -> dict[str, Any]:
        mine: list[dict[str, Any]] = []
        theirs: list[dict[str, Any]] = []
        async with dave.socket(table) as ws:
            async with erin.socket(table) as other:  # erin answers a few, then leaves
                task = asyncio.ensure_future(RIICHI.play_out(ws, mine))
                answered = 0
                while answered < 5:
                    state = await RIICHI.state(other, theirs)
                    if asked(state):
                        await RIICHI.send(other, answer(state["view"]))
                        answered += 1
            return await task

    last = asyncio.run(game())
    assert last["table"]["status"] == "finished", last
    record = RIICHI.record(quick_server, table)
    assert record.outcome is not None and record.outcome.value == "normal"
    notes = [n.text for n in record.notes if n.kind == "table"]
    assert any(n.startswith("erin left the table: greedy plays seat 2") for n in notes), notes
    assert not record.faults
    RIICHI.replay_ok(RIICHI.record_file(quick_server, table))


def test_bad_settings_are_refused_naming_the_field(server: Server) -> None:
    gus = server.person("gus")
    settings_refused(gus, "riichi", (
        ({"room": "kyoto"}, "Room: 'kyoto' is not one of tenhou, mahjong_soul, mjai_app"),
        ({"length": "west"}, "Game length: 'west' is not one of east, south"),
        ({"max_failures": "0"}, "Failures before a bot forfeits: 0 is outside 1..1000"),
    ), {"seat0": "me", "seat1": GREEDY, "seat2": GREEDY, "seat3": GREEDY})
    board_files_served(gus, "riichi")
