"""The results site, built from real stores: pages, links, numbers, escaping, rating plot."""

from __future__ import annotations

import base64
import csv
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import asdict
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from referee.core.errors import ConfigError
from referee.core.outcome import Outcome
from referee.core.players import folder_name
from referee.core.record import GameRecord, PlayerInfo
from referee.games.gomoku.replay import gomoku_replay
from referee.tournament.ratings import BayesEloParams
from referee.tournament.report import build_site
from referee.tournament.report.plot import checkpoint_step, nice_ticks, rating_history
from referee.tournament.report.site import Paths
from referee.tournament.results import crosstable, pairwise, rate_results, standings
from referee.tournament.schedule import RoundRobin
from referee.tournament.store import GameRow, Store
from tournament_runs import run_quietly

TOURNAMENT = """
name = "report-test"
game = "gomoku"
seed = 7
concurrency = 2
output = "out"

[schedule]
kind = "round-robin"
rounds = 1

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

[[players]]
name = "random#2"
builtin = "random"
"""

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class PageParser(HTMLParser):
    """Links, ids, tables and tag balance of one page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.tables: dict[str, list[list[str]]] = {}
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self.polylines: list[dict[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attrs(tag, attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._attrs(tag, attrs)

    def _attrs(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for key in ("href", "src"):
            if values.get(key) is not None:
                self.links.append(str(values[key]))
        if values.get("id"):
            self.ids.add(str(values["id"]))
        if tag == "table":
            self._table = str(values.get("id") or f"table{len(self.tables)}")
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "polyline" and "rating-line" in (values.get("class") or ""):
            self.polylines.append(values)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._table is not None and self._row is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        self.text.append(data)


def parse_page(path: Path) -> PageParser:
    parser = PageParser()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser


def pages(site: Path) -> Iterator[Path]:
    yield from sorted(site.rglob("*.html"))


def check_links(site: Path) -> int:
    """Every href/src of every page points to an existing file of the site (and to an
    existing id when it has a fragment) or is a file embedded as base64 ``data:``; tags
    are balanced. Returns the links checked."""
    parsed = {path.resolve(): parse_page(path) for path in pages(site)}
    checked = 0
    for path, parser in parsed.items():
        assert not parser.problems, (path, parser.problems[:5])
        assert not parser.stack, (path, parser.stack)
        for url in parser.links:
            parts = urlsplit(url)
            if url == "data:,":  # the empty icon (no request for /favicon.ico)
                continue
            if parts.scheme == "data":  # an embedded download: it must decode
                head, _, body = parts.path.partition(",")
                assert head.endswith(";base64") and base64.b64decode(body, validate=True)
                checked += 1
                continue
            assert not parts.scheme and not parts.netloc, f"{path}: external link {url}"
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            assert target.is_file(), f"{path}: broken link {url}"
            assert site.resolve() in target.parents, f"{path}: link out of the site {url}"
            if parts.fragment and target.suffix == ".html":
                assert parts.fragment in parsed[target].ids, f"{path}: no #{parts.fragment}"
            checked += 1
    return checked


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A real 9x9 tournament of the built-in brains (6 games) and its site."""
    folder = tmp_path_factory.mktemp("report")
    store_folder = run_quietly(folder, TOURNAMENT, **{"openings.txt": "0,0\n0,0 1,1 -1,1\n"})
    index = build_site(store_folder, folder / "site")
    return store_folder, index


def done_rows(store_folder: Path) -> list[GameRow]:
    store = Store.open_existing(store_folder)
    try:
        return store.games(status="done", by_finish=True)
    finally:
        store.close()


def meta(store_folder: Path) -> dict[str, object]:
    store = Store.open_existing(store_folder)
    try:
        data = json.loads(store.meta("tournament") or "{}")
    finally:
        store.close()
    assert isinstance(data, dict)
    return data


def test_every_finished_game_has_a_page(tournament: tuple[Path, Path]) -> None:
    store_folder, index = tournament
    site = index.parent
    rows = done_rows(store_folder)
    assert len(rows) == 12  # 3 pairings x 2 openings x 2 colours
    assert sorted(p.name for p in (site / "games").glob("*.html")) == sorted(
        Path(Paths.game(r)).name for r in rows)
    store = Store.open_existing(store_folder)
    try:
        for row in rows:
            record = store.record(row.key)
            parser = parse_page(site / Paths.game(row))
            text = " ".join(parser.text)
            assert record.result_text() in text and record.reason in text
            assert all(p.name in text for p in record.players)
            moves = parser.tables.get("seats")
            assert moves is not None and len(moves) == 3
            html_text = (site / Paths.game(row)).read_text(encoding="utf-8")
            # a line a move, after the opening's (the start) when there is one
            assert html_text.count('<li id="m') == len(record.moves) + bool(record.opening)
            assert ('<li id="m0">' in html_text) == bool(record.opening)
            assert 'src="../static/replay.js"' in html_text
    finally:
        store.close()
    games = parse_page(site / "games.html").tables["games"]
    assert len(games) == 1 + len(rows)


def test_every_link_points_to_an_existing_file(tournament: tuple[Path, Path]) -> None:
    _, index = tournament
    site = index.parent
    assert (site / "static" / "site.css").is_file() and (site / "static" / "replay.js").is_file()
    assert check_links(site) > 100
    text = index.read_text(encoding="utf-8")
    assert "players/random_2.html" in text  # the '#' of the name is not in the file name


def test_game_pages_share_one_board_image_and_one_style_sheet(
        tournament: tuple[Path, Path]) -> None:
    """The board without stones and the stones' style are files of static/shared/, named
    by their content, which every game page links instead of holding a copy."""
    store_folder, index = tournament
    site = index.parent
    shared = sorted((site / "static" / "shared").iterdir(), key=lambda p: p.suffix)
    assert [p.suffix for p in shared] == [".css", ".svg"]
    css, svg = shared
    store = Store.open_existing(store_folder)
    try:
        view = gomoku_replay(store.record(done_rows(store_folder)[0].key))
    finally:
        store.close()
    assert css.read_text(encoding="utf-8") == view.style
    board = ET.fromstring(svg.read_text(encoding="utf-8"))  # a whole SVG document
    assert board.get("width") == str(view.width) and view.base in svg.read_text(encoding="utf-8")
    assert "stone" not in svg.read_text(encoding="utf-8")
    for page in (site / "games").glob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert f'<image href="../static/shared/{svg.name}"' in text
        assert f'href="../static/shared/{css.name}"' in text and view.base not in text


def test_standings_match_the_ratings_and_the_standings(tournament: tuple[Path, Path]) -> None:
    store_folder, index = tournament
    rows = done_rows(store_folder)
    info = meta(store_folder)
    params = BayesEloParams(**info["ratings"])  # type: ignore[arg-type]
    ratings = rate_results(pairwise(rows), params)
    assert ratings is not None
    points = {s.name: s for s in standings(rows, info["players"])}  # type: ignore[arg-type]
    parser = parse_page(index)
    table = parser.tables["standings-table"]
    assert table[0][:6] == ["#", "Player", "Elo", "+", "\u2212", "Games"]
    body = table[1:]
    assert [r[1] for r in body] == [p.name for p in ratings.players]
    for k, (line, p) in enumerate(zip(body, ratings.players, strict=True)):
        assert line[0] == str(k + 1)
        assert line[2] == f"{p.elo:.0f}"
        assert line[3] == f"+{p.plus:.0f}" and line[4] == f"\u2212{p.minus:.0f}"
        assert line[5] == str(p.games)
        assert line[7] == f"{p.score_percent:.1f}%"
        st = points[p.name]
        assert float(line[6].replace("\u00bd", ".5")) == st.points
        assert line[8:11] == [str(st.wins), str(st.draws), str(st.losses)]
        if k + 1 < len(body):
            assert line[12] == f"{100 * ratings.los[k, k + 1]:.1f}%"
        else:
            assert line[12] == ""
    text = " ".join(parser.text)
    assert "report-test" in text and "gomoku" in text and "12 / 12" in text


def test_crosstable_and_faults(tournament: tuple[Path, Path]) -> None:
    store_folder, index = tournament
    rows = done_rows(store_folder)
    info = meta(store_folder)
    parser = parse_page(index)
    cross = crosstable(rows, info["players"])  # type: ignore[arg-type]
    page = parse_page(index.parent / "crosstable.html")
    head, *table = page.tables["crosstable-table"]
    order = [r[1] for r in table]
    assert head[2:-1] == order  # the columns are headed by the players' names
    assert 'title="3. random#2">random#2</th>' in (
        index.parent / "crosstable.html").read_text(encoding="utf-8")
    for line in table:
        name = line[1]
        for other, cell in zip(order, line[2:-1], strict=True):
            if other == name:
                assert cell == "\u2014"
                continue
            got, games = cell.split("/")
            assert float(got.replace("\u00bd", ".5")) == cross[name][other].points
            assert int(games) == cross[name][other].games == 4
    faults = parser.tables["faults-table"]
    assert faults[0][0] == "Player" and "normal" not in faults[0]
    assert "timeout" in faults[0] and faults[0][-1] == "total"
    assert [r[0] for r in faults[1:]] == order
    assert "crosstable.html" in parser.links


def test_player_pages_list_their_games(tournament: tuple[Path, Path]) -> None:
    store_folder, index = tournament
    rows = done_rows(store_folder)
    site = index.parent
    players = meta(store_folder)["players"]
    assert isinstance(players, list)
    paths = Paths(players)
    for name in players:
        parser = parse_page(site / paths.player(name))
        mine = [r for r in rows if name in r.seats]
        games = parser.tables["player-games"][1:]
        assert len(games) == len(mine) == 8
        assert all(re.fullmatch(r"[12] \((black|white)\)", g[3]) for g in games)
        assert all(g[4].split()[0] in ("win", "loss", "draw") for g in games)
        opponents = parser.tables["opponents-table"][1:]
        assert sorted(o[0] for o in opponents) == sorted(p for p in players if p != name)
        assert all(o[1] == "4" for o in opponents)


def test_rating_plot_has_one_line_per_player(tournament: tuple[Path, Path]) -> None:
    _, index = tournament
    parser = parse_page(index)
    names = sorted(str(p["data-player"]) for p in parser.polylines)
    assert names == sorted(["threat", "random", "random#2"])
    for line in parser.polylines:
        points = str(line["points"]).split()
        assert 1 <= len(points) <= 12
    assert "games finished" in parser.text and "Elo (BayesElo)" in parser.text


def test_rating_history_points_and_final_ratings(tournament: tuple[Path, Path]) -> None:
    store_folder, _ = tournament
    rows = done_rows(store_folder)
    params = BayesEloParams(**meta(store_folder)["ratings"])  # type: ignore[arg-type]
    many = [row for _ in range(20) for row in rows]  # 240 games: every 5th is rated
    assert checkpoint_step(len(many)) == 5
    history = rating_history(many, len(many), params)
    assert len(history.games) == 48 and history.games[-1] == 240
    assert all(len(v) == 48 for v in history.elo.values())
    final = rate_results(pairwise(many), params)
    assert final is not None
    for player in final.players:
        assert history.elo[player.name][-1] == pytest.approx(player.elo, abs=1e-6)
    assert checkpoint_step(10_000) == 200 and checkpoint_step(7) == 1 and checkpoint_step(0) == 1
    ticks = nice_ticks(-123.0, 456.0)
    assert ticks[0] <= -123 and ticks[-1] >= 456 and 4 <= len(ticks) <= 10


# -- hand-made stores --------------------------------------------------------------------
EVIL_NAMES = ["<script>alert(1)</script>", "a&b", 'q"uote']
EVIL_REASON = '<img src=x onerror="alert(2)"> & more'


def evil_record(key: str, seats: tuple[str, ...], game: str, scores: list[float],
                outcome: Outcome = Outcome.NORMAL, offender: int | None = None) -> GameRecord:
    record = GameRecord(game, [PlayerInfo(n, ["bot"], {"name": "</script><b>x</b>"})
                               for n in seats],
                        settings={"width": 9, "height": 9, "black": 0, "game_key": key,
                                  "colors": ["black", "white"], "note": "<i>&</i>"})
    for k, move in enumerate(["4,4", "3,3", "5,5"]):
        record.add_move(k % 2, move, 0.002)
    record.add_note(1, "MESSAGE", "<script>alert(3)</script>")
    record.finish(scores, outcome, EVIL_REASON, offender)
    return record


def evil_store(folder: Path, game: str) -> Path:
    store = Store(folder).open("fingerprint", "evil")
    schedule = RoundRobin(EVIL_NAMES, 1, 1, 0)
    games = schedule.round_games(1, {}, {})
    store.add_games(games)
    store.set_meta("tournament", json.dumps({
        "name": "<b>T&T</b>", "game": game, "players": EVIL_NAMES, "schedule": "round-robin",
        "rounds": 1, "total_games": len(games), "seed": 1,
        "settings": {"rule": "<script>x</script>"},
        "ratings": asdict(BayesEloParams.gomocup()),
    }))
    for n, scheduled in enumerate(games[:-1]):
        if n == 1:
            record = evil_record(scheduled.key, scheduled.seats, game, [0.0, 1.0],
                                 Outcome.TIMEOUT, 0)
        else:
            record = evil_record(scheduled.key, scheduled.seats, game,
                                 [[1.0, 0.0], [0.5, 0.5]][n % 2])
        store.commit(scheduled.key, record)
    store.close()
    return folder


@pytest.mark.parametrize("game", ["gomoku", "mystery-game"])
def test_user_text_is_escaped(tmp_path: Path, game: str) -> None:
    store = evil_store(tmp_path / "store", game)
    logs = store / "slots" / "1" / "logs"  # a log kept for a hostile name: linked as text
    logs.mkdir(parents=True)
    (logs / f"{folder_name(EVIL_NAMES[0])}.stderr.log").write_text("<script>\n")
    index = build_site(store, tmp_path / "site")
    site = index.parent
    check_links(site)
    for path in pages(site):
        text = path.read_text(encoding="utf-8")
        assert "<script>alert" not in text and "</script><b>" not in text, path
        assert "<script>x" not in text, path  # a setting's value
        assert "<img" not in text and "<b>T&T" not in text and "<i>&" not in text, path
        scripts = re.findall(r"<script\b[^>]*>", text)
        assert all(s.startswith('<script src="') for s in scripts), (path, scripts)
    index_text = index.read_text(encoding="utf-8")
    assert "&lt;b&gt;T&amp;T&lt;/b&gt;" in index_text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in index_text
    assert "a&amp;b" in index_text and "q&#34;uote" in index_text
    faults = parse_page(index).tables["faults-table"]
    assert sum(int(r[faults[0].index("timeout")]) for r in faults[1:]) == 1
    fault_games = parse_page(index).tables["fault-games-table"]  # listed with the reason
    assert len(fault_games) == 2 and fault_games[1][2:] == ["timeout", EVIL_REASON]
    assert fault_games[1][1] in EVIL_NAMES
    games_text = (site / "games.html").read_text(encoding="utf-8")
    assert "&lt;img src=x onerror=&#34;alert(2)&#34;&gt; &amp; more" in games_text
    assert "pending" in games_text  # the last game was never played
    player_files = sorted(p.name for p in (site / "players").iterdir())
    assert len(player_files) == 3 and all(re.fullmatch(r"[\w.+-]+\.html", p)
                                          for p in player_files)
    game_pages = sorted((site / "games").glob("*.html"))
    assert len(game_pages) == 5
    page = game_pages[0].read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in page  # a bot's message
    assert "stderr of &lt;script&gt;alert(1)&lt;/script&gt;" in page  # its log's link
    cross = (site / "crosstable.html").read_text(encoding="utf-8")
    assert re.search(r'title="\d\. &lt;script&gt;alert\(1\)&lt;/script&gt;"', cross)
    with open(site / "results.csv", newline="", encoding="utf-8") as handle:
        lines = list(csv.DictReader(handle))
    assert {line["player_1"] for line in lines} | {line["player_2"] for line in lines} == set(
        EVIL_NAMES)
    assert sum(line["reason"] == EVIL_REASON for line in lines) == 5
    if game == "gomoku":
        assert 'class="replay"' in page and "replay.js" in page
    else:  # a game without a replay: the moves are listed, no script
        assert 'class="replay"' not in page and "<script" not in page
        assert page.count('<li id="m') == 3 and "4,4" in page


def test_no_store_no_site(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no tournament store"):
        build_site(tmp_path, tmp_path / "site")
    assert not (tmp_path / "site").exists()


def test_store_file_path_and_rebuild(tournament: tuple[Path, Path], tmp_path: Path) -> None:
    store_folder, _ = tournament
    index = build_site(store_folder / "tournament.sqlite", tmp_path / "again")
    assert index == tmp_path / "again" / "index.html"
    first = index.read_text(encoding="utf-8")
    build_site(store_folder, tmp_path / "again")
    assert len(index.read_text(encoding="utf-8")) == len(first)
