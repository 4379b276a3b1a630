"""The manager side of the protocol against real brain processes, and its parsers."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from referee.core.clock import Clock, TimeControl
from referee.core.errors import BotFault, MatchAborted
from referee.core.outcome import Outcome
from referee.core.process import BotProcess
from referee.games.gomoku.game import GomokuGame, Move, Stones
from referee.games.gomoku.protocol import Brain, GomokuSeat, parse_about, parse_point

BRAINS = Path(__file__).resolve().parents[2] / "brains"


def brain(tmp_path: Path, argv: list[str], name: str = "b") -> Brain:
    process = BotProcess(argv, name=name, cwd=tmp_path / name,
                         stderr_log=tmp_path / f"{name}.log")
    process.start()
    return Brain(process, name)


def soon(seconds: float = 5.0) -> float:
    return time.monotonic() + seconds


@pytest.mark.parametrize(
    ("text", "point"),
    [("7,8", (7, 8)), (" 7 , 8 ", (7, 8)), ("-1,3", (-1, 3)), ("7,", None), ("a,b", None),
     ("7 8", None), ("1,2,3", None), ("99999999,1", None), ("", None)],
)
def test_parse_point(text: str, point: tuple[int, int] | None) -> None:
    assert parse_point(text) == point


def test_points_are_remembered_but_long_lines_are_not() -> None:
    from referee.games.gomoku import protocol

    protocol._parse_short.cache_clear()
    assert parse_point("7,8") == (7, 8) and parse_point("7,8") == (7, 8)
    assert protocol._parse_short.cache_info().hits == 1
    spaced = " " * 40 + "3 , 4" + " " * 40  # a point all the same, too long to remember
    assert parse_point(spaced) == (3, 4)
    for k in range(100):  # a bot's long lines, each different: none is kept
        assert parse_point(f"{k}," + "x" * 1000) is None
    assert protocol._parse_short.cache_info().currsize == 1


def test_parse_about_pairs_and_free_text() -> None:
    assert parse_about('name="Swine", version="3.0",author="P S" , country="CZ"') == {
        "name": "Swine", "version": "3.0", "author": "P S", "country": "CZ"}
    assert parse_about("Pisq 5 by someone, 2001") == {"text": "Pisq 5 by someone, 2001"}


@pytest.mark.parametrize("module", ["random_brain", "threat_brain"])
def test_builtin_brain_full_command_set(tmp_path: Path, module: str) -> None:
    b = brain(tmp_path, [sys.executable, "-m", f"referee.games.gomoku.bots.{module}"])
    try:
        b.start(15, 15, soon())
        about = b.ask_about(soon())
        assert about["name"] == f"pbrain-{module.split('_')[0]}"
        b.info([("timeout_turn", 1000), ("rule", 0)])
        x, y = b.begin(100000, soon())
        assert 0 <= x < 15 and 0 <= y < 15
        b.takeback(x, y, soon())
        again = b.board([(7, 7, 2)], 100000, soon())
        assert again != (7, 7)
        assert b.restart(soon())
        choice = b.swap2board([], 100000, soon())
        assert isinstance(choice, Stones) and len(choice.points) == 3
        choice = b.swap2board([(7, 7), (8, 7), (7, 9)], 100000, soon())
        assert choice is not None
        assert b.restart(soon())
        b.start(20, 12, soon())  # RECTSTART
        move = b.turn(10, 6, 100000, soon())
        assert move != (10, 6) and 0 <= move[0] < 20 and 0 <= move[1] < 12
    finally:
        started = time.monotonic()
        b.end()
        assert time.monotonic() - started < 1.5
    assert not b.process.running


def test_refused_rectangle_aborts_with_the_brains_words(tmp_path: Path) -> None:
    b = brain(tmp_path, [sys.executable, str(BRAINS / "instant.py"), "--rect-unknown"])
    try:
        with pytest.raises(MatchAborted, match="refuses the 12x7 board"):
            b.start(12, 7, soon())
    finally:
        b.end()


def test_swap2_answers_are_parsed(tmp_path: Path) -> None:
    b = brain(tmp_path, [sys.executable, str(BRAINS / "instant.py"), "--swap2", "one,swap"])
    try:
        b.start(15, 15, soon())
        assert isinstance(b.swap2board([], 1000, soon()), Stones)
        assert b.swap2board([(7, 7), (8, 7), (7, 8)], 1000, soon()) == Move(6, 6)
    finally:
        b.end()


def test_lines_that_are_not_moves_are_notes_and_the_wait_goes_on(tmp_path: Path) -> None:
    script = ("import sys\nsys.stdin.readline(); sys.stdin.readline()\n"
              "print('ERROR Unknown command: TIME_LEFT\\nUNKNOWN what?\\nDEBUG d\\n"
              "MESSAGE m\\n7 8\\n3,4', flush=True)\nsys.stdin.readline()\n")
    b = brain(tmp_path, [sys.executable, "-c", script])
    notes: list[tuple[str, str]] = []
    b.on_note = lambda kind, text: notes.append((kind, text))
    try:
        assert b.begin(1000, soon()) == (3, 4)
    finally:
        b.end()
    assert notes == [("ERROR", "Unknown command: TIME_LEFT"), ("UNKNOWN", "what?"),
                     ("DEBUG", "d"), ("MESSAGE", "m"), ("TEXT", "7 8")]


def test_a_brain_that_never_moves_times_out_naming_its_last_line(tmp_path: Path) -> None:
    script = "import sys\nfor line in sys.stdin:\n    print('UNKNOWN what?', flush=True)\n"
    b = brain(tmp_path, [sys.executable, "-c", script])
    seat = GomokuSeat(b, 0, Clock(TimeControl(turn=0.3, tolerance=0.1)))
    try:
        with pytest.raises(BotFault) as caught:
            seat.request(GomokuGame(15))
        assert caught.value.outcome is Outcome.TIMEOUT
        assert "its last line, 'UNKNOWN what?', is not a move" in caught.value.reason
    finally:
        b.end()


@pytest.mark.parametrize("answer", ["UNKNOWN", "ERROR cannot restart"])
def test_restart_refused_means_start_afresh(tmp_path: Path, answer: str) -> None:
    script = f"import sys\nfor line in sys.stdin:\n    print({answer!r}, flush=True)\n"
    b = brain(tmp_path, [sys.executable, "-c", script])
    try:
        assert b.restart(soon()) is False
    finally:
        b.end()
