"""Tile-table replays in a real browser (headless Chromium from file:// URLs): sites built
from small real Riichi and ICGA Mahjong tournaments of the built-in bots; the keys step
the table, and the tiles shown for each seat (their data-tile codes) are those of the
replay's frame at that step; End and Home jump; a hostile name stays text; no console or
page error. A screenshot of each replay goes to tests/artifacts/."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from browsing import ARTIFACTS, chromium, playwright_api
from referee.core.replay import ReplayView, split_pond, split_tiles
from referee.games.registry import game_adapters
from referee.tournament.report.frames_markup import frames_json
from referee.tournament.report.site import Paths
from referee.tournament.session import run_tournament
from referee.tournament.store import Store

sync_api = playwright_api()

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


@pytest.fixture(scope="module", params=sorted(GAMES))
def built(request: pytest.FixtureRequest,
          tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path, ReplayView]:
    """A game's tournament, its site, and the replay of its first game."""
    game = str(request.param)
    folder = tmp_path_factory.mktemp(f"tiles-{game}")
    (folder / "t.toml").write_text(tournament_text(game), encoding="utf-8")
    run_tournament(folder / "t.toml", Console(file=io.StringIO(), width=120))
    store = Store.open_existing(folder / "out")
    try:
        row = min(store.games(status="done"), key=lambda r: r.seq)
        record = store.record(row.key)
    finally:
        store.close()
    view = game_adapters()[game].replay(record)
    from referee.tournament.report import build_site

    index = build_site(folder / "out", folder / "site")
    return game, index.parent / Paths.game(row), view


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium(sync_api) as launched:
        yield launched


class Tab:
    """A page with its console errors, page errors and dialogs collected."""

    def __init__(self, browser: Any, width: int = 1100) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": 900})
        self.page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(f"console {m.type}: {m.text}")
                     if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.on("dialog", lambda d: (self.errors.append(f"dialog: {d.message}"),
                                          d.dismiss()))

    def shown(self) -> int:
        return int(self.page.locator("svg.tiles").get_attribute("data-frame") or -1)

    def seat(self, seat: int, part: str) -> list[str]:
        return list(self.page.evaluate(SEAT_TILES, [seat, part]))

    def close(self) -> None:
        self.context.close()


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


def check_frame(tab: Tab, view: ReplayView, k: int) -> None:
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


def test_the_keys_step_the_tile_table(built: tuple[str, Path, ReplayView],
                                      browser: Any) -> None:
    game, page_path, view = built
    total = len(view.steps)
    # a step where some seat has a meld and every pond has tiles: worth looking at
    k = next(i for i, f in enumerate(view.frames)
             if any(s[4] for s in f["s"]) and all(s[5] for s in f["s"]))
    tab = Tab(browser)
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
    phone = Tab(browser, width=390)
    try:
        phone.page.goto(page_path.as_uri())
        box = phone.page.locator("svg.tiles").bounding_box()
        assert box is not None and 300 < box["width"] <= 390  # scaled to fit the screen
        phone.page.locator("svg.tiles").screenshot(path=str(ARTIFACTS / f"{game}-phone.png"))
        assert phone.errors == []
    finally:
        phone.close()


def test_a_hostile_name_stays_text_in_the_page(built: tuple[str, Path, ReplayView],
                                               browser: Any) -> None:
    _, page_path, view = built
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


def test_without_javascript_the_final_hands_show_as_text(built: tuple[str, Path, ReplayView],
                                                         browser: Any) -> None:
    _, page_path, view = built
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
