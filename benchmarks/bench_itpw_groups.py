"""ITPW group forming: ``variance_groups`` for a field of 100 (or ``--players``) players.

The field has hidden ratings drawn from a normal law (sd 200 Elo, fixed seed); 20 rounds
of random groups of 4 each play every pair of their group 4 times, outcomes drawn from the
BayesElo model. Timed: one ``variance_groups`` call over all those results (it rates them
once, then chooses the groups greedily). Baseline, in the same run: ``rate`` of the same
results alone, the fit that any rating-driven grouping needs. Medians over ``--repeat``
calls. (The tests check the groups; this script, the time.)

Run: ``.venv/bin/python benchmarks/bench_itpw_groups.py`` (``--players``, ``--rounds``,
``--repeat``, ``--json``).
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable

from figures import machine, print_figures

from referee.tournament.itpw import Result, random_groups, variance_groups
from referee.tournament.ratings import BayesEloParams, ResultTable, rate


def field(players: int, rounds: int, seed: int) -> tuple[list[str], list[Result]]:
    """The players' names and the results of ``rounds`` rounds of random groups of 4."""
    rng = random.Random(seed)
    true = {f"p{k:03d}": rng.gauss(0.0, 200.0) for k in range(players)}
    names = list(true)
    drawelo = 97.3
    results: list[Result] = []
    for _ in range(rounds):
        for group in random_groups(names, 4, rng):
            for a, b in itertools.combinations(group, 2):
                for k in range(4):
                    first, second = (a, b) if k % 2 == 0 else (b, a)
                    d = true[first] - true[second]
                    win = 1 / (1 + 10 ** ((drawelo - d) / 400))
                    loss = 1 / (1 + 10 ** ((drawelo + d) / 400))
                    u = rng.random()
                    results.append((first, second,
                                    1.0 if u < win else 0.0 if u < win + loss else 0.5))
    return names, results


def median_seconds(fn: Callable[[], object], repeat: int) -> float:
    """The median wall time of ``repeat`` calls of ``fn``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    """Build the field, time, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100, help="a multiple of 4")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    params = BayesEloParams.bayeselo_defaults()
    names, results = field(args.players, args.rounds, args.seed)
    met = Counter(frozenset((a, b)) for a, b, _ in results)
    groups = variance_groups(names, 4, results, params, met)
    assert sorted(p for g in groups for p in g) == sorted(names)
    baseline = median_seconds(
        lambda: rate(ResultTable.from_results(results), params, intervals=False), args.repeat)
    grouping = median_seconds(lambda: variance_groups(names, 4, results, params, met),
                              args.repeat)
    print_figures({
        "machine": machine(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "players": args.players, "results": len(results), "repeat": args.repeat,
        "rate_alone_s (baseline)": round(baseline, 4),
        "variance_groups_s": round(grouping, 4),
        "variance_groups / rate": round(grouping / baseline, 2),
    }, args.json)


if __name__ == "__main__":
    main()
