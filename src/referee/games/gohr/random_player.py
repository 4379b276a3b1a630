"""A sample player that moves at random through the captive server and leaves a results
file, as the reference ships one for the leaderboards (``python -m
referee.games.gohr.random_player --episodes 5 -- RULES 9 log=results.csv``)."""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence

from referee.games.gohr.client import CaptiveClient


def main(argv: Sequence[str] | None = None) -> int:
    """Play ``--episodes`` episodes with random moves; the server writes the log."""
    parser = argparse.ArgumentParser(
        prog="gohr-random", description="Random GOHR player over the pipe server.")
    parser.add_argument("--episodes", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0, help="seed of the player's moves")
    parser.add_argument("--max-moves", type=int, default=10_000,
                        help="give up an episode after this many attempts")
    parser.add_argument("server_args", nargs="+", help="arguments of referee gohr")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    with CaptiveClient.pipe(args.server_args) as client:
        status = client.opening
        for number in range(args.episodes):
            if number:
                status = client.new()
            assert status is not None
            while status.finish == 0 and status.attempts < args.max_moves:
                piece = rng.choice([int(p["id"]) for p in status.pieces])
                status = client.move(piece, rng.randrange(4))
            print(f"episode {number + 1}: {status.attempts} moves, "
                  f"{'cleared' if status.finish == 1 else 'not cleared'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
