"""A bot's stderr drained into its capped log: a log that cannot be written (a full disk)
neither blocks the bot nor stops the draining, and the drain settles on demand."""

from __future__ import annotations

import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from referee.core.pipe_drain import CappedLog, PipeDrain
from referee.core.process import BotProcess

FULL = Path("/dev/full")


@pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full")
def test_a_bot_whose_log_cannot_be_written_is_still_drained(tmp_path: Path) -> None:
    script = """
        import os
        for _ in range(32):
            os.write(2, b"e" * 65536)  # 2 MB: far more than a pipe holds
        os.write(1, b"done\\n")
    """
    process = BotProcess([sys.executable, "-c", textwrap.dedent(script)], name="loud",
                         cwd=tmp_path / "work", stderr_log=FULL)
    with process:
        assert process.read_line(time.monotonic() + 20) == "done"
        process.wait_stderr(5)
        assert process.stderr_bytes == 32 * 65536
        assert process.stderr_dropped == 32 * 65536


def test_the_cap_keeps_the_first_bytes_and_says_so(tmp_path: Path) -> None:
    log = CappedLog(tmp_path / "logs" / "x.log", 100)
    log(b"a" * 30)
    log(b"b" * 200)
    log(b"c" * 5)
    log.close()
    text = (tmp_path / "logs" / "x.log").read_bytes()
    notice = b"\n[referee: stderr cut at 100 bytes]\n"
    assert len(text) == 100 and text.endswith(notice)
    assert text == b"a" * 30 + b"b" * (100 - 30 - len(notice)) + notice
    assert log.dropped == 235 - (100 - len(notice))


def test_settle_waits_until_what_was_written_reached_the_sink(tmp_path: Path) -> None:
    read, write = os.pipe()
    got: list[bytes] = []

    def slow(data: bytes) -> None:
        time.sleep(0.01)  # a sink that takes its time: settle must wait for it
        got.append(data)

    drain = PipeDrain(os.fdopen(read, "rb", buffering=0), "test", slow).start()
    try:
        for k in range(20):
            os.write(write, b"x" * (k + 1))
            assert drain.settle(5.0)
            assert sum(map(len, got)) == (k + 1) * (k + 2) // 2
    finally:
        os.close(write)
        drain.thread.join(5)
    assert not drain.thread.is_alive()
