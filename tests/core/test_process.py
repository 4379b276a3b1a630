"""BotProcess against tiny real programs: line reading, deadlines, exits, kills, limits.

Each test runs a short inline Python script as the bot. The scripts write with
``os.write`` (no buffering) and sleep between writes when a test needs the bytes to
arrive in separate chunks.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import textwrap
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from unittest import mock

import psutil
import pytest

from proctags import running
from referee.core.errors import BotFault
from referee.core.limits import MemoryWatchdog
from referee.core.live_bots import spawn_listener
from referee.core.outcome import Outcome
from referee.core.process import BotProcess
from referee.core.sandbox import SandboxConfig, SandboxLevel, SandboxLimits, plan_sandbox

MB = 2**20


def bot(tmp_path: Path, script: str, **options: object) -> BotProcess:
    """A (not yet started) bot running ``script`` with this Python."""
    return BotProcess(
        [sys.executable, "-c", textwrap.dedent(script)],
        name="tiny", cwd=tmp_path / "work", stderr_log=tmp_path / "tiny.stderr.log",
        **options,  # type: ignore[arg-type]
    )


def soon(seconds: float = 5.0) -> float:
    return time.monotonic() + seconds


def wait_gone(pids: Sequence[int], within: float = 5.0) -> list[int]:
    """Wait up to ``within`` seconds for ``pids`` to end; the ones still running."""
    limit = time.monotonic() + within
    while running(pids) and time.monotonic() < limit:
        time.sleep(0.02)
    return running(pids)


@pytest.fixture
def strays() -> Iterator[list[int]]:
    """Pids a test saw; any still running at teardown (a failed test) is killed."""
    pids: list[int] = []
    yield pids
    for pid in running(pids):
        with contextlib.suppress(psutil.Error):
            psutil.Process(pid).kill()


# -- reading lines ----------------------------------------------------------------------
def test_crlf_lf_and_cr_line_ends_even_split_across_chunks(tmp_path: Path) -> None:
    script = """
        import os, sys, time
        os.write(1, b"crlf\\r\\nlf\\ncr\\rlast\\n")
        os.write(1, b"split\\r")
        sys.stdin.readline()  # the LF after "split" is sent only once the test read it
        os.write(1, b"\\nafter\\n")
        time.sleep(30)
    """
    with bot(tmp_path, script) as b:
        assert [b.read_line(soon()) for _ in range(4)] == ["crlf", "lf", "cr", "last"]
        # the CR alone ends "split": no waiting for a LF (which the bot has not sent yet)
        assert b.read_line(soon(2)) == "split"
        b.send("go\r\n")
        # the LF that then starts the next chunk ends no extra line
        assert b.read_line(soon()) == "after"
        assert b.pending_line() is None


def test_empty_and_blank_lines_are_skipped(tmp_path: Path) -> None:
    script = """
        import os, time
        os.write(1, b"\\n\\r\\n\\r \\t \\nword\\n\\n")
        time.sleep(30)
    """
    with bot(tmp_path, script) as b:
        assert b.read_line(soon()) == "word"
        assert b.pending_line() is None


def test_a_line_over_max_line_is_a_protocol_error(tmp_path: Path) -> None:
    # while it is still arriving...
    script = """
        import os, time
        os.write(1, b"C" * 1000 + b"\\n" + b"A" * 700)
        time.sleep(0.1)
        os.write(1, b"A" * 700)
        time.sleep(30)
    """
    with bot(tmp_path, script, max_line=1000) as b:
        assert b.read_line(soon()) == "C" * 1000  # exactly max_line: a line
        with pytest.raises(BotFault) as fault:
            b.read_line(soon())
        assert fault.value.outcome is Outcome.PROTOCOL_ERROR
        assert fault.value.reason == "sent a line over 1000 bytes"
    # ...and when it comes whole in one chunk, line end and all
    script = """
        import os, time
        os.write(1, b"ok\\r\\n" + b"D" * 3000 + b"\\nlater\\n")
        time.sleep(30)
    """
    with bot(tmp_path, script, max_line=1000) as b:
        assert b.read_line(soon()) == "ok"
        with pytest.raises(BotFault, match="sent a line over 1000 bytes"):
            b.read_line(soon())


def test_pending_lines_gives_every_complete_line_received_at_once(tmp_path: Path) -> None:
    script = """
        import os, sys, time
        os.write(1, b"one\\ntwo\\n\\n  \\nthree\\npart")
        sys.stdin.readline()
        os.write(1, b"ial\\r\\nfour\\rfive\\n" + b"L" * 50 + b"\\nsix\\n")
        time.sleep(30)
    """
    with bot(tmp_path, script, max_line=40) as b:
        assert b.read_line(soon()) == "one"
        # the rest of what came: whole lines only, blank ones skipped, no waiting
        assert b.pending_lines() == ["two", "three"]
        assert b.pending_lines() == []
        b.send("go\n")
        assert b.read_line(soon()) == "partial"
        # CR and CR LF ends too; the lines before one over max_line, which the next read
        # raises on, as pending_line would give them
        assert b.pending_lines() == ["four", "five"]
        with pytest.raises(BotFault, match="sent a line over 40 bytes"):
            b.read_line(soon())
    script = """
        import os, time
        os.write(1, b"first\\nsecond\\n\\n" + b"L" * 50 + b"\\nafter\\n")
        time.sleep(30)
    """
    with bot(tmp_path, script, max_line=40) as b:  # LF ends only
        assert b.read_line(soon()) == "first"
        assert b.pending_lines() == ["second"]
        with pytest.raises(BotFault, match="sent a line over 40 bytes"):
            b.pending_line()


def test_invalid_utf8_is_replaced_not_raised(tmp_path: Path) -> None:
    script = """
        import os, time
        os.write(1, b"\\xff\\xfeok\\xc3\\n7,7\\n")
        time.sleep(30)
    """
    with bot(tmp_path, script) as b:
        assert b.read_line(soon()) == "\ufffd\ufffdok\ufffd"
        assert b.read_line(soon()) == "7,7"


def test_read_timeout_raises_timeout_at_the_deadline(tmp_path: Path) -> None:
    with bot(tmp_path, "import time; time.sleep(30)") as b:
        started = time.monotonic()
        with pytest.raises(BotFault) as caught:
            b.read_line(started + 1.0)
        waited = time.monotonic() - started
        assert caught.value.outcome is Outcome.TIMEOUT
        # not before the deadline; after it, by no more than a loaded machine's delay (a
        # deadline not kept would wait for the bot's end, 30 s, and then not as a timeout)
        assert 1.0 <= waited < 2.5
        assert b.running  # a read timeout does not kill the bot


# -- exits and kills --------------------------------------------------------------------
def test_exit_is_seen_at_once_while_a_grandchild_holds_stdout(
    tmp_path: Path, strays: list[int]
) -> None:
    script = """
        import os, subprocess, sys
        child = subprocess.Popen(["sleep", "30"])  # inherits our stdout and keeps it open
        os.write(1, f"{child.pid}\\n".encode())
        sys.exit(7)
    """
    with bot(tmp_path, script) as b:
        child = int(b.read_line(soon()))
        strays.append(child)
        assert running([child])
        started = time.monotonic()
        with pytest.raises(BotFault) as caught:
            b.read_line(soon(10))
        # long before the read's deadline (10 s) and the grandchild's end (30 s)
        assert time.monotonic() - started < 5.0
        assert caught.value.outcome is Outcome.CRASH
        assert "exit code 7" in caught.value.reason
        b.kill()
        assert wait_gone([child]) == []


def test_kill_leaves_no_process_of_the_tree(tmp_path: Path, strays: list[int]) -> None:
    script = """
        import os, subprocess, sys, time
        plain = subprocess.Popen(["sleep", "300"])
        own = subprocess.Popen(["sleep", "300"], start_new_session=True)  # calls setsid()
        inner = ("import subprocess, time; "
                 "g = subprocess.Popen(['sleep', '300'], start_new_session=True); "
                 "print(g.pid, flush=True); time.sleep(300)")
        middle = subprocess.Popen([sys.executable, "-c", inner], stdout=subprocess.PIPE)
        grandchild = int(middle.stdout.readline())
        os.write(1, f"{os.getpid()} {plain.pid} {own.pid} {middle.pid} {grandchild}\\n".encode())
        time.sleep(300)
    """
    with bot(tmp_path, script) as b:
        pids = [int(p) for p in b.read_line(soon(10)).split()]
        strays.extend(pids)
        assert len(running(pids)) == 5
        assert sorted(b.alive_processes()) == sorted(pids)
        b.kill()
        assert wait_gone(pids) == []
        assert b.alive_processes() == []


def test_kill_finds_a_setsid_grandchild_whose_parent_already_exited(
    tmp_path: Path, strays: list[int]
) -> None:
    # the grandchild leaves the session and is orphaned before the referee ever looks:
    # neither the session nor the parent links lead to it any more
    script = """
        import os, subprocess, sys, time
        inner = ("import subprocess; "
                 "g = subprocess.Popen(['sleep', '300'], start_new_session=True, "
                 "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
                 "print(g.pid, flush=True)")
        middle = subprocess.run([sys.executable, "-c", inner], capture_output=True)
        os.write(1, middle.stdout)
        time.sleep(300)
    """
    with bot(tmp_path, script) as b:
        orphan = int(b.read_line(soon(10)))
        strays.append(orphan)
        assert running([orphan])
        assert psutil.Process(orphan).ppid() != b.pid
        b.kill()
        assert wait_gone([orphan]) == []


def test_writing_to_a_bot_that_closed_its_input_is_a_crash(tmp_path: Path) -> None:
    script = """
        import os, time
        os.close(0)
        os.write(1, b"closed\\n")
        time.sleep(30)
    """
    with bot(tmp_path, script) as b:
        assert b.read_line(soon()) == "closed"
        with pytest.raises(BotFault) as caught:
            b.send("TURN 7,7\r\n", soon())
        assert caught.value.outcome is Outcome.CRASH
        assert caught.value.reason == "closed its input"  # the record's words, not Python's


# -- streaming (a relay's way) -------------------------------------------------------------
class Stream:
    """What a streamed bot gave, and why its output ended."""

    def __init__(self, slow_end: float = 0.0) -> None:
        self.chunks: list[bytes] = []
        self.ends: list[BotFault] = []
        self.ended = threading.Event()
        self.slow_end = slow_end

    def take(self, data: bytes) -> None:
        self.chunks.append(data)

    def end(self, fault: BotFault) -> None:
        time.sleep(self.slow_end)
        self.ends.append(fault)
        self.ended.set()

    def wait_for(self, data: bytes) -> None:
        limit = soon()
        while data not in b"".join(self.chunks):
            assert time.monotonic() < limit, f"no {data!r} in {self.chunks}"
            time.sleep(0.01)


def test_streamed_output_comes_byte_for_byte_as_it_is_written(tmp_path: Path) -> None:
    script = """
        import os, sys
        os.write(1, b"half a li")
        line = sys.stdin.readline()
        os.write(1, b"ne\\r\\n\\n" + line.encode())
        rest = sys.stdin.read()  # until its input is closed
        os.write(1, b"bye " + str(len(rest)).encode())
    """
    stream = Stream()
    with bot(tmp_path, script) as b:
        b.stream_output(stream.take, stream.end)
        stream.wait_for(b"half a li")  # before any line end: as it comes
        b.send("ping\n")
        b.close_input()
        assert stream.ended.wait(5)
    assert b"".join(stream.chunks) == b"half a line\r\n\nping\nbye 0"
    assert [(f.outcome, f.reason) for f in stream.ends] == [
        (Outcome.CRASH, "closed its output: exit code 0")]
    with pytest.raises(RuntimeError):
        b.stream_output(stream.take)


def test_kill_waits_for_the_stream_to_end(tmp_path: Path) -> None:
    stream = Stream(slow_end=0.3)
    with bot(tmp_path, "import os, time; os.write(1, b'up'); time.sleep(30)") as b:
        b.stream_output(stream.take, stream.end)
        stream.wait_for(b"up")
    assert len(stream.ends) == 1  # told before kill returned
    assert "killed by signal SIGKILL" in stream.ends[0].reason


def test_a_streamed_flood_kills_the_bot(tmp_path: Path) -> None:
    script = """
        import os
        while True:
            os.write(1, b"x" * 65536)
    """
    plan = plan_sandbox(SandboxConfig(limits=SandboxLimits(output=MB)))
    stream = Stream()
    with bot(tmp_path, script, sandbox=plan) as b:
        b.stream_output(lambda data: None, stream.end)
        assert stream.ended.wait(10)
        assert MB < b.stdout_bytes < 4 * MB
    assert [(f.outcome, f.reason) for f in stream.ends] == [
        (Outcome.PROTOCOL_ERROR, "flooded its output: more than 1 MB")]


# -- stderr -----------------------------------------------------------------------------
def test_stderr_goes_to_the_log(tmp_path: Path) -> None:
    script = """
        import os
        os.write(2, b"thinking hard\\n")
        os.write(1, b"done\\n")
    """
    with bot(tmp_path, script) as b:
        assert b.read_line(soon()) == "done"
    assert (tmp_path / "tiny.stderr.log").read_bytes() == b"thinking hard\n"


def test_stderr_log_is_capped(tmp_path: Path) -> None:
    script = """
        import os
        os.write(2, b"first words\\n")
        for _ in range(16):
            os.write(2, b"e" * 65536)
        os.write(1, b"done\\n")
    """
    with bot(tmp_path, script, stderr_cap=10_000) as b:
        assert b.read_line(soon()) == "done"
    log = (tmp_path / "tiny.stderr.log").read_bytes()
    assert log.startswith(b"first words\neeee")
    assert 9_900 < len(log) <= 10_000
    assert log.endswith(b"[referee: stderr cut at 10000 bytes]\n")
    assert b.stderr_dropped > 16 * 65536 - 10_000


# -- memory -----------------------------------------------------------------------------
def test_memory_watchdog_kills_a_tree_over_the_limit(tmp_path: Path, strays: list[int]) -> None:
    # the bot (~11 MB) starts two children that each note their pid, then grow to ~44 MB:
    # no process alone comes near the 75 MB limit, the tree (~100 MB) goes over it
    script = """
        import subprocess, sys, time
        hog = ("import os, time; open(f'{os.getpid()}.pid', 'w').close(); "
               "x = b'1' * (35 << 20); time.sleep(60)")
        kids = [subprocess.Popen([sys.executable, "-c", hog]) for _ in range(2)]
        time.sleep(60)
    """
    watchdog = MemoryWatchdog(interval=0.05)
    with bot(tmp_path, script, memory_limit=75 * MB, watchdog=watchdog) as b:
        with pytest.raises(BotFault) as caught:
            b.read_line(soon(10))
        assert caught.value.outcome is Outcome.MEMORY_LIMIT
        assert "over the limit of 75.0 MB" in caught.value.reason
        assert b.peak_memory > 75 * MB
        kids = [int(p.stem) for p in (tmp_path / "work").glob("*.pid")]
        strays.extend(kids)
        assert len(kids) == 2
        assert wait_gone([b.pid or 0, *kids]) == []


def test_a_crash_names_the_last_line_the_bot_wrote_on_stderr(tmp_path: Path) -> None:
    process = bot(tmp_path, """
        import sys
        sys.stderr.write("loading the book\\n" + "x" * 300 + "\\n")
        sys.stderr.write("cannot open book.bin: no such file\\n\\n")
        sys.exit(3)
    """)
    with process, pytest.raises(BotFault) as fault:
        process.read_line(soon())
    assert fault.value.outcome is Outcome.CRASH
    assert str(fault.value) == ("closed its output: exit code 3 (its last words on stderr: "
                                "cannot open book.bin: no such file)")
    assert process.last_stderr_line(limit=10) == "cannot op\u2026"


def test_the_stderr_span_is_what_this_bot_appended_to_its_log_last_words_included(
        tmp_path: Path) -> None:
    (tmp_path / "tiny.stderr.log").write_bytes(b"an earlier bot's words\n")
    process = bot(tmp_path, """
        import os, sys, time
        os.write(2, b"thinking\\n")
        os.write(1, b"ready\\n")
        sys.stdin.readline()
        time.sleep(0.2)
        os.write(2, b"out of ideas\\n")
        sys.exit(3)
    """, seat=1)
    assert process.stderr_span() is None  # not started
    with process:
        assert process.read_line(soon()) == "ready"
        start, _ = process.stderr_span() or (0, 0)
        assert start == len(b"an earlier bot's words\n")
        process.send("go\n")
        with pytest.raises(BotFault):  # a crash mid-game
            process.read_line(soon())
    log = (tmp_path / "tiny.stderr.log").read_bytes()
    span = process.stderr_span()
    assert span == (start, len(log)) and process.seat == 1
    assert log[span[0]:span[1]] == b"thinking\nout of ideas\n"
    process.kill()  # killed again later: the span stays what it was
    (tmp_path / "tiny.stderr.log").write_bytes(log + b"the next bot's words\n")
    process.kill()
    assert process.stderr_span() == span


def test_spawn_listeners_nest(tmp_path: Path) -> None:
    seen: list[tuple[str, int | None]] = []
    with spawn_listener(lambda p: seen.append(("outer", p.pid))):
        with spawn_listener(lambda p: seen.append(("inner", p.pid))), \
                bot(tmp_path, "print('hi')") as process:
            pass
        with bot(tmp_path, "print('hi')") as other:
            pass
    assert seen == [("outer", None), ("inner", None), ("outer", process.pid),
                    ("inner", process.pid), ("outer", None), ("outer", other.pid)]


# -- the list of live bots ----------------------------------------------------------------
def test_the_live_bots_are_killed_at_once_and_none_is_kept_once_gone(tmp_path: Path) -> None:
    import gc
    import weakref

    from referee.core import live_bots
    from referee.core import process as module

    quick = bot(tmp_path, "pass")  # exits by itself: never killed by the caller
    quick.start()
    while quick.running:
        time.sleep(0.01)
    quick.wait_stderr(5)  # (its drain thread, which holds it, ends with its pipe)
    gone = weakref.ref(quick)
    del quick
    sleeper = bot(tmp_path, "import time; time.sleep(60)")
    sleeper.start()  # each start drops the bots that exited
    gc.collect()
    assert gone() is None, "a bot that exited was kept alive by the list of live bots"
    assert sleeper in module._LIVE
    assert live_bots.kill_all_processes() >= 1
    assert not sleeper.running and sleeper not in module._LIVE


def test_a_suspended_bot_reaped_since_gets_no_signal(tmp_path: Path) -> None:
    """Suspending asks no ``waitpid`` (it runs after every answer); a bot that died while
    suspended and has been reaped since is not sent ``SIGCONT`` when resumed: its pid may
    be another process's by then."""
    process = bot(tmp_path, "import sys; print('ready', flush=True); sys.stdin.readline()",
                  sandbox=plan_sandbox(SandboxConfig(SandboxLevel.OFF)), suspend=True)
    process.start()
    try:
        assert process.read_line(soon()) == "ready"  # (and suspended just after it)
        deadline = soon()
        while not process.suspended and time.monotonic() < deadline:
            time.sleep(0.001)
        assert process.suspended
        pid = process.pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        deadline = soon()
        while process.returncode is None and time.monotonic() < deadline:
            time.sleep(0.01)  # (reaped here)
        assert process.returncode == -signal.SIGKILL
        with mock.patch("referee.core.limits.os.kill") as kill, \
                mock.patch("referee.core.limits.os.killpg") as killpg:
            process.resume()
        assert not process.suspended and not kill.called and not killpg.called
    finally:
        process.kill()
