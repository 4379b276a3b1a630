"""Tournament throughput with N games at once, and the referee's memory with 64 games at once.

Every figure comes from real tournaments: a TOML file written to a temporary folder, loaded
and checked by ``referee.tournament.session.prepare`` and played by ``TournamentRunner``
(the memory run goes through ``run_tournament``, the whole ``referee tournament`` path),
between two copies of ``benchmarks/brains/slow_brain.py`` on a 15x15 freestyle board. That
brain's games all have the same length (``2 * moves - 1`` moves, black makes five) and each
of its moves costs ``--think-ms``, so throughput is comparable across N.

1. Concurrency. Series ``cpu``: each move is 20 ms of busy CPU work (cores are the limit),
   N = 1 and 2 (the machine's cores). Series ``sleep``: each move is a 20 ms sleep (the
   brains use no CPU, so this measures how the referee overlaps waiting games, not how
   cores are shared), N = 1, 2, 4, 8. The baseline is the same series at N = 1 in the same
   repetition; the figure is ``throughput(N) / (N * throughput(1))`` (target: at least 0.9
   up to the number of cores). Only ``runner.run()`` is timed (not the checks before the
   first game). The N values run in alternating order (ascending, then descending) so that
   a drift of the machine's load hits all alike; medians over ``--repeat`` repetitions.
   Each row also shows the referee's and the brains' CPU per move (the brains' includes
   their start-up) and the other load: CPU the rest of the machine used during the runs
   (all busy CPU time, host steal included, minus the referee's and the brains'), in cores.
2. Memory. A fresh referee process (this script with ``--memory-worker``) measures its own
   RSS after its imports (the baseline), then runs a tournament with concurrency 64 of
   brains that sleep 200 ms per move (so that CPU is not the limit and 64 games really run
   at once), sampling its own RSS every 50 ms (USS every 1 s) with psutil in a thread; the
   brains are not counted. Games in flight are counted every 0.5 s as the distinct game
   slots among the live brain processes (each game's brains run in the folder of its
   slot). Target: peak RSS under 200 MB with 64 games in flight. The referee's CPU time is
   reported without the sampler thread's.

Run: ``.venv/bin/python benchmarks/bench_tournament.py [--quick] [--repeat 5] [--patience 60]
[--think-ms 20] [--only cpu|sleep|memory] [--json]``

``--quick``: shorter games, fewer of them, one repetition, 16 games at once for memory: a
smoke test of about 15 s, not a measurement. ``--patience``: seconds to wait before each
repetition for a machine whose other load is under 0.25 cores, which may never come on a
shared machine (see the other-load column). ``--think-ms``: the cost of a move in both
concurrency series.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import psutil
from figures import busy_cpu, children_cpu
from rich.console import Console

from referee.tournament.runner import TournamentRunner
from referee.tournament.session import prepare, run_tournament

ROOT = Path(__file__).resolve().parent.parent
BRAIN = ROOT / "benchmarks" / "brains" / "slow_brain.py"


@dataclass(frozen=True)
class Setup:
    """One kind of tournament: the brains' move cost and the games' number and length."""

    mode: str  # "cpu" or "sleep"
    think_ms: float
    moves: int  # black's moves per game; a game has 2 * moves - 1
    games: int  # games per tournament (even: pairs with colours swapped)

    @property
    def plies(self) -> int:
        """Moves in every game."""
        return 2 * self.moves - 1


def write_tournament(folder: Path, setup: Setup, concurrency: int) -> Path:
    """A tournament file for two slow brains, in ``folder``; returns its path."""
    brain = [sys.executable, str(BRAIN), "--mode", setup.mode,
             "--think-ms", str(setup.think_ms), "--moves", str(setup.moves)]
    command = "[" + ", ".join(json.dumps(part) for part in brain) + "]"
    text = f"""name = "bench"
game = "gomoku"
seed = 1
concurrency = {concurrency}
output = "out"
standings_every = 1000

[schedule]
kind = "round-robin"
rounds = {setup.games // 2}

[settings]
rule = "freestyle"
size = 15
timeout_turn = 10000
startup = 60000

[[players]]
name = "slow-a"
command = {command}

[[players]]
name = "slow-b"
command = {command}
"""
    path = folder / "bench.toml"
    path.write_text(text, encoding="utf-8")
    return path


def play_once(setup: Setup, concurrency: int) -> dict[str, Any]:
    """One tournament through ``TournamentRunner``: the wall time of its games (not of the
    checks before them), the CPU used, and every game verified to have its known length."""
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as folder:
        path = write_tournament(Path(folder), setup, concurrency)
        tournament, store = prepare(path)
        try:
            runner = TournamentRunner(tournament, store, concurrency)
            cpu, brains_cpu, busy = time.process_time(), children_cpu(), busy_cpu()
            start = time.perf_counter()
            played = runner.run()
            wall = time.perf_counter() - start
            cpu, brains_cpu = time.process_time() - cpu, children_cpu() - brains_cpu
            busy = busy_cpu() - busy
            rows = store.games(status="done")
        finally:
            store.close()
    plies = [row.plies for row in rows]
    wrong = [(row.key, row.plies, row.outcome, row.scores) for row in rows
             if row.plies != setup.plies or row.scores != (1.0, 0.0)]
    if played != setup.games or len(rows) != setup.games or wrong:
        raise RuntimeError(f"unexpected games: played {played} of {setup.games}; {wrong[:3]}")
    moves = sum(p or 0 for p in plies)
    return {"n": concurrency, "wall_s": wall, "games_per_s": setup.games / wall,
            "moves_per_s": moves / wall, "referee_cpu_us_per_move": cpu / moves * 1e6,
            "brains_cpu_ms_per_move": brains_cpu / moves * 1e3,
            "other_load_cores": max(0.0, busy - cpu - brains_cpu) / wall}


QUIET = 0.25
"""Other load (cores) under which a run counts as quiet."""


def wait_quiet(limit: float, patience: float) -> float:
    """Wait (up to ``patience`` seconds) until the machine's busy CPU over 1 s is under
    ``limit`` cores; returns the seconds waited."""
    start = time.monotonic()
    while time.monotonic() - start < patience:
        busy = busy_cpu()
        time.sleep(1.0)
        if busy_cpu() - busy < limit:
            break
    return time.monotonic() - start


def concurrency_series(setup: Setup, ns: list[int], repeat: int,
                       patience: float = 0.0) -> dict[str, Any]:
    """``repeat`` alternating passes over ``ns``; medians and paired ratios to N = 1.

    Before each pass, waits up to ``patience`` seconds for a quiet machine.
    """
    runs: dict[int, list[dict[str, Any]]] = {n: [] for n in ns}
    ratios: dict[int, list[float]] = {n: [] for n in ns}
    quiet: dict[int, list[float]] = {n: [] for n in ns}
    waited = 0.0
    for number in range(repeat):
        if patience:
            waited += wait_quiet(QUIET, patience)
        order = ns if number % 2 == 0 else ns[::-1]
        this: dict[int, dict[str, Any]] = {}
        for n in order:
            this[n] = play_once(setup, n)
            runs[n].append(this[n])
            print(f"  {setup.mode} N={n}: {this[n]['wall_s']:.2f} s, other load "
                  f"{this[n]['other_load_cores']:.2f} cores", file=sys.stderr)
        for n in ns:
            ratio = this[n]["games_per_s"] / (n * this[1]["games_per_s"])
            ratios[n].append(ratio)
            if max(this[n]["other_load_cores"], this[1]["other_load_cores"]) < QUIET:
                quiet[n].append(ratio)
    rows = []
    for n in ns:
        walls = [r["wall_s"] for r in runs[n]]
        wall = statistics.median(walls)
        rows.append({
            "n": n, "wall_s": wall, "wall_min_s": min(walls), "wall_max_s": max(walls),
            "games_per_s": setup.games / wall, "moves_per_s": setup.games * setup.plies / wall,
            "ratio": statistics.median(ratios[n]), "ratio_min": min(ratios[n]),
            "ratio_max": max(ratios[n]),
            "ratio_quiet": statistics.median(quiet[n]) if quiet[n] else None,
            "quiet_repeats": len(quiet[n]),
            "referee_cpu_us_per_move": statistics.median(
                r["referee_cpu_us_per_move"] for r in runs[n]),
            "brains_cpu_ms_per_move": statistics.median(
                r["brains_cpu_ms_per_move"] for r in runs[n]),
            "other_load_cores": statistics.median(r["other_load_cores"] for r in runs[n]),
            "other_load_cores_max": max(r["other_load_cores"] for r in runs[n]),
            "runs": runs[n],
        })
    return {"setup": asdict(setup) | {"plies": setup.plies}, "repeat": repeat,
            "waited_for_quiet_s": waited, "rows": rows}


# -- memory -----------------------------------------------------------------------------
COUNT_EVERY, USS_EVERY = 10, 20
"""Games in flight are counted every 10th RSS sample, USS read every 20th."""


def memory_worker(setup: Setup, concurrency: int, interval: float) -> dict[str, Any]:
    """In a fresh process: baseline RSS, then the tournament with its RSS sampled."""
    me = psutil.Process()
    base = me.memory_full_info()
    samples: list[tuple[float, int, int]] = []  # (time, rss, games in flight)
    counts: list[int] = []  # games in flight, every COUNT_EVERY samples
    uss_peak = base.uss
    slots: dict[int, str] = {}  # brain pid -> its game slot
    stop = threading.Event()

    def in_flight() -> tuple[int, int]:
        """Games in flight (distinct slots of live brains) and live brain processes."""
        games, brains = set(), 0
        for child in me.children():
            slot = slots.get(child.pid) or _slot_of(child)
            if slot is None:
                continue
            slots[child.pid] = slot
            try:
                if child.status() == psutil.STATUS_ZOMBIE:
                    continue
            except psutil.Error:
                continue
            brains += 1
            games.add(slot)
        return len(games), brains

    peak_brains = 0
    sampler_cpu = 0.0

    def sample() -> None:
        nonlocal uss_peak, peak_brains, sampler_cpu
        count = games = 0
        while not stop.is_set():
            if count % COUNT_EVERY == 0:  # scanning the children costs more than RSS
                games, brains = in_flight()
                peak_brains = max(peak_brains, brains)
                counts.append(games)
            samples.append((time.monotonic(), me.memory_info().rss, games))
            if count % USS_EVERY == 0:
                uss_peak = max(uss_peak, me.memory_full_info().uss)
            count += 1
            stop.wait(interval)
        sampler_cpu = time.thread_time()

    with tempfile.TemporaryDirectory(prefix="bench-memory-") as folder:
        path = write_tournament(Path(folder), setup, concurrency)
        thread = threading.Thread(target=sample, name="rss-sampler", daemon=True)
        start = time.monotonic()
        thread.start()
        with open(os.devnull, "w") as sink:
            run_tournament(path, Console(file=sink), concurrency=concurrency)
        wall = time.monotonic() - start
        stop.set()
        thread.join()
        uss_peak = max(uss_peak, me.memory_full_info().uss)
        after = me.memory_full_info()
    mb = 2**20
    peak_games = max(s[2] for s in samples)
    if peak_games == 0:
        raise RuntimeError("no game counted in flight: the brains no longer run in "
                           "<output>/slots/<slot>/work/<name>; update _slot_of")
    peak_rss = max(s[1] for s in samples)
    at_full = [s for s in samples if s[2] == peak_games]
    return {
        "concurrency": concurrency, "games": setup.games, "plies_per_game": setup.plies,
        "think_ms": setup.think_ms, "wall_s": wall, "samples": len(samples),
        "interval_s": interval,
        "baseline_rss_mb": base.rss / mb, "baseline_uss_mb": base.uss / mb,
        "peak_rss_mb": peak_rss / mb,
        "peak_rss_over_baseline_mb": (peak_rss - base.rss) / mb,
        "ru_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "peak_uss_mb": uss_peak / mb,
        "after_rss_mb": after.rss / mb, "after_uss_mb": after.uss / mb,
        "peak_games_in_flight": peak_games, "peak_brain_processes": peak_brains,
        "seconds_at_peak_games": counts.count(peak_games) * interval * COUNT_EVERY,
        "rss_mb_at_peak_games_max": max(s[1] for s in at_full) / mb,
        "referee_cpu_s": time.process_time() - sampler_cpu, "sampler_cpu_s": sampler_cpu,
        "moves": setup.games * setup.plies,
    }


def _slot_of(child: psutil.Process) -> str | None:
    """The game slot of a brain process: it runs in ``<output>/slots/<slot>/work/<name>``.

    ``None`` for anything else (the checks before the first game run in ``slots/check``).
    """
    try:
        cwd = Path(child.cwd())
    except psutil.Error:
        return None
    if cwd.parent.name != "work" or cwd.parent.parent.parent.name != "slots":
        return None
    slot = cwd.parent.parent.name
    return slot if slot.isdigit() else None


def memory_run(setup: Setup, concurrency: int, interval: float) -> dict[str, Any]:
    """Run ``memory_worker`` in a fresh Python process and return its figures."""
    args = json.dumps({"setup": asdict(setup), "concurrency": concurrency,
                       "interval": interval})
    done = subprocess.run([sys.executable, __file__, "--memory-worker", args],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"memory worker failed ({done.returncode}):\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


# -- report -----------------------------------------------------------------------------
def loadavg() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def print_report(report: dict[str, Any]) -> None:
    """The tables, as Markdown."""
    print(f"machine: {report['machine']}; load average before {report['load_before']}, "
          f"after {report['load_after']}")
    for series in report["concurrency"]:
        s = series["setup"]
        print(f"\nseries {s['mode']}: {s['games']} games of {s['plies']} moves, "
              f"{s['think_ms']:g} ms {'CPU' if s['mode'] == 'cpu' else 'sleep'} per move; "
              f"medians of {series['repeat']} (waited {series['waited_for_quiet_s']:.0f} s "
              "for a quiet machine)")
        print("| N | wall (min-max) | games/s | moves/s | thr(N) / (N x thr(1)) (min-max)"
              f" | same, quiet runs only (other load < {QUIET} cores) "
              "| referee CPU/move | brains CPU/move | other load (max) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in series["rows"]:
            quiet = (f"{r['ratio_quiet']:.3f} ({r['quiet_repeats']} of {series['repeat']})"
                     if r["ratio_quiet"] is not None else "no quiet run")
            print(f"| {r['n']} | {r['wall_s']:.2f} s ({r['wall_min_s']:.2f}-"
                  f"{r['wall_max_s']:.2f}) | {r['games_per_s']:.3f} | {r['moves_per_s']:.1f} | "
                  f"{r['ratio']:.3f} ({r['ratio_min']:.3f}-{r['ratio_max']:.3f}) | {quiet} | "
                  f"{r['referee_cpu_us_per_move']:.0f} µs | "
                  f"{r['brains_cpu_ms_per_move']:.1f} ms | {r['other_load_cores']:.2f} "
                  f"({r['other_load_cores_max']:.2f}) cores |")
    m = report.get("memory")
    if m:
        print(f"\nmemory: concurrency {m['concurrency']}, {m['games']} games of "
              f"{m['plies_per_game']} moves, {m['think_ms']:g} ms sleep per move, "
              f"{m['wall_s']:.1f} s, {m['samples']} samples every {m['interval_s']} s")
        print("| referee process | MB |")
        print("|---|---|")
        for key, label in (("baseline_rss_mb", "RSS after imports (baseline)"),
                           ("baseline_uss_mb", "USS after imports"),
                           ("peak_rss_mb", "peak RSS (sampled)"),
                           ("peak_rss_over_baseline_mb", "peak RSS - baseline"),
                           ("ru_maxrss_mb", "peak RSS (kernel high-water mark)"),
                           ("peak_uss_mb", "peak USS (sampled)"),
                           ("after_rss_mb", "RSS after the tournament")):
            print(f"| {label} | {m[key]:.1f} |")
        print(f"games in flight at the peak: {m['peak_games_in_flight']} "
              f"({m['peak_brain_processes']} brain processes), for about "
              f"{m['seconds_at_peak_games']:.1f} s; referee CPU {m['referee_cpu_s']:.1f} s "
              f"({m['referee_cpu_s'] / m['moves'] * 1e6:.0f} µs per move, all included), "
              f"not counting the sampler's {m['sampler_cpu_s']:.1f} s")


def main() -> None:
    """Run the series and the memory test and print the tables (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fast smoke run")
    parser.add_argument("--repeat", type=int, default=None, help="repetitions (default 5)")
    parser.add_argument("--patience", type=float, default=None,
                        help="seconds to wait for a quiet machine before each repetition "
                             "(default 60, 0 with --quick)")
    parser.add_argument("--think-ms", type=float, default=20.0,
                        help="cost of a move in the cpu and sleep series (default 20)")
    parser.add_argument("--only", action="append", choices=("cpu", "sleep", "memory"),
                        help="run only this part (repeatable; default: all three)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--memory-worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_worker:
        cfg = json.loads(args.memory_worker)
        print(json.dumps(memory_worker(Setup(**cfg["setup"]), cfg["concurrency"],
                                       cfg["interval"])))
        return
    if args.quick:
        repeat = args.repeat or 1
        cpu, sleep = Setup("cpu", args.think_ms, 10, 4), Setup("sleep", args.think_ms, 10, 8)
        sleep_ns, memory, memory_n = [1, 2, 4], Setup("sleep", 100, 10, 32), 16
    else:
        repeat = args.repeat or 5
        cpu, sleep = Setup("cpu", args.think_ms, 30, 8), Setup("sleep", args.think_ms, 30, 16)
        sleep_ns, memory, memory_n = [1, 2, 4, 8], Setup("sleep", 200, 30, 128), 64
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
                   f"{psutil.virtual_memory().total / 2**30:.0f} GiB, "
                   f"Python {platform.python_version()}",
        "load_before": loadavg(), "concurrency": [],
    }
    parts = set(args.only or ("cpu", "sleep", "memory"))
    patience = args.patience if args.patience is not None else 0 if args.quick else 60
    if "cpu" in parts:
        report["concurrency"].append(concurrency_series(cpu, [1, 2], repeat, patience))
    if "sleep" in parts:
        report["concurrency"].append(concurrency_series(sleep, sleep_ns, repeat, patience))
    if "memory" in parts:
        report["memory"] = memory_run(memory, memory_n, 0.05)
    report["load_after"] = loadavg()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_report(report)


if __name__ == "__main__":
    main()
