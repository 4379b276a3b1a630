"""A bot process kept between games (``keep_bots``): each game's part of its stderr log
ends with the game, every byte written before the end included however fast it came,
and begins again where the next game begins."""

from __future__ import annotations

import sys
import textwrap
import time
from pathlib import Path

from referee.core.live_bots import spawn_listener
from referee.core.process import BotProcess

# Each request "N": N lines on stderr, as fast as the bot can write them, then "done N" on
# stdout; the referee reads "done" at once, before its drain thread can have caught up.
SCRIPT = """
    import os, sys
    for line in sys.stdin:
        n = int(line)
        for k in range(n):
            os.write(2, b"game %d line %d %s\\n" % (n, k, b"x" * 200))
        os.write(1, b"done %d\\n" % n)
"""


def expected(n: int) -> bytes:
    return b"".join(b"game %d line %d %s\n" % (n, k, b"x" * 200) for k in range(n))


def test_each_game_of_a_kept_bot_gets_exactly_its_stderr(tmp_path: Path) -> None:
    log = tmp_path / "kept.stderr.log"
    heard: list[tuple[int | None, int | None]] = []
    process = BotProcess([sys.executable, "-c", textwrap.dedent(SCRIPT)], name="kept",
                         cwd=tmp_path / "work", stderr_log=log, seat=0)
    with process:
        for n in range(1, 40):
            with spawn_listener(lambda p: heard.append((p.seat, p.pid))):
                process.begin_game(n % 2)
            process.send(f"{n * 7}\n")
            assert process.read_line(time.monotonic() + 10) == f"done {n * 7}"
            process.end_game()
            span = process.stderr_span()
            assert span is not None
            data = log.read_bytes()
            assert data[span[0]:span[1]] == expected(n * 7), n
            assert span[1] == len(data)
    assert heard == [(n % 2, process.pid) for n in range(1, 40)]  # each game hears of it

