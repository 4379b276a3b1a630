"""The garbage collector tuned for a long-running server process.

A server that relays thousands of states a second makes short-lived objects by the
million; with the interpreter's default thresholds its collector runs a young collection
every 700 allocations and, every so often, a full one over every object the process holds
(its imported modules, its connections), which holds the interpreter for tens of
milliseconds at a time: the tail of a move's way to its spectators. So the objects made
while starting (modules, configuration) are moved out of the collector's sight
(``gc.freeze``) once the process is up, and the young generation is collected less often;
reference counting still frees what is not in a cycle at once, and cycles are still
collected, later.
"""

from __future__ import annotations

import gc

__all__ = ["YOUNG_THRESHOLD", "settle_collector"]

YOUNG_THRESHOLD = 50_000
"""Allocations (less deallocations) between two collections of the young generation
(the interpreter's default: 700)."""


def settle_collector() -> None:
    """Collect once, freeze what the process holds now, collect young objects less often."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
