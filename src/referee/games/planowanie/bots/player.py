"""The player side of the Planowanie protocol: a command loop around a ``Strategy``.

``run_player`` reads commands from stdin and answers on stdout (``=`` or ``?``, then an
empty line), keeping a ``SeatView`` of the game up to date, and asks the strategy for
declarations and cards. ``play_local`` plays a whole game in-process with strategies
(the same events, without pipes), for tests, benchmarks and quick experiments.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Protocol, TextIO

from referee.core.botseed import SEED_ENV, seed_from
from referee.core.errors import ConfigError
from referee.games.planowanie.rules import (
    Deck,
    Declare,
    Phase,
    PlanowanieGame,
    Rules,
    SeatView,
    deal_views,
    parse_deals,
    show_action,
)


class Strategy(Protocol):
    """How a player decides; it sees only its ``SeatView``."""

    def declare(self, view: SeatView) -> int:
        """How many tricks to declare (0..cards in hand)."""

    def move(self, view: SeatView) -> int:
        """Which card to play (one of ``view.legal_cards()``)."""


class CommandError(Exception):
    """A command the player cannot carry out (answered with ``?``)."""


class ProtocolLoop:
    """The state of a player program between commands, and the commands that keep it;
    a subclass answers ``gen_declare`` and ``gen_move`` (``cmd_gen_declare``,
    ``cmd_gen_move``)."""

    def __init__(self, name: str, version: str) -> None:
        self.name = name
        self.version = version
        self.deck = Deck()
        self.players = 4
        self.seat = 0
        self.view: SeatView | None = None
        self.time_left_ms: int | None = None

    def handle(self, words: list[str]) -> str:
        """The answer text (after ``= ``) to one command; ``CommandError`` for ``?``."""
        command, args = words[0], words[1:]
        handler = getattr(self, "cmd_" + command, None)
        if handler is None:
            raise CommandError(f"unknown command {command}")
        try:
            return str(handler(args))
        except (ValueError, IndexError, ConfigError) as exc:
            raise CommandError(f"{command}: {exc}") from None

    def _view(self) -> SeatView:
        if self.view is None:
            raise CommandError("no game: set_game first")
        return self.view

    def cmd_set_deck(self, args: list[str]) -> str:
        """``set_deck V C``."""
        self.deck = Deck(args[0], args[1])
        return ""

    def cmd_set_players(self, args: list[str]) -> str:
        """``set_players n i``."""
        self.players, self.seat = int(args[0]), int(args[1])
        return ""

    def cmd_set_game(self, args: list[str]) -> str:
        """``set_game d c1 s1 ...``: a new game."""
        rules = Rules(self.deck, self.players, parse_deals(args))
        if not 0 <= self.seat < rules.players:
            raise CommandError(f"seat {self.seat} is not one of 0..{rules.players - 1}")
        self.view = SeatView(rules, self.seat)
        return ""

    def cmd_set_cards(self, args: list[str]) -> str:
        """``set_cards c K1 ... Kc``."""
        view = self._view()
        count = int(args[0])
        names = args[1:]
        if len(names) != count:
            raise CommandError(f"{count} cards announced, {len(names)} given")
        cards = [self._card(name) for name in names]
        view.new_deal(cards)
        return ""

    def _card(self, name: str) -> int:
        card = self.deck.card(name)
        if card is None:
            raise CommandError(f"no card {name} in the deck")
        return card

    def cmd_time_left(self, args: list[str]) -> str:
        """``time_left t``."""
        self.time_left_ms = int(args[0])
        return ""

    def cmd_declare(self, args: list[str]) -> str:
        """``declare i l``."""
        self._view().declare(int(args[0]), int(args[1]))
        return ""

    def cmd_play(self, args: list[str]) -> str:
        """``play i K``."""
        self._view().play(int(args[0]), self._card(args[1]))
        return ""

    def cmd_name(self, args: list[str]) -> str:
        """``name`` (GTP)."""
        return self.name

    def cmd_version(self, args: list[str]) -> str:
        """``version`` (GTP)."""
        return self.version

    def cmd_quit(self, args: list[str]) -> str:
        """``quit``: answered, then the loop ends."""
        return ""


class PlayerLoop(ProtocolLoop):
    """A player program whose decisions are ``strategy``'s."""

    def __init__(self, strategy: Strategy, name: str, version: str) -> None:
        super().__init__(name, version)
        self.strategy = strategy

    def cmd_gen_declare(self, args: list[str]) -> str:
        """``gen_declare``: the strategy's declaration."""
        return str(self.strategy.declare(self._view()))

    def cmd_gen_move(self, args: list[str]) -> str:
        """``gen_move``: the strategy's card."""
        return self.deck.name(self.strategy.move(self._view()))


def run_player(strategy: Strategy, name: str, version: str = "1.0",
               stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Answer protocol commands until ``quit`` or the end of input; returns the exit code."""
    return serve(PlayerLoop(strategy, name, version), stdin, stdout)


def serve(loop: ProtocolLoop, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Answer protocol commands with ``loop`` until ``quit`` or the end of input; returns
    the exit code."""
    source = stdin or sys.stdin
    sink = stdout or sys.stdout
    for line in source:
        words = line.split()
        if not words:
            continue
        try:
            text = loop.handle(words)
            sink.write(f"= {text}\n\n" if text else "=\n\n")
        except CommandError as exc:
            sink.write(f"? {exc}\n\n")
        sink.flush()
        if words[0] == "quit":
            break
    return 0


def player_main(argv: Sequence[str] | None, name: str, description: str,
                make: Callable[[int | None], Strategy]) -> int:
    """The command line of a built-in player: ``--seed N`` (else ``REFEREE_BRAIN_SEED``,
    else random), then the protocol loop with the strategy ``make(seed)`` builds."""
    parser = argparse.ArgumentParser(prog=name, description=description)
    parser.add_argument("--seed", type=int, default=None, help=f"random seed (or ${SEED_ENV})")
    args = parser.parse_args(argv)
    return run_player(make(seed_from(args.seed)), name)


def play_local(rules: Rules, seed: int, strategies: Sequence[Strategy]) -> PlanowanieGame:
    """Play a whole game in-process: each strategy sees what its program would be told."""
    game = PlanowanieGame(rules, seed)
    views = [SeatView(rules, seat) for seat in range(rules.players)]
    deal = -1
    while (seat := game.to_play()) is not None:
        table = game.table
        if table.deal != deal:
            deal = table.deal
            deal_views(views, game)
        if table.phase is Phase.DECLARE:
            action: Declare | int = Declare(strategies[seat].declare(views[seat]))
        else:
            action = strategies[seat].move(views[seat])
        reason = game.illegal_reason(seat, action)
        if reason is not None:
            raise ValueError(f"seat {seat} chose {game.notation(action)}: {reason}")
        game.apply(seat, action)
        show_action(views, game, seat, action)
    return game
