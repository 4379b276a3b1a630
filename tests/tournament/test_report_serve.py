"""``referee report STORE --serve``: the site served on 127.0.0.1 while a real tournament
runs in another process; the server builds it again as games finish, tells open pages
over server-sent events, and a page in Chromium takes the new content without a
reload."""

from __future__ import annotations

import http.client
import itertools
import json
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browsing import CHROMIUM, MISSING, chromium

TOURNAMENT = """
name = "live-test"
game = "gomoku"
seed = 5
concurrency = 1
output = "out"

[schedule]
kind = "round-robin"
rounds = 4

[settings]
size = 9
timeout_turn = 2000

[[players]]
name = "threat"
builtin = "threat"

[[players]]
name = "slow"
command = ["PYTHON", "slow_brain.py"]
"""

ROOT = Path(__file__).resolve().parents[2]

REFEREE = [sys.executable, "-m", "referee.cli"]


def games_listed(html: str) -> int:
    """The number of finished games an index page says ("played / scheduled": N / M)."""
    found = re.search(r"played[^0-9]*?(\d+) / \d+", html)
    return int(found.group(1)) if found else 0


THINK = 0.5
"""Seconds the slow brain thinks a move: the browser's test needs games still going once
Chromium is up; the others need only a few games to finish while they look."""


def write_tournament(folder: Path, rounds: int = 4, think: float = THINK) -> None:
    """The tournament file, and its slow brain: the example brain thinking ``think``
    seconds a move (so that games finish while the test looks; the time a move may take
    is 2 s more than that, at least 2 s)."""
    brain = (ROOT / "examples" / "bots" / "gomoku_center.py").read_text(encoding="utf-8")
    slow = brain.replace('def move() -> str:\n', 'def move() -> str:\n'
                         f'    __import__("time").sleep({think})\n', 1)
    assert slow != brain
    (folder / "slow_brain.py").write_text(slow, encoding="utf-8")
    (folder / "t.toml").write_text(TOURNAMENT.replace("PYTHON", sys.executable)
                                   .replace("rounds = 4", f"rounds = {rounds}")
                                   .replace("timeout_turn = 2000", "timeout_turn = "
                                            f"{max(2000, round(think * 1000) + 2000)}"),
                                   encoding="utf-8")


def get(port: int, path: str) -> tuple[int, dict[str, str], str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read().decode()
    finally:
        connection.close()


@pytest.fixture
def live(tmp_path: Path, request: pytest.FixtureRequest
         ) -> Iterator[tuple[subprocess.Popen[str], subprocess.Popen[str], int]]:
    """A tournament started, and once its first game is done, a live site of its store
    (the slow brain thinks the seconds given as the fixture's parameter, else ``THINK``)."""
    write_tournament(tmp_path, think=getattr(request, "param", THINK))
    tournament = subprocess.Popen([*REFEREE, "tournament", "t.toml"], cwd=tmp_path,
                                  text=True, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
    records = tmp_path / "out" / "records.jsonl"
    deadline = time.monotonic() + 120
    while not (records.is_file() and records.stat().st_size > 0):
        assert time.monotonic() < deadline and tournament.poll() is None, "no game finished"
        time.sleep(0.1)
    server = subprocess.Popen([*REFEREE, "report", "out", "--serve", "--port", "0"],
                              cwd=tmp_path, text=True, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        assert server.stdout is not None
        server.stdout.readline()  # the index written
        line = server.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, (line, server.stderr.read() if server.poll() is not None else "")
        yield tournament, server, int(found.group(1))
    finally:
        for process in (tournament, server):
            if process.poll() is None:
                process.kill()
            process.wait(timeout=30)


@pytest.mark.slow
@pytest.mark.parametrize("live", [0.2], indirect=True)
def test_the_site_is_served_and_rebuilt_as_games_finish(
        live: tuple[subprocess.Popen[str], subprocess.Popen[str], int]) -> None:
    tournament, server, port = live
    status, headers, page = get(port, "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert page.rstrip().endswith("</html>")
    assert '<script src="/_live/live.js"></script></body>' in page
    first = games_listed(page)
    assert first >= 1
    status, headers, script = get(port, "/_live/live.js")
    assert status == 200 and "EventSource" in script
    assert get(port, "/static/site.css")[0] == 200
    assert get(port, "/nothing.html")[0] == 404
    with socket.create_connection(("127.0.0.1", port), timeout=60) as stream:
        stream.sendall(b"GET /_live/events HTTP/1.1\r\nHost: x\r\n\r\n")
        received = b""
        progress: list[dict[str, Any]] = []
        playing: list[dict[str, Any]] = []
        # a game finishes: the site is rebuilt; and the games in progress come move by
        # move (a rebuild may come before the next game's first move: read on)
        while b"event: site" not in received or not playing:
            chunk = stream.recv(4096)
            assert chunk, received
            whole = received.rfind(b"\n") + 1  # (the lines already read end there)
            received += chunk
            for line in received[whole:].decode(errors="replace").split("\n")[:-1]:
                if line.startswith("data: {"):
                    progress.append(json.loads(line[6:]))
                    playing += [g for g in progress[-1].get("games", []) if g["moves"]]
        assert b"text/event-stream" in received and b"event: hello" in received
    game = playing[-1]
    assert game["players"] in (["threat", "slow"], ["slow", "threat"])
    assert re.fullmatch(r"\d+,\d+", game["last"]["move"]) and game["last"]["seat"] in (0, 1)
    assert all(p["total"] == 8 for p in progress if p)
    status, _, shown = get(port, "/_live/progress.json")
    assert status == 200 and "games" in json.loads(shown)
    assert tournament.wait(timeout=300) == 0
    deadline = time.monotonic() + 30  # (the server looks once a second, then builds)
    while (later := games_listed(get(port, "/index.html")[2])) < 8:
        assert time.monotonic() < deadline, later
        time.sleep(0.2)
    assert later == 8 > first
    server.send_signal(signal.SIGTERM)
    assert server.wait(timeout=30) == 0


def test_a_port_in_use_is_one_line(tmp_path: Path) -> None:
    write_tournament(tmp_path, rounds=1, think=0)  # (a store: the games' pace is not looked at)
    assert subprocess.run([*REFEREE, "tournament", "t.toml"], cwd=tmp_path,
                          capture_output=True).returncode == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run([*REFEREE, "report", "out", "--serve", "--port", str(port)],
                             cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines()[-1] == (
        f"referee: error: cannot serve on 127.0.0.1:{port}: Address already in use; "
        "choose another --port (0: any free one)")


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)
def test_an_open_page_takes_the_new_results_without_a_reload(
        live: tuple[subprocess.Popen[str], subprocess.Popen[str], int]) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    tournament, _server, port = live
    with chromium(sync_api) as browser:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"http://127.0.0.1:{port}/index.html")
        page.wait_for_function("() => document.querySelector('.live-note') && "
                               "/^live: (connected|updated)/.test(document"
                               ".querySelector('.live-note').textContent)",
                               timeout=20_000)
        page.evaluate("() => { window.sameDocument = true; }")
        before = games_listed(page.content())
        page.wait_for_function(
            "() => document.documentElement.getAttribute('data-live-version')",
            timeout=120_000)
        assert page.evaluate("() => window.sameDocument") is True  # no reload
        page.wait_for_function(
            "before => { const m = /played[^0-9]*?(\\d+) \\/ \\d+/"
            ".exec(document.body.innerText); return m && +m[1] > before; }",
            arg=before, timeout=120_000)
        assert page.locator(".live-note").inner_text().startswith("live: updated")
        page.wait_for_selector(".live-games li[data-key]", timeout=60_000)
        shown = page.locator(".live-games li").first
        assert " vs " in shown.inner_text() and "slow" in shown.inner_text()
        assert page.locator(".live-games h2").inner_text().startswith("In progress (")
        assert not errors, errors
    assert tournament.poll() in (None, 0)  # (playing on, or ended well: the fixture stops it)


@pytest.mark.slow
def test_the_tournament_builds_its_site_as_games_finish(tmp_path: Path) -> None:
    write_tournament(tmp_path, think=0.2)
    tournament = subprocess.Popen([*REFEREE, "tournament", "t.toml"], cwd=tmp_path,
                                  text=True, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE)
    index = tmp_path / "out" / "report" / "index.html"
    seen: set[int] = set()
    try:
        while tournament.poll() is None:
            if index.is_file():
                seen.add(games_listed(index.read_text(encoding="utf-8")))
            time.sleep(0.2)
    finally:
        if tournament.poll() is None:
            tournament.kill()
    assert tournament.wait(timeout=60) == 0
    assert games_listed(index.read_text(encoding="utf-8")) == 8  # the final build
    assert {n for n in seen if 0 < n < 8}, seen  # and builds while it ran


def test_the_refresher_builds_one_at_a_time_and_not_too_often(
        caplog: pytest.LogCaptureFixture) -> None:
    from referee.tournament.report.refresh import SiteRefresher

    builds: list[float] = []

    def build() -> None:
        builds.append(time.monotonic())
        if len(builds) == 2:
            raise OSError("disk full")

    refresher = SiteRefresher(build, interval=0.3)
    start = time.monotonic()
    try:
        for _ in range(40):  # pokes every 0.05 s for 2 s: a build every 0.3 s at most
            refresher.poke()
            time.sleep(0.05)
        time.sleep(0.5)
    finally:
        refresher.close()
    assert 3 <= len(builds) <= 8, builds
    gaps = [b - a for a, b in itertools.pairwise(builds)]
    assert min(gaps) >= 0.29 and builds[0] - start >= 0.29
    assert refresher.builds == len(builds) - 1  # the failed one not counted
    assert sum("could not be built" in r.message for r in caplog.records) == 1


def test_a_close_that_comes_as_a_build_begins_ends_the_refresher() -> None:
    """``close`` sets its stop and pokes; landing just before the refresher clears the
    poke for its next build, the poke goes with it, and the refresher must still stop
    (it waited for a poke forever and the tournament with it, seen once in 2,768 tests)."""
    from referee.tournament.report.refresh import SiteRefresher

    refresher = SiteRefresher(lambda: None, interval=0.0)
    clear = refresher._poked.clear

    def close_then_clear() -> None:
        refresher._stop.set()  # (close's two steps, just before the clear)
        refresher._poked.set()
        clear()

    refresher._poked.clear = close_then_clear  # type: ignore[method-assign]
    refresher.poke()
    refresher._thread.join(5)
    assert not refresher._thread.is_alive()
    assert refresher.builds == 0  # (stopped before building)


TICKS = """async () => {
    for (let tries = 0; tries < 20; tries++) {
        const clock = document.querySelector('.live-games .live-clock');
        if (clock) {
            const before = clock.textContent;
            for (let waited = 0; waited < 5000 && document.contains(clock)
                     && clock.textContent === before; waited += 100) {
                await new Promise(done => setTimeout(done, 100));
            }
            if (document.contains(clock)) { return [before, clock.textContent]; }
        } else { await new Promise(done => setTimeout(done, 200)); }
    }
    return null; }"""
"""A clock of the list, read until it shows another time (at most 5 s: its tick is every
second, later on a loaded machine) while no event redrew the list."""
SHOWN_STONES = """() => Array.from(document.querySelectorAll('svg.board circle.stone')).filter(
    e => { for (let n = e; n instanceof Element; n = n.parentNode) {
        if (n.getAttribute('display') === 'none') return false; } return true; }).length"""


@pytest.mark.slow
@pytest.mark.skipif(not CHROMIUM.exists(), reason=MISSING)
@pytest.mark.parametrize("live", [2.0], indirect=True)
def test_each_game_in_progress_has_a_live_board(
        live: tuple[subprocess.Popen[str], subprocess.Popen[str], int]) -> None:
    """The list of games in progress names the players, the move number and the last move
    as players write it (``e5``, not the wire's ``4,4``), with clocks that tick between
    events; each game links to its live board, the replay page's board fed by the moves
    so far, which takes the next moves in place and, once the game is over, says where
    its page is."""
    sync_api = pytest.importorskip("playwright.sync_api")
    tournament, _server, port = live
    with chromium(sync_api) as browser:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(f"http://127.0.0.1:{port}/index.html")
        page.wait_for_function("() => Array.from(document.querySelectorAll('.live-games li'))"
                               ".some(li => / move \\d+: /.test(li.textContent))",
                               timeout=60_000)
        line = next(text for text in page.locator(".live-games li").all_inner_texts()
                    if " move " in text)
        assert re.search(r"^(threat vs slow|slow vs threat) \(r\d+:\S+\), move \d+: "
                         r"[a-i][1-9] by (threat|slow), \d+ s since the start, \d+ s since "
                         r"the last move$", line), line
        assert not re.search(r"\d,\d", line)  # (the wire's coordinates)
        ticked = page.evaluate(TICKS)
        assert ticked is not None, "the list was redrawn at every look"
        before, after = (int(t.split()[0]) for t in ticked)
        assert after > before, ticked  # the clock moved on with no event

        for _ in range(5):  # (a game may end between the list and its board: the next)
            page.locator(".live-games a.live-board").first.click()
            page.wait_for_selector("[data-live-key], .live-over")
            assert page.url.startswith(f"http://127.0.0.1:{port}/_live/game/r")
            if page.locator("[data-live-key]").count():
                break
            page.goto(f"http://127.0.0.1:{port}/index.html")
            page.wait_for_selector(".live-games a.live-board", timeout=60_000)
        key = page.locator("[data-live-key]").get_attribute("data-live-key")
        assert key is not None and page.title().startswith("Live: ")

        def shown() -> tuple[int, int, str]:
            moves = int(page.locator("[data-live-key]").get_attribute("data-moves") or 0)
            return moves, int(page.evaluate(SHOWN_STONES)), page.locator(
                ".replay-pos").inner_text() if page.locator(".replay-pos").count() else ""

        page.wait_for_function("() => +document.querySelector('[data-live-key]')"
                               ".getAttribute('data-moves') > 0", timeout=30_000)
        first = shown()
        assert first[1] == first[0] and first[2] == str(first[0])  # every stone, the last
        page.wait_for_function(f"() => {{ const g = document.querySelector('[data-live-key]');"
                               f" return g && +g.getAttribute('data-moves') > {first[0]}; }}",
                               timeout=30_000)
        later = shown()
        assert later[0] > first[0] and later[1] == later[0] and later[2] == str(later[0])
        texts = [t.split()[1] for t in page.locator(".replay-moves li").all_inner_texts()]
        assert len(texts) == later[0] and all(re.fullmatch(r"[a-i][1-9]", t) for t in texts)
        page.keyboard.press("Home")  # looking back: the next moves keep it there
        page.wait_for_function(f"() => {{ const g = document.querySelector('[data-live-key]');"
                               f" return !g || +g.getAttribute('data-moves') > {later[0]}; }}",
                               timeout=30_000)
        if page.locator("[data-live-key]").count():
            assert page.locator(".replay-pos").inner_text() == "0"
        # the game ends: the board says so and links the game's page
        page.wait_for_selector(".live-over a", timeout=120_000)
        page.locator(".live-over a").click()
        page.wait_for_url("**/games/g*.html")
        final = [t.split()[1] for t in page.locator(".replay-moves li").all_inner_texts()]
        assert final[:len(texts)] == texts  # the same moves, written the same way
        assert not errors, errors
    tournament.kill()
