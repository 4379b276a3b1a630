"""An interrupt (Ctrl-C, SIGTERM) kept as well as raised, so that none is lost.

A signal's handler runs in the main thread at whatever Python code runs there next; when that
code is a finalizer (a weak reference's callback, a ``__del__``, run as the collector frees
something), the ``KeyboardInterrupt`` it raises is reported as "Exception ignored" and the
program goes on as if no signal had come: a tournament went on checking its 20,000 players
after SIGTERM. The handlers the commands install (``cli.support.sigterm_interrupts``) therefore
also :func:`note` the interrupt here, and a loop that waits long in the main thread calls
:func:`raise_if_asked` between its waits.
"""

from __future__ import annotations

import threading

__all__ = ["asked", "clear", "note", "raise_if_asked"]

_asked = threading.Event()


def note() -> None:
    """An interrupt came (called by a signal's handler before it raises)."""
    _asked.set()


def asked() -> bool:
    """Whether an interrupt came since :func:`clear`."""
    return _asked.is_set()


def clear() -> None:
    """Forget the interrupt (its handler is no longer installed, or it was dealt with)."""
    _asked.clear()


def raise_if_asked() -> None:
    """Raise ``KeyboardInterrupt`` if an interrupt came, even one whose own raise was lost."""
    if _asked.is_set():
        raise KeyboardInterrupt
