"""An ended bot's exit status in words, and the last line of its stderr log."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.core.exit_status import ended_how, last_line


@pytest.mark.parametrize(("code", "contained", "said"), [
    (3, False, "exit code 3"),
    (0, True, "exit code 0"),
    (-9, False, "killed by signal SIGKILL"),
    (137, True, "killed by signal SIGKILL"),  # bubblewrap's 128 + N
    (137, False, "exit code 137"),  # a bot's own exit status, not bubblewrap's
    (-99, False, "killed by signal 99"),
])
def test_an_exit_status_is_said_as_a_person_reads_it(code: int, contained: bool,
                                                      said: str) -> None:
    assert ended_how(code, contained) == said


def test_the_last_line_is_the_last_one_not_blank_cut_to_its_limit(tmp_path: Path) -> None:
    log = tmp_path / "bot.err"
    log.write_bytes(b"x" * 10_000 + b"\nfirst\nbad \xff bytes\n\n  \n")
    assert last_line(log) == "bad \ufffd bytes"
    log.write_text("y" * 300 + "\n")
    assert last_line(log, 10) == "y" * 9 + "\u2026"
    log.write_text("\n\n")
    assert last_line(log) == ""
    assert last_line(tmp_path / "missing") == ""
