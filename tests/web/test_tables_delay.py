"""A table whose spectators see everything late (a broadcast delay), on a real server:
Planowanie tables whose spectators are shown every hand, but only ``reveal_delay``
seconds after each state was made, both for a table of programs (played in a worker
process) and a person's table (played in the server's), while the person's own page
gets each state at once with their own hand only; a delay outside its bounds is
refused naming it; the record of such a table is public once it is over."""

from __future__ import annotations

import asyncio
import html
import time
from collections.abc import Iterator
from typing import Any

import pytest
from table_server import Person, Server, next_state, running_server

DELAY = 3.0
CLOCKS = {"person_turn": "60", "program_turn": "5", "pace": "0"}
LATE = {"reveal": "delay", "reveal_delay": f"{DELAY:g}", "deals": "2 2 0 2 1", **CLOCKS}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the module's tests."""
    with running_server(tmp_path_factory.mktemp("delay") / "data") as running:
        yield running


async def watch_late(person: Person, table: str, until: float) -> list[tuple[float, Any]]:
    """A spectator's states of ``table`` (with when each came) until it is over or
    ``until`` (``time.time``)."""
    seen: list[tuple[float, Any]] = []
    async with person.socket(table) as ws:
        while time.time() < until:
            try:
                state = await next_state(ws, max(0.1, until - time.time()))
            except TimeoutError:
                break
            seen.append((time.time(), state))
            if state["table"]["status"] != "playing":
                break
    return seen


def test_a_table_of_programs_shows_its_spectators_every_hand_late(server: Server) -> None:
    vera = server.person("vera")
    opened = time.time()
    table = vera.open_table("planowanie", players="3", seat0="bot:random",
                            seat1="bot:heuristic", seat2="bot:random", **LATE)
    seen = asyncio.run(watch_late(vera, table, opened + DELAY + 40))
    assert seen, "no state reached the spectator"
    assert seen[0][0] - opened >= DELAY - 0.5  # (nothing before the delay)
    for came, state in seen:
        assert came - state["table"]["at"] >= DELAY - 0.05
        assert state["you"] is None and len(state["view"]["hands"]) == 3  # every hand
    assert seen[-1][1]["table"]["status"] == "finished"
    assert vera.client.get(f"/tables/{table}/record").status_code == 200
    assert Person(server, "anyone").client.get(f"/tables/{table}/record").status_code == 200


def test_a_persons_page_is_not_late_and_sees_only_its_hand(server: Server) -> None:
    wes = server.person("wes")
    watcher = server.person("xavier")
    table = wes.open_table("planowanie", players="2", seat0="me", seat1="bot:heuristic",
                           **LATE)

    async def play() -> tuple[dict[str, Any], list[tuple[float, Any]], float]:
        async with wes.socket(table) as mine:
            first = await next_state(mine, 10)
            watching = asyncio.create_task(watch_late(watcher, table, time.time() + 30))
            await asyncio.sleep(2)
            await mine.send('{"type": "resign"}')
            resigned = time.time()
            while (await next_state(mine))["table"]["status"] == "playing":
                pass
            return first, await watching, resigned

    first, seen, resigned = asyncio.run(play())
    assert "hands" not in first["view"] and first["view"]["hand"]
    assert time.time() - first["table"]["at"] < DELAY + 30  # (sanity: it came)
    assert seen and all(came - state["table"]["at"] >= DELAY - 0.05 for came, state in seen)
    assert all(len(state["view"]["hands"]) == 2 for _, state in seen)
    assert seen[-1][1]["table"]["status"] == "finished"
    assert seen[-1][0] >= resigned + DELAY - 0.5


def test_a_delay_out_of_bounds_is_refused_naming_it(server: Server) -> None:
    yuri = server.person("yuri")
    for delay, words in (("0.5", "a delay of 0.5 s is outside 1..3600"),
                         ("soon", "'soon' is not a number of seconds")):
        answer = yuri.post("/tables", {"game": "planowanie", "players": "2", "seat0": "me",
                                       "seat1": "bot:random", "reveal": "delay",
                                       "reveal_delay": delay, **CLOCKS},
                           "/tables/new?game=planowanie")
        assert answer.status_code == 400 and words in html.unescape(answer.text), words
