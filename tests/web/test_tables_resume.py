"""A person's table whose server crashes mid-game goes on from where it was once the
server is started again: the same position (the journal's moves applied again), the
person back at their seat, the programs started again at that position, and one record
of the whole game (issue 38: everything resumes after a crash)."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from table_server import (
    PagePace,
    Person,
    asked,
    connect,
    join_url,
    next_state,
    replay_ok,
    running_server,
)
from test_table_workers import add_program, log_in
from test_tables_gohr import Learner
from test_tables_gomoku import free_point
from test_tables_mahjong import answer as mahjong_answer
from test_tables_planowanie import choice
from test_tables_riichi import answer as riichi_answer

from referee.core.record import GameRecord
from referee.web.tables import journal_path, record_path

CLOCKS = {"person_turn": "60", "program_turn": "10", "pace": "0"}
Answer = Callable[[dict[str, Any]], dict[str, Any]]

GAMES: dict[str, tuple[dict[str, str], Callable[[], Answer], int]] = {
    # game: (the table's form, a person's answers, how many of their moves before the crash)
    "gomoku": ({"size": "9", "rule": "freestyle", "renju_judge": "rif", "seat1": "bot:threat",
                **CLOCKS}, lambda: lambda view: {"point": free_point(view)}, 4),
    "planowanie": ({"players": "3", "seat1": "bot:heuristic", "seat2": "bot:random",
                    "deals": "2 2 0 2 1", **CLOCKS}, lambda: choice, 5),
    "mahjong": ({"hands": "1", "scoring": "taiwan", "seat1": "bot:random",
                 "seat2": "bot:greedy", "seat3": "bot:random", **CLOCKS},
                lambda: mahjong_answer, 6),
    "gohr": ({"rules": "colors", "pieces": "4", "episodes": "2", **CLOCKS},
             lambda: Learner().move, 5),
    # (the mjai referee tells its bots every event, replayed ones too: none starts again)
    "riichi": ({"room": "tenhou", "length": "east", "seat1": "bot:greedy",
                "seat2": "bot:tsumogiri", "seat3": "bot:tsumogiri", **CLOCKS},
               lambda: riichi_answer, 4),
}
TAKE_OVER = {"gomoku", "planowanie", "mahjong", "gohr"}
"""The games whose programs are started again at the position reached."""


def journal_moves(path: Path) -> int:
    """The moves a table's journal holds."""
    return sum(1 for line in path.read_bytes().splitlines()
               if line and json.loads(line)["k"] == "move")


async def play_moves(person: Person, table: str, answer: Answer, moves: int) -> dict[str, Any]:
    """Make ``moves`` of the person's moves, then wait until they are asked again; that
    state (the game frozen there: everyone waits for the person)."""
    async with person.socket(table) as ws:
        made = 0
        while True:
            state = await next_state(ws, 60)
            assert state["table"]["status"] == "playing", state["table"]
            if asked(state):
                if made == moves:
                    return state
                await ws.send(json.dumps({"type": "move", "move": answer(state["view"])}))
                made += 1


async def play_out(person: Person, table: str, answer: Answer) -> tuple[dict[str, Any],
                                                                        dict[str, Any]]:
    """The first state in which the person's page asks them to move, and the last, the
    game played out. (The page may show the table before that: the programs are being
    started again at the position reached.)"""
    async with person.socket(table) as ws:
        pace = PagePace()  # (a Riichi game asks a person a few hundred times)
        first: dict[str, Any] | None = None
        state = await next_state(ws, 60)
        while state["table"]["status"] == "playing":
            if asked(state):
                first = first or state
                await pace.wait()
                await ws.send(json.dumps({"type": "move", "move": answer(state["view"])}))
            state = await next_state(ws, 60)
        assert first is not None, "the person was never asked to move"
        return first, state


@pytest.mark.slow
@pytest.mark.parametrize("game", list(GAMES))
def test_a_person_s_table_goes_on_from_where_it_was_after_a_crash(
        tmp_path: Path, game: str) -> None:
    form, answers, before = GAMES[game]
    data = tmp_path / "data"
    with running_server(data) as first:
        rita = first.person("rita")
        table = rita.open_table(game, seat0="me", **form)
        frozen = asyncio.run(play_moves(rita, table, answers(), before))
        journal = journal_path(data, table)
        applied = journal_moves(journal)
        assert applied >= before
        first.process.kill()  # (a crash: nothing is closed)
        first.process.wait(10)
    assert not record_path(data, game, table).exists()
    with running_server(data) as second:
        rita = log_in(second, "rita")
        resumed, last = asyncio.run(play_out(rita, table, answers()))
        # The same position, the person asked again, with the same choices.
        assert resumed["view"] == frozen["view"]
        assert any(f"{applied} moves in" in note for note in resumed["table"]["notes"])
        assert last["table"]["status"] == "finished", last["table"]
        record = GameRecord.read(record_path(data, game, table))
        assert record.finished and len(record.moves) > applied
        assert record.players[0].name == "rita"
        programs = [seat for seat, kind in enumerate(k["kind"] for k in
                                                     resumed["table"]["seats"])
                    if kind == "bot"]
        told = [note.text for note in record.notes if note.kind == "table"]
        for seat in programs:
            again = any(f"plays seat {seat + 1} again from move {applied + 1}" in text
                        for text in told)
            assert again == (game in TAKE_OVER), told
        deadline = time.monotonic() + 10  # (the game is over: its journal goes, once
        while journal.exists():  # its end is filed)
            assert time.monotonic() < deadline, "the journal stays"
            time.sleep(0.05)
    assert "OK" in replay_ok(game, record_path(data, game, table))



def test_a_program_that_played_for_its_person_plays_for_them_again_after_a_crash(
        tmp_path: Path) -> None:
    """"Let my program play for me", then a crash: the next server's program takes the
    seat again at the position reached and plays on for the person, who is not asked
    until they take the seat back. (Both programs keep to their colour's points, so
    that nobody makes five: the game goes on while the test looks.)"""
    data = tmp_path / "data"
    form = {"size": "9", "rule": "freestyle", "renju_judge": "rif",
            "seat1": "program:patterned", **CLOCKS}
    with running_server(data) as first:
        rita = first.person("rita")
        add_program(first, "slowpoke", "rita", "--pattern", "--delay", "0.2")
        add_program(first, "patterned", "rita", "--pattern")
        table = rita.open_table("gomoku", seat0="me", **form)

        async def hand_over() -> int:
            async with rita.socket(table) as ws:
                while not asked(await next_state(ws, 60)):
                    pass
                await ws.send(json.dumps({"type": "deputy", "program": "slowpoke"}))
                while True:
                    state = await next_state(ws, 60)
                    assert state["table"]["status"] == "playing", state["table"]
                    if state["table"]["seats"][0]["deputy"] and len(state["view"]["stones"]) >= 6:
                        return len(state["view"]["stones"])

        stones = asyncio.run(hand_over())
        first.process.kill()  # (a crash: nothing is closed)
        first.process.wait(10)
    applied = journal_moves(journal_path(data, table))
    assert applied >= stones

    with running_server(data) as second:
        rita = log_in(second, "rita")

        async def take_back() -> dict[str, Any]:
            async with rita.socket(table) as ws:
                while True:  # the program plays on for rita: she is not asked
                    state = await next_state(ws, 60)
                    assert state["table"]["status"] == "playing", state["table"]
                    assert not asked(state), "the person was asked while their program played"
                    if state["table"]["seats"][0]["deputy"] and \
                            len(state["view"]["stones"]) >= applied + 4:
                        break
                await ws.send(json.dumps({"type": "take-back"}))
                while not asked(state := await next_state(ws, 60)):
                    assert state["table"]["status"] == "playing", state["table"]
                assert not state["table"]["seats"][0]["deputy"]
                await ws.send(json.dumps({"type": "resign"}))
                while state["table"]["status"] == "playing":
                    state = await next_state(ws, 60)
                return state

        last = asyncio.run(take_back())
        assert last["table"]["status"] == "finished"
        record = GameRecord.read(record_path(data, "gomoku", table))
        told = [note.text for note in record.notes if note.kind == "table"]
        assert told.count("rita lets slowpoke play: slowpoke plays seat 1") == 1, told
        assert f"the server stopped during the game: slowpoke plays seat 1 again for rita " \
               f"from move {applied + 1}" in told, told
        assert told[-1] == "rita plays seat 1 again", told
        assert record.outcome is not None and record.outcome.value == "resigned"
        assert record.offender == 0


def test_a_table_with_a_program_joined_over_the_network_is_aborted_after_a_crash(
        tmp_path: Path) -> None:
    """Its program's connection went with the server: the game cannot go on without it."""
    data = tmp_path / "data"
    with running_server(data) as first:
        sam = first.person("sam")
        table = sam.open_table("gomoku", seat0="me", **GAMES["gomoku"][0] | {"seat1": "remote"})
        joined = connect("gomoku", join_url(sam, "gomoku", table, 2), 2,
                         [sys.executable, "-m", "referee.games.gomoku.bots.random_brain"])
        try:
            answer = GAMES["gomoku"][1]()
            asyncio.run(play_moves(sam, table, answer, 2))
            first.process.kill()
            first.process.wait(10)
        finally:
            joined.kill()
            joined.wait(10)
    with running_server(data) as second:
        page = log_in(second, "sam").client.get(f"/tables/{table}").text
        assert "Aborted: the server stopped during the game" in page
        assert not journal_path(data, table).exists()  # (its journal goes with it)


def test_a_journal_that_cannot_be_written_costs_the_resume_not_the_game(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    with running_server(data) as server:
        (data / "journals").write_text("a file where the journals' folder goes")
        vic = server.person("vic")
        form, answers, _ = GAMES["gomoku"]
        table = vic.open_table("gomoku", seat0="me", **form)
        _, last = asyncio.run(play_out(vic, table, answers()))
        assert last["table"]["status"] == "finished"
        assert GameRecord.read(record_path(data, "gomoku", table)).finished
        assert "no journal" in server.log() and "cannot go on after a crash" in server.log()
