"""Speed of the kanachan annotation of Riichi logs, per core, against the replay alone.

The corpus: the five whole real games in ``tests/data/riichi`` (four Tenhou houou mjlog
files and one Tenhou JSON game: 3,005 decision points) and ``--selfplay`` games of four
greedy bots written as mjai logs. All in the same process, after a warm-up, best of
``--rounds``:

* baseline: :func:`~referee.games.riichi.replay.verify_log` alone on the parsed events (the
  replay every annotation needs, with its checks);
* annotate: :func:`~referee.training.annotate.annotate_game` on the parsed events (the
  replay plus the features of every decision point): decision points per second and the
  ratio of its time to the baseline's;
* files: :func:`~referee.training.logs.annotate_logs` over the log files (reading and
  parsing them too, writing a gzip file), one process: points per second.

Run: ``.venv/bin/python benchmarks/bench_annotate.py [--selfplay 20] [--rounds 3] [--json]``
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

from figures import print_figures

from referee.games.riichi.replay import load_log, verify_log
from referee.training.annotate import Context, annotate_game
from referee.training.logs import annotate_logs
from referee.training.selfplay import selfplay

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "riichi"
REAL = ["2010091009gm-00a9-0000-83af2648.mjlog", "kan4.mjlog", "nm.mjlog", "yao9.mjlog",
        "tenhou6/ranked_game.json"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--selfplay", type=int, default=20, help="self-play games added")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        files = [DATA / name for name in REAL]
        if args.selfplay:
            records = Path(folder) / "selfplay"
            selfplay(args.selfplay, Path(folder) / "sp.txt", seed=1, records=records)
            files += sorted(records.iterdir())
        logs = [load_log(path) for path in files]
        points = sum(len(annotate_game(log.events, "warm", Context(), log.rules))
                     for log in logs)
        best_replay = best_annotate = best_files = float("inf")
        for _ in range(args.rounds):
            start = time.perf_counter()
            for log in logs:
                verify_log(log.events, log.rules)
            best_replay = min(best_replay, time.perf_counter() - start)
            start = time.perf_counter()
            for log in logs:
                annotate_game(log.events, "bench", Context(), log.rules)
            best_annotate = min(best_annotate, time.perf_counter() - start)
            start = time.perf_counter()
            summary = annotate_logs(files, Path(folder) / "out.txt.gz")
            best_files = min(best_files, time.perf_counter() - start)
            assert summary.points == points and not summary.skipped
    print_figures({
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                   f"{platform.python_version()}",
        "load_average": round(os.getloadavg()[0], 2),
        "games": len(logs),
        "decision_points": points,
        "replay_points_per_s": round(points / best_replay),
        "annotate_points_per_s": round(points / best_annotate),
        "annotate_to_replay_time_ratio": round(best_annotate / best_replay, 2),
        "files_points_per_s": round(points / best_files),
    }, args.json)


if __name__ == "__main__":
    main()
