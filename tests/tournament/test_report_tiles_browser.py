"""Tile-table replays in a real browser (headless Chromium from file:// URLs): sites built
from small real Riichi and ICGA Mahjong tournaments of the built-in bots; the keys step
the table, and the tiles shown for each seat (their data-tile codes) are those of the
replay's frame at that step; End and Home jump; a hostile name stays text; no console or
page error. Each download of a game page, clicked (the site served over HTTP), reads
back: the record as the store's, Riichi's mjai log as the tournament kept it and passed
by `referee replay riichi` with the record, ICGA Mahjong's record by `referee replay
mahjong`, each seat's part of its stderr log as kept. A screenshot of each replay goes
to tests/artifacts/."""

from __future__ import annotations

import contextlib
import functools
import gzip
import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from browsing import ARTIFACTS, Tab, playwright_api
from referee.core.record import GameRecord
from referee.core.replay import ReplayView, split_pond, split_tiles
from referee.games.registry import game_adapters
from referee.tournament.report import build_site
from referee.tournament.report.downloads import game_logs, mjai_logs
from referee.tournament.report.frames_markup import frames_json
from referee.tournament.report.site import Paths
from referee.tournament.store import Store
from tournament_runs import as_published, run_quietly

playwright_api()  # the module is skipped, saying why, without Chromium or Playwright

GAMES = {
    "riichi": ('game = "riichi"', 'game = "east"\ndecision_time = 10.0',
               ("greedy", "greedy", "tsumogiri", "greedy")),
    "mahjong": ('game = "mahjong"', "hands = 2\nmove_time = 10.0",
                ("greedy", "random", "greedy", "random")),
}

SEAT_TILES = """([seat, part]) => Array.from(document.querySelectorAll(
    `svg.tiles .tt-seat[data-seat="${seat}"] .${part} .tile`)).map(
    t => t.getAttribute('data-tile') + (t.getAttribute('data-flags') || ''))"""


def tournament_text(game: str) -> str:
    """A one-round ITPW tournament of four built-in bots (four games)."""
    head, settings, bots = GAMES[game]
    lines = ['name = "tiles"', head, "seed = 4", "output = \"out\"", "[schedule]",
             'kind = "itpw"', "rounds = 1", "random_rounds = 1", "[settings]", settings]
    for k, bot in enumerate(bots):
        lines += ["[[players]]", f'name = "{bot[0]}{k}"', f'builtin = "{bot}"']
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Built:
    """A game's tournament store, its site's folder, the page of its first game, that
    game's record and its replay."""

    game: str
    store: Path
    site: Path
    page: Path
    record: GameRecord
    view: ReplayView


@pytest.fixture(scope="module", params=sorted(GAMES))
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Built:
    """A game's tournament, its site, and the replay of its first game."""
    game = str(request.param)
    folder = tmp_path_factory.mktemp(f"tiles-{game}")
    store = Store.open_existing(run_quietly(folder, tournament_text(game)))
    try:
        row = min(store.games(status="done"), key=lambda r: r.seq)
        record = store.record(row.key)
    finally:
        store.close()
    view = game_adapters()[game].replay(record)
    index = build_site(folder / "out", folder / "site")
    return Built(game, folder / "out", index.parent, index.parent / Paths.game(row), record,
                 view)



class TableTab(Tab):
    """A tab that reads the tile table: the step shown, a seat's tiles."""

    def __init__(self, browser: Any, width: int = 1100) -> None:
        super().__init__(browser, viewport={"width": width, "height": 900})

    def shown(self) -> int:
        return int(self.page.locator("svg.tiles").get_attribute("data-frame") or -1)

    def seat(self, seat: int, part: str) -> list[str]:
        return list(self.page.evaluate(SEAT_TILES, [seat, part]))


def expected(frame: dict[str, Any], seat: int, part: str) -> list[str]:
    """The tiles a frame gives a seat's part of the table, as the page should show them."""
    data = frame["s"][seat]
    if part == "tt-hand":
        return split_tiles(data[2])
    if part == "tt-drawn":
        return split_tiles(data[3])
    if part == "tt-pond":
        return [code + flags for code, flags in split_pond(data[5])]
    if part == "tt-melds":
        return [code for meld in data[4] for code in split_tiles(meld[1])]
    return split_tiles(data[7])


def check_frame(tab: TableTab, view: ReplayView, k: int) -> None:
    assert tab.shown() == k
    assert tab.page.locator(".replay-pos").inner_text() == str(k)
    frame = dict(view.frames[k])
    for seat in range(4):
        for part in ("tt-hand", "tt-drawn", "tt-pond", "tt-melds", "tt-flowers"):
            assert tab.seat(seat, part) == expected(frame, seat, part), (k, seat, part)
        name = tab.page.locator(f'.tt-seat[data-seat="{seat}"] .tt-name').text_content()
        assert name == view.frame_info["names"][seat]
    results = tab.page.locator("svg.tiles .tt-result .tt-headline")
    if "x" in frame:
        assert results.text_content() == frame["x"]["h"]
    else:
        assert results.count() == 0


def test_the_keys_step_the_tile_table(built: Built, browser: Any) -> None:
    game, page_path, view = built.game, built.page, built.view
    total = len(view.steps)
    # a step where some seat has a meld and every pond has tiles: worth looking at
    k = next(i for i, f in enumerate(view.frames)
             if any(s[4] for s in f["s"]) and all(s[5] for s in f["s"]))
    tab = TableTab(browser)
    try:
        page = tab.page
        page.goto(page_path.as_uri())
        assert page.locator("script.replay-frames").count() == 1
        assert page.locator("svg.tiles").is_visible()
        check_frame(tab, view, total)  # the final position first
        page.keyboard.press("Home")
        check_frame(tab, view, 0)
        for _ in range(k + 1):
            page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowLeft")
        check_frame(tab, view, k)
        assert page.locator(".replay-moves li.current").get_attribute("id") == f"m{k}"
        ARTIFACTS.mkdir(exist_ok=True)
        page.locator("svg.tiles").screenshot(path=str(ARTIFACTS / f"{game}-replay.png"))
        page.keyboard.press("End")
        check_frame(tab, view, total)
        assert page.get_by_role("button", name="Next").is_disabled()
        page.screenshot(path=str(ARTIFACTS / f"{game}-replay-end.png"), full_page=True)
        page.keyboard.press("Home")
        check_frame(tab, view, 0)
        page.locator(f'.replay-moves a[data-step="{k - 1}"]').click()
        check_frame(tab, view, k - 1)
        page.goto(page_path.as_uri() + f"#m{k}")
        page.reload()
        check_frame(tab, view, k)
        box = page.locator("svg.tiles").bounding_box()
        assert box is not None and box["width"] > 400
        assert tab.errors == []
    finally:
        tab.close()
    phone = TableTab(browser, width=390)
    try:
        phone.page.goto(page_path.as_uri())
        box = phone.page.locator("svg.tiles").bounding_box()
        assert box is not None and 300 < box["width"] <= 390  # scaled to fit the screen
        phone.page.locator("svg.tiles").screenshot(path=str(ARTIFACTS / f"{game}-phone.png"))
        assert phone.errors == []
    finally:
        phone.close()


def test_a_hostile_name_stays_text_in_the_page(built: Built, browser: Any) -> None:
    page_path, view = built.page, built.view
    hostile = "</script><script>alert(1)</script>"
    info = {**view.frame_info, "names": [hostile, *view.frame_info["names"][1:]]}
    bad = ReplayView(view.width, view.height, view.background, view.steps, view.style,
                     view.roles, view.frames, view.renderer, info)
    html = page_path.read_text(encoding="utf-8")
    html, count = re.subn(r'(<script type="application/json" class="replay-frames">).*?'
                          r"(</script>)", lambda m: m[1] + frames_json(bad) + m[2], html,
                          flags=re.S)
    assert count == 1
    copy = page_path.with_name("hostile.html")
    copy.write_text(html, encoding="utf-8")
    tab = Tab(browser)
    try:
        tab.page.goto(copy.as_uri())
        name = tab.page.locator('.tt-seat[data-seat="0"] .tt-name').text_content()
        assert name is not None and name.startswith("</script><script>")
        assert tab.page.locator("script").count() == 3  # frames, tiles.js, replay.js
        assert tab.errors == []
    finally:
        tab.close()


def test_without_javascript_the_final_hands_show_as_text(built: Built, browser: Any) -> None:
    page_path, view = built.page, built.view
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(page_path.as_uri())
        board = page.locator("noscript svg.board")
        assert board.is_visible()
        lines = board.locator("text").all_text_contents()
        names = view.frame_info["names"]
        assert all(any(line.startswith(name) for line in lines) for name in names)
        assert page.locator("svg.tiles .tile").count() == 0
        assert not page.locator("svg.tiles").is_visible()
    finally:
        context.close()


def mjai_events(data: bytes) -> list[dict[str, Any]]:
    """The events of a gzipped mjai log (JSON lines)."""
    return [json.loads(line) for line in gzip.decompress(data).splitlines() if line.strip()]


def referee_replay(game: str, *files: Path) -> list[str]:
    """The lines ``referee replay GAME FILES`` prints (it must succeed)."""
    run = subprocess.run([sys.executable, "-m", "referee.cli", "replay", game,
                          *map(str, files)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout.splitlines()


class QuietFiles(SimpleHTTPRequestHandler):
    """Serves a folder's files without logging each request; no content for the icon a
    browser asks of every host (the site has none)."""

    def do_GET(self) -> None:
        if self.path == "/favicon.ico":
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def served(folder: Path) -> Iterator[str]:
    """The folder served over HTTP from 127.0.0.1 for the block: its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0),
                                 functools.partial(QuietFiles, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_each_download_of_a_game_page_reads_back(built: Built, browser: Any,
                                                 tmp_path: Path) -> None:
    """Served over HTTP as a hosted site is: from a file:// page Chromium opens a text
    file it can show (a stderr log) in the tab, whatever the link's download attribute."""
    tab = Tab(browser)
    try:
        with served(built.site) as base:
            url = base + built.page.relative_to(built.site).as_posix()
            tab.page.goto(url)
            labels = tab.download_labels()
            files = {}
            for k, label in enumerate(labels):
                if k and k % 10 == 0:  # Chromium lets a page start ten downloads, no more
                    tab.page.goto(url)
                files[label] = tab.download(label)
        assert tab.errors == []
    finally:
        tab.close()
    assert len(files) == len(labels)
    stem = built.page.stem
    name, data = files.pop("Record (JSON)")
    assert name == f"{stem}.json"
    assert GameRecord.from_dict(json.loads(data)).to_dict() == as_published(built.record)
    record_file = tmp_path / name
    record_file.write_bytes(data)
    if built.game == "riichi":
        name, data = files.pop("mjai log (gzip)")
        assert name == f"{stem}.mjson.gz"
        kept = mjai_logs(built.store)[built.record.settings["mjai_log"]]
        events = mjai_events(data)
        assert events == mjai_events(kept.read_bytes())
        assert events[0]["type"] == "start_game" and events[-1]["type"] == "end_game"
        log_file = tmp_path / name
        log_file.write_bytes(data)
        # the log alone, and the record (whose game is the log beside it)
        log_line, record_line = referee_replay("riichi", log_file, record_file)
        assert log_line.startswith(f"OK {log_file} (mjai): ") and "game over" in log_line
        assert record_line == (f"OK {record_file} (match record, its mjai log {name}): "
                               + log_line.split(": ", 1)[1])
    else:
        [line] = referee_replay("mahjong", record_file)
        assert line.startswith(f"OK {record_file} (record): ") and "2 hands" in line, line
    # the rest: what each seat's program wrote on stderr during this game, as kept
    parts = {f"stderr of {log.name} (seat {log.seat + 1})":
             (f"{stem}.seat{log.seat + 1}.stderr.log", log.data)
             for log in game_logs(built.store, built.record) if log.size}
    assert files == parts
