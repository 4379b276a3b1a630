"""A bot's writable folders while it runs: isolated, a file system of their own of fixed
size (the host's disk never sees what it writes; written back at its end, unless over
the folder limit); with the limits only, a folder over the limit is emptied before the
bot starts again. Real bots through bubblewrap."""

from __future__ import annotations

import contextlib
import errno
import os
import sys
import textwrap
import threading
import time
from pathlib import Path

import psutil
import pytest

from referee.core import bounded_folders
from referee.core.bounded_folders import BoundedFolders, start_within, tmpfs_size
from referee.core.errors import BotFault
from referee.core.outcome import Outcome
from referee.core.process import BotProcess
from referee.core.sandbox import (
    SandboxConfig,
    SandboxLimits,
    SandboxSupport,
    plan_sandbox,
    sandbox_support,
)

MB = 1 << 20
SUPPORT = sandbox_support()
MISSING = SandboxSupport(None, "", False, "bubblewrap is not installed", os.geteuid() == 0)
needs_bwrap = pytest.mark.skipif(not SUPPORT.usable, reason=f"no isolation: {SUPPORT.problem}")


def bot(tmp_path: Path, script: str, support: SandboxSupport, folder: int = 2 * MB,
        private: tuple[tuple[Path, Path], ...] = ()) -> BotProcess:
    """A bot running ``script`` with a folder limit of ``folder`` bytes."""
    program = tmp_path / "bots" / "bot.py"
    program.parent.mkdir(exist_ok=True)
    program.write_text(textwrap.dedent(script))
    plan = plan_sandbox(SandboxConfig(limits=SandboxLimits(folder=folder)), support)
    out = tmp_path / "out"
    process = BotProcess([sys.executable, str(program)], name="bot", cwd=out / "work" / "bot",
                         stderr_log=out / "logs" / "bot.log", sandbox=plan, hidden=[out],
                         private=private)
    process.start()
    return process


def soon(seconds: float = 20.0) -> float:
    return time.monotonic() + seconds


def disk_used(folder: Path) -> int:
    """Bytes in files under ``folder`` on the host's disk."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not
               p.is_symlink())


FLOOD = """
    import errno, os, sys
    print("start", sorted(os.listdir(".")), flush=True)
    sys.stdin.readline()
    written = 0
    try:
        for i in range(200):  # 200 files of 1 MB: far past the limit, within one move
            with open(f"flood-{i}", "wb") as f:
                f.write(b"x" * (1 << 20))
            written += 1
    except OSError as exc:
        print("stopped", exc.errno, written, flush=True)
    else:
        print("wrote all", written, flush=True)
    sys.stdin.readline()
"""


@needs_bwrap
def test_a_bot_cannot_fill_the_host_disk_within_one_move(tmp_path: Path, tag: str) -> None:
    work = tmp_path / "out" / "work" / "bot"
    work.mkdir(parents=True)
    (work / "kept.txt").write_text("from the last game")
    process = bot(tmp_path, FLOOD, SUPPORT)
    try:
        assert process.read_line(soon()) == "start ['kept.txt']"  # the host's files, copied in
        process.send("go\n")
        stopped = process.read_line(soon())
        assert disk_used(work) == len("from the last game")  # the host's disk saw none of it
        with pytest.raises(BotFault) as fault:
            process.end_turn()
    finally:
        process.kill()
    words, code, files = stopped.split()
    assert words == "stopped" and int(code) == 28  # ENOSPC: its own file system is full
    assert int(files) <= tmpfs_size(2 * MB) // MB
    assert fault.value.outcome is Outcome.FOLDER_LIMIT
    # over the limit at its end: its folder stays as it was when it started
    assert sorted(p.name for p in work.iterdir()) == ["kept.txt"]
    assert disk_used(work) == len("from the last game")


KEEP = """
    import os, sys
    print("had", sorted(os.listdir(".")), open("notes.txt").read() if os.path.exists(
        "notes.txt") else "-", flush=True)
    os.makedirs("deep/er", exist_ok=True)
    open("deep/er/state.bin", "wb").write(b"s" * 1000)
    open("notes.txt", "w").write(sys.argv[1] if len(sys.argv) > 1 else "game 1")
    os.symlink("/etc/shadow", "shadow")  # a link is kept as a link, never followed
    os.mkfifo("pipe")  # left out
    print("done", flush=True)
    sys.stdin.readline()
"""


@needs_bwrap
def test_what_a_bot_leaves_within_the_limit_is_kept_for_its_next_start(
        tmp_path: Path, tag: str) -> None:
    persist_host = tmp_path / "persist" / "bot"
    persist_host.mkdir(parents=True)
    seen = tmp_path / "announced"
    first = bot(tmp_path, KEEP, SUPPORT, private=((persist_host, seen),))
    try:
        assert first.read_line(soon()) == "had [] -"
        assert first.read_line(soon()) == "done"
        first.end_turn()  # within the limit
        assert not (tmp_path / "out" / "work" / "bot" / "notes.txt").exists()  # (not yet)
    finally:
        first.kill()
    work = tmp_path / "out" / "work" / "bot"
    assert (work / "notes.txt").read_text() == "game 1"
    assert (work / "deep" / "er" / "state.bin").stat().st_size == 1000
    assert os.readlink(work / "shadow") == "/etc/shadow"
    assert not os.path.lexists(work / "pipe")
    second = bot(tmp_path, KEEP.replace("os.symlink", "pass  # os.symlink"), SUPPORT,
                 private=((persist_host, seen),))
    try:
        assert second.read_line(soon()) == "had ['deep', 'notes.txt', 'shadow'] game 1"
        assert second.read_line(soon()) == "done"
    finally:
        second.kill()


@needs_bwrap
def test_a_bot_whose_folder_does_not_fit_its_file_system_does_not_start(
        tmp_path: Path, tag: str) -> None:
    work = tmp_path / "out" / "work" / "bot"
    work.mkdir(parents=True)
    for i in range(700):  # 700 bytes by the folder limit, 700 pages of its file system
        (work / f"f{i}").write_text("x")
    with pytest.raises(BotFault) as fault:
        bot(tmp_path, "print('never')", SUPPORT, folder=MB)
    assert fault.value.outcome is Outcome.CRASH
    assert fault.value.reason.startswith("its sandbox could not be set up: ")
    assert len(list(work.iterdir())) == 700  # its own folder untouched


@pytest.mark.parametrize("support", [pytest.param(SUPPORT, id="isolated",
                                                  marks=needs_bwrap),
                                     pytest.param(MISSING, id="limits-only")])
def test_a_folder_over_the_limit_is_emptied_before_the_bot_starts_again(
        tmp_path: Path, tag: str, support: SandboxSupport,
        caplog: pytest.LogCaptureFixture) -> None:
    """With the limits only, a bot that went past the folder limit in a game left its
    files on the host: its next start (the next game of a tournament) is within it."""
    work = tmp_path / "out" / "work" / "bot"
    work.mkdir(parents=True)
    (work / "big.bin").write_bytes(b"x" * (3 * MB))
    (work / "sub").mkdir()
    (work / "sub" / "more.bin").write_bytes(b"x" * 10)
    process = bot(tmp_path, "import os, sys\nprint(sorted(os.listdir('.')), flush=True)\n"
                  "sys.stdin.readline()\n", support)
    try:
        assert process.read_line(soon()) == "[]"
    finally:
        process.kill()
    assert list(work.iterdir()) == []
    assert "its folders hold 3.0 MB, over the limit of 2 MB: emptied" in caplog.text


def test_start_within_leaves_a_folder_within_the_limit(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"x" * 100)
    assert not start_within([tmp_path, tmp_path / "missing"], 100, "bot")
    assert (tmp_path / "a").exists()
    assert start_within([tmp_path], 99, "bot")
    assert not (tmp_path / "a").exists()


def test_an_interrupted_write_back_is_put_back_at_the_next_start(tmp_path: Path) -> None:
    host = tmp_path / "work" / "bot"
    aside = tmp_path / "work" / ".bot.old"
    aside.mkdir(parents=True)
    (aside / "state.bin").write_text("kept")
    (tmp_path / "work" / ".bot.new").mkdir()  # an unfinished copy
    bounded_folders._recover(host)
    assert (host / "state.bin").read_text() == "kept"
    assert not aside.exists() and not (tmp_path / "work" / ".bot.new").exists()


def test_deep_and_numerous_entries_are_bounded(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "bot"
    deep = source
    for _ in range(bounded_folders.MAX_DEPTH + 3):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "too-deep.txt").write_text("x")
    folders = BoundedFolders([(tmp_path / "host", Path("/unused"))], limit=MB)
    folders.fds.append(os.open(source, os.O_RDONLY | os.O_DIRECTORY))
    assert folders.write_back()
    copied = tmp_path / "host"
    depth = 0
    while (copied / "d").is_dir():
        copied, depth = copied / "d", depth + 1
    assert depth == bounded_folders.MAX_DEPTH
    monkeypatch.setattr(bounded_folders, "MAX_ENTRIES", 10)
    for i in range(20):
        (source / f"f{i}").write_text("x")
    again = BoundedFolders([(tmp_path / "host", Path("/unused"))], limit=MB)
    again.fds.append(os.open(source, os.O_RDONLY | os.O_DIRECTORY))
    assert not again.write_back()  # too many entries: not kept, the host's as it was
    assert not (tmp_path / "host" / "f0").exists() and (tmp_path / "host" / "d").is_dir()


MANY = """
    import sys
    for i in range(300):
        open(f"f{i}.txt", "w").write(str(i) * 100)
    print("done", flush=True)
    sys.stdin.readline()
"""


@needs_bwrap
def test_kills_from_several_threads_at_once_write_the_folders_back_once(
        tmp_path: Path, tag: str, caplog: pytest.LogCaptureFixture) -> None:
    """A game's own kill and a stopping referee's may meet: the bot's folders are written
    back once, whole (two write-backs at once replaced each other's copy and closed the
    folders under each other: "its folders are not kept")."""
    process = bot(tmp_path, MANY, SUPPORT)
    assert process.read_line(soon()) == "done"
    start = threading.Barrier(6)

    def kill() -> None:
        start.wait()
        process.kill()

    threads = [threading.Thread(target=kill) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    process.kill()  # (once killed, a kill does nothing)
    work = tmp_path / "out" / "work" / "bot"
    assert sorted(p.name for p in work.iterdir()) == sorted(f"f{i}.txt" for i in range(300))
    assert all((work / f"f{i}.txt").read_text() == str(i) * 100 for i in range(300))
    assert not list(work.parent.glob(".bot.*")) and "not kept" not in caplog.text


def test_a_write_back_short_of_descriptors_keeps_the_host_s_folder_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A copy that cannot open a file for want of descriptors stops: the host's folder
    stays as it was (a copy leaving the file out replaced it, and the file was lost)."""
    host = tmp_path / "host"
    host.mkdir()
    (host / "model.bin").write_text("learned")
    source = tmp_path / "bot"
    source.mkdir()
    for name in ("model.bin", "notes.txt"):
        (source / name).write_text("new " + name)
    copy_file = bounded_folders._copy_file

    def short(source_fd: int, target: int, name: str, mode: int) -> None:
        if name == "model.bin":
            raise OSError(errno.EMFILE, "Too many open files")
        copy_file(source_fd, target, name, mode)

    monkeypatch.setattr(bounded_folders, "_copy_file", short)
    folders = BoundedFolders([(host, Path("/unused"))], limit=MB)
    folders.fds.append(os.open(source, os.O_RDONLY | os.O_DIRECTORY))
    assert not folders.write_back()
    assert sorted(p.name for p in host.iterdir()) == ["model.bin"]
    assert (host / "model.bin").read_text() == "learned"


def open_files() -> set[tuple[str, str]]:
    """This process's descriptors: (number, what each is)."""
    found = set()
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            found.add((fd, os.readlink(f"/proc/self/fd/{fd}")))
    return found


class _ShortOpen:
    """``os`` as ``bounded_folders`` sees it, with no descriptor left for the sandbox's
    folders (``/proc/PID/root/...``)."""

    def __getattr__(self, name: str) -> object:
        return getattr(os, name)

    @staticmethod
    def open(path: str, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        if str(path).startswith("/proc/") and "/root/" in str(path):
            raise OSError(errno.EMFILE, "Too many open files")
        return os.open(path, flags, mode, dir_fd=dir_fd)


@needs_bwrap
@pytest.mark.parametrize("where", ["attach", "fill"])
def test_a_sandbox_short_of_descriptors_is_the_machine_s_not_the_bot_s_fault(
        tmp_path: Path, tag: str, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """No descriptor for the bot's folders as its sandbox is set up: ``OSError`` at once
    (a tournament stops and plays the game again), not a crash the bot loses for, nor a
    wait for a mount that is there; its sandbox is gone and nothing is left open."""
    if where == "attach":
        monkeypatch.setattr(bounded_folders, "os", _ShortOpen())
    else:
        def fill(self: BoundedFolders) -> None:
            raise OSError(errno.ENFILE, "Too many open files in system")
        monkeypatch.setattr(BoundedFolders, "fill", fill)
    opened = open_files()
    began = time.monotonic()
    with pytest.raises(OSError) as short:
        bot(tmp_path, "import time\ntime.sleep(60)\n", SUPPORT)
    assert time.monotonic() - began < 10
    assert short.value.errno in (errno.EMFILE, errno.ENFILE)
    assert open_files() - opened == set()
    program = str(tmp_path / "bots" / "bot.py")
    assert not [p for p in psutil.process_iter(["cmdline"])
                if program in (p.info["cmdline"] or ())]
