"""The random reference AI as a program speaking the ICGA protocol (one hand per run)."""

from __future__ import annotations

from referee.games.mahjong.bots.player import run_ai
from referee.games.mahjong.bots.policies import random_policy


def main() -> int:
    """Answer the referee on standard input and output until /exit."""
    return run_ai(random_policy)


if __name__ == "__main__":
    raise SystemExit(main())
