"""The engine's shortcut for "this winning hand surely has a yaku" never changes a game.

``RiichiKyoku._has_yaku`` answers some hands (yakuhai triplets, tanyao, rinshan, haitei,
chankan) without scoring them. An engine given its own scorer (here a wrapper of the real
one) always scores instead. Both engines play the same seeded games with the same choices,
by a policy that makes many open hands, with and without a yaku, and wins whenever it can;
their legal actions must be the same at every step.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.riichi.rules import Action, RiichiGame, RiichiRules
from referee.games.riichi.scoring import HandValue, ScoringRules, WinInfo
from referee.games.riichi.scoring import evaluate as real_evaluate
from referee.games.riichi.shape import counts_of, shanten
from referee.games.riichi.tiles import parse_mjai


class CountingScorer:
    """The real scorer, counted: how many hands it was asked about and how many had no
    yaku."""

    def __init__(self) -> None:
        self.asked = 0
        self.no_yaku = 0

    def __call__(self, info: WinInfo, rules: ScoringRules) -> HandValue | None:
        self.asked += 1
        value = real_evaluate(info, rules)
        self.no_yaku += value is None
        return value


def choose(game: RiichiGame, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """Win if possible; call half the time; else discard toward the lowest shanten."""
    for action in legal:
        if action.type == "hora":
            return action
    calls = [a for a in legal if a.type in ("chi", "pon", "daiminkan", "kakan", "ankan")]
    if calls and rng.random() < 0.5:
        return rng.choice(calls)
    discards = [a for a in legal if a.type == "dahai"]
    if not discards:
        return next(a for a in legal if a.type == "none")
    kyoku = game.kyoku
    assert kyoku is not None
    counts = counts_of(kyoku.hands[seat])
    melds = len(kyoku.melds[seat])

    def after(action: Action) -> int:
        assert action.pai is not None
        kind = parse_mjai(action.pai)[0]
        counts[kind] -= 1
        value = shanten(counts, melds)
        counts[kind] += 1
        return value

    best = min(after(a) for a in discards)
    return rng.choice([a for a in discards if after(a) == best])


@settings(max_examples=12, deadline=10_000)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_sure_yaku_shortcut_changes_no_legal_action(seed: int) -> None:
    scorer = CountingScorer()
    rules = RiichiRules(game_length="east")
    fast = RiichiGame(rules, seed=seed)
    slow = RiichiGame(rules, seed=seed, evaluate=scorer)
    rng = random.Random(seed)
    wins = 0
    for _ in range(5000):
        assert fast.pending() == slow.pending()
        if fast.over:
            break
        for seat in sorted(fast.pending()):
            legal = fast.legal_actions(seat)
            assert legal == slow.legal_actions(seat), f"seat {seat}: {legal}"
            action = choose(fast, seat, legal, rng)
            wins += action.type == "hora"
            fast.apply(seat, action)
            slow.apply(seat, action)
    assert fast.over and slow.over
    assert fast.events == slow.events
    assert scorer.asked >= wins  # every win is scored at least once


def test_the_comparison_sees_both_kinds_of_open_hands() -> None:
    """Over a few fixed seeds the slow engine's scorer meets hands with and without a
    yaku, and the fast engine wins some hands through the shortcut: the comparison above
    is not vacuous."""
    asked = no_yaku = 0
    for seed in range(6):
        scorer = CountingScorer()
        game = RiichiGame(RiichiRules(game_length="east"), seed=seed, evaluate=scorer)
        rng = random.Random(seed)
        while not game.over:
            for seat in sorted(game.pending()):
                game.apply(seat, choose(game, seat, game.legal_actions(seat), rng))
        asked += scorer.asked
        no_yaku += scorer.no_yaku
    assert no_yaku > 0
    assert asked - no_yaku > 0
