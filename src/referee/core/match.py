"""The generic referee loop: one game engine, one driver per seat, one record.

The loop asks the engine whose decision it is, asks that seat's driver (which talks to
its bot under its clock), checks the answer with the engine, applies it and records it.
Every forfeit is decided here: a ``BotFault`` from a driver, or an action the engine
finds illegal, ends the game against that seat, unless the game's fault policy puts a
replacement driver in the seat (as ICGA Mahjong does with its dummy AI).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, MutableSequence
from dataclasses import dataclass
from typing import Any, Protocol

from referee.core.errors import BotFault
from referee.core.interrupts import raise_if_asked
from referee.core.journal import GameReplay, Journal
from referee.core.outcome import Outcome
from referee.core.record import GameRecord

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Decision:
    """A seat's answer: the action (in the engine's terms), the seconds it took and, for a
    bot process, the seconds of CPU it used for it."""

    action: Any
    seconds: float
    cpu: float | None = None


class Engine(Protocol):
    """What the loop needs of a rules engine."""

    def to_play(self) -> int | None:
        """The seat to decide next, ``None`` once the game is over."""

    def illegal_reason(self, seat: int, action: Any) -> str | None:
        """Why ``action`` is not allowed for ``seat`` now, or ``None`` if it is."""

    def apply(self, seat: int, action: Any) -> object:
        """Play a legal action (what it returns, if anything, the loop ignores)."""

    def notation(self, action: Any) -> str:
        """The action written for the record."""

    def scores(self) -> list[float]:
        """Scores per seat of the finished game."""

    def end_reason(self) -> str:
        """Why the finished game ended, in words."""

    def forfeit_scores(self, seat: int) -> list[float]:
        """Scores per seat when ``seat`` forfeits."""


class Seat(Protocol):
    """A seat's driver: shows its bot what it may see, returns the bot's decision."""

    name: str

    def request(self, engine: Any) -> Decision:
        """Ask the bot for its decision; raise ``BotFault`` if it misbehaves."""

    def end_turn(self) -> None:
        """The seat has decided: check what its bot may not exceed between turns (its
        folders); raise ``BotFault`` if it did."""

    def observe(self, engine: Any, seat: int, action: Any) -> None:
        """Tell the bot about an action that was just applied (any seat's); raise
        ``BotFault`` if it misbehaves (the fault policy then applies to this seat)."""


FaultPolicy = Callable[[Any, int, BotFault], "Seat | None"]
"""Decides what a fault does: return a replacement seat to go on, ``None`` to end the game."""

Watcher = Callable[[Any], None]
"""Shown the engine whenever the game changes: before the first decision, after every
applied action, and once the record is closed (a web table's spectators)."""


def play_game(
    engine: Engine,
    seats: MutableSequence[Seat],
    record: GameRecord,
    on_fault: FaultPolicy | None = None,
    watch: Watcher | None = None,
) -> GameRecord:
    """Play ``engine`` to its end with ``seats`` and fill ``record``; returns the record.

    ``watch`` (if given) is shown the engine before the first decision, after every
    applied action and at the end."""
    if watch is None:
        return _play(engine, seats, record, on_fault, None)
    watch(engine)
    try:
        return _play(engine, seats, record, on_fault, watch)
    finally:
        watch(engine)


def _play(engine: Engine, seats: MutableSequence[Seat], record: GameRecord,
          on_fault: FaultPolicy | None, watch: Watcher | None) -> GameRecord:
    """The loop of :func:`play_game` (kept in this thread's journal, if it has one)."""
    journal = Journal.active()
    replay = journal.next_game() if journal is not None else None
    while (seat := engine.to_play()) is not None:
        raise_if_asked()  # (an interrupt whose raise a finalizer swallowed)
        if journal is not None and journal.resuming and replay is not None:
            if replay.moves:
                _replay(engine, seat, replay, record)
                continue
            if not _caught_up(journal, engine, seats, record, on_fault, watch):
                return record
            continue
        driver = seats[seat]
        try:
            decision = driver.request(engine)
            driver.end_turn()
            illegal = engine.illegal_reason(seat, decision.action)
            if illegal is not None:
                record.add_move(seat, engine.notation(decision.action), decision.seconds,
                                illegal=True)
                raise BotFault(Outcome.ILLEGAL_MOVE, illegal)
        except BotFault as fault:
            if not _survive(engine, seats, seat, fault, record, on_fault):
                return record
            continue
        engine.apply(seat, decision.action)
        if journal is not None:
            journal.moved(seat, decision.action, decision.seconds, decision.cpu)
        _add_move(record, seat, engine.notation(decision.action), decision.seconds,
                  decision.cpu)
        if watch is not None and engine.to_play() is not None:
            watch(engine)
        for index, other in enumerate(seats):
            try:
                other.observe(engine, seat, decision.action)
            except BotFault as fault:
                if not _survive(engine, seats, index, fault, record, on_fault):
                    return record
    record.finish(engine.scores(), Outcome.NORMAL, engine.end_reason())
    return record


def _replay(engine: Engine, seat: int, replay: GameReplay, record: GameRecord) -> None:
    """Apply again the next action of the journal (the game's before it stopped), as it
    was recorded then; ``JournalMismatch`` if the engine does not take it."""
    move, action = replay.next_for(
        seat, lambda action: action if engine.illegal_reason(seat, action) is None else None,
        len(record.moves) + 1)
    engine.apply(seat, action)
    _add_move(record, seat, engine.notation(action), move.seconds, move.cpu)


def _add_move(record: GameRecord, seat: int, move: str, seconds: float,
              cpu: float | None) -> None:
    """A move in the record, with the CPU its bot used for it if it was measured."""
    record.add_move(seat, move, seconds, **cpu_info(cpu))


def cpu_info(cpu: float | None) -> dict[str, float]:
    """A move's record fields for the CPU seconds its bot used (``cpu_ms``; none if the
    CPU was not measured)."""
    return {} if cpu is None else {"cpu_ms": round(cpu * 1000, 1)}


def _caught_up(journal: Journal, engine: Engine, seats: MutableSequence[Seat],
               record: GameRecord, on_fault: FaultPolicy | None,
               watch: Watcher | None) -> bool:
    """The journal's actions are all applied again: its ``caught_up`` starts the seats'
    programs at the position reached (a seat that cannot is a fault, as ever); the game
    is shown from there. ``False`` once the record is closed."""
    journal.resuming = False
    faults = journal.caught_up(engine, seats) if journal.caught_up is not None else []
    for seat, fault in faults:
        if not _survive(engine, seats, seat, fault, record, on_fault):
            return False
    if watch is not None:
        watch(engine)
    return True


def _survive(engine: Engine, seats: MutableSequence[Seat], seat: int, fault: BotFault,
             record: GameRecord, on_fault: FaultPolicy | None) -> bool:
    """Apply the fault policy to ``seat``'s fault: ``True`` if a replacement takes the seat
    and the game goes on, ``False`` once the record is closed as lost by ``seat``."""
    driver = seats[seat]
    replacement = on_fault(engine, seat, fault) if on_fault is not None else None
    if replacement is not None:
        record.add_note(seat, "takeover", f"{driver.name}: {fault.reason}")
        record.add_fault(seat, fault.outcome, f"{driver.name}: {fault.reason}")
        seats[seat] = replacement
        return True
    log.info("%s forfeits: %s (%s)", driver.name, fault.reason, fault.outcome.value)
    record.finish(engine.forfeit_scores(seat), fault.outcome,
                  f"{driver.name}: {fault.reason}", seat)
    return False


def forfeit(record: GameRecord, seat: int, seats: int, fault: BotFault, name: str) -> None:
    """Close ``record`` as lost by ``seat`` outside the loop (e.g. a fault while starting)."""
    scores = [1.0] * seats
    scores[seat] = 0.0
    record.finish(scores, fault.outcome, f"{name}: {fault.reason}", seat)
