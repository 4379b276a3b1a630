"""ICGA Mahjong speed: hands per second in-process, and a game over pipes.

- in-process: four random AIs (the target: 300 hands/s on one core), then four greedy
  AIs, on seeded walls. Baseline: shuffling a 144-tile wall and dealing it (what every
  hand costs before anyone plays), in the same run.
- hand checks: ``is_winning`` and ``shanten`` per second on random 17- and 16-tile hands
  (the target: 200,000 each), against ``sum()`` over the same count vectors.
- over pipes: ``play_mahjong`` with four greedy AI processes (started afresh for every
  hand, as the spec's sessions are); hands per second and the referee's CPU seconds per
  protocol line.

Run: ``.venv/bin/python benchmarks/bench_mahjong.py`` (``--json`` for one JSON line).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import tempfile
import time
from pathlib import Path

from figures import machine, print_figures

from referee.core.players import PlayerSpec, builtin_command
from referee.games.mahjong.bots.policies import POLICIES
from referee.games.mahjong.hand import is_winning, shanten
from referee.games.mahjong.match import MahjongSettings, play_mahjong
from referee.games.mahjong.rules import MahjongGame, Rules
from referee.games.mahjong.tiles import ALL_TILES, counts_of, is_flower, make_wall


def hands_per_second(policy: str, hands: int) -> float:
    """Hands per second of four in-process AIs."""
    game = MahjongGame(1, Rules(hands=hands))
    rngs = [random.Random(s) for s in range(4)]
    decide = POLICIES[policy]
    start = time.perf_counter()
    while (seat := game.to_play()) is not None:
        game.apply(seat, decide(game.hand.view(seat), rngs[seat]))
    return hands / (time.perf_counter() - start)


def deal_baseline(hands: int) -> float:
    """Walls shuffled and dealt per second."""
    start = time.perf_counter()
    for k in range(hands):
        wall = make_wall(k)
        _ = [wall[i:i + 16] for i in range(0, 64, 16)]
    return hands / (time.perf_counter() - start)


def check_rates(count: int) -> dict[str, float]:
    """is_winning and shanten per second, and the sum() baseline."""
    rng = random.Random(5)
    tiles = [t for t in ALL_TILES if not is_flower(t)]
    seventeen = [counts_of(rng.sample(tiles, 17)) for _ in range(count)]
    sixteen = [counts_of(rng.sample(tiles, 16)) for _ in range(count)]
    out = {}
    start = time.perf_counter()
    for c in seventeen:
        is_winning(c)
    out["is_winning_per_s"] = count / (time.perf_counter() - start)
    start = time.perf_counter()
    for c in sixteen:
        shanten(c)
    out["shanten_per_s"] = count / (time.perf_counter() - start)
    start = time.perf_counter()
    for c in sixteen:
        sum(c)
    out["sum_baseline_per_s"] = count / (time.perf_counter() - start)
    return out


def over_pipes(hands: int) -> dict[str, float]:
    """A game of four greedy AI processes: hands/s and the referee's CPU per line."""
    players = [PlayerSpec(f"greedy{k}", builtin_command("referee.games.mahjong.bots.greedy_ai"),
                          True) for k in range(4)]
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        record = play_mahjong(players, MahjongSettings(Rules(hands=hands), seed=3),
                              Path(folder))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    answers = len(record.moves)
    return {"pipe_hands_per_s": hands / wall, "pipe_answers": answers,
            "referee_cpu_s": cpu, "referee_cpu_share": cpu / wall,
            "referee_cpu_us_per_answer": 1e6 * cpu / answers}


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="random-AI hands")
    parser.add_argument("--checks", type=int, default=100_000)
    parser.add_argument("--pipe-hands", type=int, default=16)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result: dict[str, object] = {
        "machine": machine(),
        "load": os.getloadavg()[0],
        "random_hands_per_s": round(hands_per_second("random", args.hands)),
        "greedy_hands_per_s": round(hands_per_second("greedy", args.hands // 10)),
        "deal_baseline_per_s": round(deal_baseline(args.hands)),
    }
    result.update({k: round(v) for k, v in check_rates(args.checks).items()})
    result.update({k: round(v, 3) for k, v in over_pipes(args.pipe_hands).items()})
    print_figures(result, args.json)


if __name__ == "__main__":
    main()
