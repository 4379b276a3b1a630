"""GOHR captive server speed: the engine in-process, the pipe server, the socket server.

- engine: random move attempts (a random piece on the board, a random bucket) on every
  sample rule set, 9-piece random boards, a new episode when one ends; attempts per
  second over all rule sets, and the slowest rule set. Baseline: the same loop choosing
  moves without the engine (random choices and a dictionary look-up per attempt).
- pipe: ``referee gohr RULES 9 output=brief`` as a child; one ``MOVE`` at a time, its
  status line read back (``NEW`` when the board is cleared); MOVE commands answered per
  second. Baseline: the same round trips with a child that echoes a status line.
- socket: ``referee gohr-server`` on 127.0.0.1 as a child process, clients in processes of
  their own (8 sessions per process), standard mode. Saturated: 1 then 32 clients moving
  back to back, with 1 worker process (the baseline) and with one per core. Paced: 1 then
  32 clients each making ``--pace`` moves per second (a player that thinks), with the
  answer latency of every move.
- two commands at once: one client writing ``MOVE`` and ``DISPLAY`` in one write and
  reading both answers, against the socket server in a child process with TCP_NODELAY
  (as ``serve gohr`` runs) and without it (the server before the fix), commands per
  second over ``--pipelined-seconds`` each.

Run: ``.venv/bin/python benchmarks/bench_gohr.py`` (``--json`` for one JSON line;
``--parts pipelined`` for the last part alone).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from figures import machine, print_figures

from referee.games.gohr.board import GenParams, generate_board
from referee.games.gohr.client import CaptiveClient
from referee.games.gohr.engine import Episode, Finish
from referee.games.gohr.ruleset import read_ruleset

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data" / "gohr"
DATA = SHARED if SHARED.is_dir() else ROOT / "tests" / "data" / "gohr"
PER_PROCESS = 8
"""Client sessions per client process."""
ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write('4 0 1\\n'); sys.stdout.flush()\n"
NAGLE_SERVER = """\
import sys
from pathlib import Path
from referee.games.gohr import socket_server
socket_server._Handler.disable_nagle_algorithm = sys.argv[2] == "nodelay"
server = socket_server.CaptiveSocketServer(("127.0.0.1", 0),
                                           socket_server.ServerConfig(Path(sys.argv[1])))
print(server.server_address[1], flush=True)
server.serve_forever()
"""
"""The socket server in one process, with TCP_NODELAY or without (argv: data, mode)."""


def engine_rate(attempts: int, reuse: bool = True) -> tuple[float, float, str, float]:
    """(attempts/s over all rule sets, baseline attempts/s, slowest set, its rate);
    ``reuse=False``: the engine computing every board from scratch."""
    params = GenParams(9, 9, 0, 0, 0, 0)
    rates: dict[str, float] = {}
    total_time = 0.0
    total = 0
    rules_files = sorted((DATA / "rules").rglob("*.txt"))
    for path in rules_files:
        rules = read_ruleset(path)
        rng = random.Random(1)
        boards = [generate_board(params, rng) for _ in range(50)]
        episode = Episode(rules, boards[0], reuse=reuse)
        start = time.perf_counter()
        for k in range(attempts):
            if episode.finish is not Finish.PLAYING:
                episode = Episode(rules, boards[k % 50], reuse=reuse)
            piece = rng.choice(episode.board.pieces)
            episode.move(piece.id, rng.randrange(4))
        spent = time.perf_counter() - start
        rates[path.relative_to(DATA / "rules").as_posix()] = attempts / spent
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
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "play", "gohr", rule, "9",
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


class SocketServer:
    """``referee gohr-server --port 0 --workers W`` as a child process."""

    def __init__(self, workers: int) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "serve", "gohr", "--port", "0", "--data",
             str(DATA), "--workers", str(workers), "--max-sessions", "64"],
            stderr=subprocess.PIPE, text=True)
        assert self.proc.stderr is not None
        banner = self.proc.stderr.readline()
        self.port = int(banner.split("127.0.0.1:")[1].split(",")[0])

    def stop(self) -> None:
        """SIGTERM and wait."""
        self.proc.terminate()
        self.proc.wait(30)


def _client(port: int, k: int, moves: int, pace: float, start_at: float
            ) -> tuple[float, list[float]]:
    """One session: ``moves`` random MOVEs, each answer awaited; with ``pace`` > 0 that many
    per second on average, as a player thinking between moves: random (exponential) gaps,
    so the sessions do not all move in the same instant. (moves/s, latencies in s)."""
    rng = random.Random(k)
    latencies: list[float] = []
    with CaptiveClient.connect("127.0.0.1", port, ["rules/Rule-001.txt", "9",
                                                   f"seed={k + 1}"]) as game:
        status = game.opening
        assert status is not None
        while time.time() < start_at:
            time.sleep(0.001)
        begin = time.perf_counter()
        due = begin
        for _ in range(moves):
            if pace:
                due += rng.expovariate(pace)
                delay = due - time.perf_counter()
                if delay > 0:
                    time.sleep(delay)
            if status.finish:
                status = game.new()
            piece = rng.choice([int(p["id"]) for p in status.pieces])
            sent = time.perf_counter()
            status = game.move(piece, rng.randrange(4))
            latencies.append(time.perf_counter() - sent)
        return moves / (time.perf_counter() - begin), latencies


def _client_group(args: tuple[int, list[int], int, float, float]
                  ) -> list[tuple[float, list[float]]]:
    """Several sessions in threads of one client process."""
    port, ks, moves, pace, start_at = args
    out: list[tuple[float, list[float]]] = []
    errors: list[BaseException] = []

    def run(k: int) -> None:
        try:
            out.append(_client(port, k, moves, pace, start_at))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(k,)) for k in ks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise RuntimeError(f"{len(errors)} clients failed: {errors[0]!r}")
    return out


def socket_run(port: int, clients: int, moves: int, pace: float = 0.0
               ) -> list[tuple[float, list[float]]]:
    """``clients`` concurrent sessions from client processes of their own (up to 8 sessions
    per process, in threads); per session (moves/s, latencies)."""
    groups = [list(range(k, min(k + PER_PROCESS, clients))) for k in range(0, clients, PER_PROCESS)]
    start_at = time.time() + 1.0
    with multiprocessing.get_context("fork").Pool(len(groups)) as pool:
        parts = pool.map(_client_group, [(port, g, moves, pace, start_at) for g in groups])
    return [result for part in parts for result in part]


def percentile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def socket_figures(moves: int, pace: float) -> dict[str, float]:
    """The socket server's figures: saturated (clients move back to back) with 1 worker and
    with one per core, and paced (clients thinking between moves)."""
    out: dict[str, float] = {}
    cores = os.cpu_count() or 1
    for workers in sorted({1, cores}):
        server = SocketServer(workers)
        try:
            one = socket_run(server.port, 1, moves)
            many = socket_run(server.port, 32, moves // 4)
        finally:
            server.stop()
        tag = f"w{workers}"
        out[f"{tag}_saturated_1_client_moves_per_s"] = round(one[0][0])
        out[f"{tag}_saturated_32_clients_total_moves_per_s"] = round(sum(r for r, _ in many))
        out[f"{tag}_saturated_32_clients_median_moves_per_s"] = round(
            statistics.median(r for r, _ in many))
    server = SocketServer(cores)
    try:
        one = socket_run(server.port, 1, moves // 10, pace)
        many = socket_run(server.port, 32, moves // 10, pace)
    finally:
        server.stop()
    lat1 = one[0][1]
    lat32 = [x for _, lats in many for x in lats]
    out["paced_moves_per_s_asked"] = pace
    out["paced_1_client_moves_per_s"] = round(one[0][0], 1)
    out["paced_32_clients_median_moves_per_s"] = round(
        statistics.median(r for r, _ in many), 1)
    out["paced_32_clients_min_moves_per_s"] = round(min(r for r, _ in many), 1)
    out["paced_1_client_latency_median_ms"] = round(1000 * statistics.median(lat1), 3)
    out["paced_32_clients_latency_median_ms"] = round(1000 * statistics.median(lat32), 3)
    out["paced_1_client_latency_p99_ms"] = round(1000 * percentile(lat1, 0.99), 3)
    out["paced_32_clients_latency_p99_ms"] = round(1000 * percentile(lat32, 0.99), 3)
    return out


def pipelined_rate(nodelay: bool, seconds: float) -> float:
    """Commands/s of one client that writes ``MOVE`` and ``DISPLAY`` at once and reads both
    answers, against the socket server with TCP_NODELAY or without."""
    proc = subprocess.Popen([sys.executable, "-c", NAGLE_SERVER, str(DATA),
                             "nodelay" if nodelay else "nagle"], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    rng = random.Random(3)
    try:
        with socket.create_connection(("127.0.0.1", port)) as sock:
            stream = sock.makefile("rwb")

            def answer() -> bytes:
                while (line := stream.readline()).startswith(b"#"):
                    pass
                return line

            stream.write(b"GAME rules/Rule-001.txt 9 seed=1 output=brief\n")
            stream.flush()
            answer()
            ids = [p["id"] for p in json.loads(answer())["value"]]
            commands = 0
            start = time.perf_counter()
            while time.perf_counter() - start < seconds:
                stream.write(f"MOVE {rng.choice(ids)} {rng.randrange(4)}\nDISPLAY\n".encode())
                stream.flush()
                finish = int(answer().split()[1])
                ids = [p["id"] for p in json.loads(answer())["value"]] or [0]
                commands += 2
                if finish:
                    stream.write(b"NEW\n")
                    stream.flush()
                    answer()
                    ids = [p["id"] for p in json.loads(answer())["value"]]
                    commands += 1
            rate = commands / (time.perf_counter() - start)
            stream.write(b"EXIT\n")
            stream.flush()
    finally:
        proc.terminate()
        proc.wait(30)
    return rate


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=20_000, help="per rule set")
    parser.add_argument("--moves", type=int, default=20_000, help="pipe MOVE commands")
    parser.add_argument("--socket-moves", type=int, default=4_000,
                        help="per client, saturated (a quarter with 32 clients, a tenth paced)")
    parser.add_argument("--pace", type=float, default=50.0,
                        help="moves per second of each paced client")
    parser.add_argument("--pipelined-seconds", type=float, default=3.0,
                        help="seconds of two commands at once, with and without TCP_NODELAY")
    parser.add_argument("--parts", default="engine,pipe,socket,pipelined",
                        help="the parts to run, comma-separated (default all)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    unknown = parts - {"engine", "pipe", "socket", "pipelined"}
    if unknown:
        parser.error(f"unknown parts: {', '.join(sorted(unknown))}")
    result: dict[str, object] = {"machine": machine()}
    if "engine" in parts:
        engine, engine_base, slowest, slowest_rate = engine_rate(args.attempts)
        scratch, _, scratch_slowest, scratch_slowest_rate = engine_rate(args.attempts,
                                                                        reuse=False)
        result.update({
            "engine_attempts_per_s": round(engine),
            "engine_baseline_per_s": round(engine_base),
            "engine_ratio": round(engine / engine_base, 3),
            "slowest_rule_set": slowest,
            "slowest_attempts_per_s": round(slowest_rate),
            "engine_from_scratch_attempts_per_s": round(scratch),
            "engine_from_scratch_slowest": f"{scratch_slowest} {round(scratch_slowest_rate)}",
        })
    if "pipe" in parts:
        pipe, pipe_base = pipe_rate(args.moves)
        result.update({"pipe_moves_per_s": round(pipe), "pipe_baseline_per_s": round(pipe_base),
                       "pipe_ratio": round(pipe / pipe_base, 3)})
    if "socket" in parts:
        sockets = socket_figures(args.socket_moves, args.pace)
        result.update({f"socket_{key}": value for key, value in sockets.items()})
    if "pipelined" in parts:
        nagle = pipelined_rate(False, args.pipelined_seconds)
        nodelay = pipelined_rate(True, args.pipelined_seconds)
        result.update({"two_at_once_without_nodelay_commands_per_s": round(nagle),
                       "two_at_once_with_nodelay_commands_per_s": round(nodelay),
                       "two_at_once_ratio": round(nodelay / nagle, 1)})
    print_figures(result, args.json)


if __name__ == "__main__":
    main()
