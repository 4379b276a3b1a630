"""How an ended bot is described: its exit status in words, with its last words on stderr.

Nothing here knows a game or a process object: it reads an exit code and a log file.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

__all__ = ["ended_how", "last_line"]


def ended_how(code: int, contained: bool) -> str:
    """``exit code N`` or ``killed by signal NAME`` for a bot's exit status ``code``
    (``subprocess``'s: negative for a signal); ``contained``: the bot ran under
    bubblewrap, whose status for a bot killed by signal N is 128 + N."""
    if contained and 128 < code < 160:
        code = 128 - code
    if code >= 0:
        return f"exit code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = str(-code)
    return f"killed by signal {name}"


def last_line(log_path: Path | str, limit: int = 200) -> str:
    """The last line that is not blank in the last 4 KB of ``log_path`` (cut to ``limit``
    characters with an ellipsis); "" if there is none or the file cannot be read."""
    try:
        with open(log_path, "rb") as log_file:
            log_file.seek(max(0, log_file.seek(0, os.SEEK_END) - 4096))
            tail = log_file.read()
    except OSError:
        return ""
    lines = [line.strip() for line in tail.decode(errors="replace").splitlines()]
    last = next((line for line in reversed(lines) if line), "")
    return last if len(last) <= limit else last[: limit - 1] + "\u2026"
