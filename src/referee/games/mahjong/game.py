"""A game of ICGA Mahjong: :class:`MahjongGame`, ``rules.hands`` hands
(:class:`~referee.games.mahjong.engine.MahjongHand`) with the dealer passing each hand and
the scores summed (the referee's match); :func:`hand_seed`, each hand's wall seed.
"""

from __future__ import annotations

from referee.games.mahjong.actions import Action, notation
from referee.games.mahjong.engine import SEATS, HandResult, MahjongHand, Rules
from referee.games.mahjong.tiles import WINDS, make_wall

__all__ = ["MahjongGame", "hand_seed"]


def hand_seed(seed: int, hand: int) -> int:
    """The wall seed of hand number ``hand`` (0-based) of a game seeded ``seed``: the same
    for every seat rotation, so duplicate games play the same walls."""
    return (seed * 0x9E3779B1 + hand * 0x85EBCA77 + 0x2545F491) & ((1 << 64) - 1)


class MahjongGame:
    """A game of ``rules.hands`` hands from ``seed``: the dealer passes every hand (seat 0
    deals first), four hands per round wind; the totals are the sums of the payments."""

    def __init__(self, seed: int, rules: Rules | None = None, first_dealer: int = 0) -> None:
        self.seed = seed
        self.rules = rules or Rules()
        self.first_dealer = first_dealer
        self.number = 0
        self.totals = [0] * SEATS
        self.results: list[HandResult] = []
        self.finished: list[MahjongHand] = []
        """The hands played to their end, by number (their events, for clients that must
        still be told of a hand that ended before anyone was asked anything)."""
        self.hand = self._new_hand()

    def _new_hand(self) -> MahjongHand:
        return MahjongHand(make_wall(hand_seed(self.seed, self.number)),
                           dealer=(self.first_dealer + self.number) % SEATS,
                           round_wind=self.number // 4 % 4, rules=self.rules)

    @property
    def round_name(self) -> str:
        """The hand's round wind (``EAST`` ...)."""
        return WINDS[self.number // 4 % 4]

    @property
    def game_name(self) -> str:
        """The hand within its round (``EAST`` for the first ...), the spec's <game>."""
        return WINDS[self.number % 4]

    def to_play(self) -> int | None:
        """The seat asked now, None once the game is over; starts the next hand when one
        ends."""
        while self.hand.question is None:
            if self.hand.result is not None and len(self.results) == self.number:
                self.results.append(self.hand.result)
                self.finished.append(self.hand)
                for s, pay in enumerate(self.hand.result.payments):
                    self.totals[s] += pay
            if self.number + 1 >= self.rules.hands:
                return None
            self.number += 1
            self.hand = self._new_hand()
        return self.hand.question.seat

    def illegal_reason(self, seat: int, action: object) -> str | None:
        """See ``MahjongHand.illegal_reason``."""
        return self.hand.illegal_reason(seat, action)

    def apply(self, seat: int, action: Action) -> None:
        """See ``MahjongHand.apply``."""
        self.hand.apply(seat, action)

    def scores(self) -> list[float]:
        """The game's point totals per seat."""
        return [float(t) for t in self.totals]

    def notation(self, action: object) -> str:
        """The action as the client would send it."""
        return notation(action)

    def end_reason(self) -> str:
        """How the game went: hands won and drawn."""
        won = sum(1 for r in self.results if r.winner is not None)
        return f"{len(self.results)} hands: {won} won, {len(self.results) - won} drawn"

    def forfeit_scores(self, seat: int) -> list[float]:
        """Never used by the referee (a dummy AI takes a faulty seat over); the totals."""
        return self.scores()

