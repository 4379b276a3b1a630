"""The environments' copies for search (``referee.envs``): what ``state()``, ``restore()``
and ``clone()`` cost, at positions of random legal games.

For each game: ``--games`` games of random legal actions; at every ``--every``-th step,
each of the three is timed (the median of 20 calls there). The figures are the medians
over all those positions, in microseconds, and the positions' count.

Run: ``.venv/bin/python benchmarks/bench_env_copies.py [--games 20] [--every 10] [--json]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import timeit
from typing import Any

import numpy as np
from figures import print_figures

from referee.envs import GAMES, make

OPTIONS: dict[str, dict[str, Any]] = {"gomoku": {"size": 15}, "riichi": {"game": "east"}}
"""Options per game (others: their defaults)."""


def timed(call: Any) -> float:
    """The median of 20 calls of ``call``, in microseconds."""
    return statistics.median(timeit.repeat(call, number=1, repeat=20)) * 1e6


def measure(name: str, games: int, every: int) -> dict[str, object]:
    """The medians of ``state``, ``restore`` and ``clone`` over the positions of ``games``
    random games of ``name``."""
    env = make(name, **OPTIONS.get(name, {}))
    rng = np.random.default_rng(1)
    figures: dict[str, list[float]] = {"state": [], "restore": [], "clone": []}
    for seed in range(games):
        env.reset(seed=seed)
        for step, agent in enumerate(env.agent_iter()):
            _, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if step % every == 0:
                state = env.state()
                figures["state"].append(timed(env.state))
                figures["restore"].append(timed(lambda state=state: env.restore(state)))
                figures["clone"].append(timed(env.clone))
            legal = np.flatnonzero(env.observe(agent)["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
    result: dict[str, object] = {f"{name} positions": len(figures["state"])}
    for what, values in figures.items():
        result[f"{name} {what} us"] = round(statistics.median(values), 1)
    return result


def main() -> None:
    """Measure every game and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict[str, object] = {"machine": f"{platform.machine()}, {os.cpu_count()} cores",
                                 "python": platform.python_version(),
                                 "load": round(os.getloadavg()[0], 2)}
    for name in GAMES:
        result.update(measure(name, args.games, args.every))
    print_figures(result, args.json)


if __name__ == "__main__":
    main()
