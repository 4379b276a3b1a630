"""Speed of the kanachan annotation of Riichi logs, per core, against the replay alone.

The corpus: the five whole real games in ``tests/data/riichi`` (four Tenhou houou mjlog
files and one Tenhou JSON game: 3,073 lines as kanachan writes them, the default; 3,005
with ``--no-kanachan-exact``'s real choices only) and ``--selfplay`` games of four
greedy bots written as mjai logs. All in one process, after a warm-up, best of
``--rounds``:

* baseline: :func:`~referee.games.riichi.replay.verify_log` alone on the parsed events (the
  replay every annotation needs, with its checks);
* annotate: :func:`~referee.games.riichi.kanachan.annotate.annotate_game` on the parsed
  events (the replay plus the features of every decision point): decision points per
  second and the ratio of its time to the baseline's;
* files: :func:`~referee.games.riichi.kanachan.logs.annotate_logs` over the log files
  (reading and parsing them too, writing a gzip file), one process: points per second.
  The mjai reader remembers lines from file to file; it forgets them before each round,
  so that every round reads its files as new ones (draws and discards still repeat
  within the round).

With ``--compiled DIR`` (a folder holding the package built with ``REFEREE_COMPILE=1``,
see ``docs/training.md``) the same figures are measured twice in the same run, each in
its own process: the pure-Python package of this checkout, then the compiled one; the
ratios of the compiled figures to the pure ones come last. Without it, the figures are
those of whichever package ``import referee`` finds.

Run: ``.venv/bin/python benchmarks/bench_annotate.py [--selfplay 20] [--rounds 3]
[--compiled DIR] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from figures import machine, print_figures

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "riichi"
REAL = ["2010091009gm-00a9-0000-83af2648.mjlog", "kan4.mjlog", "nm.mjlog", "yao9.mjlog",
        "tenhou6/ranked_game.json"]
SPEEDS = ["replay_points_per_s", "annotate_points_per_s", "files_points_per_s"]


def corpus_files(folder: Path, selfplay_games: int) -> list[Path]:
    """The real games' files, and ``selfplay_games`` self-play games written as mjai logs
    into ``folder``."""
    from referee.games.riichi.kanachan.selfplay import selfplay

    files = [DATA / name for name in REAL]
    if selfplay_games:
        records = folder / "selfplay"
        selfplay(selfplay_games, folder / "sp.txt", seed=1, records=records)
        files += sorted(records.iterdir())
    return files


def measure(selfplay_games: int, rounds: int) -> dict[str, Any]:
    """The figures of the package ``import referee`` finds in this process."""
    from referee.games.riichi import mjai, rules
    from referee.games.riichi.kanachan.annotate import Context, annotate_game
    from referee.games.riichi.kanachan.logs import annotate_logs
    from referee.games.riichi.replay import load_log, verify_log

    with tempfile.TemporaryDirectory() as folder:
        files = corpus_files(Path(folder), selfplay_games)
        logs = [load_log(path) for path in files]
        points = sum(len(annotate_game(log.events, "warm", Context(), log.rules))
                     for log in logs)
        best_replay = best_annotate = best_files = float("inf")
        for _ in range(rounds):
            start = time.perf_counter()
            for log in logs:
                verify_log(log.events, log.rules)
            best_replay = min(best_replay, time.perf_counter() - start)
            start = time.perf_counter()
            for log in logs:
                annotate_game(log.events, "bench", Context(), log.rules)
            best_annotate = min(best_annotate, time.perf_counter() - start)
            mjai._SEEN.clear()  # as on files never read before (see the notes above)
            start = time.perf_counter()
            summary = annotate_logs(files, Path(folder) / "out.txt.gz")
            best_files = min(best_files, time.perf_counter() - start)
            assert summary.points == points and not summary.skipped
    return {
        "compiled": not rules.__file__.endswith(".py"),
        "games": len(logs),
        "decision_points": points,
        "replay_points_per_s": round(points / best_replay),
        "annotate_points_per_s": round(points / best_annotate),
        "annotate_to_replay_time_ratio": round(best_annotate / best_replay, 2),
        "files_points_per_s": round(points / best_files),
    }


def measure_in(package_path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """:func:`measure` in a new process that imports ``referee`` from ``package_path``."""
    env = dict(os.environ, PYTHONPATH=str(package_path))
    out = subprocess.run(
        [sys.executable, __file__, "--selfplay", str(args.selfplay), "--rounds",
         str(args.rounds), "--json"], env=env, cwd=ROOT / "benchmarks", check=True,
        capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--selfplay", type=int, default=20, help="self-play games added")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--compiled", type=Path, default=None,
                        help="a folder with the compiled package: compare it with this "
                             "checkout's pure-Python one")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    head = {"machine": machine()}
    if args.compiled is None:
        result = measure(args.selfplay, args.rounds)
        print_figures({**head, "load_average": round(os.getloadavg()[0], 2), **result},
                      args.json)
        return
    pure = measure_in(ROOT / "src", args)
    compiled = measure_in(args.compiled.resolve(), args)
    if pure["compiled"] or not compiled["compiled"]:
        raise SystemExit(f"{args.compiled}: not a compiled build of referee (see "
                         "docs/training.md), or this checkout's src is compiled")
    figures: dict[str, Any] = {**head, "load_average": round(os.getloadavg()[0], 2),
                               "games": pure["games"],
                               "decision_points": pure["decision_points"]}
    for label, result in (("pure", pure), ("compiled", compiled)):
        for key in [*SPEEDS, "annotate_to_replay_time_ratio"]:
            figures[f"{label}_{key}"] = result[key]
    for key in SPEEDS:
        figures[f"compiled_to_pure_{key.removesuffix('_points_per_s')}"] = round(
            compiled[key] / pure[key], 2)
    print_figures(figures, args.json)


if __name__ == "__main__":
    main()
