"""What the dataset benchmarks share: random legal games played through an environment
(``play_random``, to make the games a dataset is made from), and ``write_dataset`` timed
in a child process (so its peak memory, ``ru_maxrss``, is its own), on a folder of games
and on one ten times as large, or against an older revision's in the same run.

The scripts import it as ``dataset_runs`` (they run as ``python benchmarks/bench_*.py``,
which puts this folder first on the path).
"""

from __future__ import annotations

import json
import os
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
import time
began = time.perf_counter()
import json, resource, sys
from pathlib import Path
import referee
from referee.games.registry import game_data
from referee.training.dataset import write_dataset
from referee.training.dataset_sources import dataset_records
data = game_data(sys.argv[3])
start, cpu = time.perf_counter(), time.process_time()
summary = write_dataset(data, dataset_records([Path(sys.argv[1])], data), Path(sys.argv[2]))
seconds = time.perf_counter() - start
print(json.dumps({"rows": summary.rows, "games": summary.games, "seconds": seconds,
                  "cpu_seconds": time.process_time() - cpu,
                  "whole_seconds": time.perf_counter() - began,
                  "skipped": len(summary.skipped), "pandas": "pandas" in sys.modules,
                  "package": referee.__file__,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""
"""``seconds`` times ``write_dataset`` (the game's modules imported before, pyarrow
within, at the first batch), ``cpu_seconds`` the CPU time it took (less swayed by other
work on a shared machine); ``whole_seconds`` the child from its start, imports and all,
as a user's run of ``referee dataset`` counts them."""


def write_in_child(game: str, source: Path, out: Path, src: Path | None = None
                   ) -> dict[str, Any]:
    """``write_dataset`` of ``game`` from ``source`` into ``out``, in a child process
    (with the package under ``src``, if given): rows, games, seconds, skipped games,
    whether pandas was imported and peak MB."""
    env = None if src is None else dict(os.environ, PYTHONPATH=str(src),
                                        PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run([sys.executable, "-c", CHILD, str(source), str(out), game],
                          capture_output=True, text=True, check=True, env=env)
    figures: dict[str, Any] = json.loads(done.stdout)
    if src is not None and not str(figures["package"]).startswith(str(src)):
        raise SystemExit(f"the child ran {figures['package']}, not the code in {src}")
    return figures


def against_old(game: str, make_games: Callable[[Path, int, int], None], games: int,
                old: str, rounds: int) -> dict[str, object]:
    """``write_dataset`` of ``games`` games by this tree and by revision ``old`` (checked
    out in a temporary git worktree), one after the other ``rounds`` times on the same
    folder of games, so that both see the same machine: each run's decisions/s (of
    ``write_dataset``, per second and per CPU second, and of the whole child, imports
    included), whether pandas was imported, and the ratios of the medians."""
    repo = Path(__file__).resolve().parent.parent
    result: dict[str, object] = {"old": old}
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        folder = root / "games"
        folder.mkdir()
        make_games(folder, games, 1)
        tree = root / "old"
        subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", "-q",
                        str(tree), old], check=True)
        runs: dict[str, list[dict[str, Any]]] = {"new": [], "old": []}
        try:
            for turn in range(rounds):
                for name, src in (("new", None), ("old", tree / "src")):
                    out = root / f"{name}-{turn}.ds"
                    runs[name].append(write_in_child(game, folder, out, src))
        finally:
            subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force",
                            str(tree)], check=True)
    for name, figures in runs.items():
        if any(f["skipped"] for f in figures):
            raise SystemExit(f"{game} ({name}): games skipped")
        result[f"{name} decisions"] = figures[0]["rows"]
        result[f"{name} decisions/s"] = [round(f["rows"] / f["seconds"]) for f in figures]
        result[f"{name} decisions/CPU s"] = [round(f["rows"] / f["cpu_seconds"])
                                             for f in figures]
        result[f"{name} decisions/s, whole run"] = [round(f["rows"] / f["whole_seconds"])
                                                    for f in figures]
        result[f"{name} imports pandas"] = figures[0]["pandas"]
    for key in ("decisions/s", "decisions/CPU s", "decisions/s, whole run"):
        new = float(np.median(result[f"new {key}"]))  # type: ignore[arg-type]
        old_rate = float(np.median(result[f"old {key}"]))  # type: ignore[arg-type]
        result[f"new/old {key} (medians)"] = round(new / old_rate, 2)
    return result


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
