"""Time and memory of BayesElo ratings, against the cost of just counting the results.

For each size (players / games), results are drawn from a hidden true-rating model
(ratings ~ N(0, 200), random pairings and colours, BayesElo's own model with advantage 32.8
and drawelo 97.3) and streamed in chunks, so the game list never exists. Figures, all from
the same run:

* generate: drawing the results alone (the generator consumed, nothing kept);
* aggregate (baseline): generating and folding them into a ``ResultTable`` (counts only);
* rate: ``rate()`` on the table: MM, exactdist intervals, covariance, and the LOS matrix
  (read once: ``rate()`` works it out when it is first used);
* peak memory (tracemalloc, in a second pass so that tracing does not skew the times) of
  aggregating and of rating, and the process' peak RSS;
* the RMS error of the ratings against the hidden ones (sanity check).

Run: ``.venv/bin/python benchmarks/bench_ratings.py [--small-only] [--json]``
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
import time
import tracemalloc
from collections.abc import Iterator

import numpy as np

from referee.tournament.ratings import BayesEloParams, ResultTable, rate

ADVANTAGE, DRAWELO = 32.8, 97.3
CHUNK = 100_000


def results(true: np.ndarray, names: list[str], games: int,
            seed: int) -> Iterator[tuple[str, str, float]]:
    """``games`` results of the model, drawn chunk by chunk."""
    rng = np.random.default_rng(seed)
    n = len(names)
    left = games
    while left > 0:
        size = min(CHUNK, left)
        left -= size
        first = rng.integers(0, n, size)
        second = (first + rng.integers(1, n, size)) % n
        diff = true[first] - true[second]
        win = 1.0 / (1.0 + 10.0 ** (-(diff + ADVANTAGE - DRAWELO) / 400.0))
        loss = 1.0 / (1.0 + 10.0 ** (-(-diff - ADVANTAGE - DRAWELO) / 400.0))
        u = rng.random(size)
        score = np.where(u < win, 1.0, np.where(u < win + loss, 0.0, 0.5))
        yield from zip([names[i] for i in first], [names[j] for j in second], score.tolist(),
                       strict=True)


def measure(players: int, games: int, seed: int) -> dict[str, float]:
    """One size: times, peaks and accuracy."""
    rng = np.random.default_rng(seed)
    true = rng.normal(0.0, 200.0, players)
    names = [f"player{i:04d}" for i in range(players)]
    params = BayesEloParams(scale=1.0)

    start = time.perf_counter()
    for _ in results(true, names, games, seed):
        pass
    generate = time.perf_counter() - start

    start = time.perf_counter()
    table = ResultTable()
    table.add_results(results(true, names, games, seed))
    aggregate = time.perf_counter() - start

    start = time.perf_counter()
    ratings = rate(table, params)
    assert ratings.los.shape == (players, players)
    rating = time.perf_counter() - start

    tracemalloc.start()
    traced = ResultTable()
    traced.add_results(results(true, names, games, seed))
    aggregate_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    assert rate(traced, params).los.shape == (players, players)
    rate_peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()

    centred = true - true.mean()
    errors = np.array([ratings.elo(name) - centred[i] for i, name in enumerate(names)])
    return {
        "players": players,
        "games": games,
        "generate_s": generate,
        "aggregate_s": aggregate,
        "rate_s": rating,
        "mm_iterations": ratings.iterations,
        "aggregate_peak_mb": aggregate_peak / 2**20,
        "rate_peak_mb": rate_peak / 2**20,
        "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rms_error_elo": float(np.sqrt(np.mean(errors**2))),
    }


def main() -> None:
    """Run the sizes and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small-only", action="store_true", help="skip 1,000 / 1,000,000")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    sizes = [(200, 100_000)] if args.small_only else [(200, 100_000), (1000, 1_000_000)]
    rows = [measure(players, games, seed=players) for players, games in sizes]
    if args.json:
        print(json.dumps({"python": sys.version.split()[0], "machine": platform.machine(),
                          "runs": rows}, indent=2))
        return
    print(f"python {sys.version.split()[0]} on {platform.machine()}, numpy {np.__version__}")
    for row in rows:
        print(f"{row['players']} players / {row['games']:,} games:")
        print(f"  generate only            {row['generate_s']:8.3f} s")
        print(f"  aggregate (baseline)     {row['aggregate_s']:8.3f} s"
              f"   peak {row['aggregate_peak_mb']:7.1f} MB (tracemalloc)")
        print(f"  rate (mm + exactdist + covariance + LOS)"
              f" {row['rate_s']:8.3f} s   peak {row['rate_peak_mb']:7.1f} MB (tracemalloc),"
              f" {row['mm_iterations']} MM iterations")
        print(f"  process peak RSS so far  {row['max_rss_mb']:8.1f} MB;"
              f" RMS error vs hidden ratings {row['rms_error_elo']:.1f} Elo")


if __name__ == "__main__":
    main()
