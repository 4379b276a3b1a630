"""Each game's part of its bots' stderr logs: a real tournament with more games than slots,
where every game's record points to exactly the bytes its bots wrote during it (a crash's
last words included, the readiness check's never), read back cut to their end; the same
for one game after another in one folder for every game tournaments play; records of
earlier releases still load; a log that is gone gives a warning, not an error."""

from __future__ import annotations

import itertools
import logging
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.core.adapter import GameTask
from referee.core.errors import ConfigError
from referee.core.players import PlayerSpec
from referee.core.record import GameRecord, PlayerInfo, StderrLog
from referee.games.registry import game_adapters
from referee.tournament.report import build_site
from referee.tournament.report.downloads import LOG_TAIL, GameLog, download_bytes, game_logs
from referee.tournament.report.site import Paths
from referee.tournament.runner import play_task
from referee.tournament.store import Store
from tournament_runs import run_quietly

BRAINS = Path(__file__).resolve().parents[1] / "brains"
CHATTY = BRAINS / "chatty.py"
STDERR_EXEC = BRAINS / "stderr_exec.py"
NOISE = LOG_TAIL + 5000
"""Filler bytes the noisy player writes at its start: its part of every game is cut."""

TOURNAMENT = f"""
name = "logs"
game = "gomoku"
seed = 5
concurrency = 2
output = "out"

[schedule]
kind = "round-robin"
rounds = 1

[settings]
size = 9
timeout_turn = 5000

[[players]]
name = "plain"
command = "{sys.executable} {CHATTY}"

[[players]]
name = "noisy"
command = "{sys.executable} {CHATTY} --noise {NOISE}"

[[players]]
name = "crasher"
command = "{sys.executable} {CHATTY} --crash-at 3"
"""


def filler(size: int) -> bytes:
    """The noise ``chatty.py --noise size`` writes."""
    line = b"x" * 99 + b"\n"
    return (line * (size // len(line) + 1))[:size]


def expected_stderr(record: GameRecord, seat: int) -> bytes:
    """What ``chatty.py`` wrote on stderr in the seat of ``record``, from the record: its
    token (its ABOUT), its moves, and how it left (END, or its crash)."""
    player = record.players[seat]
    token = player.about["token"]
    text = f"{token} start\n".encode() + filler(NOISE if player.name == "noisy" else 0)
    text += "".join(f"{token} move {m.move}\n" for m in record.moves
                    if m.seat == seat).encode()
    last = "dying" if record.offender == seat else "end"
    return text + f"{token} {last}\n".encode()


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[GameRecord]]:
    """Three chatty brains, a round robin of 6 games played 2 at a time (2 slots)."""
    folder = tmp_path_factory.mktemp("gamelogs")
    store = Store.open_existing(run_quietly(folder, TOURNAMENT))
    try:
        return folder / "out", list(store.records())
    finally:
        store.close()


def test_every_game_gets_exactly_what_its_bots_wrote_during_it(
        tournament: tuple[Path, list[GameRecord]]) -> None:
    out, records = tournament
    assert len(records) == 6
    crashes = [r for r in records if r.offender is not None]
    assert crashes and all(r.players[r.offender].name == "crasher" for r in crashes
                           if r.offender is not None)
    slots = set()
    for record in records:
        logs = game_logs(out, record)
        assert [(g.seat, g.name) for g in logs] == [(0, record.players[0].name),
                                                     (1, record.players[1].name)]
        for log in logs:
            span = record.players[log.seat].stderr
            assert span is not None and span.path == log.path
            top, slot, folder, _ = span.path.split("/")  # relative to the store's folder
            assert (top, folder) == ("slots", "logs")
            slots.add(slot)
            expected = expected_stderr(record, log.seat)
            assert log.size == len(expected)
            assert log.cut == (record.players[log.seat].name == "noisy")
            assert log.data == expected[-LOG_TAIL:]
    assert slots == {"1", "2"}  # more games than slots: every slot's logs had several


def test_the_games_of_a_slot_share_its_logs_without_overlap_or_gaps(
        tournament: tuple[Path, list[GameRecord]]) -> None:
    out, records = tournament
    spans: dict[str, list[tuple[int, int]]] = {}
    for record in records:
        for player in record.players:
            assert player.stderr is not None
            spans.setdefault(player.stderr.path, []).append(
                (player.stderr.start, player.stderr.end))
    assert any(len(ranges) > 1 for ranges in spans.values())
    files = {p.relative_to(out).as_posix() for p in out.glob("slots/*/logs/*.stderr.log")}
    checks = {p for p in files if p.startswith("slots/check/")}
    assert len(checks) == 3 and files - checks == set(spans)  # the check: no game's
    for path, ranges in spans.items():
        ranges.sort()
        assert ranges[0][0] == 0 and ranges[-1][1] == (out / path).stat().st_size
        assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges)), path


def test_each_game_page_offers_what_its_bots_wrote_during_it(
        tournament: tuple[Path, list[GameRecord]], tmp_path: Path) -> None:
    out, records = tournament
    site = build_site(out, tmp_path / "site").parent
    store = Store.open_existing(out)
    try:
        pages = {row.key: Paths.game(row) for row in store.games(status="done")}
    finally:
        store.close()
    for record in records:
        page = pages[str(record.settings["game_key"])]
        text = (site / page).read_text(encoding="utf-8")
        found = dict((label, href) for href, label in re.findall(
            r'<a href="([^"]+)" download(?:="[^"]*")?>(stderr of [^<]+)</a>', text))
        assert len(found) == 2 and "../logs/" not in text  # this game's, not the slots'
        for seat, player in enumerate(record.players):
            whole = expected_stderr(record, seat)
            got = download_bytes(site, page, found[f"stderr of {player.name} (seat {seat + 1})"])
            if player.name == "noisy":  # cut to its end, which a first line says; too big
                assert not found[f"stderr of {player.name} (seat {seat + 1})"].startswith(
                    "data:")  # to be in the page: a file beside it
                note, rest = got.split(b"\n", 1)
                assert rest == whole[-LOG_TAIL:]
                assert note.decode() == (f"[referee: the first {len(whole) - LOG_TAIL} of "
                                         f"{len(whole)} bytes are cut; the last {LOG_TAIL} "
                                         "follow]")
            else:
                assert got == whole


def test_a_moved_store_still_finds_its_games_logs(
        tournament: tuple[Path, list[GameRecord]], tmp_path: Path) -> None:
    out, records = tournament
    moved = shutil.copytree(out, tmp_path / "elsewhere")
    for log in moved.glob("slots/*/logs/*.stderr.log"):  # the copy's own bytes
        log.write_bytes(log.read_bytes().replace(b"move", b"MOVE"))
    for record in records:
        here, there = game_logs(out, record), game_logs(moved, record)
        assert [log.data.replace(b"move", b"MOVE") for log in here] == \
            [log.data for log in there]
        assert there and all(b"MOVE" in log.data for log in there)


def test_the_cut_keeps_the_end_and_says_so(tournament: tuple[Path, list[GameRecord]]) -> None:
    out, records = tournament
    record = records[0]
    [first, second] = game_logs(out, record, limit=20)
    for log in (first, second):
        whole = expected_stderr(record, log.seat)
        assert log.cut and log.size == len(whole) and log.data == whole[-20:]
    whole = game_logs(out, record, limit=10**9)
    assert [log.cut for log in whole] == [False, False]
    assert [log.data for log in whole] == [expected_stderr(record, s) for s in (0, 1)]


# -- every game tournaments play --------------------------------------------------------
GAMES: dict[str, tuple[dict[str, Any], str, int]] = {
    "gomoku": ({"size": 9}, "referee.games.gomoku.bots.random_brain", 1),
    "planowanie": ({"players": 2, "values": "9TJQKA", "deals": "2 2 1 3 0"},
                   "referee.games.planowanie.bots.random_player", 1),
    "mahjong": ({"hands": 2}, "referee.games.mahjong.bots.random_ai", 2),
    "riichi": ({"game": "east"}, "referee.games.riichi.bots.tsumogiri", 1),
}
"""Per game: its settings, a built-in bot, how many processes a seat starts in a game
(Mahjong: one per hand)."""


@pytest.mark.parametrize("game", sorted(GAMES))
def test_each_game_notes_its_seats_logs_game_after_game(game: str, tmp_path: Path) -> None:
    table, module, per_seat = GAMES[game]
    adapter = game_adapters()[game]
    settings = adapter.parse_settings(table, tmp_path, "test")
    seats = adapter.seat_count(settings)
    players = tuple(PlayerSpec(f"p{k}", [sys.executable, str(STDERR_EXEC), sys.executable,
                                         "-m", module]) for k in range(seats))
    work = tmp_path / "slot"
    first = play_task(adapter, settings, GameTask("a", players, 3), work)
    adapter.check_player(settings, players[0], work)  # in the same folder: not counted
    second = play_task(adapter, settings, GameTask("b", players, 4), work)
    tokens: set[str] = set()
    for seat in range(seats):
        one, two = (r.players[seat].stderr for r in (first, second))
        assert one is not None and two is not None and one.path == two.path
        assert one.path.startswith("logs/") and one.start == 0
        log = (work / one.path).read_bytes()
        assert two.end == len(log)
        between = log[one.end:two.start].decode()  # the check's, if in the same file
        if game == "gomoku" and seat == 0:  # Gomoku's check logs where its games do
            assert between.endswith(" start seed=0\n") and between.count("\n") == 1
        else:
            assert between == ""
        for span in (one, two):
            lines = log[span.start:span.end].decode().splitlines()
            assert len(lines) == per_seat
            assert all(line.split(" ", 1)[1].startswith("start seed=") for line in lines)
            tokens.update(line.split()[0] for line in lines)
    assert len(tokens) == 2 * seats * per_seat  # every process of the games, once


# -- records of earlier releases, logs that are gone ------------------------------------
def test_records_without_logs_load_and_are_written_as_before(tmp_path: Path) -> None:
    old = {"format": "referee-game/1", "game": "gomoku", "moves": [],
           "players": [{"name": "a", "command": ["a"], "about": {}},
                       {"name": "b", "command": [], "about": {"name": "b"}}]}
    record = GameRecord.from_dict(old)
    assert [p.stderr for p in record.players] == [None, None]
    assert record.to_dict()["players"] == old["players"]
    assert game_logs(tmp_path, record) == []
    record.players[1].stderr = StderrLog("slots/1/logs/b.stderr.log", 3, 9)
    again = GameRecord.from_dict(record.to_dict())
    assert again.players == record.players
    assert record.to_dict()["players"][1]["stderr"] == {
        "path": "slots/1/logs/b.stderr.log", "start": 3, "end": 9}
    for bad in ({"path": "x", "start": 5, "end": 2}, {"path": "", "start": 0, "end": 0},
                {"path": "x", "start": 0}, "x", {"path": "x", "start": 0.5, "end": 1}):
        data = record.to_dict()
        data["players"][1]["stderr"] = bad
        with pytest.raises(ConfigError, match="not a valid game record"):
            GameRecord.from_dict(data)


def test_logs_that_are_gone_or_elsewhere_give_a_warning_and_no_entry(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "short.log").write_bytes(b"0123456789")
    (tmp_path / "outside.log").write_bytes(b"secret")
    spans = [StderrLog("logs/short.log", 2, 6), StderrLog("logs/missing.log", 0, 4),
             StderrLog("logs/short.log", 4, 20), StderrLog(str(tmp_path / "outside.log"),
                                                           0, 6),
             StderrLog("logs/../../outside.log", 0, 6), StderrLog("logs", 0, 0)]
    record = GameRecord("gomoku", [PlayerInfo(f"p{k}", stderr=s)
                                   for k, s in enumerate(spans)])
    with caplog.at_level(logging.WARNING, logger="referee.tournament.report.downloads"):
        logs = game_logs(tmp_path, record)
    assert logs == [GameLog(0, "p0", b"2345", False, 4, "logs/short.log")]
    warned = [r.getMessage() for r in caplog.records]
    assert len(warned) == 5
    assert "logs/missing.log: cannot read it" in warned[0]
    assert "shorter than the 20 bytes" in warned[1]
    assert all("not a log of the store" in w for w in warned[2:4])
    assert "logs: cannot read it" in warned[4]
