"""The built-in Gomoku brains in-process: 100 freestyle 15x15 games of threat against random.

Colours alternate (threat is black in the even games); the random brain of game k is seeded
with k, so a run is repeatable up to the threat brain's time budget. Reports the wall time,
games per second, the threat brain's mean time per move and its wins. Baseline, in the same
run: as many games of random against random (the game loop and a trivial brain). (The tests
check that threat wins at least 95 of the 100 games; this script, the time they take.)

Run: ``.venv/bin/python benchmarks/bench_gomoku_brains.py`` (``--games``, ``--json``).
"""

from __future__ import annotations

import argparse
import os
import time

from figures import machine, print_figures

from referee.games.gomoku.board import BLACK, EMPTY, WHITE, Board, opponent
from referee.games.gomoku.bots.brain import Strategy
from referee.games.gomoku.bots.random_brain import RandomStrategy
from referee.games.gomoku.bots.threat_brain import ThreatStrategy


class Timed:
    """A strategy whose moves are counted and timed."""

    def __init__(self, inner: Strategy) -> None:
        self.inner = inner
        self.moves = 0
        self.seconds = 0.0

    def choose(self, board: Board, color: int) -> tuple[int, int]:
        """The inner strategy's move, timed."""
        start = time.perf_counter()
        point = self.inner.choose(board, color)
        self.seconds += time.perf_counter() - start
        self.moves += 1
        return point


def play_game(black: Timed, white: Timed, size: int = 15) -> int:
    """One freestyle game; the winner's colour, or EMPTY for a draw."""
    board = Board(size)
    players = {BLACK: black, WHITE: white}
    color = BLACK
    while not board.is_full():
        x, y = players[color].choose(board, color)
        if board.makes_win(x, y, color):
            return color
        board.place(x, y, color)
        color = opponent(color)
    return EMPTY


def series(games: int, strong: bool) -> tuple[float, int, Timed]:
    """Wall seconds of ``games`` games, the first seat's wins, and its timing."""
    first = Timed(ThreatStrategy() if strong else RandomStrategy(10_000))
    wins = 0
    start = time.perf_counter()
    for game in range(games):
        other = Timed(RandomStrategy(game))
        if game % 2 == 0:
            wins += play_game(first, other) == BLACK
        else:
            wins += play_game(other, first) == WHITE
    return time.perf_counter() - start, wins, first


def main() -> None:
    """Play both series, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    base_wall, _, _ = series(args.games, strong=False)
    wall, wins, threat = series(args.games, strong=True)
    print_figures({
        "machine": machine(),
        "load_average_1min": round(os.getloadavg()[0], 2),
        "games": args.games,
        "random_vs_random_s (baseline)": round(base_wall, 2),
        "threat_vs_random_s": round(wall, 2),
        "threat_vs_random_games_per_s": round(args.games / wall, 2),
        "threat_moves": threat.moves,
        "threat_ms_per_move": round(1000 * threat.seconds / max(threat.moves, 1), 2),
        "threat_wins": wins,
    }, args.json)


if __name__ == "__main__":
    main()
