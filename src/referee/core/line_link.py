"""A program that runs somewhere else, as the protocol code sees a bot process.

A program joining a table over the network (``referee connect GAME URL``) speaks its
game's line protocol as it would over pipes; the connection carries the lines. On the
server the game's own protocol code drives it through a ``LineLink``: the part of
``BotProcess``'s interface that code uses (``send``, ``read_line``, ``pending_line``,
``running``, ``stop``...), over a queue the transport feeds (``feed``, ``hang_up``) and a
function that sends a line back. Its faults are a process's: no answer in time is a
TIMEOUT, a closed connection a CRASH, a line over the limit a PROTOCOL_ERROR. The CPU it
uses is not known here (``cpu_time`` is 0). Nothing here knows a transport or a game.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable

from referee.core.errors import BotFault
from referee.core.outcome import Outcome

__all__ = ["MAX_LINE", "LineLink"]

MAX_LINE = 1 << 16
"""The longest line a linked program may send (characters), as pipes limit theirs."""
QUEUED = 10_000
"""Lines a linked program may send ahead before it is cut off (a flood)."""


class LineLink:
    """A program's lines over a link (see the module)."""

    def __init__(self, name: str, send_line: Callable[[str], None],
                 close: Callable[[str], None] | None = None) -> None:
        self.name = name
        self._send_line = send_line
        self._close = close
        self._lines: queue.Queue[str | None] = queue.Queue(maxsize=QUEUED + 1)
        self._open = True
        self._why = "closed its connection"
        self._lock = threading.Lock()
        self.suspend_off_turn = False
        self.suspended = False

    # -- the transport's side -----------------------------------------------------------
    def feed(self, line: str) -> bool:
        """A line the program sent; ``False`` once it floods or sends too long a line (the
        link is then closed and its next read faults)."""
        if not self._open:
            return False
        if len(line) > MAX_LINE:
            self.hang_up(f"sent a line of {len(line)} characters (over {MAX_LINE})",
                         fault=Outcome.PROTOCOL_ERROR)
            return False
        try:
            self._lines.put_nowait(line.rstrip("\r\n"))
        except queue.Full:
            self.hang_up(f"sent over {QUEUED} lines ahead", fault=Outcome.PROTOCOL_ERROR)
            return False
        return True

    def hang_up(self, why: str = "closed its connection",
                fault: Outcome = Outcome.CRASH) -> None:
        """The connection is gone (or cut off): what waits for a line faults."""
        with self._lock:
            if not self._open:
                return
            self._open = False
            self._why = why
            self._fault = fault
        try:
            self._lines.put_nowait(None)
        except queue.Full:  # a flood filled it: make room for the end
            self._drop_one()
            self._lines.put_nowait(None)

    def _drop_one(self) -> None:
        with contextlib.suppress(queue.Empty):
            self._lines.get_nowait()

    # -- the protocol code's side (BotProcess's interface) ------------------------------
    @property
    def running(self) -> bool:
        """Whether the link is open."""
        return self._open

    def send(self, text: str, deadline: float | None = None) -> None:
        """Send ``text`` (one or more lines); CRASH if the link is closed."""
        if not self._open:
            raise self._dead()
        for line in text.splitlines():
            self._send_line(line)

    def read_line(self, deadline: float | None, *, keep_empty: bool = False) -> str:
        """The next line (non-empty unless ``keep_empty``) before ``deadline``."""
        while True:
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                raise BotFault(Outcome.TIMEOUT, "no answer in time")
            try:
                line = self._lines.get(timeout=wait)
            except queue.Empty:
                raise BotFault(Outcome.TIMEOUT, "no answer in time") from None
            if line is None:
                self._lines.put_nowait(None)  # every later read faults too
                raise self._dead()
            if line.strip() or keep_empty:
                return line if line.strip() else ""

    def pending_line(self, *, keep_empty: bool = False, read: bool = False) -> str | None:
        """A line already received, without waiting."""
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return None
            if line is None:
                self._lines.put_nowait(None)
                return None
            if line.strip() or keep_empty:
                return line if line.strip() else ""

    def pending_lines(self) -> list[str]:
        """Every non-empty line already received."""
        lines = []
        while (line := self.pending_line()) is not None:
            lines.append(line)
        return lines

    def cpu_time(self) -> float:
        """Not known for a program elsewhere: 0."""
        return 0.0

    def begin_game(self, seat: int | None) -> None:
        """Nothing to note: its log is its own."""

    def end_game(self, timeout: float = 1.0) -> None:
        """Nothing to note."""

    def end_turn(self) -> None:
        """Nothing to check: its folders are its own."""

    def suspend(self) -> None:
        """A program elsewhere is not suspended."""

    def resume(self) -> None:
        """A program elsewhere is not suspended."""

    def stop(self, grace: float = 1.0) -> None:
        """Close the link (the program is told, by its connection's end)."""
        self.kill()

    def kill(self) -> None:
        """Close the link now."""
        was_open = self._open
        self.hang_up("the referee closed the connection")
        if was_open and self._close is not None:
            self._close("the game is over for this seat")

    def wait_stderr(self, timeout: float = 1.0) -> None:
        """No standard error here."""

    def last_stderr_line(self, limit: int = 200) -> str:
        """No standard error here."""
        return ""

    @property
    def pid(self) -> int | None:
        """No process here."""
        return None

    @property
    def returncode(self) -> int | None:
        """No process here."""
        return None

    def peak_memory(self) -> int:
        """Not known."""
        return 0

    def _dead(self) -> BotFault:
        return BotFault(getattr(self, "_fault", Outcome.CRASH), self._why)
