"""Matches as GomocupJudge and Piskvork referee them: real brain processes over pipes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from referee.core.clock import TimeControl
from referee.core.players import PlayerSpec
from referee.games.gomoku.match import GomokuMatch, GomokuSettings

BRAINS = Path(__file__).resolve().parents[2] / "brains"


def instant(name: str, *options: str) -> PlayerSpec:
    """The instant test brain with its options."""
    return PlayerSpec(name, [sys.executable, str(BRAINS / "instant.py"), *options])


@pytest.mark.parametrize("when", ["before", "after"])
def test_error_lines_around_a_move_do_not_forfeit(tmp_path: Path, when: str) -> None:
    """A brain answering ERROR to INFO time_left (before or after its move) plays on, against
    an instant opponent, and its ERROR lines are kept in the record."""
    players = [instant("erring", "--info-error", when), instant("fast", "--order", "reverse")]
    settings = GomokuSettings(width=10, height=10, games=2, psq=False,
                              time=TimeControl(turn=2.0, tolerance=0.5, startup=10.0))
    records = GomokuMatch(players, settings, tmp_path / "out").run().records
    assert [(r.outcome.value if r.outcome else None, r.offender) for r in records] == [
        ("normal", None), ("normal", None)]
    for record in records:
        errors = [n for n in record.notes if n.kind == "ERROR" and n.seat == 0]
        assert errors and all("TIME_LEFT" in n.text for n in errors)
        assert not [n for n in record.notes if n.seat == 1]
