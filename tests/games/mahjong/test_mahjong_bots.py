"""The reference AIs: the greedy AI clearly beats random ones over 200 hands (duplicate
seats), and the protocol-side state an AI keeps matches the engine's at every question."""

from __future__ import annotations

import random

from referee.games.mahjong.bots.player import AIState
from referee.games.mahjong.bots.policies import POLICIES
from referee.games.mahjong.protocol import event_lines
from referee.games.mahjong.rules import MahjongGame, Rules


def play(names: list[str], hands: int, seed: int) -> MahjongGame:
    """A game of in-process AIs."""
    game = MahjongGame(seed, Rules(hands=hands))
    rngs = [random.Random(seed * 10 + s) for s in range(4)]
    policies = [POLICIES[n] for n in names]
    while (seat := game.to_play()) is not None:
        action = policies[seat](game.hand.view(seat), rngs[seat])
        assert game.illegal_reason(seat, action) is None
        game.apply(seat, action)
    return game


def test_greedy_clearly_beats_random_over_200_hands() -> None:
    greedy_points = 0
    random_points = [0, 0, 0]
    greedy_wins = hands = 0
    for rotation in range(4):  # the same walls, the greedy AI in each seat once
        names = ["random"] * 4
        names[rotation] = "greedy"
        game = play(names, 50, seed=77)
        greedy_points += game.totals[rotation]
        others = [s for s in range(4) if s != rotation]
        for k, s in enumerate(others):
            random_points[k] += game.totals[s]
        greedy_wins += sum(1 for r in game.results if r.winner == rotation)
        hands += len(game.results)
    assert hands == 200
    assert greedy_wins >= 80, greedy_wins  # 40 % of the hands at least (it wins ~55 %)
    assert greedy_points > 10_000 and all(p < 0 for p in random_points), (
        greedy_points, random_points)


def test_four_greedy_ais_finish_hands_with_wins() -> None:
    game = play(["greedy"] * 4, 16, seed=3)
    assert len(game.results) == 16
    assert sum(1 for r in game.results if r.winner is not None) >= 8
    assert sum(game.totals) == 0


def test_the_ai_state_follows_the_engine_from_the_wire() -> None:
    for seed in range(5):
        game = MahjongGame(seed, Rules(hands=1))
        states = [AIState() for _ in range(4)]
        told = [0] * 4
        rng = random.Random(seed)
        for s, state in enumerate(states):
            state.hear(f"/start MJ {s + 1} ai")
        while (seat := game.to_play()) is not None:
            hand = game.hand
            for s, state in enumerate(states):
                for event in hand.events[told[s]:]:
                    for line in event_lines(event, s):
                        state.hear(line)
                told[s] = len(hand.events)
            question = hand.question
            assert question is not None
            view = states[seat].view(question.ask)
            assert sorted(view.hand) == sorted(hand.hands[seat])
            assert [m.tiles for m in view.melds] == [m.tiles for m in hand.melds[seat]]
            assert view.options() == hand.legal_actions()
            game.apply(seat, POLICIES["greedy" if seat % 2 else "random"](view, rng))
