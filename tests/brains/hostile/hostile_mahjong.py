"""An ICGA Mahjong AI that plays like the dummy AI and does hostile things at its first
question: ``hostile_mahjong.py [--mode MODE ARG...]...``, the modes of ``hostility.py``
beside it, several at once (``--mode snoop @PATH --mode net 127.0.0.1:PORT``). What it
learns it reports on stderr (the referee keeps it in the AI's log).
"""

from __future__ import annotations

import random
import sys

from hostility import Hostility

from referee.games.mahjong.bots.player import AIState
from referee.games.mahjong.bots.policies import dummy_policy
from referee.games.mahjong.rules import notation


def report(text: str) -> None:
    """One line on stderr."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def acts(argv: list[str]) -> list[Hostility]:
    """One hostile act per ``--mode`` group of ``argv`` (none: plays normally)."""
    groups: list[list[str]] = []
    for arg in argv:
        if arg == "--mode":
            groups.append([])
        elif groups:
            groups[-1].append(arg)
    return [Hostility(["--mode", *group], report) for group in groups]


def main() -> int:
    """Play one hand (a session), the hostile acts at the first question."""
    hostile = acts(sys.argv[1:])
    state = AIState()
    for act in hostile:
        act.started()
    for line in sys.stdin:
        if line.startswith("/exit"):
            break
        ask = state.hear(line)
        if ask is None:
            continue
        for act in hostile:
            act.turn()
        print(notation(dummy_policy(state.view(ask), random.Random(0))), flush=True)
        for act in hostile:
            act.turn_over()
    for act in hostile:
        act.finished()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
