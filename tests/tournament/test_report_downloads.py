"""The results site's downloads and readable settings, from a real tournament: the CSV
matches the store, each game's JSON is its record, its .psq reads back, the stderr logs
are copied cut to their end; settings read in units and words."""

from __future__ import annotations

import csv
import gzip
import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from referee.core.record import GameRecord, PlayerInfo, result_text
from referee.core.replay import Picture
from referee.games.gomoku.adapter import DRAWN_OPENINGS
from referee.games.gomoku.protocol import parse_point
from referee.games.gomoku.psq import read_psq
from referee.games.registry import game_adapters
from referee.tournament.ratings import BayesEloParams
from referee.tournament.report import build_site
from referee.tournament.report.downloads import (
    EMBED_LIMIT,
    copy_tail,
    download_bytes,
    game_download,
    game_logs,
    mjai_logs,
    native_file,
)
from referee.tournament.report.readable import (
    duration,
    megabytes,
    readable_settings,
    seconds,
    when,
)
from referee.tournament.report.site import Paths
from referee.tournament.report.summary import TournamentInfo
from referee.tournament.report.workers import PageJob, run_workers
from referee.tournament.store import GameRow, Store
from tournament_runs import as_published, run_quietly

TOURNAMENT = """
name = "downloads-test"
game = "gomoku"
seed = 11
concurrency = 2
output = "out"

[schedule]
kind = "round-robin"
rounds = 1

[settings]
size = 9
timeout_turn = 2000
memory = 256
openings = "openings.txt"

[[players]]
name = "threat"
builtin = "threat"

[[players]]
name = "random"
builtin = "random"
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A real 9x9 tournament of two built-in brains (4 games) and its site."""
    folder = tmp_path_factory.mktemp("downloads")
    out = run_quietly(folder, TOURNAMENT, **{"openings.txt": "0,0\n0,0 1,1 -1,1\n"})
    return out, build_site(out, folder / "site")


def stored(store_folder: Path) -> tuple[list[GameRow], dict[str, GameRecord]]:
    store = Store.open_existing(store_folder)
    try:
        rows = store.games()
        return rows, {r.key: store.record(r.key) for r in rows if r.status == "done"}
    finally:
        store.close()


def test_csv_has_one_line_per_game_as_stored(built: tuple[Path, Path]) -> None:
    store_folder, index = built
    rows, records = stored(store_folder)
    with open(index.parent / "results.csv", newline="", encoding="utf-8") as handle:
        lines = list(csv.DictReader(handle))
    assert len(lines) == len(rows) == 4
    for line, row in zip(lines, sorted(rows, key=lambda r: r.seq), strict=True):
        record = records[row.key]
        assert int(line["game"]) == row.seq and int(line["round"]) == row.round
        assert line["key"] == row.key and line["status"] == "done"
        assert [line["player_1"], line["player_2"]] == [p.name for p in record.players]
        assert [float(line["score_1"]), float(line["score_2"])] == record.scores
        assert line["result"] == result_text(record.scores)
        assert line["outcome"] == "normal" and line["fault_by"] == ""
        assert line["reason"] == record.reason and int(line["moves"]) == len(record.moves)
        assert 0 < float(line["duration_s"]) < 60
    index_text = index.read_text(encoding="utf-8")
    assert 'href="results.csv"' in index_text and 'href="results.pgn"' in index_text
    pgn = (index.parent / "results.pgn").read_text(encoding="utf-8")
    assert pgn.count("[White ") == 4 and '[Event "downloads-test"]' in pgn


def links(page_text: str) -> dict[str, tuple[str, str]]:
    """The page's download links: label -> (href, the name it is saved as)."""
    found = re.findall(r'<a href="([^"]+)" download(?:="([^"]*)")?>([^<]+)</a>', page_text)
    return {label: (href, name) for href, name, label in found}


def test_each_game_links_its_record_and_psq(built: tuple[Path, Path]) -> None:
    store_folder, index = built
    site = index.parent
    rows, records = stored(store_folder)
    for row in rows:
        page = Paths.game(row)
        offered = links((site / page).read_text(encoding="utf-8"))
        record = records[row.key]
        href, name = offered["Record (JSON)"]
        assert href.startswith("data:application/json;base64,")  # small: in the page
        assert name == Path(page).with_suffix(".json").name
        again = GameRecord.from_dict(json.loads(download_bytes(site, page, href)))
        assert again.to_dict() == as_published(record)
        href, name = offered["Piskvork .psq"]
        assert name == Path(page).with_suffix(".psq").name
        game = read_psq(download_bytes(site, page, href).decode("utf-8"))
        assert (game.width, game.height) == (9, 9)
        played = [tuple(p) for p in record.opening]
        played += [parse_point(m.move) for m in record.moves]
        assert [(s.x, s.y) for s in game.stones] == played
        assert game.after[:2] == [p.name for p in record.players]
    assert sorted(p.name for p in (site / "games").iterdir()) == sorted(
        Path(Paths.game(row)).name for row in rows)  # one file per game


def test_a_large_game_file_is_written_beside_its_page(tmp_path: Path) -> None:
    small = game_download(tmp_path, "games/g00007.json", b'{"a": 1}', "Record (JSON)")
    assert small.name == "g00007.json" and small.href("../") == small.path
    assert download_bytes(tmp_path, "games/g00007.html", small.href("../")) == b'{"a": 1}'
    assert not (tmp_path / "games").exists()
    (tmp_path / "games").mkdir()
    data = bytes(range(256)) * (EMBED_LIMIT // 256 + 1)
    large = game_download(tmp_path, "games/g00007.mjson.gz", data, "mjai log (gzip)")
    assert large.path == "games/g00007.mjson.gz" and large.name == ""
    assert large.href("../") == "../games/g00007.mjson.gz"
    assert download_bytes(tmp_path, "games/g00007.html", large.href("../")) == data


def test_stderr_logs_are_copied_from_their_end(built: tuple[Path, Path],
                                               tmp_path: Path) -> None:
    store_folder, index = built
    site = index.parent
    player_page = (site / "players" / "threat.html").read_text(encoding="utf-8")
    copies = sorted((site / "logs" / "threat").iterdir())
    sources = sorted((store_folder / "slots").glob("*/logs/threat.stderr.log"))
    assert copies and len(copies) == len(sources)
    for copy in copies:
        assert f'href="../logs/threat/{copy.name}"' in player_page
    rows, records = stored(store_folder)
    for row in rows:  # the built-in brains write nothing: no log to offer on a game page
        assert [log.size for log in game_logs(store_folder, records[row.key])] == [0, 0]
        page_text = (site / Paths.game(row)).read_text(encoding="utf-8")
        assert "stderr" not in page_text and "../logs/" not in page_text
    # a log past the cap keeps its end, and says so
    big = tmp_path / "big.stderr.log"
    big.write_bytes(b"".join(b"line %06d\n" % k for k in range(20_000)))  # 240,000 bytes
    assert copy_tail(big, tmp_path / "copy.log", 64 * 1024)
    data = (tmp_path / "copy.log").read_bytes()
    head, rest = data.split(b"\n", 1)
    assert b"cut" in head and b"240000" in head
    assert rest == big.read_bytes()[-64 * 1024:] and rest.endswith(b"line 019999\n")
    small = tmp_path / "small.log"
    small.write_bytes(b"hello\n")
    assert not copy_tail(small, tmp_path / "small-copy.log", 64 * 1024)
    assert (tmp_path / "small-copy.log").read_bytes() == b"hello\n"


def test_settings_read_in_units_and_words(built: tuple[Path, Path]) -> None:
    _, index = built
    text = index.read_text(encoding="utf-8")
    assert "<dt>Time per move</dt><dd>2 s</dd>" in text
    assert "<dt>Memory limit</dt><dd>256 MB</dd>" in text
    assert "<dt>Time tolerance</dt><dd>1 s</dd>" in text  # (the default, as GomocupJudge)
    assert "freestyle (five or more in a row)" in text
    # the two openings on small boards, captioned with their moves
    boards = re.findall(r'<li><figure><svg class="mini" [^>]*aria-label="([^"]*)">(.*?)</svg>'
                        r"<figcaption>([^<]*)</figcaption></figure></li>", text)
    assert [(label, caption) for label, _, caption in boards] == [("e5", "e5"),
                                                                  ("e5 f6 d6", "e5 f6 d6")]
    assert [svg.count("<circle") for _, svg, _ in boards] == [1, 3]
    for raw in ("timeout_turn_ms", ">2000<", "268435456", "[[0, 0]]", "game_key"):
        assert raw not in text, raw
    game_page = (index.parent / "games" / "g00001.html").read_text(encoding="utf-8")
    assert "<dt>Time per move</dt><dd>2 s</dd>" in game_page
    for raw in ("game_key", "r1:", "win_line", "timeout_turn_ms"):
        assert raw not in game_page, raw


def test_readable_values() -> None:
    assert seconds(2000) == "2 s" and seconds(500) == "0.5 s" and seconds(180_000) == "3 min"
    assert seconds(90_500) == "90.5 s" and seconds(150_000) == "2 min 30 s"
    assert megabytes(256 * 2**20) == "256 MB" and megabytes(2**34) == "16 GB"
    gomoku = game_adapters()["gomoku"]
    openings = readable_settings({"width": 15, "height": 15,
                                  "openings": [[[0, 0], [1, -1]], []]}, gomoku)
    [shown] = [s for s in openings if s.label == "Openings (2)"]
    assert [(type(item), getattr(item, "caption", item)) for item in shown.items] == [
        (Picture, "h8 i7"), (Picture, "empty board")]
    first = shown.items[0]
    assert isinstance(first, Picture)
    assert re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)"[^>]*fill="(#\w+)"', first.svg) == [
        ("45", "45", "#1b1b1b"), ("51", "39", "#fafafa")]  # h8 black, i7 white
    many = readable_settings({"width": 15, "openings": [[[0, k % 7]] for k in range(
        DRAWN_OPENINGS + 5)]}, gomoku)[-1].items
    assert len(many) == DRAWN_OPENINGS + 5 and many[-1] == "h14"  # drawn up to a cap, then text
    assert isinstance(many[DRAWN_OPENINGS - 1], Picture) and many[DRAWN_OPENINGS] == "h10"
    # no openings: one line, not a list of one "none"; the rule in words, bookkeeping left out
    assert [(s.label, s.text, s.items) for s in readable_settings(
        {"rule": "exact5", "openings": [], "colors": ["black", "white"], "black": 0,
         "win_line": [[0, 0]]}, gomoku)] == [
        ("Rule", "exact five (exactly five in a row)", []),
        ("Openings", "none (every game starts on an empty board)", [])]
    assert when("2026-11-26T14:52:16.051+00:00") == "2026-11-26 14:52:16 UTC"
    assert when("2026-11-26T16:52:16+02:00") == "2026-11-26 14:52:16 UTC"
    assert duration("2026-11-26T14:52:16.051+00:00", "2026-11-26T14:52:18.551+00:00") == 2.5
    assert duration("2026-11-26T14:52:16+00:00", "") is None
    shown = readable_settings({"time_ms": None, "tolerance_ms": 250,
                               "deals": [[1, 2], [3, 0]], "quit_at_end": True,
                               "game_key": "k", "max_turns": 3, "points": [5, 0, 7]},
                              game_adapters()["planowanie"])
    assert [(s.label, s.text, s.items) for s in shown] == [
        ("Time per game", "none", []), ("Time tolerance", "0.25 s", []),
        ("Deals (2)", "", ["1 card each, seat 3 starts", "3 cards each, seat 1 starts"]),
        ("Quit at the end", "yes", []), ("Max turns", "3", []),
        ("Points at the end", "seat 1 5, seat 2 0, seat 3 7", [])]
    riichi = readable_settings({"game": "east", "room": "mahjong_soul",
                                "decision_time": 2.5, "mjai_log": "x.mjson.gz",
                                "rules": {"red_fives": True, "uma": [20, 10]},
                                "points": [25000, 25000, 24000, 26000],
                                "batched": [False, True, False, False],
                                "ranks": [2, 3, 4, 1], "failure_counts": [0, 0, 2, 0]},
                               game_adapters()["riichi"])
    assert [(s.label, s.text, s.items) for s in riichi] == [
        ("Game length", "east round only (tonpuusen)", []),
        ("Rules of", "Mahjong Soul's ranked rooms", []),
        ("Time per decision", "2.5 s", []), ("Rules", "", ["Red fives: yes", "Uma: 20, 10"]),
        ("Points at the end", "seat 1 25000, seat 2 25000, seat 3 24000, seat 4 26000", []),
        ("Batched answers", "seat 2 (mjai.app style)", []),
        ("Places", "seat 1 2nd, seat 2 3rd, seat 3 4th, seat 4 1st", []),
        ("Faulty answers", "seat 3 2", [])]
    mahjong = readable_settings({"scoring": "taiwan", "takeover": "game", "hands_played": [
        {"winner": 0, "discarder": 2, "payments": [140, 0, -140, 0], "tai": 2,
         "patterns": [["dealer", 1], ["single_wait", 1]], "reason": "won on seat 3's discard"},
        {"winner": 1, "discarder": None, "payments": [-120, 380, -140, -120], "tai": 1,
         "patterns": [["self_drawn", 1]], "reason": "self-drawn win"},
        {"winner": None, "discarder": None, "payments": [0, 0, 0, 0], "tai": None,
         "patterns": [], "reason": "drawn: the wall is used up"}]},
        game_adapters()["mahjong"])
    assert [(s.label, s.text, s.items) for s in mahjong] == [
        ("Tai table", "taiwan (a common Taiwanese one)", []),
        ("The dummy AI plays a faulty seat for", "the rest of the game", []),
        ("Hands played (3)", "", [
            "Hand 1: seat 1 won on seat 3's discard, 2 tai (dealer 1, single wait 1); "
            "seat 1 +140, seat 3 -140",
            "Hand 2: seat 2 won on a tile of its own draw, 1 tai (self drawn 1); "
            "seat 1 -120, seat 2 +380, seat 3 -140, seat 4 -120",
            "Hand 3: drawn: the wall is used up"])]
    unknown = readable_settings({"rule": "x_y", "game_key": "k", "width": 9})
    assert [(s.label, s.text) for s in unknown] == [("Rule", "x y"), ("Width", "9")]


def test_game_pages_written_by_worker_processes_are_the_same(built: tuple[Path, Path],
                                                             tmp_path: Path) -> None:
    store_folder, index = built
    one = index.parent
    two = build_site(store_folder, tmp_path / "two", workers=2).parent
    files = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(two) for p in two.rglob("*") if p.is_file())
    stamp = re.compile(rb"on \d{4}-\d\d-\d\d \d\d:\d\d UTC")
    for name in files:
        mine, theirs = (stamp.sub(b"", (site / name).read_bytes()) for site in (one, two))
        assert mine == theirs, name


def test_a_riichi_game_offers_the_mjai_log_the_tournament_kept(tmp_path: Path) -> None:
    log = tmp_path / "slots" / "2" / "mjai" / "r1_a_b_c_d_g1.mjson.gz"
    log.parent.mkdir(parents=True)
    log.write_bytes(gzip.compress(b'{"type":"start_game"}\n'))
    kept = mjai_logs(tmp_path)
    record = GameRecord("riichi", [PlayerInfo(n, ["bot"]) for n in "abcd"],
                        settings={"mjai_log": log.name})
    assert native_file(record, kept) == (".mjson.gz", log.read_bytes(), "mjai log (gzip)")
    record.settings["mjai_log"] = "not-kept.mjson.gz"
    assert native_file(record, kept) is None
    assert native_file(GameRecord("planowanie", []), kept) is None


def test_the_tournament_file_is_offered_as_the_store_keeps_it(built: tuple[Path, Path],
                                                               tmp_path: Path) -> None:
    store_folder, index = built  # (the tournament keeps the file it ran)
    assert 'href="tournament.toml"' in index.read_text(encoding="utf-8")
    assert (index.parent / "tournament.toml").read_text(encoding="utf-8") == TOURNAMENT
    copy = tmp_path / "store"
    shutil.copytree(store_folder, copy, ignore=shutil.ignore_patterns("slots"))
    with sqlite3.connect(copy / "tournament.sqlite") as db:
        db.execute("DELETE FROM meta WHERE key = 'toml'")  # a store of an earlier release
    db.close()
    again = build_site(copy, tmp_path / "site")
    assert "tournament.toml" not in again.read_text(encoding="utf-8")
    assert not (again.parent / "tournament.toml").exists()
    assert not (again.parent / "logs").exists()  # no slots, no logs


def test_a_failed_worker_is_an_error(built: tuple[Path, Path], tmp_path: Path) -> None:
    store_folder, _ = built
    rows, _ = stored(store_folder)
    job = PageJob(tmp_path / "no-store", tmp_path / "site", TournamentInfo(
        "t", "gomoku", ["threat", "random"], "round-robin", 1, 4, 1, {},
        BayesEloParams.gomocup()), ["threat", "random"], "now", {}, rows)
    with pytest.raises(RuntimeError, match="2 of 2 processes writing game pages failed"):
        run_workers(job, [[0, 2], [1, 3]])
