"""Mahjong hand checks: ``is_winning`` on random 17-tile hands and ``shanten`` on random
16-tile hands, each hand drawn from a real 136-tile set (seeded), on one core.

``is_winning`` also runs on random winning 17-tile hands (a pair and 5 random sets), which
go through every group. Each check runs over the same pre-generated hands: once from
empty memo tables (cold, the first pass after import) and then ``--repeat`` times with
the tables warm (the best pass is kept). The baselines run over the same hands in the
same process: ``sum(counts)`` (the least a check must do) and
``collections.Counter(counts)`` (a counting pass in the standard library). Ratios are
checks per second over baseline calls per second.

Run: ``.venv/bin/python benchmarks/bench_mahjong_hand.py`` (``--hands``, ``--repeat``,
``--seed``, ``--json``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence

from referee.games.mahjong.hand import is_winning, shanten
from referee.games.mahjong.tiles import ALL_TILES, counts_of, is_flower

Hands = list[list[int]]


def random_hands(count: int, size: int, rng: random.Random) -> Hands:
    """``count`` hands of ``size`` tiles, each drawn without replacement from the 136
    suited and honor tiles."""
    tiles = [t for t in ALL_TILES if not is_flower(t)]
    return [counts_of(rng.sample(tiles, size)) for _ in range(count)]


def winning_hands(count: int, rng: random.Random) -> Hands:
    """``count`` random winning 17-tile hands: a pair and 5 sets (pungs and chows) of the
    34 kinds, at most 4 of a kind (for ``is_winning`` on hands that pass every group)."""
    sets = [(k, k, k) for k in range(34)] + [
        (k, k + 1, k + 2) for k in range(27) if k % 9 <= 6]
    hands = []
    while len(hands) < count:
        counts = [0] * 34
        counts[rng.randrange(34)] += 2
        for kinds in rng.choices(sets, k=5):
            for k in kinds:
                counts[k] += 1
        if max(counts) <= 4:
            hands.append(counts)
    return hands


def run_winning(hands: Hands) -> None:
    for counts in hands:
        is_winning(counts)


def run_shanten(hands: Hands) -> None:
    for counts in hands:
        shanten(counts)


def run_sum(hands: Hands) -> None:
    for counts in hands:
        sum(counts)


def run_counter(hands: Hands) -> None:
    for counts in hands:
        Counter(counts)


def rate(fn: Callable[[Hands], None], hands: Hands, repeat: int) -> float:
    """Best-of-``repeat`` calls per second of ``fn`` over ``hands``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(hands)
        best = min(best, time.perf_counter() - start)
    return len(hands) / best


def pin_one_core() -> str:
    """Pin this process to one CPU where the OS allows it; which one, or why not."""
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned (no sched_setaffinity)"
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return f"pinned to CPU {cpu}"


def shares(values: Sequence[int]) -> dict[str, int]:
    """How many times each value occurs, keys in order."""
    return {str(k): v for k, v in sorted(Counter(values).items())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=100_000, help="random hands per check")
    parser.add_argument("--repeat", type=int, default=5, help="warm timed runs (best is kept)")
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)

    pinned = pin_one_core()
    rng = random.Random(args.seed)
    hands17 = random_hands(args.hands, 17, rng)
    hands16 = random_hands(args.hands, 16, rng)
    wins = winning_hands(args.hands, rng)

    results = {
        "is_winning, 17 tiles, cold": rate(run_winning, hands17, 1),
        "is_winning, 17 tiles": rate(run_winning, hands17, args.repeat),
        "is_winning, 17-tile winning hands": rate(run_winning, wins, args.repeat),
        "shanten, 16 tiles, cold": rate(run_shanten, hands16, 1),
        "shanten, 16 tiles": rate(run_shanten, hands16, args.repeat),
        "baseline, sum(counts)": rate(run_sum, hands16, args.repeat),
        "baseline, Counter(counts)": rate(run_counter, hands16, args.repeat),
    }
    baseline = results["baseline, sum(counts)"]
    counter = results["baseline, Counter(counts)"]
    winning = sum(map(is_winning, hands17))
    assert all(map(is_winning, wins))
    distribution = shares([shanten(h) for h in hands16])
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3

    if args.json:
        report = {
            "python": sys.version.split()[0],
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "pinned": pinned,
            "load_average": [round(x, 2) for x in load],
            "seed": args.seed,
            "hands": args.hands,
            "calls_per_second": {name: round(value) for name, value in results.items()},
            "ratio_to_sum": {name: round(value / baseline, 3) for name, value in results.items()},
            "ratio_to_counter": {
                name: round(value / counter, 3) for name, value in results.items()
            },
            "winning_17_tile_hands": winning,
            "shanten_16_tile_hands": distribution,
        }
        print(json.dumps(report, indent=2))
        return 0

    print(f"mahjong hand checks: {args.hands} random hands per check, seed {args.seed}, "
          f"Python {sys.version.split()[0]}, {platform.machine()}, {pinned}, "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    width = max(map(len, results))
    print(f"{'case':<{width}}  {'calls/s':>10}  {'x sum':>7}  {'x Counter':>9}")
    for name, value in results.items():
        print(f"{name:<{width}}  {value:>10,.0f}  {value / baseline:>7.3f}  "
              f"{value / counter:>9.3f}")
    print(f"winning 17-tile hands: {winning}; shanten of the 16-tile hands: {distribution}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
