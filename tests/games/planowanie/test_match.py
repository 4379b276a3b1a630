"""Planowanie games with real player programs over real pipes: the exact commands each
program receives (golden transcripts), every fault the spec names and what it costs, and
reproducible deals."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from referee.core.outcome import Outcome
from referee.core.players import PlayerSpec
from referee.games.planowanie.match import PlanowanieSettings, play_planowanie, run_match
from referee.games.registry import game_adapters
from referee.tournament.config import load_tournament

FAULTY = Path(__file__).resolve().parents[2] / "brains" / "planowanie_faulty.py"
GOLDEN = Path(__file__).resolve().parents[2] / "data" / "golden"
SMALL = {"values": "9TJQKA", "suits": "SH", "players": 2, "deals": "3 1 0 2 1 3 0"}
"""A small game: 12 cards, spades trumps, 2 players, deals of 1, 2 and 3 cards."""


def faulty(name: str, mode: str = "ok") -> PlayerSpec:
    """The test player in ``mode`` (see tests/brains/planowanie_faulty.py)."""
    return PlayerSpec(name, [sys.executable, str(FAULTY), mode])


def received(work: Path, seat: int, name: str) -> list[str]:
    """Every line the program in ``seat`` read, in order."""
    text = (work / "work" / f"{seat}-{name}" / "received.txt").read_text()
    return text.splitlines()


def own_children() -> list[psutil.Process]:
    """Player programs of this test still running (one gone meanwhile is not)."""
    found = []
    for proc in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.NoSuchProcess):
            if proc.status() != psutil.STATUS_ZOMBIE and str(FAULTY) in " ".join(
                    proc.cmdline()):
                found.append(proc)
    return found


# -- a whole game -------------------------------------------------------------------------
def test_a_tournament_game_runs_to_the_end_and_is_reproducible(tmp_path: Path) -> None:
    players = [faulty(f"p{i}") for i in range(4)]
    first = play_planowanie(players, PlanowanieSettings(), 42, tmp_path / "a")
    assert first.outcome is Outcome.NORMAL, first.reason
    assert len(first.moves) == 4 * (13 + sum(range(1, 14)))  # declarations + cards
    assert first.scores == [float(p) for p in first.settings["points"]]
    assert first.settings["deals_played"] == 13
    assert first.reason == "13 deals played"
    again = play_planowanie(players, PlanowanieSettings(), 42, tmp_path / "b")
    assert [m.move for m in again.moves] == [m.move for m in first.moves]
    other = play_planowanie(players, PlanowanieSettings(), 43, tmp_path / "c")
    assert [m.move for m in other.moves] != [m.move for m in first.moves]
    assert not own_children(), "programs left running after the game"
    # each program got its 13 hands, and was killed (never told quit)
    lines = received(tmp_path / "a", 2, "p2")
    assert sum(line.startswith("set_cards") for line in lines) == 13
    assert "quit" not in lines


@pytest.mark.parametrize("seat", [0, 1])
def test_golden_transcript_of_a_small_game(tmp_path: Path, seat: int) -> None:
    settings = PlanowanieSettings.from_options(**SMALL, time=0)
    record = play_planowanie([faulty("a"), faulty("b")], settings, 7, tmp_path)
    assert record.outcome is Outcome.NORMAL
    lines = received(tmp_path, seat, "ab"[seat])
    expected = (GOLDEN / f"planowanie-seat{seat}.txt").read_text().splitlines()
    assert lines == expected


def test_time_left_counts_down_and_quit_ends_politely(tmp_path: Path) -> None:
    settings = PlanowanieSettings.from_options(**SMALL, time=20_000, quit_at_end=True)
    record = play_planowanie([faulty("a"), faulty("b")], settings, 3, tmp_path)
    assert record.outcome is Outcome.NORMAL
    lines = received(tmp_path, 0, "a")
    left = [int(line.split()[1]) for line in lines if line.startswith("time_left")]
    assert len(left) == 3 + 6  # a declaration per deal, a card per trick
    assert left == sorted(left, reverse=True) and left[0] <= 20_000 and left[-1] > 15_000
    assert lines[-1] == "quit"
    assert not own_children()


def test_a_match_rotates_the_seats_over_the_same_deals(tmp_path: Path) -> None:
    players = [faulty("x"), faulty("y"), faulty("z")]
    settings = PlanowanieSettings.from_options(players=3, time=0)
    records = run_match(players, settings, seed=5, games=4, out_dir=tmp_path)
    seatings = [[p.name for p in r.players] for r in records]
    assert seatings == [["x", "y", "z"], ["y", "z", "x"], ["z", "x", "y"], ["x", "y", "z"]]
    assert [r.seed for r in records] == [5, 5, 5, 6]
    assert all(r.outcome is Outcome.NORMAL for r in records)
    assert sorted(p.name for p in tmp_path.glob("game-*.json")) == [
        "game-001.json", "game-002.json", "game-003.json", "game-004.json"]


# -- faults -------------------------------------------------------------------------------
FAULTS = [
    ("bad-declare", Outcome.ILLEGAL_MOVE, "declared 99, not in 0..1", "gen_declare"),
    ("word-declare", Outcome.ILLEGAL_MOVE, "declared 'lots', not a number", "gen_declare"),
    ("not-a-card", Outcome.ILLEGAL_MOVE, "played 'ZZ', not a card of the deck", "gen_move"),
    ("not-in-hand", Outcome.ILLEGAL_MOVE, "is not in the player's hand", "gen_move"),
    ("no-follow", Outcome.ILLEGAL_MOVE, "does not follow suit", "gen_move"),
    ("garbage", Outcome.PROTOCOL_ERROR, "answers start with = or ?", "gen_move"),
    ("question-play", Outcome.PROTOCOL_ERROR, "answered ? to play", None),
    ("no-blank", Outcome.PROTOCOL_ERROR, "did not end with an empty line", None),
    ("crash", Outcome.CRASH, "exit code 5", "gen_move"),
    ("hang", Outcome.TIMEOUT, "no answer within", "gen_move"),
    # the answer may land as the clock's deadline fires: either message says the clock ran out
    ("slow", Outcome.TIMEOUT,
     re.compile(r"no answer within \d+ ms \(the game clock of 1000 ms ran out\)"
                r"|game time \d+ ms is over the 1000 ms limit"), "gen_move"),
    ("refuse-setup", Outcome.PROTOCOL_ERROR,
     "answered ? to set_deck 23456789TJQKA CDHS: unsupported deck",
     None),
    ("crash-start", Outcome.CRASH, "", None),
]


@pytest.mark.parametrize(("mode", "outcome", "reason", "last"), FAULTS,
                         ids=[f[0] for f in FAULTS])
def test_a_faulty_player_loses_and_the_others_win(
        tmp_path: Path, mode: str, outcome: Outcome, reason: str | re.Pattern[str],
        last: str | None) -> None:
    time_ms = 1000 if mode in ("hang", "slow") else 60_000
    settings = PlanowanieSettings.from_options(time=time_ms, tolerance=100)
    players = [faulty("p0"), faulty("bad", mode), faulty("p2"), faulty("p3")]
    record = play_planowanie(players, settings, 11, tmp_path)
    assert record.outcome is outcome, record.reason
    assert record.offender == 1
    assert record.scores == [1.0, 0.0, 1.0, 1.0]
    assert record.reason.startswith("bad: ")
    if isinstance(reason, str):
        assert reason in record.reason
    else:
        assert reason.search(record.reason), record.reason
    if outcome is Outcome.ILLEGAL_MOVE and mode not in ("word-declare", "not-a-card"):
        assert record.moves[-1].seat == 1 and record.moves[-1].info == {"illegal": True}
    if last is not None:  # killed at once: it read nothing after the faulty request
        assert received(tmp_path, 1, "bad")[-1] == last
    assert not own_children(), "programs left running after the fault"


@pytest.mark.parametrize("mode", ["question-time", "extra-blank", "crlf"])
def test_tolerated_variations_play_normally(tmp_path: Path, mode: str) -> None:
    settings = PlanowanieSettings.from_options(**SMALL)
    record = play_planowanie([faulty("a", mode), faulty("b")], settings, 5, tmp_path)
    assert record.outcome is Outcome.NORMAL, record.reason


def test_a_missing_program_loses_before_the_game(tmp_path: Path) -> None:
    players = [faulty("a"), PlayerSpec("ghost", [str(tmp_path / "no-such-player")])]
    settings = PlanowanieSettings.from_options(**SMALL)
    record = play_planowanie(players, settings, 1, tmp_path)
    assert record.outcome is Outcome.CRASH and record.offender == 1
    assert record.scores == [1.0, 0.0] and not record.moves
    assert not own_children()


def test_memory_limit_is_applied_to_players(tmp_path: Path) -> None:
    settings = PlanowanieSettings.from_options(**SMALL, memory=400)
    assert settings.memory_limit == 400 * 2**20
    record = play_planowanie([faulty("a"), faulty("b")], settings, 1, tmp_path)
    assert record.outcome is Outcome.NORMAL
    assert record.settings["max_memory"] == 400 * 2**20
    assert os.path.isdir(tmp_path / "logs")


# -- what a match sums up -------------------------------------------------------------------
def test_a_two_player_match_shows_card_points_and_a_fault_adds_none(tmp_path: Path) -> None:
    """Two players: each game's line shows the card points (not 1-0); a game that a
    fault ended counts as the offender's loss and adds no card points to anyone."""
    import io

    from rich.console import Console

    from referee.core.record import result_text
    from referee.output import game_line, results_table

    settings = PlanowanieSettings.from_options(**SMALL)
    players = [faulty("steady"), faulty("breaker", "not-a-card")]
    records = run_match(players, settings, 7, 2, tmp_path)
    faulted = [r for r in records if r.offender is not None]
    assert len(faulted) == 2 and all(r.outcome is Outcome.ILLEGAL_MOVE for r in faulted)
    clean = play_planowanie([faulty("steady"), faulty("calm")], settings, 7, tmp_path / "c")
    a, b = clean.scores or []
    assert result_text(clean.scores) == f"{a:g}-{b:g}" and a + b > 1
    assert f": {a:g}-{b:g} [normal]" in game_line(clean, 1)
    assert [result_text(r.scores) for r in faulted] in (["1-0", "0-1"], ["0-1", "1-0"])

    out = io.StringIO()
    Console(file=out, width=120).print(
        results_table([players[0], players[1], PlayerSpec("calm", [])],
                      [*faulted, clean], points_game=True))
    rows = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
            for line in out.getvalue().splitlines() if line.startswith("│")}
    # steady: only the card points of the clean game; won the two faulted games
    assert rows["steady"] == [f"{a:g}", "3" if a > b else "2", "1" if a == b else "0",
                              "0" if a >= b else "1", "-"]
    assert rows["breaker"] == ["0", "0", "0", "2", "illegal-move 2"]


# -- the referee's own limit on each answer (--move-time) --------------------------------
def test_a_move_limit_on_top_of_the_game_clock_forfeits_a_slow_answer(tmp_path: Path) -> None:
    # the ITPW protocol has a game clock only; --move-time adds the referee's own limit
    # on each answer: 0.3 s answers pass a game without one and lose under a 0.2 s one
    free = PlanowanieSettings.from_options(**SMALL, time=0, tolerance=50)
    assert "move_ms" not in free.describe()  # (records and fingerprints as before)
    played = play_planowanie([faulty("a"), faulty("slow", "slow")], free, 7, tmp_path / "a")
    assert played.outcome is Outcome.NORMAL, played.reason
    limited = PlanowanieSettings.from_options(**SMALL, time=0, timeout_turn=200, tolerance=50)
    assert limited.describe()["move_ms"] == 200
    record = play_planowanie([faulty("a"), faulty("slow", "slow")], limited, 7, tmp_path / "b")
    assert record.outcome is Outcome.TIMEOUT and record.offender == 1, record.reason
    assert record.reason.startswith("slow: no answer within 2")  # 250 ms and a little
    assert record.settings["move_ms"] == 200
    fast = play_planowanie([faulty("a"), faulty("b")], limited, 7, tmp_path / "c")
    assert fast.outcome is Outcome.NORMAL, fast.reason  # quick answers are not touched


def test_match_planowanie_takes_move_time_and_a_tournament_timeout_turn(
        tmp_path: Path) -> None:
    slow = f"{sys.executable} {FAULTY} slow"
    run = subprocess.run([sys.executable, "-m", "referee.cli", "match", "planowanie", slow,
                          "random", "--games", "1", "--values", "9TJQKA", "--suits", "SH",
                          "--deals", "3 1 0 2 1 3 0", "--move-time", "200ms",
                          "--tolerance", "50ms", "--out", "out"], capture_output=True,
                         text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    record = json.loads((tmp_path / "out" / "game-001.json").read_text())
    assert record["outcome"] == "timeout" and record["offender"] == 0, record["reason"]
    assert record["settings"]["move_ms"] == 200
    path = tmp_path / "t.toml"
    path.write_text('game = "planowanie"\n[schedule]\nkind = "itpw"\n'
                    '[settings]\ntimeout_turn = "1.5s"\n'
                    '[[players]]\nname = "a"\nbuiltin = "random"\n'
                    '[[players]]\nname = "b"\nbuiltin = "random"\n')
    tournament = load_tournament(path, game_adapters())
    assert tournament.settings.time.turn == 1.5
    path.write_text(path.read_text().replace('timeout_turn = "1.5s"\n', ""))
    assert load_tournament(path, game_adapters()).settings.time.turn is None
