"""One referee at a time on a tournament's store.

Two ``referee tournament`` runs on one output folder (a second terminal, a cron job) would
kill each other's bots and play the same games twice. The run that writes a store holds an
exclusive ``flock`` on ``tournament.lock`` in its folder from before its first check until
it ends; the kernel releases it when that process ends in any way (``kill -9`` included),
so no stale lock is ever left to clear. The file also says who holds it (pid, host, since
when), for the message the second run prints.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import os
import re
import socket
import time
from pathlib import Path

from referee.core.errors import ConfigError

__all__ = ["StoreLock"]

LOCK_NAME = "tournament.lock"


class StoreLock:
    """The exclusive right to write the store in ``folder`` (see the module)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / LOCK_NAME
        self._fd = -1

    @property
    def held(self) -> bool:
        """Whether this process holds the lock."""
        return self._fd >= 0

    def acquire(self) -> None:
        """Take the lock, or raise ``ConfigError`` naming the run that holds it (or why
        the folder cannot be written)."""
        if self.held:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise ConfigError(f"{self.path.parent}: cannot write the output folder: "
                              f"{exc.strerror or exc}; choose another with --out") from None
        try:
            _lock(fd)
        except BlockingIOError:
            holder = _read(fd)
            for _ in range(25):  # the holder writes who it is just after it locks
                if holder:
                    break
                time.sleep(0.02)
                holder = _read(fd)
            if _gone(holder) and _lock_soon(fd, DEAD_HOLDER_WAIT):
                self._taken(fd)
                return
            os.close(fd)
            raise ConfigError(
                f"{self.path.parent}: another referee is running this tournament "
                f"({holder or 'its process is unknown'}); wait for it to finish, or stop it "
                "(Ctrl-C, or kill its process) and run this command again") from None
        except OSError as exc:
            os.close(fd)
            raise ConfigError(f"{self.path}: cannot lock the store: "
                              f"{exc.strerror or exc}") from None
        self._taken(fd)

    def _taken(self, fd: int) -> None:
        """The lock is this process's: say who holds it, in the file."""
        self._fd = fd
        stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        with contextlib.suppress(OSError):  # who holds it: a courtesy for the message
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}, since {stamp}\n"
                      .encode(), 0)

    def release(self) -> None:
        """Let another run take the store."""
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1


DEAD_HOLDER_WAIT = 10.0
"""Seconds to wait for a lock whose run has ended (``kill -9``): its last bots, started
as it died, may hold it a moment longer until they end too."""


def _lock(fd: int) -> None:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _lock_soon(fd: int, seconds: float) -> bool:
    """Whether the lock is taken within ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(0.05)
        try:
            _lock(fd)
        except BlockingIOError:
            continue
        return True
    return False


def _gone(holder: str) -> bool:
    """Whether the run named in the lock file (``pid N on HOST, since ...``) was on this
    machine and has ended."""
    match = re.match(r"pid (\d+) on (\S+),", holder)
    if match is None or match[2] != socket.gethostname():
        return False
    try:
        os.kill(int(match[1]), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, another user's
        return False
    return False


def _read(fd: int) -> str:
    with contextlib.suppress(OSError):
        return os.pread(fd, 256, 0).decode(errors="replace").strip()
    return ""
