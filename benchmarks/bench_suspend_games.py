"""Suspension off-turn in Planowanie, ICGA Mahjong and Riichi: what it costs, what it saves.

Since issue 37 every game's bots are suspended off-turn by default, as Gomoku's were. Two
figures a game, each against its baseline in the same run, the runs of a pair in
alternating order (A B, then B A, ...), the ratios taken pair by pair, then their median:

1. Cost. Whole matches of the built-in bots (Planowanie ``random`` x4, 13 deals; ICGA
   Mahjong ``greedy`` x4, 4 hands; Riichi ``tsumogiri`` x4, an east game), in the sandbox
   (``auto``), suspended against not suspended: the wall time a game, and the referee's CPU
   a game (``time.process_time()`` of this process: the bots excluded).
2. What it saves. The same matches between bots that think: each built-in bot behind a
   relay that computes 3 ms of CPU before it passes on each of the bot's answers (so that
   an answer's time is the bot's CPU and the CPU it gets). Then seat 1's relay also forks
   two processes computing without end, in its own process tree (what suspension stops
   with it). The figure is the mean answer time of the three other seats (the record's
   ``ms`` of their decisions), busy with suspension and busy without it, each over the
   same with seat 1 not busy, suspended: what a bot that computes off its turn takes from
   its opponents on this machine (2 cores: its two processes compete with the others
   whenever they run).

Run: ``.venv/bin/python benchmarks/bench_suspend_games.py [--games planowanie,mahjong,riichi]
[--pairs 4] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from figures import machine

from referee.core.players import PlayerSpec, builtin_command
from referee.core.record import GameRecord
from referee.core.sandbox import SandboxConfig
from referee.games.mahjong.match import BUILTIN_PLAYERS as MAHJONG_AIS
from referee.games.mahjong.match import MahjongSettings, play_mahjong
from referee.games.mahjong.rules import Rules as MahjongRules
from referee.games.planowanie.match import BUILTIN_PLAYERS, PlanowanieSettings, play_planowanie
from referee.games.riichi.match import BUILTIN_PLAYERS as RIICHI_BOTS
from referee.games.riichi.match import RiichiMatchSettings, play_riichi
from referee.games.riichi.settings import RiichiRules

THINK = """\
import os, subprocess, sys, threading, time
if sys.argv[1] == "--busy":
    del sys.argv[1]
    for _ in range(2):
        if os.fork() == 0:
            while True:
                pass
bot = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def told():
    for line in sys.stdin.buffer:
        bot.stdin.write(line)
        bot.stdin.flush()
    bot.stdin.close()
threading.Thread(target=told, daemon=True).start()
for line in bot.stdout:
    end = time.thread_time() + 0.003
    while time.thread_time() < end:
        pass
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
"""
"""A relay that thinks 3 ms of CPU before each of its bot's answers (``--busy``: and
forks two endless computations first)."""


def players(game: str, relay: Path | None = None, busy: bool = False) -> list[PlayerSpec]:
    """The four built-in bots of ``game``, behind the thinking relay if given (seat 1's
    busy if ``busy``)."""
    name, module = {"planowanie": ("random", BUILTIN_PLAYERS["random"]),
                    "mahjong": ("greedy", MAHJONG_AIS["greedy"]),
                    "riichi": ("tsumogiri", RIICHI_BOTS["tsumogiri"])}[game]
    found = []
    for seat in range(4):
        command = builtin_command(module)
        command[0] = os.path.abspath(command[0])  # (the relay runs it from its own folder)
        if relay is not None:
            command = [sys.executable, str(relay), *(["--busy"] if busy and seat == 1
                                                      else []), *command]
        found.append(PlayerSpec(f"{name}-{seat}", command))
    return found


def play(game: str, suspend: bool, seats: list[PlayerSpec], folder: Path,
         seed: int) -> GameRecord:
    """One game of ``game`` between ``seats``."""
    sandbox = SandboxConfig(suspend=suspend)
    if game == "planowanie":
        settings = replace(PlanowanieSettings.from_options(time=0), sandbox=sandbox)
        return play_planowanie(seats, settings, seed, folder)
    if game == "mahjong":
        return play_mahjong(seats, MahjongSettings(
            rules=MahjongRules(hands=4), seed=seed, sandbox=sandbox), folder)
    return play_riichi(seats, RiichiMatchSettings(
        rules=RiichiRules(), seed=seed, sandbox=sandbox), folder)


def others_ms(record: GameRecord) -> float:
    """The mean answer time of the seats other than seat 1 (ms)."""
    times = [m.ms for m in record.moves if m.seat != 1 and m.ms is not None]
    return statistics.fmean(times) if times else 0.0


def timed(run: Callable[[], GameRecord]) -> tuple[float, float, GameRecord]:
    """Wall and referee CPU seconds of ``run``, and its record."""
    wall, cpu = time.perf_counter(), time.process_time()
    record = run()
    return time.perf_counter() - wall, time.process_time() - cpu, record


def measure(game: str, pairs: int, root: Path) -> dict[str, Any]:
    """The figures of one game (see the module)."""
    relay = root / "think.py"
    relay.write_text(THINK)
    seats = {"on": players(game), "off": players(game), "quiet": players(game, relay),
             "busy-on": players(game, relay, True), "busy-off": players(game, relay, True)}
    runs: dict[str, list[tuple[float, float, GameRecord]]] = {k: [] for k in seats}
    order = list(seats)
    for pair in range(pairs):
        for kind in order if pair % 2 == 0 else order[::-1]:
            folder = root / f"{game}-{kind}-{pair}"
            runs[kind].append(timed(lambda kind=kind, folder=folder, pair=pair: play(
                game, not kind.endswith("off"), seats[kind], folder, 100 + pair)))
    outcomes = {kind: sorted({r.outcome.value for _, _, r in found})
                for kind, found in runs.items()}

    def ratio(a: str, b: str, index: int) -> float:
        return statistics.median(x[index] / y[index] for x, y in zip(runs[a], runs[b],
                                                                     strict=True))

    def ms_ratio(a: str) -> float:
        return statistics.median(others_ms(x[2]) / max(others_ms(y[2]), 1e-9)
                                 for x, y in zip(runs[a], runs["quiet"], strict=True))

    return {
        "game": game,
        "wall_s_on": round(statistics.median(r[0] for r in runs["on"]), 3),
        "wall_s_off": round(statistics.median(r[0] for r in runs["off"]), 3),
        "wall_on_over_off": round(ratio("on", "off", 0), 3),
        "cpu_s_on": round(statistics.median(r[1] for r in runs["on"]), 3),
        "cpu_s_off": round(statistics.median(r[1] for r in runs["off"]), 3),
        "cpu_on_over_off": round(ratio("on", "off", 1), 3),
        "others_ms_quiet": round(statistics.median(others_ms(r[2]) for r in runs["quiet"]),
                                 3),
        "others_ms_busy_suspended_over_quiet": round(ms_ratio("busy-on"), 3),
        "others_ms_busy_free_over_quiet": round(ms_ratio("busy-off"), 3),
        "outcomes": outcomes,
    }


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="planowanie,mahjong,riichi")
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {"machine": machine(), "pairs": args.pairs}
    with tempfile.TemporaryDirectory(prefix="bench-suspend-") as name:
        root = Path(name)
        root.chmod(0o755)
        for game in args.games.split(","):
            results[game] = measure(game, args.pairs, root)
    if args.json:
        print(json.dumps(results))
        return
    for key, value in results.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
