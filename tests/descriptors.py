"""What a test's own process holds open, to check that nothing is left open."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def open_paths() -> dict[str, str]:
    """This process's descriptors (their numbers, as text) and the paths they are open on."""
    found = {}
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            found[fd] = os.readlink(f"/proc/self/fd/{fd}")
    return found


def descriptors_on(folder: Path) -> list[str]:
    """This process's descriptors open on ``folder``."""
    target = str(folder.resolve())
    return [fd for fd, path in open_paths().items() if path == target]


def proc_files_of(pids: set[int]) -> list[str]:
    """The files of ``/proc/PID`` this process holds open, for these pids."""
    found = []
    for path in open_paths().values():
        parts = path.split("/")
        if len(parts) > 2 and parts[1] == "proc" and parts[2].isdigit() \
                and int(parts[2]) in pids:
            found.append(path)
    return found
