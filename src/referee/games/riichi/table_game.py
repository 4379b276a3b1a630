"""A Riichi game at a web table: the mjai referee's loop (:mod:`.match`) with the hooks a
table needs.

Seats the caller drives (people) are asked through their ``core.match.Seat`` when the
engine asks them; a program joining over the network is a bot whose process is its
``core.line_link.LineLink``; the table is shown the game (:class:`RiichiTable`) before the
first decision, after every answer and at the end. :meth:`RiichiTableGame.take_over`
starts a program in a seat from the position reached (the pinch-hitter, or a person's
own program playing for them): it is told the game so far (``start_game`` and every event
as its seat saw them) and its answers to them are dropped, but for the question put to
it now. A program that forfeits is handed to the table's fault policy, which may put a
pinch-hitter in its seat; a person who resigns or leaves forfeits as a bot does (the
safe default plays the seat to the end: the other three play on).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from referee.core.clock import Clock, TimeControl
from referee.core.errors import BotFault, ConfigError
from referee.core.journal import Journal
from referee.core.line_link import LineLink
from referee.core.match import Decision, Seat, cpu_info
from referee.core.outcome import Outcome
from referee.core.players import PlayerSpec, check_runnable, start_player
from referee.core.record import GameRecord
from referee.core.sandbox import plan_sandbox
from referee.games.riichi.frames import RiichiFrames
from referee.games.riichi.logrules import start_game_event
from referee.games.riichi.match import (
    _MASKED,
    RiichiMatchSettings,
    _line,
    _Referee,
    _Seat,
    finish_record,
    mask_event,
    new_record,
    safe_default,
    seated,
)
from referee.games.riichi.rules import Action, RiichiGame, RiichiKyoku

__all__ = ["RiichiTable", "RiichiTableGame", "SeatMaker"]

SeatMaker = Callable[[int, Clock], Seat]
"""A seat no program of the game plays (a person): its driver from its seat and clock."""

Answer = tuple[str | None, float, float | None]
"""A bot's answer as the referee's loop holds it: the line, its seconds, CPU before."""


class RiichiTable:
    """The game as a table's watchers see it: the engine, the seat asked now, the frames
    of the results site's tile replays, the hand before the one in play."""

    def __init__(self, game: RiichiGame, names: Sequence[str]) -> None:
        self.game = game
        self.names = list(names)
        self.asked: int | None = None
        """The seat whose driver is being asked now, if one is."""
        self.frames = RiichiFrames(game, names)
        self.previous: RiichiKyoku | None = None
        """The hand played to its end before the one in play."""
        self._current: RiichiKyoku | None = game.kyoku

    def to_play(self) -> int | None:
        """The seat asked now (else the first seat the engine waits for); ``None`` once
        the game is over."""
        game = self.game
        if game.over:
            return None
        if self.asked is not None:
            return self.asked
        pending = game.pending()
        return min(pending) if pending else None

    def illegal_reason(self, seat: int, action: Action) -> str | None:
        """The engine's reason why ``action`` is not ``seat``'s to play now, if it is not."""
        return self.game.illegal_reason(seat, action)

    def track(self) -> None:
        """Note a new hand (the one before it stays in sight)."""
        kyoku = self.game.kyoku
        if kyoku is not self._current:
            self.previous, self._current = self._current, kyoku


class _TableReferee(_Referee):
    """The referee's loop with outside seats, a watcher and the table's fault policy."""

    def __init__(self, game: RiichiGame, seats: list[_Seat], settings: RiichiMatchSettings,
                 record: GameRecord, table: RiichiTable, watch: Callable[[Any], None] | None,
                 on_fault: Callable[[Any, int, BotFault], Any] | None) -> None:
        super().__init__(game, seats, settings, record)
        self.table = table
        self.watch = watch
        self.on_fault = on_fault
        self.answers: dict[int, Answer] = {}
        """The answers the last exchange read."""
        self.kept: dict[int, Answer] = {}
        """A program that just took a seat: its answer to the question put to it now."""
        self.lost: list[tuple[int, BotFault]] = []
        """Programs that forfeited, for the fault policy."""
        self.deciding: int | None = None
        self.journal = Journal.active()
        """The table's journal (``core.journal``), kept by this thread's table."""
        self.replay = self.journal.next_game() if self.journal is not None else None

    def exchange(self, chunk: list[dict[str, Any]], pending: set[int],
                 over: bool) -> dict[int, Answer]:
        self.answers = super().exchange(chunk, pending, over)
        return self.answers

    def forfeit(self, seat: int, why: str, outcome: Outcome = Outcome.ILLEGAL_MOVE) -> None:
        state = self.seats[seat]
        if state.driver is not None and state.process is not None and not state.forfeited:
            # the program playing for a person is out: the safe default plays until the
            # person takes the seat back
            self.record.add_note(seat, "forfeit", f"the program playing seat {seat + 1} "
                                 f"for {self.record.players[seat].name} is out ({why})")
            state.process.stop(0.2)
            state.process = None
            return
        super().forfeit(seat, why, outcome)
        if self.on_fault is not None and self.seats[seat].driver is None:
            self.lost.append((seat, BotFault(outcome, why)))

    def between(self) -> None:
        """The fault policy of each program that forfeited (a pinch-hitter may take its
        seat: told the game so far, it plays from the next events on)."""
        while self.lost and self.on_fault is not None:
            seat, fault = self.lost.pop(0)
            self.on_fault(self.table, seat, fault)

    def applied(self) -> None:
        self.table.track()
        if self.watch is not None:
            self.watch(self.table)

    def decide(self, seat: int, answers: dict[int, Answer]
               ) -> tuple[Action, float, dict[str, Any]]:
        """Seat ``seat``'s decision, kept in the table's journal; while a stopped game's
        journal is applied again, its action (the bots were told every event all the
        same: they are in step with the game once it is through, none is started again)."""
        journal, replay = self.journal, self.replay
        if journal is not None and journal.resuming and replay is not None:
            if replay.moves:
                move, action = replay.next_for(
                    seat, lambda action: self.game.find_legal(seat, action),
                    len(self.record.moves) + 1)
                return action, move.seconds, cpu_info(move.cpu)
            journal.resuming = False
        action, seconds, info = self._decided(seat, answers)
        if journal is not None:
            cpu = info.get("cpu_ms")
            journal.moved(seat, action, seconds, None if cpu is None else cpu / 1000)
        return action, seconds, info

    def _decided(self, seat: int, answers: dict[int, Answer]
                 ) -> tuple[Action, float, dict[str, Any]]:
        state = self.seats[seat]
        if state.driver is None or state.forfeited:
            return super().decide(seat, answers)
        self.table.asked = self.deciding = seat
        try:
            decision = state.driver.request(self.table)
            state.driver.end_turn()
        except BotFault as fault:
            self.forfeit(seat, f"{state.driver.name} {fault.reason}", fault.outcome)
            return safe_default(self.game.legal_actions(seat)), 0.0, {"default": True}
        finally:
            self.table.asked = self.deciding = None
        action = self.game.find_legal(seat, decision.action) or decision.action
        return action, decision.seconds, cpu_info(decision.cpu)


class _ProgramTurn:
    """A program in a seat the loop asks from outside (a person's, playing for them): the
    referee tells it the events and reads its answers; this gives them to the person's
    seat."""

    def __init__(self, referee: _TableReferee, seat: int, name: str) -> None:
        self.referee = referee
        self.seat = seat
        self.name = name

    def request(self, engine: Any) -> Decision:
        """The program's answer to the question put to the seat now (the safe default if
        it has none: it forfeited)."""
        referee, seat = self.referee, self.seat
        got = referee.kept.pop(seat, None) or referee.answers.pop(seat, None)
        if got is None or not referee.seats[seat].alive:
            return Decision(safe_default(referee.game.legal_actions(seat)), 0.0)
        line, seconds, _before = got
        action, _default = referee.action(seat, line)
        return Decision(action, seconds)

    def end_turn(self) -> None:
        """The program's folders checked (over the limit: it forfeits)."""
        self.referee.end_turn(self.seat)

    def observe(self, engine: Any, seat: int, action: Any) -> None:
        """Nothing: the referee tells it every event."""


class RiichiTableGame:
    """One game with four seats: programs (started here, or ``links`` over the network)
    and, in ``play``, ``outside`` seats the caller drives (see the module)."""

    def __init__(self, players: Sequence[PlayerSpec], settings: RiichiMatchSettings,
                 work: Path, *, times: Sequence[TimeControl] | None = None,
                 links: Mapping[int, Callable[[], LineLink]] | None = None,
                 log_path: Path | None = None) -> None:
        if len(players) != 4:
            raise ValueError("Riichi mahjong takes four players")
        self.players = list(players)
        self.settings = settings
        self.work = work
        self.times = times
        self.links = dict(links or {})
        self.log_path = log_path or work / "game.mjson.gz"
        self.record = new_record(players, settings)
        self.plan = plan_sandbox(settings.sandbox)
        self.suspend = settings.sandbox.suspends(True)
        self.record.sandbox = self.plan.describe(self.suspend)
        self.game = RiichiGame(settings.rules, seed=settings.seed)
        self.names = [p.name for p in players]
        self.table = RiichiTable(self.game, self.names)
        self.seats: list[_Seat] = []
        self.referee = _TableReferee(self.game, self.seats, settings, self.record,
                                     self.table, None, None)

    def play(self, outside: Mapping[int, SeatMaker] | None = None,
             watch: Callable[[Any], None] | None = None,
             on_fault: Callable[[Any, int, BotFault], Any] | None = None) -> GameRecord:
        """Play the game to its end; write its mjai log; return its record (not written)."""
        outside = outside or {}
        referee, seats, settings = self.referee, self.seats, self.settings
        referee.watch, referee.on_fault = watch, on_fault
        try:
            for s, player in enumerate(self.players):
                state = _Seat(s, None, settings.batched[s] and s not in outside)
                seats.append(state)
                if s in outside:
                    clock = Clock(self.times[s]) if self.times else Clock(TimeControl(
                        turn=settings.decision_time))
                    state.driver = outside[s](s, clock)
                    continue
                try:
                    process: Any = self.links[s]() if s in self.links else start_player(
                        seated(player, s), self.work, seed=settings.seed * 4 + s,
                        tag=f"seat{s + 1}-", sandbox=self.plan, suspend=self.suspend,
                        seat=s, memory_limit=settings.memory_limit)
                    state.process = process  # (a link: the process the referee talks to)
                except BotFault as fault:
                    referee.forfeit(s, f"{fault.outcome.value}: {fault.reason}",
                                    fault.outcome)
            if watch is not None:
                watch(self.table)
            referee.play(self.names)
        finally:
            for state in seats:
                if state.process is not None:
                    state.process.stop(0.5)
        finish_record(self.record, self.game, seats, self.names, settings, self.log_path)
        if watch is not None:
            watch(self.table)
        return self.record

    def current_record(self) -> GameRecord:
        """The record of the game (being played, or finished)."""
        return self.record

    def take_over(self, seat: int, player: PlayerSpec, time_control: TimeControl | None = None
                  ) -> _ProgramTurn:
        """``player``'s program started in ``seat`` from the position reached and told the
        game so far (see the module); ``BotFault`` if it cannot start or get ready within
        the start-up time."""
        referee, settings = self.referee, self.settings
        self.drop(seat)
        try:
            check_runnable(player)
        except ConfigError as exc:
            raise BotFault(Outcome.CRASH, str(exc)) from None
        process = start_player(seated(player, seat), self.work, seed=settings.seed * 4 + seat,
                               tag=f"seat{seat + 1}-{len(self.record.notes)}-",
                               sandbox=self.plan, suspend=self.suspend, seat=seat,
                               memory_limit=settings.memory_limit)
        events = [start_game_event(self.names, settings.rules),
                  *self.game.events[:referee.told]]
        lines = [_line(mask_event(e, seat) if e["type"] in _MASKED else e) for e in events]
        begin = time.monotonic()
        before = process.cpu_time()
        wait = settings.startup_time
        if time_control is not None and time_control.startup:
            wait = max(wait, time_control.startup)
        deadline = begin + wait
        last = ""
        try:
            process.send("".join(lines), deadline)
            for _ in lines:
                last = process.read_line(deadline)
        except BotFault as fault:
            process.stop(0.2)
            if fault.outcome is Outcome.TIMEOUT:
                raise BotFault(fault.outcome, "not ready in time (the game so far)") from None
            raise
        state = self.seats[seat]
        state.process, state.forfeited, state.failures = process, False, 0
        state.batched, state.last_read = False, time.monotonic()
        if referee.deciding == seat:  # its answer to the last event: the question now
            referee.kept[seat] = (last, time.monotonic() - begin, before)
        return _ProgramTurn(referee, seat, player.name)

    def drop(self, seat: int) -> None:
        """End the program playing ``seat`` for its person, if one does."""
        state = self.seats[seat]
        if state.process is not None:
            state.process.stop(0.2)
            state.process = None
        state.expected.clear()
        state.inbox.clear()
        state.buffer = []
        state.owed, state.silent = 0, False
        self.referee.answers.pop(seat, None)
        self.referee.kept.pop(seat, None)
