"""The stops due a moment after a suspended bot's answer (``core.deferred_stops``): made
once, by whoever comes first, and read safely from every game thread."""

from __future__ import annotations

import threading
import time

from referee.core.deferred_stops import DeferredStops


def test_the_stops_due_are_asked_for_while_another_thread_makes_them() -> None:
    """The earliest stop is read by every wait of the referee's game threads while the
    thread of stops (or another game's wait) takes the last one: never an error."""
    stops = DeferredStops()
    errors: list[BaseException] = []
    done = threading.Event()

    def ask() -> None:
        try:
            while not done.is_set():
                stops.earliest()
        except BaseException as exc:  # (the old code: min() of an empty sequence)
            errors.append(exc)

    askers = [threading.Thread(target=ask) for _ in range(3)]
    for thread in askers:
        thread.start()
    for turn in range(100_000):
        stops.add(turn % 7, time.monotonic(), lambda at: None)
        stops.run_due()
    done.set()
    for thread in askers:
        thread.join()
    assert errors == []


def test_a_stop_is_made_once_when_due_and_not_at_all_when_cancelled() -> None:
    stops = DeferredStops()
    made: list[tuple[str, float]] = []
    now = time.monotonic()
    stops.add("a", now + 0.05, lambda at: made.append(("a", at)))
    stops.add("b", now + 0.05, lambda at: made.append(("b", at)))
    stops.add("a", now + 0.06, lambda at: made.append(("a", at)))  # a's later stop instead
    stops.cancel("b")
    assert stops.earliest() == now + 0.06
    stops.run_due(now)  # not due yet
    assert made == []
    deadline = time.monotonic() + 5
    while not made and time.monotonic() < deadline:  # the thread makes it on time
        time.sleep(0.005)
    assert made == [("a", now + 0.06)] and stops.earliest() is None
    stops.run_due(time.monotonic() + 1)  # nothing twice
    assert made == [("a", now + 0.06)]
