"""A game of four-player Riichi mahjong: :class:`RiichiGame` chains hands
(:class:`~referee.games.riichi.kyoku.RiichiKyoku`) from the first dealer until an end
condition, each hand dealt from a seeded wall or given (a log replay); :class:`Position`
is where the game stands between hands.

The game ends as :class:`~referee.games.riichi.settings.RiichiRules` says (its length,
``busting``, ``agari_yame``, ``west_extension``); its final scores are
:func:`referee.games.riichi.settle.final_standings`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from referee.games.riichi.actions import Action
from referee.games.riichi.kyoku import RiichiKyoku
from referee.games.riichi.scoring import ScoringRules
from referee.games.riichi.scoring import evaluate as score_win
from referee.games.riichi.settings import SEATS, RiichiRules
from referee.games.riichi.settle import FinalScore, final_standings, ranking
from referee.games.riichi.state import Evaluator, KyokuResult
from referee.games.riichi.walls import Deal, SeededWall, TileSource, hand_seed

__all__ = ["Position", "RiichiGame"]


@dataclass(frozen=True)
class Position:
    """Where a game stands between hands: the next hand's round wind (0 East ..), number
    in the wind (1..4), honba, riichi sticks on the table, dealer and the scores."""

    bakaze: int = 0
    kyoku: int = 1
    honba: int = 0
    kyotaku: int = 0
    oya: int = 0
    scores: tuple[int, ...] = (25000, 25000, 25000, 25000)


class RiichiGame:
    """A game: hands from the first dealer (seat 0, East 1) until an end condition.

    With a ``seed`` every hand is dealt from a :class:`SeededWall` (wall seed
    :func:`hand_seed` of the game seed and the hand's number) and the next hand starts by
    itself. With ``seed=None`` the caller starts each hand with :meth:`start_kyoku` and an
    explicit :class:`Deal` and :class:`TileSource` (a log replay); :meth:`position`
    tells what the rules expect next. ``events`` holds every event of the game, ending
    with ``end_game``.
    """

    def __init__(self, rules: RiichiRules | None = None, seed: int | None = 0,
                 evaluate: Evaluator = score_win, scoring: ScoringRules | None = None) -> None:
        self.rules = rules or RiichiRules()
        self.seed = seed
        self.evaluate = evaluate
        self.scoring = scoring or self.rules.scoring_rules()
        self.events: list[dict[str, Any]] = []
        self.results: list[KyokuResult] = []
        self.kyoku: RiichiKyoku | None = None
        self.over = False
        self.first_oya = 0
        self._pos = Position(scores=(self.rules.start_points,) * SEATS)
        self._final: list[FinalScore] | None = None
        if seed is not None:
            self.start_kyoku()

    # ---------------------------------------------------------------- hands

    def position(self) -> Position:
        """Where the game stands: the next hand's position once a hand is settled (the
        final scores, sticks to first place, once the game is over)."""
        return self._pos

    def start_kyoku(self, deal: Deal | None = None,
                    source: TileSource | None = None) -> RiichiKyoku:
        """Start the next hand: from the seeded wall, or from ``deal`` and ``source``
        (whose position, honba, sticks and scores then become the game's)."""
        if self.over:
            raise ValueError("the game is over")
        if self.kyoku is not None and self.kyoku.result is None:
            raise ValueError("a hand is being played")
        if deal is None:
            if self.seed is None:
                raise ValueError("a game without a seed needs an explicit deal and source")
            p = self._pos
            wall = SeededWall(hand_seed(self.seed, len(self.results)))
            tehais = tuple(wall.haipai((seat - p.oya) % SEATS) for seat in range(SEATS))
            deal = Deal(tehais, wall.dora_indicator(0), p.oya, p.bakaze, p.kyoku, p.honba,
                        p.kyotaku, tuple(p.scores))
            source = wall
        elif source is None:
            raise ValueError("an explicit deal needs its tile source")
        else:
            self._pos = Position(deal.bakaze, deal.kyoku, deal.honba, deal.kyotaku,
                                 deal.oya, tuple(deal.scores))
            if not self.results:  # the first dealer: each kyoku number moves the deal on
                self.first_oya = (deal.oya - (deal.kyoku - 1)) % SEATS
        self.kyoku = RiichiKyoku(deal, source, self.rules, self.evaluate, self.scoring,
                                 self.events)
        return self.kyoku

    # ---------------------------------------------------------------- play

    def pending(self) -> set[int]:
        """The seats that must answer now."""
        return set() if self.kyoku is None or self.over else self.kyoku.pending()

    def legal_actions(self, seat: int) -> list[Action]:
        """See :meth:`RiichiKyoku.legal_actions`."""
        return [] if self.kyoku is None or self.over else self.kyoku.legal_actions(seat)

    def find_legal(self, seat: int, action: Action) -> Action | None:
        """See :meth:`RiichiKyoku.find_legal` (None once the game is over)."""
        if self.over or self.kyoku is None:
            return None
        return self.kyoku.find_legal(seat, action)

    def illegal_reason(self, seat: int, action: Action) -> str | None:
        """See :meth:`RiichiKyoku.illegal_reason`."""
        if self.over:
            return "the game is over"
        if self.kyoku is None:
            return "no hand is being played"
        return self.kyoku.illegal_reason(seat, action)

    def apply(self, seat: int, action: Action) -> None:
        """Play a legal answer; when the hand ends, settle it (and, seeded, deal the next)."""
        if self.over or self.kyoku is None:
            raise ValueError("the game is over" if self.over else "no hand is being played")
        self.kyoku.apply(seat, action)
        if self.kyoku.result is not None:
            self._settle(self.kyoku)
            if not self.over and self.seed is not None:
                self.start_kyoku()

    @property
    def scores(self) -> list[int]:
        """The scores now (riichi deposits of the hand in play already taken)."""
        if self.kyoku is not None and self.kyoku.result is None:
            return list(self.kyoku.scores)
        return list(self._pos.scores)

    # ---------------------------------------------------------------- settling

    def _settle(self, kyoku: RiichiKyoku) -> None:
        result = kyoku.result
        assert result is not None
        self.results.append(result)
        p = self._pos
        scores = list(result.scores)
        dealer_stays = result.renchan
        honba = p.honba + 1 if dealer_stays or result.draw else 0
        rules = self.rules
        last = (0 if rules.game_length == "east" else 1) * 4 + 3
        here = p.bakaze * 4 + p.kyoku - 1
        target = rules.target
        top_ok = max(scores) >= target
        end = rules.busting and min(scores) < 0
        if not end and here > last and (top_ok or not rules.west_extension):
            end = True  # sudden death in the extra wind
        if not end and here >= last and dealer_stays and rules.agari_yame \
                and not result.abortive and ranking(scores, self.first_oya)[0] == p.oya \
                and (top_ok or not rules.west_extension):
            end = True
        if not end and not dealer_stays and here >= last \
                and (top_ok or not rules.west_extension or here + 1 > last + 4):
            end = True
        if dealer_stays:
            nxt = here
            oya = p.oya
        else:
            nxt = here + 1
            oya = (p.oya + 1) % SEATS
        self._pos = Position(nxt // 4 % 4, nxt % 4 + 1, honba, result.kyotaku, oya,
                             tuple(scores))
        if end:
            self._end_game()

    def _end_game(self) -> None:
        self.over = True
        p = self._pos
        finals = final_standings(p.scores, p.kyotaku, self.first_oya, self.rules)
        points = [f.points for f in finals]
        self._pos = replace(p, kyotaku=0, scores=tuple(points))
        self._final = finals
        self.events.append({"type": "end_game", "scores": points})

    def final_scores(self) -> list[FinalScore]:
        """Each seat's rank, points and final score (``ValueError`` before the end)."""
        if self._final is None:
            raise ValueError("the game is not over")
        return list(self._final)

    def clone(self) -> RiichiGame:
        """An independent copy of the game (for search); events shared up to now."""
        new = RiichiGame(self.rules, None, self.evaluate, self.scoring)
        new.seed = self.seed
        new.events = list(self.events)
        new.results = list(self.results)
        new.kyoku = None if self.kyoku is None else self.kyoku.clone(new.events)
        new.over = self.over
        new.first_oya = self.first_oya
        new._pos = self._pos
        new._final = None if self._final is None else list(self._final)
        return new

