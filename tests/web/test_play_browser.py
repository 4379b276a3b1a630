"""A whole game in a real browser (Debian's Chromium through Playwright): a person signs
up, opens a Gomoku table against a built-in bot from the lobby, and plays it by clicking
the board; a second browser watches it live; the game ends in the lobby's finished
games, its record downloads from its page, and the game's store has it. Screenshots go
to tests/artifacts/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from table_server import Server, sign_up_in_browser

from browsing import Tab, playwright_api
from referee.tournament.store import Store

api = playwright_api()  # the module is skipped, saying why, without Chromium or Playwright

pytestmark = pytest.mark.slow


FREE_SPOTS = "svg.gomoku-board circle.spot"


def test_a_person_plays_gomoku_in_the_browser_and_another_watches(
        browser: Any, server: Server) -> None:
    player = Tab(browser)
    watcher = Tab(browser)
    sign_up_in_browser(player, server.url, "ada")
    page = player.page
    page.locator("#games li[data-game=gomoku] a").click()
    page.fill("input[name=size]", "9")
    page.select_option("select[name=seat0]", "me")
    page.select_option("select[name=seat1]", "bot:random")
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*")
    table = page.url.rsplit("/", 1)[1]
    watcher.page.goto(f"{server.url}/tables/{table}")
    page.wait_for_selector("svg.gomoku-board[data-mine=true]")
    seen: list[int] = []
    for _ in range(60):
        if page.locator("#board").get_attribute("data-status") == "finished":
            break
        mine = page.locator("svg.gomoku-board[data-mine=true]")
        try:
            mine.wait_for(timeout=10_000)
        except Exception:
            break  # the game ended on the bot's move
        stones = page.locator("svg.gomoku-board circle.stone").count()
        spots = page.locator(FREE_SPOTS)
        # the middle row first: a line of five comes quickly against a random bot
        row = page.locator(f"{FREE_SPOTS}[data-y='4']")
        (row.first if row.count() else spots.first).click()
        page.wait_for_function(
            "n => document.querySelectorAll('svg.gomoku-board circle.stone').length > n",
            arg=stones)
        seen.append(watcher.page.locator("svg.gomoku-board circle.stone").count())
    page.wait_for_function(
        "() => document.querySelector('#status').textContent.startsWith('Game over')")
    status = page.locator("#status").text_content() or ""
    assert "ada" in status and "random" in status
    watcher.page.wait_for_function(
        "() => document.querySelector('#status').textContent.startsWith('Game over')")
    final = page.locator("svg.gomoku-board circle.stone").count()
    assert watcher.page.locator("svg.gomoku-board circle.stone").count() == final
    assert seen and seen == sorted(seen) and max(seen) > 1  # it watched the game grow
    assert watcher.page.locator("svg.gomoku-board[data-mine=true]").count() == 0
    player.shot("web-gomoku-player.png")
    watcher.shot("web-gomoku-watcher.png")
    page.reload()
    with page.expect_download() as waiting:
        page.get_by_role("link", name="The game's record").click()
    record = json.loads(Path(waiting.value.path()).read_text())
    assert [p["name"] for p in record["players"]] == ["ada", "random"]
    assert len(record["moves"]) == final
    page.goto(f"{server.url}/lobby")
    assert page.locator(f"#finished a[href='/tables/{table}']").count() == 1
    store = Store.open_existing(server.data / "stores" / "gomoku")
    try:
        assert store.count("done") == 1 and store.record(table).moves
    finally:
        store.close()
    assert not player.errors and not watcher.errors, player.errors + watcher.errors
