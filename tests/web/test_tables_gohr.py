"""GOHR tables on a real server: a person plays a whole series of boards over the page's
WebSocket while someone watches, every answer the rule's, and no state shows the rule or
which buckets would take a piece until the game is over; refused clicks say why and cost
nothing; a built-in player, a person's program taking the seat over, and a program
joining with ``referee connect gohr`` play as with the captive server; bad settings are
refused naming the field; the records read back and ``referee replay gohr`` says OK."""

from __future__ import annotations

import asyncio
import html
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from table_server import Server, next_message, next_state, running_server

from referee.core.record import GameRecord
from referee.games.gohr.table_engine import Attempt, GohrSeries, NextBoard
from referee.games.gohr.table_setup import record_boards, record_rules
from referee.games.gohr.web_table import DRIVER

CLOCKS = {"person_turn": "60", "program_turn": "5"}
COLOR_BUCKET = {"RED": 0, "BLUE": 1, "BLACK": 2, "YELLOW": 3}
"""The example rule set 'colors'."""
TWO = json.dumps({"value": [{"id": 0, "color": "RED", "shape": "STAR", "x": 1, "y": 1},
                            {"id": 1, "color": "BLUE", "shape": "SQUARE", "x": 6, "y": 6}]})
RANDOM_BOT = [sys.executable, "-m", "referee.games.gohr.bots.random_bot"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("web") / "data") as running:
        yield running


def record_path(server: Server, table: str) -> Path:
    return server.data / "records" / "gohr" / f"game-{table}.json"


def replay_ok(path: Path) -> str:
    done = subprocess.run([sys.executable, "-m", "referee.cli", "replay", "gohr", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "OK" in done.stdout, done.stdout + done.stderr
    return done.stdout


class Learner:
    """A player that never repeats a refused attempt on a board that did not change."""

    def __init__(self) -> None:
        self.tried: set[tuple[int, int]] = set()
        self.seen = -1

    def move(self, view: dict[str, Any]) -> dict[str, Any]:
        if view["end"]:
            return {"new": True}
        last = view["last"]
        if last is not None and view["total_moves"] != self.seen:
            self.seen = view["total_moves"]
            if last["result"] == "accepted":
                self.tried.clear()
            else:
                self.tried |= {(last["piece"]["id"], b) for b in range(4)} \
                    if last["result"] == "immovable" else {(last["piece"]["id"],
                                                            last["bucket"])}
        for piece in view["legal"]["pieces"]:
            for bucket in range(4):
                if (piece, bucket) not in self.tried:
                    return {"piece": piece, "bucket": bucket}
        raise AssertionError(f"nothing left to try: {view}")


async def collect(ws: Any, into: list[str], me: int | None, act: bool) -> dict[str, Any]:
    """Every state (raw) into ``into``; with ``act``, the learner's move whenever asked;
    the last state (the game over)."""
    player = Learner()
    while True:
        raw = await asyncio.wait_for(ws.recv(), 30)
        message = json.loads(raw)
        if message["type"] != "state":
            continue
        into.append(raw)
        table = message["table"]
        if table["status"] != "playing":
            return message  # type: ignore[no-any-return]
        if act and table["asking"] == me and "legal" in message["view"]:
            await ws.send(json.dumps({"type": "move", "move": player.move(message["view"])}))


async def my_turn(ws: Any) -> dict[str, Any]:
    """The next state that asks seat 0 to move (or the game's last)."""
    while True:
        state = await next_state(ws)
        if state["table"]["asking"] == 0 or state["table"]["status"] != "playing":
            return state


def check_hidden(raws: list[str], rules_text: str) -> int:
    """No state shows the rule set (but the spectators' once the game is over) nor which
    buckets a piece may go to (the captive server's JSON lists them for programs); every
    answer shown is the colors rule's: how many states were checked."""
    rows = [line for line in rules_text.splitlines() if line and not line.startswith("#")]
    for raw in raws:
        state = json.loads(raw)
        view = state["view"]
        if "rules" in view:
            assert state["you"] is None and view["over"] and view["rules"] == rules_text
        else:
            assert not any(row in raw for row in rows) and "red,*" not in raw
        for piece in view["pieces"] + [p for b in view["bins"] for p in b]:
            assert set(piece) == {"id", "x", "y", "color", "shape"}, piece
        for bucket, pieces in enumerate(view["bins"]):
            assert all(COLOR_BUCKET[p["color"]] == bucket for p in pieces)
        last = view["last"]
        if last is not None:
            right = COLOR_BUCKET[last["piece"]["color"]] == last["bucket"]
            assert last["result"] == ("accepted" if right else "denied"), last
        if "legal" in view:
            assert state["you"] == 0 and view["legal"]["buckets"] == [0, 1, 2, 3]
    return len(raws)


def test_a_person_plays_a_whole_game_and_sees_no_rule(server: Server) -> None:
    alice = server.person("alice")
    bob = server.person("bob")
    table = alice.open_table("gohr", seat0="me", rules="colors", pieces="4", episodes="2",
                             **CLOCKS)
    mine: list[str] = []
    watched: list[str] = []

    async def game() -> tuple[dict[str, Any], dict[str, Any]]:
        async with alice.socket(table) as player, bob.socket(table) as watcher:
            return await asyncio.gather(collect(player, mine, 0, True),
                                        collect(watcher, watched, None, False))

    last, seen = asyncio.run(game())
    assert last["table"]["status"] == seen["table"]["status"] == "finished"
    record = GameRecord.read(record_path(server, table))
    assert [p.name for p in record.players] == ["alice"]
    assert record.outcome is not None and record.outcome.value == "normal", record.reason
    view = last["view"]
    assert view["over"] and [r["end"] for r in view["results"]] == ["cleared", "cleared"]
    assert view["total_removed"] == 8 and record.scores == [view["score"]]
    assert record.scores == [round(8 / view["total_moves"], 6)]
    moves = [m.move for m in record.moves]
    assert moves.count("NEW") == 1 and len(moves) == view["total_moves"] + 1
    assert all(re.fullmatch(r"MOVE \d+ [0-3]|NEW", m) for m in moves)
    codes = [m.info["code"] for m in record.moves]
    assert codes.count(0) == 8 and set(codes) <= {0, 4, 6}
    rules = record.settings["rules_text"]
    assert check_hidden(mine, rules) > 8 and check_hidden(watched, rules) >= 2  # (the
    # spectators may be sent only the newest state when moves come fast)
    assert "rules" in seen["view"] and "rules" not in view
    assert "OK" in replay_ok(record_path(server, table))
    replay_ok(server.data / "stores" / "gohr")
    assert table in alice.client.get("/lobby").text.split('id="finished"')[1]


def test_refused_clicks_say_why_and_cost_nothing(server: Server) -> None:
    carol = server.person("carol")
    dan = server.person("dan")
    table = carol.open_table("gohr", seat0="me", rules="anything goes", boards="given",
                             given=TWO, episodes="2", **CLOCKS)

    async def game() -> list[str]:
        reasons = []
        async with carol.socket(table) as ws, dan.socket(table) as stranger:
            state = await next_state(ws)
            while state["table"]["asking"] != 0:
                state = await next_state(ws)
            assert state["view"]["legal"]["pieces"] == [0, 1]
            for bad in ({"piece": 7, "bucket": 0}, {"piece": 0, "bucket": 4},
                        {"piece": "0", "bucket": 1}, {"piece": 0}, {"new": "yes"},
                        {"piece": True, "bucket": 0}):
                await ws.send(json.dumps({"type": "move", "move": bad}))
                reasons.append((await next_message(ws, "refused"))["reason"])
            await stranger.send(json.dumps({"type": "move", "move": {"piece": 0,
                                                                     "bucket": 0}}))
            reasons.append((await next_message(stranger, "refused"))["reason"])
            for piece in (0, 1):
                await ws.send(json.dumps({"type": "move", "move": {"piece": piece,
                                                                   "bucket": 2}}))
                state = await my_turn(ws)
                assert state["view"]["last"]["result"] == "accepted"
            assert state["view"]["end"] == "cleared" and state["view"]["legal"]["pieces"] == []
            await ws.send(json.dumps({"type": "move", "move": {"piece": 0, "bucket": 0}}))
            reasons.append((await next_message(ws, "refused"))["reason"])
            await ws.send(json.dumps({"type": "move", "move": {"new": True}}))
            state = await my_turn(ws)
            assert state["view"]["board"] == 2 and state["view"]["end"] is None
            await ws.send(json.dumps({"type": "move", "move": {"new": True}}))  # give up
            while state["table"]["status"] == "playing":
                state = await next_state(ws)
            assert [r["end"] for r in state["view"]["results"]] == ["cleared", "given up"]
        return reasons

    reasons = asyncio.run(game())
    assert reasons == ["no piece 7 on the board", "bucket 4 is not one of 0..3",
                       "0 is not a piece number", "None is not a bucket number",
                       "expected a piece and a bucket, new or exit",
                       "True is not a piece number", "you do not sit at this table",
                       "the board is over (cleared): NEW starts the next one"]
    record = GameRecord.read(record_path(server, table))
    assert [m.move for m in record.moves] == ["MOVE 0 2", "MOVE 1 2", "NEW", "NEW"]
    assert [m.info["code"] for m in record.moves] == [0, 0, 6, 6]
    assert record.scores == [1.0] and "1 of 2 boards cleared" in record.reason
    replay_ok(record_path(server, table))


def test_a_built_in_player_plays_as_with_the_captive_server(server: Server) -> None:
    erin = server.person("erin")
    table = erin.open_table("gohr", seat0="bot:learner", rules="clockwise", pieces="3:5",
                            shapes="2", colors="1:2", episodes="3", max_moves="40", **CLOCKS)

    async def watch() -> dict[str, Any]:
        async with erin.socket(table) as ws:
            return await collect(ws, [], None, False)

    last = asyncio.run(watch())
    assert last["table"]["status"] == "finished"
    record = GameRecord.read(record_path(server, table))
    assert record.outcome is not None and record.outcome.value == "normal", record.reason
    assert [p.name for p in record.players] == ["learner"]
    boards = record.settings["board_list"]
    assert len(boards) == 3 and all(3 <= len(b["value"]) <= 5 for b in boards)
    assert all(len({p["shape"] for p in b["value"]}) == 2 for b in boards)
    assert [m.move for m in record.moves].count("NEW") == 2
    assert "3 boards" in replay_ok(record_path(server, table))


def test_my_program_plays_for_me_from_the_board_reached(server: Server) -> None:
    fay = server.person("fay")
    table = fay.open_table("gohr", seat0="me", rules="shapes", pieces="5", episodes="2",
                           **CLOCKS)

    async def game() -> dict[str, Any]:
        async with fay.socket(table) as ws:
            player = Learner()
            moves = 0
            while True:
                state = await next_state(ws)
                if state["table"]["asking"] == 0 and "legal" in state["view"]:
                    if moves == 3:
                        break
                    await ws.send(json.dumps({"type": "move",
                                              "move": player.move(state["view"])}))
                    moves += 1
            await ws.send(json.dumps({"type": "deputy", "program": "random"}))
            while state["table"]["status"] == "playing":
                state = await next_state(ws)
            return state

    last = asyncio.run(game())
    assert last["table"]["status"] == "finished"
    record = GameRecord.read(record_path(server, table))
    assert record.outcome is not None and record.outcome.value == "normal", record.reason
    notes = [n.text for n in record.notes if n.kind == "table"]
    assert notes == ["fay lets random play: random plays seat 1"]
    assert len(record.moves) > 3 and last["view"]["total_removed"] == 10
    replay_ok(record_path(server, table))


def test_a_program_joins_with_referee_connect_gohr(server: Server) -> None:
    gil = server.person("gil")
    table = gil.open_table("gohr", seat0="remote", rules="nearest bucket", pieces="4",
                           episodes="2", **CLOCKS)
    page = gil.client.get(f"/tables/{table}").text
    found = re.search(r"referee connect gohr (\S+) --seat 1 -- COMMAND", page)
    assert found, page
    joined = subprocess.Popen([sys.executable, "-m", "referee.cli", "connect", "gohr",
                               html.unescape(found.group(1)), "--seat", "1", "--name",
                               "far-random", "--", *RANDOM_BOT],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    async def watch() -> dict[str, Any]:
        async with gil.socket(table) as ws:
            state = await next_state(ws)
            while state["table"]["status"] != "finished":
                state = await next_state(ws, timeout=60)
            return state

    try:
        last = asyncio.run(watch())
        _out, err = joined.communicate(timeout=60)
    finally:
        joined.kill()
    assert joined.returncode == 0 and "the seat's game is over" in err, err
    record = GameRecord.read(record_path(server, table))
    assert [p.name for p in record.players] == ["far-random"]
    assert record.outcome is not None and record.outcome.value == "normal", record.reason
    assert last["view"]["total_removed"] == 8
    replay_ok(record_path(server, table))


def test_bad_settings_are_refused_naming_the_field(server: Server) -> None:
    hal = server.person("hal")
    for form, said in (
            ({"rules": "nope"}, "Rule set: 'nope' is not one of colors, shapes"),
            ({"rules": "pasted"}, "Pasted rule set: empty"),
            ({"rules": "pasted", "rules_text": "(*,*,red,*,[0]"}, "Pasted rule set: "),
            ({"pieces": "40"}, "Random boards: number of objects 40:40 must satisfy"),
            ({"pieces": "x"}, "Random boards: bad number of objects 'x'"),
            ({"shapes": "2"}, "Random boards: give both the numbers of shapes and colors"),
            ({"pieces": "2", "shapes": "3", "colors": "1"},
             "Random boards: cannot have 3 distinct shapes on a board of 2 objects"),
            ({"boards": "given"}, "Given boards: empty"),
            ({"boards": "given", "given": "{"}, "Given boards: not valid JSON"),
            ({"boards": "given", "given": json.dumps({"value": [
                {"id": 0, "color": "RED", "shape": "STAR", "x": 1, "y": 1},
                {"id": 1, "color": "RED", "shape": "STAR", "x": 1, "y": 1}]})},
             "Given boards: "),
            ({"boards": "given", "given": json.dumps([json.loads(TWO), {"value": [
                {"id": 0, "color": "RED", "x": 9, "y": 1}]}])}, "Given boards, board 2: "),
            ({"episodes": "0"}, "Boards to play: 0 is outside 1..50"),
            ({"max_moves": "-1"}, "Move limit per board: -1 is outside 0..10000"),
    ):
        answer = hal.post("/tables", {"game": "gohr", "seat0": "me", **form},
                          "/tables/new?game=gohr")
        assert answer.status_code == 400 and said in html.unescape(answer.text), \
            (form, answer.text[:3000])
    form = hal.client.get("/tables/new?game=gohr").text
    for name in ("rules", "rules_text", "boards", "pieces", "shapes", "colors", "given",
                 "episodes", "max_moves", "seat0"):
        assert f'name="{name}"' in form


def test_the_driver_hides_the_rule_and_reads_clicks() -> None:
    settings = DRIVER.settings({"rules": "pasted", "rules_text":
                                "(1,*,*,*,[0]) ; (*,*,*,*,[1])", "boards": "given",
                                "given": TWO, "episodes": "3"})
    assert settings["rules_text"] == "(1,*,*,*,[0])\n(*,*,*,*,[1])"
    assert settings["given"] == [{"id": 0, **json.loads(TWO)}]
    assert DRIVER.seat_names(settings) == ["Player"]
    settings["board_list"] = [json.loads(TWO)] * 3
    series = GohrSeries(record_rules(settings), record_boards(settings), 3,
                        settings["rules_text"])
    assert series.apply(0, DRIVER.action(series, 0, {"piece": 1, "bucket": 1})) == 4
    assert series.apply(0, Attempt(1, 0)) == 0
    view = DRIVER.view(series, 0, False)
    assert view["last"]["result"] == "accepted" and view["bins"][0][0]["id"] == 1
    assert view["legal"]["pieces"] == [0] and "rules" not in view
    assert series.apply(0, Attempt(0, 0)) == 4  # the second row: bucket 1 only
    view = DRIVER.view(series, None, True)
    assert view["end"] == "limit" and "legal" not in view and view["rules"].startswith("(1,")
    assert series.illegal_reason(0, Attempt(0, 1)) == \
        "the board is over (limit): NEW starts the next one"
    assert isinstance(DRIVER.action(series, 0, {"new": True}), NextBoard)
    with pytest.raises(ValueError, match="expected a piece"):
        DRIVER.action(series, 0, {"exit": 1})
