"""Finding a bot's processes costs what the processes started since the bot cost, not what
every process of the machine does: ``pids_since`` gives the pids given after a process
(real processes, started before and after), session members and marked processes are
found among them, and a wrap of the pid counter is followed."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
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


TREE = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time;"
                          "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']);"
                          "time.sleep(60)"])
print("ready", flush=True)
time.sleep(60)
"""


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


def test_a_tree_s_descendants_are_found_from_its_children_lists_alone() -> None:
    """A bot, its child and grandchild are found and killed without a look at every
    process's parent (psutil's ``children`` reads the parent of every process of the
    machine: 35 ms a kill with 2,000 idle processes)."""
    bot = subprocess.Popen([sys.executable, "-c", TREE], stdout=subprocess.PIPE,
                           start_new_session=True)
    try:
        assert bot.stdout is not None and bot.stdout.readline() == b"ready\n"
        tree = limits.ProcessTree(bot.pid)
        deadline = time.monotonic() + 10
        while len(limits.descendants(bot.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)  # the grandchild starts
        with mock.patch("psutil._pslinux.ppid_map", side_effect=AssertionError("scan")):
            found = {p.pid for p in tree.processes()}
            assert found == {bot.pid, *limits.descendants(bot.pid)} and len(found) == 3
            tree.kill()
            assert bot.wait(timeout=5) == -9
            deadline = time.monotonic() + 5
            while any(map(running, found)) and time.monotonic() < deadline:
                time.sleep(0.02)  # the kill is under way (a parent reaps its child)
            assert not any(map(running, found))
            assert tree.alive() == []
    finally:
        bot.kill()
        bot.wait()


def state_soon(pid: int, state: bytes) -> bool:
    """Whether process ``pid`` is in ``state`` (``/proc/PID/stat``) within 5 s."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if Path(f"/proc/{pid}/stat").read_bytes().rsplit(b") ", 1)[1][:1] == state:
            return True
        time.sleep(0.005)
    return False


THREADS = """
import sys, threading
stay = threading.Event()
for _ in range(int(sys.argv[1])):
    threading.Thread(target=stay.wait, daemon=True).start()
print("ready", flush=True)
stay.wait()
"""


@pytest.mark.parametrize("extra", [0, 2])
def test_suspension_lists_a_bots_threads_only_when_it_has_several(extra: int) -> None:
    """The walk of a suspension counts a process's threads (one ``fstat`` of its ``task``
    folder, kept open) and lists them only when there are several; once the process
    has ended the folder kept open counts none: it is closed and the pid looked up
    afresh, so that a process that reused the pid would be seen."""
    bot = subprocess.Popen([sys.executable, "-c", THREADS, str(extra)],
                           stdout=subprocess.PIPE, start_new_session=True)
    tree = limits.ProcessTree(bot.pid)
    try:
        assert bot.stdout is not None and bot.stdout.readline() == b"ready\n"
        with mock.patch("os.listdir", wraps=os.listdir) as listed:
            threads = tree._walk.tasks(bot.pid)
        assert sorted(threads) == sorted(os.listdir(f"/proc/{bot.pid}/task"))
        assert len(threads) == 1 + extra and listed.called == (extra > 0)
        assert bot.pid in tree._walk.folders.pids()
        assert tree.stop() == {bot.pid}
        assert state_soon(bot.pid, b"T")  # (a signal is taken when the process next runs)
        tree.cont(frozenset({bot.pid}))
        assert state_soon(bot.pid, b"S")
    finally:
        bot.kill()
        bot.wait()
    with pytest.raises(OSError):
        tree._walk.tasks(bot.pid)
    assert bot.pid not in tree._walk.folders.pids()
    tree.close()


CHURN = """
import os, time
print("ready", flush=True)
while True:
    if os.fork() == 0:
        time.sleep(0.005)
        os._exit(0)
    time.sleep(0.002)
    while True:  # reap what has ended
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                break
        except ChildProcessError:
            break
"""


def test_a_walk_forgets_the_processes_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the walk keeps open (a task folder, a children list) for a process that has
    ended is closed every so many stops: a bot whose children come and go does not make
    the referee hold hundreds of descriptors."""
    monkeypatch.setattr(limits, "_PRUNE_EVERY", 8)
    bot = subprocess.Popen([sys.executable, "-c", CHURN], stdout=subprocess.PIPE,
                           start_new_session=True)
    tree = limits.ProcessTree(bot.pid)
    try:
        assert bot.stdout is not None and bot.stdout.readline() == b"ready\n"
        seen: set[int] = set()
        for turn in range(1, 81):
            stopped = tree.stop()
            seen |= stopped
            if turn % 8 == 0:  # just pruned: only what this stop found is kept
                kept = tree._walk.folders.pids() | tree._walk.children.pids()
                assert kept <= stopped, (kept, stopped)
            tree.cont(stopped)
            time.sleep(0.004)
        assert len(seen) > 20  # (children did come and go)
    finally:
        bot.kill()
        bot.wait()
        tree.close()


def test_the_pid_counter_tells_whether_a_pid_was_given_between_two_readings() -> None:
    """Equal readings close together: no pid given; a process started between them, or
    readings too far apart for the counter to be trusted not to have gone round: given."""
    counter = limits.PidCounter()
    before = counter.read()
    assert before is not None and counter.window > 0
    assert counter.unchanged(before, (before[0], before[1] + counter.window / 2))
    assert not counter.unchanged(before, (before[0], before[1] + counter.window * 2))
    assert not counter.unchanged(None, before) and not counter.unchanged(before, None)
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    after = counter.read()
    assert after is not None and after[0] != before[0]
    assert not counter.unchanged(before, after)
