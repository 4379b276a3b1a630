"""Benchmark of the renju forbidden-point check (``referee.games.gomoku.renju.forbidden``).

Builds random mid-game 15x15 positions from a fixed seed (30 to 80 stones, black and white
in turn, at random points) and times ``forbidden()`` over

* random empty points (most have nothing around them), and
* empty points next to a stone (the hard case: lines with stones, threes to settle);

plus, in the same run, a baseline of plain Python work: as many checks, each four
``Board.run_length`` calls (one per direction), so that the ratio stays meaningful on a
noisy machine. The first pass over the random points is also reported on its own, as it
fills the line cache ("cold").

    .venv/bin/python benchmarks/bench_renju.py [--positions 200] [--points 100] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Callable

from referee.games.gomoku.board import BLACK, EMPTY, WHITE, Board, Rule
from referee.games.gomoku.renju import _FACTS, forbidden

Check = tuple[Board, int, int]


def make_positions(count: int, rng: random.Random) -> list[Board]:
    """``count`` random 15x15 renju positions of 30 to 80 stones."""
    boards = []
    points = [(x, y) for y in range(15) for x in range(15)]
    for _ in range(count):
        board = Board(15, rule=Rule.RENJU)
        for k, (x, y) in enumerate(rng.sample(points, rng.randint(30, 80))):
            board.place(x, y, BLACK if k % 2 == 0 else WHITE)
        boards.append(board)
    return boards


def near_stone(board: Board, x: int, y: int) -> bool:
    """Whether a stone lies on one of the 8 points around ``(x, y)``."""
    return any(
        board.on_board(x + dx, y + dy) and board[x + dx, y + dy] != EMPTY
        for dx in (-1, 0, 1)
        for dy in (-1, 0, 1)
    )


def pick(boards: list[Board], per_board: int, rng: random.Random, near: bool) -> list[Check]:
    """``per_board`` random empty points of each board (next to a stone when ``near``)."""
    checks: list[Check] = []
    for board in boards:
        empty = [p for p in board.empty_points() if not near or near_stone(board, *p)]
        checks.extend((board, x, y) for x, y in (rng.choice(empty) for _ in range(per_board)))
    return checks


def run_forbidden(checks: list[Check]) -> None:
    for board, x, y in checks:
        forbidden(board, x, y)


def run_baseline(checks: list[Check]) -> None:
    for board, x, y in checks:
        i = board.index(x, y)
        for step in board.directions:
            board.run_length(i, step, BLACK)


def rate(fn: Callable[[list[Check]], None], checks: list[Check], repeat: int) -> float:
    """Best-of-``repeat`` calls per second of ``fn`` over ``checks``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(checks)
        best = min(best, time.perf_counter() - start)
    return len(checks) / best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=200, help="random positions")
    parser.add_argument("--points", type=int, default=100, help="checks per position")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs (best is kept)")
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    boards = make_positions(args.positions, rng)
    random_checks = pick(boards, args.points, rng, near=False)
    near_checks = pick(boards, args.points, rng, near=True)

    _FACTS.clear()
    cold = rate(run_forbidden, random_checks, 1)
    results = {
        "forbidden, random points (cold cache)": cold,
        "forbidden, random points": rate(run_forbidden, random_checks, args.repeat),
        "forbidden, points next to a stone": rate(run_forbidden, near_checks, args.repeat),
        "baseline, 4 run_length calls": rate(run_baseline, random_checks, args.repeat),
    }
    baseline = results["baseline, 4 run_length calls"]
    verdicts = Counter(
        "allowed" if v is None else v.value for v in (forbidden(*c) for c in near_checks)
    )

    if args.json:
        report = {
            "python": sys.version.split()[0],
            "seed": args.seed,
            "positions": args.positions,
            "checks_per_case": len(random_checks),
            "checks_per_second": {name: round(value) for name, value in results.items()},
            "ratio_to_baseline": {
                name: round(value / baseline, 3) for name, value in results.items()
            },
            "verdicts_next_to_a_stone": dict(verdicts),
            "line_cache_entries": len(_FACTS),
        }
        print(json.dumps(report, indent=2))
        return 0

    print(
        f"renju forbidden(): {args.positions} random 15x15 positions, "
        f"{len(random_checks)} checks per case, seed {args.seed}, Python {sys.version.split()[0]}"
    )
    width = max(map(len, results))
    print(f"{'case':<{width}}  {'checks/s':>10}  {'x baseline':>10}")
    for name, value in results.items():
        print(f"{name:<{width}}  {value:>10,.0f}  {value / baseline:>10.2f}")
    print(f"verdicts next to a stone: {dict(verdicts)}; line cache: {len(_FACTS)} entries")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
