"""The built-in brains: the protocol over real pipes, the threat strategy, and its strength."""

from __future__ import annotations

import io
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from referee.core.botseed import seed_from
from referee.games.gomoku.board import BLACK, EMPTY, WALL, WHITE, Board, Rule, opponent
from referee.games.gomoku.bots.brain import (
    DEFAULT_BUDGET,
    FAST_BUDGET,
    SWAP,
    Clock,
    Point,
    Strategy,
    Swap2Choice,
    format_about,
    run_brain,
)
from referee.games.gomoku.bots.random_brain import RandomStrategy
from referee.games.gomoku.bots.threat_brain import ThreatStrategy
from referee.games.gomoku.renju import is_forbidden

MODULES = {
    "pbrain-random": "referee.games.gomoku.bots.random_brain",
    "pbrain-threat": "referee.games.gomoku.bots.threat_brain",
}
POINT = re.compile(r"^(\d+),(\d+)$")
ABOUT = re.compile(r'^name="(pbrain-[\w.-]+)", version="[^"]+", author="referee"$')


# -- real processes ---------------------------------------------------------------------
class BrainProcess:
    """A brain subprocess driven through its pipes, with CR LF line ends like a manager."""

    def __init__(self, module: str, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode().rstrip("\r\n"))
        self.lines.put(None)

    def send(self, *lines: str) -> None:
        """Send command lines, each ended by CR LF."""
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(f"{line}\r\n" for line in lines).encode())
        self.proc.stdin.flush()

    def answer(self, timeout: float = 10.0) -> str:
        """The next line the brain writes."""
        line = self.lines.get(timeout=timeout)
        assert line is not None, "the brain closed its output"
        return line

    def ask(self, *lines: str) -> str:
        """Send lines and return the one answer line."""
        self.send(*lines)
        return self.answer()

    def close(self) -> None:
        """Kill the process if it is still running."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()


@pytest.fixture(params=sorted(MODULES))
def brain(request: pytest.FixtureRequest) -> Iterator[tuple[str, BrainProcess]]:
    name = str(request.param)
    process = BrainProcess(MODULES[name], *(["--seed", "7"] if "random" in name else []))
    yield name, process
    process.close()


def point_of(answer: str, board: Board) -> Point:
    """Parse an ``x,y`` answer and check it is an empty point of ``board``."""
    match = POINT.match(answer)
    assert match, f"not a point: {answer!r}"
    point = int(match[1]), int(match[2])
    assert board.is_empty(*point), f"{point} is not an empty point"
    return point


def points_of(answer: str, board: Board, count: int) -> list[Point]:
    """Parse ``count`` space-separated distinct empty points, placing them on ``board``."""
    parts = answer.split(" ")
    assert len(parts) == count, answer
    points = []
    for part in parts:
        point = point_of(part, board)
        board.place(*point)
        points.append(point)
    return points


def test_start_about_begin_turn(brain: tuple[str, BrainProcess]) -> None:
    name, b = brain
    board = Board(15)
    assert b.ask("START 15") == "OK"
    about = ABOUT.match(b.ask("ABOUT"))
    assert about and about[1] == name
    board.place(*point_of(b.ask("BEGIN"), board))
    for _ in range(3):
        opponent_move = next(board.empty_points())
        board.place(*opponent_move)
        board.place(*point_of(b.ask(f"TURN {opponent_move[0]},{opponent_move[1]}"), board))


def test_board_rectstart_restart(brain: tuple[str, BrainProcess]) -> None:
    _, b = brain
    assert b.ask("RECTSTART 10,7") == "OK"
    board = Board(10, 7)
    stones = [(4, 3, 1), (5, 3, 2), (4, 4, 1), (6, 2, 2), (0, 0, 3)]
    for x, y, _ in stones:
        board.place(x, y)
    answer = b.ask("BOARD", *(f"{x},{y},{f}" for x, y, f in stones), "DONE")
    x, y = point_of(answer, board)
    assert 0 <= x < 10 and 0 <= y < 7
    assert b.ask("RESTART") == "OK"
    x, y = point_of(b.ask("BEGIN"), Board(10, 7))


def test_takeback_and_play(brain: tuple[str, BrainProcess]) -> None:
    _, b = brain
    board = Board(12)
    assert b.ask("START 12") == "OK"
    board.place(5, 5)
    mine = point_of(b.ask("TURN 5,5"), board)
    assert b.ask(f"TAKEBACK {mine[0]},{mine[1]}") == "OK"
    assert b.ask("TAKEBACK 5,5") == "OK"
    assert b.ask("PLAY 5,5") == "5,5"
    board = Board(12)
    board.place(5, 5)
    board.place(6, 6)
    point_of(b.ask("TURN 6,6"), board)
    assert b.ask("TURN 5,5").startswith("ERROR")


def test_swap2_cases(brain: tuple[str, BrainProcess]) -> None:
    _, b = brain
    assert b.ask("START 15") == "OK"
    board = Board(15)
    placed = points_of(b.ask("SWAP2BOARD", "DONE"), board, 3)
    assert len(set(placed)) == 3
    three = ["7,7", "8,7", "9,9"]
    board = Board(15)
    for text in three:
        board.place(*map(int, text.split(",")))
    answer = b.ask("SWAP2BOARD", *three, "DONE")
    if answer != SWAP:
        points_of(answer, board, len(answer.split(" ")))
        assert len(answer.split(" ")) in (1, 2)
    five = [*three, "8,8", "8,6"]
    board = Board(15)
    for text in five:
        board.place(*map(int, text.split(",")))
    answer = b.ask("SWAP2BOARD", *five, "DONE")
    assert answer == SWAP or point_of(answer, board)


def test_info_unknown_errors_and_end(brain: tuple[str, BrainProcess]) -> None:
    _, b = brain
    b.send(
        "INFO timeout_turn 1000",
        "INFO timeout_match 100000",
        "INFO time_left 100000",
        "INFO max_memory 83886080",
        "INFO rule 1",
        "INFO game_type 1",
        "INFO folder /tmp",
        "",
    )
    assert ABOUT.match(b.ask("ABOUT")), "INFO must not produce output"
    assert b.ask("BEGIN").startswith("ERROR")  # no START yet
    assert b.ask("FROBNICATE 3").startswith("UNKNOWN")
    assert b.ask("START 100").startswith("ERROR")
    assert b.ask("START 4").startswith("ERROR")
    assert b.ask("RECTSTART 40,10").startswith("ERROR")
    assert b.ask("START 20") == "OK"
    assert b.ask("TURN 20,3").startswith("ERROR")
    assert b.ask("TURN banana").startswith("ERROR")
    started = time.monotonic()
    b.send("END")
    assert b.proc.wait(timeout=1.0) == 0
    assert time.monotonic() - started < 1.0
    assert b.lines.get(timeout=1.0) is None, "nothing may follow END"


def test_renju_rule_over_pipes() -> None:
    b = BrainProcess(MODULES["pbrain-threat"])
    try:
        b.send("INFO rule 4")
        assert b.ask("START 15") == "OK"
        # Black (the brain: 5 stones each, so it moves next) would make an overline at 7,7.
        stones = [(4, 7), (5, 7), (6, 7), (8, 7), (9, 7)]
        theirs = [(4, 8), (5, 9), (10, 12), (12, 10), (1, 1)]
        lines = [f"{x},{y},1" for x, y in stones] + [f"{x},{y},2" for x, y in theirs]
        board = Board(15, rule=Rule.RENJU)
        for (x, y), (u, v) in zip(stones, theirs, strict=True):
            board.place(x, y, BLACK)
            board.place(u, v, WHITE)
        assert is_forbidden(board, 7, 7)
        x, y = point_of(b.ask("BOARD", *lines, "DONE"), board)
        assert not is_forbidden(board, x, y)
    finally:
        b.close()


# -- the protocol loop in-process -------------------------------------------------------
class Recorder(Strategy):
    """Plays the first empty point and remembers what it was asked."""

    def __init__(self) -> None:
        self.calls: list[tuple[Board, int, float]] = []

    def choose(self, board: Board, color: int) -> Point:
        self.calls.append((board.copy(), color, self.time_budget))
        return next(board.empty_points())

    def swap2_place3(self, board: Board) -> tuple[Point, Point, Point]:
        return (0, 0), (1, 0), (2, 0)

    def swap2_choose(self, board: Board, stones: Sequence[Point]) -> Swap2Choice:
        return ((0, 0), (1, 0))

    def swap2_final(self, board: Board, stones: Sequence[Point]) -> Swap2Choice:
        return SWAP


def converse(strategy: Strategy, *lines: str) -> list[str]:
    out = io.StringIO()
    run_brain(strategy, format_about("pbrain-test", "0"), io.StringIO("\r\n".join(lines)), out)
    return out.getvalue().splitlines()


def test_board_colour_and_fields() -> None:
    recorder = Recorder()
    answers = converse(
        recorder,
        "START 10",
        "BOARD",
        "5,5,2",
        "6,6,1",
        "7,7,2",
        "9,9,3",
        "DONE",
        "BOARD",
        "5,5,1",
        "6,6,2",
        "DONE",
    )
    assert answers == ["OK", "0,0", "0,0"]
    first, color, _ = recorder.calls[0]
    assert color == WHITE and first[5, 5] == BLACK and first[6, 6] == WHITE
    assert first[9, 9] == WALL and first[7, 7] == BLACK
    second, color, _ = recorder.calls[1]
    assert color == BLACK and second[5, 5] == BLACK and second[6, 6] == WHITE
    assert second[9, 9] == EMPTY


def test_turns_keep_the_board() -> None:
    recorder = Recorder()
    answers = converse(
        recorder,
        "START 10",
        "TURN 5,5",
        "TAKEBACK 0,0",
        "TAKEBACK 5,5",
        "TURN 1,0",
        "TAKEBACK 3,3",
        "END",
        "ABOUT",
    )
    assert answers == ["OK", "0,0", "OK", "OK", "0,0", "ERROR no stone at 3,3"]
    board, color, _ = recorder.calls[1]
    assert color == WHITE and board[1, 0] == BLACK
    assert board[5, 5] == EMPTY and board[0, 0] == EMPTY


def test_swap2_and_rules_in_process() -> None:
    recorder = Recorder()
    answers = converse(
        recorder,
        "INFO rule 8",
        "START 10",
        "SWAP2BOARD",
        "DONE",
        "SWAP2BOARD",
        "5,5",
        "6,5",
        "5,6",
        "DONE",
        "SWAP2BOARD",
        "5,5",
        "6,5",
        "5,6",
        "4,4",
        "7,7",
        "DONE",
        "INFO rule 3",
        "TURN 8,8",
    )
    assert answers == ["OK", "0,0 1,0 2,0", "0,0 1,0", "SWAP", "0,0"]
    board, color, _ = recorder.calls[0]
    assert board.rule is Rule.EXACT5 and color == BLACK and board[8, 8] == WHITE


class Broken(Recorder):
    """A strategy with a bug."""

    def choose(self, board: Board, color: int) -> Point:
        raise RuntimeError("boom")


def test_board_before_start_and_a_broken_strategy() -> None:
    answers = converse(Broken(), "BOARD", "1,1,1", "DONE", "START 10", "BEGIN", "ABOUT")
    assert len(answers) == 4 and answers[0].startswith("ERROR") and answers[1] == "OK"
    assert POINT.match(answers[2]) and ABOUT.match(answers[3])


def test_clock_budget() -> None:
    clock = Clock()
    assert clock.budget() == DEFAULT_BUDGET
    clock.timeout_turn_ms = 1000
    assert clock.budget() == pytest.approx(0.5)
    clock.time_left_ms = 4000
    assert clock.budget() == pytest.approx(0.2)
    clock.time_left_ms = 2147483647
    assert clock.budget() == pytest.approx(0.5)
    clock.timeout_turn_ms = 0
    assert clock.budget() == FAST_BUDGET


def test_budget_reaches_the_strategy() -> None:
    recorder = Recorder()
    converse(recorder, "INFO timeout_turn 400", "START 10", "BEGIN")
    assert 0 < recorder.calls[0][2] <= 0.2


def test_seed() -> None:
    assert seed_from(5, {}) == 5
    assert seed_from(None, {"REFEREE_BRAIN_SEED": "12"}) == 12
    assert seed_from(None, {"REFEREE_BRAIN_SEED": "x"}) is None
    assert seed_from(None, {}) is None
    board = Board(15)
    moves = {RandomStrategy(3).choose(board, BLACK) for _ in range(3)}
    assert len(moves) == 1


# -- the threat strategy ----------------------------------------------------------------
def position(picture: str, rule: Rule = Rule.FREESTYLE) -> Board:
    """A board from rows of ``X`` (black), ``O`` (white) and ``.``."""
    rows = picture.split()
    board = Board(len(rows[0]), len(rows), rule)
    for y, row in enumerate(rows):
        for x, symbol in enumerate(row):
            if symbol != ".":
                board.place(x, y, BLACK if symbol == "X" else WHITE)
    return board


def patient() -> ThreatStrategy:
    """A threat brain whose searches end by their node limits, not the clock (no flakiness)."""
    return ThreatStrategy(think_cap=10.0)


def test_wins_in_one() -> None:
    board = position(
        """
        .........
        .........
        ..XXXX...
        .OOO.....
        ...O.....
        .........
        """
    )
    assert patient().choose(board, BLACK) in {(1, 2), (6, 2)}


def test_blocks_a_five() -> None:
    board = position(
        """
        .........
        .........
        .OXXXX...
        .O.O.....
        ..O......
        .........
        """
    )
    assert patient().choose(board, WHITE) == (6, 2)


def test_blocks_an_open_three() -> None:
    board = position(
        """
        X.............
        ..............
        ..............
        ..............
        .....OOO......
        ..............
        ..............
        ..............
        ..............
        X............X
        """
    )
    assert patient().choose(board, BLACK) in {(4, 4), (8, 4)}


def test_blocks_a_split_three_with_the_building_move() -> None:
    board = position(
        """
        ...............
        ...............
        ...............
        ...............
        .....O.OO......
        ...............
        ......X........
        .....X.........
        ...............
        ...............
        """
    )
    assert patient().choose(board, BLACK) in {(4, 4), (6, 4), (9, 4)}


def win_points(board: Board, color: int) -> set[Point]:
    return {p for p in board.empty_points() if board.makes_win(*p, color)}


def test_finds_a_vcf() -> None:
    # Black has no open four, double four or open three to play, but wins by fours.
    board = position(
        """
        ...............
        ...............
        ...............
        .......OO......
        ......X..OO....
        ...XX..X.......
        .....X.........
        ...............
        ........O.X....
        ...OX..........
        ...O.O..X......
        ...............
        """
    )
    brain = patient()
    for _ in range(6):
        move = brain.choose(board, BLACK)
        if board.makes_win(*move, BLACK):
            return
        board.place(*move, BLACK)
        threats = win_points(board, BLACK)
        assert threats, f"{move} is not a four"
        if len(threats) > 1:
            return  # an open four or a double four: white cannot stop both
        board.place(*threats.pop(), WHITE)
    pytest.fail("no win by continuous fours")


OVERLINE = ((-3, 0), (-2, 0), (-1, 0), (1, 0), (2, 0))
DOUBLE_FOUR = ((-3, 0), (-2, 0), (-1, 0), (0, -3), (0, -2), (0, -1))
DOUBLE_THREE = ((-2, 0), (-1, 0), (0, 1), (0, 2))


@settings(max_examples=40, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    shape=st.sampled_from([OVERLINE, DOUBLE_FOUR, DOUBLE_THREE]),
    at=st.tuples(st.integers(3, 11), st.integers(3, 11)),
    noise=st.lists(st.tuples(st.integers(0, 14), st.integers(0, 14)), max_size=10),
)
def test_renju_black_never_plays_forbidden(
    shape: tuple[Point, ...], at: Point, noise: list[Point]
) -> None:
    board = Board(15, rule=Rule.RENJU)
    blacks = [(at[0] + dx, at[1] + dy) for dx, dy in shape]
    assume(all(board.on_board(*p) for p in blacks))
    whites = [p for p in dict.fromkeys(noise) if p != at and p not in blacks][: len(blacks)]
    spare = [(0, y) for y in range(15) if (0, y) not in blacks and (0, y) not in whites]
    whites += spare[: len(blacks) - len(whites)]
    for black, white in zip(blacks, whites, strict=True):
        board.place(*black, BLACK)
        board.place(*white, WHITE)
    assume(board.is_empty(*at) and is_forbidden(board, *at))
    for strategy in (ThreatStrategy(), RandomStrategy(0)):
        move = strategy.choose(board, BLACK)
        assert board.is_empty(*move) and not is_forbidden(board, *move), (strategy, move)


def test_swap2_threat_answers() -> None:
    brain = ThreatStrategy()
    board = Board(15)
    stones = brain.swap2_place3(board)
    assert len(set(stones)) == 3 and all(board.is_empty(*p) for p in stones)
    for p in stones:
        board.place(*p)
    answer = brain.swap2_choose(board, stones)
    assert answer == SWAP or (len(answer) == 1 and board.is_empty(*answer[0]))
    strong = position(
        """
        ...............
        ...............
        ...............
        ...............
        ...............
        .....XXX.......
        ......O........
        """
    )
    assert brain.swap2_final(strong, []) == SWAP


# -- strength ---------------------------------------------------------------------------
def play_game(black: Strategy, white: Strategy, size: int = 15) -> int:
    """Play one freestyle game; return the winner's colour, or EMPTY for a draw."""
    board = Board(size)
    players = {BLACK: black, WHITE: white}
    color = BLACK
    while not board.is_full():
        x, y = players[color].choose(board, color)
        assert board.is_empty(x, y)
        if board.makes_win(x, y, color):
            return color
        board.place(x, y, color)
        color = opponent(color)
    return EMPTY


def test_threat_beats_random() -> None:
    threat = ThreatStrategy()
    wins = 0  # the time the 100 games take: benchmarks/bench_gomoku_brains.py
    for game in range(100):
        rand = RandomStrategy(game)
        if game % 2 == 0:
            wins += play_game(threat, rand) == BLACK
        else:
            wins += play_game(rand, threat) == WHITE
    assert wins >= 95
