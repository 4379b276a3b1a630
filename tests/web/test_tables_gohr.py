"""GOHR tables on a real server: a person plays a whole series of boards over the page's
WebSocket while someone watches, every answer the rule's, and no state shows the rule or
which buckets would take a piece until the game is over; refused clicks say why and cost
nothing; a built-in player, a person's program taking the seat over, and a program
joining with ``referee connect gohr`` play as with the captive server; a rule set pasted
on several lines (CRLF, as browsers send a textarea) is played as pasted, a bad line of
it refused naming the line and why, a rule set too long refused; the board sources of
``referee play gohr`` (its colors= and shapes= lists, given boards shuffled); bad settings
are refused naming the field; the records read back and ``referee replay gohr`` says OK."""

from __future__ import annotations

import asyncio
import html
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from table_server import (
    Server,
    beside,
    connect,
    form_offers,
    join_url,
    module_server,
    next_message,
    next_state,
    raw_states,
    replay_ok,
    settings_refused,
    together,
)

from referee.core.record import GameRecord
from referee.games.gohr.table_engine import Attempt, GohrSeries, NextBoard
from referee.games.gohr.table_setup import (
    RULES_LONGEST,
    make_boards,
    pasted_rows,
    record_boards,
    record_rules,
)
from referee.games.gohr.web_table import DRIVER

CLOCKS = {"person_turn": "60", "program_turn": "5", "pace": "0"}
COLOR_BUCKET = {"RED": 0, "BLUE": 1, "BLACK": 2, "YELLOW": 3}
"""The example rule set 'colors'."""
TWO = json.dumps({"value": [{"id": 0, "color": "RED", "shape": "STAR", "x": 1, "y": 1},
                            {"id": 1, "color": "BLUE", "shape": "SQUARE", "x": 6, "y": 6}]})
RANDOM_BOT = [sys.executable, "-m", "referee.games.gohr.bots.random_bot"]


server = module_server("web")
"""The module's server."""


def record_path(server: Server, table: str) -> Path:
    return server.data / "records" / "gohr" / f"game-{table}.json"


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
    return await raw_states(ws, into, me, Learner().move if act else None)


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
    last, seen = together(alice, bob, table, lambda ws: collect(ws, mine, 0, True),
                          lambda ws: collect(ws, watched, None, False))
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
    assert "OK" in replay_ok("gohr", record_path(server, table))
    replay_ok("gohr", server.data / "stores" / "gohr")
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
    replay_ok("gohr", record_path(server, table))


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
    assert "3 boards" in replay_ok("gohr", record_path(server, table))


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
    replay_ok("gohr", record_path(server, table))


def test_a_program_joins_with_referee_connect_gohr(server: Server) -> None:
    gil = server.person("gil")
    table = gil.open_table("gohr", seat0="remote", rules="nearest bucket", pieces="4",
                           episodes="2", **CLOCKS)
    joined = connect("gohr", join_url(gil, "gohr", table, 1), 1, RANDOM_BOT,
                     "--name", "far-random")

    async def watch() -> dict[str, Any]:
        async with gil.socket(table) as ws:
            state = await next_state(ws)
            while state["table"]["status"] != "finished":
                state = await next_state(ws, timeout=60)
            return state

    last, err = beside(joined, lambda: asyncio.run(watch()))
    assert joined.returncode == 0 and "the seat's game is over" in err, err
    record = GameRecord.read(record_path(server, table))
    assert [p.name for p in record.players] == ["far-random"]
    assert record.outcome is not None and record.outcome.value == "normal", record.reason
    assert last["view"]["total_removed"] == 8
    replay_ok("gohr", record_path(server, table))


TWO_ROWS = ("# Two rows; the first takes one piece, into bucket 4\r\n"
            "# (the second: every other piece, into bucket 1).\r\n"
            "\r\n"
            "(1,*,*,*,[3])\r\n"
            "(*,*,*,*,[0])\r\n")
"""A rule set of several lines as a browser sends a textarea's (CRLF), a comment holding
a ``;`` (a rule file's comment may), a blank line."""


def accepted_buckets(record: GameRecord) -> list[list[int]]:
    """The buckets of each board's accepted moves, in order."""
    boards: list[list[int]] = [[]]
    for move in record.moves:
        if move.move == "NEW":
            boards.append([])
        elif move.info["code"] == 0:
            boards[-1].append(int(move.move.split()[2]))
    return boards


def test_a_rule_set_pasted_on_several_lines_is_played_as_pasted(server: Server) -> None:
    ida = server.person("ida")
    three = json.dumps({"value": [*json.loads(TWO)["value"], {
        "id": 2, "color": "YELLOW", "shape": "CIRCLE", "x": 3, "y": 4}]})
    table = ida.open_table("gohr", seat0="bot:learner", rules="pasted", rules_text=TWO_ROWS,
                           boards="given", given=three, episodes="2", **CLOCKS)

    async def watch() -> dict[str, Any]:
        async with ida.socket(table) as ws:
            return await collect(ws, [], None, False)

    last = asyncio.run(watch())
    assert last["table"]["status"] == "finished"
    record = GameRecord.read(record_path(server, table))
    assert record.outcome is not None and record.outcome.value == "normal", record.reason
    assert record.settings["rules_text"] == TWO_ROWS.replace("\r\n", "\n").strip()
    assert record.settings["rules"] == "pasted"
    assert [r["end"] for r in last["view"]["results"]] == ["cleared", "cleared"]
    # the two rows, each board: the first piece into bucket 4 (3), the others into 1 (0)
    assert accepted_buckets(record) == [[3, 0, 0], [3, 0, 0]]
    assert "OK" in replay_ok("gohr", record_path(server, table))


def refusal(person: Any, form: dict[str, str]) -> str:
    """The error a new table's form is sent back with (400), unescaped."""
    answer = person.post("/tables", {"game": "gohr", "seat0": "me", **form},
                         "/tables/new?game=gohr")
    assert answer.status_code == 400, answer.text[:2000]
    found = re.search(r'<p class="error" role="alert">(.*?)</p>', answer.text, re.S)
    assert found, answer.text[:2000]
    return html.unescape(found.group(1))


def test_a_bad_line_of_a_pasted_rule_set_is_refused_naming_it(server: Server) -> None:
    jo = server.person("jo")
    bad = TWO_ROWS + "(*,*,*,*,[0]\r\n"
    said = refusal(jo, {"rules": "pasted", "rules_text": bad})
    assert said == ('Pasted rule set: line 6, column 13 (in "(*,*,*,*,[0]"): expected '
                    "')' to close the atom, found end of line"), said
    page = jo.post("/tables", {"game": "gohr", "seat0": "me", "rules": "pasted",
                               "rules_text": bad}, "/tables/new?game=gohr").text
    shown = re.search(r'<textarea name="rules_text"[^>]*>\n(.*?)</textarea>', page, re.S)
    assert shown and html.unescape(shown.group(1)) == bad, page[:3000]  # as pasted, to fix
    for text, said in (  # the line and column as pasted (a row after ';' too)
            ("(*,*,*,*,[0])\n  (*,sqare,*,*,[0]) (*,*,*,40,[1])",
             'Pasted rule set: line 2, column 28 (in "(*,sqare,*,*,[0]) (*,*,*,40,[1])"): '
             "expected a cell number 1..36, found 40"),
            ("(*,*,*,*,[0]) ; (*,*,*,*,[0]) (x)",
             'Pasted rule set: line 1, column 32 (in "(*,*,*,*,[0]) (x)"): expected an '
             "atom count ('*' or a non-negative integer), found 'x'"),
            ("(*,*,*,*,[0])\r\nOrder Late=[1]",
             'Pasted rule set: line 2, column 1 (in "Order Late=[1]"): order definitions '
             "must come before the first rule row"),
            ("# only comments; no row\n# at all", "Pasted rule set: expected at least one "
                                                  "rule row, found none"),
            ("(*,*,*,*,[0])\n(*,*,*,*,[" + "(" * 3000 + "1" + ")" * 3000 + "])",
             'Pasted rule set: line 2, column 1 (in "(*,*,*,*,[' + "(" * 47 + '..."): a rule '
             "row nested too deeply"),
            ("(*,*,*,*,[0])\n\x00", "Pasted rule set: line 2 holds a control character "
                                    "(U+0000)")):
        got = refusal(jo, {"rules": "pasted", "rules_text": text})
        assert got == said, (text[:80], got)
    assert "Traceback" not in server.log()


def test_a_pasted_rule_set_too_long_is_refused(server: Server) -> None:
    kim = server.person("kim")
    row = "(*,*,*,*,[0])"
    said = refusal(kim, {"rules": "pasted", "rules_text": "#" * (RULES_LONGEST - 13) +
                         "\r\n" + row + "\r\n"})
    assert said == f"Pasted rule set: too long ({RULES_LONGEST + 1} characters, at most " \
                   f"{RULES_LONGEST})", said
    # at the limit with its line breaks counted one each (CRLF is sent as two): taken
    lines = [row] * (RULES_LONGEST // (len(row) + 1))
    text = "\r\n".join(lines)
    assert len(text) > RULES_LONGEST >= len("\n".join(lines))
    table = kim.open_table("gohr", seat0="open", rules="pasted", rules_text=text)
    assert kim.client.get(f"/tables/{table}").status_code == 200
    form = kim.client.get("/tables/new?game=gohr").text
    assert f'<textarea name="rules_text" rows="8" maxlength="{RULES_LONGEST}"' in form


def test_the_board_sources_of_referee_play_gohr(server: Server) -> None:
    lee = server.person("lee")
    table = lee.open_table("gohr", seat0="bot:learner", rules="pasted", rules_text=(
        "(*,hexagon,*,*,[0]) (*,star,purple,*,[1]) (*,star,green,*,[2])"),
        pieces="3:4", shapes="2", colors="2", color_list="purple; green",
        shape_list="hexagon;star", episodes="3", **CLOCKS)

    async def watch() -> dict[str, Any]:
        async with lee.socket(table) as ws:
            return await collect(ws, [], None, False)

    assert asyncio.run(watch())["table"]["status"] == "finished"
    record = GameRecord.read(record_path(server, table))
    assert record.outcome is not None and record.outcome.value == "normal", record.reason
    boards = record.settings["board_list"]
    assert len(boards) == 3 and all(
        {p["shape"] for p in b["value"]} == {"hexagon", "STAR"} and
        {p["color"] for p in b["value"]} == {"PURPLE", "GREEN"} for b in boards), boards
    assert [r["end"] for r in record.settings["results"]] == ["cleared"] * 3
    by_piece = {(k, p["id"]): p for k, b in enumerate(boards) for p in b["value"]}
    board = 0
    for move in record.moves:  # every accepted move the rule's
        if move.move == "NEW":
            board += 1
        elif move.info["code"] == 0:
            _, piece_id, bucket = move.move.split()
            piece = by_piece[board, int(piece_id)]
            assert int(bucket) == (0 if piece["shape"] == "hexagon" else
                                   1 if piece["color"] == "PURPLE" else 2), (piece, bucket)
    assert "OK" in replay_ok("gohr", record_path(server, table))
    for form, said in (({"color_list": "red;<b>"}, "Colors to draw from: '<b>' is not a name"),
                       ({"shape_list": "star;star"}, "Random boards: the list of shapes has "
                                                     "duplicates"),
                       ({"color_list": "red;blue", "pieces": "4", "shapes": "1",
                         "colors": "3"}, "Random boards: cannot have 3 distinct colors: "
                                         "only 2 available"),
                       ({"given_order": "backwards"}, "Order of the given boards: "
                                                      "'backwards' is not one of")):
        assert said in refusal(lee, form), form


def test_bad_settings_are_refused_naming_the_field(server: Server) -> None:
    hal = server.person("hal")
    settings_refused(hal, "gohr", (
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
    ), {"seat0": "me"})
    form = form_offers(hal, "gohr", ("rules", "rules_text", "boards", "pieces", "shapes",
                                     "colors", "color_list", "shape_list", "given",
                                     "given_order", "episodes", "max_moves", "seat0"))
    for name in ("rules_text", "given"):  # several lines each
        assert f'<textarea name="{name}"' in form


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


def test_pasted_rows_keep_the_lines_pasted_and_given_boards_shuffle_by_pass() -> None:
    one = pasted_rows('# a; (1,*,*,*,[0]);; (*,"a;b",*,*,[1]);')  # one line: ';' ends rows
    assert one.text == '# a\n(1,*,*,*,[0])\n(*,"a;b",*,*,[1])'
    assert one.places == ((1, 0), (1, 5), (1, 21))
    lines = pasted_rows("\r\n# a; b\r\n\r\n (1,*,*,*,[0]) ;(*,*,*,*,[1])\r\n\r\n")
    assert lines.text == "# a; b\n\n(1,*,*,*,[0])\n(*,*,*,*,[1])"  # comments keep their ';'
    assert lines.places == ((2, 0), (3, 0), (4, 1), (4, 16))
    boards = [{"id": k, "value": [{"id": 0, "color": "RED", "shape": "STAR", "x": 1,
                                   "y": k + 1}]} for k in range(3)]
    settings = {"boards": "given", "given": boards, "episodes": 7}
    assert [b["id"] for b in make_boards(settings, 5)] == [0, 1, 2, 0, 1, 2, 0]
    settings["given_order"] = "shuffled"
    drawn = [[b["id"] for b in make_boards(settings, seed)] for seed in range(20)]
    assert all(sorted(d[:3]) == sorted(d[3:6]) == [0, 1, 2] for d in drawn)  # each pass
    assert len({tuple(d) for d in drawn}) > 5 and drawn == [  # all of them, the seed's
        [b["id"] for b in make_boards(settings, seed)] for seed in range(20)]
