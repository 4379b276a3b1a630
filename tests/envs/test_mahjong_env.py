"""ICGA Mahjong's PettingZoo environment: PettingZoo's own checks, and the engine that
referees matches (the mask is its answers, one seat asked at a time, the rewards its
totals, a seat sees only what an ICGA client is told)."""

from __future__ import annotations

import random
from collections.abc import Iterator
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
from referee.games.mahjong.actions import Ask
from referee.games.mahjong.bots.policies import greedy_policy
from referee.games.mahjong.env import (
    CHOW,
    DISCARDS,
    DRAWN,
    HAND,
    HANDS_LEFT,
    HIDDEN_KONGS,
    INFO,
    MELDS,
    OFFER,
    PASS,
    ROUND_WIND,
    SEAT_WIND,
    SOURCE,
    EnvMahjongGame,
    MahjongEnvGame,
)
from referee.games.mahjong.game import MahjongGame
from referee.games.mahjong.melds import MeldKind
from referee.games.mahjong.tiles import KIND_TABLE, counts_of, is_flower

OPTION_SETS = [
    {"hands": 1},
    {"hands": 1, "scoring": "taiwan", "kong_from_previous": True},
    {"hands": 2, "reserve": 0, "base": 10, "per_tai": 5},
]


@pytest.mark.parametrize("options", OPTION_SETS)
def test_pettingzoo_api_and_seed_tests_pass(options: dict[str, Any]) -> None:
    api_test(make("mahjong", **options), num_cycles=300)
    seed_test(lambda: make("mahjong", **options), num_cycles=150)


def game_of(options: dict[str, Any]) -> MahjongEnvGame:
    return make("mahjong", **options).game  # type: ignore[no-any-return]


def positions(game: MahjongEnvGame, seed: int, greedy: float = 0.8
              ) -> Iterator[tuple[EnvMahjongGame, int]]:
    """Every position of a game (the engine and the seat asked), played mostly by the
    greedy AI (it claims and wins; random play hardly does), else at random."""
    rng = random.Random(seed)
    engine = game.new_engine(seed)
    while (seat := engine.to_play()) is not None:
        yield engine, seat
        if rng.random() < greedy:
            action = greedy_policy(engine.hand.view(seat), rng)
        else:
            action = rng.choice(engine.hand.legal_actions())
        engine.apply(seat, action)


@settings(max_examples=12)
@given(options=st.sampled_from(OPTION_SETS), seed=st.integers(0, 2**31 - 1))
def test_mask_is_exactly_the_engines_answers(options: dict[str, Any], seed: int) -> None:
    game = game_of(options)
    for engine, seat in positions(game, seed):
        assert_mask_is_the_engines(game, engine, seat, engine.hand.legal_actions())


def test_every_kind_of_answer_is_met() -> None:
    """Games like those above do claim, kong (every kind) and win: the mask test meets
    every answer."""
    game = game_of({"hands": 1})
    seen: set[str] = set()
    for seed in range(40):
        for engine, seat in positions(game, seed):
            for number in np.flatnonzero(game.legal_mask(engine, seat)):
                name = type(game.action(engine, seat, int(number))).__name__
                seen.add(f"{name} {number - CHOW}" if name == "Eat" else name)
    assert seen == {"Throw", "Kong", "ConcealedKong", "PromotedKong", "Pong", "Eat 0",
                    "Eat 1", "Eat 2", "Hu", "Pass"}


@settings(max_examples=8)
@given(options=st.sampled_from(OPTION_SETS), seed=st.integers(0, 2**31 - 1))
def test_melds_and_discards_are_those_on_the_table(options: dict[str, Any],
                                                   seed: int) -> None:
    """The rows followed event by event (as a client follows the wire) are the hand's
    melds and discards at every position; a promoted kong counts once declared, while the
    others may still rob its tile (then also the tile on offer)."""
    game = game_of(options)
    for engine, _ in positions(game, seed):
        hand = engine.hand
        robbing = hand.discard is None and hand.question is not None and \
            hand.question.ask is Ask.HU and hand.question.seat != hand.turn
        for seat in range(4):
            view = game.observe(engine, seat)
            assert np.array_equal(view, np.round(view))  # whole numbers (a byte each)
            assert view.min() >= 0 and view.max() <= game.observation_high
            assert view[INFO, HANDS_LEFT] == min(4, game.rules.hands - 1 - engine.number)
            for r in range(4):
                other = (seat + r) % 4
                melds = counts_of(t for m in hand.melds[other] for t in m.tiles
                                  if r == 0 or m.kind is not MeldKind.CONCEALED_KONG)
                if robbing and other == hand.turn:
                    melds[int(np.argmax(view[OFFER]))] += 1
                assert view[MELDS + r].tolist() == melds
                assert view[DISCARDS + r].tolist() == counts_of(hand.discards[other])


def redeal_hidden(engine: EnvMahjongGame, seat: int, rng: random.Random) -> list[Any]:
    """Give the other seats other concealed tiles and the wall another order, from the
    tiles ``seat`` cannot see (flowers stay where they are); returns what to restore."""
    hand = engine.hand
    saved = [list(h) for h in hand.hands], list(hand.wall)
    others = [s for s in range(4) if s != seat]
    places = [i for i in range(hand.front, hand.back) if not is_flower(hand.wall[i])]
    pool = [t for s in others for t in hand.hands[s]] + [hand.wall[i] for i in places]
    rng.shuffle(pool)
    for s in others:
        count = len(hand.hands[s])
        hand.hands[s], pool = sorted(pool[:count]), pool[count:]
    for i, tile in zip(places, pool, strict=True):
        hand.wall[i] = tile
    engine.forget()
    return [saved]


def restore(engine: EnvMahjongGame, saved: list[Any]) -> None:
    hands, wall = saved[0]
    engine.hand.hands[:] = hands
    engine.hand.wall[:] = wall
    engine.forget()


@settings(max_examples=6)
@given(options=st.sampled_from(OPTION_SETS), seed=st.integers(0, 2**31 - 1))
def test_a_seat_sees_neither_other_hands_nor_the_wall(options: dict[str, Any],
                                                      seed: int) -> None:
    game = game_of(options)
    rng = random.Random(seed)
    changed = 0
    for engine, to_play in positions(game, seed):
        if engine.hand.events[-1].kind == "ask" and rng.random() < 0.5:
            continue  # every other position, to stay quick
        for seat in range(4):
            before = game.observe(engine, seat)
            other = game.observe(engine, (seat + 1) % 4)
            saved = redeal_hidden(engine, seat, rng)
            assert np.array_equal(game.observe(engine, seat), before)
            changed += not np.array_equal(game.observe(engine, (seat + 1) % 4), other)
            restore(engine, saved)
        assert engine.hand.question is not None and engine.hand.question.seat == to_play
    assert changed  # the redeal does change what the redealt seats see


def test_a_concealed_kong_shows_its_tiles_to_its_owner_only() -> None:
    game = game_of({"hands": 1})
    for seed in range(200):
        for engine, _ in positions(game, seed):
            owners = [s for s in range(4) for m in engine.hand.melds[s]
                      if m.kind is MeldKind.CONCEALED_KONG]
            if owners:
                owner = owners[0]
                kong = next(m for m in engine.hand.melds[owner]
                            if m.kind is MeldKind.CONCEALED_KONG)
                mine = game.observe(engine, owner)
                assert mine[MELDS, kong.base] == 4 and mine[INFO, HIDDEN_KONGS] == 1
                for r in (1, 2, 3):
                    theirs = game.observe(engine, (owner - r) % 4)
                    assert theirs[MELDS + r, kong.base] == 0
                    assert theirs[INFO, HIDDEN_KONGS + r] == 1
                return
    pytest.fail("no concealed kong in 200 games")


def test_observation_layout_and_claims_asked_one_seat_at_a_time() -> None:
    env = make("mahjong", hands=1)
    env.reset(seed=3)
    engine: EnvMahjongGame = env.engine
    hand = engine.hand
    assert env.agent_selection == "player_0"  # seat 0 deals first
    view = env.observe("player_0")["observation"]
    assert view[HAND].tolist() == counts_of(hand.hands[0])
    assert view[DRAWN, KIND_TABLE[hand.drawn]] == 1 and view[HAND].sum() == 17
    assert view[INFO, SEAT_WIND] == 1 and view[INFO, ROUND_WIND] == 1
    assert view[INFO, list(Ask).index(hand.question.ask)] == 1
    assert view[INFO, :5].sum() == 1 and not env.observe("player_1")["observation"][INFO, :5].any()
    while hand.question is not None and hand.question.ask is not Ask.THROW:
        env.step(PASS)
    thrown = hand.hands[0][0]
    env.step(KIND_TABLE[thrown])
    asked = []
    while hand.discard is not None:  # the claims: one seat asked at a time
        question = hand.question
        assert question is not None
        agent = f"player_{question.seat}"
        assert env.agent_selection == agent
        seen = env.observe(agent)
        assert seen["observation"][OFFER, KIND_TABLE[thrown]] == 1
        assert seen["observation"][INFO, SOURCE + (0 - question.seat) % 4] == 1
        assert seen["observation"][INFO, list(Ask).index(question.ask)] == 1
        assert seen["action_mask"][PASS] == 1
        asked.append(question.seat)
        env.step(PASS)
    for seat in range(4):  # every seat sees seat 0's discard, from where it sits
        view = env.observe(f"player_{seat}")["observation"]
        assert view[DISCARDS + (0 - seat) % 4, KIND_TABLE[thrown]] == 1
    assert env.agent_selection == "player_1"  # nobody claimed: seat 1 draws
    assert len(asked) == len(set(asked))


def test_rewards_are_the_engines_totals_of_the_same_game() -> None:
    for seed in range(3):
        env = make("mahjong", hands=2, scoring="taiwan")
        env.reset(seed=seed)
        rng = random.Random(seed)
        actions = []
        totals = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            _, reward, terminated, truncated, _ = env.last()
            totals[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            seat = int(agent[-1])
            number = env.game.index(env.engine, seat,
                                    greedy_policy(env.engine.hand.view(seat), rng))
            actions.append(env.game.action(env.engine, seat, number))
            env.step(number)
        bare = MahjongGame(env.engine.seed, env.game.rules)
        for action in actions:
            seat = bare.to_play()
            assert seat is not None and bare.illegal_reason(seat, action) is None
            bare.apply(seat, action)
        assert bare.to_play() is None
        assert totals == {f"player_{s}": t for s, t in enumerate(bare.scores())}
        if any(bare.scores()):
            return
    pytest.fail("no hand won in 3 greedy games")


def test_an_illegal_action_ends_the_game_with_its_reason() -> None:
    env = make("mahjong", hands=1)
    env.reset(seed=3)
    hand = env.engine.hand
    while hand.question is not None and hand.question.ask is not Ask.THROW:
        env.step(PASS)
    missing = next(k for k in range(34) if k not in {KIND_TABLE[t] for t in hand.hands[0]})
    env.step(missing)  # a kind seat 0 does not hold
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -100.0, "player_1": 0.0, "player_2": 0.0,
                           "player_3": 0.0}  # the totals so far, the offender a base below
    assert "are not all in the hand" in env.infos["player_0"]["illegal"]
    env.reset(seed=3)
    hand = env.engine.hand
    while hand.question is not None and hand.question.ask is not Ask.THROW:
        env.step(PASS)
    env.step(PASS)
    assert "(/pass): a discard is required" in env.infos["player_0"]["illegal"]


@pytest.mark.parametrize(("totals", "offender", "rewards"), [
    ([300, -200, 500, -600], 2, [300, -200, -700, -600]),  # from first to last
    ([-900, 100, 400, 400], 0, [-900, 100, 400, 400]),  # already last by more: as it was
    ([0, -10, 0, 10], 3, [0, -10, 0, -20]),  # the base is 10
])
def test_an_illegal_action_puts_the_offender_last(totals: list[int], offender: int,
                                                  rewards: list[float]) -> None:
    env = make("mahjong", hands=3, base=10 if -10 in totals else 100)
    env.reset(seed=1)
    while env.engine.number < 1:  # into the second hand, the first one's totals kept
        seat = env.engine.to_play()
        env.step(int(np.flatnonzero(env.game.legal_mask(env.engine, seat))[0]))
    env.engine.totals = totals  # (as if the first hand had been paid so)
    while env.engine.to_play() != offender:
        seat = env.engine.to_play()
        env.step(int(np.flatnonzero(env.game.legal_mask(env.engine, seat))[0]))
    illegal = int(np.flatnonzero(env.game.legal_mask(env.engine, offender) == 0)[0])
    env.step(illegal)
    assert [env.rewards[f"player_{s}"] for s in range(4)] == rewards
    assert "illegal" in env.infos[f"player_{offender}"]
    assert all(env.terminations.values())


def test_seeds_make_the_same_walls_and_max_moves_truncates() -> None:
    walls = []
    for seed in (5, 5, 6):
        env = make("mahjong", max_moves=5)
        env.reset(seed=seed)
        walls.append(list(env.engine.hand.wall))
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated
                     else int(np.flatnonzero(observation["action_mask"])[0]))
        assert env.moves == 5 and all(env.truncations.values())
    assert walls[0] == walls[1] != walls[2]


def test_render_options_and_registry() -> None:
    env = make("mahjong", hands=1, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert text.startswith("hand 1/1, round EAST, dealer seat 0")
    assert "seat 0 is asked" in text and text.count("\nseat ") == 5
    assert "mahjong" in GAMES
    with pytest.raises(ConfigError, match="scoring = 'hk'"):
        make("mahjong", scoring="hk")
    with pytest.raises(ConfigError, match="hands = 0"):
        make("mahjong", hands=0)
