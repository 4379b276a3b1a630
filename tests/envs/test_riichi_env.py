"""Riichi's PettingZoo environment: PettingZoo's own checks, and the engine that referees
matches behind it (the mask is the engine's legal actions, numbered as kanachan numbers
them; what a seat sees; rewards and forfeits as the rules score them)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from riichi_play import best_discards

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test

from referee.envs import GAMES, make
from referee.games.riichi.env import (
    ACTIONS,
    CONTEXT,
    NUMERIC,
    OBSERVATION_SIZE,
    RIICHI,
    TABLE,
    RiichiEnvEngine,
    RiichiEnvGame,
)
from referee.games.riichi.kanachan.annotate import Context, annotate_game
from referee.games.riichi.kanachan.encoding import (
    O_ANKAN,
    O_RON,
    O_SKIP,
    O_TSUMO,
    option_value,
)
from referee.games.riichi.rules import Action, Deal, RiichiGame, RiichiRules, SeededWall
from referee.games.riichi.rulesets import preset_rules
from referee.games.riichi.settle import final_standings

ROOMS = ("tenhou", "mahjong_soul")


@pytest.mark.parametrize("room", ROOMS)
def test_pettingzoo_api_and_seed_tests_pass(room: str) -> None:
    api_test(make("riichi", room=room, game="east"), num_cycles=150)
    seed_test(lambda: make("riichi", room=room, game="east"), num_cycles=100)
    assert "riichi" in GAMES


def choose(env: Any, agent: str, mask: np.ndarray[Any, Any], rng: random.Random,
           eager: bool) -> int:
    """A random legal action number; ``eager``: one that plays toward winning (a win,
    riichi, a discard lowering the shanten, few calls), to reach every kind of decision."""
    numbers = [int(n) for n in np.flatnonzero(mask)]
    if not eager:
        return rng.choice(numbers)
    wins = [n for n in numbers if n == O_TSUMO or (n >= O_RON and n != RIICHI)]
    if wins:
        return wins[0]
    if RIICHI in numbers:
        return RIICHI
    if O_SKIP in numbers and rng.random() < 0.85:
        return O_SKIP
    discards = [n for n in numbers if n < O_ANKAN]
    if not discards or rng.random() < 0.2:
        return rng.choice(numbers)
    return rng.choice(best_discards(env.game, env.engine, env._seat[agent], discards))


def random_game(env: Any, seed: int, eager: bool = False) -> Iterator[tuple[str, int]]:
    """Play legal actions (:func:`choose`) from ``reset(seed)`` to the end; yield
    (agent, action) before each step."""
    env.reset(seed=seed)
    rng = random.Random(seed)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = choose(env, agent, observation["action_mask"], rng, eager)
        yield agent, action
        env.step(action)


def kanachan_number(seat: int, action: Action, riichi: bool) -> int:
    """The option number kanachan's encoding gives an engine action (546 for riichi):
    an oracle written apart from the environment's own numbering."""
    kind = action.type
    rel = None if action.target is None else (action.target - seat) % 4 - 1
    if kind == "reach":
        return RIICHI
    if kind == "dahai":
        return option_value("dahai", action.pai, tsumogiri=bool(action.tsumogiri),
                            riichi=riichi)
    if kind == "hora":
        return option_value("tsumo") if action.target == seat else option_value("ron", rel=rel)
    if kind == "none":
        return option_value("skip")
    if kind == "ryukyoku":
        return option_value("kyuushu")
    if kind == "ankan":
        return option_value("ankan", action.consumed[0])
    if kind == "kakan":
        return option_value("kakan", action.pai)
    return option_value(kind, action.pai, action.consumed, rel=rel)


@pytest.mark.parametrize("room", ROOMS)
def test_the_mask_is_exactly_the_engines_legal_actions(room: str) -> None:
    env = make("riichi", room=room, game="east")
    kinds: set[str] = set()
    riichi_discards = 0
    for seed in range(4):
        engine: RiichiEnvEngine = None  # type: ignore[assignment]
        for agent, action in random_game(env, seed, eager=seed % 2 == 1):
            engine = env.engine
            seat = env._seat[agent]
            game = engine.game
            legal = game.legal_actions(seat)
            declaring = game.kyoku is not None and game.kyoku.phase == "reach"
            numbers = [env.game.index(engine, seat, a) for a in legal]
            assert len(set(numbers)) == len(legal)  # one number per engine action
            assert numbers == [kanachan_number(seat, a, declaring) for a in legal]
            mask = env.observe(agent)["action_mask"]
            assert set(np.flatnonzero(mask)) == set(numbers)
            for a, n in zip(legal, numbers, strict=True):
                assert env.game.action(engine, seat, n) is a
                assert env.game._decode(engine, seat, n) == a  # as built for a reason
            assert env.game.index(engine, seat, env.game.action(engine, seat, action)) == action
            others = [s for s in range(4) if s != seat]
            assert not any(env.observe(f"player_{s}")["action_mask"].any() for s in others)
            kinds.update(a.type for a in legal)
            riichi_discards += declaring
        assert engine.game.over
    assert {"dahai", "reach", "chi", "pon", "daiminkan", "ankan", "kakan", "hora",
            "none"} <= kinds
    assert riichi_discards > 0


def test_riichi_is_declared_then_the_discard_carries_kanachans_riichi_bit() -> None:
    env = make("riichi", game="east")
    for agent, _ in random_game(env, 11, eager=True):
        mask = env.observe(agent)["action_mask"]
        if mask[RIICHI]:
            break
    else:
        pytest.fail("no riichi in the game")
    seat = env._seat[agent]
    plain = {int(n) for n in np.flatnonzero(mask[:O_ANKAN])}
    assert plain and all(n % 2 == 0 for n in plain)  # no riichi bit before declaring
    env.step(RIICHI)
    assert env.agent_selection == agent
    after = env.observe(agent)["action_mask"]
    numbers = {int(n) for n in np.flatnonzero(after)}
    legal = env.engine.game.legal_actions(seat)
    assert {a.type for a in legal} == {"dahai"}
    assert numbers == {option_value("dahai", a.pai, tsumogiri=bool(a.tsumogiri), riichi=True)
                       for a in legal}
    assert numbers <= {n + 1 for n in plain}  # the same discards, with the riichi bit
    chosen = min(numbers)
    events = env.engine.game.events
    told = len(events)
    env.step(chosen)
    played = next(e for e in events[told:] if e["type"] == "dahai")
    assert played["actor"] == seat and events[told - 1] == {"type": "reach", "actor": seat}
    assert option_value("dahai", played["pai"], tsumogiri=played["tsumogiri"],
                        riichi=True) == chosen


def test_seats_asked_at_once_answer_in_turn_without_seeing_the_earlier_answers() -> None:
    env = make("riichi", game="east")
    found = 0
    for seed in range(3):
        for agent, _ in random_game(env, seed):
            kyoku = env.engine.game.kyoku
            asked = sorted(kyoku.pending())
            if kyoku.phase != "respond" or len(asked) < 2:
                continue
            assert agent == f"player_{asked[0]}"
            later = f"player_{asked[1]}"
            before = env.observe(later)["observation"]
            mask = env.observe(agent)["action_mask"]
            claims = [int(n) for n in np.flatnonzero(mask) if n != O_SKIP]
            env.step(claims[0])  # a claim: the engine keeps it until all have answered
            assert env.agent_selection == later
            assert np.array_equal(env.observe(later)["observation"], before)
            assert env.engine.game.kyoku.pending() == set(asked[1:])
            found += 1
            break
    assert found == 3


def sparse_of(observation: np.ndarray[Any, Any]) -> list[int]:
    return [int(i) for i in np.flatnonzero(observation[:NUMERIC])]


def test_features_and_numbers_are_kanachans_at_the_annotators_points() -> None:
    """The annotator of our own records (kanachan's format, own choices only) and the
    environment agree on every own-turn decision of a game: sparse features, numeric
    features, and the options (the riichi declaration aside, which kanachan folds into
    the discard)."""
    env = make("riichi", game="east")
    mine: list[tuple[list[int], list[float], set[int]]] = []
    for agent, _ in random_game(env, 3):
        kyoku = env.engine.game.kyoku
        observation = env.observe(agent)
        numbers = {int(n) for n in np.flatnonzero(observation["action_mask"])}
        if kyoku.phase in ("tsumo", "call") and (len(numbers) >= 2 or RIICHI in numbers):
            mine.append((sparse_of(observation["observation"]),
                         list(observation["observation"][NUMERIC:TABLE]), numbers))
    game = env.engine.game
    lines = annotate_game(game.events, "g", Context(kanachan_exact=False), game.rules)
    theirs = []
    for line in lines:
        _, sparse, numeric, _, options, *_ = line.split("\t")
        numbers = {int(o) for o in options.split(",")}
        if O_SKIP not in numbers:  # own-turn points (an answer to a claim may skip)
            theirs.append((sorted(map(int, sparse.split(","))),
                           [int(v) for v in numeric.split(",")], numbers))
    assert len(mine) == len(theirs) > 50
    for (sparse, numeric, numbers), (k_sparse, k_numeric, k_numbers) in zip(
            mine, theirs, strict=True):
        assert sparse == k_sparse
        assert numeric == [*k_numeric[:2], *(n for v in k_numeric[2:]
                                             for n in (v // 1000, v % 1000 // 100))]
        riichi_bit = {n for n in k_numbers if n < O_ANKAN and n % 2}
        assert numbers - {RIICHI} == k_numbers - riichi_bit
        assert (RIICHI in numbers) == bool(riichi_bit)


def scripted_engine(tehais: tuple[tuple[int, ...], ...], seed: int) -> RiichiEnvEngine:
    """A game of one hand dealt ``tehais`` (dealer seat 0) from the wall of ``seed``."""
    wall = SeededWall(seed)
    game = RiichiGame(preset_rules("tenhou", "east"), seed=None)
    game.start_kyoku(Deal(tehais, wall.dora_indicator(0)), wall)
    return RiichiEnvEngine(game)


def passive(engine: RiichiEnvEngine, seat: int) -> Action:
    """Discard the drawn tile, pass every claim (the public game then does not depend on
    the starting hands)."""
    legal = engine.game.legal_actions(seat)
    for action in legal:
        if (action.type == "dahai" and action.tsumogiri) or action.type == "none":
            return action
    return next(a for a in legal if a.type == "dahai")


def test_a_seat_sees_nothing_of_the_others_concealed_tiles() -> None:
    wall = SeededWall(21)
    hands = tuple(wall.haipai(s) for s in range(4))
    swapped = (hands[0], hands[2], hands[1], hands[3])  # seats 1 and 2 trade their hands
    views: list[list[np.ndarray[Any, Any]]] = []
    others: list[np.ndarray[Any, Any]] = []
    env_game = RiichiEnvGame(preset_rules("tenhou", "east"))
    for tehais in (hands, swapped):
        engine = scripted_engine(tehais, 21)
        seen = []
        while not engine.game.results:
            seat = engine.to_play()
            assert seat is not None
            if seat == 0:
                seen.append(env_game.observe(engine, 0))
            engine.apply(seat, passive(engine, seat))
        views.append(seen)
        others.append(env_game.observe(engine, 1))
    assert len(views[0]) == len(views[1]) > 10
    for a, b in zip(*views, strict=True):
        assert np.array_equal(a, b)
    assert not np.array_equal(others[0], others[1])  # seat 1's own view did change


@pytest.mark.parametrize("room", ROOMS)
def test_rewards_are_the_final_scores_a_match_records(room: str) -> None:
    """Uma and oka included, in thousands (``record.finish`` of a Riichi match), once,
    when the game ends."""
    env = make("riichi", room=room, game="east")
    env.reset(seed=7)
    rng = random.Random(7)
    at_end: dict[str, float] = {}
    while env.agents:
        agent = env.agent_selection
        observation, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            at_end[agent] = reward
            env.step(None)
            continue
        assert reward == 0
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    finals = env.engine.game.final_scores()
    assert at_end == {f"player_{s}": f.score for s, f in enumerate(finals)}
    assert sum(f.points for f in finals) == 100000 and len(set(at_end.values())) > 1


@pytest.mark.parametrize(("room", "expected"), [("tenhou", [-25.0, 35.0, 5.0, -15.0]),
                                                ("mahjong_soul", [-15.0, 15.0, 5.0, -5.0])])
def test_an_illegal_action_ends_the_game_with_the_offender_last(
        room: str, expected: list[float]) -> None:
    env = make("riichi", room=room, game="east")
    env.reset(seed=0)
    assert env.agent_selection == "player_0"  # the dealer, after its first draw
    hand = {a.pai for a in env.engine.game.legal_actions(0) if a.type == "dahai"}
    absent = next(n for n in ("1m", "9m", "1p", "9p", "E", "S", "W", "C") if n not in hand)
    env.step(option_value("dahai", absent))
    assert all(env.terminations.values())
    assert [env.rewards[f"player_{s}"] for s in range(4)] == expected
    assert f"{absent} is not in the hand" in env.infos["player_0"]["illegal"]
    scores = final_standings([25000] * 4, 0, 0, preset_rules(room, "east"), last=0)
    assert [f.score for f in scores] == expected
    split = RiichiRules(first_place_ties="split", final_rounding="none")
    shared = final_standings([25000] * 4, 0, 0, split, last=0)
    assert [f.rank for f in shared] == [4, 1, 1, 1]  # the offender shares no tie
    env.reset(seed=0)
    env.step(ACTIONS)  # not a number of the space
    assert "is not a number from 0 to 546" in env.infos["player_0"]["illegal"]


def test_the_seed_deals_the_walls() -> None:
    hands = []
    for seed in (5, 5, 6):
        env = make("riichi", game="east")
        env.reset(seed=seed)
        kyoku = env.engine.game.kyoku
        hands.append((tuple(tuple(h) for h in kyoku.hands), tuple(kyoku.source.tiles)))
    assert hands[0] == hands[1] != hands[2]


def test_max_moves_truncates_the_game() -> None:
    env = make("riichi", game="south", max_moves=30)
    moves = sum(1 for _ in random_game(env, 2))
    assert moves == 30 and env.moves == 30 and not env.agents
    assert not env.engine.game.over


def test_layout_render_and_bad_options() -> None:
    env = make("riichi", room="mahjong_soul", game="east", render_mode="ansi")
    env.reset(seed=1)
    observation = env.observe("player_0")["observation"]
    assert observation.shape == (OBSERVATION_SIZE,) and observation.dtype == np.float32
    assert observation[CONTEXT] == 1  # the dealer decides after its draw
    text = env.render()
    assert text.startswith("E1-0") and "seat 0 E" in text and text.count("river:") == 4
    with pytest.raises(ValueError, match="game length 'west'"):
        make("riichi", game="west")
    with pytest.raises(ValueError, match="red fives"):
        RiichiEnvGame(RiichiRules(red_fives=False))
