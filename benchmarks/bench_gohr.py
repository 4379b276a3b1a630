"""GOHR captive server speed: the engine in-process, the pipe server, the socket server.

- engine: random move attempts (a random piece on the board, a random bucket) on every
  sample rule set, 9-piece random boards, a new episode when one ends; attempts per
  second over all rule sets, and the slowest rule set. Baseline: the same loop choosing
  moves without the engine (random choices and a dictionary look-up per attempt).
- pipe: ``referee gohr RULES 9 output=brief`` as a child; one ``MOVE`` at a time, its
  status line read back (``NEW`` when the board is cleared); MOVE commands answered per
  second. Baseline: the same round trips with a child that echoes a status line.
- socket: 1 and then 32 concurrent clients of ``gohr-server`` on 127.0.0.1, each doing
  the pipe loop in standard mode; MOVE commands per second per client.

Run: ``.venv/bin/python benchmarks/bench_gohr.py`` (``--json`` for one JSON line).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from referee.games.gohr.board import GenParams, generate_board
from referee.games.gohr.client import CaptiveClient
from referee.games.gohr.engine import Episode, Finish
from referee.games.gohr.ruleset import read_ruleset
from referee.games.gohr.socket_server import CaptiveSocketServer, ServerConfig

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data" / "gohr"
DATA = SHARED if SHARED.is_dir() else ROOT / "tests" / "data" / "gohr"
ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write('4 0 1\\n'); sys.stdout.flush()\n"


def engine_rate(attempts: int) -> tuple[float, float, str, float]:
    """(attempts/s over all rule sets, baseline attempts/s, slowest set, its rate)."""
    params = GenParams(9, 9, 0, 0, 0, 0)
    rates: dict[str, float] = {}
    total_time = 0.0
    total = 0
    rules_files = sorted((DATA / "rules").rglob("*.txt"))
    for path in rules_files:
        rules = read_ruleset(path)
        rng = random.Random(1)
        boards = [generate_board(params, rng) for _ in range(50)]
        episode = Episode(rules, boards[0])
        start = time.perf_counter()
        for k in range(attempts):
            if episode.finish is not Finish.PLAYING:
                episode = Episode(rules, boards[k % 50])
            piece = rng.choice(episode.board.pieces)
            episode.move(piece.id, rng.randrange(4))
        spent = time.perf_counter() - start
        rates[path.name] = attempts / spent
        total_time += spent
        total += attempts
    rng = random.Random(1)
    table = {k: k % 4 for k in range(9)}
    start = time.perf_counter()
    for _ in range(total):
        piece = rng.choice(range(9))
        _ = table[piece] == rng.randrange(4)
    baseline = total / (time.perf_counter() - start)
    slowest = min(rates, key=lambda name: rates[name])
    return total / total_time, baseline, slowest, rates[slowest]


def pipe_rate(moves: int) -> tuple[float, float]:
    """(MOVE/s through ``referee gohr`` in brief mode, baseline echo round trips/s)."""
    rule = str(DATA / "rules" / "Rule-001.txt")
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "gohr", rule, "9",
                             "seed=1", "output=brief"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    assert proc.stdin and proc.stdout
    raw = proc.stdout.readline

    def read() -> bytes:
        while True:
            line = raw()
            if not line.startswith(b"#"):
                return line

    def status() -> list[int]:
        return [int(x) for x in read().split()]

    status()
    board = json.loads(read())["value"]
    ids = [p["id"] for p in board]
    rng = random.Random(2)
    start = time.perf_counter()
    for _ in range(moves):
        proc.stdin.write(f"MOVE {rng.choice(ids)} {rng.randrange(4)}\n".encode())
        proc.stdin.flush()
        code, finish, _ = status()
        if code == 0 or finish:
            if finish:
                proc.stdin.write(b"NEW\n")
                proc.stdin.flush()
                status()
                board = json.loads(read())["value"]
            else:
                proc.stdin.write(b"DISPLAY\n")
                proc.stdin.flush()
                board = json.loads(read())["value"]
            ids = [p["id"] for p in board] or [0]
    rate = moves / (time.perf_counter() - start)
    proc.stdin.write(b"EXIT\n")
    proc.stdin.close()
    proc.wait()
    echo = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    assert echo.stdin and echo.stdout
    start = time.perf_counter()
    for _ in range(moves):
        echo.stdin.write(b"MOVE 1 2\n")
        echo.stdin.flush()
        echo.stdout.readline()
    baseline = moves / (time.perf_counter() - start)
    echo.stdin.close()
    echo.wait()
    return rate, baseline


def socket_rates(clients: int, moves: int) -> list[float]:
    """MOVE/s of each of ``clients`` concurrent socket sessions."""
    server = CaptiveSocketServer(("127.0.0.1", 0), ServerConfig(DATA, max_sessions=64))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    rates: list[float] = []
    errors: list[BaseException] = []

    def play(k: int) -> None:
        try:
            rng = random.Random(k)
            with CaptiveClient.connect(str(host), int(port),
                                       ["rules/Rule-001.txt", "9", f"seed={k + 1}"]) as game:
                status = game.opening
                assert status is not None
                start = time.perf_counter()
                for _ in range(moves):
                    if status.finish:
                        status = game.new()
                    piece = rng.choice([int(p["id"]) for p in status.pieces])
                    status = game.move(piece, rng.randrange(4))
                rates.append(moves / (time.perf_counter() - start))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(k,)) for k in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    server.shutdown()
    server.server_close()
    if errors:
        raise RuntimeError(f"{len(errors)} clients failed: {errors[0]!r}")
    return rates


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=20_000, help="per rule set")
    parser.add_argument("--moves", type=int, default=20_000, help="pipe MOVE commands")
    parser.add_argument("--socket-moves", type=int, default=2_000, help="per client")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    engine, engine_base, slowest, slowest_rate = engine_rate(args.attempts)
    pipe, pipe_base = pipe_rate(args.moves)
    one = socket_rates(1, args.socket_moves)
    many = socket_rates(32, args.socket_moves)
    result = {
        "machine": f"{platform.machine()} {os.cpu_count()} cores, "
                   f"Python {platform.python_version()}",
        "engine_attempts_per_s": round(engine),
        "engine_baseline_per_s": round(engine_base),
        "engine_ratio": round(engine / engine_base, 3),
        "slowest_rule_set": slowest,
        "slowest_attempts_per_s": round(slowest_rate),
        "pipe_moves_per_s": round(pipe),
        "pipe_baseline_per_s": round(pipe_base),
        "pipe_ratio": round(pipe / pipe_base, 3),
        "socket_1_client_moves_per_s": round(one[0]),
        "socket_32_clients_median_moves_per_s": round(statistics.median(many)),
        "socket_32_clients_min_moves_per_s": round(min(many)),
        "socket_32_clients_total_moves_per_s": round(sum(many)),
    }
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
