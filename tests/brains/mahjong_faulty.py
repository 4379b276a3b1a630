"""An ICGA Mahjong AI that breaks the protocol one way per ``--mode`` (fault tests).

Plays like the dummy AI (wins when it can, claims nothing, throws what it drew) except for
what its mode breaks. Appends every line it reads to ``received.txt`` in its working
folder, so tests can check exactly what the referee sent (the host's copy of its folder
is written when it ends: docs/sandbox.md), and says ``asked`` on stderr (its log) at its
first question, for tests that must know it is playing.
"""

from __future__ import annotations

import random
import sys
import time

from referee.games.mahjong.bots.player import AIState
from referee.games.mahjong.bots.policies import dummy_policy
from referee.games.mahjong.rules import notation

MODES = {
    "ok": "plays like the dummy AI",
    "garbage": "answers its first /ask throw with 'hello referee'",
    "not-held": "throws a tile it does not hold, the first time",
    "unasked": "answers its first /ask throw with /hu",
    "silent": "never answers its first /ask",
    "crash": "exits at its first /ask",
    "extra": "answers its first /ask throw, then writes a stray /pass nobody asked for",
}


def main() -> int:
    """Play one hand, breaking it as the mode says."""
    mode = sys.argv[sys.argv.index("--mode") + 1] if "--mode" in sys.argv else "ok"
    state = AIState()
    broken = asked = False
    with open("received.txt", "a", encoding="utf-8") as log:
        for line in sys.stdin:
            log.write(line)
            log.flush()
            if line.startswith("/exit"):
                return 0
            ask = state.hear(line)
            if ask is None:
                continue
            if not broken and not asked:
                asked = True
                print("asked", file=sys.stderr, flush=True)
            if not broken and mode == "extra" and ask.value == "throw":
                broken = True
                answer = notation(dummy_policy(state.view(ask), random.Random(0)))
                # a second line, unasked, in the same write: it is there as the answer is
                # read (written later, it could race the next question and be its answer)
                print(f"{answer}\n/pass", flush=True)
                continue
            if not broken and mode not in ("ok", "extra") and (ask.value == "throw" or
                                                               mode in ("silent", "crash")):
                broken = True
                if mode == "crash":
                    return 3
                if mode == "silent":
                    time.sleep(60)
                answer = {"garbage": "hello referee", "not-held": "/throw 999",
                          "unasked": "/hu"}[mode]
                if mode == "not-held":
                    held = set(state.hand)
                    answer = "/throw " + str(next(t for t in range(110, 474)
                                                   if t % 10 < 4 and t not in held
                                                   and t // 10 % 10 in range(1, 10)))
                print(answer, flush=True)
                continue
            print(notation(dummy_policy(state.view(ask), random.Random(0))), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
