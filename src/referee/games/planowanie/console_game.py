"""The game the Planowanie debug console referees (:mod:`referee.games.planowanie.
console`): the engine, the opponents' strategies and views, what the program was told, and
the seats the person plays by hand.
"""

from __future__ import annotations

import importlib

from referee.games.planowanie.bots.player import Strategy
from referee.games.planowanie.bots.random_player import RandomStrategy
from referee.games.planowanie.rules import Phase, PlanowanieGame, Rules, SeatView

__all__ = ["DECIDED", "OPPONENTS", "OVER", "YOURS", "ConsoleGame", "make_opponent"]

OPPONENTS = ("random", "heuristic")
"""The built-in strategies that can play the other seats."""

DECIDED, YOURS, OVER = "decided", "yours", "over"
"""How a ``:step`` ends: the program decided, a seat of the person's is to move, the game
is over."""

HEURISTIC_MODULE = "referee.games.planowanie.bots.heuristic_player"


def make_opponent(kind: str, seed: int) -> tuple[Strategy, str | None]:
    """A strategy for an opponent seat, and a note if the one asked for is not available.

    The heuristic player is imported only when asked for; if it cannot be, the seat
    plays random instead.
    """
    if kind == "heuristic":
        try:
            module = importlib.import_module(HEURISTIC_MODULE)
            strategy: Strategy = module.HeuristicStrategy(seed)
        except (ImportError, AttributeError) as exc:
            return RandomStrategy(seed), (f"the heuristic player is not available ({exc}); "
                                          "the opponents play random")
        return strategy, None
    return RandomStrategy(seed), None


class ConsoleGame:
    """A game the console referees: the engine, the opponents, what the program was told."""

    def __init__(self, rules: Rules, seed: int, seat: int,
                 strategies: dict[int, Strategy], label: str) -> None:
        self.engine = PlanowanieGame(rules, seed)
        self.seed = seed
        self.seat = seat
        self.strategies = strategies
        self.label = label
        self.views = {s: SeatView(rules, s) for s in strategies}
        self.dealt = -1
        """The deal whose ``set_cards`` the program got."""
        self.declared_now: dict[int, int] = {}
        """This deal's declarations so far (hidden from the players until all are in)."""
        self.used_ms = 0.0
        self.yours: set[int] = set()
        """The person's seats: every seat whose move was typed by hand (or taken, ``:take``),
        but those given back (``:release``); ``:step`` and ``:auto`` wait at their turns."""

    @property
    def over(self) -> bool:
        """Whether the game is over."""
        return self.engine.to_play() is None

    def who(self, seat: int) -> str:
        """How a seat is named in the console's notes."""
        return f"seat {seat} (program)" if seat == self.seat else f"seat {seat} ({self.label})"

    def player(self, seat: int) -> str:
        """Who plays ``seat`` when the person does not: ``the program`` or its strategy."""
        return "the program" if seat == self.seat else f"its strategy ({self.label})"

    def your_turn(self, seat: int) -> str:
        """The note that ``seat``, the person's, is to move, with its legal moves."""
        engine = self.engine
        declaring = engine.table.phase is Phase.DECLARE
        legal = " ".join(engine.notation(a) if isinstance(a, int) else str(a.tricks)
                         for a in engine.legal_actions())
        verb = ":declare N" if declaring else ":play CARD"
        return (f"# {self.who(seat)} to {'declare' if declaring else 'play'}: your turn "
                f"(the seat is yours); {verb}, one of {legal} (:release {seat}: "
                f"{self.player(seat)} plays it)")

    def points_text(self) -> str:
        """``seat 0: 12, seat 1: 7, ...``."""
        return ", ".join(f"seat {s}: {p}" for s, p in enumerate(self.engine.table.points))
