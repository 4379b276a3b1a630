"""An isolated bot's writable folders, bounded while it runs.

The folder limit is checked after every move, but a bot may write a great deal within
one move (hundreds of files at disk speed, or ``fallocate`` at once). So an isolated bot
never writes the host's disk: each of its writable folders (its working folder, a game's
persistent folder) is a file system of its own in its sandbox, in memory and of a fixed
size (``tmpfs``, :func:`tmpfs_size`: the folder limit and a quarter more, so that the
check after the move still sees a bot that went past the limit and records it), and the
host's folder is copied into it before the bot runs and back from it once the bot has
ended:

- bubblewrap mounts the folders, tells the referee the process it set them up in
  (``--info-fd``) and waits (``--block-fd``) until the referee has opened each folder
  through that process's root (``/proc/PID/root/...``, once its mounts are in place: the
  folder there is on another device than the host's) and copied the host's files in;
- the referee keeps the folders open: the folder limit is measured through them, and
  they outlive the sandbox, so that what the bot left is read after every process of it
  has ended;
- at the end, what the folders hold is written back to the host's folders, unless it is
  over the folder limit: then the host's folders stay as they were when the bot started
  (within the limit), and the next game starts within it too.

The copies never follow a link (a link is copied as a link), take files, folders and
links only (a pipe or a socket is left out), and read the bot's folder only through the
descriptors kept, never through a path it could change. A referee killed while a bot runs
loses what the bot wrote since it started; its host folder keeps what it had.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import select
import shutil
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from referee.core.folder_meter import FolderMeter
from referee.core.open_files import SHORT_OF

__all__ = ["BoundedFolders", "start_within", "tmpfs_size"]

log = logging.getLogger(__name__)

_MB = 1 << 20
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_CHUNK = 1 << 20


def tmpfs_size(limit: int) -> int:
    """The size of each bounded folder: the folder limit and a quarter more (at least
    1 MB more), so that the check after a move sees a bot that went past the limit."""
    return limit + max(limit // 4, _MB)


@dataclass
class BoundedFolders:
    """The bounded folders of one isolated bot: ``(host folder, path the bot sees)``."""

    folders: Sequence[tuple[Path, Path]]
    limit: int
    """The folder limit (bytes, all the folders together)."""
    uid: int | None = None
    """The bot's own user (the referee is root), which the copies are given to."""
    name: str = "bot"
    fds: list[int] = field(default_factory=list)
    """The bot's folders, open (once :meth:`attach` has found them)."""
    child: int = 0
    """The process bubblewrap set the sandbox up in (once :meth:`attach` knows it)."""

    def attach(self, info_fd: int, deadline: float) -> None:
        """Read bubblewrap's ``--info-fd`` for the process that set the sandbox up, then
        open each folder through its root once it is mounted (``OSError`` if not by
        ``deadline``, a ``time.monotonic()`` value)."""
        child = self.child = _child_pid(info_fd, deadline)
        for host, inside in self.folders:
            host_dev = os.stat(host).st_dev
            while True:
                try:
                    fd = os.open(f"/proc/{child}/root{inside}", _DIR_FLAGS)
                except OSError as exc:
                    if exc.errno in SHORT_OF:  # (not a folder still to be mounted)
                        raise
                else:
                    if _mounted(fd, host_dev):
                        break
                if time.monotonic() > deadline:
                    raise OSError(f"the sandbox did not mount {inside} in time")
                time.sleep(0.0002)
            self.fds.append(fd)

    def fill(self) -> None:
        """Copy each host folder into the bot's (given to its user); a host folder that
        an interrupted write-back left aside is put back first."""
        for (host, _), fd in zip(self.folders, self.fds, strict=True):
            _recover(host)
            if self.uid is not None:
                os.fchown(fd, self.uid, self.uid)
            source = os.open(host, _DIR_FLAGS)
            try:
                _copy_into(source, fd, self.uid)
            finally:
                os.close(source)

    @property
    def paths(self) -> list[str]:
        """The bot's folders as the referee reads them (through the descriptors)."""
        return [f"/proc/self/fd/{fd}" for fd in self.fds]

    def used(self) -> int:
        """The bytes the bot's folders hold now."""
        total = 0
        for path in self.paths:
            meter = FolderMeter(path)
            try:
                total += meter.size()
            finally:
                meter.close()
        return total

    def write_back(self) -> bool:
        """Once the bot has ended: its folders written back to the host's, unless they
        hold more than the limit (then the host's stay as they were); closes them.
        Whether they were written back."""
        try:
            if not self.fds or len(self.fds) != len(self.folders):
                return False  # (not all opened: the bot never ran, its folders stay)
            used = self.used()
            if used > self.limit:
                log.warning("%s: its folders hold %.1f MB, over the limit of %g MB: not "
                            "kept (its folders stay as they were when it started)",
                            self.name, used / _MB, self.limit / _MB)
                return False
            try:
                for (host, _), fd in zip(self.folders, self.fds, strict=True):
                    _sync(fd, host)
            except OSError as exc:
                log.warning("%s: its folders are not kept: %s", self.name, exc)
                for host, _ in self.folders:
                    _recover(host)
                return False
            return True
        finally:
            self.close()

    def close(self) -> None:
        """Let the bot's folders go (what they held is gone with them)."""
        for fd in self.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds.clear()


def _mounted(fd: int, host_dev: int) -> bool:
    """Whether the folder open as ``fd`` is the sandbox's mount, not the host's own
    folder seen before bubblewrap's pivot (then it is closed)."""
    try:
        if os.fstat(fd).st_dev != host_dev:
            return True
    except OSError:
        pass
    os.close(fd)
    return False


def start_within(folders: Sequence[Path], limit: int, name: str) -> bool:
    """Empty a bot's ``folders`` if they hold more than ``limit`` together, so that it
    starts within the folder limit (a bot that went past it in a game it lost by it, with
    the limits only, left its files there); whether they were emptied."""
    used = 0
    for folder in folders:
        meter = FolderMeter(folder)
        try:
            used += meter.size()
        finally:
            meter.close()
    if used <= limit:
        return False
    log.warning("%s: its folders hold %.1f MB, over the limit of %g MB: emptied before it "
                "starts", name, used / _MB, limit / _MB)
    for folder in folders:
        for entry in _entries_of(folder):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
    return True


def _entries_of(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as found:
            return list(found)
    except OSError:
        return []


def _child_pid(info_fd: int, deadline: float) -> int:
    """The ``child-pid`` of bubblewrap's ``--info-fd`` JSON (read up to its end)."""
    data = b""
    poller = select.poll()
    poller.register(info_fd, select.POLLIN)
    while not data.rstrip().endswith(b"}"):
        left = deadline - time.monotonic()
        if left <= 0 or not poller.poll(max(1, int(left * 1000))):
            raise OSError("the sandbox did not say where it runs in time")
        chunk = os.read(info_fd, 4096)
        if not chunk:
            raise OSError("the sandbox ended before it was set up")
        data += chunk
    try:
        return int(json.loads(data)["child-pid"])
    except (ValueError, KeyError, TypeError) as exc:
        raise OSError(f"the sandbox's information is not readable: {exc}") from exc


def _entries(fd: int) -> list[os.DirEntry[str]]:
    with os.scandir(fd) as found:
        return list(found)


MAX_DEPTH = 64
"""Folders deeper than this under a bot's folder are not copied (logged)."""
MAX_ENTRIES = 100_000
"""A bot's folders holding more entries than this are not copied back at all (a bot
may make empty folders without end: they take no room in its file system's size)."""


class _Budget:
    """Entries left to copy."""

    def __init__(self) -> None:
        self.left = MAX_ENTRIES

    def take(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise OSError(errno.EFBIG, f"more than {MAX_ENTRIES} entries")


def _copy_into(source: int, target: int, uid: int | None, budget: _Budget | None = None,
               depth: int = 0) -> None:
    """Copy the tree under folder ``source`` into folder ``target`` (both open), never
    following a link, each copy given to ``uid`` if set. An entry that cannot be read
    (the bot took the rights away) is left out, and so is what lies more than
    :data:`MAX_DEPTH` folders down; a full target, or more than :data:`MAX_ENTRIES`
    entries, raises ``OSError``."""
    budget = budget or _Budget()
    for entry in _entries(source):
        budget.take()
        try:
            _copy_entry(source, target, entry.name, uid, budget, depth)
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EFBIG) or exc.errno in SHORT_OF:
                raise  # (short of descriptors or memory, the copy would be partial)
            log.debug("not copied: %s: %s", entry.name, exc)


def _copy_entry(source: int, target: int, name: str, uid: int | None, budget: _Budget,
                depth: int) -> None:
    """Copy one entry of ``source`` into ``target``: a link as a link, a folder with
    what it holds, a file; anything else is left out."""
    info = os.stat(name, dir_fd=source, follow_symlinks=False)
    if stat.S_ISLNK(info.st_mode):
        os.symlink(os.readlink(name, dir_fd=source), name, dir_fd=target)
    elif stat.S_ISDIR(info.st_mode):
        if depth >= MAX_DEPTH:
            log.warning("not copied: a folder %d deep in a bot's folder", depth + 1)
            return
        inner_source = os.open(name, _DIR_FLAGS, dir_fd=source)
        try:
            os.mkdir(name, stat.S_IMODE(info.st_mode) | 0o700, dir_fd=target)
            inner_target = os.open(name, _DIR_FLAGS, dir_fd=target)
            try:
                _copy_into(inner_source, inner_target, uid, budget, depth + 1)
            finally:
                os.close(inner_target)
        finally:
            os.close(inner_source)
    elif stat.S_ISREG(info.st_mode):
        _copy_file(source, target, name, stat.S_IMODE(info.st_mode))
    else:
        return
    if uid is not None:
        os.chown(name, uid, uid, dir_fd=target, follow_symlinks=False)


def _copy_file(source: int, target: int, name: str, mode: int) -> None:
    """Copy file ``name`` of folder ``source`` into ``target``, without following a
    link."""
    reading = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                      dir_fd=source)
    try:
        writing = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                          | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=target)
        try:
            while chunk := os.read(reading, _CHUNK):
                os.write(writing, chunk)
        finally:
            os.close(writing)
    finally:
        os.close(reading)


def _sync(bot: int, host: Path) -> None:
    """Make the host's folder ``host`` hold what the bot's folder (open as ``bot``) holds:
    the host's copy made anew beside it, then put in its place (the host's own entries,
    which the bot's folder had at its start, are replaced as a whole)."""
    host.parent.mkdir(parents=True, exist_ok=True)
    fresh = host.parent / f".{host.name}.new"
    old = host.parent / f".{host.name}.old"
    for leftover in (fresh, old):
        shutil.rmtree(leftover, ignore_errors=True)
    fresh.mkdir(mode=0o700)
    target = os.open(fresh, _DIR_FLAGS)
    try:
        _copy_into(bot, target, None)
    finally:
        os.close(target)
    with contextlib.suppress(FileNotFoundError):
        os.rename(host, old)
    os.rename(fresh, host)
    shutil.rmtree(old, ignore_errors=True)


def _recover(host: Path) -> None:
    """Put back the host folder a write-back interrupted between its two renames left
    aside (``.NAME.old``), and drop its unfinished copy (``.NAME.new``)."""
    old = host.parent / f".{host.name}.old"
    if old.is_dir() and not os.path.lexists(host):
        os.rename(old, host)
    shutil.rmtree(host.parent / f".{host.name}.new", ignore_errors=True)
