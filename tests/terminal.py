"""A command run on a pseudo-terminal, as a person at a terminal runs it: what it shows is
collected as it comes, a test waits for a pattern in it and types keys."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path


class Terminal:
    """``command`` started with a pseudo-terminal as its standard input, output and
    error (``TERM=xterm``, ``columns`` wide, prompt_toolkit asked for no cursor-position
    report); ``close`` kills it if it still runs."""

    def __init__(self, command: Sequence[str], cwd: Path, columns: int = 100) -> None:
        self.primary, secondary = pty.openpty()
        env = {**os.environ, "TERM": "xterm", "COLUMNS": str(columns), "LINES": "40",
               "PROMPT_TOOLKIT_NO_CPR": "1"}
        self.process = subprocess.Popen(list(command), stdin=secondary, stdout=secondary,
                                        stderr=secondary, cwd=cwd, env=env)
        os.close(secondary)
        self.seen = b""
        """Everything the terminal showed so far."""

    def wait_for(self, text: bytes, seconds: float = 30) -> None:
        """Until ``text`` (a regular expression, ``.`` matching line ends too) is in what
        the terminal showed."""
        deadline = time.monotonic() + seconds
        while not re.search(text, self.seen, re.DOTALL):
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} never came: {self.seen[-2000:]!r}"
            ready, _, _ = select.select([self.primary], [], [], left)
            if ready:
                try:
                    self.seen += os.read(self.primary, 65536)
                except OSError:
                    break

    def type(self, keys: bytes) -> None:
        """Type ``keys`` (``\\r`` is Enter)."""
        os.write(self.primary, keys)

    def close(self) -> None:
        """Kill the command if it still runs; close the terminal."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.primary)
