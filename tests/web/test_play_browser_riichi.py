"""A whole Riichi game in a real browser (Debian's Chromium through Playwright): a person
signs up, opens a table against three built-in mjai bots from the lobby and plays an
east game by clicking the tiles drawn with the results site's pictures and the call
buttons (and by keyboard now and then), while a second browser watches and sees no
concealed tile; the hands' results with their yaku are shown, the record downloads from
the table's page, and the game's store has it. Screenshots go to tests/artifacts/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from table_server import Server, sign_up_in_browser

from browsing import Tab, playwright_api
from referee.tournament.store import Store

api = playwright_api()  # the module is skipped, saying why, without Chromium or Playwright

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]

BOARD = "#board .rc-board"


def hand_tiles(page: Any, seat: int) -> int:
    """How many tiles of ``seat``'s concealed hand (and drawn tile) the page draws."""
    return int(page.locator(f"g.tt-seat[data-seat='{seat}'] .tt-hand g.tile, "
                            f"g.tt-seat[data-seat='{seat}'] .tt-drawn g.tile").count())


def game_over(page: Any) -> bool:
    return (page.locator("#status").text_content() or "").startswith("Game over")


def test_a_person_plays_riichi_in_the_browser_and_another_watches(
        browser: Any, server: Server) -> None:
    player = Tab(browser)
    watcher = Tab(browser)
    sign_up_in_browser(player, server.url, "rin")
    page = player.page
    page.locator("#games li[data-game=riichi] a").click()
    page.select_option("select[name=room]", "tenhou")
    page.select_option("select[name=length]", "east")
    page.select_option("select[name=seat0]", "me")
    for seat in (1, 2, 3):
        page.select_option(f"select[name=seat{seat}]", "bot:tsumogiri")
    page.fill("input[name=program_turn]", "10")
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*")
    table = page.url.rsplit("/", 1)[1]
    watcher.page.goto(f"{server.url}/tables/{table}")
    watcher.page.wait_for_selector("svg.tiles g.tile")
    answers = {"discard": 0, "call": 0, "keys": 0}
    watched_hidden = True
    for turn in range(1000):
        if game_over(page):
            break
        try:
            page.wait_for_selector(f"{BOARD}[data-mine=true]", timeout=15_000)
        except Exception:
            break  # the game ended on the bots' moves
        seq = int(page.locator("#board").get_attribute("data-seq") or "0")
        calls = (page.locator(BOARD).get_attribute("data-calls") or "").split()
        assert hand_tiles(page, 0) > 0 and all(hand_tiles(page, s) == 0 for s in (1, 2, 3))
        if turn % 10 == 0:
            watched_hidden = watched_hidden and all(hand_tiles(watcher.page, s) == 0
                                                    for s in range(4))
        tiles = page.locator(f"{BOARD} g.tile.playable")
        win = [name for name in ("tsumo", "ron") if name in calls]
        if win:
            page.locator(f"{BOARD} .rc-calls button.rc-{win[0]}").click()
            answers["call"] += 1
        elif "pass" in calls:
            assert tiles.count() == 0  # a claim window: no discard offered
            if turn % 2:
                page.keyboard.press("x")  # pass by keyboard
                answers["keys"] += 1
            else:
                page.locator(f"{BOARD} .rc-calls button.rc-pass").click()
            answers["call"] += 1
        else:
            assert tiles.count() > 0
            if turn % 7 == 3:  # by keyboard: the focused tile, one to the right, Enter
                tiles.first.focus()
                page.keyboard.press("ArrowRight")
                page.keyboard.press("Enter")
                answers["keys"] += 1
            elif turn % 5 == 1 and page.locator(f"{BOARD} .tt-drawn g.tile.playable").count():
                page.keyboard.press("d")  # the drawn tile
                answers["keys"] += 1
            else:
                tiles.last.click()
            answers["discard"] += 1
        page.wait_for_function(
            "n => Number(document.querySelector('#board').dataset.seq) > n", arg=seq)
    page.wait_for_function(
        "() => document.querySelector('#status').textContent.startsWith('Game over')",
        timeout=30_000)
    watcher.page.wait_for_function(
        "() => document.querySelector('#status').textContent.startsWith('Game over')")
    assert answers["discard"] > 10 and answers["keys"] > 0, answers
    assert watched_hidden  # the spectator saw no concealed tile while the game was played
    headline = page.locator("g.tt-result .tt-headline").text_content() or ""
    assert headline.startswith("Draw") or " wins (" in headline, headline
    lines = page.locator("g.tt-result .tt-line").all_text_contents()
    assert "Game over:" in lines, lines
    if " wins (" in headline:
        assert any(line.endswith(" han") for line in lines), lines
    assert page.locator(f"{BOARD} .rc-last strong").count() == 1  # the hand before
    assert watcher.page.locator(f"{BOARD}[data-mine=true]").count() == 0
    player.shot("web-riichi-player.png")
    watcher.shot("web-riichi-watcher.png")
    page.reload()
    with page.expect_download() as waiting:
        page.get_by_role("link", name="The game's record").click()
    record = json.loads(Path(waiting.value.path()).read_text())
    assert [p["name"] for p in record["players"]] == ["rin", "tsumogiri", "tsumogiri",
                                                      "tsumogiri"]
    assert sum(1 for move in record["moves"] if move["seat"] == 0) >= answers["discard"]
    page.goto(f"{server.url}/lobby")
    assert page.locator(f"#finished a[href='/tables/{table}']").count() == 1
    store = Store.open_existing(server.data / "stores" / "riichi")
    try:
        assert store.count("done") == 1 and store.record(table).moves
    finally:
        store.close()
    assert not player.errors and not watcher.errors, player.errors + watcher.errors
