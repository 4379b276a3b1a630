"""Matches as GomocupJudge and Piskvork referee them: real brain processes over pipes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from referee.core.clock import TimeControl
from referee.core.errors import ConfigError
from referee.core.players import PlayerSpec
from referee.games.gomoku.board import BLACK, WHITE, Rule
from referee.games.gomoku.game import GomokuGame, Move
from referee.games.gomoku.match import GomokuMatch, GomokuSettings
from referee.games.gomoku.renju import RenjuJudge

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


def test_caro5_is_rule_9_on_the_wire_and_in_the_record(tmp_path: Path) -> None:
    log = tmp_path / "out" / "work" / "a" / "wire.log"  # in its own (sandboxed) folder
    players = [instant("a", "--log", "wire.log"), instant("b", "--order", "reverse")]
    settings = GomokuSettings(width=10, height=10, games=1, psq=False, rule=Rule.CARO5)
    [record] = GomokuMatch(players, settings, tmp_path / "out").run().records
    assert "b'INFO rule 9\\r\\n'" in log.read_text().splitlines()
    assert record.settings["rule"] == "caro5"
    assert settings.judged().startswith("INFO rule 9 (caro5): exactly five")


def test_draw_at_empty_ends_the_game_as_gomocupjudge_does(tmp_path: Path) -> None:
    # --pattern brains never make five: without the option the 7x7 board fills up.
    players = [instant("a", "--pattern"), instant("b", "--pattern")]
    for draw_at_empty, stones, reason in ((0, 49, "the board is full"),
                                          (25, 24, "only 25 empty points remain")):
        settings = GomokuSettings(width=7, height=7, games=1, psq=False, rule=Rule.RENJU,
                                  draw_at_empty=draw_at_empty)
        [record] = GomokuMatch(players, settings, tmp_path / f"out{stones}").run().records
        assert record.scores == [0.5, 0.5]
        assert len(record.moves) == stones and reason in record.reason


def test_engine_uses_the_renju_judge() -> None:
    from test_renju import NESTED, diagram

    board, (x, y) = diagram(NESTED, at=(3, 3))
    opening = [p for p, _ in sorted(((x_, y_), c) for x_, y_, c in board.stones())]
    black = [(px, py) for px, py, c in board.stones() if c == BLACK]
    white = [(px, py) for px, py, c in board.stones() if c == WHITE]
    # Lay the stones as an opening: black and white alternate, so pad white with far
    # stones until black has as many turns as it has stones.
    far = [(14 - k, 14) for k in range(len(black) - len(white))]
    order = [p for pair in zip(black, white + far, strict=True) for p in pair]
    assert opening  # the diagram has stones
    for judge, problem in ((RenjuJudge.RIF, None), (RenjuJudge.GOMOCUP, "double-three")):
        game = GomokuGame(15, rule=Rule.RENJU, opening=order, renju_judge=judge)
        reason = game.illegal_reason(game.to_play() or 0, Move(x, y))
        assert (reason is None) if problem is None else (problem in (reason or ""))


def test_tournament_settings_take_the_judge_and_the_draw(tmp_path: Path) -> None:
    from referee.games.gomoku.adapter import GomokuAdapter

    settings = GomokuAdapter().parse_settings(
        {"rule": "renju", "renju_judge": "gomocup", "draw_at_empty": 25}, tmp_path, "t.toml")
    assert settings.renju_judge is RenjuJudge.GOMOCUP and settings.draw_at_empty == 25
    assert GomokuAdapter().describe(settings)["renju_judge"] == "gomocup"
    default = GomokuAdapter().parse_settings({}, tmp_path, "t.toml")
    assert "renju_judge" not in GomokuAdapter().describe(default)
    with pytest.raises(ConfigError, match="renju_judge"):
        GomokuAdapter().parse_settings({"renju_judge": "piskvork"}, tmp_path, "t.toml")


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          text=True, timeout=120)


def test_openings_file_is_played_whole_by_default_and_a_short_match_says_so(
        tmp_path: Path) -> None:
    openings = tmp_path / "op.txt"
    openings.write_text("0,0\n0,0 1,1\n0,0 2,2\n")
    brains = [f"{sys.executable} {BRAINS / 'instant.py'}",
              f"{sys.executable} {BRAINS / 'instant.py'} --order reverse"]
    run = run_cli("match", "gomoku", *brains, "--size", "9", "--openings", str(openings),
                  "--out", str(tmp_path / "all"))
    assert run.returncode == 0, run.stderr
    assert "6 game(s)" in run.stdout and "openings 1-3 of 3" in run.stdout
    assert len(list((tmp_path / "all").glob("game-*.json"))) == 6
    run = run_cli("match", "gomoku", *brains, "--size", "9", "--openings", str(openings),
                  "--games", "2", "--out", str(tmp_path / "short"))
    assert run.returncode == 0, run.stderr
    assert "opening 1 of 3 (the file has more: --games 6 plays them all)" in run.stdout
