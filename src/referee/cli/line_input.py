"""Line editing for the interactive consoles (``referee console ...`` on a terminal):
prompt_toolkit's editor, with a history kept across sessions in a file and Tab
completion of what the console offers.

Ctrl-C clears the line being typed, as in a shell; Ctrl-D (or the end of the input) ends
the console. Another thread may end the line being read (:meth:`LineEditor.interrupt`:
something happened that the person must see first).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory, History, InMemoryHistory

log = logging.getLogger(__name__)

__all__ = ["Interrupted", "LineEditor", "history_path"]


class Interrupted(Exception):
    """The line being read was ended by :meth:`LineEditor.interrupt`."""


def history_path(name: str) -> Path:
    """Where the history of console ``name`` is kept: ``$XDG_STATE_HOME/referee/`` (by
    default ``~/.local/state/referee/``), ``<name>.history``."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "referee" / f"{name}.history"


class _Offers(Completer):
    """Tab completion from a function of the text before the cursor."""

    def __init__(self, offers: Callable[[str], Iterable[str]]) -> None:
        self.offers = offers

    def get_completions(self, document: Document, complete_event: CompleteEvent
                        ) -> Iterator[Completion]:
        before = document.text_before_cursor
        typed = "" if not before or before[-1].isspace() else before.split()[-1]
        for word in self.offers(before):
            yield Completion(word, start_position=-len(typed))


class LineEditor:
    """Reads console lines with editing, history and completion: ``editor()`` is the next
    line, ``None`` at the end (Ctrl-D)."""

    def __init__(self, prompt: str, offers: Callable[[str], Iterable[str]],
                 history: Path | None, *, notes: Callable[[str], None] | None = None,
                 **io: Any) -> None:
        """``offers(text_before_cursor)`` gives the words that may complete the last one;
        ``history`` is the file of earlier lines (``None``: this session only). A history
        file that cannot be made is said through ``notes`` and replaced by memory. ``io``
        (``input``, ``output``) is for tests."""
        kept: History = InMemoryHistory()
        if history is not None:
            try:
                history.parent.mkdir(parents=True, exist_ok=True)
                with open(history, "a", encoding="utf-8"):
                    pass
                kept = FileHistory(str(history))
            except OSError as exc:
                message = (f"# the line history cannot be kept in {history} "
                           f"({exc.strerror or exc}); it lasts this session only")
                log.warning("%s", message)
                if notes is not None:
                    notes(message)
        self.session: PromptSession[str] = PromptSession(
            message=prompt, history=kept, completer=_Offers(offers),
            complete_while_typing=False, **io)
        self._lock = threading.Lock()
        self._reading = False
        self._interrupted = False

    def __call__(self, prompt: str | None = None) -> str | None:
        """The next line typed (after ``prompt``, else the editor's own); ``""`` after
        Ctrl-C, ``None`` at the end; :class:`Interrupted` when :meth:`interrupt` ends it."""
        try:
            line: str = self.session.prompt(prompt, pre_run=self._started)
        except KeyboardInterrupt:
            return ""
        except EOFError:
            return None
        finally:
            with self._lock:
                self._reading = self._interrupted = False
        return line

    def _started(self) -> None:
        """The editor runs: an interruption made meanwhile ends it at once."""
        with self._lock:
            self._reading = True
            if self._interrupted:
                self.session.app.exit(exception=Interrupted())

    def interrupt(self) -> None:
        """End the line being read, from any thread (the reader gets :class:`Interrupted`);
        one about to be read ends as soon as the editor runs."""
        with self._lock:
            if self._interrupted:
                return
            self._interrupted = True
            app = self.session.app
            if self._reading and app.loop is not None:
                app.loop.call_soon_threadsafe(self._end, app)

    @staticmethod
    def _end(app: Any) -> None:
        """In the editor's own loop: end its line with :class:`Interrupted`."""
        if app.is_running and app.future is not None and not app.future.done():
            app.exit(exception=Interrupted())
