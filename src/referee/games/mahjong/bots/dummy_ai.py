"""The default dummy AI as a program speaking the ICGA protocol (one hand per run): it
wins when it can, claims nothing and throws what it drew (the framework's dummy, which
takes over a faulty seat; a web table's pinch-hitter)."""

from __future__ import annotations

from referee.games.mahjong.bots.player import run_ai
from referee.games.mahjong.bots.policies import dummy_policy


def main() -> int:
    """Answer the referee on standard input and output until /exit."""
    return run_ai(dummy_policy)


if __name__ == "__main__":
    raise SystemExit(main())
