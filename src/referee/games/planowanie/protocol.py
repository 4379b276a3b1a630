"""The referee side of the Planowanie protocol (GTP style), strict about every answer.

``PlayerProgram`` speaks the wire: each command is one line; each answer is a line that
starts with ``=`` (success) or ``?`` (an error, then its description), followed by an
empty line. The empty line that ends an answer is checked when the next answer is read
(so a program that forgets it is caught at once, without waiting for a line that never
comes); further empty lines are ignored. Every answer is timed on the player's game clock.

``PlanowanieSeat`` translates the engine for one seat: ``set_cards`` when a deal begins,
``time_left`` then ``gen_declare`` or ``gen_move`` when the seat must decide, ``declare``
for every player once all have declared, ``play`` for every card (its own included).
A ``?`` to anything but ``time_left``, or an answer that is neither, breaks the protocol;
a declaration out of range or a card that does not exist is an illegal move.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence

from referee.core.clock import Clock
from referee.core.errors import BotFault
from referee.core.match import Decision
from referee.core.outcome import Outcome
from referee.core.process import BotProcess
from referee.core.text import clip, parse_int
from referee.games.planowanie.rules import (
    Action,
    Declare,
    Phase,
    PlanowanieGame,
    Rules,
    cards_of,
)


def shown(text: str) -> str:
    """``text`` quoted and clipped, for messages."""
    return repr(clip(text))


class PlayerProgram:
    """One player program and the commands the referee sends it, on the seat's clock."""

    def __init__(self, process: BotProcess, name: str, clock: Clock) -> None:
        self.process = process
        self.name = name
        self.clock = clock
        self._owes_blank = False
        self._last = ""

    # -- the wire -----------------------------------------------------------------------
    def _read_answer(self, command: str, deadline: float) -> tuple[bool, str]:
        """The next answer: (``True`` for ``=``, its text after the sign)."""
        process = self.process
        if self._owes_blank:
            line = process.read_line(deadline, keep_empty=True)
            if line:
                raise BotFault(Outcome.PROTOCOL_ERROR,
                               f"the answer to {self._last} did not end with an empty line "
                               f"(next line: {shown(line)})")
            self._owes_blank = False
        line = process.read_line(deadline)
        self._owes_blank = True
        self._last = command
        sign = line[:1]
        if sign == "=":
            return True, line[1:].strip()
        if sign == "?":
            return False, line[1:].strip()
        raise BotFault(Outcome.PROTOCOL_ERROR,
                       f"answered {shown(line)} to {command}: answers start with = or ?")

    def _expect_ok(self, command: str, deadline: float) -> str:
        ok, text = self._read_answer(command, deadline)
        if not ok:
            raise BotFault(Outcome.PROTOCOL_ERROR,
                           f"answered ? to {command}: {text or 'no reason given'}")
        return text

    def exchange(self, commands: Sequence[str], *, timed_move: bool = False,
                 setup: bool = False) -> list[str]:
        """Send ``commands`` at once and read their answers, on the clock.

        ``time_left`` may be answered ``?``; any other ``?`` is a protocol error. With
        ``setup`` the startup limit applies instead of the game's; ``timed_move`` counts the
        exchange as a move (the last command is a ``gen_``). Returns the answers' texts.
        """
        clock = self.clock
        deadline = clock.start_setup() if setup else clock.start()
        try:
            self.process.send("".join(c + "\n" for c in commands), deadline)
            answers = []
            for command in commands:
                if command.startswith("time_left"):
                    answers.append(self._read_answer(command, deadline)[1])
                else:
                    answers.append(self._expect_ok(command, deadline))
        except BotFault as fault:
            if fault.outcome is Outcome.TIMEOUT:
                raise clock.expire() from None
            raise
        clock.stop(counts_as_move=timed_move)
        return answers

    # -- commands -----------------------------------------------------------------------
    def setup(self, rules: Rules, seat: int) -> None:
        """``set_deck``, ``set_players``, ``set_game`` (within the startup limit)."""
        deck = rules.deck
        self.exchange([f"set_deck {deck.values} {deck.suits}",
                       f"set_players {rules.players} {seat}",
                       f"set_game {rules.set_game_args()}"], setup=True)

    def decide(self, command: str) -> tuple[str, float]:
        """``time_left`` then ``command`` (a ``gen_``); the answer and the seconds it took."""
        used = self.clock.used
        answer = self.exchange([f"time_left {self.clock.time_left_ms()}", command],
                               timed_move=True)[1]
        return answer, self.clock.used - used

    def tell(self, *commands: str) -> None:
        """Commands that only need ``=`` (set_cards, declare, play)."""
        self.exchange(commands)

    def finish(self, grace: float, polite: bool) -> None:
        """End the program: ``quit`` and up to ``grace`` seconds to exit if ``polite``,
        else kill it (as the tournament referee does)."""
        if polite:
            deadline = time.monotonic() + grace
            with contextlib.suppress(BotFault):
                if self.process.running:
                    self.process.send("quit\n", deadline)
                    self._read_answer("quit", deadline)
            self.process.stop(grace)
        else:
            self.process.kill()


def parse_declaration(text: str, cards: int) -> Declare:
    """A ``gen_declare`` answer; ``BotFault(ILLEGAL_MOVE)`` if it is not a number."""
    word = text.strip()
    tricks = parse_int(word)
    if tricks is None:
        raise BotFault(Outcome.ILLEGAL_MOVE,
                       f"declared {shown(word)}, not a number of tricks in 0..{cards}")
    return Declare(tricks)


def parse_card(text: str, rules: Rules) -> int:
    """A ``gen_move`` answer; ``BotFault(ILLEGAL_MOVE)`` if it names no card of the deck."""
    word = text.strip()
    card = rules.deck.card(word)
    if card is None:
        raise BotFault(Outcome.ILLEGAL_MOVE, f"played {shown(word)}, not a card of the deck")
    return card


class PlanowanieSeat:
    """Drives one player program through a game for the generic match loop."""

    def __init__(self, program: PlayerProgram, seat: int) -> None:
        self.program = program
        self.seat = seat
        self.name = program.name
        self.dealt = -1
        """The deal whose cards the program has (``set_cards``)."""

    def _deal_cards(self, engine: PlanowanieGame) -> None:
        commands = self.deal_commands(engine)
        if commands:
            self.program.tell(*commands)

    def deal_commands(self, engine: PlanowanieGame) -> list[str]:
        """``set_cards`` if the program does not have this deal's cards yet (then noted
        as sent)."""
        table = engine.table
        if self.dealt == table.deal:
            return []
        deck = engine.rules.deck
        cards = cards_of(engine.deals[table.deal][self.seat])
        self.dealt = table.deal
        return [f"set_cards {len(cards)} " + " ".join(deck.name(c) for c in cards)]

    def catch_up(self, engine: PlanowanieGame, moves: Sequence[tuple[int, Action]]) -> None:
        """Tell a program that takes the seat mid-game what it would have been told of
        ``moves`` (the game's actions so far, which brought a fresh ``engine`` on the
        same deals to the position reached), at once, within the startup limit."""
        commands: list[str] = []
        for seat, action in moves:
            if seat == self.seat:
                commands += self.deal_commands(engine)
            engine.apply(seat, action)
            commands += self.told(engine, seat, action)
        if engine.to_play() == self.seat:
            commands += self.deal_commands(engine)
        if commands:
            self.program.exchange(commands, setup=True)

    def request(self, engine: PlanowanieGame) -> Decision:
        """``set_cards`` if a deal begins, then ``time_left`` and the ``gen_`` command."""
        self._deal_cards(engine)
        table = engine.table
        process = self.program.process
        cpu = process.cpu_time()
        if table.phase is Phase.DECLARE:
            answer, seconds = self.program.decide("gen_declare")
            return Decision(parse_declaration(answer, table.cards), seconds,
                            process.cpu_time() - cpu)
        answer, seconds = self.program.decide("gen_move")
        return Decision(parse_card(answer, engine.rules), seconds, process.cpu_time() - cpu)

    def end_turn(self) -> None:
        """Its folders are checked against the sandbox's limit."""
        self.program.process.end_turn()

    def observe(self, engine: PlanowanieGame, seat: int, action: Action) -> None:
        """``declare`` for every player once all have declared; ``play`` for every card."""
        commands = self.told(engine, seat, action)
        if commands:
            self.program.tell(*commands)

    @staticmethod
    def told(engine: PlanowanieGame, seat: int, action: Action) -> list[str]:
        """What every program is told once ``seat``'s ``action`` is applied to ``engine``:
        ``declare`` for every player after the last declaration, ``play`` for a card."""
        if isinstance(action, Declare):
            table = engine.table
            if table.phase is not Phase.DECLARE:  # that was the last: reveal them all
                return [f"declare {i} {n}" for i, n in enumerate(table.declared)]
            return []
        return [f"play {seat} {engine.rules.deck.name(action)}"]
