"""Fair time with real processes: a hostile Gomocup brain that computes on its opponent's
turn gets no CPU then when it is suspended off-turn (and plenty when it is not), also
when its computing runs in a process that left its process group and session, forked by
the bot's main thread or by another of its threads."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from proctags import TAG, left_behind
from referee.core import limits
from referee.core import process as process_module
from referee.core.process import BotProcess
from referee.core.sandbox import SandboxConfig, SandboxSupport, plan_sandbox, sandbox_support

HOSTILE = Path(__file__).resolve().parents[1] / "brains" / "hostile" / "hostile_gomoku.py"
SUPPORT = sandbox_support()
LIMITS_ONLY = SandboxSupport(None, "", False, "as if bubblewrap were missing", os.geteuid() == 0)
OPPONENT_TIME = 0.25
"""Seconds of each simulated opponent's turn."""


def supports() -> list[object]:
    """Isolated (if this machine can) and with the resource limits only."""
    return [pytest.param(SUPPORT, id="isolated", marks=pytest.mark.skipif(
        not SUPPORT.usable, reason=f"no isolation: {SUPPORT.problem}")),
        pytest.param(LIMITS_ONLY, id="limits-only")]


@pytest.fixture
def tag(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A tag the bots inherit; none may be left running."""
    value = f"suspension-{time.time_ns()}"
    monkeypatch.setenv(TAG, value)
    yield value
    left = left_behind(value)
    assert not left


def off_turn_cpu_ms(tmp_path: Path, mode: str, support: SandboxSupport,
                    suspend: bool, turns: int = 5, quick: int = 0) -> list[int]:
    """Play ``quick`` moves at once, then ``turns`` moves with the hostile brain in
    ``mode``, the opponent thinking ``OPPONENT_TIME`` between them; the off-turn CPU
    milliseconds it reports (with ``quick``, its first hostile turn is the first after them)."""
    plan = plan_sandbox(SandboxConfig(), support)
    args = [str(quick + 2)] if quick else []  # (BEGIN is its turn 1)
    brain = BotProcess([sys.executable, str(HOSTILE), "--mode", mode, *args], name="hostile",
                       cwd=tmp_path / "work", stderr_log=tmp_path / "hostile.log",
                       sandbox=plan, suspend=suspend)
    brain.start()
    reports: list[int] = []

    def move(command: str) -> None:
        brain.send(command + "\n")
        while (line := brain.read_line(time.monotonic() + 10)).startswith("MESSAGE"):
            reports.append(int(line.split()[-1]))
        assert "," in line, line
        brain.end_turn()

    try:
        brain.send("START 20\n")
        assert brain.read_line(time.monotonic() + 10) == "OK"
        brain.end_turn()
        move("BEGIN")
        for turn in range(quick):
            move(f"TURN {turn % 20},{turn // 20}")
        for turn in range(turns):
            time.sleep(OPPONENT_TIME)
            move(f"TURN {turn},9")
    finally:
        brain.kill()
    return reports[1:]  # the first covers its start


def assert_suspended(reports: list[int]) -> None:
    """The off-turn CPU milliseconds of a suspended bot, one figure a turn: at most 30 in
    every turn but one, which may run on while a loaded machine keeps the referee off
    the CPUs before it stops the bot (tens of ms: 40 seen with two busy loops and a test
    run beside), and never half the opponent's turn (a bot left running computes through
    every turn)."""
    worst = sorted(reports)
    assert worst[-2] <= 30 and worst[-1] < OPPONENT_TIME * 1000 / 2, reports


@pytest.mark.parametrize("support", supports())
def test_a_suspended_brain_gets_no_cpu_on_its_opponents_turn(
        tmp_path: Path, tag: str, support: SandboxSupport) -> None:
    suspended = off_turn_cpu_ms(tmp_path / "on", "busy", support, suspend=True)
    free = off_turn_cpu_ms(tmp_path / "off", "busy", support, suspend=False)
    assert_suspended(suspended)
    # the contrast, so that the test can fail: free, it computes through most of every
    # opponent's turn (a quarter at least in the middle turn, on a loaded machine: one
    # turn alone may get less when other work takes the cores), and always more than
    # every suspended turn but the worst
    assert sorted(free)[len(free) // 2] >= OPPONENT_TIME * 1000 / 4, free
    assert min(free) > sorted(suspended)[-2], (free, suspended)


@pytest.mark.parametrize("mode", ["busy-escape", "busy-thread-escape"])
@pytest.mark.parametrize("support", supports())
def test_a_worker_that_leaves_the_process_group_is_suspended_too(
        tmp_path: Path, tag: str, support: SandboxSupport, mode: str) -> None:
    """Forked by the bot's main thread, or by another of its threads (the kernel lists a
    child under the thread that forked it: the walk must read every thread's list)."""
    assert_suspended(off_turn_cpu_ms(tmp_path, mode, support, suspend=True))


@pytest.mark.skipif(not SUPPORT.usable, reason=f"no isolation: {SUPPORT.problem}")
def test_a_bot_alone_for_many_turns_is_walked_again_once_it_forks(
        tmp_path: Path, tag: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A contained bot found alone is not walked again at its next stop while no pid has
    been given on the machine (``ProcessTree._alone``): in 150 quick turns every stop
    that finds the counter as it was skips the walk, and the worker the bot forks at the
    next turn is found and stopped all the same (the fork gave a pid). The time within
    which equal readings are trusted is made long, so that this holds on a slow machine
    too; how many stops find the counter unmoved depends on what else the machine
    starts meanwhile (most of them, on a quiet one)."""
    limits.PIDS.read()
    monkeypatch.setattr(limits.PIDS, "window", 60.0)
    stops: list[tuple[bool, bool]] = []
    """Per stop: whether the counter had not moved since the last one, and whether the
    stop was walked."""
    walked = [False]
    walk, stop = limits.ProcessTree._descendants, limits.ProcessTree.stop

    def counted_walk(tree: limits.ProcessTree, pid: int) -> list[int]:
        walked[0] = True
        return walk(tree, pid)

    def counted_stop(tree: limits.ProcessTree) -> frozenset[int]:
        mark, walked[0] = tree._mark, False
        stopped = stop(tree)
        stops.append((limits.PIDS.unchanged(mark, tree._mark), walked[0]))
        return stopped

    monkeypatch.setattr(limits.ProcessTree, "_descendants", counted_walk)
    monkeypatch.setattr(limits.ProcessTree, "stop", counted_stop)
    reports = off_turn_cpu_ms(tmp_path, "busy-escape", SUPPORT, suspend=True, quick=150)
    assert_suspended(reports)
    alone = stops[1:152]  # (after the first walk, before the first fork: START, BEGIN,
    # the quick turns)
    assert [quiet for quiet, walk in alone if quiet == walk] == [], stops
    assert all(walk for _, walk in stops[152:]), stops  # forked: walked at every stop


LEAVING = """
import mmap, os, sys, time
thinking = mmap.mmap(-1, 1)  # shared with its search, a process of its own (as threads)
moved, wake = os.pipe()
if os.fork() == 0:  # the search: a millisecond of bookkeeping after each move
    os.close(wake)
    while os.read(moved, 1):
        end = time.process_time() + 0.001
        while time.process_time() < end:
            pass
        thinking[0] = 0
    os._exit(0)
os.close(moved)
for line in sys.stdin:
    if thinking[0]:  # as Rapfi: a command while it still thinks is not taken
        print("ERROR Unknown command: " + line.split()[0], flush=True)
        continue
    thinking[0] = 1
    print("1,1", flush=True)
    os.write(wake, b"m")
"""


@pytest.mark.parametrize("grace", [0.0, None])
def test_a_brain_still_leaving_its_thinking_state_takes_its_next_command(
        tmp_path: Path, tag: str, grace: float | None,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A suspended brain runs on a few milliseconds after its answer (as GomocupJudge's
    polling leaves it), so that one still finishing its move's bookkeeping is not stopped
    in the middle and continued with the next command already waiting (which Rapfi then
    refuses). With no grace (as before) it refuses many of them."""
    if grace is not None:
        monkeypatch.setattr(process_module, "STOP_GRACE", grace)
    script = tmp_path / "leaving.py"
    script.write_text(LEAVING)
    plan = plan_sandbox(SandboxConfig(), SUPPORT if SUPPORT.usable else LIMITS_ONLY)
    brain = BotProcess([sys.executable, str(script)], name="leaving", cwd=tmp_path / "work",
                       sandbox=plan, suspend=True)
    brain.start()
    answers: list[str] = []
    refused = 0
    try:  # (with no grace: until 3 are refused, the most 40 turns with the grace allow)
        for turn in range(40 if grace is None else 200):
            brain.send(f"TURN {turn},0\n")
            answers.append(brain.read_line(time.monotonic() + 10))
            refused += answers[-1].startswith("ERROR")
            if grace is not None and refused >= 3:
                break
            time.sleep(0.02)  # the opponent's turn
    finally:
        brain.kill()
    if grace is None:
        assert refused <= 2, answers  # (a loaded machine may keep it off the CPUs)
    else:  # (5 to 11 of 40 seen on a quiet machine; a loaded one ran 40 with only 2:
        # the search sometimes gets its millisecond first)
        assert refused >= 3, answers
