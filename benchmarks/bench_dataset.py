"""``referee dataset``: decisions written per second, and memory that stays flat in the
number of games.

Makes ``--games`` Gomoku games of random legal moves (15x15 freestyle, through the
environment), writes them as record files (``game-NNNNN.json``) in a temporary folder,
then runs ``write_dataset`` on them in a child process, timing it and reading the child's
peak memory (ru_maxrss). The same again with ten times the games: the issue's target is
the same peak within 10 %, and at least 50,000 decisions a second for Gomoku.

With ``--old REV`` it times instead this tree's ``write_dataset`` and that of revision
``REV`` (a temporary git worktree) in turn, ``--rounds`` times each, on the same
``--games`` games: the ratio of the two in the same run, on the same machine.

Run: ``.venv/bin/python benchmarks/bench_dataset.py [--games 1000] [--old REV [--rounds 3]]
[--json]``.
"""

from __future__ import annotations

import argparse
import os
import platform
from pathlib import Path

import numpy as np
from dataset_runs import against_old, play_random, small_and_large
from figures import print_figures

from referee.core.outcome import Outcome
from referee.core.record import GameRecord, PlayerInfo
from referee.envs import make


def make_games(folder: Path, count: int, seed: int) -> None:
    """``count`` random legal Gomoku games as record files in ``folder``."""
    env = make("gomoku", size=15)
    rng = np.random.default_rng(seed)
    for index in range(count):
        record = GameRecord("gomoku", [PlayerInfo("a"), PlayerInfo("b")],
                            settings={"width": 15, "height": 15, "rule": "freestyle"},
                            index=index + 1)

        def played(seat: int, action: int, record: GameRecord = record) -> None:
            y, x = divmod(action, 15)
            record.add_move(seat, f"{x},{y}", 0.0)

        play_random(env, rng, seed * 1_000_003 + index, played)
        record.scores = [float(s) for s in env.engine.scores()]
        record.outcome = Outcome.NORMAL
        record.write(folder / f"game-{index + 1:05d}.json")


def main() -> None:
    """Measure both sizes and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--old", metavar="REV", help="time against revision REV instead")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each, with --old")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict[str, object] = {"machine": f"{platform.machine()}, {os.cpu_count()} cores",
                                 "python": platform.python_version(),
                                 "load": round(os.getloadavg()[0], 2)}
    if args.old:
        result.update(against_old("gomoku", make_games, args.games, args.old, args.rounds))
    else:
        result.update(small_and_large("gomoku", make_games, args.games))
    result["load after"] = round(os.getloadavg()[0], 2)
    print_figures(result, args.json)


if __name__ == "__main__":
    main()
