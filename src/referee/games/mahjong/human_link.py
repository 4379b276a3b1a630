"""A seat played by a person through the wrapper (``referee connect mahjong --human``).

The server's lines are read by a thread of their own, so that the server is heard while
the person is choosing an answer: a line that comes then (its early ``/exit``: the seat's
time ran out and its dummy AI plays on) cuts the question short (:class:`ServerSpoke`),
and the console tells the person what happened instead of waiting for a choice nobody
will read. The person's lines come from a line editor on a terminal (cut short through
its ``interrupt``), or from standard input, read by a thread as lines come (lines typed
ahead wait for their question).
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable, Iterable
from typing import Protocol, TextIO

from referee.core.errors import RefereeError
from referee.games.mahjong.human import HumanConsole

__all__ = ["Editor", "PersonLink", "ServerSpoke"]


class ServerSpoke(RefereeError):
    """The server sent a line while the person was choosing: the question is cut short
    (the line is heard next)."""


class Editor(Protocol):
    """A line editor that another thread may interrupt (``cli.line_input.LineEditor``)."""

    def __call__(self, prompt: str | None = None) -> str | None:
        """The next line typed after ``prompt`` (``None`` at the end)."""

    def interrupt(self) -> None:
        """End the line being read (it raises the editor's own exception)."""


_SERVER, _TYPED = "server", "typed"


class PersonLink:
    """The server's lines and the person's, for one console: :meth:`run` hears every
    server line (``hear``), the console's questions read the person through :meth:`read`
    (set as its reader)."""

    def __init__(self, console: HumanConsole, stdin: TextIO,
                 editor: Editor | None = None) -> None:
        self.console = console
        self.stdin = stdin
        self.editor = editor
        self._events: queue.Queue[tuple[str, str | None]] = queue.Queue()
        self._heard: deque[str | None] = deque()
        """Server lines taken from the queue, not heard yet (``None``: it closed)."""
        self._typed: deque[str | None] = deque()
        """The person's lines typed ahead of their question (``None``: input ended)."""
        self._lock = threading.Lock()
        self._asking = False
        console.reader = self.read

    def run(self, lines: Iterable[str], hear: Callable[[str], None]) -> None:
        """Read ``lines`` (the server's, until it closes) in a thread, and ``hear`` each
        in this one; a question cut short by the server's next line is left for it."""
        threading.Thread(target=self._listen, args=(lines,), name="server-lines",
                         daemon=True).start()
        if self.editor is None:
            threading.Thread(target=self._type, name="person-lines", daemon=True).start()
        while (line := self._next_server_line()) is not None:
            try:
                hear(line)
            except ServerSpoke:
                continue

    def read(self, prompt: str) -> str | None:
        """The person's next line after ``prompt`` (``None`` at the end of the input);
        :class:`ServerSpoke` if the server speaks first."""
        if self.editor is None:
            return self._read_typed(prompt)
        from referee.cli.line_input import Interrupted

        while True:
            with self._lock:
                self._drain()
                if self._heard:
                    raise ServerSpoke("the server spoke")
                self._asking = True
            try:
                return self.editor(prompt)
            except Interrupted:
                continue  # (the server's line is in the queue: taken at the top)
            finally:
                with self._lock:
                    self._asking = False

    def _read_typed(self, prompt: str) -> str | None:
        """Standard input's next line (as typed, or typed ahead), after ``prompt``."""
        self._drain()
        if self._heard:
            raise ServerSpoke("the server spoke")
        self.console.out.write(prompt)
        self.console.out.flush()
        if self._typed:
            return self._typed.popleft()
        kind, line = self._events.get()
        if kind == _TYPED:
            return line
        self._heard.append(line)
        raise ServerSpoke("the server spoke")

    def _drain(self) -> None:
        """Sort what the queue holds now: server lines to hear, lines typed ahead."""
        while True:
            try:
                kind, line = self._events.get_nowait()
            except queue.Empty:
                return
            (self._heard if kind == _SERVER else self._typed).append(line)

    def _next_server_line(self) -> str | None:
        """The next server line to hear (``None`` once it closed the connection)."""
        while not self._heard:
            kind, line = self._events.get()
            (self._heard if kind == _SERVER else self._typed).append(line)
        return self._heard.popleft()

    def _listen(self, lines: Iterable[str]) -> None:
        """The server thread: each line queued, a question being read cut short."""
        try:
            for line in lines:
                self._put(_SERVER, line)
        finally:
            self._put(_SERVER, None)

    def _type(self) -> None:
        """The standard input thread: each line queued as it comes."""
        try:
            for line in self.stdin:
                self._events.put((_TYPED, line))
        finally:
            self._events.put((_TYPED, None))

    def _put(self, kind: str, line: str | None) -> None:
        with self._lock:
            self._events.put((kind, line))
            if self._asking and self.editor is not None:
                self.editor.interrupt()
