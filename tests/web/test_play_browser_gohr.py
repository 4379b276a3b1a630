"""A whole GOHR game in a real browser (Debian's Chromium through Playwright): a person
signs up, opens a table from the lobby with a rule set pasted into its textarea on
several lines (the colors rule on two rows, a comment) on a given board (pasted on
several lines too), and clears it twice with the board: a piece clicked then a bucket
(a denied attempt shown as such), a piece dragged to a bucket, a piece picked and put by
keyboard; a second browser watches it live and sees the rule only once the game is
over; the game ends in the records, which ``replay`` checks. Screenshots (the form, the
game) go to tests/artifacts/."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from table_server import Server, sign_up_in_browser

from browsing import Tab, playwright_api
from referee.core.record import GameRecord

api = playwright_api()  # the module is skipped, saying why, without Chromium or Playwright

pytestmark = pytest.mark.slow

MINE = ".gohr-board[data-mine=true]"
BOARD = json.dumps({"value": [{"id": 0, "color": "RED", "shape": "STAR", "x": 1, "y": 1},
                              {"id": 1, "color": "BLUE", "shape": "CIRCLE", "x": 6, "y": 6},
                              {"id": 2, "color": "YELLOW", "shape": "TRIANGLE", "x": 3,
                               "y": 4}]}, indent=1)
RULES = """# Each color has its own bucket; the first row takes one piece,
# the second every other one.
1 (*,*,red,*,[0]) (*,*,blue,*,[1]) (*,*,black,*,[2]) (*,*,yellow,*,[3])

(*,*,red,*,[0]) (*,*,blue,*,[1]) (*,*,black,*,[2]) (*,*,yellow,*,[3])"""
"""The colors rule on two rows (joined into one line, it would not parse)."""


def seq(page: Any) -> int:
    """How many states the page has received."""
    return int(page.locator("#board").get_attribute("data-seq") or 0)


def piece(page: Any, x: int, y: int) -> Any:
    """The piece button on column ``x``, row ``y``."""
    return page.locator(f".gohr-piece[data-x='{x}'][data-y='{y}']")


def test_a_person_plays_gohr_in_the_browser_and_another_watches(
        browser: Any, server: Server) -> None:
    player = Tab(browser)
    watcher = Tab(browser)
    sign_up_in_browser(player, server.url, "ada")
    page = player.page
    page.locator("#games li[data-game=gohr] a").click()
    page.select_option("select[name=rules]", "pasted")
    pasted = page.locator("textarea[name=rules_text]")
    pasted.fill(RULES)
    assert pasted.input_value() == RULES  # its lines kept, as a text input would not
    page.select_option("select[name=boards]", "given")
    page.locator("textarea[name=given]").fill(BOARD)
    page.fill("input[name=episodes]", "2")
    page.select_option("select[name=seat0]", "me")
    player.shot("web-gohr-form.png")
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*")
    table = page.url.rsplit("/", 1)[1]
    watcher.page.goto(f"{server.url}/tables/{table}")
    answer = page.locator(".gohr-answer")

    def move(act: Any) -> None:
        page.locator(MINE).wait_for(timeout=10_000)
        before = seq(page)
        act()
        page.wait_for_function("n => Number(document.querySelector('#board').dataset.seq) > n",
                               arg=before)

    for board in (1, 2):
        page.locator(MINE).wait_for(timeout=10_000)
        assert page.locator(".gohr-piece").count() == 3
        assert page.locator(".gohr-head").text_content().startswith(f"Board {board} of 2")
        if board == 1:  # a wrong bucket first: denied, and shown on the piece
            move(lambda: (piece(page, 1, 1).click(), page.locator(".gohr-bucket.b1").click()))
            assert answer.text_content().startswith("Denied: the red star")
            assert "denied" in (piece(page, 1, 1).get_attribute("class") or "")
            move(lambda: piece(page, 1, 1).drag_to(page.locator(".gohr-bucket.b0")))
        else:
            move(lambda: (piece(page, 1, 1).click(), page.locator(".gohr-bucket.b0").click()))
        assert answer.text_content().startswith("Accepted: the red star")
        assert page.locator(".gohr-bucket.b0 .gohr-count").text_content() == "1"

        def by_keyboard() -> None:
            piece(page, 6, 6).focus()
            page.keyboard.press("Enter")
            page.keyboard.press("2")
        move(by_keyboard)
        assert answer.text_content().startswith("Accepted: the blue circle")
        move(lambda: (piece(page, 3, 4).click(), page.locator(".gohr-bucket.b3").click()))
        assert page.locator(".gohr-piece").count() == 0
        if board == 1:
            assert answer.text_content().startswith("Board cleared!")
            move(lambda: page.get_by_role("button", name="Next board").click())
    for tab in (page, watcher.page):
        tab.wait_for_function(
            "() => document.querySelector('#status').textContent.startsWith('Game over')")
    head = page.locator(".gohr-head").text_content() or ""
    assert "all boards: 7 moves, 1 error, score 86%" in head, head
    assert watcher.page.locator(".gohr-head").text_content() == head
    assert watcher.page.locator(MINE).count() == 0
    assert "(*,*,red,*,[0])" in (watcher.page.locator(".gohr-rules").text_content() or "")
    assert page.locator(".gohr-rules").is_hidden()
    assert watcher.page.locator(".gohr-results tbody tr").count() == 2
    player.shot("web-gohr-player.png")
    watcher.shot("web-gohr-watcher.png")
    path = server.data / "records" / "gohr" / f"game-{table}.json"
    record = GameRecord.read(path)
    assert [p.name for p in record.players] == ["ada"]
    assert record.settings["rules_text"] == RULES and record.settings["rules"] == "pasted"
    assert [m.move for m in record.moves] == ["MOVE 0 1", "MOVE 0 0", "MOVE 1 1", "MOVE 2 3",
                                             "NEW", "MOVE 0 0", "MOVE 1 1", "MOVE 2 3"]
    assert record.scores == [round(6 / 7, 6)]
    done = subprocess.run([sys.executable, "-m", "referee.cli", "replay", "gohr", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "OK" in done.stdout, done.stdout + done.stderr
    assert not player.errors and not watcher.errors, player.errors + watcher.errors
