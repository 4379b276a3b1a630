"""The brain side of the Gomocup protocol, shared by the built-in brains.

A brain is a console program that reads manager commands on stdin and answers on stdout
(the Gomocup AI protocol, docs/gomoku.md). This module owns everything about the
protocol: parsing, the brain's own board, its colour, the clock, and swap2. What to play
is left to a ``Strategy``, so a new brain is a ``Strategy`` plus ``run_brain``::

    run_brain(MyStrategy(), format_about("pbrain-mine", "1.0"))

Nothing but protocol answers is ever written to stdout; diagnostics go to ``logging``
(configured for stderr by ``brain_main``).
"""

from __future__ import annotations

import logging
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Final, Literal, TextIO

from referee.games.gomoku.board import (
    BLACK,
    EMPTY,
    MAX_SIZE,
    MIN_SIZE,
    WALL,
    Board,
    Rule,
    opponent,
)

log = logging.getLogger(__name__)

Point = tuple[int, int]
"""A board point ``(x, y)``, numbered from zero as in the protocol."""

SWAP: Final = "SWAP"
Swap2Choice = Literal["SWAP"] | tuple[Point, ...]
"""A swap2 decision: ``"SWAP"`` (take black) or the stones to play (white first)."""

DEFAULT_BUDGET = 1.0
"""Seconds to think when the manager sent no time limits."""

FAST_BUDGET = 0.01
"""Seconds to think when ``timeout_turn`` is 0 ("play as fast as possible")."""

UNLIMITED_MS = 2147483647
"""The ``time_left`` value that means the match has no time limit."""

RULES_BY_BITMASK: Final = {rule.bitmask: rule for rule in Rule}
CONTINUOUS_BIT = 2
"""``INFO rule`` bit for "continuous game": the brain plays the same way, so it is dropped."""


class Strategy(ABC):
    """How a brain chooses its moves; the protocol is handled by ``run_brain``.

    ``time_budget`` is set by ``run_brain`` before every call: the seconds the strategy
    may think (from the manager's ``timeout_turn`` and ``time_left``). The board passed
    in must be left as it was found (work on ``board.copy()`` to try moves).
    """

    time_budget: float = DEFAULT_BUDGET
    forgiving: bool = True
    """Whether a failing strategy, or an illegal point it chooses, is replaced by any legal
    point (the built-in brains: a bug must not lose the game on the spot). A policy bot is
    not forgiving: its faults go to the referee, which judges them as any bot's."""

    def new_game(self) -> None:  # noqa: B027 - an optional hook, empty by default
        """Called on START, RECTSTART and RESTART: forget anything about the last game."""

    @abstractmethod
    def choose(self, board: Board, color: int) -> Point:
        """The point where ``color`` (the colour to move) plays; must be a legal move."""

    @abstractmethod
    def swap2_place3(self, board: Board) -> tuple[Point, Point, Point]:
        """Swap2 case 1: the three opening stones (black, white, black) on an empty board."""

    @abstractmethod
    def swap2_choose(self, board: Board, stones: Sequence[Point]) -> Swap2Choice:
        """Swap2 case 2: three stones are on ``board``; the brain is white for now.

        Answer ``"SWAP"`` to take black, one point to stay white and play the 4th stone,
        or two points (4th white, 5th black) to let the opponent choose the colours.
        """

    @abstractmethod
    def swap2_final(self, board: Board, stones: Sequence[Point]) -> Swap2Choice:
        """Swap2 case 3: five stones are on ``board``; choose the colour.

        Answer ``"SWAP"`` to take black, or one point to take white and play the 6th stone.
        """


def format_about(name: str, version: str, author: str = "referee", www: str = "") -> str:
    """The one-line ``ABOUT`` answer, as ``key="value"`` pairs."""
    about = f'name="{name}", version="{version}", author="{author}"'
    return about + (f', www="{www}"' if www else "")


def is_legal(board: Board, x: int, y: int, color: int) -> bool:
    """Whether ``color`` may play at ``(x, y)``: an empty point, not renju-forbidden for black."""
    if not board.is_empty(x, y):
        return False
    if board.rule is Rule.RENJU and color == BLACK:
        from referee.games.gomoku.renju import is_forbidden

        return not is_forbidden(board, x, y)
    return True


def parse_point(text: str) -> Point:
    """Parse ``"x,y"`` (spaces allowed around the numbers); raise ``ValueError`` if bad."""
    parts = text.split(",")
    if len(parts) != 2:
        raise ValueError(f"expected x,y but got {text!r}")
    return int(parts[0]), int(parts[1])


def format_point(point: Point) -> str:
    """Format a point as the protocol's ``x,y``."""
    return f"{point[0]},{point[1]}"


class Clock:
    """The manager's time limits (``INFO timeout_turn``, ``timeout_match``, ``time_left``)."""

    def __init__(self) -> None:
        self.timeout_turn_ms: int | None = None
        self.timeout_match_ms: int | None = None
        self.time_left_ms: int | None = None

    def budget(self) -> float:
        """Seconds to think for one move: ``min(turn * 0.5, left / 20)`` of what is known."""
        limits: list[float] = []
        if self.timeout_turn_ms is not None:
            if self.timeout_turn_ms <= 0:
                return FAST_BUDGET
            limits.append(self.timeout_turn_ms / 1000 * 0.5)
        left = self.time_left_ms
        if left is None and self.timeout_match_ms:
            left = self.timeout_match_ms
        if left is not None and left != UNLIMITED_MS:
            limits.append(max(left, 0) / 1000 / 20)
        return max(min(limits), FAST_BUDGET) if limits else DEFAULT_BUDGET


class ProtocolError(Exception):
    """A known command the brain cannot carry out; answered with ``ERROR <message>``."""


class _Session:
    """One brain process: the board, the rule, the clock, and the command handlers."""

    def __init__(self, strategy: Strategy, about: str, stdin: TextIO, stdout: TextIO) -> None:
        self.strategy = strategy
        self.about = about
        self.stdin = stdin
        self.stdout = stdout
        self.rule = Rule.FREESTYLE
        self.clock = Clock()
        self.board: Board | None = None
        self.started = time.monotonic()
        self.handlers: dict[str, Callable[[str], None]] = {
            "START": self.on_start,
            "RECTSTART": self.on_rectstart,
            "RESTART": self.on_restart,
            "BEGIN": self.on_begin,
            "TURN": self.on_turn,
            "BOARD": self.on_board,
            "INFO": self.on_info,
            "TAKEBACK": self.on_takeback,
            "PLAY": self.on_play,
            "SWAP2BOARD": self.on_swap2board,
            "ABOUT": self.on_about,
        }

    # -- I/O ----------------------------------------------------------------------------
    def say(self, text: str) -> None:
        """Write one answer line and flush it to the manager."""
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def read_line(self) -> str | None:
        """The next non-empty line without its line end, or ``None`` at end of input."""
        while True:
            line = self.stdin.readline()
            if not line:
                return None
            line = line.strip()
            if line:
                return line

    def read_block(self) -> list[str]:
        """The data lines of BOARD / SWAP2BOARD, up to (not including) ``DONE``."""
        lines: list[str] = []
        while (line := self.read_line()) is not None and line.upper() != "DONE":
            lines.append(line)
        return lines

    # -- main loop ----------------------------------------------------------------------
    def run(self) -> None:
        """Answer commands until END or the end of input."""
        while (line := self.read_line()) is not None:
            self.started = time.monotonic()
            command, _, arg = line.partition(" ")
            command = command.upper()
            if command == "END":
                return
            handler = self.handlers.get(command)
            if handler is None:
                self.say(f"UNKNOWN command {command}")
                continue
            try:
                handler(arg.strip())
            except ProtocolError as exc:
                self.say(f"ERROR {exc}")
            except Exception as exc:  # a bug must not kill the brain mid-match...
                if not self.strategy.forgiving:  # ...unless its faults are for the referee
                    raise
                log.exception("internal error on %r", line)
                self.say(f"ERROR internal error: {exc}")

    # -- helpers ------------------------------------------------------------------------
    def need_board(self) -> Board:
        """The current board, or an ERROR if there was no START yet."""
        if self.board is None:
            raise ProtocolError("no board: send START first")
        return self.board

    def new_board(self, width: int, height: int) -> None:
        """Start a new empty game on a ``width`` x ``height`` board."""
        if not (MIN_SIZE <= width <= MAX_SIZE and MIN_SIZE <= height <= MAX_SIZE):
            raise ProtocolError(f"unsupported size {width}x{height} (use {MIN_SIZE}..{MAX_SIZE})")
        self.board = Board(width, height, self.rule)
        self.strategy.new_game()
        self.say("OK")

    def point_arg(self, arg: str) -> Point:
        """Parse a command's ``x,y`` argument."""
        try:
            return parse_point(arg)
        except ValueError as exc:
            raise ProtocolError(f"bad coordinates {arg!r}") from exc

    def give_budget(self) -> None:
        """Tell the strategy how long it may think, counting from the command's arrival."""
        spent = time.monotonic() - self.started
        self.strategy.time_budget = max(self.clock.budget() - spent, FAST_BUDGET)

    def play_own_move(self) -> None:
        """Ask the strategy for a move, play it on the board and answer it."""
        board = self.need_board()
        if board.is_full():
            raise ProtocolError("the board is full")
        self.give_budget()
        color = board.to_move
        if not self.strategy.forgiving:
            point = self.strategy.choose(board, color)  # its errors end the brain
            if is_legal(board, *point, color):
                board.place(*point, color)
            self.say(format_point(point))  # even if illegal: the referee judges it
            return
        try:
            point = self.strategy.choose(board, color)
        except Exception:  # a bug in a strategy must not lose the game on the spot
            log.exception("the strategy failed; playing any legal point")
            point = (-1, -1)
        if not is_legal(board, *point, color):
            log.error("strategy chose %s, which is not a legal point", point)
            empty = list(board.empty_points())
            point = next((p for p in empty if is_legal(board, *p, color)), empty[0])
        board.place(*point, color)
        self.say(format_point(point))

    # -- commands -----------------------------------------------------------------------
    def on_start(self, arg: str) -> None:
        """START n: a new square board."""
        try:
            size = int(arg)
        except ValueError as exc:
            raise ProtocolError(f"bad size {arg!r}") from exc
        self.new_board(size, size)

    def on_rectstart(self, arg: str) -> None:
        """RECTSTART w,h: a new rectangular board."""
        width, height = self.point_arg(arg)
        self.new_board(width, height)

    def on_restart(self, arg: str) -> None:
        """RESTART: a new empty board of the same size."""
        board = self.need_board()
        self.new_board(board.width, board.height)

    def on_begin(self, arg: str) -> None:
        """BEGIN: the brain opens the game."""
        self.play_own_move()

    def on_turn(self, arg: str) -> None:
        """TURN x,y: the opponent played at x,y; answer our move."""
        board = self.need_board()
        x, y = self.point_arg(arg)
        if not board.is_empty(x, y):
            raise ProtocolError(f"invalid move {x},{y}: not an empty point of the board")
        board.place(x, y)
        self.play_own_move()

    def on_board(self, arg: str) -> None:
        """BOARD ... DONE: a whole new position; the colour to move next is ours."""
        block = self.read_block()
        board = self.need_board()
        stones: list[tuple[Point, int]] = []
        for line in block:
            try:
                x, y, field = (int(part) for part in line.split(","))
            except ValueError:
                log.warning("ignoring bad BOARD line %r", line)
                continue
            if board.on_board(x, y) and field in (1, 2, 3):
                stones.append(((x, y), field))
            else:
                log.warning("ignoring bad BOARD line %r", line)
        self.board = self.set_up(board.width, board.height, stones)
        self.play_own_move()

    def set_up(self, width: int, height: int, stones: list[tuple[Point, int]]) -> Board:
        """A new board with BOARD's stones (field 1 ours, 2 theirs, 3 out of play).

        The colour to move next is ours, so ours is black when the players' stones are even.
        """
        fresh = Board(width, height, self.rule)
        players = sum(1 for _, field in stones if field != 3)
        me = BLACK if players % 2 == 0 else opponent(BLACK)
        for (x, y), field in stones:
            if not fresh.is_empty(x, y):
                log.warning("ignoring BOARD stone on occupied point %d,%d", x, y)
            elif field == 3:
                fresh.cells[fresh.index(x, y)] = WALL
            else:
                fresh.place(x, y, me if field == 1 else opponent(me))
        return fresh

    def on_info(self, arg: str) -> None:
        """INFO key value: time limits and the rule; anything else is ignored."""
        key, _, value = arg.partition(" ")
        key = key.lower()
        try:
            number = int(value.strip())
        except ValueError:
            return
        if key == "timeout_turn":
            self.clock.timeout_turn_ms = number
        elif key == "timeout_match":
            self.clock.timeout_match_ms = number
        elif key == "time_left":
            self.clock.time_left_ms = number
        elif key == "rule":
            self.set_rule(number)

    def set_rule(self, bitmask: int) -> None:
        """Apply ``INFO rule`` (the continuous-game bit is ignored; unknown masks too)."""
        rule = RULES_BY_BITMASK.get(bitmask & ~CONTINUOUS_BIT)
        if rule is None:
            log.warning("ignoring unsupported rule %d", bitmask)
            return
        self.rule = rule
        if self.board is not None:
            self.board.rule = rule

    def on_takeback(self, arg: str) -> None:
        """TAKEBACK x,y: remove the stone at x,y."""
        board = self.need_board()
        x, y = self.point_arg(arg)
        if not board.on_board(x, y) or board[x, y] == EMPTY:
            raise ProtocolError(f"no stone at {x},{y}")
        if (x, y) in board.moves:
            board.moves.remove((x, y))
        board.cells[board.index(x, y)] = EMPTY
        self.say("OK")

    def on_play(self, arg: str) -> None:
        """PLAY x,y: the manager imposes our move; play it and echo it."""
        board = self.need_board()
        x, y = self.point_arg(arg)
        if not board.is_empty(x, y):
            raise ProtocolError(f"invalid move {x},{y}: not an empty point of the board")
        board.place(x, y)
        self.say(format_point((x, y)))

    def on_about(self, arg: str) -> None:
        """ABOUT: one line about the brain."""
        self.say(self.about)

    def on_swap2board(self, arg: str) -> None:
        """SWAP2BOARD ... DONE: the three cases of the swap2 opening."""
        block = self.read_block()
        board = self.need_board()
        fresh = Board(board.width, board.height, self.rule)
        stones: list[Point] = []
        for line in block:
            point = self.point_arg(line)
            if not fresh.is_empty(*point):
                raise ProtocolError(f"bad swap2 stone {line!r}")
            fresh.place(*point)
            stones.append(point)
        self.board = fresh
        self.give_budget()
        if len(stones) == 0:
            answer: Swap2Choice = self.strategy.swap2_place3(fresh)
        elif len(stones) == 3:
            answer = self.strategy.swap2_choose(fresh, stones)
        elif len(stones) == 5:
            answer = self.strategy.swap2_final(fresh, stones)
        else:
            raise ProtocolError(f"swap2 expects 0, 3 or 5 stones, got {len(stones)}")
        self.say(self.play_swap2_answer(fresh, len(stones), answer))

    def play_swap2_answer(self, board: Board, given: int, answer: Swap2Choice) -> str:
        """Check a strategy's swap2 answer, put its stones on the board, and format it."""
        allowed = {0: (3,), 3: (0, 1, 2), 5: (0, 1)}[given]
        points: tuple[Point, ...] = () if answer == SWAP else tuple(answer)
        if len(points) not in allowed:
            raise ProtocolError(f"strategy gave a bad swap2 answer {answer!r}")
        for point in points:
            if not board.is_empty(*point):
                raise ProtocolError(f"strategy gave a bad swap2 stone {point}")
            board.place(*point)
        return SWAP if not points else " ".join(format_point(p) for p in points)


def run_brain(
    strategy: Strategy,
    about: str,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
) -> None:
    """Play the brain side of the protocol until END or end of input.

    ``about`` is the ``ABOUT`` answer line (see ``format_about``); ``stdin``/``stdout``
    default to the process's own.
    """
    session = _Session(
        strategy,
        about,
        sys.stdin if stdin is None else stdin,
        sys.stdout if stdout is None else stdout,
    )
    session.run()


def brain_main(strategy: Strategy, about: str) -> int:
    """Run a brain as a console program: log to stderr, speak the protocol on stdio."""
    logging.basicConfig(
        stream=sys.stderr, level=logging.WARNING, format="%(name)s: %(levelname)s: %(message)s"
    )
    try:
        run_brain(strategy, about)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
    return 0
