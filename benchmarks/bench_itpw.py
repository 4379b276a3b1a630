"""An ITPW tournament at full length: 12 player programs, 100 rounds, killed and resumed.

Writes a tournament file (4 heuristic and 8 random built-in players, 100 rounds, 10
random rounds, 400 MB and a 3-minute game clock per program), starts ``referee
tournament`` as a process of its own, kills it with SIGKILL once ``--kill-at`` games are
done, then runs the same command again to the end. Reports the games, wall time, games per
second, the referee process's peak memory (VmHWM, sampled every 50 ms in both runs; the
players are not counted) and the final rating list. The baseline is the same games'
count times the wall time of one game played alone (``play_planowanie``), so the ratio
shows what concurrency and the tournament machinery give.

Run: ``.venv/bin/python benchmarks/bench_itpw.py`` (``--rounds``, ``-j``, ``--kill-at``,
``--keep DIR``, ``--json``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import machine, print_figures

from referee.core.players import PlayerSpec, builtin_command
from referee.games.planowanie.match import BUILTIN_PLAYERS, PlanowanieSettings, play_planowanie
from referee.tournament.store import Store


def tournament_file(folder: Path, rounds: int) -> Path:
    """The tournament: 4 heuristic and 8 random players."""
    lines = ['name = "itpw-bench"', 'game = "planowanie"', "seed = 7", "standings_every = 1000",
             "[schedule]", 'kind = "itpw"', f"rounds = {rounds}", "random_rounds = 10",
             "[settings]", "time = 180000", "memory = 400"]
    for k in range(1, 13):
        kind = "heuristic" if k <= 4 else "random"
        lines += ["[[players]]", f'name = "{kind[0]}{k}"', f'builtin = "{kind}"']
    path = folder / "itpw-bench.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def done(out: Path) -> int:
    """Finished games in the store (read-only)."""
    return Store.peek_done(out)


def command(path: Path, out: Path, jobs: int) -> list[str]:
    """The referee command line."""
    return [sys.executable, "-m", "referee.cli", "tournament", str(path), "--out", str(out),
            "-j", str(jobs)]


def peak_kb(pid: int) -> int:
    """The process's peak resident memory so far (VmHWM), 0 if it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def one_game_wall(repeat: int = 3) -> float:
    """Wall seconds of one game played alone."""
    players = [PlayerSpec(f"r{k}", builtin_command(BUILTIN_PLAYERS["random"]))
               for k in range(4)]
    times = []
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(repeat):
            start = time.perf_counter()
            play_planowanie(players, PlanowanieSettings(), seed, Path(folder))
            times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def main() -> None:
    """Run, kill, resume, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--kill-at", type=int, default=400)
    parser.add_argument("--keep", type=Path, help="run in this folder and keep the output")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    single = one_game_wall()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        path = tournament_file(folder, args.rounds)
        out = folder / "out"
        start = time.perf_counter()
        first = subprocess.Popen(command(path, out, args.jobs), stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        peak = 0
        while done(out) < args.kill_at and first.poll() is None:
            peak = max(peak, peak_kb(first.pid))
            time.sleep(0.05)
        first.kill()
        first.wait()
        killed_at = done(out)
        with tempfile.TemporaryFile("w+") as stdout, tempfile.TemporaryFile("w+") as stderr:
            second = subprocess.Popen(command(path, out, args.jobs), stdout=stdout,
                                      stderr=stderr, text=True)
            while second.poll() is None:
                peak = max(peak, peak_kb(second.pid))
                time.sleep(0.05)
            stdout.seek(0)
            stderr.seek(0)
            text, errors = stdout.read(), stderr.read()
        wall = time.perf_counter() - start
        total = done(out)
        ratings = text[text.find("Ratings (BayesElo)"):]
        ratings = ratings[: ratings.find("Results (PGN)")].rstrip()
    games = 12 * args.rounds
    result = {
        "machine": machine(),
        "rounds": args.rounds, "jobs": args.jobs, "games": games, "done": total,
        "killed_at": killed_at, "resume_exit": second.returncode,
        "wall_s": round(wall, 1), "games_per_s": round(total / wall, 2),
        "one_game_alone_s": round(single, 3),
        "speedup_vs_one_at_a_time": round(single * total / wall, 2),
        "referee_peak_rss_mb": round(peak / 1024, 1),
    }
    print_figures(result, args.json)
    if args.json:
        return
    print(ratings)
    if second.returncode != 0:
        print(errors[-2000:])


if __name__ == "__main__":
    main()
