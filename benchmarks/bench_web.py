"""The game server under load (issue 38's targets), on one ``referee web`` process.

1. Spectators: ``--tables`` (100) Gomoku tables of two instant native brains (registered
   programs; boards of ``--size`` 24, which such games fill: 576 moves each, so that
   all are in play together for a while; at the server's pace for tables of programs,
   or ``--pace`` seconds, 0 for as fast as the CPUs go), opened at once by four clients, and
   ``--spectators`` (1,000) spectator WebSockets spread over them, each joining as its
   table opens (bare sockets, ``ws_watcher``: the client's own cost would otherwise be
   the figure). Every state a spectator receives carries the time the server published
   it (after the move was applied): receipt minus that is a move's way from its decision
   to a spectator. Target: p99 under 100 ms, over the whole run and over the steady
   state (every spectator connected, no game over yet). The baseline, in the same run: a
   message's round trip on an idle connection of the same server (a refused message and
   its answer), before the load.
2. Memory: the server's resident memory before and after opening ``--spectators`` idle
   WebSockets (on a table not begun, before the load), per connection.
3. A person's click to the other player's page: two people at a table, each answering at
   once when asked; the time from one sending a move to the other's page receiving the
   board with it, ``--moves`` of them. Target: p99 under 50 ms locally.

Run: ``.venv/bin/python benchmarks/bench_web.py [--tables 100] [--spectators 1000]
[--size 24] [--pace S] [--moves 200] [--workers 2] [--json]`` (needs a C compiler for the brain).
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psutil
import websockets
from figures import machine, print_figures
from native import native
from ws_watcher import ACK, STOP, masked_text_frame, watch_socket

SEEN = '{"type":"seen"}'
SHOWN = masked_text_frame(SEEN)
HEAD = re.compile(rb'\{"type":"state","table":\{"id":"[^"]*","game":"[^"]*",'
                  rb'"status":"(?P<status>[a-z]+)","result":"(?:[^"\\]|\\.)*","at":(?P<at>[0-9.]+)')
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def server(data: Path, workers: int) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A ``referee web`` process on a free port (``workers`` table workers), its log
    beside its folder."""
    port = free_port()
    log = (data.parent / "server.log").open("wb")
    process = subprocess.Popen([sys.executable, "-m", "referee.cli", "web", "--data", str(data),
                                "--port", str(port), "--table-workers", str(workers)],
                               stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "/", timeout=1).status_code == 200:
                    break
            time.sleep(0.1)
        yield url, process
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


class Person:
    """A signed-up client."""

    def __init__(self, url: str, name: str) -> None:
        self.url = url
        self.client = httpx.Client(base_url=url, timeout=60)
        token = CSRF.search(self.client.get("/signup").text).group(1)  # type: ignore[union-attr]
        self.client.post("/signup", data={"csrf_token": token, "name": name,
                                          "password": "a-long-secret",
                                          "password2": "a-long-secret"})

    def open_table(self, **form: str) -> str:
        page = self.client.get("/tables/new?game=gomoku").text
        token = CSRF.search(page).group(1)  # type: ignore[union-attr]
        answer = self.client.post("/tables", data={"csrf_token": token, "game": "gomoku",
                                                   **form})
        assert answer.status_code == 303, answer.text[:500]
        return answer.headers["location"].rsplit("/", 1)[1]

    def sit(self, table: str) -> None:
        page = self.client.get(f"/tables/{table}").text
        token = CSRF.search(page).group(1)  # type: ignore[union-attr]
        self.client.post(f"/tables/{table}/sit", data={"csrf_token": token, "seat": "1"})

    def socket(self, table: str) -> Any:
        cookie = "; ".join(f"{k}={v}" for k, v in self.client.cookies.items())
        return websockets.connect(self.url.replace("http", "ws") + f"/tables/{table}/live",
                                  additional_headers={"Cookie": cookie, "Origin": self.url},
                                  max_size=2**24)


def spectator(url: str, table: str) -> Any:
    return websockets.connect(url.replace("http", "ws") + f"/tables/{table}/live",
                              additional_headers={"Origin": url}, max_size=2**24,
                              open_timeout=60)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def round_trips(url: str, table: str, count: int = 200) -> list[float]:
    """An idle connection's message round trips (a refused message and its answer), ms."""
    times = []
    async with spectator(url, table) as ws:
        with contextlib.suppress(TimeoutError):
            while True:
                await asyncio.wait_for(ws.recv(), 0.5)
        for _ in range(count):
            started = time.perf_counter()
            await ws.send("{}")
            while json.loads(await ws.recv())["type"] != "refused":
                pass
            times.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.06)  # (under the flood limit of 20 a second)
    return times


class Watching:
    """What every spectator of the run saw: each move state's receipt time and delay, each
    game end's delay; when every spectator held its socket and when the first game ended
    (between the two, every table plays and every spectator watches: the steady state)."""

    def __init__(self, spectators: int) -> None:
        self.moves: list[tuple[float, float]] = []
        self.ends: list[float] = []
        self.connected = 0
        self.spectators = spectators
        self.all_connected: float | None = None
        self.first_end: float | None = None


async def watch(url: str, table: str, seen: Watching) -> None:
    """A spectator (a bare socket: ``ws_watcher``): each state's delay since the server
    published it, until the game ends (read from the message's head, as the table's
    summary comes first: a thousand pages' whole boards parsed in this one process would
    make its own loop the figure); it says it showed each state, as the table's page
    does."""
    first = True

    def on_text(payload: bytes) -> str:
        nonlocal first
        now = time.time()
        head = HEAD.match(payload)
        if head is None:
            return STOP if json.loads(payload)["type"] == "closed" else ""
        if not first:  # (a page's first state is the newest kept, from before it came)
            delay = (now - float(head["at"])) * 1000
            # (the game's end is told once its record is kept: its last move came before)
            if head["status"] == b"playing":
                seen.moves.append((now, delay))
            else:
                seen.ends.append(delay)
        first = False
        if head["status"] != b"playing":
            if seen.first_end is None:
                seen.first_end = now
            return STOP
        return ACK  # (a state: the page says it showed it; other messages it does not)

    watcher = await watch_socket(url, f"/tables/{table}/live", on_text, SHOWN)
    seen.connected += 1
    if seen.connected == seen.spectators:
        seen.all_connected = time.time()
    try:
        await asyncio.wait_for(watcher.done, 600)
    finally:
        watcher.close()


async def loop_lag(lags: list[float], every: float = 0.01) -> None:
    """How late this client's own event loop wakes (ms), every ``every`` seconds: a
    spectator's figure includes it (the time from the socket to the reading code)."""
    while True:
        started = time.perf_counter()
        await asyncio.sleep(every)
        lags.append((time.perf_counter() - started - every) * 1000)


def register(data: Path, program: Path, owner: str) -> None:
    for name in ("instant-a", "instant-b"):
        subprocess.run([sys.executable, "-m", "referee.cli", "web", "program", "add", name,
                        "--game", "gomoku", "--owner", owner, "--data", str(data), "--",
                        str(program)], check=True, capture_output=True)


async def spectators_part(url: str, person: Person, tables: int, spectators: int,
                          size: int, pace: float | None) -> dict[str, Any]:
    """``tables`` tables of the instant programs opened at once (by four clients), each
    one's share of ``spectators`` joining as soon as it is open; every state received."""
    seen = Watching(spectators)
    started = time.monotonic()
    loop = asyncio.get_running_loop()
    lags: list[float] = []
    lagging = asyncio.create_task(loop_lag(lags))
    pool = concurrent.futures.ThreadPoolExecutor(4)
    form = {"size": str(size), "seat0": "program:instant-a", "seat1": "program:instant-b",
            "program_turn": "5", **({} if pace is None else {"pace": f"{pace:g}"})}
    opening = [loop.run_in_executor(pool, lambda: person.open_table(**form))
               for _ in range(tables)]
    watchers = []
    for index, opened in enumerate(asyncio.as_completed(opening)):
        table = await opened
        share = spectators // tables + (1 if index < spectators % tables else 0)
        watchers += [asyncio.create_task(watch(url, table, seen)) for _ in range(share)]
    opened_in = time.monotonic() - started
    await asyncio.gather(*watchers)
    pool.shutdown()
    lagging.cancel()
    latencies = [delay for _, delay in seen.moves]
    steady = [delay for at, delay in seen.moves if seen.all_connected is not None
              and seen.first_end is not None and seen.all_connected <= at <= seen.first_end]
    window = (seen.first_end - seen.all_connected if seen.all_connected and seen.first_end
              and seen.first_end > seen.all_connected else 0.0)
    return {"client_lag_p50_ms": round(percentile(lags, 0.5), 1),
            "client_lag_p99_ms": round(percentile(lags, 0.99), 1),
            "tables": tables, "spectators": spectators, "tables_opened_s": round(opened_in, 1),
            "states_received": len(latencies),
            "spectator_p50_ms": round(percentile(latencies, 0.5), 1),
            "spectator_p99_ms": round(percentile(latencies, 0.99), 1),
            "spectator_max_ms": round(max(latencies), 1),
            "steady_s": round(window, 1), "steady_states": len(steady),
            "steady_p50_ms": round(percentile(steady, 0.5), 1) if steady else None,
            "steady_p99_ms": round(percentile(steady, 0.99), 1) if steady else None,
            "steady_max_ms": round(max(steady), 1) if steady else None,
            "game_end_states": len(seen.ends),
            "game_end_p50_ms": round(percentile(seen.ends, 0.5), 1),
            "game_end_p99_ms": round(percentile(seen.ends, 0.99), 1),
            "seconds": round(time.monotonic() - started, 1)}


async def memory_part(url: str, pid: int, table: str, count: int) -> dict[str, Any]:
    process = psutil.Process(pid)
    await asyncio.sleep(1)
    before = process.memory_info().rss
    sockets = []
    for _ in range(count):
        sockets.append(await spectator(url, table).__aenter__())
    await asyncio.sleep(2)
    after = process.memory_info().rss
    for ws in sockets:
        await ws.close()
    return {"idle_connections": count, "rss_before_mb": round(before / 2**20, 1),
            "rss_after_mb": round(after / 2**20, 1),
            "kb_per_idle_connection": round((after - before) / count / 1024, 1)}


async def clicks_part(url: str, moves: int) -> dict[str, Any]:
    one, two = Person(url, "clicker1"), Person(url, "clicker2")
    table = one.open_table(size="32", seat0="me", seat1="open", person_turn="60")
    two.sit(table)
    delays: list[float] = []

    async def play(ws: Any, other: Any, seat: int, sent: dict[str, float]) -> None:
        while len(delays) < moves:
            state = json.loads(await ws.recv())
            if state["type"] != "state" or state["table"]["status"] != "playing":
                if state["type"] == "state" and state["table"]["status"] != "playing":
                    return
                continue
            stones = state["view"]["stones"]
            key = ",".join(map(str, stones[-1][:2])) if stones else ""
            if key in sent and state["you"] != sent_by.get(key):
                delays.append((time.perf_counter() - sent.pop(key)) * 1000)
            if state["table"]["asking"] == seat:
                taken = {(x, y) for x, y, _ in stones}
                x, y = next((x, y) for y in range(32) for x in range(32)
                            if (x, y) not in taken and (x + 2 * y) % 4 // 2 == seat)
                sent[f"{x},{y}"] = time.perf_counter()
                sent_by[f"{x},{y}"] = seat
                await ws.send(json.dumps({"type": "move", "move": {"point": [x, y]}}))

    sent: dict[str, float] = {}
    sent_by: dict[str, int] = {}
    async with one.socket(table) as a, two.socket(table) as b:
        _, pending = await asyncio.wait([asyncio.create_task(play(a, b, 0, sent)),
                                         asyncio.create_task(play(b, a, 1, sent))],
                                        return_when=asyncio.FIRST_COMPLETED)
        for task in pending:  # (the other page: its socket closes with the block)
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
    return {"clicks": len(delays), "click_p50_ms": round(percentile(delays, 0.5), 1),
            "click_p99_ms": round(percentile(delays, 0.99), 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--size", type=int, default=24)
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2, help="--table-workers")
    parser.add_argument("--pace", type=float, default=None,
                        help="the tables' pace in seconds (default: the server's)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    program = native("instant_gomoku")
    with tempfile.TemporaryDirectory(dir=Path(__file__).resolve().parent) as temp:
        data = Path(temp) / "data"
        with server(data, args.workers) as (url, process):
            person = Person(url, "bench")
            register(data, program, "bench")
            idle = person.open_table(size="9", seat0="me", seat1="open")
            floor = asyncio.run(round_trips(url, idle))
            result: dict[str, Any] = {"machine": machine(),
                                      "round_trip_p50_ms": round(percentile(floor, 0.5), 2),
                                      "round_trip_p99_ms": round(percentile(floor, 0.99), 2)}
            # (memory first: after the load, freed memory would be used again)
            result.update(asyncio.run(memory_part(url, process.pid, idle, args.spectators)))
            load = psutil.getloadavg()
            served = psutil.Process(process.pid)
            cpu = sum(served.cpu_times()[:2])
            spectators = asyncio.run(spectators_part(url, person, args.tables,
                                                     args.spectators, args.size,
                                                     args.pace))
            spectators["server_cpu_s"] = round(sum(served.cpu_times()[:2]) - cpu, 2)
            result.update(spectators)
            result["spectator_p99_over_round_trip"] = round(
                result["spectator_p99_ms"] / max(result["round_trip_p99_ms"], 0.01), 1)
            result.update(asyncio.run(clicks_part(url, args.moves)))
            result["click_p99_over_round_trip"] = round(
                result["click_p99_ms"] / max(result["round_trip_p99_ms"], 0.01), 1)
            result["load_before"] = [round(x, 2) for x in load]
    print_figures(result, args.json)


if __name__ == "__main__":
    main()
