"""What the dataset benchmarks share: random legal games played through an environment
(``play_random``, to make the games a dataset is made from), and ``write_dataset`` timed
in a child process (so its peak memory, ``ru_maxrss``, is its own), on a folder of games
and on one ten times as large.

The scripts import it as ``dataset_runs`` (they run as ``python benchmarks/bench_*.py``,
which puts this folder first on the path).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np


def play_random(env: Any, rng: np.random.Generator, seed: int,
                played: Callable[[int, int], None]) -> None:
    """One game of ``env`` (a PettingZoo AEC environment, reset with ``seed``) where every
    agent plays a random action its mask allows; ``played(seat, action)`` is told each one
    before it is played."""
    env.reset(seed=seed)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        played(env.possible_agents.index(agent), action)
        env.step(action)


CHILD = """
import json, resource, sys, time
from pathlib import Path
from referee.games.registry import game_data
from referee.training.dataset import write_dataset
from referee.training.dataset_sources import dataset_records
data = game_data(sys.argv[3])
start = time.perf_counter()
summary = write_dataset(data, dataset_records([Path(sys.argv[1])], data), Path(sys.argv[2]))
seconds = time.perf_counter() - start
print(json.dumps({"rows": summary.rows, "games": summary.games, "seconds": seconds,
                  "skipped": len(summary.skipped),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def write_in_child(game: str, source: Path, out: Path) -> dict[str, float]:
    """``write_dataset`` of ``game`` from ``source`` into ``out``, in a child process:
    rows, games, seconds, skipped games and peak MB."""
    done = subprocess.run([sys.executable, "-c", CHILD, str(source), str(out), game],
                          capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout))


def small_and_large(game: str, make_games: Callable[[Path, int, int], None], games: int,
                    prefix: str = "") -> dict[str, object]:
    """Figures of ``games`` games and of ten times as many (``make_games(folder, count,
    seed)`` writes them), each key starting with ``prefix``; a skipped game stops the
    benchmark (its figures would not be the game's)."""
    result: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        for name, count, seed in (("small", games, 1), ("large", games * 10, 2)):
            folder = root / name
            folder.mkdir()
            make_games(folder, count, seed)
            figures = write_in_child(game, folder, root / f"{name}.ds")
            if figures["skipped"]:
                raise SystemExit(f"{game}: {figures['skipped']} games skipped")
            result[f"{prefix}{name} games"] = figures["games"]
            result[f"{prefix}{name} decisions"] = figures["rows"]
            result[f"{prefix}{name} decisions/s"] = round(figures["rows"] / figures["seconds"])
            result[f"{prefix}{name} peak MB"] = round(figures["peak_mb"], 1)
    result[f"{prefix}peak ratio large/small"] = round(
        float(result[f"{prefix}large peak MB"])  # type: ignore[arg-type]
        / float(result[f"{prefix}small peak MB"]), 3)  # type: ignore[arg-type]
    return result
