"""The manager side of the Gomocup protocol: commands to a brain, its answers parsed strictly.

``Brain`` speaks the wire (START, RECTSTART, RESTART, INFO, BEGIN, TURN, BOARD, SWAP2BOARD,
TAKEBACK, ABOUT, END, and PLAY in answer to SUGGEST). ``GomokuSeat`` translates the game
engine into those commands for one seat: TURN when the brain knows every stone but the
opponent's last, BEGIN on an empty board, BOARD otherwise, SWAP2BOARD during swap2.

Lines from the brain: MESSAGE and DEBUG are kept as notes and never taken for an answer.
While the manager waits for a move (BEGIN, TURN, BOARD, SWAP2BOARD, PLAY), every line that
is not a move is kept as a note and the wait goes on, as GomocupJudge's manager does: a
brain that answers ``ERROR Unknown command: ...`` to an INFO it does not know and then its
move plays on; the clock still ends the wait of a brain that never moves. To START, RESTART,
ABOUT and TAKEBACK the brain's first other line is its answer (ERROR to START refuses the
board; UNKNOWN or ERROR to RESTART mean "start me afresh"). ``x,y`` answers are parsed here;
whether the point is legal is the engine's question.

INFO lines are only ever sent while the brain is idle (before a request, after START or
RESTART), as Piskvork does, never while it thinks.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

from referee.core.clock import Clock
from referee.core.errors import BotFault, MatchAborted
from referee.core.match import Decision
from referee.core.outcome import Outcome
from referee.core.process import BotProcess
from referee.core.text import clip
from referee.games.gomoku.game import Action, GomokuGame, Move, Phase, Stones, Swap

log = logging.getLogger(__name__)

EOL = "\r\n"
_POINT = re.compile(r"\s*(-?\d{1,6})\s*,\s*(-?\d{1,6})\s*")
_ABOUT_PAIR = re.compile(r'(\w+)\s*=\s*"([^"]*)"')

NoteSink = Callable[[str, str], None]


def parse_point(text: str) -> tuple[int, int] | None:
    """Parse ``x,y`` (spaces allowed around the numbers); ``None`` if it is not one.
    Short texts are remembered, the last 4,096 distinct ones (a board has at most 1,024
    points, and every record and replay reads each of its moves again); a long line a
    bot sends is read afresh, so that bots cannot fill the memory."""
    return _parse_short(text) if len(text) <= SHORT_POINT else _parse_point(text)


SHORT_POINT = 32
"""Texts up to this long are remembered by ``parse_point`` (a point is at most 15
characters without spaces)."""


@functools.lru_cache(maxsize=4096)
def _parse_short(text: str) -> tuple[int, int] | None:
    return _parse_point(text)


def _parse_point(text: str) -> tuple[int, int] | None:
    x, comma, y = text.partition(",")
    if comma:
        x, y = x.strip(), y.strip()
        if x.isdecimal() and y.isdecimal() and len(x) < 7 and len(y) < 7:
            return int(x), int(y)  # the common case, without a regular expression
    match = _POINT.fullmatch(text)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2))


def _is_points(line: str) -> bool:
    """Whether ``line`` is one or more ``x,y`` points separated by spaces."""
    parts = line.split()
    return bool(parts) and all(parse_point(part) is not None for part in parts)


def _points(line: str) -> list[tuple[int, int]]:
    """The points of a line that ``_is_points`` accepts."""
    return [p for p in (parse_point(part) for part in line.split()) if p is not None]


def parse_about(line: str) -> dict[str, str]:
    """Parse an ABOUT answer: ``key="value"`` pairs, or an old free-text answer as ``text``."""
    pairs = {k.lower(): v for k, v in _ABOUT_PAIR.findall(line)}
    return pairs if pairs else {"text": line.strip()}


ABOUT_TIME = 3.0
"""Seconds a brain has to answer ABOUT (an answer is optional: without one it plays on)."""


class Brain:
    """One Gomocup brain process and the commands the manager sends it."""

    def __init__(self, process: BotProcess, name: str, on_note: NoteSink | None = None) -> None:
        self.process = process
        self.name = name
        self.on_note = on_note
        self.about: dict[str, str] = {}
        self.messages = 0
        self.skipped: str | None = None
        """The last line of the current move request that was not a move (for the
        reason of a timeout: a brain that means ``7 8`` for ``7,8`` is told so)."""

    # -- answers ------------------------------------------------------------------------
    def _note(self, kind: str, text: str) -> None:
        self.messages += 1
        if kind == "DEBUG":
            log.debug("%s DEBUG %s", self.name, text)
        else:
            log.info("%s %s %s", self.name, kind, text)
        if self.on_note is not None:
            self.on_note(kind, text)

    def _answer(self, command: str, deadline: float) -> str:
        """The next line that is not MESSAGE/DEBUG; UNKNOWN/ERROR are returned as is."""
        process = self.process
        while True:
            line = process.read_line(deadline)
            if line[:1].isdigit():
                return line.strip()  # the usual answer, a move: no keyword to look at
            head = line.split(None, 1)
            word = head[0].upper() if head else ""
            if word in ("MESSAGE", "DEBUG"):
                self._note(word, head[1] if len(head) > 1 else "")
                if time.monotonic() > deadline:
                    raise BotFault(Outcome.TIMEOUT, f"no answer to {command} in time")
                continue
            return line.strip()

    def _move_answer(self, command: str, deadline: float, swap: bool = False) -> str:
        """The next line that is a move answer: points (``x,y`` or several), ``SUGGEST x,y``,
        or (``swap``) ``SWAP``. Every other line is kept as a note (its keyword as the
        kind: MESSAGE, DEBUG, ERROR, UNKNOWN, or TEXT for anything else) and the wait goes
        on until the deadline."""
        self.skipped = None
        while True:
            line = self._answer(command, deadline)
            if _is_points(line):
                return line
            word = line.split(None, 1)[0].upper() if line else ""
            if (word == "SUGGEST" and parse_point(line[7:]) is not None) or (
                swap and line.upper() == "SWAP"
            ):
                return line
            self.skipped = line
            if word in ("ERROR", "UNKNOWN"):
                self._note(word, line[len(word) :].strip())
            else:
                self._note("TEXT", line)
            if time.monotonic() > deadline:
                raise BotFault(Outcome.TIMEOUT, f"no answer to {command} in time")

    def _fault(self, command: str, line: str) -> BotFault:
        return BotFault(Outcome.PROTOCOL_ERROR, f"answered {clip(line)!r} to {command}")

    def _read_points(self, command: str, deadline: float) -> list[tuple[int, int]]:
        """Read an answer made of points (``x,y`` or several, space separated)."""
        line = self._move_answer(command, deadline)
        if line[:7].upper() == "SUGGEST":
            point = parse_point(line[7:])
            assert point is not None  # _move_answer only returns a SUGGEST with a point
            self.process.send(f"PLAY {point[0]},{point[1]}{EOL}", deadline)
            return self._read_points("PLAY", deadline)
        return _points(line)

    def _read_move(self, command: str, deadline: float) -> tuple[int, int]:
        points = self._read_points(command, deadline)
        if len(points) != 1:
            raise self._fault(command, " ".join(f"{x},{y}" for x, y in points))
        return points[0]

    # -- commands -----------------------------------------------------------------------
    def start(self, width: int, height: int, deadline: float) -> None:
        """START (square) or RECTSTART; a refusal aborts the match with the brain's words."""
        command = f"START {width}" if width == height else f"RECTSTART {width},{height}"
        self.process.send(command + EOL, deadline)
        line = self._answer(command, deadline)
        word = line.split(None, 1)[0].upper() if line else ""
        if word == "OK":
            return
        if word in ("ERROR", "UNKNOWN"):
            words = line[len(word) :].strip() or "no reason given"
            raise MatchAborted(
                f"{self.name} refuses the {width}x{height} board ({command}): {word} {words}"
            )
        raise self._fault(command, line)

    def restart(self, deadline: float) -> bool:
        """RESTART; ``False`` when the brain does not know it or cannot (UNKNOWN or ERROR:
        the caller starts it afresh, which also drops a late ERROR to an earlier INFO)."""
        self.process.send("RESTART" + EOL, deadline)
        line = self._answer("RESTART", deadline)
        word = line.split(None, 1)[0].upper() if line else ""
        if word == "OK":
            return True
        if word in ("UNKNOWN", "ERROR"):
            self._note(word, f"to RESTART: {line[len(word) :].strip()}")
            return False
        raise self._fault("RESTART", line)

    def info(self, items: Sequence[tuple[str, Any]], deadline: float | None = None) -> None:
        """Send INFO lines (no answer expected)."""
        if items:
            self.process.send("".join(f"INFO {k} {v}{EOL}" for k, v in items), deadline)

    def ask_about(self, deadline: float, limit: float = ABOUT_TIME) -> dict[str, str]:
        """ABOUT: parse ``key="value"`` pairs; old free text and UNKNOWN are accepted. The
        answer has ``limit`` seconds of its own (within ``deadline``): a brain that does
        not answer gets a note and plays on (an answer that comes later, while a move is
        awaited, is kept as a note too)."""
        self.process.send("ABOUT" + EOL, deadline)
        own = min(deadline, time.monotonic() + limit)
        try:
            line = self._answer("ABOUT", own)
        except BotFault as fault:
            if fault.outcome is not Outcome.TIMEOUT or own >= deadline:
                raise
            self._note("ABOUT", f"no answer within {limit:g} s (name and version unknown)")
            self.about = {}
            return self.about
        if line.split(None, 1)[0].upper() in ("UNKNOWN", "ERROR"):
            self.about = {}
        else:
            self.about = parse_about(line)
        return self.about

    def begin(self, time_left: int, deadline: float) -> tuple[int, int]:
        """INFO time_left + BEGIN: the brain's first move on an empty board."""
        self.process.send(f"INFO time_left {time_left}{EOL}BEGIN{EOL}", deadline)
        return self._read_move("BEGIN", deadline)

    def turn(self, x: int, y: int, time_left: int, deadline: float) -> tuple[int, int]:
        """INFO time_left + TURN x,y: the opponent's move, the brain's answer."""
        self.process.send(f"INFO time_left {time_left}{EOL}TURN {x},{y}{EOL}", deadline)
        return self._read_move("TURN", deadline)

    def board(
        self, stones: Sequence[tuple[int, int, int]], time_left: int, deadline: float
    ) -> tuple[int, int]:
        """INFO time_left + BOARD with ``(x, y, field)`` lines in played order + DONE."""
        body = "".join(f"{x},{y},{f}{EOL}" for x, y, f in stones)
        self.process.send(f"INFO time_left {time_left}{EOL}BOARD{EOL}{body}DONE{EOL}", deadline)
        return self._read_move("BOARD", deadline)

    def swap2board(
        self, stones: Sequence[tuple[int, int]], time_left: int, deadline: float
    ) -> Action:
        """INFO time_left + SWAP2BOARD with the stones so far + DONE; the brain's choice."""
        body = "".join(f"{x},{y}{EOL}" for x, y in stones)
        self.process.send(
            f"INFO time_left {time_left}{EOL}SWAP2BOARD{EOL}{body}DONE{EOL}", deadline
        )
        line = self._move_answer("SWAP2BOARD", deadline, swap=True)
        if line.upper() == "SWAP":
            return Swap()
        if line[:7].upper() == "SUGGEST":
            raise self._fault("SWAP2BOARD", line)
        points = tuple(_points(line))
        return Move(*points[0]) if len(points) == 1 else Stones(points)

    def takeback(self, x: int, y: int, deadline: float) -> None:
        """TAKEBACK x,y: the brain removes that stone and answers OK."""
        command = f"TAKEBACK {x},{y}"
        self.process.send(command + EOL, deadline)
        line = self._answer(command, deadline)
        if line.split(None, 1)[0].upper() != "OK":
            raise self._fault(command, line)

    def end(self, grace: float = 1.0) -> None:
        """END, then wait up to ``grace`` seconds for the brain to exit, then kill its tree."""
        if self.process.running:
            with contextlib.suppress(BotFault):
                self.process.send("END" + EOL, time.monotonic() + grace)
        self.process.stop(grace)


class GomokuSeat:
    """Drives one brain through a game: engine state in, commands out, decision back."""

    def __init__(self, brain: Brain, seat: int, clock: Clock) -> None:
        self.brain = brain
        self.seat = seat
        self.clock = clock
        self.name = brain.name
        self.known = 0
        """How many of the game's stones the brain has on its board (-1: unknown)."""

    def request(self, engine: GomokuGame) -> Decision:
        """Ask the brain for its decision in the engine's current phase."""
        clock = self.clock
        deadline = clock.start()
        left = clock.time_left_ms()
        brain = self.brain
        moves = engine.board.moves
        cpu = brain.process.cpu_time()
        try:
            if engine.phase is Phase.PLAY:
                n = len(moves)
                if n == 0 and self.known == 0:
                    point = brain.begin(left, deadline)
                elif self.known == n - 1 and n > 0:
                    point = brain.turn(*moves[-1], left, deadline)
                else:
                    point = brain.board(self._stones(engine), left, deadline)
                action: Action = Move(*point)
                self.known = n + 1
            else:
                action = brain.swap2board(moves, left, deadline)
                self.known = -1
        except BotFault as fault:
            if fault.outcome is Outcome.TIMEOUT:
                late = clock.expire()
                if brain.skipped is not None:
                    late = BotFault(Outcome.TIMEOUT, f"{late.reason}; its last line, "
                                    f"{clip(brain.skipped)!r}, is not a move")
                raise late from None
            raise
        return Decision(action, clock.stop(), brain.process.cpu_time() - cpu)

    def end_turn(self) -> None:
        """Its folders are checked (over the limit: ``folder-limit``, Gomocup's FLE)."""
        self.brain.process.end_turn()

    def _stones(self, engine: GomokuGame) -> list[tuple[int, int, int]]:
        own = engine.color_of(self.seat)
        cells = engine.board.cells
        index = engine.board.index
        return [(x, y, 1 if cells[index(x, y)] == own else 2) for x, y in engine.board.moves]

    def observe(self, engine: GomokuGame, seat: int, action: Action) -> None:
        """Nothing to do: the brain learns the opponent's move with its next command."""

