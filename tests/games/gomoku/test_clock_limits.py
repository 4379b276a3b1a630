"""Gomoku clocks against real brain processes: the game clock (INFO timeout_match) running
out over moves that are each fast, and a move late by more than the tolerance but less
than twice it.

Margins are seconds wide so that a loaded machine does not change the verdicts: the late
brain sleeps before answering, so it is late by at least its sleep whatever the load, and
the referee has a whole second to notice a deadline before the late answer arrives.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from referee.core.clock import TimeControl
from referee.core.outcome import Outcome
from referee.core.players import PlayerSpec
from referee.core.record import GameRecord
from referee.core.sandbox import SandboxConfig, SandboxLevel
from referee.games.gomoku.match import GomokuMatch, GomokuSettings

INSTANT = Path(__file__).resolve().parents[2] / "brains" / "instant.py"


def play(tmp_path: Path, slow_args: list[str], time: TimeControl) -> GameRecord:
    """One game: the instant brain with ``slow_args`` (black) against a plain one (white).

    Both play ``--pattern``, so that nobody makes five: only a clock ends the game early.
    The sandbox is off (it has tests of its own); the record on disk must match.
    """
    players = [
        PlayerSpec("slow", [sys.executable, str(INSTANT), "--pattern", *slow_args]),
        PlayerSpec("quick", [sys.executable, str(INSTANT), "--pattern"]),
    ]
    settings = GomokuSettings(width=10, height=10, games=1, psq=False, time=time,
                              sandbox=SandboxConfig(SandboxLevel.OFF))
    out = tmp_path / "out"
    record = GomokuMatch(players, settings, out).run().records[0]
    written = GameRecord.read(out / "game-001.json")
    assert (written.outcome, written.offender, written.reason) == (
        record.outcome, record.offender, record.reason)
    return record


def test_game_clock_runs_out_over_fast_moves(tmp_path: Path) -> None:
    # each move takes 0.4 s, a tenth of the 10 s per-move limit, but the game has 2.4 s
    # (plus 0.5 s tolerance): the brain loses on the clock after a few moves
    time = TimeControl(turn=10.0, game=2.4, tolerance=0.5, startup=20.0)
    record = play(tmp_path, ["--delay", "0.4"], time)
    assert record.outcome is Outcome.TIMEOUT, record.reason
    assert record.offender == 0
    assert record.scores == [0.0, 1.0]
    assert re.fullmatch(
        r"slow: (no answer within \d+ ms \(the game clock of 2400 ms ran out\)"
        r"|game time \d+ ms is over the 2400 ms limit)", record.reason), record.reason
    own = [m for m in record.moves if m.seat == 0]
    assert len(own) >= 2, record.moves  # it lost in play, not while starting
    assert all(m.ms < 5000 for m in own), own  # no move was anywhere near its own limit
    assert record.settings["timeout_match_ms"] == 2400


def test_no_game_clock_lets_the_same_brain_play_on(tmp_path: Path) -> None:
    # the control: the same brain with no game limit plays a whole game to its end (a draw,
    # the board full), so the loss above is the game clock's doing
    time = TimeControl(turn=10.0, game=None, tolerance=0.5, startup=20.0)
    record = play(tmp_path, ["--delay", "0.4", "--delay-moves", "8"], time)
    assert record.outcome is Outcome.NORMAL, record.reason
    assert record.offender is None
    assert len(record.moves) == 100


def test_move_late_by_one_and_a_half_tolerances_is_a_timeout(tmp_path: Path) -> None:
    # limit 1 s, tolerance 2 s: the deadline is at 3 s. The brain answers its first move
    # at 4 s, late by 1.5 tolerances: a tolerance counted twice (deadline 5 s) would take
    # that answer as on time, and a deadline not kept would see it arrive
    time = TimeControl(turn=1.0, tolerance=2.0, startup=20.0)
    record = play(tmp_path, ["--delay", "4.0", "--delay-moves", "1"], time)
    assert record.outcome is Outcome.TIMEOUT, record.reason
    assert record.offender == 0
    assert record.moves == []
    found = re.fullmatch(r"slow: no answer within (\d+) ms", record.reason)
    assert found is not None, record.reason
    assert 3000 <= int(found.group(1)) < 4000, record.reason
