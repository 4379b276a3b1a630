"""What the sandbox costs: a bot's start, suspension, and a tournament of instant bots.

Every figure is a pair measured in the same run, the runs of a pair in alternating order
(A B, then B A, ...) so that a drift of the machine's load hits both alike; the ratios
and differences are taken pair by pair, then their median.

1. Start (target: a sandboxed start at most 30 ms more than an unsandboxed one). The time
   from ``BotProcess.start()`` to the first line read from the bot, for a bot that prints
   one line at once (``/bin/sh -c 'echo ready; exec cat'``, so that the bot's own start
   costs almost nothing and the sandbox's cost shows): ``--sandbox off`` (the baseline),
   the limits only (the rlimit launcher, as without bubblewrap) and isolated (bubblewrap
   and the launcher; only where this machine can isolate). Median and 90th percentile of
   each, and the median of the paired differences from the baseline, in ms.
2. Suspension (target: at most 50 µs of referee CPU per move). (a) The referee's CPU time
   (``time.process_time()``) of ``suspend()`` + ``resume()`` pairs on a running bot
   (isolated, and with the limits only), in µs per pair: a suspended bot costs one pair
   per move. (b) Whole ``GomokuMatch``es between two instant brains on a 32x32 board whose
   games fill it (1024 moves a game), in the sandbox (``auto``), suspended and not: the
   referee's CPU per move of each, and the difference.
3. A tournament of instant bots (target: with the sandbox on at least 0.8x the games/s
   with it off). A round robin of two ``tests/brains/instant.py`` brains on a 15x15 board
   (65 moves a game), ``sandbox = "auto"`` against ``sandbox = "off"`` (suspension, on by
   default for Gomoku, in both), played by ``TournamentRunner`` with 2 games at once; only
   ``runner.run()`` is timed.

Run: ``.venv/bin/python benchmarks/bench_sandbox.py [--quick] [--starts 40] [--pairs 2000]
[--games 2] [--tournaments 5] [--tournament-games 40] [--only start|suspend|tournament]
[--json]``

``--quick``: a smoke test of a few seconds, not a measurement. ``other_load_cores``: the CPU
the rest of the machine used meanwhile (all busy CPU time, host steal included, minus this
process's and its finished children's), in cores: on a shared machine, what the figures
competed with.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from figures import busy_cpu, children_cpu, print_figures

from referee.core.clock import TimeControl
from referee.core.players import PlayerSpec
from referee.core.process import BotProcess
from referee.core.sandbox import (
    SandboxConfig,
    SandboxLevel,
    SandboxPlan,
    SandboxSupport,
    plan_sandbox,
    sandbox_support,
)
from referee.games.gomoku.match import GomokuMatch, GomokuSettings
from referee.tournament.runner import TournamentRunner
from referee.tournament.session import prepare

ROOT = Path(__file__).resolve().parent.parent
INSTANT = ROOT / "tests" / "brains" / "instant.py"
ECHO = ["/bin/sh", "-c", "echo ready; exec cat"]
LIMITS_ONLY = SandboxSupport(None, "", False, "measured without bubblewrap", os.geteuid() == 0)


def machine() -> str:
    """The CPU model, the cores this process may use, the Python."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            model = next(line.split(":", 1)[1].strip() for line in info
                         if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"{model}, {len(os.sched_getaffinity(0))} cores, "
            f"Python {platform.python_version()}")


def plans() -> dict[str, SandboxPlan]:
    """The sandboxes measured: off (the baseline), limits only, isolated (if possible)."""
    found = {"off": plan_sandbox(SandboxConfig(SandboxLevel.OFF)),
             "limits-only": plan_sandbox(SandboxConfig(), LIMITS_ONLY)}
    support = sandbox_support()
    if support.usable:
        found["isolated"] = plan_sandbox(SandboxConfig(), support)
    return found


def median_p90(values: list[float]) -> tuple[float, float]:
    """The median and the 90th percentile."""
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def alternating(count: int, kinds: list[str], measure: Callable[[str], float]
                ) -> dict[str, list[float]]:
    """``count`` rounds of ``measure(kind)`` for every kind, the order reversed every
    other round."""
    found: dict[str, list[float]] = {kind: [] for kind in kinds}
    for index in range(count):
        for kind in (kinds if index % 2 == 0 else list(reversed(kinds))):
            found[kind].append(measure(kind))
    return found


# -- 1. start ------------------------------------------------------------------------------

def start_ms(plan: SandboxPlan, folder: Path) -> float:
    """Milliseconds from ``start()`` to the bot's first line."""
    process = BotProcess(ECHO, name="echo", cwd=folder / "work", sandbox=plan)
    began = time.perf_counter()
    process.start()
    try:
        line = process.read_line(time.monotonic() + 30)
        took = (time.perf_counter() - began) * 1000
    finally:
        process.kill()
    if line != "ready":
        raise RuntimeError(f"unexpected first line {line!r}")
    return took


def bench_start(starts: int) -> dict[str, Any]:
    """Start-to-first-answer times, per sandbox, and the paired differences from off."""
    sandboxes = plans()
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as name:
        folder = Path(name)
        folder.chmod(0o755)
        for plan in sandboxes.values():  # warm up (and the trial run of bubblewrap)
            start_ms(plan, folder)
        runs = alternating(starts, list(sandboxes),
                           lambda kind: start_ms(sandboxes[kind], folder))
    result: dict[str, Any] = {"start_runs": starts}
    for kind, values in runs.items():
        median, p90 = median_p90(values)
        result[f"start_ms_{kind}"] = [round(median, 2), round(p90, 2)]
        if kind != "off":
            more = [a - b for a, b in zip(values, runs["off"], strict=True)]
            result[f"start_ms_more_{kind}"] = round(statistics.median(more), 2)
    return result


# -- 2. suspension -------------------------------------------------------------------------

def pair_us(plan: SandboxPlan, folder: Path, pairs: int) -> float:
    """Referee CPU µs per ``suspend()`` + ``resume()`` of a running bot."""
    process = BotProcess(ECHO, name="echo", cwd=folder / "work", sandbox=plan)
    process.start()
    try:
        process.read_line(time.monotonic() + 30)
        for _ in range(50):  # warm up
            process.suspend()
            process.resume()
        began = time.process_time()
        for _ in range(pairs):
            process.suspend()
            process.resume()
        return (time.process_time() - began) / pairs * 1e6
    finally:
        process.kill()


def match_us(suspend: bool, games: int) -> float:
    """Referee CPU µs per move of whole sandboxed matches, suspended or not."""
    brain = [sys.executable, str(INSTANT), "--pattern"]
    players = [PlayerSpec("a", brain), PlayerSpec("b", brain)]
    settings = GomokuSettings(width=32, height=32, games=games, psq=False,
                              time=TimeControl(turn=5.0, game=None, tolerance=0.5),
                              sandbox=SandboxConfig(suspend=suspend))
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as name:
        Path(name).chmod(0o755)
        began = time.process_time()
        result = GomokuMatch(players, settings, Path(name)).run()
        spent = time.process_time() - began
    moves = sum(len(r.moves) for r in result.records)
    return spent / moves * 1e6


def bench_suspend(pairs: int, games: int, repeat: int) -> dict[str, Any]:
    """Suspension's referee CPU: per suspend+resume pair, and per move of real games."""
    sandboxes = {k: v for k, v in plans().items() if k != "off"}
    result: dict[str, Any] = {"suspend_pairs": pairs}
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as name:
        folder = Path(name)
        folder.chmod(0o755)
        runs = alternating(repeat, list(sandboxes),
                           lambda kind: pair_us(sandboxes[kind], folder, pairs))
    for kind, values in runs.items():
        result[f"suspend_resume_us_{kind}"] = round(statistics.median(values), 1)
    moves = alternating(repeat, ["suspended", "free"],
                        lambda kind: match_us(kind == "suspended", games))
    result["match_games"] = games
    result["match_referee_us_per_move_suspended"] = round(statistics.median(moves["suspended"]),
                                                          1)
    result["match_referee_us_per_move_free"] = round(statistics.median(moves["free"]), 1)
    result["match_suspension_us_per_move"] = round(statistics.median(
        [a - b for a, b in zip(moves["suspended"], moves["free"], strict=True)]), 1)
    return result


# -- 3. a tournament of instant bots -----------------------------------------------------

def write_tournament(folder: Path, level: str, games: int) -> Path:
    """A round robin of two instant brains (``games`` games) in ``level``'s sandbox."""
    brain = f"{sys.executable} {INSTANT}"
    text = f"""name = "bench"
game = "gomoku"
seed = 1
concurrency = 2
output = "out"
standings_every = 100000
sandbox = "{level}"

[schedule]
kind = "round-robin"
rounds = {games // 2}

[settings]
size = 15
timeout_turn = 10000

[[players]]
name = "a"
command = "{brain}"

[[players]]
name = "b"
command = "{brain}"
"""
    path = folder / "bench.toml"
    path.write_text(text, encoding="utf-8")
    return path


def games_per_s(level: str, games: int) -> float:
    """Games per second of one tournament (only its games timed)."""
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as name:
        folder = Path(name)
        folder.chmod(0o755)
        tournament, store = prepare(write_tournament(folder, level, games))
        try:
            runner = TournamentRunner(tournament, store, 2)
            began = time.perf_counter()
            played = runner.run()
            wall = time.perf_counter() - began
            normal = sum(1 for row in store.games(status="done") if row.outcome == "normal")
        finally:
            store.close()
    if played != games or normal != games:
        raise RuntimeError(f"{level}: {played} games played, {normal} normal, of {games}")
    return games / wall


def bench_tournament(runs: int, games: int) -> dict[str, Any]:
    """Games/s with the sandbox on (auto) and off, paired."""
    speeds = alternating(runs, ["auto", "off"], lambda level: games_per_s(level, games))
    ratios = [a / b for a, b in zip(speeds["auto"], speeds["off"], strict=True)]
    return {"tournament_games": games, "tournament_runs": runs,
            "tournament_games_per_s_auto": round(statistics.median(speeds["auto"]), 2),
            "tournament_games_per_s_off": round(statistics.median(speeds["off"]), 2),
            "tournament_ratio_auto_over_off": round(statistics.median(ratios), 3),
            "tournament_ratio_min_max": [round(min(ratios), 3), round(max(ratios), 3)]}


def main() -> None:
    """Run the chosen measurements and print their figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke test, not a measurement")
    parser.add_argument("--starts", type=int, default=40, help="starts of each sandbox")
    parser.add_argument("--pairs", type=int, default=2000,
                        help="suspend+resume pairs per repetition")
    parser.add_argument("--games", type=int, default=2, help="32x32 games per match")
    parser.add_argument("--repeat", type=int, default=5,
                        help="repetitions of the suspension measurements")
    parser.add_argument("--tournaments", type=int, default=5,
                        help="tournaments of each sandbox (paired)")
    parser.add_argument("--tournament-games", type=int, default=40)
    parser.add_argument("--only", choices=["start", "suspend", "tournament"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.starts, args.pairs, args.games, args.repeat = 4, 200, 1, 1
        args.tournaments, args.tournament_games = 1, 4
    support = sandbox_support()
    result: dict[str, Any] = {
        "machine": machine(),
        "isolation": support.version if support.usable else f"none ({support.problem})",
        "root": support.root,
    }
    began, own, busy = time.perf_counter(), time.process_time() + children_cpu(), busy_cpu()
    if args.only in (None, "start"):
        result.update(bench_start(args.starts))
    if args.only in (None, "suspend"):
        result.update(bench_suspend(args.pairs, args.games, args.repeat))
    if args.only in (None, "tournament"):
        result.update(bench_tournament(args.tournaments, args.tournament_games))
    own = time.process_time() + children_cpu() - own
    result["other_load_cores"] = round(max(0.0, busy_cpu() - busy - own)
                                       / (time.perf_counter() - began), 2)
    print_figures(result, args.json)


if __name__ == "__main__":
    main()
