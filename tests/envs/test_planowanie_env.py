"""Planowanie's PettingZoo environment: PettingZoo's own checks, and the engine that
referees matches (the mask is its legal actions, the rewards its points, a seat sees only
its own cards and the declarations once revealed)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

from envcheck import assert_mask_is_the_engines
from referee.core.errors import ConfigError
from referee.envs import GAMES, make
from referee.games.planowanie.env import EnvPlanowanieGame, PlanowanieEnvGame
from referee.games.planowanie.rules import (
    Deck,
    Phase,
    PlanowanieGame,
    Rules,
    cards_of,
    parse_deals,
)

OPTION_SETS = [
    {"players": 2, "deals": "3 2 0 3 1 1 0"},
    {"players": 3, "values": "9TJQKA", "suits": "SHD", "deals": "4 1 0 3 1 6 2 2 0"},
    {"players": 4, "values": "789TJQKA", "suits": "HSDC"},  # 8 deals of 1..8 cards
    {"players": 4, "deals": "2 13 0 12 3"},  # the full deck in one deal
]


@pytest.mark.parametrize("options", OPTION_SETS)
def test_pettingzoo_api_and_seed_tests_pass(options: dict[str, Any]) -> None:
    api_test(make("planowanie", **options), num_cycles=200)
    seed_test(lambda: make("planowanie", **options), num_cycles=100)


def rules_of(options: dict[str, Any]) -> Rules:
    return make("planowanie", **options).game.rules  # type: ignore[no-any-return]


def random_game(game: PlanowanieEnvGame, seed: int, steps: int | None = None
                ) -> tuple[EnvPlanowanieGame, list[tuple[int, object]]]:
    """A game of random legal actions (``steps`` of them, or to its end)."""
    rng = random.Random(seed)
    engine = game.new_engine(seed)
    played = []
    while (seat := engine.to_play()) is not None and (steps is None or len(played) < steps):
        action = rng.choice(engine.legal_actions())
        engine.apply(seat, action)
        played.append((seat, action))
    return engine, played


@settings(max_examples=25)
@given(options=st.sampled_from(OPTION_SETS), seed=st.integers(0, 2**31 - 1))
def test_mask_is_exactly_the_engines_legal_actions(options: dict[str, Any], seed: int) -> None:
    game = PlanowanieEnvGame(rules_of(options))
    rng = random.Random(seed)
    engine = game.new_engine(seed)
    while (seat := engine.to_play()) is not None:
        legal = engine.legal_actions()
        assert_mask_is_the_engines(game, engine, seat, legal)
        engine.apply(seat, rng.choice(legal))


def hide_differently(engine: EnvPlanowanieGame, seat: int, rng: random.Random
                     ) -> EnvPlanowanieGame:
    """A copy where every other seat holds other cards (the same number, from the cards
    ``seat`` cannot see) and has declared something else while it is still hidden."""
    other = engine.copy()
    others = [s for s in range(engine.rules.players) if s != seat]
    pool = [c for s in others for c in cards_of(engine.hands[s])]
    rng.shuffle(pool)
    for s in others:
        count = bin(engine.hands[s]).count("1")
        mine, pool = pool[:count], pool[count:]
        other.hands[s] = sum(1 << c for c in mine)
        if engine.table.phase is Phase.DECLARE and other.said[s] is not None:
            other.said[s] = (other.said[s] or 0) + 1
    other.rebuild()
    return other


@settings(max_examples=12)
@given(options=st.sampled_from(OPTION_SETS), seed=st.integers(0, 2**31 - 1))
def test_a_seat_sees_neither_other_hands_nor_hidden_declarations(
        options: dict[str, Any], seed: int) -> None:
    """At every position of a random game, each seat's observation is the same when the
    others hold other cards and have declared other numbers (not yet revealed)."""
    game = PlanowanieEnvGame(rules_of(options))
    rng = random.Random(seed)
    engine = game.new_engine(seed)
    while (to_play := engine.to_play()) is not None:
        for seat in range(game.seats):
            varied = hide_differently(engine, seat, rng)
            assert np.array_equal(game.observe(engine, seat), game.observe(varied, seat))
        engine.apply(to_play, rng.choice(engine.legal_actions()))


@settings(max_examples=12)
@given(options=st.sampled_from(OPTION_SETS), seed=st.integers(0, 2**31 - 1))
def test_observations_kept_up_to_date_are_those_made_from_scratch(
        options: dict[str, Any], seed: int) -> None:
    game = PlanowanieEnvGame(rules_of(options))
    rng = random.Random(seed)
    engine = game.new_engine(seed)
    while True:
        for seat in range(game.seats):
            view = game.observe(engine, seat)
            assert np.array_equal(view, game.layout.build(engine, seat))
            # whole numbers within the space (the datasets store each in a byte)
            assert np.array_equal(view, np.round(view)) and view.min() >= 0
            assert view.max() <= game.observation_high <= 255
        if (seat := engine.to_play()) is None:
            break
        engine.apply(seat, rng.choice(engine.legal_actions()))
    assert engine.table.phase is Phase.OVER


def test_the_hiding_test_sees_a_leak() -> None:
    """The check above fails on an observation that shows another seat's cards."""
    game = PlanowanieEnvGame(rules_of(OPTION_SETS[3]))
    engine, _ = random_game(game, 3, 6)  # 13 cards each, two declared (hidden)
    varied = hide_differently(engine, 0, random.Random(1))
    assert varied.hands[1] != engine.hands[1]
    assert np.array_equal(game.observe(engine, 0), game.observe(varied, 0))
    assert not np.array_equal(game.observe(engine, 1), game.observe(varied, 1))


def test_observation_layout() -> None:
    env = make("planowanie", players=3, deals="2 2 1 3 0")
    env.reset(seed=4)
    game: PlanowanieEnvGame = env.game
    engine: EnvPlanowanieGame = env.engine
    size, at = game.rules.deck.size, game.offsets
    assert game.actions == 3 + 1 + size and game.max_cards == 3
    assert env.agent_selection == "player_1"  # the first deal's starter declares first
    env.step(2)  # seat 1 declares 2: seen by itself only, until all have declared
    mine = env.observe("player_1")["observation"]
    assert mine[at["declared"] + 2] == 1
    assert not env.observe("player_2")["observation"][at["declared"]:at["tricks"]].any()
    env.step(0)
    env.step(1)  # seat 0: the last; all revealed, seen from each seat
    seen = env.observe("player_2")["observation"]
    declared = seen[at["declared"]:at["tricks"]].reshape(3, 4)
    assert [int(np.argmax(row)) for row in declared] == [0, 1, 2]  # seats 2, 0, 1
    hand = engine.hands[1]
    view = env.observe("player_1")["observation"]
    assert {int(i) for i in np.flatnonzero(view[:size])} == set(cards_of(hand))
    assert view[at["leader"]] == 1 and view[at["declaring"]] == 0
    assert view[at["deal"]] == 1 and view[at["cards"]] == 2
    card = int(np.flatnonzero(env.observe("player_1")["action_mask"])[0]) - 4
    env.step(4 + card)  # seat 1 leads
    for seat, relative in ((1, 0), (2, 2), (0, 1)):
        trick = env.observe(f"player_{seat}")["observation"][at["trick"]:at["declared"]]
        assert trick.reshape(3, size)[relative, card] == 1 and trick.sum() == 1
    assert not env.observe("player_1")["observation"][:size][card]


def test_rewards_are_the_engines_points_of_the_same_game() -> None:
    for options in OPTION_SETS:
        env = make("planowanie", **options)
        env.reset(seed=11)
        rng = random.Random(11)
        actions = []
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            totals[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            number = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            actions.append(env.game.action(env.engine, int(agent[-1]), number))
            env.step(number)
        # the same deals and actions on a bare engine score the same points
        bare = PlanowanieGame(env.game.rules, env.engine.seed)
        for action in actions:
            seat = bare.to_play()
            assert seat is not None and bare.illegal_reason(seat, action) is None
            bare.apply(seat, action)
        assert bare.to_play() is None
        assert totals == {f"player_{s}": p for s, p in enumerate(bare.scores())}
        assert max(totals.values()) > 0


def test_an_illegal_action_ends_the_game_with_its_reason() -> None:
    env = make("planowanie", players=2, deals="2 1 0 2 1")  # declarations 0..2
    env.reset(seed=0)
    env.step(2)  # declaring 2 in a 1-card deal
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 1.0}
    assert "(declare 2): declared 2, not in 0..1" in env.infos["player_0"]["illegal"]
    env.reset(seed=0)
    env.step(0)
    env.step(0)
    engine: EnvPlanowanieGame = env.engine
    first = 3 + cards_of(engine.hands[0])[0]
    env.step(first)
    hand = engine.hands[1]
    wrong = [c for c in range(52) if not hand >> c & 1]
    env.step(3 + wrong[0])  # a card seat 1 does not hold
    assert env.rewards == {"player_0": 1.0, "player_1": 0.0}
    assert "is not in the player's hand" in env.infos["player_1"]["illegal"]


def test_seeds_deal_the_same_cards_and_max_moves_truncates() -> None:
    hands = []
    for seed in (5, 5, 6):
        env = make("planowanie", players=3, max_moves=3)
        env.reset(seed=seed)
        hands.append(list(env.engine.deals[12]))
        for _ in range(3):
            env.step(0)
        assert all(env.truncations.values()) and not any(env.terminations.values())
    assert hands[0] == hands[1] != hands[2]


def test_render_options_and_registry() -> None:
    env = make("planowanie", players=2, deals="1 2 1", render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert "deal 1/1: 2 card(s) each, declaring, trumps C" in text
    env.step(1)
    assert "seat 1: " in env.render() and "declared 1 (hidden)" in env.render()
    assert "planowanie" in GAMES
    for players in (0, 1, 5):
        with pytest.raises(ConfigError, match=f"players must be 2 to 4, got {players}"):
            make("planowanie", players=players)
    with pytest.raises(ConfigError, match="need 60, the deck has 52"):
        make("planowanie", players=4, deals="1 15 0")
    small = make("planowanie", players=4, values="TJQKA", suits="SH")  # 10 cards: 2 deals
    assert small.game.rules.deals == ((1, 0), (2, 1))
    assert rules_of({"deals": [(1, 0), (2, 1)]}).deals == parse_deals(["2", "1", "0", "2", "1"])
    assert Rules(Deck(), 4).deals == rules_of({}).deals
