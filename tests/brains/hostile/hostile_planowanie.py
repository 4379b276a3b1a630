"""A Planowanie player that speaks the protocol correctly and does one hostile thing.

``hostile_planowanie.py [--mode MODE ARG...]``: the modes are in ``hostility.py`` beside
it; what the player learns it reports on stderr (the referee keeps it in the player's
log). Its turns are ``gen_declare`` and ``gen_move``; it plays like the built-in random
player (seed 0).
"""

from __future__ import annotations

import sys

from hostility import Hostility

from referee.games.planowanie.bots.player import CommandError, PlayerLoop
from referee.games.planowanie.bots.random_player import RandomStrategy


def main() -> None:
    """The protocol loop."""

    def report(text: str) -> None:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()

    hostile = Hostility(sys.argv[1:], report)
    loop = PlayerLoop(RandomStrategy(0), "hostile", "1.0")
    out = sys.stdout
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "set_game":
            hostile.started()
        turn = command in ("gen_declare", "gen_move")
        if turn:
            hostile.turn()
        try:
            text = loop.handle(words)
            out.write(f"= {text}\n\n" if text else "=\n\n")
        except CommandError as exc:
            out.write(f"? {exc}\n\n")
        out.flush()
        if turn:
            hostile.turn_over()
        if command == "quit":
            break
    hostile.finished()


if __name__ == "__main__":
    main()
