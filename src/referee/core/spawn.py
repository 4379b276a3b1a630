"""A bot's command started: its process, in a session of its own, and its three pipes.

An isolated bot's standard input and output do not go through bubblewrap's own: those
are ``/dev/null``, and the bot's ends of the two pipes are descriptors passed on to it
(with a third holding its seccomp filter), which bubblewrap and its init close in
themselves. So the bot alone holds them: when it closes its output or exits, the referee
reads the end at once, and writing to a bot that closed its input fails at once, as
without the sandbox.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import IO

from referee.core.bounded_folders import BoundedFolders
from referee.core.confine import Confined
from referee.core.errors import BotFault
from referee.core.open_files import SHORT_OF
from referee.core.outcome import Outcome
from referee.core.pidfds import exited_within, pidfd_of, pidfd_signal

__all__ = ["Spawned", "spawn"]


SETUP_TIME = 30.0
"""Seconds bubblewrap may take to set an isolated bot's sandbox up."""


@dataclass
class Spawned:
    """A started bot: its process and the referee's ends of its pipes."""

    proc: subprocess.Popen[bytes]
    stdin: IO[bytes]
    stdout: IO[bytes]
    stderr: IO[bytes]
    folders: BoundedFolders | None = None
    """Its writable folders, bounded (isolated bots), filled before it ran."""


def spawn(confined: Confined, name: str = "bot") -> Spawned:
    """Start ``confined`` in a new session (``OSError`` if it cannot start); an isolated
    bot's bounded folders are filled before it runs (``BotFault(CRASH)`` if they cannot
    be: the bot's own folder does not fit them)."""
    if not confined.contained:
        proc = subprocess.Popen(confined.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, cwd=confined.cwd, env=confined.env,
                                bufsize=0, start_new_session=True, close_fds=True)
        assert proc.stdin and proc.stdout and proc.stderr
        return Spawned(proc, proc.stdin, proc.stdout, proc.stderr)
    opened: list[int] = []
    passed: list[int] = []
    try:
        in_read, in_write = os.pipe2(os.O_CLOEXEC)
        opened += [in_read, in_write]
        out_read, out_write = os.pipe2(os.O_CLOEXEC)
        opened += [out_read, out_write]
        passed = [in_read, out_write]
        seccomp_fd = None
        if confined.seccomp is not None:
            seccomp_fd, filter_write = os.pipe2(os.O_CLOEXEC)
            opened += [seccomp_fd, filter_write]
            os.write(filter_write, confined.seccomp)  # a few hundred bytes: never blocks
            os.close(filter_write)
            opened.remove(filter_write)
            passed.append(seccomp_fd)
        info_read = block_write = None
        info_write = block_read = None
        if confined.bounded:
            info_read, info_write = os.pipe2(os.O_CLOEXEC)
            block_read, block_write = os.pipe2(os.O_CLOEXEC)
            opened += [info_read, info_write, block_read, block_write]
            passed += [info_write, block_read]
        proc = subprocess.Popen(confined.command(in_read, out_write, seccomp_fd, info_write,
                                                 block_read),
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, cwd=confined.cwd, env=confined.env,
                                bufsize=0, start_new_session=True, close_fds=True,
                                pass_fds=passed)
    except BaseException:
        for fd in opened:
            with contextlib.suppress(OSError):
                os.close(fd)
        raise
    for fd in passed:
        os.close(fd)
    assert proc.stderr
    started = Spawned(proc, os.fdopen(in_write, "wb", buffering=0),
                      os.fdopen(out_read, "rb", buffering=0), proc.stderr)
    if info_read is not None and block_write is not None:
        try:
            started.folders = _filled(confined, name, proc, info_read, block_write)
        except BaseException:
            for stream in (started.stdin, started.stdout, started.stderr):
                with contextlib.suppress(OSError):
                    stream.close()
            raise
    return started


def _filled(confined: Confined, name: str, proc: subprocess.Popen[bytes], info_read: int,
            block_write: int) -> BoundedFolders:
    """The bot's bounded folders, found in its sandbox and filled from the host's; then
    bubblewrap is let go on (it waits on ``block_write``'s pipe). If they cannot be, the
    sandbox is killed before the bot runs: ``BotFault(CRASH)``, or the ``OSError`` itself
    when the referee's machine is short of descriptors or memory (not the bot's loss)."""
    folders = BoundedFolders(confined.bounded, confined.folder_limit,
                             confined.user.uid if confined.user is not None else None, name)
    try:
        folders.attach(info_read, time.monotonic() + SETUP_TIME)
        folders.fill()
        os.write(block_write, b"go")
    except OSError as exc:
        folders.close()
        inner = pidfd_of(folders.child) if folders.child else -1  # before its parent dies
        try:
            with contextlib.suppress(OSError):  # bubblewrap's group: its sandbox's first
                os.killpg(proc.pid, signal.SIGKILL)  # process is in it until the bot runs
            proc.wait()
            if pidfd_signal(inner, signal.SIGKILL):  # the sandbox's init: all in it die
                exited_within(inner, SETUP_TIME)  # and are gone when it is
        finally:
            if inner >= 0:
                os.close(inner)
        if exc.errno in SHORT_OF:
            raise
        raise BotFault(Outcome.CRASH, f"its sandbox could not be set up: {exc}") from exc
    finally:
        os.close(info_read)
        os.close(block_write)
    return folders
