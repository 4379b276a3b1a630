"""A whole Riichi game in a real browser (Debian's Chromium through Playwright): a person
signs up, opens a table against three built-in mjai bots from the lobby and plays an
east game by clicking the tiles drawn with the results site's pictures and the call
buttons (and by keyboard now and then), while a second browser watches and sees no
concealed tile; the hands' results with their yaku are shown, the record downloads from
the table's page, and the game's store has it. Screenshots go to tests/artifacts/."""

from __future__ import annotations

from typing import Any

import pytest
from table_server import (
    Server,
    finished_table,
    my_turns,
    open_from_lobby,
    sign_up_in_browser,
    wait_game_over,
)
from tile_tables import hand_tiles

from browsing import Tab, playwright_api

api = playwright_api()  # the module is skipped, saying why, without Chromium or Playwright

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]

BOARD = "#board .rc-board"


def test_a_person_plays_riichi_in_the_browser_and_another_watches(
        browser: Any, server: Server) -> None:
    player = Tab(browser)
    watcher = Tab(browser)
    sign_up_in_browser(player, server.url, "rin")
    page = player.page
    table = open_from_lobby(page, "riichi", {"room": "tenhou", "length": "east", "seat0": "me",
                                             **{f"seat{s}": "bot:tsumogiri" for s in (1, 2, 3)}},
                            {"program_turn": "10"})
    watcher.page.goto(f"{server.url}/tables/{table}")
    watcher.page.wait_for_selector("svg.tiles g.tile")
    answers = {"discard": 0, "call": 0, "keys": 0}
    watched_hidden = True
    for turn in my_turns(page, BOARD, 1000):
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
    wait_game_over(page, watcher.page)
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
    record = finished_table(page, server, "riichi", table)
    assert [p["name"] for p in record["players"]] == ["rin", "tsumogiri", "tsumogiri",
                                                      "tsumogiri"]
    assert sum(1 for move in record["moves"] if move["seat"] == 0) >= answers["discard"]
    assert not player.errors and not watcher.errors, player.errors + watcher.errors
