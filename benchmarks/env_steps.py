"""Timing an environment's step against its bare engine's, for the ``bench_envs_*``
benchmarks (issue 23: env step overhead at most 2x the bare engine step).

* bare engine step: ``to_play()`` + ``legal_actions()`` + ``apply()`` of a random legal
  action (the least a game loop over the engine does);
* env step: ``env.step(number)`` + ``env.last()`` (what an AEC loop does: the observation
  and mask of the next agent included) with a random number the mask allows.

Both time only those calls (``time.perf_counter`` around them; choosing the action is
not counted), over the same number of random legal games, in the same run.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class StepTimes:
    """Seconds per step of the bare engine and of the environment, and the steps timed."""

    bare: float
    env: float
    bare_steps: int
    env_steps: int

    @property
    def ratio(self) -> float:
        """Env step / bare engine step."""
        return self.env / self.bare


def bare_steps(new_engine: Callable[[int], Any], legal_actions: Callable[[Any], list[Any]],
               games: int, seed: int = 1) -> tuple[float, int]:
    """(seconds per step, steps) of random legal games straight on the engine."""
    rng = random.Random(seed)
    clock = time.perf_counter
    spent = 0.0
    steps = 0
    for game in range(games):
        engine = new_engine(seed * 1_000_003 + game)
        while True:
            start = clock()
            seat = engine.to_play()
            if seat is None:
                spent += clock() - start
                break
            actions = legal_actions(engine)
            spent += clock() - start
            action = actions[rng.randrange(len(actions))]
            start = clock()
            engine.apply(seat, action)
            spent += clock() - start
            steps += 1
    return spent / steps, steps


def env_steps(env: Any, games: int, seed: int = 1) -> tuple[float, int]:
    """(seconds per step, steps) of random legal games through the AEC environment."""
    rng = random.Random(seed)
    clock = time.perf_counter
    spent = 0.0
    steps = 0
    for game in range(games):
        env.reset(seed=seed * 1_000_003 + game)
        observation, _, terminated, truncated, _ = env.last()
        while not (terminated or truncated):
            legal = np.flatnonzero(observation["action_mask"])
            number = int(legal[rng.randrange(len(legal))])
            start = clock()
            env.step(number)
            observation, _, terminated, truncated, _ = env.last()
            spent += clock() - start
            steps += 1
    return spent / steps, steps


def compare(new_engine: Callable[[int], Any], legal_actions: Callable[[Any], list[Any]],
            env: Any, games: int, repeat: int = 3) -> StepTimes:
    """The best of ``repeat`` alternating runs of each (the least disturbed by the rest of
    a shared machine)."""
    bare: list[tuple[float, int]] = []
    stepped: list[tuple[float, int]] = []
    for run in range(repeat):
        bare.append(bare_steps(new_engine, legal_actions, games, seed=run + 1))
        stepped.append(env_steps(env, games, seed=run + 1))
    best_bare, best_env = min(bare), min(stepped)
    return StepTimes(best_bare[0], best_env[0], best_bare[1], best_env[1])


def rollout(env: Any, games: int, seed: int = 7) -> tuple[int, float]:
    """Play ``games`` random legal games through ``env`` (``agent_iter``, as users do);
    (steps, seconds). Any error propagates; a game that does not end normally (an
    illegal action, a truncation) raises ``AssertionError``."""
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    for game in range(games):
        env.reset(seed=seed * 1_000_003 + game)
        for agent in env.agent_iter():
            observation, _, terminated, truncated, info = env.last()
            assert "illegal" not in info and not truncated, (game, agent, info)
            if terminated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
    return steps, time.perf_counter() - start
