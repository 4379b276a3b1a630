"""The results site in a real browser (headless Chromium from file:// URLs): the standings
show, links lead to a game page, and the replay steps with its buttons, the arrow keys and
the move list, with no console or page error; each download, clicked, gives a file that
reads back (the record, its .psq, the results as CSV and PGN, the tournament file).
Screenshots of each page go to tests/artifacts/."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from browsing import Tab, playwright_api
from referee.core.record import GameRecord
from referee.games.gomoku.protocol import parse_point
from referee.games.gomoku.psq import read_psq
from referee.tournament.report import build_site
from referee.tournament.report.site import Paths
from referee.tournament.store import Store
from tournament_runs import as_published, run_quietly

playwright_api()  # the module is skipped, saying why, without Chromium or Playwright

TOURNAMENT = """
name = "browser-test"
game = "gomoku"
seed = 3
concurrency = 2
output = "out"

[schedule]
kind = "round-robin"

[settings]
size = 9
timeout_turn = 2000
openings = "openings.txt"

[[players]]
name = "threat"
builtin = "threat"

[[players]]
name = "random"
builtin = "random"
"""

SHOWN = """e => { for (let n = e; n instanceof Element; n = n.parentNode) {
    if (getComputedStyle(n).display === 'none') return false; } return true; }"""
VISIBLE_STONES = f"""() => Array.from(document.querySelectorAll('svg.board circle.stone'))
    .filter({SHOWN}).length"""
VISIBLE_WIN = f"""() => Array.from(document.querySelectorAll('svg.board .gk-win'))
    .filter({SHOWN}).length"""

BOARD_IMAGE_LOADS = """() => new Promise(done => {
    const image = document.querySelector('svg.board g.replay-bg image');
    const img = new Image();
    img.onload = () => done(img.naturalWidth === +image.getAttribute('width') &&
        img.naturalHeight === +image.getAttribute('height') ?
        [img.naturalWidth, img.naturalHeight] : 'not the size of its place');
    img.onerror = () => done(null);
    img.src = new URL(image.getAttribute('href'), document.baseURI).href; })"""
STONE_FILLS = """() => ['gk-b', 'gk-w'].map(c => getComputedStyle(
    document.querySelector('svg.board circle.stone.' + c)).fill)"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A real two-game tournament on 9x9 with a three-stone opening, and its site."""
    folder = tmp_path_factory.mktemp("browser")
    out = run_quietly(folder, TOURNAMENT, **{"openings.txt": "0,0 1,1 -1,1\n"})
    return out, build_site(out, folder / "site")



def test_standings_then_a_game_replay(site: tuple[Path, Path], browser: object) -> None:
    store_folder, index = site
    store = Store.open_existing(store_folder)
    try:
        rows = sorted(store.games(status="done"), key=lambda r: r.seq)
        record = store.record(rows[0].key)
    finally:
        store.close()
    moves = len(record.moves)
    opening = len(record.opening)
    assert opening == 3 and moves >= 5

    tab = Tab(browser)
    page = tab.page
    try:
        page.goto(index.as_uri())
        standings = page.locator("#standings-table")
        assert standings.is_visible()
        assert standings.locator("tbody tr").count() == 2
        assert page.locator("svg.chart polyline.rating-line").count() == 2
        opening_board = page.locator("ol.items.pictures figure")
        assert opening_board.count() == 1 and opening_board.is_visible()
        assert opening_board.locator("circle").count() == 3
        assert opening_board.locator("figcaption").inner_text() == "e5 f6 d6"
        tab.shot("gomoku-index.png")
        name, data = tab.download("Results (CSV)")
        lines = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
        assert name == "results.csv" and [line["key"] for line in lines] == [r.key for r in rows]
        name, data = tab.download("Results (PGN)")
        assert name == "results.pgn" and data.decode("utf-8").count("[White ") == 2
        name, data = tab.download("Tournament file (TOML)")
        assert name == "tournament.toml" and data.decode("utf-8") == TOURNAMENT
        page.goto((index.parent / "crosstable.html").as_uri())
        tab.shot("gomoku-crosstable.png")
        page.goto(index.as_uri())

        page.get_by_role("link", name="All 2 games").click()
        page.wait_for_url("**/games.html")
        tab.shot("gomoku-games.png")
        page.locator("#games").get_by_role("link", name="#1", exact=True).click()
        page.wait_for_url(f"**/{Paths.game(rows[0])}")
        tab.shot("gomoku-game.png")
        stem = Path(Paths.game(rows[0])).stem
        name, data = tab.download("Record (JSON)")
        assert name == f"{stem}.json"
        assert GameRecord.from_dict(json.loads(data)).to_dict() == as_published(record)
        name, data = tab.download("Piskvork .psq")
        assert name == f"{stem}.psq"
        psq = read_psq(data.decode("utf-8"))
        assert [(s.x, s.y) for s in psq.stones] == [tuple(p) for p in record.opening] + [
            parse_point(m.move) for m in record.moves]

        # the board without stones is one shared SVG image, styled as the page's stones
        assert page.evaluate(BOARD_IMAGE_LOADS) == [324, 324]  # 9x9: as big as the board
        assert page.evaluate(STONE_FILLS) == ["rgb(27, 27, 27)", "rgb(250, 250, 250)"]

        def state() -> tuple[str, int]:
            return (page.locator(".replay-pos").inner_text(),
                    int(page.evaluate(VISIBLE_STONES)))

        assert page.locator(".replay-controls").is_visible()
        assert state() == (str(moves), opening + moves)  # the final position first
        assert page.evaluate(VISIBLE_WIN) == 1
        assert page.locator(".replay-total").inner_text() == str(moves)

        # the opening stones are the move list's first line, the start (step 0)
        first = page.locator(".replay-moves li").first
        assert first.get_attribute("id") == "m0"
        assert first.inner_text().strip() == "opening e5 f6 d6"
        assert page.locator(".replay-moves li").count() == moves + 1
        page.get_by_role("button", name="First").click()
        assert state() == ("0", opening)
        assert page.locator(".replay-moves li.current").get_attribute("id") == "m0"
        assert page.get_by_role("button", name="Prev").is_disabled()
        page.get_by_role("button", name="Next").click()
        assert state() == ("1", opening + 1)
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        assert state() == ("3", opening + 3)
        page.keyboard.press("ArrowLeft")
        assert state() == ("2", opening + 2)
        assert page.locator(".replay-moves li.current").get_attribute("id") == "m2"
        page.keyboard.press("End")
        assert state() == (str(moves), opening + moves)
        assert page.get_by_role("button", name="Next").is_disabled()
        page.keyboard.press("ArrowLeft")
        assert state() == (str(moves - 1), opening + moves - 1)
        assert page.evaluate(VISIBLE_WIN) == 0
        page.keyboard.press("Home")
        assert state() == ("0", opening)
        page.get_by_role("button", name="Last").click()
        assert state() == (str(moves), opening + moves)
        page.locator('.replay-moves a[data-step="4"]').click()
        assert state() == ("4", opening + 4)
        assert page.locator(".replay-moves li.current").get_attribute("id") == "m4"
        page.locator('.replay-moves a[data-step="0"]').click()
        assert state() == ("0", opening)

        page.get_by_role("link", name="threat", exact=True).first.click()
        page.wait_for_url("**/players/threat.html")
        assert page.locator("#player-games tbody tr").count() == 2
        tab.shot("gomoku-player.png")
        assert tab.errors == []
    finally:
        tab.close()


def test_without_javascript_the_final_position_shows(site: tuple[Path, Path],
                                                     browser: object) -> None:
    store_folder, index = site
    store = Store.open_existing(store_folder)
    try:
        row = sorted(store.games(status="done"), key=lambda r: r.seq)[-1]
        record = store.record(row.key)
    finally:
        store.close()
    tab = Tab(browser, javascript=False)
    try:
        tab.page.goto((index.parent / Paths.game(row)).as_uri())
        assert not tab.page.locator(".replay-controls").is_visible()
        stones = tab.page.locator("svg.board circle.stone")
        visible = sum(1 for k in range(stones.count()) if stones.nth(k).is_visible())
        assert visible == len(record.opening) + len(record.moves)
        assert tab.page.locator(".replay-pos").inner_text() == str(len(record.moves))
        assert tab.errors == []
    finally:
        tab.close()
