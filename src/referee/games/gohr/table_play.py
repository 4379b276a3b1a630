"""A GOHR game at a web table: the series of boards (``table_engine.GohrSeries``) played by
the generic loop (``core.match.play_game``), its seat a person's (driven by the server),
a program the referee starts in the sandbox, or a program joining over the network.

A program plays as it would with the captive server (``referee play gohr ...
output=standard``): the referee is the server. It is sent the episode's opening lines
(the status, the greeting, the board as JSON), then answers each of its command lines
as the server does; ``MOVE id bucket`` on a piece of the board (or ``MOVE row col brow
bcol`` on a piece's cell), ``NEW`` and ``EXIT`` are its decisions, timed on its clock,
and are answered once applied. Anything else (``DISPLAY``, ``FEATURES``, ``MODE``, a
``MOVE`` the server answers with an error code, a line it cannot read) is answered at
once and costs only time: the captive server counts none of them as an attempt. Once a
board is over at the table's move limit, a ``MOVE`` is answered ``-4`` (no game on) as
after a cleared board. A program that takes the seat mid-game (a pinch-hitter, or a
person's program) is sent the board being played as if it had just been started.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.core.clock import Clock, TimeControl
from referee.core.errors import BotFault
from referee.core.match import Decision, FaultPolicy, Seat, Watcher, forfeit, play_game
from referee.core.outcome import Outcome
from referee.core.players import PlayerSpec, start_player
from referee.core.record import GameRecord, PlayerInfo
from referee.core.sandbox import SandboxConfig, plan_sandbox
from referee.games.gohr.board import N, bucket_at
from referee.games.gohr.captive import NUMBER, WORD, CaptiveSession, command_tokens
from referee.games.gohr.engine import Code
from referee.games.gohr.setup import GameSetup
from referee.games.gohr.table_engine import Attempt, Exit, GohrSeries, NextBoard

log = logging.getLogger(__name__)

__all__ = ["CaptiveSeat", "GohrTableGame", "SeatMaker"]

SeatMaker = Callable[[int, Clock], Seat]
"""A seat played by no program of the game (a person at a web table)."""


class CaptiveSeat:
    """A program playing the series over the captive server's protocol (see the module)."""

    def __init__(self, process: Any, name: str, clock: Clock, series: GohrSeries) -> None:
        self.process = process
        self.name = name
        self.clock = clock
        self.series = series
        self.session = CaptiveSession(GameSetup(series.rules, lambda: series.boards[0],
                                                random.Random(0), 0, "standard"))
        self._first = True
        self.process.send(_lines(self.session.show_episode(series.episode,
                                                           series.index + 1)))

    def request(self, engine: GohrSeries) -> Decision:
        """The program's next decision; its other commands answered meanwhile."""
        first, self._first = self._first, False
        deadline = self.clock.start_setup() if first else self.clock.start()
        cpu = self.process.cpu_time()
        try:
            while True:
                line = self.process.read_line(deadline)
                action = self._action(engine, line)
                if action is not None:
                    break
        except BotFault as fault:
            if fault.outcome is Outcome.TIMEOUT:
                raise self.clock.expire() from None
            raise
        seconds = self.clock.stop(counts_as_move=not first)
        return Decision(action, seconds, self.process.cpu_time() - cpu)

    def _action(self, engine: GohrSeries, line: str) -> Attempt | NextBoard | Exit | None:
        """The decision ``line`` is, or ``None`` once it is answered as the server does."""
        session = self.session
        tokens = command_tokens(line) or []
        word = tokens[0][1].upper() if tokens and tokens[0][0] == WORD else ""
        args = tokens[1:]
        if word == "NEW":  # (with arguments too: the session must not draw a board)
            return NextBoard()
        if word == "EXIT":
            return Exit()
        if word == "MOVE" and len(args) in (2, 4) and all(kind == NUMBER and len(text) < 10
                                                          for kind, text in args):
            numbers = [int(text) for _, text in args]
            if engine.end == "limit":
                episode = engine.episode
                self.process.send(_lines([
                    f"{int(Code.NO_GAME)} {int(episode.finish)} {episode.attempts}",
                    f"# the board's limit of {engine.max_moves} move attempts is reached: "
                    "use NEW to start the next board", *self._board()]))
                return None
            attempt = _attempt(engine, numbers)
            if attempt is not None:
                return attempt
        self.process.send(_lines(session.handle(line)[0]))
        return None

    def _board(self) -> list[str]:
        """The board's JSON line, unless the session is in brief mode."""
        return [] if self.session.mode == "brief" else self.session.handle("DISPLAY")[0][:1]

    def end_turn(self) -> None:
        """Its folders are checked against the sandbox's limit."""
        self.process.end_turn()

    def observe(self, engine: GohrSeries, seat: int, action: Any) -> None:
        """The answer to the decision just applied: the move's, or the next board's
        opening lines (nothing after ``EXIT`` or once the game is over but the move's)."""
        session = self.session
        if isinstance(action, Attempt):
            self.process.send(_lines(session.move_answer(Code(engine.codes[-1]))))
        elif isinstance(action, NextBoard) and engine.to_play() is not None:
            self.process.send(_lines(session.show_episode(engine.episode, engine.index + 1)))

    def finish(self) -> None:
        """End the program (its input closes: a captive client stops there)."""
        self.process.kill()


def _attempt(engine: GohrSeries, numbers: Sequence[int]) -> Attempt | None:
    """The attempt a ``MOVE``'s numbers make, if the server would count it as one (a piece
    on the board, a bucket, a board being played); ``None`` if it answers it an error."""
    if engine.board_over:
        return None
    board = engine.episode.board
    if len(numbers) == 2:
        piece_id, bucket = numbers
        piece = board.by_id(piece_id)
    else:
        row, col, brow, bcol = numbers
        target = bucket_at(brow, bcol)
        piece = board.at(col, row) if 1 <= col <= N and 1 <= row <= N else None
        bucket = -1 if target is None else target
    if piece is None or not 0 <= bucket <= 3:
        return None
    return Attempt(piece.id, bucket)


def _lines(lines: Sequence[str]) -> str:
    return "".join(line + "\n" for line in lines)


class GohrTableGame:
    """One game of a table (see the module): ``play``, and ``take_over`` / ``drop`` /
    ``current_record`` for the table's hooks."""

    def __init__(self, players: Sequence[PlayerSpec], series: GohrSeries,
                 settings: Mapping[str, Any], seed: int, work: Path, *,
                 times: Sequence[TimeControl], sandbox: SandboxConfig,
                 links: Mapping[int, Callable[[], Any]] | None = None) -> None:
        self.players = list(players)
        self.series = series
        self.work = work
        self.times = list(times)
        self.links = dict(links or {})
        self.seed = seed
        self.plan = plan_sandbox(sandbox)
        self.suspend = sandbox.suspends(True)
        self.programs: dict[int, CaptiveSeat] = {}
        self.record = GameRecord(game="gohr", players=[PlayerInfo(p.name, list(p.command))
                                                       for p in players],
                                 settings=dict(settings), seed=seed)
        self.record.sandbox = self.plan.describe(self.suspend)

    def program(self, seat: int, player: PlayerSpec, time: TimeControl) -> CaptiveSeat:
        """``player``'s program started (or its link taken) and shown the board."""
        link = self.links.get(seat)
        if link is not None:
            process: Any = link()
        else:
            process = start_player(player, self.work, seed=self.seed * 7 + seat,
                                   tag=f"{seat}-{len(self.programs)}-", sandbox=self.plan,
                                   suspend=self.suspend, seat=seat)
        try:
            driver = CaptiveSeat(process, player.name, Clock(time), self.series)
        except BotFault:
            process.kill()
            raise
        self.programs[seat] = driver
        return driver

    def play(self, outside: Mapping[int, SeatMaker], watch: Watcher | None = None,
             on_fault: FaultPolicy | None = None) -> GameRecord:
        """Play the series to its end; the finished record, every move with its code."""
        record = self.record
        try:
            seats: list[Any] = []
            for seat, player in enumerate(self.players):
                if seat in outside:
                    seats.append(outside[seat](seat, Clock(self.times[seat])))
                    continue
                try:
                    seats.append(self.program(seat, player, self.times[seat]))
                except BotFault as fault:
                    forfeit(record, seat, 1, fault, player.name)
                    return record
            play_game(self.series, seats, record, on_fault=on_fault, watch=watch)
        finally:
            for seat in list(self.programs):
                self.drop(seat)
        self.annotate()
        return record

    def annotate(self) -> None:
        """Each recorded action's response code (``info.code``) and the boards' results."""
        codes = iter(self.series.codes)
        for move in self.record.moves:
            if not move.info.get("illegal"):
                move.info["code"] = next(codes, None)
        self.record.settings["results"] = [
            {"pieces": r.pieces, "attempts": r.attempts, "accepted": r.accepted,
             "end": r.end} for r in self.series.results]

    def current_record(self) -> GameRecord:
        """The record of the game (being played, or finished)."""
        return self.record

    def take_over(self, seat: int, player: PlayerSpec,
                  time: TimeControl | None = None) -> CaptiveSeat:
        """``player``'s program plays ``seat`` from the board being played."""
        self.drop(seat)
        return self.program(seat, player, time or self.times[seat])

    def drop(self, seat: int) -> None:
        """End the program playing ``seat``, if one does."""
        program = self.programs.pop(seat, None)
        if program is not None:
            program.finish()
