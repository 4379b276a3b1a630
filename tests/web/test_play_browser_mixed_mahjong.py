"""A mixed ICGA Mahjong table in a real browser (Debian's Chromium through Playwright):
two people, each in a browser context of their own, a built-in AI and a program joining
with ``referee connect mahjong URL --seat N``. The first person opens the table from the
lobby (one hand, pinch-hit ticked) and sends the second the invitation link, who sits
down through the page; both play by clicking tiles and claim buttons, each only when
their own page says it is their turn. The second person closes the page mid-hand; after
the server's short leave grace (``--away 1``) the pinch-hitter plays on for them and the
first person plays the hand to its end. The page shows the result, the record says who
played which part, the game's store has it, and no page ever draws another seat's
concealed tiles. Screenshots (both pages) go to tests/artifacts/."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from table_server import Server, running_server, sign_up_in_browser
from tile_tables import hand_tiles

from browsing import Tab, playwright_api
from referee.core.record import GameRecord
from referee.tournament.store import Store

api = playwright_api()  # the module is skipped, saying why, without Chromium or Playwright

pytestmark = pytest.mark.slow

BOARD = "#board .mj-board"
PROGRAM = "far-random"
"""The name the connected program plays under."""
B_THROWS = 3
"""The second person's discards before they close their page. The AIs at the table are
the random ones, and neither person wins before then: a hand of them is next to never
won that early (none in 4000 simulated deals; with the greedy AI at two seats, about one
in 400 was), so the hand is still being played when the page closes."""
PHASE = """seq => {
  const box = document.querySelector('#board');
  if (box.dataset.status === 'finished' || box.dataset.status === 'aborted') return 'over';
  const root = box.querySelector('.mj-board');
  if (root && root.dataset.mine === 'true') return 'mine';
  return Number(box.dataset.seq || 0) > seq ? 'moved' : false;
}"""
"""What a page shows now: the game over, its person asked, or a state newer than the
one counted ``seq``; false (wait on) otherwise."""


@pytest.fixture()
def quick_server(tmp_path: Path) -> Iterator[Server]:
    """A server of the test's own whose people's seats wait one second for them to
    come back once their pages are closed."""
    with running_server(tmp_path / "data", "--away", "1") as running:
        yield running


def seq_of(page: Any) -> int:
    """How many states the page has been sent."""
    return int(page.locator("#board").get_attribute("data-seq") or "0")


def phase(page: Any, timeout: float) -> str | None:
    """Wait up to ``timeout`` ms for the page to show something new: ``over``, ``mine``
    or ``moved``; ``None`` if nothing changed meanwhile."""
    try:
        return str(page.wait_for_function(PHASE, arg=seq_of(page),
                                          timeout=timeout).json_value())
    except api.TimeoutError:
        return None


class Reader:
    """A process's standard error read line by line in a thread (a line we wait for is
    waited for with a timeout, and the pipe never fills)."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        assert process.stderr is not None
        self.lines: list[str] = []
        self.queue: queue.Queue[str] = queue.Queue()
        self.thread = threading.Thread(target=self._read, args=(process,), daemon=True)
        self.thread.start()

    def _read(self, process: subprocess.Popen[str]) -> None:
        assert process.stderr is not None
        for line in process.stderr:
            self.lines.append(line)
            self.queue.put(line)
        self.queue.put("")

    def wait_for(self, words: str, timeout: float) -> str:
        """The first line with ``words`` (an assertion error at the end of the output or
        after ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {words!r} in {timeout} s: {self.lines}") from None
            if words in line:
                return line
            assert line, f"the process ended without {words!r}: {self.lines}"

    def text(self) -> str:
        """Everything read (call once the process has ended)."""
        self.thread.join(timeout=30)
        return "".join(self.lines)


class Person:
    """One person's page at the table, and what they did there."""

    def __init__(self, tab: Tab, seat: int) -> None:
        self.tab = tab
        self.page = tab.page
        self.seat = seat
        self.throws = 0
        self.claims: dict[str, int] = {}
        self.open = True

    def check_hidden(self) -> None:
        """The page draws its own hand and no other seat's concealed tile."""
        assert hand_tiles(self.page, self.seat) > 0
        for other in range(4):
            if other != self.seat:
                assert hand_tiles(self.page, other) == 0, (self.seat, other)

    def answer(self, claim: bool) -> None:
        """Click an answer to the question the page shows: a tile to throw, or a claim
        button (a pung, chow or win when ``claim``, else pass), then wait for the next
        state."""
        page = self.page
        seq = seq_of(page)
        ask = page.locator(BOARD).get_attribute("data-ask")
        self.check_hidden()
        if ask == "throw":
            tiles = page.locator(f"{BOARD} g.tile.playable")
            assert tiles.count() > 0
            (tiles.first if self.throws % 2 else tiles.last).click()
            self.throws += 1
        else:
            buttons = page.locator(f"{BOARD} .mj-claims button")
            assert buttons.count() >= 1, ask
            actions = [b.get_attribute("data-action") for b in buttons.all()]
            wanted = ("win", "pung", "chow") if claim else ()
            pick = next((a for a in wanted if a in actions), None)
            if pick is None:
                pick = "pass" if "pass" in actions else actions[0]
            assert pick is not None
            page.locator(f"{BOARD} .mj-claims button[data-action='{pick}']").first.click()
            self.claims[pick] = self.claims.get(pick, 0) + 1
        page.wait_for_function(
            "n => Number(document.querySelector('#board').dataset.seq) > n || "
            "!document.querySelector('#refused').hidden", arg=seq, timeout=20_000)
        assert page.locator("#refused").is_hidden(), page.locator("#refused").text_content()


def open_table(tab: Tab, url: str) -> tuple[str, str, str]:
    """The first person opens the mixed table from the lobby: its id, the invitation
    link of the open seat and the ``referee connect`` line of the program's seat."""
    page = tab.page
    page.locator("#games li[data-game=mahjong] a").click()
    page.fill("input[name=hands]", "1")
    page.select_option("select[name=seat0]", "me")
    page.select_option("select[name=seat1]", "open")
    page.select_option("select[name=seat2]", "bot:random")
    page.select_option("select[name=seat3]", "remote")
    page.check("input[name=pinch_hit]")
    page.fill("input[name=person_turn]", "60")
    page.fill("input[name=program_turn]", "10")
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*")
    table = page.url.rsplit("/", 1)[1]
    assert (page.locator("#status").text_content() or "").startswith("Waiting for players")
    invite = page.locator("#seats li[data-seat='1'] .invite a").get_attribute("href")
    assert invite and invite.startswith(f"/tables/{table}?invite="), invite
    connect = page.locator("#seats li[data-seat='3'] .connect code").text_content() or ""
    assert connect.startswith("referee connect mahjong ") and \
        connect.endswith(" --seat 4 -- COMMAND"), connect
    return table, url + invite, connect.split()[3]


def test_two_people_a_bot_and_a_program_play_and_the_pinch_hitter_takes_over(
        browser: Any, quick_server: Server, tmp_path: Path) -> None:
    server = quick_server
    tab_a, tab_b = Tab(browser), Tab(browser)
    assert tab_a.context is not tab_b.context
    sign_up_in_browser(tab_a, server.url, "ann")
    table, invite, join_url = open_table(tab_a, server.url)
    sign_up_in_browser(tab_b, server.url, "bea")  # (a context of its own: its own cookies)
    assert {c["name"]: c["value"] for c in tab_a.context.cookies()} != \
        {c["name"]: c["value"] for c in tab_b.context.cookies()}
    tab_b.page.goto(invite)
    sit = tab_b.page.locator("#seats li[data-seat='1'] form button", has_text="Sit here")
    assert sit.count() == 1
    sit.click()
    tab_b.page.wait_for_url(f"**/tables/{table}")
    assert tab_b.page.locator("#board").get_attribute("data-seat") == "1"
    assert tab_a.page.locator("#board").get_attribute("data-seat") == "0"
    assert (tab_b.page.locator("#status").text_content() or "").startswith("Waiting")
    joined = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "connect", "mahjong", join_url, "--seat", "4",
         "--name", PROGRAM, "--sandbox", "off", "--out", str(tmp_path / "far"), "--",
         "random"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    said = Reader(joined)
    try:
        line = said.wait_for(f"as {PROGRAM}, seat 4", 60)
        assert "joined" in line, line
        ann, bea = Person(tab_a, 0), Person(tab_b, 1)
        for person in (ann, bea):  # the program's joining started the game
            person.page.wait_for_selector("svg.tiles g.tile", timeout=30_000)
        play(ann, bea)
        joined.wait(timeout=60)
    finally:
        if joined.poll() is None:
            joined.kill()
            joined.wait()
    err = said.text()
    assert joined.returncode == 0, err
    assert "the seat's game is over" in err and "Traceback" not in err, err
    check_result(ann, server, table)
    assert not tab_a.errors, tab_a.errors


def play(ann: Person, bea: Person) -> None:
    """Both people answer whenever their page asks them, until the second has thrown
    ``B_THROWS`` tiles and is asked again: then their page is closed, and the first plays
    on to the end (while the pinch-hitter plays the second's seat)."""
    deadline = time.monotonic() + 150
    while True:
        assert time.monotonic() < deadline, (ann.throws, bea.throws)
        people = [p for p in (ann, bea) if p.open]
        for person in people:
            # (the other's page may be asked: wait on this one briefly, it returns early
            # on any new state; the last one open waits as long as a turn may take)
            seen = phase(person.page, 300 if len(people) > 1 else 30_000)
            if seen == "over":
                assert not bea.open, "the hand ended before the second person left"
                return
            if seen != "mine":
                continue
            ask = person.page.locator(BOARD).get_attribute("data-ask")
            if person is bea and ask == "throw" and bea.throws >= B_THROWS:
                bea.check_hidden()
                bea.tab.shot("web-mahjong-mixed-leaver.png")
                bea.tab.close()  # mid-hand, with the seat asked: the grace runs out
                bea.open = False
                assert not bea.tab.errors, bea.tab.errors
                break
            person.answer(claim=person is ann and not bea.open)


def check_result(ann: Person, server: Server, table: str) -> None:
    """The first person's page shows the result; the record and the store say who
    played which part."""
    page = ann.page
    page.wait_for_function(
        "() => document.querySelector('#status').textContent.startsWith('Game over')")
    headline = page.locator("g.tt-result .tt-headline").text_content() or ""
    assert headline.startswith("Draw") or " wins (" in headline, headline
    assert page.locator(f"{BOARD}[data-mine=true]").count() == 0
    assert page.locator("#seats li[data-seat='1'].absent.deputy").count() == 1
    assert PROGRAM in (page.locator("svg.tiles").text_content() or "")
    # (the page was drawn before the game began: its seat list now says who plays)
    assert page.locator("#seats form, #seats .invite, #seats .connect, #start-now").count() == 0
    assert page.locator("#seats li[data-seat='3'] .name").text_content() == PROGRAM
    assert page.locator("#seats li[data-seat='1'] .name").text_content() == "bea"
    assert ann.throws > 3, (ann.throws, ann.claims)
    ann.tab.shot("web-mahjong-mixed.png")
    path = server.data / "records" / "mahjong" / f"game-{table}.json"
    record = GameRecord.read(path)  # (written before the last state was sent)
    assert record.finished and record.outcome is not None \
        and record.outcome.value == "normal", record.reason
    assert [p.name for p in record.players] == ["ann", "bea", "random", PROGRAM]
    notes = [n for n in record.notes if n.kind == "table"]
    left = [n for n in notes if n.text == "bea left the table: dummy plays seat 2"]
    assert len(left) == 1 and left[0].seat == 1, [(n.seat, n.text) for n in notes]
    ply = left[0].ply
    before = [m for m in record.moves[:ply] if m.seat == 1]
    after = [m for m in record.moves[ply:] if m.seat == 1]
    assert len(before) >= B_THROWS and after, (len(before), len(after))  # bea, then dummy
    assert {m.seat for m in record.moves} == {0, 1, 2, 3}
    assert not any(m.info.get("illegal") for m in record.moves)
    store = Store.open_existing(server.data / "stores" / "mahjong")
    try:
        stored = store.record(table)
        assert [p.name for p in stored.players] == [p.name for p in record.players]
        assert len(stored.moves) == len(record.moves)
    finally:
        store.close()
    page.goto(f"{server.url}/lobby")
    assert page.locator(f"#finished a[href='/tables/{table}']").count() == 1
