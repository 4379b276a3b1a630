"""Golden transcripts: exactly what the manager sends to real brain processes over pipes.

Each scenario runs a real match between two logging instant brains and compares every
raw line each brain received (line ends included) with a file under tests/data/golden/.
Regenerate after a deliberate protocol change with REFEREE_UPDATE_GOLDEN=1, then review
the diff.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from referee.core.clock import TimeControl
from referee.core.players import PlayerSpec
from referee.games.gomoku.board import Rule
from referee.games.gomoku.match import GomokuMatch, GomokuSettings

BRAINS = Path(__file__).resolve().parents[2] / "brains"
GOLDEN = Path(__file__).resolve().parents[2] / "data" / "golden"


def run(tmp_path: Path, extra: list[list[str]], **settings: object) -> list[str]:
    """Play a match and return the two brains' logs (each writes its own in its working
    folder: the brains run sandboxed, as they would in a match)."""
    logs = [tmp_path / "out" / "work" / name / "wire.log" for name in ("a", "b")]
    players = [
        PlayerSpec(name, [sys.executable, str(BRAINS / "instant.py"), "--log", "wire.log", *more])
        for name, more in zip(("a", "b"), extra, strict=True)
    ]
    options: dict[str, object] = {"width": 10, "height": 10, "games": 1, "psq": False,
                                  "time": TimeControl(turn=2.0, tolerance=1.0, startup=10.0)}
    options.update(settings)
    result = GomokuMatch(players, GomokuSettings(**options), tmp_path / "out").run()  # type: ignore[arg-type]
    assert all(r.outcome is not None and not r.outcome.is_fault for r in result.records), [
        (r.outcome, r.reason) for r in result.records
    ]
    return [log.read_text() for log in logs]


def check(name: str, logs: list[str]) -> None:
    text = "".join(f"=== brain {who}\n{log}" for who, log in zip("ab", logs, strict=True))
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("REFEREE_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text(), f"transcript differs from {path}"


def test_begin_turn_and_end(tmp_path: Path) -> None:
    check("begin-turn", run(tmp_path, [[], ["--order", "reverse"]]))


def test_second_game_uses_restart(tmp_path: Path) -> None:
    check("restart", run(tmp_path, [[], ["--order", "reverse"]], games=2))


def test_restart_unknown_falls_back_to_end_and_new_process(tmp_path: Path) -> None:
    check("restart-unknown", run(tmp_path, [["--no-restart"], ["--order", "reverse"]], games=2))


def test_rectangular_board_uses_rectstart(tmp_path: Path) -> None:
    check("rectstart", run(tmp_path, [[], ["--order", "reverse"]], width=12, height=7))


def test_opening_sends_board_to_both_brains(tmp_path: Path) -> None:
    opening = [[(0, 0), (1, 0), (0, 1)]]
    check("opening-board", run(tmp_path, [[], ["--order", "reverse"]], openings=opening,
                               games=2))


def test_renju_board_lists_stones_in_played_order(tmp_path: Path) -> None:
    opening = [[(2, 2), (-2, -2), (-2, 2), (2, -2)]]
    check("renju-board-order", run(tmp_path, [[], ["--order", "reverse"]], openings=opening,
                                   rule=Rule.RENJU))


def test_limits_are_announced_with_info(tmp_path: Path) -> None:
    logs = run(tmp_path, [[], ["--order", "reverse"]], memory_limit=256 * 2**20,
               time=TimeControl(turn=1.5, game=60.0, tolerance=1.0, startup=10.0),
               folder=tmp_path / "persist")
    for log in logs:
        assert "b'INFO timeout_turn 1500\\r\\n'" in log
        assert "b'INFO timeout_match 60000\\r\\n'" in log
        assert f"b'INFO max_memory {256 * 2**20}\\r\\n'" in log
        assert f"b'INFO folder {tmp_path / 'persist'}\\r\\n'" in log
        lefts = [int(line.split()[2][:-5]) for line in log.splitlines()
                 if line.startswith("b'INFO time_left")]
        assert lefts and all(0 < v <= 60000 for v in lefts)
        assert lefts == sorted(lefts, reverse=True)


@pytest.mark.parametrize(
    ("answers", "name"),
    [
        ("swap,one", "swap2-case2-swap"),
        ("one,one", "swap2-case2-one"),
        ("two,swap", "swap2-case3-swap"),
        ("two,one", "swap2-case3-one"),
    ],
)
def test_swap2_all_cases(tmp_path: Path, answers: str, name: str) -> None:
    check(name, run(tmp_path, [["--swap2", answers], ["--swap2", answers, "--order", "reverse"]],
                    swap2=True))
