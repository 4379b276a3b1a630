"""The users bots run as when the referee is root: one user id of its own per live bot.

A bot of a referee run by root never runs as root, isolated or not: it runs as a user id
from :data:`UID_BASE` up, one per live bot (leased through lock files, so that two bots
of the machine never share one), with no groups and no capabilities. Its folders are
given to that user and closed to others; it reads the rest of the machine as any other
user does. The files it needs that are closed to other users (a program in a folder made
by ``mktemp -d``, 0700) are opened to its user alone by an entry in their access lists
(:mod:`referee.core.acl`), taken back when the bot has ended.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from referee.core.acl import READ, SEARCH, AclUnsupported, Grant, grant
from referee.core.errors import BotFault
from referee.core.outcome import Outcome

__all__ = ["UID_BASE", "UID_SLOTS", "BotUser", "give", "lease_user"]

UID_BASE = 3_900_000_000
"""Bots of a referee run as root get user ids from here on, one per live bot."""
UID_SLOTS = 10_000


def _lock_dir() -> Path:
    for base in (Path("/run"), Path(tempfile.gettempdir())):
        folder = base / "referee-sandbox-uids"
        with contextlib.suppress(OSError):
            folder.mkdir(mode=0o700, exist_ok=True)
            if folder.stat().st_uid == os.geteuid():
                return folder
    return Path(tempfile.mkdtemp(prefix="referee-uids-"))


@dataclass
class BotUser:
    """The user one bot runs as, leased until :meth:`release`."""

    uid: int
    lease: IO[str] | None = field(repr=False)
    folder: Path
    """Where the leases are (and the lock of access-list changes)."""
    grants: list[Grant] = field(default_factory=list)

    def open_way(self, needs: Iterable[tuple[Path, int]]) -> None:
        """Give this user what ``needs`` lists, ``(path, READ and/or SEARCH)``, where
        other users do not have it already; ``BotFault(CRASH)`` names a path that cannot
        be opened (a filesystem without access lists)."""
        for path, need in needs:
            try:
                mode = path.stat().st_mode
            except OSError:
                continue
            if mode & need == need:
                continue
            try:
                self.grants.append(grant(str(path), self.uid, need, self.folder / "acl.lock",
                                         _stale))
            except OSError as exc:
                what = "folder" if stat.S_ISDIR(mode) else "file"
                why = exc.strerror if isinstance(exc, AclUnsupported) else str(exc)
                raise BotFault(Outcome.CRASH, f"cannot open the {what} {path} to the bot's "
                               f"own user ({why}): a sandboxed bot of a referee run by root "
                               "reads only what other users may (chmod o+rX it, or run the "
                               "referee as a normal user)") from exc

    def release(self) -> None:
        """Take back what was opened to it and give the user id back (once the bot and
        every process of it have ended)."""
        for given in reversed(self.grants):
            given.revoke()
        self.grants.clear()
        if self.lease is not None:
            with contextlib.suppress(OSError):
                self.lease.close()
            self.lease = None


def lease_user() -> BotUser:
    """A user id no other live bot on this machine has (a lock held while it lives)."""
    folder = _lock_dir()
    for slot in range(UID_SLOTS):
        handle = open(folder / f"{slot}.lock", "a")  # noqa: SIM115 - held by the bot
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            continue
        return BotUser(UID_BASE + slot, handle, folder)
    raise BotFault(Outcome.CRASH, f"not started: {UID_SLOTS} sandboxed bots already run")


def _stale(uid: int) -> bool:
    """Whether ``uid`` is a bot's user id whose lease no live bot holds: an access-list
    entry for it was left by a referee that was killed before it could take it back."""
    slot = uid - UID_BASE
    if not 0 <= slot < UID_SLOTS:
        return False
    try:
        with open(_lock_dir() / f"{slot}.lock", "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # held: a live bot's
    return True


def give(folder: Path, uid: int, close: bool = False) -> None:
    """Make ``folder`` and what is in it the bot's; ``close``: the folder closed to other
    users too (a bot that sees the host's files would otherwise read another bot's
    folder; an isolated bot sees none, and bubblewrap, which takes it to its working
    folder without the right to pass by modes, needs it open).

    What is the bot's already is left as it is: a change of owner, even to the same,
    moves a file's change time, and a folder changed just before its bot plays is listed
    again at every check of the folder limit (``FolderMeter``) until it has settled (a
    program started for each hand, in the same folder, would find it changed every
    time)."""
    folder.mkdir(parents=True, exist_ok=True)
    _own(str(folder), uid)
    with contextlib.suppress(OSError):
        if close and folder.stat().st_mode & 0o077:
            folder.chmod(0o700)
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            _own(os.path.join(root, name), uid)


def _own(path: str, uid: int) -> None:
    """Give ``path`` (not what a link points to) to user and group ``uid`` unless it is
    theirs already."""
    with contextlib.suppress(OSError):
        info = os.lstat(path)
        if info.st_uid != uid or info.st_gid != uid:
            os.chown(path, uid, uid, follow_symlinks=False)


def ways_in(files: Sequence[tuple[Path, bool]], folders: Sequence[Path],
            host: Callable[[Path], bool]) -> list[tuple[Path, int]]:
    """What a bot's own user must be able to do for the bot to run: read each of
    ``files`` (``(path, is the program)``: a program its owner may execute is executed;
    a link is followed, and the way to both is opened),
    list each file's folder and its folder arguments, and search every folder on the way
    to them and to its writable ``folders``; ``host(path)`` says whether the bot sees the
    host's own file there (a folder made for its sandbox is open to all)."""
    needs: dict[Path, int] = {}

    def need(path: Path, perm: int) -> None:
        if host(path):
            needs[path] = needs.get(path, 0) | perm

    def way(path: Path) -> None:
        for parent in path.parents:
            need(parent, SEARCH)

    for named, program in files:
        real = Path(os.path.realpath(named))
        try:
            mode = real.stat().st_mode
        except OSError:
            continue
        if real != named:  # a link: the way to it, then to what it names
            way(named)
        if stat.S_ISDIR(mode):
            need(real, READ | SEARCH)
        else:
            need(real, READ | (SEARCH if program and mode & stat.S_IXUSR else 0))
            need(real.parent, READ | SEARCH)
        way(real)
    for folder in folders:
        way(folder)
    return sorted(needs.items(), key=lambda item: len(item[0].parts))
