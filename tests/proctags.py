"""Tagging the processes a test starts, to find (and kill) any it leaves behind.

A test puts ``TAG=<unique value>`` in the environment of what it runs; every bot process
inherits it, so ``tagged(value)`` finds them however they were started.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence

import psutil

TAG = "REFEREE_TEST_TAG"


def tagged(tag: str) -> list[psutil.Process]:
    """Live (non-zombie) processes whose environment carries ``TAG=tag``."""
    found = []
    for proc in psutil.process_iter():
        if proc.pid == os.getpid():
            continue
        try:
            if proc.environ().get(TAG) == tag and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except psutil.Error:
            continue
    return found


def running(pids: Sequence[int]) -> list[int]:
    """The pids of ``pids`` still running (zombies, and processes gone, are not)."""
    alive = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.NoSuchProcess:
            continue
    return alive


def kill_tagged(tag: str) -> None:
    """Kill every live process carrying ``tag``."""
    for proc in tagged(tag):
        with contextlib.suppress(psutil.Error):
            proc.kill()


def left_behind(tag: str, seconds: float = 5.0) -> list[psutil.Process]:
    """The processes carrying ``tag`` still alive after up to ``seconds`` (killed ones
    take a moment to go); any left are then killed, so the next test starts clean."""
    deadline = time.monotonic() + seconds
    while (left := tagged(tag)) and time.monotonic() < deadline:
        time.sleep(0.05)
    kill_tagged(tag)
    return left
