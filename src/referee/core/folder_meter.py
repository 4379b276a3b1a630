"""The bytes under a bot's folders, measured after every turn without listing them again.

The sandbox's folder limit is checked after every move (``BotProcess.check_folders``),
so the measure runs tens of thousands of times a game. ``FolderMeter`` lists a folder
(``os.scandir``) only when its entries may have changed. A folder's change time
(``ctime``) moves whenever an entry is added, removed or renamed in it, and a program
cannot set it back (``utime`` sets the modification time and moves the change time too);
while it stays as it was when the folder was listed, the files listed then are all there
is, and a ``stat`` of each tells its size now (a file that grows changes its own size,
not its folder). The folder is kept open and everything under it is looked up from it:
an empty working folder costs one ``fstat`` (1.6 µs here, five folders deep; a ``stat``
of its path took 4.8 µs and a listing 5.8 µs).

A file system stamps times with the kernel's coarse clock (``CLOCK_REALTIME_COARSE``,
a tick of a few milliseconds; Linux 6.13 and later stamp a finer time after a ``stat``,
never an earlier one), cut down to its own granularity: an entry added in the same tick
as the listing could leave the folder's time as the listing saw it. A listing is
therefore trusted only when the coarse clock, read before it, is a whole granule past
the folder's change time: any later change is then stamped later. The granule is not
known, but it divides the change time's nanoseconds (and a second): a time of
``...123456789`` ns is stamped to the nanosecond, and trusted one tick later. Until
then the folder is listed again at every measure. Where the coarse clock cannot be
read, the precise one less ``SETTLED`` seconds stands for it.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["SETTLED", "FolderMeter"]

log = logging.getLogger(__name__)

SETTLED = 0.1
"""Seconds the coarse clock may lag the precise one, where it cannot be read (far above
any kernel's tick)."""

_COARSE_CLOCK = 5
"""Linux's ``CLOCK_REALTIME_COARSE`` (``time`` does not name it): the time the kernel
stamps files with, before its file system cuts it to its granularity."""

_SECOND_NS = 1_000_000_000


@dataclass
class _Listing:
    """What one folder held when it was listed."""

    ctime_ns: int
    trusted: bool
    """Listed when any later change of the folder would be stamped later than
    ``ctime_ns`` (:func:`_settled`)."""
    files: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)


class FolderMeter:
    """Measures again and again the bytes in the files under one folder (0 if it does not
    exist; links under it not followed), listing only the folders whose entries may have
    changed.

    The folder is opened once (through a link if ``root`` is one) and everything under
    it is looked up from that descriptor: the measure follows the folder the bot was
    given, and costs no lookup of the folder's whole path at every turn. :meth:`close`
    lets it go."""

    def __init__(self, root: Path | str) -> None:
        self.root = os.fspath(root)
        self._fd: int | None = None
        self._listings: dict[str, _Listing] = {}
        """By path under the folder ("" for the folder itself)."""

    def size(self) -> int:
        """Bytes in the files under the folder now.

        A folder under it that the referee may not read or search (a bot running as the
        referee's own user can take those rights away, to hide what it writes there) is
        given back read, write and search for its owner, and measured again."""
        try:
            return self._measure()
        except PermissionError:
            log.warning("%s: a folder in it may not be read or searched; its owner's "
                        "rights are given back to measure it", self.root)
            self._listings = {}
            _grant_all(self._fd, self.root)
        try:
            return self._measure()
        except PermissionError:  # (not ours to give back: count what can be seen)
            return self._measure(denied_ok=True)

    def _measure(self, denied_ok: bool = False) -> int:
        fd = self._open()
        if fd is None:
            return 0
        top = self._listings.get("")
        if top is not None and top.trusted and not top.folders:  # (the common case: a
            try:  # folder of files, all known; what the loop below does, in short)
                if os.fstat(fd).st_ctime_ns == top.ctime_ns:
                    return _sizes(fd, top.files, denied_ok) if top.files else 0
            except PermissionError:
                raise
            except OSError:
                pass
        total = 0
        seen: dict[str, _Listing] = {}
        todo = [""]
        while todo:
            path = todo.pop()
            try:
                info = os.stat(path, dir_fd=fd, follow_symlinks=False) if path \
                    else os.fstat(fd)
            except PermissionError:
                if not denied_ok:
                    raise
                continue
            except OSError:
                continue
            if not stat.S_ISDIR(info.st_mode):
                continue
            listing = self._listings.get(path)
            if listing is None or not listing.trusted or listing.ctime_ns != info.st_ctime_ns:
                made = _list(fd, path, info.st_ctime_ns, denied_ok)
                if made is None:
                    continue
                listing, counted = made
                total += counted
            else:
                total += _sizes(fd, listing.files, denied_ok)
            seen[path] = listing
            todo += listing.folders
        self._listings = seen
        return total

    def _open(self) -> int | None:
        """The folder's descriptor, opened at the first measure that finds it
        (``PermissionError`` if it may not be read)."""
        if self._fd is None:
            try:
                self._fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            except PermissionError:
                raise
            except OSError:
                return None
        return self._fd

    def close(self) -> None:
        """Close the folder's descriptor (a later measure opens it again)."""
        fd, self._fd = self._fd, None
        self._listings = {}
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


def _list(root: int, path: str, ctime_ns: int,
          denied_ok: bool = False) -> tuple[_Listing, int] | None:
    """List the folder at ``path`` under the folder ``root`` (``None`` if it cannot be),
    with its files' bytes (``PermissionError`` where it, or a file in it, may not be
    looked at, unless ``denied_ok``)."""
    listing = _Listing(ctime_ns, _settled(ctime_ns))
    counted = 0
    prefix = path + "/" if path else ""
    fd = root
    try:
        if path:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                         dir_fd=root)
        with os.scandir(fd) as entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        listing.folders.append(prefix + entry.name)
                    else:
                        counted += entry.stat(follow_symlinks=False).st_size
                        listing.files.append(prefix + entry.name)
                except PermissionError:
                    if not denied_ok:
                        raise
                except OSError:
                    continue
    except PermissionError:
        if not denied_ok:
            raise
        return None
    except OSError:
        return None
    finally:
        if fd != root:
            os.close(fd)
    return listing, counted


def _settled(ctime_ns: int) -> bool:
    """Whether a change made from now on would be stamped later than ``ctime_ns``: the
    time stamped now, at the least (the coarse clock), is a granule past it. The file
    system's granule divides both a second and the time's nanoseconds; a time of whole
    seconds is taken to be stamped to 2 s (FAT's)."""
    nanoseconds = ctime_ns % _SECOND_NS
    granule = math.gcd(nanoseconds, _SECOND_NS) if nanoseconds else 2 * _SECOND_NS
    return _stamped_now() - ctime_ns >= granule


def _stamped_now() -> int:
    """The earliest time, in nanoseconds, a change made now can be stamped with."""
    try:
        return time.clock_gettime_ns(_COARSE_CLOCK)
    except OSError:
        return time.time_ns() - int(SETTLED * _SECOND_NS)


def _sizes(root: int, files: list[str], denied_ok: bool = False) -> int:
    """Bytes in ``files`` (paths under the folder ``root``) now (one that is gone counts
    nothing: its folder's change time has moved, so it is listed again next time;
    ``PermissionError`` if one may not be looked at, unless ``denied_ok``)."""
    total = 0
    for name in files:
        try:
            total += os.stat(name, dir_fd=root, follow_symlinks=False).st_size
        except PermissionError:
            if not denied_ok:
                raise
        except OSError:
            continue
    return total


def _grant_all(fd: int | None, root: str) -> None:
    """Give the owner read, write and search back on the folder ``root`` (open as ``fd``
    if it is) and on every folder under it, top down (a folder's rights are mended
    before what is in it is looked up). Each folder is opened as a path only, not
    following links, and changed through that descriptor: never what a link points
    to. What cannot be changed (another user's folder) is left."""
    top = os.open(root, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC) if fd is None \
        else os.dup(fd)
    todo = [top]
    try:
        while todo:
            folder = todo.pop()
            try:
                _grant(folder)
                names = _folders_in(folder)
            except OSError:
                names = []
            for name in names:
                with contextlib.suppress(OSError):
                    todo.append(os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW
                                        | os.O_CLOEXEC, dir_fd=folder))
            os.close(folder)
    finally:
        for folder in todo:
            os.close(folder)


def _folders_in(fd: int) -> list[str]:
    """The names of the folders in the folder open (as a path) as ``fd``."""
    readable = os.open(f"/proc/self/fd/{fd}", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        with os.scandir(readable) as entries:
            return [e.name for e in entries if e.is_dir(follow_symlinks=False)]
    finally:
        os.close(readable)


def _grant(fd: int) -> None:
    """Add read, write and search for the owner to the folder open (as a path) as ``fd``."""
    mode = stat.S_IMODE(os.fstat(fd).st_mode)
    if mode & 0o700 != 0o700:
        os.chmod(f"/proc/self/fd/{fd}", mode | 0o700)
