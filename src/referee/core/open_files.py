"""The referee's own limit on open files, raised for the bots it runs at once: each holds
about 20 of its descriptors (a tournament of many games at once needs thousands, where a
soft limit of 1,024 is common)."""

from __future__ import annotations

import errno
import resource

__all__ = ["FILES_PER_BOT", "SHORT_OF", "make_room_for"]

SHORT_OF = frozenset({errno.EMFILE, errno.ENFILE, errno.EAGAIN, errno.ENOMEM})
"""Errors that say the referee's machine is short of open files, processes or memory (a
bot that cannot start for one of them is not at fault)."""


FILES_PER_BOT = 24
"""Descriptors the referee holds for one running bot, with room to spare (a sandboxed
bot takes about 20: its pipes, its pidfds, the files of ``/proc`` kept open to walk and
measure it, its folders and its log)."""

_FILES_BESIDES = 256
"""Descriptors the referee holds besides its bots' (the store, logs, the live view)."""


def make_room_for(bots: int) -> int | None:
    """Raise the referee's soft limit on open files, as far as its hard limit allows, to
    hold ``bots`` bots running at once; ``None`` if it now does, else how many bots it
    holds. (Past it a bot cannot start, which stops a tournament; a bot's own limit is
    set by the sandbox, or, without one, is the referee's.)"""
    need = _FILES_BESIDES + bots * FILES_PER_BOT
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < need:
            soft = need if hard == resource.RLIM_INFINITY else min(need, hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    except (OSError, ValueError):
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY or soft >= need:
        return None
    return max(0, (soft - _FILES_BESIDES) // FILES_PER_BOT)
