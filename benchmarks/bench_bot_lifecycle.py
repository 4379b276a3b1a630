"""The referee's CPU to start a bot and kill it while it runs, and while bots think, with
0 and with 2,000 unrelated idle processes on the machine (issue 25: no cost may grow
with them).

Each cycle starts ``/bin/cat`` as a ``BotProcess`` (its stderr to a log, its working
folder in a temporary folder), then kills it while it waits for input: what a referee
does to a bot that overran its time, and to every program of an ICGA Mahjong hand. The
figure is this process's CPU (user + system, all its threads) per cycle, for the sandbox
``off`` (the bot's processes found from its session and the kernel's children lists) and
``auto`` (bubblewrap and its pid namespace, where it runs); then the same with ``--idle``
``sleep`` processes, each in a session of its own, started before and killed after
(``bench_tournament_cpu.idle_processes``). And
the referee's CPU, in percent of a core, while two bots with a memory limit wait
``--wait`` seconds: the memory watchdog measures their process trees ten times a second.

Run: ``.venv/bin/python benchmarks/bench_bot_lifecycle.py [--cycles 100] [--idle 2000]
[--wait 2] [--json]`` (``PYTHONPATH=OTHER/src`` to time another build).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench_tournament_cpu import idle_processes
from figures import machine, print_figures

import referee
from referee.core.process import BotProcess
from referee.core.sandbox import SandboxConfig, SandboxLevel, plan_sandbox


def cycles(count: int, level: SandboxLevel, folder: Path) -> float:
    """Referee CPU milliseconds per start and kill of a waiting bot."""
    work = folder / "work"
    work.mkdir(exist_ok=True)
    plan = plan_sandbox(SandboxConfig(level))
    used = time.process_time()
    for _ in range(count):
        bot = BotProcess(["/bin/cat"], cwd=work, stderr_log=folder / "cat.log", sandbox=plan)
        bot.start()
        bot.kill()
    return (time.process_time() - used) / count * 1000


def waiting(seconds: float, level: SandboxLevel, folder: Path) -> float:
    """Referee CPU, in percent of one core, while two bots with a memory limit wait for
    ``seconds`` (what remains: the memory watchdog measuring their trees ten times a
    second, as during a long think)."""
    work = folder / "work"
    work.mkdir(exist_ok=True)
    plan = plan_sandbox(SandboxConfig(level))
    bots = [BotProcess(["/bin/cat"], cwd=work, stderr_log=folder / "cat.log", sandbox=plan,
                       memory_limit=256 * 2**20) for _ in range(2)]
    for bot in bots:
        bot.start()
    try:
        time.sleep(0.3)
        used = time.process_time()
        time.sleep(seconds)
        return (time.process_time() - used) / seconds * 100
    finally:
        for bot in bots:
            bot.kill()


def main() -> None:
    """Time the cycles with each sandbox, without and with the idle processes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--idle", type=int, default=2000)
    parser.add_argument("--wait", type=float, default=2.0,
                        help="seconds two bots wait, for the watchdog's share")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict[str, object] = {
        "machine": machine(),
        "referee": str(Path(referee.__file__).parent)}
    with tempfile.TemporaryDirectory(prefix="bench-lifecycle-") as tmp:
        folder = Path(tmp)
        for level in (SandboxLevel.OFF, SandboxLevel.AUTO):
            cycles(5, level, folder)  # warm
            result[f"{level.value}_ms_per_cycle"] = round(cycles(args.cycles, level, folder), 3)
            result[f"{level.value}_cpu_percent_two_bots_waiting"] = round(
                waiting(args.wait, level, folder), 2)
        with idle_processes(args.idle):
            for level in (SandboxLevel.OFF, SandboxLevel.AUTO):
                result[f"{level.value}_ms_per_cycle_with_{args.idle}_idle"] = round(
                    cycles(args.cycles, level, folder), 3)
                result[f"{level.value}_cpu_percent_two_bots_waiting_with_{args.idle}_idle"] = (
                    round(waiting(args.wait, level, folder), 2))
    print_figures(result, args.json)


if __name__ == "__main__":
    main()
