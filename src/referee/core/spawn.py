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
import subprocess
from dataclasses import dataclass
from typing import IO

from referee.core.confine import Confined

__all__ = ["Spawned", "spawn"]


@dataclass
class Spawned:
    """A started bot: its process and the referee's ends of its pipes."""

    proc: subprocess.Popen[bytes]
    stdin: IO[bytes]
    stdout: IO[bytes]
    stderr: IO[bytes]


def spawn(confined: Confined) -> Spawned:
    """Start ``confined`` in a new session (``OSError`` if it cannot start)."""
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
        proc = subprocess.Popen(confined.command(in_read, out_write, seccomp_fd),
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
    return Spawned(proc, os.fdopen(in_write, "wb", buffering=0),
                   os.fdopen(out_read, "rb", buffering=0), proc.stderr)
