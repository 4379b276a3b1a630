"""Bots stopped a moment after their answers: the grace before a suspended bot's stop.

A bot suspended off turn used to be stopped the moment its answer was read. Some real
programs are still leaving their thinking state then (Rapfi, the Gomocup brain, finishes
its search's bookkeeping after printing its move): stopped there and continued with the
next command already waiting, it may take that command for one that arrived while it was
thinking, and refuse it (``ERROR Unknown command: TIME_LEFT``). GomocupJudge's manager,
which polls its brains' output every 10 ms and measures their memory before it suspends
them, leaves a brain several milliseconds after its answer. So a suspended bot now runs
on for :data:`STOP_GRACE` after its answer, then is stopped; if the referee needs it
again before then (its next turn), it never stops at all.

The stops fall due in one of two places, whichever comes first:

- the referee's own wait for another bot's line (``BotProcess``'s poll wakes at the
  earliest stop due, makes it, and waits on): the common case, at no cost but a wake-up;
- a thread of its own (:class:`DeferredStops`), for the times the referee waits for
  nothing here (a person's move, a sleep, work of its own).

What a bot computes in its grace is off its turn: at most :data:`STOP_GRACE` a turn
(docs/sandbox.md, "Fair time", measured in docs/benchmarks.md).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

__all__ = ["STOPS", "STOP_GRACE", "DeferredStops"]

STOP_GRACE = 0.005
"""Seconds a suspended bot runs on after its answer before it is stopped."""


class DeferredStops:
    """Stops that fall due at given times, one at most per bot (its key): made by whoever
    asks first (:meth:`run_due`) or by a thread of its own, cancelled by :meth:`cancel`
    (the bot was needed again before). A stop is a callable given its due time, which
    makes the stop only if that is still when it is due."""

    def __init__(self) -> None:
        self._due: dict[object, tuple[float, Callable[[float], None]]] = {}
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        self._planned: float | None = None
        """When the thread wakes next (``None``: when told)."""

    def add(self, key: object, due: float, stop: Callable[[float], None]) -> None:
        """``stop(due)`` at ``due`` (a ``time.monotonic()`` value), in place of any stop
        of ``key`` waiting."""
        with self._lock:
            self._due[key] = (due, stop)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="referee-stops",
                                                daemon=True)
                self._thread.start()
            elif self._planned is None or due < self._planned:
                self._wake.notify()

    def cancel(self, key: object) -> None:
        """No stop of ``key`` is made (one being made is not undone)."""
        if key in self._due:
            with self._lock:
                self._due.pop(key, None)

    def earliest(self) -> float | None:
        """When the next stop falls due (``None``: none is waiting)."""
        if not self._due:
            return None
        waiting = list(self._due.values())  # (whole under the GIL: another thread may
        return min((at for at, _ in waiting), default=None)  # take the last meanwhile)

    def run_due(self, now: float | None = None) -> None:
        """Make every stop due by ``now`` (default: the clock's)."""
        if not self._due:
            return
        now = time.monotonic() if now is None else now
        with self._lock:
            found = [(key, at, stop) for key, (at, stop) in self._due.items() if at <= now]
            for key, _, _ in found:
                del self._due[key]
        for _, at, stop in found:
            stop(at)

    def _run(self) -> None:
        while True:
            with self._lock:
                self._planned = min((at for at, _ in self._due.values()), default=None)
                wait = None if self._planned is None else self._planned - time.monotonic()
                if wait is None or wait > 0:
                    self._wake.wait(wait)
            self.run_due()


STOPS = DeferredStops()
"""The stops of every bot of this process."""
