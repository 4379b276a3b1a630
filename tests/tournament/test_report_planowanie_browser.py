"""A Planowanie game's replay in a real browser (headless Chromium from file:// URLs), on
a site built from a small real tournament of the built-in players: the standings link to
the games, a game page steps with the keys, and the deal and the cards shown at a step
are those the engine gives when the record is replayed to that step; the downloads,
clicked, read back (the results as CSV and PGN and the tournament file on the index, the
record on a game page). A screenshot of the pages goes to tests/artifacts/."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from browsing import Tab, playwright_api
from referee.core.checking import record_seed
from referee.core.record import GameRecord, result_text
from referee.games.planowanie.replay import parse_move, record_rules
from referee.games.planowanie.rules import PlanowanieGame, cards_of
from referee.tournament.pgn import read_pgn_results
from referee.tournament.report import build_site
from referee.tournament.report.site import Paths
from referee.tournament.store import GameRow, Store
from tournament_runs import as_published, run_quietly

playwright_api()  # the module is skipped, saying why, without Chromium or Playwright

TOURNAMENT = """
name = "planowanie-browser"
game = "planowanie"
seed = 6
output = "out"

[schedule]
kind = "itpw"
rounds = 1
random_rounds = 1

[settings]
deals = "3 3 0 2 1 1 2"

[[players]]
name = "heuristic"
builtin = "heuristic"

[[players]]
name = "random"
builtin = "random"

[[players]]
name = "heuristic2"
builtin = "heuristic"

[[players]]
name = "random2"
builtin = "random"
"""

VISIBLE_TEXT = """() => Array.from(document.querySelectorAll('svg.board text')).filter(e => {
    for (let n = e; n instanceof Element; n = n.parentNode) {
        if (n.getAttribute('display') === 'none') return false; }
    return true; }).map(e => e.textContent).join(' ')"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("planowanie-browser")
    out = run_quietly(folder, TOURNAMENT)
    return out, build_site(out, folder / "site")



def engine_at(record: GameRecord, steps: int) -> PlanowanieGame:
    """The game replayed to ``steps`` moves of the record."""
    rules = record_rules(record.settings)
    engine = PlanowanieGame(rules, record_seed(record))
    for move in record.moves[:steps]:
        action = parse_move(move.move, rules.deck)
        assert action is not None and engine.illegal_reason(move.seat, action) is None
        engine.apply(move.seat, action)
    return engine


def test_standings_then_a_game_stepped_by_keys(site: tuple[Path, Path],
                                                 browser: object) -> None:
    store_folder, index = site
    store = Store.open_existing(store_folder)
    try:
        rows = sorted(store.games(status="done"), key=lambda r: r.seq)
        record = store.record(rows[0].key)
    finally:
        store.close()
    assert len(record.moves) > 8
    tab = Tab(browser)
    page = tab.page
    try:
        page.goto(index.as_uri())
        assert page.locator("#standings-table tbody tr").count() == 4
        tab.shot("planowanie-index.png")
        page.goto((index.parent / Paths.game(rows[0])).as_uri())
        page.keyboard.press("Home")
        assert page.locator(".replay-pos").inner_text() == "0"
        for k in range(1, 8):
            page.keyboard.press("ArrowRight")
            assert page.locator(".replay-pos").inner_text() == str(k)
            engine = engine_at(record, k)
            shown = page.evaluate(VISIBLE_TEXT)
            table = engine.table
            if table.phase.name != "OVER":
                assert f"Deal {table.deal + 1} / " in shown, (k, shown)
            # every card still in a hand is written on the table
            deck = engine.rules.deck
            for hand in engine.hands:
                for card in cards_of(hand):
                    assert re.search(re.escape(deck.name(card)[0]), shown), (k, card)
        tab.shot("planowanie-replay.png")
        page.keyboard.press("End")
        assert page.locator(".replay-pos").inner_text() == str(len(record.moves))
        assert "game over" in page.evaluate(VISIBLE_TEXT)
        assert tab.errors == []
    finally:
        tab.close()


SMALLEST_TEXT = """() => {
    const svg = document.querySelector('svg.board');
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return Math.min(...Array.from(svg.querySelectorAll('text')).map(
        t => parseFloat(getComputedStyle(t).fontSize) * scale)); }"""
SCROLL = "() => document.querySelector('.replay-moves').scrollTop"


def test_a_narrow_page_keeps_the_table_readable(site: tuple[Path, Path],
                                                browser: object) -> None:
    """At 400 pixels (a phone) the table is drawn large enough to read, its box scrolls
    sideways, and what it shows first is each seat's name, bid, tricks and points; back
    at the start the move list shows its top."""
    store_folder, index = site
    store = Store.open_existing(store_folder)
    try:
        row = min(store.games(status="done"), key=lambda r: r.seq)
    finally:
        store.close()
    tab = Tab(browser, viewport={"width": 400, "height": 800})
    page = tab.page
    try:
        page.goto((index.parent / Paths.game(row)).as_uri())
        assert page.evaluate(SMALLEST_TEXT) >= 9.5  # (it was about 5 px)
        box = page.locator(".replay-board").bounding_box()
        assert box is not None and box["x"] + box["width"] <= 400
        assert page.evaluate("() => { const b = document.querySelector('.replay-board'); "
                             "return b.scrollWidth > b.clientWidth; }")
        points = page.locator("svg.board text.pw-r").first.bounding_box()
        assert points is not None and points["x"] + points["width"] <= box["x"] + box["width"]
        tab.shot("planowanie-replay-400.png")
        page.keyboard.press("End")
        assert page.evaluate(SCROLL) > 0  # the last move in sight
        page.get_by_role("button", name="First").click()
        assert page.locator(".replay-pos").inner_text() == "0"
        assert page.evaluate(SCROLL) == 0  # (it stayed scrolled at the end)
        assert tab.errors == []
    finally:
        tab.close()


def pairwise_results(row: GameRow) -> list[tuple[str, str, float]]:
    """A finished game's results between each two seats, the earlier seat first (only
    those of the player at fault, if one was): 1, 0.5 or 0 for the earlier seat."""
    assert row.scores is not None
    results = []
    for a in range(len(row.seats)):
        for b in range(a + 1, len(row.seats)):
            if row.offender is None or row.offender in (a, b):
                sa, sb = row.scores[a], row.scores[b]
                results.append((row.seats[a], row.seats[b],
                                1.0 if sa > sb else 0.0 if sa < sb else 0.5))
    return results


def test_the_downloads_read_back(site: tuple[Path, Path], browser: object,
                                 tmp_path: Path) -> None:
    store_folder, index = site
    store = Store.open_existing(store_folder)
    try:
        rows = sorted(store.games(), key=lambda r: r.seq)
        record = store.record(rows[0].key)
    finally:
        store.close()
    tab = Tab(browser)
    try:
        tab.page.goto(index.as_uri())
        labels = tab.download_labels()
        assert labels == ["Results (CSV)", "Results (PGN)", "Tournament file (TOML)"]
        results, pgn, toml = (tab.download(label) for label in labels)
        game_page = index.parent / Paths.game(rows[0])
        tab.page.goto(game_page.as_uri())
        name, data = tab.download("Record (JSON)")
        assert tab.errors == []
    finally:
        tab.close()
    assert name == f"{game_page.stem}.json"
    assert GameRecord.from_dict(json.loads(data)).to_dict() == as_published(record)

    name, data = results
    lines = list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    assert name == "results.csv" and len(lines) == len(rows) == 4
    for line, row in zip(lines, rows, strict=True):
        assert row.status == "done" and row.scores is not None
        assert (line["game"], line["round"], line["status"], line["key"]) == (
            str(row.seq), str(row.round), row.status, row.key)
        assert (line["result"], line["outcome"], line["moves"]) == (
            result_text(row.scores), row.outcome, str(row.plies))
        assert [line[f"player_{k}"] for k in range(1, 5)] == list(row.seats)
        assert [float(line[f"score_{k}"]) for k in range(1, 5)] == list(row.scores)

    name, data = pgn
    assert name == "results.pgn"
    (tmp_path / name).write_bytes(data)
    got = sorted(tuple(r) for r in read_pgn_results(tmp_path / name))
    assert got == sorted(r for row in rows for r in pairwise_results(row))

    name, data = toml
    assert name == "tournament.toml" and data.decode("utf-8") == TOURNAMENT
