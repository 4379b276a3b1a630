"""Referee CPU per move in a tournament of instant Gomoku brains, against one match of the
same brains in the same run, with 0 and with 2,000 unrelated idle processes on the machine.

Both figures are CPU seconds (user + system) of this Python process only (the referee;
the brains' own CPU is not counted), divided by the moves played:

* match: ``GomokuMatch`` of two instant brains (``tests/brains/instant.py --pattern``:
  they never make five, so every game fills the 15x15 board: 225 moves) for ``--games``
  games;
* tournament: a real tournament file of the same two brains, the same board and the same
  number of games, loaded by ``referee.tournament.session.prepare`` and played by
  ``TournamentRunner`` (one game at a time): each game's slot, the brains' start and end,
  the record committed to the SQLite store, the live board;
* kept: the same tournament with ``keep_bots = true``: the brains are started once and
  play every game (``RESTART``), so the tournament's cost of a process start and kill per
  game and brain is gone;
* pinned and kept_pinned: the tournament and the kept one with ``affinity = true``: the
  game's slot gets a CPU, which its brains (suspended off turn, they take turns) share
  with the thread playing the game, so no write wakes a brain on another CPU.

Each is run with the sandbox at its default (``auto``: bubblewrap when it works, the bots
suspended off turn), ``off`` (no isolation; still suspended off turn, as tournaments do)
and ``off-unsuspended`` (neither: the floor of the referee's own work), first with no
extra process, then with ``--idle`` processes (``sleep``, each in a
session of its own) started before and killed after, to show whether anything the referee
does scans every process of the machine. Medians of ``--repeat`` runs, in alternating
order.

``--brain native`` plays the same brain in C instead (``benchmarks/brains/instant_gomoku.c``,
built with the system's C compiler by ``native.py``): a native program, as Gomocup's brains
are, which runs no interpreter between the referee's steps; ``--brain python --brain
native`` measures both in turn (the native figures' keys say ``brain_native``).

``--sandbox NAME`` (repeatable) measures only those sandboxes. ``--against SRC`` compares
this checkout with another build (the ``src`` folder of a ``git archive``): ``--repeat``
runs of each, alternating, each a fresh interpreter playing every kind once; the median
and the least figure of each build, and new / old of the medians.

Run: ``.venv/bin/python benchmarks/bench_tournament_cpu.py [--games 20] [--repeat 3] [--kinds K,...]
[--idle 2000] [--sandbox auto] [--brain native] [--against SRC] [--json]``
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench_referee import INSTANT, referee
from figures import alternate_builds, machine, print_figures
from native import native

from referee.core.sandbox import SandboxConfig, SandboxLevel
from referee.tournament.runner import TournamentRunner
from referee.tournament.session import prepare

ROOT = Path(__file__).resolve().parent.parent
SIZE = 15
SANDBOXES = {
    "auto": (SandboxConfig(), 'sandbox = "auto"'),
    "off": (SandboxConfig(SandboxLevel.OFF), 'sandbox = "off"'),
    "off-unsuspended": (SandboxConfig(SandboxLevel.OFF, suspend=False),
                        '[sandbox]\nlevel = "off"\nsuspend = false'),
}
"""Each sandbox measured: the match's configuration and the tournament file's lines."""

TOURNAMENT = """
name = "instant"
game = "gomoku"
seed = 1
output = "out"
keep_bots = {keep}
affinity = {affinity}
{sandbox}

[schedule]
kind = "round-robin"
rounds = {rounds}

[settings]
size = {size}
timeout_turn = 5000

[[players]]
name = "a"
command = {command!r}

[[players]]
name = "b"
command = {command!r}
"""


KINDS = ("match", "tournament", "kept", "pinned", "kept_pinned")
"""What is measured: the match, then the tournament without and with ``keep_bots`` and
``affinity``."""


BRAINS = ("python", "native")
"""The instant brains: ``tests/brains/instant.py --pattern``, or the same brain in C
(``benchmarks/brains/instant_gomoku.c``, a native program as Gomocup's brains are)."""


def brain_command(brain: str) -> list[str]:
    """The command of the instant brain ``brain`` (one of :data:`BRAINS`)."""
    if brain == "native":
        return [str(native("instant_gomoku"))]
    return [sys.executable, str(INSTANT), "--pattern"]


def match_cpu(games: int, sandbox: str, brain: str = "python") -> float:
    """Referee CPU seconds per move of one match of ``games`` games."""
    per_move, moves = referee(games, SIZE, SANDBOXES[sandbox][0], brain_command(brain))
    assert moves == games * SIZE * SIZE, moves
    return per_move


def tournament_cpu(games: int, sandbox: str, keep: bool = False,
                   affinity: bool = False, brain: str = "python") -> float:
    """Referee CPU seconds per move of a tournament of ``games`` games (checks before the
    first game not counted); ``keep``: with ``keep_bots``; ``affinity``: with
    ``affinity``; ``brain``: which instant brain (:data:`BRAINS`)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.toml"
        command = " ".join(brain_command(brain))
        path.write_text(TOURNAMENT.format(sandbox=SANDBOXES[sandbox][1],
                                          keep="true" if keep else "false",
                                          affinity="true" if affinity else "false",
                                          rounds=max(1, games // 2),
                                          size=SIZE, command=command), encoding="utf-8")
        tournament, store = prepare(path, None, 1, None)
        try:
            runner = TournamentRunner(tournament, store, concurrency=1)
            start = time.process_time()
            runner.run()
            spent = time.process_time() - start
            moves = sum(row.plies or 0 for row in store.games(status="done"))
            if keep:  # every game after the first two brains' first took them from the pool
                assert runner.pools[1].taken == 2 * (2 * max(1, games // 2) - 1), \
                    runner.pools[1].taken
        finally:
            store.close()
    assert moves == 2 * max(1, games // 2) * SIZE * SIZE, moves
    return spent / moves


@contextlib.contextmanager
def idle_processes(count: int) -> Iterator[None]:
    """``count`` sleeping processes, each in a session of its own, for the block."""
    started = [subprocess.Popen(["sleep", "3600"], start_new_session=True,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL) for _ in range(count)]
    try:
        yield
    finally:
        for process in started:
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGKILL)
        for process in started:
            process.wait()


def compare(args: argparse.Namespace, kinds: list[str], sandboxes: list[str]
            ) -> dict[str, object]:
    """This checkout against ``args.against``: ``args.repeat`` runs of each build in turn
    (each every kind once, no idle process); per figure, each build's median and least,
    and new / old of the medians."""
    argv = ["--games", str(args.games), "--repeat", "1", "--idle", "0",
            "--kinds", ",".join(kinds), *(f"--sandbox={name}" for name in sandboxes),
            *(f"--brain={name}" for name in args.brain or [])]
    runs = alternate_builds(Path(__file__).resolve(), argv, args.against, args.repeat)
    out: dict[str, object] = {}
    for key in [k for k in runs["new"][0] if k.endswith("_us_per_move")]:
        medians = {}
        for name in ("old", "new"):
            values = [float(run[key]) for run in runs[name]]
            medians[name] = statistics.median(values)
            out[f"{name}_{key}"] = f"median {medians[name]:.1f}, least {min(values):.1f}"
        out[f"new_over_old_{key}"] = round(medians["new"] / medians["old"], 2)
    return out


def main() -> None:
    """Measure every combination and print the medians and their ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--idle", type=int, default=2000)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help="what to measure, of " + ", ".join(KINDS) + " (match first)")
    parser.add_argument("--sandbox", action="append", choices=SANDBOXES,
                        help="a sandbox to measure (repeatable; default: all)")
    parser.add_argument("--brain", action="append", choices=BRAINS,
                        help="the instant brain (repeatable, measured in turn; default "
                        "python): native is instant.py's brain in C, built with cc")
    parser.add_argument("--against", help="the src folder of another build to compare")
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    if kinds[0] != "match" or not set(kinds) <= set(KINDS):
        parser.error(f"--kinds: match first, then any of {', '.join(KINDS[1:])}")
    sandboxes = args.sandbox or list(SANDBOXES)
    result: dict[str, object] = {
        "machine": machine(),
        "games": args.games, "moves_per_game": SIZE * SIZE, "repeat": args.repeat,
        "load_before": round(os.getloadavg()[0], 2),
    }
    if args.against:
        result.update(compare(args, kinds, sandboxes))
        result["load_after"] = round(os.getloadavg()[0], 2)
        print_figures(result, args.json)
        return
    brains = args.brain or ["python"]
    for idle in dict.fromkeys((0, args.idle)):
        with idle_processes(idle):
            for sandbox in sandboxes:
                figures: dict[tuple[str, str], list[float]] = {
                    (brain, kind): [] for kind in kinds for brain in brains}
                for k in range(args.repeat):
                    order = list(figures) if k % 2 == 0 else list(reversed(figures))
                    for brain, kind in order:
                        figures[brain, kind].append(1e6 * (
                            match_cpu(args.games, sandbox, brain) if kind == "match" else
                            tournament_cpu(args.games, sandbox, keep="kept" in kind,
                                           affinity="pinned" in kind, brain=brain)))
                for brain in brains:
                    medians = {kind: statistics.median(figures[brain, kind]) for kind in kinds}
                    key = f"idle_{idle}_sandbox_{sandbox}" + (
                        "" if brain == "python" else f"_brain_{brain}")
                    result[f"{key}_match_us_per_move"] = round(medians["match"], 1)
                    for kind in kinds[1:]:
                        result[f"{key}_{kind}_us_per_move"] = round(medians[kind], 1)
                        result[f"{key}_{kind}_over_match"] = round(
                            medians[kind] / medians["match"], 2)
    for sandbox in sandboxes if args.idle and "tournament" in kinds else ():
        result[f"sandbox_{sandbox}_tournament_idle_over_none"] = round(
            float(result[f"idle_{args.idle}_sandbox_{sandbox}_tournament_us_per_move"])  # type: ignore[arg-type]
            / float(result[f"idle_0_sandbox_{sandbox}_tournament_us_per_move"]), 2)  # type: ignore[arg-type]
    result["load_after"] = round(os.getloadavg()[0], 2)
    print_figures(result, args.json)


if __name__ == "__main__":
    main()
