"""A step of a tournament's start that takes long, said while it runs: a file of 20,000
players is read in a second or two, but starting each of them once to check it takes
minutes, during which nothing else is shown.

A step says nothing if it ends within a second (half a second for reading the file, the
first: a small tournament starts as before); past it, one line says what is being done
(``starting each of the 20,000 players once to check it, 4 at a time``), and then one
every ten seconds how far it got (``...: 1,200 of 20,000 done``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["Say", "SlowStep", "quiet", "slow_step"]

Say = Callable[[str], None]
"""Where the lines go (the command line: ``referee: TEXT`` on standard error)."""


def quiet(text: str) -> None:
    """Say nothing (a tournament run from Python, unless it asks for the lines)."""


class SlowStep:
    """One step: what it does, how many things it does (``total``, 0 if not counted) and
    how many are done (:meth:`done_one`, from any thread)."""

    def __init__(self, say: Say, text: str, total: int = 0, first: float = 1.0,
                 every: float = 10.0) -> None:
        """A step said through ``say`` after ``first`` seconds, then every ``every``."""
        self.say = say
        self.text = text
        self.total = total
        self.first = first
        self.every = every
        self.done = 0
        self._lock = threading.Lock()
        self._over = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="slow step", daemon=True)

    def done_one(self) -> None:
        """Count one thing done."""
        with self._lock:
            self.done += 1

    def start(self) -> None:
        """Begin timing the step."""
        self._thread.start()

    def stop(self) -> None:
        """The step is over: nothing more is said."""
        self._over.set()
        self._thread.join()

    def _watch(self) -> None:
        if self._over.wait(self.first):
            return
        self.say(self.text)
        while not self._over.wait(self.every):
            if self.total:
                self.say(f"{self.text}: {self.done:,} of {self.total:,} done")


@contextmanager
def slow_step(say: Say, text: str, total: int = 0, first: float = 1.0) -> Iterator[SlowStep]:
    """The block as a :class:`SlowStep` (said only if it lasts over ``first`` seconds)."""
    step = SlowStep(say, text, total, first)
    step.start()
    try:
        yield step
    finally:
        step.stop()
