"""Riichi's PettingZoo environment: the cost of a step against the bare engine's, and a
long random rollout.

- per step: random legal games are recorded first (the env's action numbers and, for
  each, the engine's action and its place in the engine's legal list); then the same
  decisions are replayed twice, timed: through the environment (``env.step`` then
  ``env.last()``, which observes the next agent and makes its mask) and through the bare
  engine (``legal_actions`` then ``apply``, the least a referee does per decision). The
  mean time of each and their ratio (the issue's target: at most 2);
- rollout: ``--games`` random-legal games (1,000 by default, east games, the two rooms in
  turn) played through the environment from ``env.reset`` to the end, with the wall time
  and the steps per second.

Run: ``.venv/bin/python benchmarks/bench_envs_riichi.py`` (``--quick`` for a short run).
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import numpy as np

from referee.envs import make
from referee.games.riichi.rules import RiichiGame
from referee.games.riichi.rulesets import preset_rules


def record(game: str, seed: int) -> tuple[int, list[int], list[tuple[int, int]]]:
    """A random legal game through the environment: its engine seed, the action numbers
    played and, for each, the seat and the place of its action in the legal list."""
    env = make("riichi", game=game)
    env.reset(seed=seed)
    rng = random.Random(seed)
    numbers: list[int] = []
    places: list[tuple[int, int]] = []
    engine = env.engine
    engine_seed = engine.game.seed
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        number = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        seat = env._seat[agent]
        action = env.game.action(engine, seat, number)
        places.append((seat, engine.game.legal_actions(seat).index(action)))
        numbers.append(number)
        env.step(number)
    return engine_seed, numbers, places


def time_env(game: str, seed: int, numbers: list[int]) -> float:
    """Seconds to replay ``numbers`` through the environment (step, then last)."""
    env = make("riichi", game=game)
    env.reset(seed=seed)
    env.last()
    step = env.step
    last = env.last
    start = time.perf_counter()
    for number in numbers:
        step(number)
        last()
    return time.perf_counter() - start


def time_engine(game: str, engine_seed: int, places: list[tuple[int, int]]) -> float:
    """Seconds to replay the same decisions through the bare engine."""
    engine = RiichiGame(preset_rules("tenhou", game), seed=engine_seed)
    legal_actions = engine.legal_actions
    apply = engine.apply
    start = time.perf_counter()
    for seat, place in places:
        legal = legal_actions(seat)
        apply(seat, legal[place])
    return time.perf_counter() - start


def per_step(games: int, game: str) -> dict[str, float]:
    """Mean microseconds of an env step and of a bare engine decision, and their ratio
    (the best of three replays of each game, as a shared machine only slows runs down)."""
    env_seconds = engine_seconds = 0.0
    decisions = 0
    for seed in range(games):
        engine_seed, numbers, places = record(game, seed)
        env_seconds += min(time_env(game, seed, numbers) for _ in range(3))
        engine_seconds += min(time_engine(game, engine_seed, places) for _ in range(3))
        decisions += len(numbers)
    env_us = env_seconds / decisions * 1e6
    engine_us = engine_seconds / decisions * 1e6
    return {"decisions": decisions, "env_step_us": env_us, "engine_step_us": engine_us,
            "ratio": env_us / engine_us}


def rollout(games: int) -> dict[str, Any]:
    """Random legal east games through the environment, both rooms in turn."""
    envs = {room: make("riichi", room=room, game="east") for room in ("tenhou", "mahjong_soul")}
    rng = random.Random(0)
    steps = 0
    start = time.perf_counter()
    for number in range(games):
        env = envs["tenhou" if number % 2 == 0 else "mahjong_soul"]
        env.reset(seed=number)
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            steps += 1
        if any("illegal" in info for info in env.infos.values()):
            raise AssertionError(f"game {number}: a legal action was refused")
    wall = time.perf_counter() - start
    return {"games": games, "steps": steps, "wall_s": wall, "steps_per_s": steps / wall}


def main() -> None:
    """Print both measures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--step-games", type=int, default=20,
                        help="random games replayed for the per-step measure")
    parser.add_argument("--games", type=int, default=1000, help="games of the rollout")
    parser.add_argument("--quick", action="store_true", help="5 and 20 games")
    args = parser.parse_args()
    if args.quick:
        args.step_games, args.games = 5, 20
    for game in ("east", "south"):
        r = per_step(args.step_games, game)
        print(f"per step, {game} games ({r['decisions']:.0f} decisions): env "
              f"{r['env_step_us']:.1f} us, bare engine {r['engine_step_us']:.1f} us, "
              f"ratio {r['ratio']:.2f}")
    r = rollout(args.games)
    print(f"rollout: {r['games']} random-legal east games, {r['steps']} steps, "
          f"{r['wall_s']:.1f} s wall ({r['steps_per_s']:.0f} steps/s), no error")


if __name__ == "__main__":
    main()
