"""``FolderMeter`` measures what a walk of the folder measures, after any change a bot can
make, while listing only the folders whose entries may have changed."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from descriptors import descriptors_on
from referee.core import folder_meter
from referee.core.folder_meter import FolderMeter

NAMES = st.sampled_from(["a", "b", "c", "sub/d", "sub/e", "sub/deep/f", "g"])
OPS = st.lists(st.tuples(
    st.sampled_from(["write", "append", "truncate", "delete", "mkdir", "rmtree", "rename",
                     "link", "symlink", "utime"]), NAMES, NAMES, st.integers(0, 5000)),
    max_size=25)


def walked(root: Path) -> int:
    """Bytes under ``root`` by a plain walk (links not followed): the reference."""
    total = 0
    for folder, dirs, files in os.walk(root):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            total += os.lstat(os.path.join(folder, name)).st_size
    return total


def apply(root: Path, op: str, name: str, other: str, size: int) -> None:
    """One change a bot could make (one that cannot be made is skipped)."""
    path, target = root / name, root / other
    try:
        if op in ("write", "append"):
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "wb" if op == "write" else "ab") as f:
                f.write(b"x" * size)
        elif op == "truncate":
            os.truncate(path, size)
        elif op == "delete":
            path.unlink()
        elif op == "mkdir":
            path.mkdir(parents=True)
        elif op == "rmtree":
            for folder, _, files in os.walk(path, topdown=False):
                for f in files:
                    os.unlink(os.path.join(folder, f))
                os.rmdir(folder)
        elif op == "rename":
            target.parent.mkdir(parents=True, exist_ok=True)
            os.rename(path, target)
        elif op == "link":
            target.parent.mkdir(parents=True, exist_ok=True)
            os.link(path, target)
        elif op == "symlink":
            target.parent.mkdir(parents=True, exist_ok=True)
            os.symlink("/etc/passwd", target)
        elif op == "utime":  # the modification time set back: the change time still moves
            os.utime(path.parent, ns=(0, 0))
            os.utime(path, ns=(0, 0))
    except OSError:
        pass


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The folders the meter lists."""
    listed: list[str] = []
    scandir = os.scandir

    def counting(path: str | int) -> object:  # (the meter lists open folders)
        listed.append(os.readlink(f"/proc/self/fd/{path}") if isinstance(path, int)
                      else path)
        return scandir(path)

    monkeypatch.setattr(folder_meter.os, "scandir", counting)
    yield listed


@settings(max_examples=60, deadline=5000)
@given(OPS)
def test_every_measure_is_the_walk_s(tmp_path_factory: pytest.TempPathFactory,
                                     ops: list[tuple[str, str, str, int]]) -> None:
    root = tmp_path_factory.mktemp("meter")
    meter = FolderMeter(root)
    assert meter.size() == 0
    for op in ops:
        apply(root, *op)
        assert meter.size() == walked(root), op


@settings(max_examples=15, deadline=5000)
@given(OPS)
def test_trusted_listings_still_see_every_change(tmp_path_factory: pytest.TempPathFactory,
                                                 ops: list[tuple[str, str, str, int]]) -> None:
    """With every listing settled (the clock read as 10 s later), a folder is listed
    again only when its change time moves, and no change is missed. A pause after each
    measure lets the next change get a later time stamp, as a bot's next move does."""
    root = tmp_path_factory.mktemp("trusted")
    meter = FolderMeter(root)
    real = folder_meter._stamped_now
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(folder_meter, "_stamped_now", lambda: real() + 10**10)
        for op in ops:
            apply(root, *op)
            assert meter.size() == walked(root), op
            time.sleep(0.005)


def test_an_unchanged_folder_is_not_listed_again(tmp_path: Path, listings: list[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "f").write_bytes(b"12345")
    (tmp_path / "g").write_bytes(b"12")
    meter = FolderMeter(tmp_path)
    real = folder_meter._stamped_now
    monkeypatch.setattr(folder_meter, "_stamped_now", lambda: 0)  # the clock's tick not over
    assert meter.size() == 7 and len(listings) == 2
    assert meter.size() == 7 and len(listings) == 4  # listed, not settled yet
    monkeypatch.setattr(folder_meter, "_stamped_now", lambda: real() + 10**10)
    assert meter.size() == 7 and len(listings) == 6  # listed, settled
    listings.clear()
    (tmp_path / "sub" / "f").write_bytes(b"1234567890")  # grows: its folder is unchanged
    assert meter.size() == 12 and listings == []
    time.sleep(0.005)
    before = os.stat(tmp_path)
    (tmp_path / "new").write_bytes(b"x" * 100)  # a new entry: the root is listed again,
    os.utime(tmp_path, ns=(before.st_atime_ns, before.st_mtime_ns))  # even time set back
    assert os.stat(tmp_path).st_mtime_ns == before.st_mtime_ns
    assert meter.size() == 112 and listings == [str(tmp_path)]


def test_a_fresh_folder_s_listing_is_trusted_once_the_kernel_s_clock_has_ticked(
        tmp_path: Path, listings: list[str]) -> None:
    """With the real clocks: a folder just made is listed at every measure until the
    coarse clock that stamps files has passed its change time (a tick, a few ms), then no
    more while it is unchanged; a file added later is seen."""
    (tmp_path / "f").write_bytes(b"123")
    meter = FolderMeter(tmp_path)
    deadline = time.monotonic() + 1.0
    while meter.size() == 3 and len(listings) == 1 and time.monotonic() < deadline:
        listings.clear()  # listed once again (not settled yet): wait for the tick
        time.sleep(0.002)
    listings.clear()
    assert meter.size() == 3 and meter.size() == 3 and listings == []
    (tmp_path / "g").write_bytes(b"x" * 10)
    assert meter.size() == 13 and listings == [str(tmp_path)]


@pytest.mark.parametrize(("nanoseconds", "granule"), [
    (123_456_789, 1), (974_429_138, 2), (500_000_000, 500_000_000),
    (10_000_000, 10_000_000), (0, 2_000_000_000)])
def test_a_listing_is_trusted_a_granule_after_the_change_time(
        monkeypatch: pytest.MonkeyPatch, nanoseconds: int, granule: int) -> None:
    """The granule a file system cuts times to divides a second and the time's
    nanoseconds: the coarse clock must be that far past the change time (whole seconds:
    2 s, FAT's)."""
    ctime = 1_795_765_064 * 10**9 + nanoseconds
    monkeypatch.setattr(folder_meter, "_stamped_now", lambda: ctime + granule - 1)
    assert not folder_meter._settled(ctime)
    monkeypatch.setattr(folder_meter, "_stamped_now", lambda: ctime + granule)
    assert folder_meter._settled(ctime)


def test_without_the_coarse_clock_the_precise_one_stands_for_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def no_clock(clock: int) -> int:
        raise OSError(22, "Invalid argument")

    monkeypatch.setattr(folder_meter.time, "clock_gettime_ns", no_clock)
    before = time.time_ns()
    assert before - int(folder_meter.SETTLED * 1e9) <= folder_meter._stamped_now() <= \
        time.time_ns() - int(folder_meter.SETTLED * 1e9)


def test_a_missing_folder_or_a_file_measures_nothing(tmp_path: Path) -> None:
    assert FolderMeter(tmp_path / "none").size() == 0
    (tmp_path / "file").write_bytes(b"abc")
    assert FolderMeter(tmp_path / "file").size() == 0


def test_a_folder_given_as_a_link_is_measured_through_it(tmp_path: Path) -> None:
    """As the working folder an organiser links elsewhere; links under it still count as
    links, not as what they point to."""
    real = tmp_path / "real"
    real.mkdir()
    (real / "f").write_bytes(b"x" * 10)
    (real / "big").symlink_to("/etc/passwd")
    (tmp_path / "link").symlink_to(real)
    assert FolderMeter(tmp_path / "link").size() == 10 + os.lstat(real / "big").st_size


def test_the_folder_is_measured_where_it_went_and_let_go_when_closed(tmp_path: Path) -> None:
    """The meter keeps the folder it was given open: a bot whose folder was moved away
    still writes in it, and that is what counts (not what is at the old path); its
    descriptor is closed by ``close`` (a later measure opens the path again)."""
    work = tmp_path / "work"
    work.mkdir()
    meter = FolderMeter(work)
    assert meter.size() == 0 and len(descriptors_on(work)) == 1
    moved = tmp_path / "moved"
    work.rename(moved)
    work.mkdir()  # an empty folder at the old path
    (moved / "sub").mkdir()
    (moved / "sub" / "f").write_bytes(b"x" * 1000)
    assert meter.size() == 1000
    meter.close()
    assert descriptors_on(moved) == [] and meter.size() == 0  # the path's folder now
    (work / "g").write_bytes(b"x" * 7)
    assert meter.size() == 7
    meter.close()
    assert descriptors_on(work) == []


def as_bots_user(check: Callable[[Path], None]) -> None:
    """Run ``check(folder)`` on a fresh folder as a user that owns it and is not root, as
    a bot runs when the referee is not root (as root: in a child process that becomes
    ``nobody``; root reads every folder whatever its rights, so the test could not fail
    as root)."""
    folder = Path(tempfile.mkdtemp(prefix="meter-rights-", dir="/tmp"))
    try:
        if os.geteuid() != 0:
            check(folder)
            return
        os.chown(folder, NOBODY, NOBODY)
        pid = os.fork()
        if pid == 0:  # (the child: only this check, then out)
            code = 1
            try:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
                check(folder)
                code = 0
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(code)
        assert os.waitpid(pid, 0)[1] == 0, "the check failed as nobody (see stderr)"
    finally:
        for sub, _, _ in os.walk(folder):  # (as root; or as the owner, who may)
            with contextlib.suppress(OSError):
                os.chmod(sub, 0o700)
        shutil.rmtree(folder, ignore_errors=True)


NOBODY = 65534


def hide_from_the_meter(folder: Path) -> None:
    """A bot that takes away read or search rights from its own folders still has what
    it wrote in them counted (the rights are given back to their owner)."""
    (folder / "sub" / "deep").mkdir(parents=True)
    meter = FolderMeter(folder)
    assert meter.size() == 0
    (folder / "sub" / "deep" / "big").write_bytes(b"x" * 5000)
    os.chmod(folder / "sub" / "deep", 0o300)  # no reading: its files cannot be listed
    os.chmod(folder / "sub", 0o100)  # search only
    assert meter.size() == 5000
    assert stat.S_IMODE(os.stat(folder / "sub").st_mode) == 0o700
    (folder / "sub" / "deep" / "more").write_bytes(b"x" * 3000)
    os.chmod(folder / "sub" / "deep", 0o200)  # no search: its files cannot be looked at
    assert meter.size() == 8000
    os.chmod(folder, 0o300)  # the folder itself, before a new meter first opens it
    fresh = FolderMeter(folder)
    assert fresh.size() == 8000
    opened = len(os.listdir("/proc/self/fd"))
    for _ in range(3):
        assert meter.size() == fresh.size() == 8000
    assert len(os.listdir("/proc/self/fd")) == opened  # (nothing left open on the way)
    meter.close()
    fresh.close()


def test_rights_taken_from_a_folder_do_not_hide_what_is_in_it() -> None:
    as_bots_user(hide_from_the_meter)
