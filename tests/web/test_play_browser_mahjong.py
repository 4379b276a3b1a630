"""A whole ICGA Mahjong game in a real browser (Debian's Chromium through Playwright): a
person signs up, opens a table against three built-in AIs from the lobby and plays it by
clicking the tiles drawn with the results site's pictures and the claim buttons (and by
keyboard now and then), while a second browser watches and sees no concealed tile; the
result with its tai is shown, the record downloads from the table's page, and the
game's store has it. Screenshots go to tests/artifacts/."""

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

BOARD = "#board .mj-board"


def hand_tiles(page: Any, seat: int) -> int:
    """How many tiles of ``seat``'s concealed hand (and drawn tile) the page draws."""
    return int(page.locator(f"g.tt-seat[data-seat='{seat}'] .tt-hand g.tile, "
                            f"g.tt-seat[data-seat='{seat}'] .tt-drawn g.tile").count())


def test_a_person_plays_mahjong_in_the_browser_and_another_watches(
        browser: Any, server: Server) -> None:
    player = Tab(browser)
    watcher = Tab(browser)
    sign_up_in_browser(player, server.url, "mei")
    page = player.page
    page.locator("#games li[data-game=mahjong] a").click()
    page.fill("input[name=hands]", "1")
    page.select_option("select[name=scoring]", "taiwan")
    page.select_option("select[name=seat0]", "me")
    for seat in (1, 2, 3):
        page.select_option(f"select[name=seat{seat}]", "bot:random")
    page.fill("input[name=program_turn]", "10")
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*")
    table = page.url.rsplit("/", 1)[1]
    watcher.page.goto(f"{server.url}/tables/{table}")
    watcher.page.wait_for_selector("svg.tiles g.tile")
    answers = {"throw": 0, "claim": 0, "keys": 0}
    watched_hidden = True
    for turn in range(200):
        if page.locator("#board").get_attribute("data-status") == "finished" or \
                (page.locator("#status").text_content() or "").startswith("Game over"):
            break
        try:
            page.wait_for_selector(f"{BOARD}[data-mine=true]", timeout=15_000)
        except Exception:
            break  # the hand ended on the AIs' moves
        seq = int(page.locator("#board").get_attribute("data-seq") or "0")
        ask = page.locator(BOARD).get_attribute("data-ask")
        assert hand_tiles(page, 0) > 0 and all(hand_tiles(page, s) == 0 for s in (1, 2, 3))
        watched_hidden = watched_hidden and all(hand_tiles(watcher.page, s) == 0
                                                for s in range(4))
        if ask == "throw":
            tiles = page.locator(f"{BOARD} g.tile.playable")
            assert tiles.count() > 0
            if turn % 3 == 1:  # by keyboard: the focused tile, one to the right, Enter
                tiles.first.focus()
                page.keyboard.press("ArrowRight")
                page.keyboard.press("Enter")
                answers["keys"] += 1
            else:
                tiles.last.click()
            answers["throw"] += 1
        else:
            buttons = page.locator(f"{BOARD} .mj-claims button")
            assert buttons.count() >= 2 or ask == "hu"
            win = page.locator(f"{BOARD} .mj-claims button.mj-win")
            if win.count():
                win.click()
            elif turn % 2:
                page.keyboard.press("x")  # pass by keyboard
                answers["keys"] += 1
            else:
                page.locator(f"{BOARD} .mj-claims button.mj-pass").click()
            answers["claim"] += 1
        page.wait_for_function(
            "n => Number(document.querySelector('#board').dataset.seq) > n", arg=seq)
    page.wait_for_function(
        "() => document.querySelector('#status').textContent.startsWith('Game over')",
        timeout=30_000)
    watcher.page.wait_for_function(
        "() => document.querySelector('#status').textContent.startsWith('Game over')")
    assert answers["throw"] > 3 and answers["keys"] > 0, answers
    assert watched_hidden  # the spectator saw no concealed tile while the hand was played
    headline = page.locator("g.tt-result .tt-headline").text_content() or ""
    assert headline.startswith("Draw") or " wins (" in headline, headline
    if " wins (" in headline:
        lines = page.locator("g.tt-result .tt-line").all_text_contents()
        assert any(line.endswith("tai in all") for line in lines), lines
    assert watcher.page.locator(f"{BOARD}[data-mine=true]").count() == 0
    assert watcher.page.locator("g.tt-result").count() == 1
    player.shot("web-mahjong-player.png")
    watcher.shot("web-mahjong-watcher.png")
    page.reload()
    with page.expect_download() as waiting:
        page.get_by_role("link", name="The game's record").click()
    record = json.loads(Path(waiting.value.path()).read_text())
    assert [p["name"] for p in record["players"]] == ["mei", "random", "random", "random"]
    assert sum(1 for move in record["moves"] if move["seat"] == 0) >= answers["throw"]
    page.goto(f"{server.url}/lobby")
    assert page.locator(f"#finished a[href='/tables/{table}']").count() == 1
    store = Store.open_existing(server.data / "stores" / "mahjong")
    try:
        assert store.count("done") == 1 and store.record(table).moves
    finally:
        store.close()
    assert not player.errors and not watcher.errors, player.errors + watcher.errors
