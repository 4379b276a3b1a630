"""Planowanie speed: the rules engine in-process, and the referee's CPU per protocol message.

Engine: complete tournament games (13 deals, 4 players, 416 actions) played by random
players choosing among ``legal_actions()``, every action checked with ``illegal_reason``
as the referee does; also the same with each player following the game through its own
``SeatView`` (``play_local``), and with the heuristic player in every seat. The baseline
is the least any game loop of 416 random decisions must do: 416 ``random.choice`` calls on
a 7-element list and appends.

Referee: whole games against four ``random`` player programs over pipes; the referee's own
CPU time (``time.process_time``: user + system of this process, its players excluded) per
command sent, starting and killing the programs included. The baseline is a bare
``os.write`` / ``poll`` / ``os.read`` round trip of a ``play`` line with an echo child.

Run: ``.venv/bin/python benchmarks/bench_planowanie.py`` (``--json`` for one JSON line).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench_referee import baseline
from figures import machine

from referee.core.players import PlayerSpec, builtin_command
from referee.games.planowanie.bots.heuristic_player import HeuristicStrategy
from referee.games.planowanie.bots.player import play_local
from referee.games.planowanie.bots.random_player import RandomStrategy
from referee.games.planowanie.match import BUILTIN_PLAYERS, PlanowanieSettings, play_planowanie
from referee.games.planowanie.protocol import PlayerProgram
from referee.games.planowanie.rules import PlanowanieGame, Rules

ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write('=\\n\\n'); sys.stdout.flush()\n"


def loop_baseline(games: int) -> float:
    """Seconds per game of 416 bare random choices."""
    rng = random.Random(1)
    options = list(range(7))
    start = time.perf_counter()
    for _ in range(games):
        out = []
        for _ in range(416):
            out.append(rng.choice(options))
    return (time.perf_counter() - start) / games


def engine_random(games: int) -> float:
    """Seconds per game: random legal actions, each checked, straight on the engine."""
    rules = Rules()
    rng = random.Random(1)
    start = time.perf_counter()
    for seed in range(games):
        game = PlanowanieGame(rules, seed)
        while (seat := game.to_play()) is not None:
            action = rng.choice(game.legal_actions())
            if game.illegal_reason(seat, action) is not None:
                raise AssertionError("illegal")
            game.apply(seat, action)
    return (time.perf_counter() - start) / games


def local_games(games: int, heuristic: bool) -> float:
    """Seconds per game of ``play_local`` (every player with its own view)."""
    rules = Rules()
    start = time.perf_counter()
    for seed in range(games):
        players = [HeuristicStrategy(seed + k) if heuristic else RandomStrategy(seed + k)
                   for k in range(4)]
        play_local(rules, seed, players)
    return (time.perf_counter() - start) / games


@contextlib.contextmanager
def commands_counted() -> Iterator[list[int]]:
    """For the block, ``PlayerProgram.exchange`` counts the commands it sends: the
    ``[count]`` yielded."""
    count = [0]
    exchange = PlayerProgram.exchange

    def counting(self: PlayerProgram, commands: list[str], **kw: bool) -> list[str]:
        count[0] += len(commands)
        return exchange(self, commands, **kw)

    PlayerProgram.exchange = counting  # type: ignore[method-assign,assignment]
    try:
        yield count
    finally:
        PlayerProgram.exchange = exchange  # type: ignore[method-assign]


def referee_cpu(games: int) -> tuple[float, int, float]:
    """(referee CPU seconds per message, messages per game, wall seconds per game)."""
    players = [PlayerSpec(f"r{k}", builtin_command(BUILTIN_PLAYERS["random"]))
               for k in range(4)]
    with commands_counted() as count, tempfile.TemporaryDirectory() as folder:
        cpu = time.process_time()
        wall = time.perf_counter()
        for seed in range(games):
            record = play_planowanie(players, PlanowanieSettings(), seed, Path(folder))
            if record.outcome is None or record.outcome.value != "normal":
                raise AssertionError(record.reason)
        cpu = time.process_time() - cpu
        wall = time.perf_counter() - wall
    return cpu / count[0], count[0] // games, wall / games


def main() -> None:
    """Measure, alternating baselines and subjects, and print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300, help="engine games per run")
    parser.add_argument("--referee-games", type=int, default=6, help="games per referee run")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    runs: dict[str, list[float]] = {k: [] for k in (
        "loop", "engine", "local_random", "local_heuristic", "pipe", "referee", "wall")}
    messages = 0
    for _ in range(args.repeat):
        runs["loop"].append(loop_baseline(args.games))
        runs["engine"].append(engine_random(args.games))
        runs["local_random"].append(local_games(args.games // 3, heuristic=False))
        runs["local_heuristic"].append(local_games(args.games // 6, heuristic=True))
        runs["pipe"].append(baseline(3000, ECHO, b"play 0 AS\n"))
        per_message, messages, wall = referee_cpu(args.referee_games)
        runs["referee"].append(per_message)
        runs["wall"].append(wall)
    med = {k: statistics.median(v) for k, v in runs.items()}
    result = {
        "machine": machine(),
        "repeat": args.repeat,
        "baseline_loop_games_per_s": round(1 / med["loop"]),
        "engine_games_per_s": round(1 / med["engine"]),
        "engine_ratio_to_baseline": round(med["loop"] / med["engine"], 3),
        "local_random_games_per_s": round(1 / med["local_random"]),
        "local_heuristic_games_per_s": round(1 / med["local_heuristic"]),
        "baseline_pipe_us": round(med["pipe"] * 1e6, 1),
        "referee_us_per_message": round(med["referee"] * 1e6, 1),
        "referee_us_min_max": [round(min(runs["referee"]) * 1e6, 1),
                               round(max(runs["referee"]) * 1e6, 1)],
        "referee_ratio_to_pipe": round(med["referee"] / med["pipe"], 2),
        "messages_per_game": messages,
        "wall_s_per_game_over_pipes": round(med["wall"], 3),
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"machine: {result['machine']}; medians of {args.repeat} alternating runs")
    print(f"baseline, 416 bare random choices: {result['baseline_loop_games_per_s']:>8} games/s")
    print(f"engine, random legal actions:      {result['engine_games_per_s']:>8} games/s "
          f"({result['engine_ratio_to_baseline']} x baseline; target >= 200)")
    print(f"play_local, random players:        {result['local_random_games_per_s']:>8} games/s")
    print(f"play_local, heuristic players:     {result['local_heuristic_games_per_s']:>8} games/s")
    print(f"raw pipe round trip (baseline):    {result['baseline_pipe_us']:>8} us CPU")
    print(f"referee per message:               {result['referee_us_per_message']:>8} us CPU "
          f"(min {result['referee_us_min_max'][0]}, max {result['referee_us_min_max'][1]}; "
          f"{result['referee_ratio_to_pipe']} x baseline; target <= 50)")
    print(f"messages per game: {messages}; wall time per game over pipes: "
          f"{result['wall_s_per_game_over_pipes']} s")


if __name__ == "__main__":
    sys.exit(main())
