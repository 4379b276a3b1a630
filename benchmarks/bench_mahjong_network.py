"""ICGA Mahjong: what network mode costs over local mode, in the same run.

The same game (four greedy AIs, a fixed seed, 16 hands by default) is played
- locally: ``play_mahjong`` runs the four AI programs over pipes, and
- over the network: a ``referee mahjong serve`` process and four ``referee mahjong
  connect`` wrappers on 127.0.0.1, each wrapper running its greedy AI every hand.

The greedy AI is deterministic, so both games are the same answer for answer (checked).
Wall time is the game's own (the record's start to finish: no interpreter start-up, no
logins). The added time per protocol message is (network wall time - local wall time) /
the lines exchanged (server to clients and back); the target is at most 1 ms.

That difference also holds how the AIs are started: locally the referee starts and stops
the four programs of a hand one after another, over the network each wrapper starts its
own at once. So the round trip of an answer is reported too: the median time from the
referee's ``/ask`` to the answer (the record's ``ms``; the median leaves out the first
answers of a hand, which wait for the AI to start), in each mode, and the difference.

Run: ``.venv/bin/python benchmarks/bench_mahjong_network.py`` (``--json`` for one line).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from figures import machine, print_figures

from referee.core.players import PlayerSpec, builtin_command
from referee.core.record import GameRecord
from referee.games.mahjong.match import MahjongSettings, play_mahjong
from referee.games.mahjong.rules import Rules

GREEDY = "referee.games.mahjong.bots.greedy_ai"


def game_seconds(started_at: str, finished_at: str) -> float:
    """A record's wall time from its two timestamps."""
    return (dt.datetime.fromisoformat(finished_at)
            - dt.datetime.fromisoformat(started_at)).total_seconds()


def local_game(hands: int, seed: int, folder: Path) -> tuple[float, GameRecord]:
    """Local mode: the game's wall time and its record."""
    players = [PlayerSpec(f"greedy{k}", builtin_command(GREEDY), True) for k in range(4)]
    record = play_mahjong(players, MahjongSettings(Rules(hands=hands), seed=seed), folder)
    return game_seconds(record.started_at, record.finished_at), record


def network_game(hands: int, seed: int, folder: Path) -> tuple[float, dict[str, Any]]:
    """Network mode (server and wrappers as processes): the game's wall time and record."""
    cli = [sys.executable, "-m", "referee.cli", "mahjong"]
    server = subprocess.Popen([*cli, "serve", "--port", "0", "--seed", str(seed), "--hands",
                               str(hands), "--out", str(folder)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert server.stderr is not None
    first = server.stderr.readline()
    found = re.search(r"on 127\.0\.0\.1:(\d+)", first)
    if found is None:
        server.kill()
        raise SystemExit(f"the server did not start: {first!r}")
    wrappers = [subprocess.Popen([*cli, "connect", "--port", found.group(1), "--id", str(k),
                                  "--", "greedy"], stderr=subprocess.DEVNULL)
                for k in range(1, 5)]
    server.stderr.read()
    if server.wait(timeout=600) != 0 or any(w.wait(timeout=60) for w in wrappers):
        raise SystemExit("the network game failed")
    record: dict[str, Any] = json.loads((folder / "game-001.json").read_text())
    return game_seconds(record["started_at"], record["finished_at"]), record


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=16)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3, help="games per mode (median)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    local_times, network_times = [], []
    local_ms: list[float] = []
    network_ms: list[float] = []
    same = True
    lines = 0
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.repeat):
            seconds, local = local_game(args.hands, args.seed, Path(tmp) / f"local{k}")
            local_times.append(seconds)
            seconds, net = network_game(args.hands, args.seed, Path(tmp) / f"net{k}")
            network_times.append(seconds)
            same = same and [m["move"] for m in net["moves"]] == [m.move for m in local.moves]
            local_ms += [m.ms for m in local.moves]
            network_ms += [m["ms"] for m in net["moves"]]
            lines = net["settings"]["lines_to_clients"] + net["settings"]["lines_from_clients"]
            answers = len(local.moves)
    local_s, network_s = statistics.median(local_times), statistics.median(network_times)
    result: dict[str, object] = {
        "machine": machine(),
        "load_1min_before": round(load_before, 2),
        "load_1min_after": round(os.getloadavg()[0], 2),
        "hands": args.hands,
        "repeat": args.repeat,
        "same_game": same,
        "answers": answers,
        "lines_exchanged": lines,
        "local_s": [round(t, 3) for t in local_times],
        "network_s": [round(t, 3) for t in network_times],
        "local_hands_per_s": round(args.hands / local_s, 2),
        "network_hands_per_s": round(args.hands / network_s, 2),
        "added_ms_per_line": round(1000 * (network_s - local_s) / lines, 4),
        "added_ms_per_answer": round(1000 * (network_s - local_s) / answers, 4),
        "local_median_answer_ms": round(statistics.median(local_ms), 4),
        "network_median_answer_ms": round(statistics.median(network_ms), 4),
        "added_ms_per_answer_round_trip": round(statistics.median(network_ms)
                                                - statistics.median(local_ms), 4),
        "bench_seconds": round(time.perf_counter() - start, 1),
    }
    print_figures(result, args.json)


if __name__ == "__main__":
    main()
