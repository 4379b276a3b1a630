"""A person's seat at a web table: the game loop's ``Seat`` whose answers come from clicks.

The table's game runs in a thread of its own; the page's WebSocket puts what the person
does into the seat's inbox, and ``request`` waits for it under the seat's clock. A click
the driver cannot read or the engine finds illegal is refused with the engine's reason
and the person tries again: a person does not lose by a misclick, only by the clock,
by resigning, or by leaving (closing the page and not coming back in time).

With the table's pinch-hit switch, a person who runs out of time or leaves hands the
seat to the pinch-hitter instead of losing; and at any moment a person may hand the seat
to a program of theirs ("let my program play for me") and take it back. Either is noted
in the record. Nothing here knows a game.
"""

from __future__ import annotations

import logging
import queue
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from referee.core.clock import Clock
from referee.core.errors import BotFault
from referee.core.match import Decision, Seat
from referee.core.outcome import Outcome

log = logging.getLogger(__name__)

__all__ = ["Deputy", "Leave", "Move", "PersonSeat", "Resign", "SeatHost", "TakeBack"]


@dataclass(frozen=True)
class Move:
    """What the person's board sent as a move (the driver reads it)."""

    move: Mapping[str, Any]


@dataclass(frozen=True)
class Resign:
    """The person gives the game up."""


@dataclass(frozen=True)
class Leave:
    """The person's pages have been closed longer than the table waits."""


@dataclass(frozen=True)
class Deputy:
    """The person hands the seat to a program (``player``: its name on the server)."""

    player: str


@dataclass(frozen=True)
class TakeBack:
    """The person takes the seat back from their program."""


Message = Move | Resign | Leave | Deputy | TakeBack


class SeatHost(Protocol):
    """What a person's seat needs of its table."""

    def ask(self, seat: int, engine: Any, deadline: float) -> None:
        """Show the seat's person that it is their turn (their view, the deadline)."""

    def refuse(self, seat: int, reason: str) -> None:
        """Tell the seat's person why their click was not taken."""

    def action(self, engine: Any, seat: int, move: Mapping[str, Any]) -> Any:
        """The engine's action for the click (the game's driver); ``ValueError``."""

    def substitute(self, seat: int, player: str | None, why: str) -> Seat | None:
        """A program started to play the seat from here (``player``: one of the
        person's, ``None``: the pinch-hitter); ``None`` if there is none to be had."""

    def dismiss(self, seat: int) -> None:
        """End the program that played the seat for its person (they play again)."""

    def pinch_hit(self) -> bool:
        """Whether the table lets a pinch-hitter take a seat its person gives up."""


class PersonSeat:
    """The game loop's driver of a person's seat (see the module)."""

    def __init__(self, host: SeatHost, seat: int, clock: Clock, name: str) -> None:
        self.host = host
        self.seat = seat
        self.clock = clock
        self.name = name
        self.inbox: queue.Queue[Message] = queue.Queue()
        self.deputy: Seat | None = None
        """The program playing for the person, if one is."""
        self.gone = False
        """The person left (or ran out of time) and the pinch-hitter plays on for good."""
        self.waiting = False
        """Whether the seat waits for its person's move now."""

    def put(self, message: Message) -> None:
        """Hand the seat something its person did (from any thread)."""
        self.inbox.put(message)

    # -- the game loop's Seat -----------------------------------------------------------
    def request(self, engine: Any) -> Decision:
        """Wait for the person's legal move (or their program's, if one plays for them)."""
        self._take_messages_between_turns()
        if self.deputy is not None:
            return self._deputy_request(engine)
        deadline = self.clock.start()
        self.waiting = True  # before the person is asked: their answer may come at once
        self.host.ask(self.seat, engine, deadline)
        try:
            return self._wait(engine, deadline)
        finally:
            self.waiting = False
            self._refuse_late_moves()

    def _refuse_late_moves(self) -> None:
        """Moves that came after the one the turn took (a double click) are refused at
        once; anything else waits for the seat's next turn."""
        kept: list[Message] = []
        while True:
            try:
                message = self.inbox.get_nowait()
            except queue.Empty:
                break
            if isinstance(message, Move):
                self.host.refuse(self.seat, "it is not your turn")
            else:
                kept.append(message)
        for message in kept:
            self.inbox.put(message)

    def _wait(self, engine: Any, deadline: float) -> Decision:
        """The person's messages until one decides the turn."""
        while True:
            wait = deadline - time.monotonic()
            try:
                message = self.inbox.get(timeout=None if wait == float("inf")
                                         else max(wait, 0.0))
            except queue.Empty:
                return self._give_up(engine, self.clock.expire(), "ran out of time")
            if isinstance(message, Move):
                decision = self._decision(engine, message)
                if decision is not None:
                    return decision
            elif isinstance(message, Resign):
                self.clock.stop(counts_as_move=False)
                raise BotFault(Outcome.RESIGNED, "resigned")
            elif isinstance(message, Leave):
                self.clock.stop(counts_as_move=False)
                return self._give_up(engine, BotFault(Outcome.LEFT, "left the table"),
                                     "left the table")
            elif isinstance(message, Deputy) and self._hand_over(message.player):
                self.clock.stop(counts_as_move=False)
                return self._deputy_request(engine)
            # TakeBack while the person plays: nothing to take back

    def end_turn(self) -> None:
        """A person's turn needs no check; a deputy's is its program's."""
        if self.deputy is not None:
            self.deputy.end_turn()

    def observe(self, engine: Any, seat: int, action: Any) -> None:
        """A deputy program learns of every move as its seat would."""
        if self.deputy is not None:
            self.deputy.observe(engine, seat, action)

    # -- inside -------------------------------------------------------------------------
    def _decision(self, engine: Any, message: Move) -> Decision | None:
        """The person's click as a decision, or ``None`` after refusing it."""
        try:
            action = self.host.action(engine, self.seat, message.move)
        except ValueError as exc:
            self.host.refuse(self.seat, str(exc))
            return None
        reason = engine.illegal_reason(self.seat, action)
        if reason is not None:
            self.host.refuse(self.seat, reason)
            return None
        return Decision(action, self.clock.stop())

    def _give_up(self, engine: Any, fault: BotFault, why: str) -> Decision:
        """The person ran out of time or left: the pinch-hitter plays on, else ``fault``."""
        if self.host.pinch_hit() and not self.gone:
            deputy = self.host.substitute(self.seat, None, f"{self.name} {why}")
            if deputy is not None:
                self.deputy = deputy
                self.gone = True
                return self._deputy_request(engine)
        raise fault

    def _hand_over(self, player: str) -> bool:
        """Let ``player`` (a program of the person's) play the seat; ``False`` if it
        cannot (it was refused with the reason)."""
        try:
            deputy = self.host.substitute(self.seat, player, f"{self.name} lets {player} play")
        except BotFault as fault:
            self.host.refuse(self.seat, f"{player} cannot play: {fault.reason}")
            return False
        if deputy is None:
            self.host.refuse(self.seat, f"{player} is neither a built-in bot nor a program "
                                        "of yours")
            return False
        self.deputy = deputy
        return True

    def _take_messages_between_turns(self) -> None:
        """What the person did while it was not their turn: hand over, take back,
        resign, leave (a click out of turn was already refused by the table)."""
        while True:
            try:
                message = self.inbox.get_nowait()
            except queue.Empty:
                return
            if isinstance(message, Deputy) and self.deputy is None:
                self._hand_over(message.player)
            elif isinstance(message, TakeBack) and self.deputy is not None and not self.gone:
                self._stop_deputy()
            elif isinstance(message, Resign):
                raise BotFault(Outcome.RESIGNED, "resigned")
            elif isinstance(message, Leave) and self.deputy is None:
                self.inbox.put(message)  # judged when the person's turn comes
                return
            elif isinstance(message, Move):
                self.host.refuse(self.seat, "it is not your turn")

    def _deputy_request(self, engine: Any) -> Decision:
        """The deputy program's decision (its faults are the seat's)."""
        assert self.deputy is not None
        return self.deputy.request(engine)

    def _stop_deputy(self) -> None:
        """End the deputy program (the person plays again)."""
        self.deputy = None
        self.host.dismiss(self.seat)
