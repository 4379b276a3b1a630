"""``referee replay gomoku``: records and .psq files replayed through the engine."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.core.clock import TimeControl
from referee.core.players import PlayerSpec
from referee.core.record import GameRecord
from referee.games.gomoku.board import Rule
from referee.games.gomoku.check import check_psq, check_record
from referee.games.gomoku.match import GomokuMatch, GomokuSettings
from referee.games.gomoku.psq import record_to_psq

BRAINS = Path(__file__).resolve().parents[2] / "brains"


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> list[GameRecord]:
    """Real games: a renju match of the built-in brains, a swap2 game, a game lost by an
    illegal move, a timeout."""
    out = tmp_path_factory.mktemp("games")
    builtin = [PlayerSpec("threat", [sys.executable, "-m",
                                     "referee.games.gomoku.bots.threat_brain"]),
               PlayerSpec("random", [sys.executable, "-m",
                                     "referee.games.gomoku.bots.random_brain"])]
    fast = TimeControl(turn=2.0, tolerance=0.3, startup=10.0)
    renju = GomokuSettings(width=11, height=11, rule=Rule.RENJU, games=2, time=fast,
                           psq=False)
    records = GomokuMatch(builtin, renju, out / "a").run().records
    swap2 = GomokuSettings(width=11, height=11, games=1, swap2=True, time=fast, psq=False)
    records += GomokuMatch(builtin, swap2, out / "b").run().records
    broken = BRAINS / "faults" / "broken.py"
    for mode in ("occupied", "hang"):
        faulty = [PlayerSpec(mode, [sys.executable, str(broken), "--mode", mode]),
                  PlayerSpec("instant", [sys.executable, str(BRAINS / "instant.py")])]
        records += GomokuMatch(faulty, GomokuSettings(width=11, height=11, games=1, psq=False,
                                                      time=TimeControl(turn=0.5,
                                                                       tolerance=0.2)),
                               out / mode).run().records
    return records


def test_real_records_replay(played: list[GameRecord]) -> None:
    summaries = [check_record(record) for record in played]
    assert "five in a row" in summaries[0]
    assert summaries[3].endswith("lost by illegal-move")
    assert summaries[4].endswith("lost by timeout")
    assert " " in played[2].moves[0].move  # swap2: three stones at once


@pytest.mark.parametrize(("tamper", "message"), [
    (lambda r: r.moves.pop(3), "is seat 0's, but seat 1 was to play"),
    (lambda r: setattr(r.moves[-1], "move", r.moves[0].move), "is illegal: "),
    (lambda r: setattr(r, "scores", list(reversed(r.scores or []))), "recorded scores"),
    (lambda r: r.moves.pop(), "but the game is not over"),
    (lambda r: setattr(r.moves[2], "move", "seven,eight"), "is not a move"),
])
def test_a_tampered_record_fails_naming_what_is_wrong(
        played: list[GameRecord], tamper: Callable[[GameRecord], object], message: str) -> None:
    record = GameRecord.from_dict(played[0].to_dict())
    assert record.scores != [0.5, 0.5]  # a game won: reversing its scores changes them
    tamper(record)
    with pytest.raises(ValueError, match=re.escape(message)):
        check_record(record)


def test_psq_files_replay_and_a_stone_after_a_five_fails(played: list[GameRecord]) -> None:
    text = record_to_psq(played[0])
    assert "made five" in check_psq(text, Rule.RENJU)
    lines = text.splitlines()
    stones = [k for k, line in enumerate(lines) if line.count(",") == 2]
    extra = "1,1,0" if "1,1,0" not in lines else "2,1,0"
    spoiled = "\n".join([*lines[:stones[-1] + 1], extra, *lines[stones[-1] + 1:]])
    with pytest.raises(ValueError, match="follows the five"):
        check_psq(spoiled, Rule.RENJU)
    with pytest.raises(ValueError, match="not a .psq file"):
        check_psq("hello\n")
    with pytest.raises(ValueError, match="on a stone"):
        check_psq("Piskvorky 9x9, 11:11, 0\n5,5,0\n5,5,0\n")


def test_the_command_checks_every_file_and_says_which_fail(
        played: list[GameRecord], tmp_path: Path) -> None:
    good = played[0].write(tmp_path / "good.json")
    bad = GameRecord.from_dict(played[0].to_dict())
    bad.moves.pop()
    bad.write(tmp_path / "bad.json")
    psq = tmp_path / "good.psq"
    psq.write_text(record_to_psq(played[0]))
    run = referee("replay", "gomoku", str(good), str(tmp_path / "bad.json"), str(psq),
                  "--rule", "renju", "--json")
    assert run.returncode == 1
    summary = json.loads(run.stdout)
    assert [(f["ok"], f["format"]) for f in summary["files"]] == [
        (True, "record"), (False, ""), (True, "psq")]
    assert summary["ok"] is False and "not over" in summary["files"][1]["error"]
    assert run.stderr.splitlines()[0].startswith(f"OK {good} (record): ")
    run = referee("replay", "gomoku", str(good))
    assert run.returncode == 0 and run.stdout.startswith("OK ")
