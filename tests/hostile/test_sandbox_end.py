"""How a sandboxed bot ends, with real processes.

It dies with the referee, also when the referee is killed with SIGKILL (nothing of it
runs to clean up) and the bot would live on by itself: it is suspended (stopped, so it
never sees its input close), it ignores its input's end, and it started a daemon.
Checked every way bubblewrap runs (as root, each bot with a user id of its own; in a
user namespace, as a normal user has it) and with the limits only (where the bot's own
process dies with the referee; a daemon out of its session is the next run's to kill,
see the tournament tests).

And it ends quickly: a suspended bot told to quit is gone at once (its sandbox's init is
never left stopped), and killing a running one takes milliseconds (bubblewrap is left
to reap its init rather than leaving that to the machine's init)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from proctags import TAG, kill_tagged, tagged
from referee.core.process import BotProcess
from referee.core.sandbox import SandboxConfig, SandboxSupport, plan_sandbox, sandbox_support

SUPPORT = sandbox_support()
needs_isolation = pytest.mark.skipif(
    not SUPPORT.usable, reason=f"needs the sandbox's isolation (bubblewrap): {SUPPORT.problem}")

BOT = """
    import os, sys, time
    sys.stdin.readline()
    if sys.argv[1] == "daemon":
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(600)
            os._exit(0)
        os.wait()  # its child is gone: the daemon lives
    print("answer", flush=True)
    time.sleep(600)  # its input's end would not end it
"""
REFEREE = """
    import pickle, sys, time
    from pathlib import Path
    from referee.core.process import BotProcess
    from referee.core.sandbox import SandboxConfig, plan_sandbox
    support, bot, daemon, folder = pickle.loads(bytes.fromhex(sys.argv[1]))
    process = BotProcess([sys.executable, bot, daemon], name="bot", cwd=Path(folder),
                         sandbox=plan_sandbox(SandboxConfig(), support), suspend=True)
    process.start()
    process.send("go\\n")
    assert process.read_line(time.monotonic() + 20) == "answer"
    while not process.suspended:  # (stopped a moment after its answer)
        time.sleep(0.001)
    print("ready", flush=True)
    time.sleep(600)
"""


def supports() -> list[object]:
    """Isolated as root (when root) and in a user namespace; with the limits only."""
    found: list[object] = []
    if os.geteuid() == 0:
        found.append(pytest.param(SUPPORT, "daemon", id="root", marks=needs_isolation))
    found.append(pytest.param(dataclasses.replace(SUPPORT, root=False), "daemon",
                              id="user-namespace", marks=needs_isolation))
    found.append(pytest.param(SandboxSupport(None, "", False, "as if bubblewrap were missing",
                                             os.geteuid() == 0), "alone", id="limits-only"))
    return found


@pytest.fixture
def tag(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A tag the referee and its bots inherit; any left at the end are killed."""
    value = f"referee-killed-{time.time_ns()}"
    monkeypatch.setenv(TAG, value)
    yield value
    kill_tagged(value)


@pytest.mark.parametrize(("support", "daemon"), supports())
def test_a_suspended_bot_and_its_daemon_die_with_a_killed_referee(
        tmp_path: Path, tag: str, support: SandboxSupport, daemon: str) -> None:
    import pickle

    bot = tmp_path / "bot.py"
    bot.write_text(textwrap.dedent(BOT))
    given = pickle.dumps((support, str(bot), daemon, str(tmp_path / "work"))).hex()
    referee = subprocess.Popen([sys.executable, "-c", textwrap.dedent(REFEREE), given],
                               stdout=subprocess.PIPE, text=True)
    assert referee.stdout is not None
    assert referee.stdout.readline() == "ready\n"
    deadline = time.monotonic() + 5  # suspended: stopped (a signal takes a moment)
    while not any(p.status() == psutil.STATUS_STOPPED for p in tagged(tag)):
        assert time.monotonic() < deadline, tagged(tag)
        time.sleep(0.01)
    referee.kill()  # SIGKILL: nothing of the referee runs any more
    referee.wait()
    deadline = time.monotonic() + 3  # the kernel takes a moment
    while (left := tagged(tag)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not left, [(p.pid, p.status(), p.cmdline()[-2:]) for p in left]


QUITTER = """
    import sys
    print("ready", flush=True)
    sys.stdin.readline()
"""


def isolated_supports() -> list[object]:
    """Isolated as root (when root) and in a user namespace."""
    found: list[object] = []
    if os.geteuid() == 0:
        found.append(pytest.param(SUPPORT, id="root", marks=needs_isolation))
    found.append(pytest.param(dataclasses.replace(SUPPORT, root=False), id="user-namespace",
                              marks=needs_isolation))
    return found


def start_quitter(tmp_path: Path, support: SandboxSupport, suspend: bool) -> BotProcess:
    """A sandboxed bot that says ``ready`` and exits at its next line."""
    bot = tmp_path / "quitter.py"
    bot.write_text(textwrap.dedent(QUITTER))
    process = BotProcess([sys.executable, str(bot)], name="quitter", cwd=tmp_path / "work",
                         sandbox=plan_sandbox(SandboxConfig(), support), suspend=suspend)
    process.start()
    return process


@pytest.mark.parametrize("support", isolated_supports())
def test_a_suspended_bot_told_to_quit_is_gone_at_once(
        tmp_path: Path, tag: str, support: SandboxSupport) -> None:
    process = start_quitter(tmp_path, support, suspend=True)
    tree = process._tree
    assert tree is not None
    deadline = time.monotonic() + 10  # the watchdog's look at the tree, as it starts:
    while tree.bot_pid() is None:  # the sandbox's init runs (the bot may not yet)
        assert time.monotonic() < deadline
        tree._init = None  # looked at afresh, as by a watchdog that came first
        tree.processes()
    assert process.read_line(time.monotonic() + 10) == "ready"
    while not process.suspended:  # (stopped a moment after its answer)
        assert time.monotonic() < deadline
        time.sleep(0.001)
    tree.processes()  # the watchdog looks again while it is suspended
    process.send("quit\n")
    began = time.monotonic()
    process.stop(grace=3)
    assert process.returncode == 0
    assert time.monotonic() - began < 1  # not the whole grace: nothing was left stopped


@pytest.mark.parametrize("support", isolated_supports())
def test_killing_a_running_sandboxed_bot_takes_milliseconds(
        tmp_path: Path, tag: str, support: SandboxSupport) -> None:
    took = []
    for _ in range(3):
        process = start_quitter(tmp_path, support, suspend=False)
        assert process.read_line(time.monotonic() + 10) == "ready"
        began = time.monotonic()
        process.kill()
        took.append(time.monotonic() - began)
        assert not process.alive_processes()
    assert min(took) < 0.2, took
