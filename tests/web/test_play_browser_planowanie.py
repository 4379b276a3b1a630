"""A whole Planowanie game in a real browser (Debian's Chromium through Playwright): a
person signs up, opens a table against a built-in bot from the lobby, and plays it with
the board, declaring with the number picker (by mouse and by keyboard) and playing the
cards it lets them click (only the legal ones can be); a second browser watches it live
and sees no hand; the game ends in the records, which ``replay`` checks. Screenshots go
to tests/artifacts/."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from table_server import Server, sign_up_in_browser

from browsing import Tab, playwright_api
from referee.core.record import GameRecord

api = playwright_api()  # the module is skipped, saying why, without Chromium or Playwright

pytestmark = pytest.mark.slow

BOARD = ".pw-board"
MINE = ".pw-board[data-mine=true]"


def seq(page: Any) -> int:
    """How many states the page has received."""
    return int(page.locator("#board").get_attribute("data-seq") or 0)


def test_a_person_plays_planowanie_in_the_browser_and_another_watches(
        browser: Any, server: Server) -> None:
    player = Tab(browser)
    watcher = Tab(browser)
    sign_up_in_browser(player, server.url, "ada")
    page = player.page
    page.locator("#games li[data-game=planowanie] a").click()
    page.fill("input[name=players]", "2")
    page.fill("input[name=deals]", "3 3 0 2 1 2 0")
    page.select_option("select[name=seat0]", "me")
    page.select_option("select[name=seat1]", "bot:heuristic")
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*")
    table = page.url.rsplit("/", 1)[1]
    watcher.page.goto(f"{server.url}/tables/{table}")
    declared = played = refused_clicks = 0
    watched_tricks: set[str] = set()
    for _ in range(40):
        if page.locator("#board").get_attribute("data-status") == "finished":
            break
        try:
            page.locator(MINE).wait_for(timeout=10_000)
        except Exception:
            break  # the game ended on the bot's move
        before = seq(page)
        if page.locator(".pw-declare").is_visible():
            numbers = page.locator(".pw-declare button.pw-n")
            assert numbers.count() == int(page.locator(".pw-number").get_attribute("max")) + 1
            if declared % 2:  # by keyboard: the picker has the focus
                page.keyboard.press("Control+A")
                page.keyboard.type("1")
                page.keyboard.press("Enter")
            else:
                numbers.first.click()
            declared += 1
        else:
            cards = page.locator(".pw-hand button.pw-card")
            legal = page.locator(".pw-hand button.pw-card.legal")
            assert legal.count() >= 1
            for k in range(cards.count()):  # only the legal cards can be clicked
                button = cards.nth(k)
                assert button.is_enabled() == ("legal" in (button.get_attribute("class") or ""))
            refused_clicks += cards.count() - legal.count()
            if played % 2:
                page.keyboard.press("Enter")  # the first legal card has the focus
            else:
                legal.last.click()
            played += 1
        page.wait_for_function("n => Number(document.querySelector('#board').dataset.seq) > n",
                               arg=before)
        # (read at once: the watcher's board is redrawn whenever a state comes)
        watched_tricks |= set(watcher.page.locator(".pw-trick .pw-card").evaluate_all(
            "cards => cards.map(card => card.dataset.card || '')"))
    page.wait_for_function(
        "() => document.querySelector('#status').textContent.startsWith('Game over')")
    watcher.page.wait_for_function(
        "() => document.querySelector('#status').textContent.startsWith('Game over')")
    status = page.locator("#status").text_content() or ""
    assert "ada" in status and "heuristic" in status
    assert declared == 3 and played == 7
    assert watched_tricks  # the watcher saw the cards on the table as they came
    assert watcher.page.locator(".pw-hand").is_hidden()
    assert watcher.page.locator(f"{BOARD}[data-mine=true]").count() == 0
    assert watcher.page.locator(".pw-declare").is_hidden()
    points = page.locator(".pw-seats td.pw-points").all_text_contents()
    assert points == watcher.page.locator(".pw-seats td.pw-points").all_text_contents()
    player.shot("web-planowanie-player.png")
    watcher.shot("web-planowanie-watcher.png")
    path = server.data / "records" / "planowanie" / f"game-{table}.json"
    record = GameRecord.read(path)
    assert [p.name for p in record.players] == ["ada", "heuristic"]
    assert record.scores == [float(p) for p in points]
    assert len([m for m in record.moves if m.seat == 0]) == 10
    done = subprocess.run([sys.executable, "-m", "referee.cli", "replay", "planowanie",
                           str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "OK" in done.stdout, done.stdout + done.stderr
    assert not player.errors and not watcher.errors, player.errors + watcher.errors
