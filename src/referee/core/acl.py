"""POSIX access lists: one user given a way into one file or folder, and taken back.

A referee run by root runs each bot as a user of its own, who may read only what other
users may. A bot's program in a folder closed to others (``mktemp -d`` makes them 0700,
as Docker and CI runners use) would then not start. Opening the folder to everyone would
open it to every other bot too; an entry in the folder's access list (``setfacl -m
u:UID:rx``) opens it to that bot's user alone, and is removed when the bot has ended.

The list is the kernel's ``system.posix_acl_access`` attribute, read and written whole
(``struct posix_acl_xattr_header`` and its entries: a 16-bit tag, 16-bit permissions and
a 32-bit id, little-endian, sorted by tag then id). Adding a user's entry sets the mask
(what named entries and the owning group may have at most) to the union of those entries,
as ``setfacl`` does; once no named entry is left, the list is written back minimal, which
the kernel turns into the mode bits alone (the group's bits as they were). Changes are
made one at a time, within this process (a lock) and across processes of the machine
(``flock`` on a file the caller names).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import struct
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["READ", "SEARCH", "AclUnsupported", "Grant", "grant", "user_entries"]

_XATTR = "system.posix_acl_access"
_VERSION = 2
_USER_OBJ, _USER, _GROUP_OBJ, _GROUP, _MASK, _OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
_UNDEFINED = 0xFFFFFFFF
_ENTRY = struct.Struct("<HHI")

READ, SEARCH = 0o4, 0o1
"""Permissions of an entry: read (``r``), execute or search (``x``)."""

_LOCK = threading.Lock()


class AclUnsupported(OSError):
    """The file's filesystem keeps no access lists (or refused this one)."""


@dataclass(frozen=True)
class _Entry:
    tag: int
    perm: int
    id: int = _UNDEFINED


def _read(path: str) -> list[_Entry]:
    """The file's access list: its own entries, or the three its mode stands for."""
    try:
        data = os.getxattr(path, _XATTR, follow_symlinks=False)
    except OSError as exc:
        if exc.errno not in (errno.ENODATA, errno.EOPNOTSUPP):
            raise
        mode = os.lstat(path).st_mode
        return [_Entry(_USER_OBJ, (mode >> 6) & 7), _Entry(_GROUP_OBJ, (mode >> 3) & 7),
                _Entry(_OTHER, mode & 7)]
    (version,) = struct.unpack_from("<I", data)
    if version != _VERSION:
        raise AclUnsupported(errno.EOPNOTSUPP, f"access list of version {version}", path)
    return [_Entry(*_ENTRY.unpack_from(data, at)) for at in range(4, len(data), _ENTRY.size)]


def _write(path: str, entries: list[_Entry]) -> None:
    named = [e for e in entries if e.tag in (_USER, _GROUP)]
    kept = [e for e in entries if e.tag != _MASK]
    if named:
        mask = 0
        for entry in kept:
            if entry.tag in (_USER, _GROUP, _GROUP_OBJ):
                mask |= entry.perm
        kept.append(_Entry(_MASK, mask))
    kept.sort(key=lambda e: (e.tag, e.id))
    data = struct.pack("<I", _VERSION) + b"".join(_ENTRY.pack(e.tag, e.perm, e.id)
                                                   for e in kept)
    try:
        os.setxattr(path, _XATTR, data, follow_symlinks=False)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL):
            raise AclUnsupported(exc.errno, "its filesystem keeps no access lists",
                                 path) from exc
        raise


@contextlib.contextmanager
def _changing(lock_file: Path) -> Iterator[None]:
    with _LOCK, open(lock_file, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def user_entries(path: str) -> dict[int, int]:
    """The named users of the file's access list and their permissions."""
    return {e.id: e.perm for e in _read(path) if e.tag == _USER}


@dataclass
class Grant:
    """One user's entry in one file's access list, until :meth:`revoke`."""

    path: str
    uid: int
    lock_file: Path
    done: bool = False

    def revoke(self) -> None:
        """Remove the entry (nothing if the file is gone or the entry already is)."""
        if self.done:
            return
        self.done = True
        with contextlib.suppress(OSError), _changing(self.lock_file):
            entries = _read(self.path)
            left = [e for e in entries if not (e.tag == _USER and e.id == self.uid)]
            if left != entries:
                _write(self.path, left)


def grant(path: str, uid: int, perm: int, lock_file: Path,
          stale: Callable[[int], bool] = lambda uid: False) -> Grant:
    """Give user ``uid`` the permissions ``perm`` on ``path`` (a file or folder, not a
    link); ``stale(uid)`` says which other named users' entries are left over from bots
    that are gone (a referee killed before it could revoke them): they are removed on the
    way. Raises :class:`AclUnsupported` where the filesystem keeps no access lists."""
    if stat.S_ISLNK(os.lstat(path).st_mode):
        raise AclUnsupported(errno.ELOOP, "a symbolic link has no access list", path)
    with _changing(lock_file):
        entries = [e for e in _read(path)
                   if not (e.tag == _USER and (e.id == uid or stale(e.id)))]
        entries.append(_Entry(_USER, perm, uid))
        _write(path, entries)
    return Grant(path, uid, lock_file)
