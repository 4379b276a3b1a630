"""The bot processes of this referee that are alive: every one killed at once (a stop of
the whole referee), and listeners told of each one a thread starts (a tournament notes
what must survive a crash of the referee)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from referee.core.scoped import scoped_value

if TYPE_CHECKING:
    from referee.core.process import BotProcess

__all__ = ["allow_processes", "kill_all_processes", "spawn_listener", "stop_all_processes"]

_LIVE: set[BotProcess] = set()
"""The bot processes started and not killed yet (for :func:`kill_all_processes`). Not a
weak set: the compiled build's classes take no weak references. A process that exited by
itself without being killed is dropped at the next start, so the set never keeps one
alive for long."""
_LIVE_LOCK = threading.Lock()
_LOCAL = threading.local()


def spawn_listener(listener: Callable[[BotProcess], None]
                   ) -> contextlib.AbstractContextManager[None]:
    """Call ``listener`` for every bot process this thread starts inside the block: once
    just before it is spawned (its ``token`` set, its ``pid`` still ``None``: what must
    survive a crash of the referee can be noted then) and once when it runs; and for a
    process kept from an earlier game when it begins another (``games`` over 1). Blocks nest:
    the listeners of the blocks around this one are called too (theirs first)."""
    outer: Callable[[BotProcess], None] | None = getattr(_LOCAL, "listener", None)
    if outer is None:
        return scoped_value(_LOCAL, "listener", listener)

    def both(process: BotProcess) -> None:
        outer(process)
        listener(process)

    return scoped_value(_LOCAL, "listener", both)


def kill_all_processes() -> int:
    """Kill every bot process still running (all threads); returns how many."""
    with _LIVE_LOCK:
        live = [p for p in _LIVE if p.running]
    for process in live:
        process.kill()
    return len(live)


_stopping = threading.Event()


def stop_all_processes() -> int:
    """Kill every bot process and refuse to start new ones until ``allow_processes``.

    A game that is starting a bot at that very moment gets a ``BotFault`` instead of a
    bot that outlives the stop. Returns how many were killed.
    """
    with _LIVE_LOCK:
        _stopping.set()
    return kill_all_processes()


def allow_processes() -> None:
    """Allow bot processes to start again (after ``stop_all_processes``)."""
    _stopping.clear()
