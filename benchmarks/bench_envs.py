"""The PettingZoo environments (``referee.envs``): random legal games, and what one step of
the environment costs next to the bare engine's work for the same move.

For each game: ``--games`` games where every seat plays a random legal action (drawn from
the action mask), timing ``env.last()`` (observation and mask) plus ``env.step()``. The
baseline, in the same run: as many random legal games on the bare engine, dealt from the
same seeds, timing what a program playing on the engine alone does for a move: list the
legal actions, then play one as the referee's match loop does (``illegal_reason``,
``apply``, ``to_play``). The issue's target: the environment's step at most 2x that. A
second, stricter baseline: the same moves replayed on the engine with no listing of legal
actions at all (the engine's own work for a move, the least any player needs).

Run: ``.venv/bin/python benchmarks/bench_envs.py [--games 1000] [--only gomoku] [--json]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from figures import print_figures

from referee.envs import GAMES, make

OPTIONS: dict[str, dict[str, Any]] = {"gomoku": {"size": 15}, "riichi": {"game": "east"}}
"""Options per game (others: their defaults)."""


def rollout(env: Any, seed: int, rng: np.random.Generator) -> tuple[list[int], float, int]:
    """One random legal game: its actions, the seconds spent in the environment, steps."""
    env.reset(seed=seed)
    actions: list[int] = []
    spent = 0.0
    steps = 0
    for _agent in env.agent_iter():
        start = time.perf_counter()
        observation, _, terminated, truncated, _ = env.last()
        spent += time.perf_counter() - start
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        start = time.perf_counter()
        env.step(action)
        spent += time.perf_counter() - start
        actions.append(action)
        steps += 1
    return actions, spent, steps


def replay(env: Any, name: str, seed: int, actions: list[int]) -> float:
    """The seconds the bare engine takes to play the same game's moves as the referee's
    match loop does (``illegal_reason``, ``apply``, ``to_play``), nothing else."""
    env.reset(seed=seed)
    engine = env.engine
    decoded = []
    for action in actions:  # decoded beforehand: not the engine's work
        seat = engine.to_play()
        move = env.game.action(engine, seat, action)
        decoded.append((seat, move))
        engine.apply(seat, move)
    engine = bare_engine(env, name, seed)
    start = time.perf_counter()
    for seat, move in decoded:
        assert engine.to_play() == seat
        assert engine.illegal_reason(seat, move) is None
        engine.apply(seat, move)
    return time.perf_counter() - start


def gomoku_legal(engine: Any, seat: int) -> list[Any]:
    """Gomoku's legal moves as a program on the bare engine lists them."""
    from referee.games.gomoku.game import Move

    return [Move(x, y) for x, y in engine.board.empty_points()]


LEGAL: dict[str, Callable[[Any, int], list[Any]]] = {
    "gomoku": gomoku_legal,
    "riichi": lambda engine, seat: engine.game.legal_actions(seat),  # (the env's wrapper)
    "planowanie": lambda engine, seat: engine.legal_actions(),
    "mahjong": lambda engine, seat: engine.hand.legal_actions(),
}
"""How a random player on the bare engine lists its legal actions, per game (by default
the engine's ``legal_actions(seat)``)."""


def bare_planowanie(env: Any) -> Any:
    """The referee's Planowanie engine dealt as the environment's game (whose engine keeps
    every seat's observation up to date as it plays: work of the environment)."""
    from referee.games.planowanie.rules import PlanowanieGame

    return PlanowanieGame(env.game.rules, env.engine.seed)


def bare_mahjong(env: Any) -> Any:
    """The referee's Mahjong game with the environment's walls."""
    from referee.games.mahjong.game import MahjongGame

    return MahjongGame(env.engine.seed, env.game.rules)


BARE: dict[str, Callable[[Any], Any]] = {"planowanie": bare_planowanie,
                                         "mahjong": bare_mahjong}
"""The bare engine of the environment's game just reset, per game where the environment's
engine does more than the referee's (by default the environment's engine itself)."""


def bare_engine(env: Any, name: str, seed: int) -> Any:
    """The bare engine of game ``seed``, dealt as the environment deals it."""
    env.reset(seed=seed)
    return BARE[name](env) if name in BARE else env.engine


def bare_game(env: Any, name: str, seed: int, rng: np.random.Generator) -> tuple[float, int]:
    """A random legal game on the bare engine (dealt as the environment deals it): the
    seconds spent listing the legal actions and playing one as the referee does
    (``illegal_reason``, ``apply``, ``to_play``), and the moves."""
    engine = bare_engine(env, name, seed)
    legal = LEGAL.get(name) or (lambda e, s: e.legal_actions(s))
    spent = 0.0
    moves = 0
    start = time.perf_counter()
    while (seat := engine.to_play()) is not None:
        actions = legal(engine, seat)
        spent += time.perf_counter() - start
        action = actions[int(rng.integers(len(actions)))]
        start = time.perf_counter()
        assert engine.illegal_reason(seat, action) is None
        engine.apply(seat, action)
        moves += 1
    spent += time.perf_counter() - start
    return spent, moves


def measure(name: str, games: int) -> dict[str, object]:
    """Figures of one game's environment."""
    env = make(name, **OPTIONS.get(name, {}))
    rng = np.random.default_rng(1)
    env_seconds = bare_seconds = 0.0
    steps = 0
    wall = time.perf_counter()
    bare_moves = 0
    moves_seconds = 0.0
    for index in range(games):
        actions, spent, played = rollout(env, index, rng)
        env_seconds += spent
        steps += played
        moves_seconds += replay(env, name, index, actions)
        spent, played = bare_game(env, name, index, rng)
        bare_seconds += spent
        bare_moves += played
    wall = time.perf_counter() - wall
    return {
        f"{name} games": games,
        f"{name} steps": steps,
        f"{name} wall s": round(wall, 2),
        f"{name} env step us": round(env_seconds / steps * 1e6, 1),
        f"{name} bare random player move us": round(bare_seconds / bare_moves * 1e6, 1),
        f"{name} ratio to the bare random player": round(
            env_seconds / steps / (bare_seconds / bare_moves), 2),
        f"{name} engine move alone us": round(moves_seconds / steps * 1e6, 1),
        f"{name} ratio to the engine move alone": round(env_seconds / moves_seconds, 2),
    }


def main() -> None:
    """Measure every game's environment (or ``--only`` one) and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--only", choices=GAMES)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--pettingzoo", action="store_true",
                        help="Also run PettingZoo's own performance_benchmark (5 s a game).")
    args = parser.parse_args()
    result: dict[str, object] = {"machine": f"{platform.machine()}, {os.cpu_count()} cores",
                                 "python": platform.python_version()}
    for name in [args.only] if args.only else GAMES:
        result.update(measure(name, args.games))
        if args.pettingzoo:
            result[f"{name} pettingzoo turns/s"] = pettingzoo_turns(name)
    print_figures(result, args.json)


def pettingzoo_turns(name: str) -> int:
    """Turns a second by PettingZoo's ``performance_benchmark`` (it prints them)."""
    import contextlib
    import io

    from pettingzoo.test import performance_benchmark

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        performance_benchmark(make(name, **OPTIONS.get(name, {})))
    line = next(t for t in printed.getvalue().splitlines() if t.endswith("turns per second"))
    return round(float(line.split()[0]))


if __name__ == "__main__":
    main()
