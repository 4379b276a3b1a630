"""Wall time of the real ``referee ratings FILE`` command, start-up included, on random PGN
files of 30 players / 3,000 games, 200 / 20,000 and 1,000 / 100,000 (issue 25's sizes).

The PGN files are made first (a fixed seed per size, in a temporary folder unless ``--keep``):

* each player has a hidden strength ``s ~ N(0, 250)`` Elo;
* each game pairs two different players drawn uniformly at random, the first drawn is
  White (no colour balancing);
* the game is a draw with probability 0.3, whatever the players; otherwise White wins with
  probability ``1 / (1 + 10^((s_black - s_white) / 400))`` (the Elo logistic, no
  first-move advantage), else Black wins. So White's expected score is
  ``0.15 + 0.7 * that probability``;
* each game is written as ``referee`` writes result-only PGN: the tags Event, Site, Date,
  Round, White, Black, Result, a blank line, the result, a blank line.

Then ``referee ratings FILE`` (the console script beside this interpreter, that is the
venv's; default settings: BayesElo's ``mm``, ``exactdist``, covariance and LOS) is run as
a child process ``--repeat`` times per size (default 5), its output read through a pipe and
thrown away. The children run without ``PYTHONDONTWRITEBYTECODE`` (some shells of this
project's machines set it), so that a first, untimed run of each case leaves the bytecode
caches an installed program has (pip writes them at install time); otherwise every start
compiles the package's modules again (tens of milliseconds of an editable install's start).
The sizes and two baselines are run in turns (round 1 of each, then round 2...) so that a
change of the machine's load hits all of them alike:

* ``python -c pass``: the interpreter's own start-up;
* ``python -c "import referee.cli"``: the start-up of the command line's package (what every
  ``referee`` command pays before it reads an argument);
* ``python -c "import click, numpy"`` with one OpenBLAS thread (as ``referee ratings`` runs
  numpy): the libraries the command cannot do without, the least it could take.

Figures: for each, the median, min and max wall time of the runs, the median CPU time of the
child (user + system), and the ratio of each median to the two baselines; the load average
before and after. ``--old REF`` also times the ``ratings`` command of git revision ``REF``
(a temporary detached worktree of this repository, run on this interpreter with its ``src``
first on ``PYTHONPATH``, the way the console script calls it) in the same turns.

The C++ bayeselo is not installed here; docs/benchmarks.md quotes issue 25's figures for it.

Run: ``.venv/bin/python benchmarks/bench_ratings_cli.py [--repeat 5] [--sizes 30x3000,...]
[--old main] [--keep DIR] [--json]``
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from figures import print_figures

REPO = Path(__file__).resolve().parent.parent
STRENGTH_SD = 250.0
DRAWS = 0.3
SIZES = ((30, 3_000), (200, 20_000), (1_000, 100_000))
OLD_MAIN = ("import sys; from referee.cli import main; sys.argv[0] = 'referee'; "
            "sys.exit(main())")


def write_pgn(path: Path, players: int, games: int, seed: int) -> None:
    """A PGN file of ``games`` random results between ``players`` players (the model of
    the module's docstring)."""
    rng = random.Random(seed)
    strength = [rng.gauss(0.0, STRENGTH_SD) for _ in range(players)]
    width = len(str(players))
    names = [f"Player{i:0{width}d}" for i in range(1, players + 1)]
    chunks = []
    for number in range(1, games + 1):
        white = rng.randrange(players)
        black = (white + rng.randrange(1, players)) % players
        if rng.random() < DRAWS:
            result = "1/2-1/2"
        else:
            p_white = 1.0 / (1.0 + math.pow(10.0, (strength[black] - strength[white]) / 400.0))
            result = "1-0" if rng.random() < p_white else "0-1"
        chunks.append(f'[Event "bench"]\n[Site "?"]\n[Date "2026.01.01"]\n'
                      f'[Round "{number}"]\n[White "{names[white]}"]\n'
                      f'[Black "{names[black]}"]\n[Result "{result}"]\n\n{result}\n\n')
    path.write_text("".join(chunks), encoding="utf-8")


def run_once(argv: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one child process; it must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): "
                         f"{done.stderr.decode(errors='replace')[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def old_worktree(ref: str, folder: Path) -> Path:
    """A detached worktree of ``ref`` in ``folder`` (removed by :func:`drop_worktree`)."""
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "--quiet",
                    str(folder), ref], check=True)
    return folder


def drop_worktree(folder: Path) -> None:
    """Remove a worktree made by :func:`old_worktree`."""
    subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(folder)],
                   check=False)


def summary(runs: list[tuple[float, float]]) -> dict[str, float]:
    """Median, min and max wall time and median CPU time of some runs."""
    walls = [w for w, _ in runs]
    return {"median_s": statistics.median(walls), "min_s": min(walls), "max_s": max(walls),
            "cpu_median_s": statistics.median(c for _, c in runs)}


def measure(sizes: Sequence[tuple[int, int]], repeat: int, folder: Path,
            old: Path | None) -> dict[str, object]:
    """Make the files, run every case ``repeat`` times in turns, return the figures."""
    python = sys.executable
    referee = str(Path(python).parent / "referee")
    cases: dict[str, tuple[list[str], dict[str, str] | None]] = {
        "python -c pass": ([python, "-c", "pass"], None),
        "python -c 'import referee.cli'": ([python, "-c", "import referee.cli"], None),
        "python -c 'import click, numpy'": ([python, "-c", "import click, numpy"], None),
    }
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for name in cases:
        cases[name] = (cases[name][0], env)
    floor = "python -c 'import click, numpy'"
    cases[floor] = (cases[floor][0], {**env, "OPENBLAS_NUM_THREADS": "1"})
    old_env = None
    if old is not None:
        old_env = {**env, "PYTHONPATH": str(old / "src")}
    for players, games in sizes:
        pgn = folder / f"random_{players}p_{games}g.pgn"
        if not pgn.exists():
            write_pgn(pgn, players, games, seed=players * 7919 + games)
        cases[f"{players}/{games}"] = ([referee, "ratings", str(pgn)], env)
        if old_env is not None:
            cases[f"{players}/{games} old"] = ([python, "-c", OLD_MAIN, "ratings", str(pgn)],
                                               old_env)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    load_before = os.getloadavg()
    for argv, env in cases.values():  # warm the page cache and the bytecode caches
        run_once(argv, env)
    for _ in range(repeat):
        for name, (argv, env) in cases.items():
            runs[name].append(run_once(argv, env))
    load_after = os.getloadavg()
    figures = {name: summary(found) for name, found in runs.items()}
    bare = figures["python -c pass"]["median_s"]
    package = figures["python -c 'import referee.cli'"]["median_s"]
    for row in figures.values():
        row["x_python"] = row["median_s"] / bare
        row["x_import"] = row["median_s"] / package
    return {"python": sys.version.split()[0], "machine": platform.machine(),
            "cpus": os.cpu_count(), "repeat": repeat,
            "load_before": [round(x, 2) for x in load_before],
            "load_after": [round(x, 2) for x in load_after], "cases": figures}


def parse_sizes(text: str) -> list[tuple[int, int]]:
    """``30x3000,200x20000`` -> ``[(30, 3000), (200, 20000)]``."""
    sizes = []
    for part in text.split(","):
        players, _, games = part.partition("x")
        sizes.append((int(players), int(games)))
    return sizes


def main() -> None:
    """Make the files, time the command, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs of each case")
    parser.add_argument("--sizes", type=parse_sizes,
                        default=list(SIZES), help="players x games, comma-separated")
    parser.add_argument("--old", metavar="REF", help="also time git revision REF")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="make (or reuse) the PGN files in DIR and keep them")
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-ratings-") as temp:
        folder = args.keep or Path(temp)
        folder.mkdir(parents=True, exist_ok=True)
        old = old_worktree(args.old, Path(temp) / "old") if args.old else None
        try:
            result = measure(args.sizes, args.repeat, folder, old)
        finally:
            if old is not None:
                drop_worktree(old)
    if args.json:
        print_figures(result, True)
        return
    cases = result.pop("cases")
    print_figures(result, False)
    assert isinstance(cases, dict)
    print(f"{'case':<34} {'median':>8} {'min':>8} {'max':>8} {'cpu':>8} "
          f"{'x python':>9} {'x import':>9}")
    for name, row in cases.items():
        print(f"{name:<34} {row['median_s']:8.3f} {row['min_s']:8.3f} {row['max_s']:8.3f} "
              f"{row['cpu_median_s']:8.3f} {row['x_python']:9.1f} {row['x_import']:9.2f}")


if __name__ == "__main__":
    main()
