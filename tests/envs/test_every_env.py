"""What every game's PettingZoo environment does alike: PettingZoo's own render_test, the
human render mode printing the ansi frame, state() and clone() giving independent
copies."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("pettingzoo")

from pettingzoo.test import render_test

from referee.envs import GAMES, make

OPTIONS: dict[str, dict[str, Any]] = {
    "gomoku": {"size": 9}, "planowanie": {"players": 3, "values": "9TJQKA", "suits": "SHD"},
    "mahjong": {"hands": 2}, "riichi": {"game": "east"}}
"""Each game's environment, small."""


def factory(game: str) -> Callable[..., Any]:
    def make_env(render_mode: str | None = None) -> Any:
        return make(game, render_mode=render_mode, **OPTIONS[game])
    return make_env


def test_every_game_with_an_environment_is_here() -> None:
    assert set(GAMES) == set(OPTIONS)


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_pettingzoos_render_test_runs_as_it_is(game: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    render_test(factory(game))
    printed = capsys.readouterr().out
    assert printed.strip(), "the human mode printed nothing"


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_human_mode_prints_the_ansi_frame_at_reset_each_step_and_render(
        game: str, capsys: pytest.CaptureFixture[str]) -> None:
    human, ansi = factory(game)("human"), factory(game)("ansi")
    assert human.metadata["render_modes"] == ["human", "ansi"]
    frames = []
    for env in (human, ansi):
        env.reset(seed=3)
    capsys.readouterr()
    rng = np.random.default_rng(0)
    human.reset(seed=3)
    frames.append(ansi.render())
    for _ in range(5):
        mask = ansi.observe(ansi.agent_selection)["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        human.step(action)
        ansi.step(action)
        frames.append(ansi.render())
    assert human.render() is None
    frames.append(ansi.render())
    assert capsys.readouterr().out == "".join(f"{frame}\n" for frame in frames)
    with pytest.raises(ValueError, match="render_mode must be None, 'human' or 'ansi'"):
        factory(game)("rgb_array")


# -- state() and clone(): independent copies, for search ---------------------------------

def snapshot(env: Any) -> tuple[Any, ...]:
    """Everything an agent loop sees of ``env`` now (every agent's observation and mask,
    rewards, ends, infos), and the game as text (all of it, hidden parts too)."""
    seen = tuple((a, env.observe(a)["observation"].tobytes(),
                  env.observe(a)["action_mask"].tobytes()) for a in env.possible_agents)
    return (env.agent_selection, env.moves, tuple(env.agents), dict(env.rewards),
            dict(env._cumulative_rewards), dict(env.terminations), dict(env.truncations),
            repr(env.infos), seen, env.game.render(env.engine))


def play(env: Any, picks: list[int], illegal_at: int | None) -> list[tuple[Any, ...]]:
    """Step ``env`` with the legal action ``picks[i]`` points to (modulo their number;
    the ``illegal_at``-th a forbidden one instead), until the picks or the agents run
    out: the snapshot after each step."""
    after = []
    for i, pick in enumerate(picks):
        if not env.agents:
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
        else:
            mask = env.observe(agent)["action_mask"]
            choices = np.flatnonzero(mask == 0 if i == illegal_at else mask)
            env.step(int(choices[pick % len(choices)]) if len(choices) else None)
        after.append(snapshot(env))
    return after


@pytest.mark.parametrize("game", sorted(OPTIONS))
@settings(max_examples=25, deadline=10_000,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**20), prefix=st.integers(0, 400),
       picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=40),
       illegal_at=st.none() | st.integers(0, 39))
def test_state_and_clone_are_independent_copies(game: str, seed: int, prefix: int,
                                                picks: list[int],
                                                illegal_at: int | None) -> None:
    """A step of the clone leaves the original as it was, and the other way round; the
    clone plays on exactly as the original does; a state restores the same point again
    and again, unchanged by the steps after it was taken."""
    env = factory(game)(None)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    play(env, [int(rng.integers(10**6)) for _ in range(prefix)], None)
    before = snapshot(env)
    state = env.state()
    drawn = env.game.render(state.engine)
    clone = env.clone()
    assert snapshot(clone) == before
    by_clone = play(clone, picks, illegal_at)
    assert snapshot(env) == before  # the clone's steps changed nothing of the original
    end_of_clone = snapshot(clone)
    assert play(env, picks, illegal_at) == by_clone  # the same game, step by step
    assert snapshot(clone) == end_of_clone  # the original's steps: nothing of the clone
    assert env.game.render(state.engine) == drawn  # nor of the state
    for _ in range(2):
        env.restore(state)
        assert snapshot(env) == before
        assert play(env, picks, illegal_at) == by_clone
    other = env.clone()
    other.reset()
    env.reset()
    assert snapshot(other) == snapshot(env)  # the clone's seeds are the original's


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_a_clone_made_while_the_finished_agents_are_removed_removes_them_alike(
        game: str) -> None:
    """Once the game is over each agent steps ``None`` in turn to be removed; PettingZoo
    keeps whom it goes back to between those steps: a clone or state taken between them
    carries it (a clone once went back to the wrong agent)."""
    env = factory(game)(None)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    while not any(env.terminations.values()) and not any(env.truncations.values()):
        play(env, [int(rng.integers(10**6))], None)
    env.step(None)  # (the first removal: the one after it is remembered)
    if not env.agents:
        pytest.skip("the game's agents all went at once")
    clone, state = env.clone(), env.state()
    picks = [0] * len(env.agents)
    by_clone = play(clone, picks, None)
    assert play(env, picks, None) == by_clone
    env.restore(state)
    assert play(env, picks, None) == by_clone
