"""A bot never runs as root, cannot make user namespaces, and is seen at once when it
closes its output: real bots, isolated (bubblewrap) and with the limits only, as root
(each bot its own user id, a way into closed folders opened to it alone) and not."""

from __future__ import annotations

import os
import stat
import sys
import textwrap
import time
from pathlib import Path

import pytest

from referee.core import confine as confine_module
from referee.core.acl import READ, SEARCH, grant, user_entries
from referee.core.bot_users import UID_BASE, ways_in
from referee.core.errors import BotFault
from referee.core.outcome import Outcome
from referee.core.process import BotProcess
from referee.core.sandbox import SandboxConfig, SandboxSupport, plan_sandbox, sandbox_support
from referee.core.seccomp import CLONE_NEWUSER, user_namespace_filter

ROOT = os.geteuid() == 0
SUPPORT = sandbox_support()
MISSING = SandboxSupport(None, "", False, "bubblewrap is not installed", ROOT)
MODES = [pytest.param(SUPPORT, id="isolated", marks=pytest.mark.skipif(
    not SUPPORT.usable, reason=f"no isolation: {SUPPORT.problem}")),
    pytest.param(MISSING, id="limits-only")]
needs_root = pytest.mark.skipif(not ROOT, reason="only a referee run as root gives bots users")


def bot(folder: Path, out: Path, script: str, support: SandboxSupport,
        name: str = "bot") -> BotProcess:
    """A bot running ``script``, written in ``folder``, its working folder in ``out``."""
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / f"{name}.py"
    program.write_text(textwrap.dedent(script))
    plan = plan_sandbox(SandboxConfig(), support)
    process = BotProcess([sys.executable, str(program)], name=name, cwd=out / "work" / name,
                         stderr_log=out / "logs" / f"{name}.log", sandbox=plan,
                         hidden=[out])
    process.start()
    return process


def soon(seconds: float = 10.0) -> float:
    return time.monotonic() + seconds


# -- no new user namespaces -------------------------------------------------------------

UNSHARE = """
    import ctypes, os, sys
    libc = ctypes.CDLL(None, use_errno=True)
    made = libc.unshare({flag})
    print("unshare", made, ctypes.get_errno(), flush=True)
    pid = os.fork()  # (clone without the flag, as fork is, still works)
    if pid == 0:
        os._exit(7)
    print("fork", os.waitpid(pid, 0)[1] >> 8, flush=True)
    sys.stdin.readline()
"""


@pytest.mark.skipif(user_namespace_filter() is None, reason="no filter for this machine")
@pytest.mark.parametrize("support", MODES)
def test_a_bot_cannot_make_a_user_namespace(tmp_path: Path, tag: str,
                                            support: SandboxSupport) -> None:
    process = bot(tmp_path / "bots", tmp_path / "out", UNSHARE.format(flag=CLONE_NEWUSER),
                  support)
    try:
        assert process.read_line(soon()) == "unshare -1 1"  # EPERM
        assert process.read_line(soon()) == "fork 7"
    finally:
        process.kill()
    assert "no user namespaces" in process.sandbox.describe(False)  # type: ignore[union-attr]


def test_the_filter_reads_the_flags_and_sends_clone3_back_to_clone() -> None:
    program = user_namespace_filter("x86_64")
    assert program is not None and len(program) % 8 == 0
    assert user_namespace_filter("aarch64") not in (None, program)
    assert user_namespace_filter("riscv64") is None


# -- its standard output is its own ---------------------------------------------------

@pytest.mark.parametrize("launcher", ["native", "python"])
@pytest.mark.parametrize("support", MODES)
def test_a_bot_that_closes_its_output_is_seen_at_once(
        tmp_path: Path, tag: str, support: SandboxSupport, launcher: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Isolated, the bot's ends of its pipes are its alone, through util-linux's launcher
    (bash moving them to 0 and 1) and through the Python one (where bash is not)."""
    if launcher == "python":
        monkeypatch.setattr(confine_module, "_system_tool", lambda name: None)
    script = """
        import os, sys, time
        print("hello", flush=True)
        os.close(1)
        time.sleep(60)
    """
    process = bot(tmp_path / "bots", tmp_path / "out", script, support)
    try:
        assert process.read_line(soon()) == "hello"
        began = time.monotonic()
        with pytest.raises(BotFault) as fault:
            process.read_line(soon(20))
        assert time.monotonic() - began < 3
        assert fault.value.outcome is Outcome.CRASH
        assert fault.value.reason.startswith("closed its output")
    finally:
        process.kill()


@pytest.mark.parametrize("support", MODES)
def test_writing_to_a_bot_that_closed_its_input_fails_at_once(
        tmp_path: Path, tag: str, support: SandboxSupport) -> None:
    script = """
        import os, sys, time
        os.close(0)
        print("closed", flush=True)
        time.sleep(60)
    """
    process = bot(tmp_path / "bots", tmp_path / "out", script, support)
    try:
        assert process.read_line(soon()) == "closed"
        with pytest.raises(BotFault) as fault:
            process.send("x" * 100 + "\n", soon(20))
        assert fault.value.outcome is Outcome.CRASH
        assert fault.value.reason == "closed its input"  # (no [Errno 32] Broken pipe)
    finally:
        process.kill()


# -- its own user -------------------------------------------------------------------------

SNOOP = """
    import os, sys
    def attempt(what, action):
        try:
            action()
            print(what, "GOT", flush=True)
        except OSError as exc:
            print(what, "refused", exc.errno, flush=True)
    print("uid", os.getuid(), os.getgid(), os.getgroups(), flush=True)
    print("data", open({data!r}).read(), flush=True)
    attempt("root's", lambda: open({secret!r}).read())
    attempt("other bot's", lambda: open({other!r}).read())
    attempt("referee's environment", lambda: open("/proc/{referee}/environ").read())
    attempt("write own", lambda: open("mine.txt", "w").write("x"))
    print("done", flush=True)
    sys.stdin.readline()
"""


@needs_root
@pytest.mark.parametrize("support", MODES)
def test_a_bot_of_root_runs_as_its_own_user_in_a_closed_folder(
        tmp_path: Path, tag: str, support: SandboxSupport) -> None:
    """As in Docker or CI: the program in a folder of ``mktemp -d`` (0700), the referee
    root. The bot runs as its own user, reads its own folder (opened to it alone, and
    closed again once it has ended), and reads nothing of root's or of another bot's."""
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    closed.chmod(0o700)
    (closed / "book.txt").write_text("own-data")
    secret = tmp_path / "roots"
    secret.mkdir(mode=0o700)
    secret.chmod(0o700)
    (secret / "key.txt").write_text("root-secret")
    out = closed / "out"
    other = bot(closed, out, "import sys\nprint('ready', flush=True)\nsys.stdin.readline()\n",
                support, name="other")
    (out / "work" / "other" / "plan.txt").write_text("other-secret")
    assert other.read_line(soon()) == "ready"
    script = SNOOP.format(data=str(closed / "book.txt"), secret=str(secret / "key.txt"),
                          other=str(out / "work" / "other" / "plan.txt"),
                          referee=os.getpid())
    process = bot(closed, out, script, support)
    try:
        said = []
        while (line := process.read_line(soon())) != "done":
            said.append(line)
        uid, gid, groups = said[0].split(" ", 3)[1:]
        assert int(uid) >= UID_BASE and int(gid) == int(uid) and groups == "[]"
        while_running = user_entries(str(closed))
        assert while_running.get(int(uid)) == READ | SEARCH
        assert stat.S_IMODE(closed.stat().st_mode) & 0o007 == 0  # never opened to others
    finally:
        process.kill()
        other.kill()
    assert said[1] == "data own-data"
    assert said[2].startswith("root's refused ")  # 13 (EACCES), or 2 isolated (not there)
    assert said[3].startswith("other bot's refused ")
    assert said[4].startswith("referee's environment refused")
    assert said[5] == "write own GOT"
    assert user_entries(str(closed)) == {}  # taken back with the bots
    assert stat.S_IMODE(closed.stat().st_mode) == 0o700
    mine = out / "work" / "bot" / "mine.txt"
    assert mine.read_text() == "x"
    if not support.usable:  # (isolated, the host's copy of its folder is the referee's)
        assert mine.stat().st_uid == int(uid)


@needs_root
def test_an_entry_left_by_a_killed_referee_goes_with_the_next_grant(tmp_path: Path) -> None:
    folder = tmp_path / "f"
    folder.mkdir(mode=0o700)
    lock = tmp_path / "acl.lock"
    left = grant(str(folder), UID_BASE + 9_998, READ, lock)  # never revoked: "killed"
    assert user_entries(str(folder)) == {UID_BASE + 9_998: READ}
    mine = grant(str(folder), UID_BASE + 9_997, READ | SEARCH, lock,
                 stale=lambda uid: uid == UID_BASE + 9_998)
    assert user_entries(str(folder)) == {UID_BASE + 9_997: READ | SEARCH}
    mine.revoke()
    left.revoke()  # (nothing left to take: no error)
    assert user_entries(str(folder)) == {}
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_the_way_in_is_searched_and_the_files_read(tmp_path: Path) -> None:
    program = tmp_path / "a" / "b" / "bot"
    program.parent.mkdir(parents=True)
    program.write_text("")
    program.chmod(0o700)
    link = tmp_path / "link"
    link.symlink_to(program)
    work = tmp_path / "out" / "work" / "bot"
    needs = dict(ways_in([(link, True)], [work], lambda path: path != Path("/")))
    assert needs[program] == READ | SEARCH  # an executable program is executed
    assert needs[program.parent] == READ | SEARCH
    assert needs[program.parent.parent] == SEARCH and needs[tmp_path] == SEARCH
    assert needs[tmp_path / "out" / "work"] == SEARCH and work not in needs
    assert link not in needs and Path("/") not in needs
    shown = dict(ways_in([(program, False)], [], lambda path: path.is_relative_to(
        program.parent)))
    assert shown == {program: READ, program.parent: READ | SEARCH}
