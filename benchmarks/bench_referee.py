"""Referee CPU time per move with two instant brains, against a raw pipe ping-pong baseline.

Both figures are CPU seconds (user + system) of this Python process only, measured in the
same run:

* baseline: a bare ``os.write`` / ``poll`` / ``os.read`` round trip of one short line with
  an echo child process (the least any pipe referee in Python can spend per move);
* referee: a whole ``GomokuMatch`` (start, INFO, TURN, parse, legality and win checks,
  clocks, records written to disk) between two instant brains on a 32x32 board whose games
  fill the board (1024 moves a game), divided by the number of moves.

Run: ``.venv/bin/python benchmarks/bench_referee.py [--games N] [--pings N] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import machine

from referee.core.clock import TimeControl
from referee.core.players import PlayerSpec
from referee.core.sandbox import SandboxConfig
from referee.games.gomoku.match import GomokuMatch, GomokuSettings

ROOT = Path(__file__).resolve().parent.parent
INSTANT = ROOT / "tests" / "brains" / "instant.py"
ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write('7,7\\n'); sys.stdout.flush()\n"


def baseline(pings: int, echo: str = ECHO,
             message: bytes = b"INFO time_left 2147483647\r\nTURN 7,7\r\n") -> float:
    """CPU seconds per raw pipe round trip (write ``message``, wait, read the answer of the
    ``echo`` program, a line)."""
    child = subprocess.Popen([sys.executable, "-c", echo], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, bufsize=0)
    assert child.stdin and child.stdout
    win, rout = child.stdin.fileno(), child.stdout.fileno()
    os.set_blocking(rout, False)
    poller = select.poll()
    poller.register(rout, select.POLLIN)
    for _ in range(200):  # warm up
        os.write(win, message)
        poller.poll(1000)
        os.read(rout, 65536)
    start = time.process_time()
    for _ in range(pings):
        os.write(win, message)
        data = b""
        while not data.endswith(b"\n"):
            poller.poll(1000)
            data += os.read(rout, 65536)
    spent = time.process_time() - start
    child.stdin.close()
    child.wait()
    return spent / pings


def referee(games: int, size: int = 32, sandbox: SandboxConfig | None = None,
            brain: list[str] | None = None) -> tuple[float, int]:
    """CPU seconds per move of a whole match on a ``size`` x ``size`` board (with
    ``sandbox``, else the default one), and the number of moves played; ``brain``: the
    two players' command (default ``instant.py --pattern``)."""
    brain = brain or [sys.executable, str(INSTANT), "--pattern"]
    players = [PlayerSpec("a", brain), PlayerSpec("b", brain)]
    settings = GomokuSettings(width=size, height=size, games=games, psq=False,
                              sandbox=sandbox if sandbox is not None else SandboxConfig(),
                              time=TimeControl(turn=5.0, game=None, tolerance=0.5))
    with tempfile.TemporaryDirectory() as out:
        start = time.process_time()
        result = GomokuMatch(players, settings, out).run()
        spent = time.process_time() - start
    moves = sum(len(r.moves) for r in result.records)
    return spent / moves, moves


def main() -> None:
    """Alternate both measurements ``--repeat`` times and print the medians and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="games per repetition")
    parser.add_argument("--pings", type=int, default=5000, help="round trips per repetition")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    bases, moves_cpu, moves = [], [], 0
    for _ in range(args.repeat):
        bases.append(baseline(args.pings))
        per_move, moves = referee(args.games)
        moves_cpu.append(per_move)
    base, per_move = statistics.median(bases), statistics.median(moves_cpu)
    result = {
        "machine": machine(),
        "repeat": args.repeat,
        "baseline_us_per_roundtrip": round(base * 1e6, 1),
        "referee_us_per_move": round(per_move * 1e6, 1),
        "referee_us_per_move_min_max": [round(min(moves_cpu) * 1e6, 1),
                                        round(max(moves_cpu) * 1e6, 1)],
        "ratio": round(per_move / base, 2),
        "moves_per_repeat": moves,
        "target_us_per_move": 50,
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"machine: {result['machine']}; medians of {args.repeat} alternating runs")
    print(f"raw pipe round trip (baseline): {result['baseline_us_per_roundtrip']:8.1f} us CPU")
    print(f"referee per move ({moves} moves/run): {result['referee_us_per_move']:8.1f} us CPU "
          f"(min {result['referee_us_per_move_min_max'][0]}, "
          f"max {result['referee_us_per_move_min_max'][1]})")
    print(f"ratio referee/baseline:         {result['ratio']:8.2f}")
    print(f"target: <= {result['target_us_per_move']} us per move")


if __name__ == "__main__":
    main()
