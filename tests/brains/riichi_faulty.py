"""An mjai bot that breaks the protocol one way per ``--mode`` (riichi fault tests).

Plays like the tsumogiri bot except at its first ``--times`` decisions (default 1), where
the mode breaks the answer. Appends every line it reads to ``received.txt`` in its
working folder, so tests can check exactly what the referee sent.
"""

from __future__ import annotations

import json
import sys
import time

from referee.games.riichi.bots.player import View, decide
from referee.games.riichi.bots.tsumogiri import policy

MODES = {
    "ok": "plays like the tsumogiri bot",
    "garbage": "answers 'hello referee'",
    "unknown": "answers a message of an unknown type",
    "badtile": "discards a tile named '0m'",
    "illegal": "discards a tile it does not hold (or pons without the tiles)",
    "late": "answers 5 s after it is asked (late for a test's 2 s decision time)",
    "unasked": "answers a discard to the first line after the deal that asks nothing",
    "late-none": "answers none 3 s late to the first line after the deal that asks nothing",
    "crash": "exits",
    "hang": "reads on but never answers again, from its first decision on",
    "slow-start": "spends 0.8 s of CPU before it reads anything, then plays well",
    "busy": "spends 0.05 s of CPU before answering (plays well)",
    "busy-after": "spends 0.05 s of CPU just after answering (plays well)",
}
BUSY = 0.05
ASKS_NOTHING = ("unasked", "late-none")
"""The modes that break an answer to a line that asks nothing."""


def spin(seconds: float) -> None:
    """Use ``seconds`` of CPU."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def main() -> int:
    """Play a game, breaking the first decisions as the mode says."""
    args = sys.argv[1:]
    mode = args[args.index("--mode") + 1] if "--mode" in args else "ok"
    times = int(args[args.index("--times") + 1]) if "--times" in args else 1
    view = View()
    broken = 0
    after = False
    if mode == "slow-start":
        end = time.process_time() + 0.8
        while time.process_time() < end:
            pass
    with open("received.txt", "a", encoding="utf-8") as log:
        for line in sys.stdin:
            log.write(line)
            log.flush()
            data = json.loads(line)
            events = data if isinstance(data, list) else [data]
            for event in events:
                view.update(event)
            answer = json.dumps(decide(view, policy))
            asks_nothing = view.decision is None and view.hand and "start_kyoku" not in line
            if mode in ASKS_NOTHING and asks_nothing and broken < times:
                broken += 1
                if mode == "unasked":
                    answer = json.dumps({"type": "dahai", "actor": view.seat,
                                         "pai": view.hand[0], "tsumogiri": False})
                else:
                    time.sleep(3.0)
            elif (mode not in ("ok", *ASKS_NOTHING) and view.decision in ("tsumo", "call", "reach")
                  and broken < times):
                broken += 1
                if mode == "busy":
                    spin(BUSY)
                after = mode == "busy-after"
                if mode == "garbage":
                    answer = "hello referee"
                elif mode == "unknown":
                    answer = json.dumps({"type": "tsumogiri_please", "actor": view.seat})
                elif mode == "badtile":
                    answer = json.dumps({"type": "dahai", "actor": view.seat, "pai": "0m",
                                         "tsumogiri": True})
                elif mode == "illegal":
                    held = {n for n in view.hand}
                    pai = next(n for n in ("1m", "9p", "C", "E") if n not in held)
                    answer = json.dumps({"type": "dahai", "actor": view.seat, "pai": pai,
                                         "tsumogiri": False})
                elif mode == "late":
                    time.sleep(5.0)
                elif mode == "crash":
                    return 3
                elif mode == "hang":
                    for _ in sys.stdin:  # reads what it is told, says nothing
                        pass
                    return 0
            sys.stdout.write(answer + "\n")
            sys.stdout.flush()
            if after:
                spin(BUSY)
                after = False
            if any(e.get("type") == "end_game" for e in events):
                return 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
