"""Speed of the incremental tracker of renju forbidden points (``ForbiddenTracker``)
against a full scan after every stone, as a game replay showing them at each step needs.

Random renju-like 15x15 games from a fixed seed: 60 to 100 stones, black and white in
turn, gathered round the centre (each coordinate a rounded normal draw, mean 7, spread 3,
as in ``tests/games/gomoku/test_renju.py``'s mid-game sweep). For every game, all in the
same run:

* full scan: the stone on a ``Board``, then ``renju.forbidden()`` on every empty point,
  after every stone (what showing the forbidden points at each step costs without the
  tracker);
* tracker: ``ForbiddenTracker.place`` then ``points()`` after every stone.

Both give the same forbidden points at every step (checked on a first pass, untimed).
Figures: milliseconds per game (best of ``--rounds`` passes over all games, the line cache
warm), the same on a first pass with the cache emptied (cold), and the ratio of the full
scan's time to the tracker's.

Run: ``.venv/bin/python benchmarks/bench_forbidden_track.py [--games 100] [--rounds 5]
[--json]``
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections import Counter
from collections.abc import Callable

from figures import machine, print_figures

from referee.games.gomoku.board import BLACK, WHITE, Board, Rule
from referee.games.gomoku.forbidden_track import ForbiddenTracker
from referee.games.gomoku.renju import _FACTS, Forbidden, RenjuJudge, forbidden

SIZE = 15
Game = list[tuple[int, int, int]]
Steps = list[dict[tuple[int, int], Forbidden]]


def make_games(count: int, rng: random.Random) -> list[Game]:
    """``count`` random games of 60 to 100 stones, clustered round the centre."""
    games = []
    for _ in range(count):
        taken: set[tuple[int, int]] = set()
        game: Game = []
        length = rng.randint(60, 100)
        while len(game) < length:
            x = min(SIZE - 1, max(0, round(rng.gauss(7, 3))))
            y = min(SIZE - 1, max(0, round(rng.gauss(7, 3))))
            if (x, y) not in taken:
                taken.add((x, y))
                game.append((x, y, BLACK if len(game) % 2 == 0 else WHITE))
        games.append(game)
    return games


def full_scan(game: Game, judge: RenjuJudge) -> Steps:
    """The forbidden points after every stone, by ``forbidden()`` on every empty point."""
    board = Board(SIZE, rule=Rule.RENJU)
    steps = []
    for x, y, color in game:
        board.place(x, y, color)
        found = {}
        for px, py in board.empty_points():
            verdict = forbidden(board, px, py, judge)
            if verdict is not None:
                found[px, py] = verdict
        steps.append(found)
    return steps


def tracked(game: Game, judge: RenjuJudge) -> Steps:
    """The forbidden points after every stone, by the tracker."""
    tracker = ForbiddenTracker(SIZE, SIZE, judge)
    steps = []
    for x, y, color in game:
        tracker.place(x, y, color)
        steps.append(tracker.points())
    return steps


def seconds(fn: Callable[[Game, RenjuJudge], Steps], games: list[Game], judge: RenjuJudge,
            rounds: int) -> float:
    """Best-of-``rounds`` time of ``fn`` over all ``games``."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for game in games:
            fn(game, judge)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    """Make the games, check the tracker, time both ways; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100, help="random games")
    parser.add_argument("--rounds", type=int, default=5, help="timed passes (best is kept)")
    parser.add_argument("--judge", type=RenjuJudge.parse, default=RenjuJudge.RIF,
                        help="rif or gomocup")
    parser.add_argument("--seed", type=int, default=20240611)
    parser.add_argument("--json", action="store_true", help="one JSON line")
    args = parser.parse_args()
    judge: RenjuJudge = args.judge

    load_start = os.getloadavg()[0]
    games = make_games(args.games, random.Random(args.seed))
    stones = sum(map(len, games))

    _FACTS.clear()
    cold_tracker = seconds(tracked, games, judge, 1)
    _FACTS.clear()
    cold_scan = seconds(full_scan, games, judge, 1)
    verdicts: Counter[str] = Counter()
    for game in games:
        steps = full_scan(game, judge)
        if tracked(game, judge) != steps:
            raise SystemExit("the tracker and the full scan disagree")
        verdicts.update(v.value for step in steps for v in step.values())
    scan = seconds(full_scan, games, judge, args.rounds)
    tracker = seconds(tracked, games, judge, args.rounds)

    def per_game(total: float) -> str:
        return f"{1000 * total / len(games):.2f} ms"

    print_figures({
        "machine": machine(),
        "load average (1 min) at start, end": f"{load_start:.2f}, {os.getloadavg()[0]:.2f}",
        "games": f"{len(games)} random {SIZE}x{SIZE} games, {stones} stones "
                 f"({stones / len(games):.0f} a game), seed {args.seed}, judge {judge.value}",
        "forbidden points over all steps (same both ways)":
            ", ".join(f"{n} {kind}" for kind, n in sorted(verdicts.items())),
        "full scan per game (warm cache)": per_game(scan),
        "tracker per game (warm cache)": per_game(tracker),
        "full scan / tracker (warm)": f"{scan / tracker:.1f}x",
        "full scan per game (cold cache, first pass)": per_game(cold_scan),
        "tracker per game (cold cache, first pass)": per_game(cold_tracker),
        "full scan / tracker (cold)": f"{cold_scan / cold_tracker:.1f}x",
        "tracker per stone (warm)": f"{1e6 * tracker / stones:.1f} µs",
    }, args.json)


if __name__ == "__main__":
    main()
