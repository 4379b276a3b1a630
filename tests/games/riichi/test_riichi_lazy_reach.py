"""An answer is checked (``find_legal``) and applied without the engine looking for a riichi
declaration unless the answer is one: property tests against the whole legal list."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.riichi.rules import Action, RiichiGame, RiichiRules


@settings(max_examples=15, deadline=10_000)
@given(st.integers(0, 2**31 - 1), st.randoms(use_true_random=False))
def test_answers_are_checked_alike_with_or_without_looking_for_riichi(
        seed: int, rng: random.Random) -> None:
    """A referee checks an answer (``find_legal``) and applies it without the engine
    looking for a riichi declaration unless the answer is one: every answer is found or
    refused as against the whole legal list, and the game goes on alike."""
    lazy, full = RiichiGame(RiichiRules(game_length="east"), seed=seed), \
        RiichiGame(RiichiRules(game_length="east"), seed=seed)
    for _ in range(3000):
        if full.over:
            break
        assert lazy.pending() == full.pending()
        for seat in sorted(full.pending()):
            legal = full.legal_actions(seat)
            choice = rng.choice(legal)
            others = [a for a in legal if a.type != "reach"]
            probes = [choice, rng.choice(others) if others else choice,
                      Action("reach", seat)]
            for probe in probes:  # asked before the lazy side ever made its whole list
                found = lazy.find_legal(seat, probe)
                assert (found is not None) == (probe in legal), probe
                assert found is None or found == probe
            lazy.apply(seat, lazy.find_legal(seat, choice) or choice)
            full.apply(seat, choice)
    assert lazy.events == full.events
