"""Processes reached through pidfds: a descriptor that stays bound to one process, so
that a signal through it never reaches another that took its pid, and that wakes a
``poll`` the moment the process ends."""

from __future__ import annotations

import math
import os
import select
import signal

__all__ = ["exited_within", "pidfd_of", "pidfd_signal", "wait_exit"]


def pidfd_of(pid: int) -> int:
    """A pidfd of ``pid`` (signals through it cannot reach a process that reused the
    pid), -1 if it cannot be had."""
    try:
        return os.pidfd_open(pid)
    except OSError:
        return -1


def pidfd_signal(fd: int, sig: int) -> bool:
    """Send ``sig`` through pidfd ``fd``; whether the process still runs."""
    if fd < 0:
        return False
    try:
        signal.pidfd_send_signal(fd, sig)
    except OSError:
        return False
    return True


def wait_exit(pid: int, seconds: float) -> bool:
    """Wait up to ``seconds`` for process ``pid`` to end (without reaping it); whether
    it has (``False`` also if it cannot be watched)."""
    fd = pidfd_of(pid)
    if fd < 0:
        return False
    try:
        return exited_within(fd, seconds)
    finally:
        os.close(fd)


def exited_within(pidfd: int, seconds: float) -> bool:
    """Wait up to ``seconds`` for the process of ``pidfd`` to end (without reaping it),
    woken the moment it does; whether it has. ``poll``, not ``select``, which refuses a
    descriptor numbered 1,024 or more (a referee with many games open has those)."""
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    return bool(poller.poll(max(0, math.ceil(min(seconds, _LONGEST_POLL) * 1000))))


_LONGEST_POLL = 2_000_000.0
"""Seconds: ``poll`` takes its timeout as milliseconds in a C ``int`` (about 24 days)."""
