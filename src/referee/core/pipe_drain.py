"""Reading a bot's output pipe to its end in a thread of its own: its stderr into its
log, or its stdout to a relay.

A :class:`PipeDrain` reads chunk by chunk and hands each to a sink; past its limit it
calls ``on_flood`` once (the bot is killed for flooding) and goes on reading, so that
the bot never blocks on a full pipe. Each chunk is read and handed over under a lock, so
:meth:`PipeDrain.settle` can tell when everything written into the pipe so far has
reached the sink (a kept bot's part of its log ends between two games).

A :class:`CappedLog` is the sink that appends to a log file up to a cap: past it, one
notice line, and the rest is counted but not written, so a bot cannot fill the disk.
"""

from __future__ import annotations

import array
import contextlib
import fcntl
import logging
import os
import select
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

log = logging.getLogger(__name__)

_READ_CHUNK = 65536
_POLL_IN = select.POLLIN | select.POLLPRI | select.POLLHUP | select.POLLERR

__all__ = ["CappedLog", "PipeDrain"]


class CappedLog:
    """A sink appending to ``path`` up to ``cap`` bytes (a notice counting toward it)."""

    def __init__(self, path: Path, cap: int) -> None:
        """Open ``path`` for appending (its folder made if need be)."""
        notice = f"\n[referee: stderr cut at {cap} bytes]\n".encode()
        self._notice = notice if len(notice) <= cap else b""
        self._room = cap - len(self._notice)
        self.dropped = 0
        """Bytes not written: past the cap, or once the file could not be written."""
        self._broken = False
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes] = open(path, "ab")  # noqa: SIM115 - closed by close()

    def __call__(self, data: bytes) -> None:
        """Append ``data`` (what fits) and flush. A file that cannot be written (a full
        disk) takes nothing more: the rest is counted as dropped, and the pipe is still
        drained."""
        if self._broken:
            self.dropped += len(data)
            return
        room = max(self._room, 0)
        try:
            if room > 0:
                self._file.write(data[:room])
                self._room -= min(room, len(data))
            if len(data) > room:
                if not self.dropped:  # the first byte dropped: say so, once
                    self._file.write(self._notice)
                self.dropped += len(data) - room
            self._file.flush()
        except (OSError, ValueError) as exc:
            log.warning("%s: not written (%s): the rest of this stderr is dropped",
                        self.path, exc)
            self._broken = True
            self.dropped += len(data)

    def close(self) -> None:
        """Close the file."""
        with contextlib.suppress(OSError):  # (a full disk's buffered bytes: dropped)
            self._file.close()


class PipeDrain:
    """One output pipe of a bot, read to its end by a daemon thread (see the module)."""

    def __init__(self, stream: IO[bytes], name: str, sink: Callable[[bytes], None], *,
                 limit: int | None = None, on_flood: Callable[[], None] | None = None,
                 on_end: Callable[[], None] | None = None) -> None:
        """Drain ``stream`` into ``sink`` once :meth:`start` is called; ``on_flood`` past
        ``limit`` bytes, ``on_end`` when the pipe is closed (both from the thread)."""
        self.stream = stream
        self.sink = sink
        self.limit = limit
        self.on_flood = on_flood
        self.on_end = on_end
        self.total = 0
        """Bytes read so far."""
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> PipeDrain:
        """Start the thread; returns the drain."""
        self.thread.start()
        return self

    def _run(self) -> None:
        flooded = False
        try:
            fd = self.stream.fileno()
            poller = select.poll()
            poller.register(fd, _POLL_IN)
            while True:
                poller.poll()
                with self._lock:  # a chunk is read and handed over as one (``settle``)
                    data = os.read(fd, _READ_CHUNK)
                    if not data:
                        break
                    self.total += len(data)
                    if not flooded and self.limit is not None and self.total > self.limit:
                        flooded = True
                        if self.on_flood is not None:
                            self.on_flood()
                    self.sink(data)
        except (OSError, ValueError):
            pass
        if self.on_end is not None:
            self.on_end()

    def settle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until what was written into the pipe so far
        has reached the sink; whether it did."""
        deadline = time.monotonic() + timeout
        count = array.array("i", [0])
        while True:
            with self._lock:
                try:
                    fcntl.ioctl(self.stream.fileno(), termios.FIONREAD, count)
                except (OSError, ValueError):  # closed: nothing more will come
                    return True
                if count[0] == 0:
                    return True
            if not self.thread.is_alive() or time.monotonic() >= deadline:
                return False
            time.sleep(0.0002)

    def end(self, close: bool) -> None:
        """Wait a moment for the thread to read the end of its pipe (the bot is dead);
        if it does not (a stray process still holds the pipe) and ``close``, close the
        stream under it."""
        if not self.thread.is_alive() or self.thread is threading.current_thread():
            return
        self.thread.join(timeout=2)
        if close and self.thread.is_alive():
            with contextlib.suppress(OSError):
                self.stream.close()
            self.thread.join(timeout=0.5)  # it ends at its next read: let it write what it had
