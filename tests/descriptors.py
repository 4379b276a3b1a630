"""What a test's own process holds open, to check that nothing is left open."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def descriptors_on(folder: Path) -> list[str]:
    """This process's descriptors open on ``folder``."""
    target = str(folder.resolve())
    found = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{fd}") == target:
                found.append(fd)
    return found
