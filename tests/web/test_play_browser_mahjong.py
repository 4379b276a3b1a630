"""A whole ICGA Mahjong game in a real browser (Debian's Chromium through Playwright): a
person signs up, opens a table against three built-in AIs from the lobby and plays it by
clicking the tiles drawn with the results site's pictures and the claim buttons (and by
keyboard now and then), while a second browser watches and sees no concealed tile; the
result with its tai is shown, the record downloads from the table's page, and the
game's store has it. Screenshots go to tests/artifacts/."""

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

pytestmark = pytest.mark.slow

BOARD = "#board .mj-board"


def test_a_person_plays_mahjong_in_the_browser_and_another_watches(
        browser: Any, server: Server) -> None:
    player = Tab(browser)
    watcher = Tab(browser)
    sign_up_in_browser(player, server.url, "mei")
    page = player.page
    table = open_from_lobby(page, "mahjong", {"scoring": "taiwan", "seat0": "me",
                                              **{f"seat{s}": "bot:random" for s in (1, 2, 3)}},
                            {"hands": "1", "program_turn": "10"})
    watcher.page.goto(f"{server.url}/tables/{table}")
    watcher.page.wait_for_selector("svg.tiles g.tile")
    answers = {"throw": 0, "claim": 0, "keys": 0}
    watched_hidden = True
    for turn in my_turns(page, BOARD, 200):
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
    wait_game_over(page, watcher.page)
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
    record = finished_table(page, server, "mahjong", table)
    assert [p["name"] for p in record["players"]] == ["mei", "random", "random", "random"]
    assert sum(1 for move in record["moves"] if move["seat"] == 0) >= answers["throw"]
    assert not player.errors and not watcher.errors, player.errors + watcher.errors
