"""A value set for the current thread inside a block (the listeners that the match loop
and the process layer call: a tournament's game threads each set their own)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

__all__ = ["scoped_value"]


@contextlib.contextmanager
def scoped_value(local: threading.local, name: str, value: object) -> Iterator[None]:
    """``local.<name>`` is ``value`` inside the block, in this thread; the earlier value
    comes back after it (blocks nest)."""
    previous = getattr(local, name, None)
    setattr(local, name, value)
    try:
        yield
    finally:
        setattr(local, name, previous)
