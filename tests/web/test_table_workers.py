"""Tables of programs only are played in the server's worker processes: on a real
server, a bot-against-program Gomoku table's programs are the children of a worker
process (at a lower CPU priority), not of the server's; its spectators get its states
through the server and its record is an ordinary one in the records and the game's
store. A worker killed during a game aborts its tables with the reason and the server
plays the next table in a new worker; ``--table-workers 0`` plays every table in the
server's own process; a person's table is never sent to a worker. A page that says what
it has seen is sent the newest board once it has, never a backlog. A table of programs a
crashed server was playing is played again from the start by the next one (a person's
is aborted)."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import psutil
import pytest
from table_server import Person, Server, next_state, running_server

from referee.core.record import GameRecord
from referee.tournament.store import Store
from referee.web.live import IN_FLIGHT, SEEN, SPECTATOR_EVERY
from referee.web.table_worker import NICENESS
from referee.web.tables import PACE

T = TypeVar("T")

INSTANT = Path(__file__).resolve().parent.parent / "brains" / "instant.py"
GAME = {"size": "9", "rule": "freestyle", "renju_judge": "rif", "person_turn": "60",
        "program_turn": "5", "pace": "0"}  # (a table of programs only: at their own speed)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with two registered programs: an instant brain and one that thinks
    for 0.3 s a move."""
    with running_server(tmp_path_factory.mktemp("workers") / "data") as running:
        running.person("wanda")
        for name, *options in (("instant", ), ("thinker", "--delay", "0.3")):
            add_program(running, name, "wanda", *options)
        yield running


def add_program(server: Server, name: str, owner: str, *options: str) -> None:
    """``referee web program add NAME`` of the instant test brain."""
    added = subprocess.run(
        [sys.executable, "-m", "referee.cli", "web", "program", "add", name, "--game",
         "gomoku", "--owner", owner, "--data", str(server.data), "--", sys.executable,
         str(INSTANT), *options], capture_output=True, text=True, timeout=60)
    assert added.returncode == 0, added.stderr


def log_in(server: Server, name: str) -> Person:
    """``name`` (signed up already) logged in with a client of their own."""
    person = Person(server, name)
    answer = person.post("/login", {"name": name, "password": "a-long-secret"}, "/login")
    assert answer.status_code == 303, answer.text[:500]
    return person


def workers_of(server: Server) -> list[psutil.Process]:
    """The server's worker processes (its children that multiprocessing spawned)."""
    return [child for child in psutil.Process(server.process.pid).children()
            if "spawn_main" in " ".join(child.cmdline())]


def wait_for(what: Callable[[], T | None], timeout: float = 30) -> T:
    """``what()`` once it is something, polled until ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"not seen within {timeout} s")


async def watch_to_end(person: Person, table: str) -> list[dict[str, Any]]:
    """A spectator's states of ``table`` until it is over."""
    states = []
    async with person.socket(table) as ws:
        while True:
            state = await next_state(ws, 60)
            states.append(state)
            if state["table"]["status"] != "playing":
                return states


def test_a_table_of_programs_is_played_in_a_worker_process(server: Server) -> None:
    wanda = log_in(server, "wanda")
    table = wanda.open_table("gomoku", seat0="program:thinker", seat1="bot:random", **GAME)
    states = asyncio.run(watch_to_end(wanda, table))
    assert states[-1]["table"]["status"] == "finished"
    assert states[-1]["you"] is None and len(states) > 2  # (its moves, as they came)
    workers = workers_of(server)
    assert workers and all(worker.nice() == NICENESS for worker in workers)
    record = GameRecord.read(server.data / "records" / "gomoku" / f"game-{table}.json")
    assert record.finished and [p.name for p in record.players] == ["thinker", "random"]
    assert record.settings["table_clocks"][0]["turn_ms"] == 5000
    store = Store.open_existing(server.data / "stores" / "gomoku")
    try:
        assert store.record(table).moves == record.moves
    finally:
        store.close()
    lobby = wanda.client.get(f"/tables/{table}").text
    assert "finished" in lobby


def test_the_programs_run_under_the_worker_not_the_server(server: Server) -> None:
    wanda = log_in(server, "wanda")  # (the thinker's game lasts while the test looks)
    table = wanda.open_table("gomoku", seat0="program:thinker", seat1="program:instant",
                             **GAME)

    def thinker() -> psutil.Process | None:
        for process in psutil.Process(server.process.pid).children(recursive=True):
            try:
                if str(INSTANT) in " ".join(process.cmdline()):
                    return process
            except psutil.Error:
                continue
        return None

    brain = wait_for(thinker)
    ancestors = {parent.pid for parent in brain.parents()}
    worker_pids = {worker.pid for worker in workers_of(server)}
    assert ancestors & worker_pids, "the brain is not under a worker process"
    assert brain.ppid() != server.process.pid
    asyncio.run(watch_to_end(wanda, table))


def test_a_killed_worker_aborts_its_tables_and_the_next_table_plays(server: Server) -> None:
    wanda = log_in(server, "wanda")
    table = wanda.open_table("gomoku", seat0="program:thinker", seat1="program:thinker",
                             **GAME)

    async def kill_mid_game() -> dict[str, Any]:
        killed = False
        async with wanda.socket(table) as ws:
            while True:
                state = await next_state(ws, 60)
                if state["table"]["status"] != "playing":
                    return state
                if not killed and len(state["view"]["stones"]) >= 2:
                    for worker in workers_of(server):
                        os.kill(worker.pid, signal.SIGKILL)
                    killed = True

    last = asyncio.run(asyncio.wait_for(kill_mid_game(), 90))
    assert last["table"]["status"] == "aborted"
    assert last["table"]["result"] == "the worker process playing the table stopped"
    assert len(last["view"]["stones"]) >= 2  # (its last board, with why it stopped)
    page = wanda.client.get(f"/tables/{table}").text
    assert "aborted" in page and "worker process playing the table stopped" in page
    assert not (server.data / "records" / "gomoku" / f"game-{table}.json").exists()
    assert "worker process playing the table stopped" in server.log()
    after = wanda.open_table("gomoku", seat0="program:instant", seat1="bot:random", **GAME)
    assert asyncio.run(watch_to_end(wanda, after))[-1]["table"]["status"] == "finished"
    assert server.process.poll() is None


def test_a_persons_table_is_not_sent_to_a_worker(server: Server) -> None:
    wanda = log_in(server, "wanda")
    table = wanda.open_table("gomoku", seat0="me", seat1="program:thinker", **GAME)

    async def resign_when_asked() -> dict[str, Any]:
        async with wanda.socket(table) as ws:
            while (state := await next_state(ws))["table"]["asking"] != 0:
                pass
            brains = [process for process in
                      psutil.Process(server.process.pid).children(recursive=True)
                      if str(INSTANT) in " ".join(process.cmdline())]
            worker_pids = {worker.pid for worker in workers_of(server)}
            assert brains and not any({parent.pid for parent in brain.parents()} &
                                      worker_pids for brain in brains)
            await ws.send('{"type": "resign"}')
            while state["table"]["status"] == "playing":
                state = await next_state(ws)
            return state

    assert asyncio.run(resign_when_asked())["table"]["status"] == "finished"


def test_with_no_workers_every_table_is_played_in_the_servers_process(
        tmp_path: Path) -> None:
    with running_server(tmp_path / "data", "--table-workers", "0") as server:
        xena = server.person("xena")
        table = xena.open_table("gomoku", seat0="bot:random", seat1="bot:random", **GAME)
        assert asyncio.run(watch_to_end(xena, table))[-1]["table"]["status"] == "finished"
        assert not workers_of(server)
        assert GameRecord.read(server.data / "records" / "gomoku" /
                               f"game-{table}.json").finished


def test_a_worker_sends_a_tables_newest_state_at_its_spectators_pace_and_its_last(
        server: Server) -> None:
    wanda = log_in(server, "wanda")
    table = wanda.open_table("gomoku", seat0="bot:random", seat1="bot:random",
                             **{**GAME, "size": "20"})
    states = asyncio.run(watch_to_end(wanda, table))
    record = GameRecord.read(server.data / "records" / "gomoku" / f"game-{table}.json")
    assert len(record.moves) > 30 and len(states) > 2
    made = [state["table"]["at"] for state in states[1:-1]]  # (the first: kept; the last:
    # told once it is filed) -- one sent each SPECTATOR_EVERY at most, the newest then
    assert len(made) <= (made[-1] - made[0]) / SPECTATOR_EVERY + 2, (len(made), made)
    assert len(states[-1]["view"]["stones"]) == len(record.moves)  # (the newest not lost)


def test_a_page_that_says_what_it_saw_gets_the_newest_board_not_a_backlog(
        server: Server) -> None:
    wanda = log_in(server, "wanda")
    table = wanda.open_table("gomoku", seat0="program:thinker", seat1="program:thinker",
                             **GAME)

    async def watch() -> None:
        async with wanda.socket(table) as ws:
            first = await next_state(ws, 60)
            await ws.send(SEEN)  # (one seen: from here at most IN_FLIGHT unseen)
            await asyncio.sleep(2.5)  # (the programs make about eight moves meanwhile)
            held = [await next_state(ws, 5) for _ in range(IN_FLIGHT)]
            with pytest.raises(TimeoutError):  # (no more: none of those is seen)
                await next_state(ws, 1)
            await ws.send(SEEN)
            newest = await next_state(ws, 5)
            stones = [len(state["view"]["stones"]) for state in (first, *held, newest)]
            assert stones == sorted(stones) and stones[-1] >= stones[-2] + 3, stones
            for _ in range(3):  # more than it was sent: not that, but a message refused
                await ws.send(SEEN)
            refused = json.loads(await asyncio.wait_for(ws.recv(), 5))
            while refused["type"] != "refused":
                refused = json.loads(await asyncio.wait_for(ws.recv(), 5))
            assert refused["reason"] == "not a message this table knows"

    asyncio.run(watch())


def test_a_table_of_programs_a_crashed_server_was_playing_is_played_again(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    with running_server(data) as first:
        first.person("zoe")
        add_program(first, "thinker", "zoe", "--delay", "0.3")
        zoe = log_in(first, "zoe")
        programs = zoe.open_table("gomoku", seat0="program:thinker", seat1="bot:random",
                                  **GAME)
        person = zoe.open_table("gomoku", seat0="me", seat1="program:thinker", **GAME)

        async def under_way() -> None:
            async with zoe.socket(programs) as ws:
                while len((await next_state(ws, 60))["view"]["stones"]) < 2:
                    pass

        asyncio.run(under_way())
        first.process.kill()  # (a crash: no time to close anything)
        first.process.wait(10)
    with running_server(data) as second:
        zoe = log_in(second, "zoe")
        folder = second.data / "records" / "gomoku"
        record = wait_for(lambda: GameRecord.read(folder / f"game-{programs}.json")
                          if (folder / f"game-{programs}.json").exists() else None, 90)
        assert record.finished and [p.name for p in record.players] == ["thinker", "random"]
        wait_for(lambda: "finished" in zoe.client.get(f"/tables/{programs}").text)
        # zoe's own table had no move yet: it is played again from the start (her first
        # move awaited; tests/web/test_tables_resume.py: a game resumed mid-way)
        async def notes() -> list[str]:
            async with zoe.socket(person) as ws:
                return (await next_state(ws, 60))["table"]["notes"]  # type: ignore[no-any-return]

        assert any("played again from the start" in note for note in asyncio.run(notes()))
        assert "resumed, or played again from the start" in second.log()


@pytest.mark.parametrize("pace", [0.25, None])
def test_a_table_of_programs_shows_each_move_for_its_pace_and_charges_no_clock(
        server: Server, pace: float | None) -> None:
    """Instant programs at a table with a pace (``None``: the server's own, PACE): each
    state is shown that long before the next move is made, and the wait is on no clock
    (the record's move times are the programs' own)."""
    wanda = log_in(server, "wanda")
    wait = PACE if pace is None else pace
    form = {**GAME, "size": "7"}  # (a few dozen moves)
    if pace is None:
        del form["pace"]
    else:
        form["pace"] = f"{pace:g}"
    table = wanda.open_table("gomoku", seat0="program:instant", seat1="bot:random", **form)
    states = asyncio.run(watch_to_end(wanda, table))
    record = GameRecord.read(server.data / "records" / "gomoku" / f"game-{table}.json")
    made = [state["table"]["at"] for state in states[:-1]]  # (the last: told when filed)
    moves = [len(state["view"]["stones"]) for state in states[:-1]]
    assert moves == sorted(set(moves)), moves  # each move shown: none skipped or twice
    assert len(made) >= len(record.moves) - 1
    gaps = [later - earlier for earlier, later in itertools.pairwise(made)]
    assert min(gaps) >= wait - 0.02, gaps
    assert max(move.ms for move in record.moves) < wait * 1000, record.moves


def test_a_tables_pace_is_on_its_form_and_a_bad_one_refused(server: Server) -> None:
    wanda = log_in(server, "wanda")
    form = wanda.client.get("/tables/new?game=gomoku").text
    assert f'name="pace" value="{PACE:g}"' in form
    for pace, words in (("-1", "outside 0..60"), ("61", "outside 0..60"),
                        ("soon", "is not a number of seconds")):
        answer = wanda.post("/tables", {"game": "gomoku", **GAME, "pace": pace,
                                        "seat0": "bot:random", "seat1": "bot:random"},
                            "/tables/new?game=gomoku")
        assert answer.status_code == 400 and words in answer.text, (pace, answer.text[-2000:])
