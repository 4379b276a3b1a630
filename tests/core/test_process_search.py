"""Finding a bot's processes costs what the processes started since the bot cost, not what
every process of the machine does: ``pids_since`` gives the pids given after a process
(real processes, started before and after), session members and marked processes are
found among them, and a wrap of the pid counter is followed."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from unittest import mock

import pytest

from referee.core import limits
from referee.core.limits import TOKEN_VAR, marked, pids_since, session_members


@pytest.fixture
def sleepers() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Processes started by the test, killed after it."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        process.kill()
        process.wait()


def sleeper(started: list[subprocess.Popen[bytes]], **env: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                               start_new_session=True, env={**os.environ, **env})
    started.append(process)
    return process


def test_pids_since_a_process_hold_the_later_ones_not_the_earlier(
        sleepers: list[subprocess.Popen[bytes]]) -> None:
    before = sleeper(sleepers)
    first = sleeper(sleepers)
    after = sleeper(sleepers, **{TOKEN_VAR: "tok-after"})
    since = set(pids_since(first.pid))
    assert first.pid in since and after.pid in since
    assert before.pid not in since  # started before: never asked
    everyone = set(pids_since(None))
    assert {before.pid, first.pid, after.pid} <= everyone
    later = sleeper(sleepers)
    assert marked("tok-after", since=first.pid) == [after.pid]
    assert marked("tok-after", since=later.pid) == []  # (the later pids only)
    assert session_members(first.pid) == [first.pid]


def test_a_wrap_of_the_pid_counter_is_followed(sleepers: list[subprocess.Popen[bytes]]
                                               ) -> None:
    low = sleeper(sleepers)
    # the counter went round since a bot of pid 32758 started: the last pid given is 5
    with mock.patch.object(limits, "_pid_limits", return_value=(5, 32768)):
        span = list(pids_since(32758))
    assert span == [*range(32758, 32768), 1, 2, 3, 4, 5]  # asked one by one
    # more than PROBED pids since: /proc is listed and filtered the same way
    with mock.patch.object(limits, "PROBED", 2):
        listed = set(pids_since(low.pid - 5))
        assert low.pid in listed and all(low.pid - 5 <= pid for pid in listed)
        with mock.patch.object(limits, "_pid_limits", return_value=(low.pid, 32768)):
            wrapped = set(pids_since(low.pid + 100))
        assert low.pid in wrapped and low.pid + 50 not in wrapped
    # without the kernel's figures, every live process
    with mock.patch.object(limits, "_pid_limits", return_value=None):
        assert low.pid in set(pids_since(low.pid + 10))
