"""The sandbox, with real bot processes: what an isolated bot can see, reach and use, the
resource limits, suspension off-turn, CPU time, and what each level says it gives."""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import signal
import socket
import sys
import textwrap
import threading
import time
from dataclasses import replace
from pathlib import Path

import psutil
import pytest

from descriptors import descriptors_on, proc_files_of
from proctags import TAG, running, tagged
from referee.core import process as process_module
from referee.core.bot_users import give as _give
from referee.core.errors import BotFault, ConfigError
from referee.core.limits import ProcessTree, descendants
from referee.core.outcome import Outcome
from referee.core.process import BotProcess
from referee.core.sandbox import (
    SandboxConfig,
    SandboxLevel,
    SandboxLimits,
    SandboxPlan,
    SandboxSupport,
    _warn_once,
    plan_sandbox,
    sandbox_support,
)
from referee.core.seccomp import user_namespace_filter

MB = 1 << 20
SUPPORT = sandbox_support()
needs_bwrap = pytest.mark.skipif(not SUPPORT.usable, reason=f"no isolation: {SUPPORT.problem}")
MISSING = SandboxSupport(None, "", False, "bubblewrap is not installed", os.geteuid() == 0)


def start(tmp_path: Path, script: str, config: SandboxConfig | None = None,
          support: SandboxSupport | None = None, **options: object) -> BotProcess:
    """A bot running ``script`` (a file in ``tmp_path/bots``) in the sandbox; its working
    folder is in ``tmp_path/out``, which it must not otherwise see."""
    bots = tmp_path / "bots"
    bots.mkdir(exist_ok=True)
    program = bots / f"bot{len(list(bots.iterdir()))}.py"
    program.write_text(textwrap.dedent(script))
    plan = plan_sandbox(config or SandboxConfig(), support)
    out = tmp_path / "out"
    process = BotProcess([sys.executable, str(program)], name="bot", cwd=out / "work" / "bot",
                         stderr_log=out / "logs" / "bot.stderr.log", sandbox=plan,
                         hidden=[out], **options)  # type: ignore[arg-type]
    process.start()
    return process


def soon(seconds: float = 10.0) -> float:
    return time.monotonic() + seconds


def lines_until_done(process: BotProcess) -> list[str]:
    said = []
    while (line := process.read_line(soon())) != "done":
        said.append(line)
    return said


# -- what each level gives --------------------------------------------------------------

def test_the_levels_say_what_they_give_and_strict_refuses_what_is_missing(
        caplog: pytest.LogCaptureFixture) -> None:
    usable = SandboxSupport("/usr/bin/bwrap", "bubblewrap 0.8.0", True, "", False)
    plan = plan_sandbox(SandboxConfig(), usable)
    assert plan.isolated and plan.missing == ()
    assert plan.describe(suspend=True) == (
        "sandbox: bubblewrap 0.8.0 — network off, private filesystem, pid namespace, "
        "no user namespaces, 64 processes, 64 MB files, 1024 open files, 20 MB folder, "
        "no core dumps, suspended off-turn")
    as_root = plan_sandbox(SandboxConfig(), replace(usable, root=True))
    assert as_root.describe(suspend=False) == (
        "sandbox: bubblewrap 0.8.0 — network off, private filesystem, pid namespace, "
        "no user namespaces, own user id, 64 processes, 64 MB files, 1024 open files, "
        "20 MB folder, no core dumps")
    _warn_once.cache_clear()
    for root in (False, True):
        with caplog.at_level(logging.WARNING):
            limited = plan_sandbox(SandboxConfig(), replace(MISSING, root=root))
        assert not limited.isolated
        own = "own user id, " if root else ""
        assert limited.describe(suspend=False) == (
            f"sandbox: limits only — no user namespaces, {own}64 MB files, 1024 open files, "
            "20 MB folder, no core dumps; "
            "missing: network off, private filesystem, pid namespace, process limit")
    assert "bubblewrap is not installed" in caplog.text
    with pytest.raises(ConfigError) as refused:
        plan_sandbox(SandboxConfig(SandboxLevel.STRICT), MISSING)
    assert str(refused.value).startswith("--sandbox strict: bubblewrap is not installed")
    assert str(refused.value).endswith("it is needed for network off, private filesystem, "
                                       "pid namespace, process limit (--sandbox auto runs "
                                       "without them)")
    off = replace(plan_sandbox(SandboxConfig(SandboxLevel.OFF), MISSING), root=False)
    assert off.limits is None and off.describe(suspend=False) == "sandbox: off"
    assert off.describe(suspend=True) == "sandbox: off — suspended off-turn"
    assert replace(off, root=True).describe(suspend=True) == (
        "sandbox: off — as root, suspended off-turn")
    assert SandboxLevel.parse(" Strict ") is SandboxLevel.STRICT
    with pytest.raises(ConfigError, match="auto, strict or off"):
        SandboxLevel.parse("on")
    with pytest.raises(ConfigError, match="processes must be at least 4"):
        SandboxLimits(processes=1)


def test_this_machine_isolates_when_bubblewrap_is_installed() -> None:
    # CI installs bubblewrap (.ci/run): there every isolation test below runs
    if SUPPORT.bwrap is not None:
        assert SUPPORT.usable, SUPPORT.problem
        assert SUPPORT.version.startswith("bubblewrap ")


# -- isolation ----------------------------------------------------------------------------

@needs_bwrap
def test_an_isolated_bot_sees_only_its_own_files_and_no_network(
        tmp_path: Path, tag: str, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "secret.txt").write_text("home-secret")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ORGANISER_TOKEN", "env-secret")
    other = tmp_path / "out" / "work" / "other"
    other.mkdir(parents=True)
    (other / "plan.txt").write_text("other-secret")
    (tmp_path / "out" / "store.sqlite").write_text("store-secret")
    (tmp_path / "bots" / "data").mkdir(parents=True)
    (tmp_path / "bots" / "data" / "book.txt").write_text("own-data")
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind(f"\0referee-test-{tag}")
    abstract.listen()
    script = f"""
        import os, socket
        def attempt(what, action):
            try:
                print(what, "GOT", repr(action())[:40], flush=True)
            except OSError as exc:
                print(what, "refused", exc.errno, flush=True)
        for path in [{str(home / "secret.txt")!r}, {str(other / "plan.txt")!r},
                     {str(tmp_path / "out" / "store.sqlite")!r}, "/etc/shadow"]:
            attempt("read " + path, lambda: open(path).read())
        attempt("listdir out", lambda: os.listdir({str(tmp_path / "out")!r}))
        attempt("own data", lambda: open({str(tmp_path / "bots" / "data" / "book.txt")!r}).read())
        attempt("tcp", lambda: socket.create_connection(("127.0.0.1", {port}), timeout=2))
        def unix():
            s = socket.socket(socket.AF_UNIX)
            s.connect("\\0referee-test-{tag}")
            return s
        attempt("abstract unix", unix)
        attempt("write outside", lambda: open({str(tmp_path / "bots" / "x")!r}, "w"))
        attempt("write /tmp", lambda: open("/tmp/mine", "w").write("x"))
        attempt("write own folder", lambda: open("notes.txt", "w").write("mine"))
        print("env", " ".join(sorted(os.environ)), flush=True)
        print("ids", os.getpid(), os.getuid(), flush=True)
        print("done", flush=True)
    """
    process = start(tmp_path, script)
    try:
        said = "\n".join(lines_until_done(process))
    finally:
        process.stop()
        server.close()
        abstract.close()
    for secret in ("home-secret", "other-secret", "store-secret", "root:"):
        assert secret not in said
    allowed = ("own data GOT 'own-data'", "listdir out GOT ['work']", "write /tmp GOT 1",
               "write own folder GOT 4")
    for line in allowed:
        assert line in said
        said = said.replace(line, "")
    assert "GOT" not in said, said
    assert (tmp_path / "out" / "work" / "bot" / "notes.txt").read_text() == "mine"
    assert not (tmp_path / "bots" / "x").exists()
    env = said.split("env ")[1].splitlines()[0].split()
    assert "ORGANISER_TOKEN" not in env and TAG in env and "HOME" in env
    pid, uid = said.split("ids ")[1].splitlines()[0].split()
    assert pid == "2"  # its own pid namespace: the first process there is its init
    if os.geteuid() == 0:
        assert int(uid) != 0  # never root


@needs_bwrap
def test_a_bot_killing_every_process_it_can_harms_nobody(tmp_path: Path, tag: str) -> None:
    victim = start(tmp_path, """
        import sys
        for line in sys.stdin:
            print("alive", flush=True)
    """)
    victim.send("?\n")
    assert victim.read_line(soon()) == "alive"
    assert victim._tree is not None
    bot = victim._tree.bot_pid()
    targets = (-1, os.getpid(), os.getppid(), victim.pid, bot)
    script = f"""
        import os, signal
        hits = []
        for target in {targets!r}:
            try:
                os.kill(target, signal.SIGKILL)
                hits.append(target)
            except OSError:
                pass
        print("killed", hits, flush=True)
    """
    killer = start(tmp_path, script)
    # kill -1 reaches only its own namespace, where it is alone (and spared, being its
    # first process); none of the others exists there
    assert killer.read_line(soon()) == "killed []"
    killer.kill()
    victim.send("?\n")
    assert victim.read_line(soon()) == "alive"
    victim.kill()


@needs_bwrap
def test_a_daemon_dies_with_the_bot_that_started_it(tmp_path: Path, tag: str) -> None:
    script = """
        import os, sys, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                sys.stdout.close()
                time.sleep(60)
            os._exit(0)
        time.sleep(0.2)
        print("forked", flush=True)
    """
    process = start(tmp_path, script)
    assert process.read_line(soon()) == "forked"
    deadline = soon(5)
    while len(tagged(tag)) < 3 and time.monotonic() < deadline:  # bwrap, bot, daemon
        time.sleep(0.02)
    with pytest.raises(BotFault):
        process.read_line(soon())  # the bot exits
    process.stop()
    deadline = soon(5)
    while tagged(tag) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not tagged(tag)


@needs_bwrap
def test_a_killed_bot_leaves_nothing_behind_when_kill_returns(tmp_path: Path, tag: str) -> None:
    """``kill`` returns once bubblewrap has reaped the namespace's init, whose exit
    waits for every process of the namespace: daemons that left the bot's session and
    lost their parent are gone by then, with no sweep of the machine."""
    script = """
        import os, time
        for _ in range(3):
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    time.sleep(60)
                os._exit(0)
        time.sleep(0.2)
        print("ready", flush=True)
        time.sleep(60)
    """
    process = start(tmp_path, script)
    assert process.read_line(soon()) == "ready"
    assert len(tagged(tag)) >= 5  # bubblewrap, its init, the bot, three daemons
    process.kill()
    assert not tagged(tag)


# -- limits ---------------------------------------------------------------------------

@needs_bwrap
def test_a_fork_bomb_stops_at_the_process_limit_and_loses_by_it(
        tmp_path: Path, tag: str, caplog: pytest.LogCaptureFixture) -> None:
    script = """
        import os, time
        print("go", flush=True)
        made = 0
        while True:
            try:
                if os.fork() == 0:
                    time.sleep(60)
                    os._exit(0)
                made += 1
            except OSError:
                print("stopped at", made, flush=True)
                time.sleep(60)
    """
    config = SandboxConfig(limits=SandboxLimits(processes=16))
    process = start(tmp_path, script, config)
    assert process.read_line(soon()) == "go"
    with pytest.raises(BotFault) as fault:
        process.read_line(soon())
        process.read_line(soon())
    assert fault.value.outcome is Outcome.PROCESS_LIMIT, fault.value
    assert fault.value.reason.endswith(": at the sandbox's limit of 16 processes")
    assert f"bot: {fault.value.reason}: killing it" in caplog.text  # the record's words
    process.kill()


@needs_bwrap
def test_the_watchdog_measures_a_sandboxed_tree_as_psutil_reads_it(
        tmp_path: Path, tag: str) -> None:
    """``usage`` (one walk through files kept open) counts the live processes and their
    memory as psutil reads them: a zombie is not counted, a sleeper is; memory the bot
    takes is seen; once closed it keeps nothing of the tree open."""
    script = """
        import os, sys, time
        if os.fork() == 0:
            os._exit(0)  # never waited for: a zombie
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        time.sleep(0.2)
        print("ready", flush=True)
        kept = []
        for line in sys.stdin:
            kept.append(bytearray(64 * 2**20))
            print("grown", flush=True)
    """
    process = start(tmp_path, script)
    try:
        assert process.read_line(soon()) == "ready"
        tree = process._tree
        assert tree is not None and tree.contained
        count, rss = tree.usage()
        assert_reads_as_psutil((count, rss), tree)
        assert count == 2  # the bot and the sleeper, not the zombie
        process.send("grow\n", soon())
        assert process.read_line(soon()) == "grown"
        grown = tree.usage()
        assert_reads_as_psutil(grown, tree)
        assert grown[0] == 2 and grown[1] - rss >= 60 * 2**20
        members = {tree.root_pid, *descendants(tree.root_pid)}
        assert proc_files_of(members)  # (the walk's and the readings' files, between ticks)
    finally:
        process.kill()
    assert tree.usage() == (0, 0)
    assert not proc_files_of(members)


def assert_reads_as_psutil(usage: tuple[int, int], tree: ProcessTree) -> None:
    """``usage`` has psutil's count exactly, and its resident bytes within a few pages:
    the two readings are not at one instant, and a live process faults pages in and
    gives them back between them (CI once saw one page of difference)."""
    count, rss = as_psutil_reads(tree)
    assert usage[0] == count
    assert abs(usage[1] - rss) <= 16 * 4096, (usage, (count, rss))


def as_psutil_reads(tree: ProcessTree) -> tuple[int, int]:
    """The bot's live processes (bubblewrap and its init left out) and the tree's
    resident bytes, as psutil reads them."""
    procs = [psutil.Process(pid) for pid in [tree.root_pid, *descendants(tree.root_pid)]]
    alive = [p for p in procs if p.status() != psutil.STATUS_ZOMBIE]
    return len(alive) - 2, sum(p.memory_info().rss for p in alive)


def test_limits_apply_without_bubblewrap_too(tmp_path: Path, tag: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORGANISER_TOKEN", "env-secret")
    script = """
        import os, resource
        print(resource.getrlimit(resource.RLIMIT_FSIZE)[0],
              resource.getrlimit(resource.RLIMIT_NOFILE)[0],
              resource.getrlimit(resource.RLIMIT_CORE)[0], flush=True)
        print("ORGANISER_TOKEN" in os.environ, flush=True)
        try:
            with open("big", "wb") as f:
                f.write(b"x" * (3 << 20))
            print("wrote it", flush=True)
        except OSError as exc:  # Python ignores SIGXFSZ: the write fails instead
            print("refused", exc.errno, flush=True)
    """
    config = SandboxConfig(limits=SandboxLimits(file_size=2 * MB, open_files=100))
    process = start(tmp_path, script, config, MISSING)
    assert process.read_line(soon()) == f"{2 * MB} 100 0"
    assert process.read_line(soon()) == "False"
    assert process.read_line(soon()) == "refused 27"  # EFBIG: the file size limit
    assert (tmp_path / "out" / "work" / "bot" / "big").stat().st_size == 2 * MB
    process.kill()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root gives a bot's folder its user")
def test_giving_a_folder_to_its_bot_again_leaves_what_it_has_unchanged(
        tmp_path: Path) -> None:
    """A program started for every hand in the same folder (ICGA Mahjong) gets the same
    user: what is the bot's already keeps its change time (the folder meter trusts an
    unchanged folder), what is not becomes the bot's."""
    uid = 3_999_999_999
    folder = tmp_path / "work"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "notes.txt").write_text("kept")
    (folder / "link").symlink_to("/etc/hostname")
    _give(folder, uid)
    paths = [folder, folder / "sub", folder / "sub" / "notes.txt", folder / "link"]
    assert all((p.lstat().st_uid, p.lstat().st_gid) == (uid, uid) for p in paths)
    assert Path("/etc/hostname").stat().st_uid != uid  # (a link's target is never given)
    before = [p.lstat().st_ctime_ns for p in paths]
    time.sleep(0.02)  # (a change would move the times past the file system's tick)
    _give(folder, uid)
    assert [p.lstat().st_ctime_ns for p in paths] == before
    (folder / "sub" / "new.txt").write_text("the host's")
    _give(folder, uid)
    assert (folder / "sub" / "new.txt").stat().st_uid == uid
    assert [p.lstat().st_ctime_ns for p in (folder, folder / "link")] == [before[0], before[3]]


@needs_bwrap
def test_the_private_tmp_and_the_folders_have_their_limits(tmp_path: Path, tag: str) -> None:
    script = """
        import sys
        try:
            with open("/tmp/fill", "wb") as f:
                for _ in range(8):
                    f.write(b"x" * (1 << 20))
                    f.flush()
            print("tmp took 8 MB", flush=True)
        except OSError as exc:
            print("tmp full", exc.errno, flush=True)
        open("state.bin", "wb").write(b"x" * (3 << 20))
        print("done", flush=True)
        sys.stdin.readline()
    """
    config = SandboxConfig(limits=SandboxLimits(tmp=4 * MB, folder=2 * MB))
    process = start(tmp_path, script, config)
    assert process.read_line(soon()) == "tmp full 28"  # ENOSPC
    assert process.read_line(soon()) == "done"
    with pytest.raises(BotFault) as fault:
        process.end_turn()
    assert fault.value.outcome is Outcome.FOLDER_LIMIT
    assert fault.value.reason == "its folders hold 3.0 MB, over the limit of 2 MB"
    work = (tmp_path / "out" / "work" / "bot").resolve()
    assert any(descriptors_on(work))  # (the meter keeps its folder open between turns)
    process.kill()
    assert not any(descriptors_on(work))  # and lets it go with the bot


@pytest.mark.parametrize("stream", [1, 2])
def test_flooding_an_output_is_a_protocol_error(tmp_path: Path, tag: str, stream: int) -> None:
    script = f"""
        import os, time
        print("go", flush=True)
        chunk = b"spam\\n" * 20000
        while True:
            os.write({stream}, chunk)
        """
    config = SandboxConfig(limits=SandboxLimits(output=2 * MB))
    process = start(tmp_path, script, config, SUPPORT if SUPPORT.usable else MISSING)
    assert process.read_line(soon()) == "go"
    with pytest.raises(BotFault) as fault:
        while True:
            process.read_line(soon())
    assert fault.value.outcome is Outcome.PROTOCOL_ERROR
    assert "flooded its" in fault.value.reason and "more than 2 MB" in fault.value.reason
    process.kill()


# -- fair time -----------------------------------------------------------------------------

PONDERING = """
    import sys, threading, time
    def ponder():
        while True:
            pass
    threading.Thread(target=ponder, daemon=True).start()
    for line in sys.stdin:
        end = time.process_time() + 0.2
        while time.process_time() < end:
            pass
        print("ok", line.strip(), flush=True)
"""


@pytest.mark.parametrize("level", [SandboxLevel.AUTO, SandboxLevel.OFF])
def test_a_suspended_bot_runs_only_while_its_answer_is_awaited(
        tmp_path: Path, tag: str, level: SandboxLevel) -> None:
    process = start(tmp_path, PONDERING, SandboxConfig(level), suspend=True)
    process.send("ping\n")
    assert process.read_line(soon()) == "ok ping"
    assert process.cpu_time() > 0.15  # it thinks on its own turn...
    assert stops_soon(process)  # ...and stops just after it has answered
    before = cpu_now(process)  # (read afresh: cpu_time keeps its reading while suspended)
    time.sleep(0.4)
    process.send("pong\n")  # told while suspended: it reads it when it may run again
    time.sleep(0.2)
    assert cpu_now(process) - before < 0.02  # not a moment on the opponent's time
    assert process.read_line(soon()) == "ok pong"  # waiting for its answer resumes it
    assert cpu_now(process) - before > 0.15
    process.stop(0.2)  # a suspended bot is continued to be stopped
    assert process.returncode is not None


def stops_soon(process: BotProcess) -> bool:
    """Whether a suspended bot that has answered is stopped within its grace (a few ms;
    ``core.deferred_stops``), not at once: its stop falls due, made by the referee's thread
    of stops while this one waits for nothing."""
    assert not process.suspended  # (the grace: it runs on a moment after its answer)
    deadline = time.monotonic() + 1.0
    while not process.suspended and time.monotonic() < deadline:
        time.sleep(0.001)
    return process.suspended


def cpu_now(process: BotProcess) -> float:
    """The CPU seconds of the bot's whole process tree, read from the kernel now (by
    psutil: to the clock tick)."""
    assert process.pid is not None
    root = psutil.Process(process.pid)
    return sum(sum(proc.cpu_times()[:2]) for proc in [root, *root.children(recursive=True)])


def test_a_suspended_bot_s_cpu_is_read_once_a_turn(
        tmp_path: Path, tag: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read after its answer and again before its next turn, the figure of a suspended
    bot (which does not run in between) costs one system call; once it resumes, the
    clock is read again."""
    process = start(tmp_path, PONDERING, suspend=True)
    reads: list[int] = []
    clock_gettime = time.clock_gettime
    monkeypatch.setattr(process_module.time, "clock_gettime",
                        lambda clock: reads.append(clock) or clock_gettime(clock))
    process.send("ping\n")
    assert process.read_line(soon()) == "ok ping" and stops_soon(process)
    first = process.cpu_time()
    assert first > 0.15 and len(reads) == 1
    time.sleep(0.1)
    assert process.cpu_time() == first and len(reads) == 1  # stopped: the same figure
    process.send("pong\n")
    assert process.read_line(soon()) == "ok pong"
    assert process.cpu_time() - first > 0.15 and len(reads) == 2
    process.stop(0.2)


def test_without_suspension_a_bot_ponders_on_the_opponents_time(
        tmp_path: Path, tag: str) -> None:
    process = start(tmp_path, PONDERING)
    process.send("ping\n")
    assert process.read_line(soon()) == "ok ping"
    before = process.cpu_time()
    end = time.monotonic() + 10  # it runs while no one waits for it (slowly when loaded)
    while process.cpu_time() - before <= 0.2 and time.monotonic() < end:
        time.sleep(0.05)
    assert process.cpu_time() - before > 0.2 and not process.suspended
    process.kill()


def test_a_suspended_bot_runs_when_what_it_is_told_fills_its_input(
        tmp_path: Path, tag: str) -> None:
    script = """
        import sys
        print("ready", flush=True)
        total = 0
        for line in sys.stdin:
            total += len(line)
            if total >= 300_000:
                print("read", total, flush=True)
    """
    process = start(tmp_path, script, suspend=True)
    assert process.read_line(soon()) == "ready"
    assert stops_soon(process)
    for _ in range(30):  # 300 KB: far more than a pipe holds
        process.send("x" * 9_999 + "\n", soon())
    assert process.read_line(soon()) == "read 300000"
    process.stop()


@needs_bwrap
def test_a_bot_s_exit_is_awaited_on_descriptors_numbered_past_1023(
        tmp_path: Path, tag: str) -> None:
    """A referee with many games open holds descriptors numbered 1,024 and more, which
    ``select`` refuses: the waits for a bot's exit (its stop, the sandbox's kill) poll."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip(f"at most {hard} open files here")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    filler = [os.open(os.devnull, os.O_RDONLY) for _ in range(1030)]
    try:
        script = """
            import sys
            for line in sys.stdin:
                if line.startswith("END"):
                    break
                print("ok", line.strip(), flush=True)
        """
        for ending in ("END\n", "stay\n"):  # it exits; it does not, and is killed
            process = start(tmp_path, script, suspend=True)
            process.send("a\n")
            assert process.read_line(soon()) == "ok a"
            assert max(int(fd) for fd in os.listdir("/proc/self/fd")) > 1024  # its pipes
            process.send(ending)
            process.stop(0.3)
            assert process.returncode is not None and process.alive_processes() == []
    finally:
        for fd in filler:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.parametrize("level", [SandboxLevel.AUTO, SandboxLevel.OFF])
def test_a_bot_is_stopped_when_the_referee_has_no_descriptor_left(
        tmp_path: Path, tag: str, level: SandboxLevel) -> None:
    """Out of descriptors (``EMFILE``: too many games open for the open-files limit),
    the referee cannot read ``/proc`` to find a bot's processes: its stop still ends
    the bot, with the signals it can send, and raises nothing."""
    if level is SandboxLevel.AUTO and not SUPPORT.usable:
        pytest.skip(f"no isolation: {SUPPORT.problem}")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    process = start(tmp_path, """
        import sys
        for line in sys.stdin:
            print("ok", flush=True)
    """, SandboxConfig(level), suspend=True)
    filler: list[int] = []
    try:
        process.send("a\n")
        assert process.read_line(soon()) == "ok"
        pids = process.alive_processes()
        assert pids
        resource.setrlimit(resource.RLIMIT_NOFILE,
                           (max(int(fd) for fd in os.listdir("/proc/self/fd")) + 8, hard))
        with contextlib.suppress(OSError):
            while True:
                filler.append(os.open(os.devnull, os.O_RDONLY))
        with pytest.raises(OSError):
            psutil.Process(pids[0]).status()  # (reading /proc fails, as in the stop)
        process.stop(0.2)
    finally:
        for fd in filler:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert process.returncode is not None
    if level is SandboxLevel.AUTO:  # bubblewrap reaped its init and ended by itself (as
        # it does, 128 + the signal that ended the init), not killed before: it would
        # have left the init's remains to the machine's init, still exiting here
        assert process.returncode == 128 + signal.SIGKILL
    assert not running(pids)


@needs_bwrap
def test_a_stop_returns_once_every_process_of_the_bot_has_ended(
        tmp_path: Path, tag: str) -> None:
    """A bot that exits leaving a child behind: bubblewrap, told by its init that the bot
    has ended, exits at once, while the init still ends the child (whose memory takes a
    while to free). The stop waits for the init too: nothing of the bot is left running."""
    process = start(tmp_path, """
        import os, sys, time
        if os.fork() == 0:
            held = b"x" * (600 << 20)  # (freeing it keeps the child exiting a while)
            print("held", flush=True)
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):  # (the referee reads its pipes on to their end)
                os.dup2(null, fd)
            time.sleep(60)
        else:
            sys.stdin.readline()
    """)
    assert process.read_line(soon()) == "held"
    pids = process.alive_processes()
    assert len(pids) == 4  # bubblewrap, its init, the bot, its child
    process.send("bye\n")
    process.stop(5.0)
    assert process.returncode == 0
    assert not running(pids)


def test_cpu_time_counts_the_bot_not_the_wall(tmp_path: Path, tag: str) -> None:
    # (measured while the bot runs: started, and not yet gone, as in a game; a bot not
    # found yet, or gone, counts what was last read)
    script = """
        import sys, time
        print("ready", flush=True)
        sys.stdin.readline()
        end = time.process_time() + 0.3
        while time.process_time() < end:
            pass
        time.sleep(0.5)
        print("done", flush=True)
        sys.stdin.readline()
    """
    process = start(tmp_path, script)
    assert process.read_line(soon()) == "ready"
    before = process.cpu_time()
    process.send("go\n")
    assert process.read_line(soon()) == "done"
    used = process.cpu_time() - before
    assert 0.25 < used < 0.6, used
    process.stop()


def test_a_server_on_the_host_is_reachable_without_isolation(tmp_path: Path, tag: str) -> None:
    # the contrast to the isolated bot above: the network test can fail
    server = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    thread = threading.Thread(target=lambda: accepted.append(server.accept()[0]))
    thread.start()
    script = f"""
        import socket
        socket.create_connection(("127.0.0.1", {server.getsockname()[1]}), timeout=2)
        print("connected", flush=True)
    """
    process = start(tmp_path, script, SandboxConfig(SandboxLevel.OFF))
    assert process.read_line(soon()) == "connected"
    thread.join(5)
    process.stop()
    server.close()
    assert accepted


def test_plan_for_an_unusable_sandbox_in_auto_is_limits_only() -> None:
    plan = plan_sandbox(SandboxConfig(), MISSING)
    assert plan == SandboxPlan(SandboxConfig(), None, plan.missing, MISSING.root,
                               user_namespace_filter())
    assert plan.limits == SandboxLimits() and not plan.isolated


@needs_bwrap
def test_hidden_folders_inside_each_other_and_inside_a_readable_one(
        tmp_path: Path, tag: str) -> None:
    # the program's folder (readable) holds the output folder, which holds the game's
    # folder (both hidden), which holds the bot's working folder: the outer cover hides
    # the inner one, and the working folder is still the bot's
    outer = tmp_path / "bots" / "out"
    inner = outer / "slots" / "1"
    inner.mkdir(parents=True)
    (outer / "store.txt").write_text("secret")
    (inner / "other-bot.txt").write_text("secret")
    program = tmp_path / "bots" / "bot.py"
    program.write_text(textwrap.dedent(f"""
        import os
        print(sorted(os.listdir({str(outer)!r})), flush=True)
        open("mine.txt", "w").write("ok")
        print(open("mine.txt").read(), flush=True)
    """))
    process = BotProcess([sys.executable, str(program)], name="bot",
                         cwd=inner / "work" / "bot", sandbox=plan_sandbox(SandboxConfig()),
                         hidden=[inner, outer])
    process.start()
    try:
        assert process.read_line(soon()) == "['slots']"  # made for the working folder
        assert process.read_line(soon()) == "ok"
    finally:
        process.kill()
    assert (inner / "work" / "bot" / "mine.txt").read_text() == "ok"


def test_cpu_time_is_measured_finer_than_the_clock_tick(tmp_path: Path, tag: str) -> None:
    process = start(tmp_path, """
        import sys, time
        for line in sys.stdin:
            kind, ms = line.split()
            end = time.process_time() + int(ms) / 1000
            if kind == "spin":  # this much CPU, however busy the machine
                while time.process_time() < end:
                    pass
            else:
                time.sleep(int(ms) / 1000)
            print("done", flush=True)
    """, SandboxConfig(SandboxLevel.AUTO))
    try:
        process.send("sleep 0\n")  # started: what Python's start-up used is counted
        assert process.read_line(soon()) == "done"
        used = []
        for command in ("sleep 60", "spin 3", "spin 40"):
            before = process.cpu_time()
            process.send(command + "\n")
            assert process.read_line(soon()) == "done"
            used.append((process.cpu_time() - before) * 1000)
        sleep, short, long = used
        assert sleep < 5, used  # waiting is not computing
        assert 2.5 < short < 9, used  # 3 ms: a 10 ms clock tick could only say 0 or 10
        assert 39 < long < 80, used
    finally:
        process.kill()
