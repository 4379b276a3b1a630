"""The hostile acts shared by the hostile Gomocup brain and the hostile Planowanie player.

Each bot plays its game correctly and, chosen by ``--mode``, does one hostile thing; what
it learns it reports through ``report`` (a Gomocup ``MESSAGE`` line, which the referee
records as a note, or a line on stderr, which goes to the bot's log). Modes:

- ``ok``: plays normally.
- ``slow SECONDS``: sleeps that long before every move (an opponent that takes its time).
- ``fork-bomb``: at its first turn forks without end (every child forks too) and never
  answers.
- ``snoop PATH...``: at its first turn reads the paths (files: their first 4 KB; folders:
  their names) and its neighbours (``..``, ``../..``, ``$HOME``, ``/etc/shadow``, the referee's
  ``/proc`` entries), reports what it got, then plays on. A leading ``@`` on a path is
  dropped: the tests write ``@/path`` so that the referee does not take it for a file the
  organiser gives the bot (its command line's files are readable), as a bot with the
  paths built in.
- ``net HOST:PORT``: at its first turn connects there, reports, plays on.
- ``kill-all PID...``: at its first turn ``kill -9 -1`` and kills the pids (``@``-prefixed
  as above), reports which it hit, plays on. It refuses (exit 3) unless it is process 1
  or 2 of its own pid namespace (the sandbox's init is 1, the bot 2): ``kill -9 -1``
  outside a sandbox as root ends the machine.
- ``big-file``: at its first turn writes a 1 GB file in its working folder (with
  ``SIGXFSZ`` at its default action, as a native program has it: the file size limit
  kills it).
- ``big-folder [BYTES]``: at its first turn writes files of 4 KB in its working folder
  until they hold more than BYTES (default 21 MB), then plays on.
- ``busy``: a thread computes without end; at each turn it reports the CPU time it used
  since the end of its previous turn (from ``/proc/self/stat``: ``busy-cpu-ms N``).
- ``busy-escape [TURN]``: as ``busy``, but the computing is done by a child process that
  leaves the bot's process group and session (``setsid``), a new one made at each of its
  turns just before it answers (from its turn ``TURN`` on, 1 by default: before it, it
  is one process that answers at once); at each turn it reports the CPU time the last
  one used.
- ``busy-thread-escape``: as ``busy-escape``, but each child is forked by a new thread of
  the bot, which then waits for ever (the kernel lists the child under that thread, not
  under the bot's main thread).
- ``endless-line``: at its first turn prints one line that never ends.
- ``daemon``: at its first turn double-forks a daemon that sleeps for minutes, then exits.
- ``ignore-term``: ignores SIGTERM, SIGINT and SIGHUP from the start, plays on, and does
  not exit at the end of the game (it must be killed).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable

MODES = ("ok", "slow", "fork-bomb", "snoop", "net", "kill-all", "big-file", "big-folder",
         "busy", "busy-escape", "busy-thread-escape", "endless-line", "daemon", "ignore-term")
_CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int | str = "self") -> float:
    """CPU seconds (user + system) of a process (this one), all its threads, from /proc."""
    with open(f"/proc/{pid}/stat", "rb") as stat:
        data = stat.read()
    fields = data[data.rfind(b")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / _CLK_TCK


class Hostility:
    """One bot's hostile act: ``started()`` once, ``turn()`` at the start of each of its
    turns, ``turn_over()`` once its answer is written, ``finished()`` at the game's end."""

    def __init__(self, argv: list[str], report: Callable[[str], None]) -> None:
        if "--mode" in argv:
            at = argv.index("--mode")
            self.mode, self.args = argv[at + 1], argv[at + 2:]
        else:
            self.mode, self.args = "ok", []
        if self.mode not in MODES:
            sys.stderr.write(f"unknown mode {self.mode}: {', '.join(MODES)}\n")
            raise SystemExit(2)
        self.report = report
        self.turns = 0
        self.cpu_at_end: float | None = None
        self.worker = 0
        """The child that computes off-turn (``busy-escape``)."""
        if self.mode == "ignore-term":
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(sig, signal.SIG_IGN)

    def started(self) -> None:
        """The game starts: a busy bot starts computing."""
        if self.mode == "busy" and self.cpu_at_end is None:
            threading.Thread(target=_spin, daemon=True).start()
            self.cpu_at_end = cpu_seconds()

    def turn(self) -> None:
        """Its turn has come: the first time, the hostile act."""
        self.turns += 1
        if self.mode == "busy":
            self.started()
            assert self.cpu_at_end is not None
            used = (cpu_seconds() - self.cpu_at_end) * 1000
            self.report(f"busy-cpu-ms {used:.0f}")
        elif self.mode in ("busy-escape", "busy-thread-escape"):
            if self.turns >= (int(self.args[0]) if self.args else 1):
                self._new_worker()
        elif self.mode == "slow":
            time.sleep(float(self.args[0]) if self.args else 0.2)
        if self.turns == 1:
            act = getattr(self, "_" + self.mode.replace("-", "_"), None)
            if act is not None:
                act()

    def turn_over(self) -> None:
        """Its answer is written: the off-turn CPU count starts."""
        if self.mode == "busy":
            self.cpu_at_end = cpu_seconds()

    def finished(self) -> None:
        """The game is over; a bot that ignores SIGTERM stays anyway."""
        if self.mode == "ignore-term":
            while True:
                time.sleep(60)

    def _new_worker(self) -> None:
        """Report the last worker's CPU time and end it; start a new one in a session of
        its own (``busy-escape``), forked by a thread that stays (``busy-thread-escape``)."""
        if self.worker:
            used = cpu_seconds(self.worker) * 1000
            os.kill(self.worker, signal.SIGKILL)
            os.waitpid(self.worker, 0)  # (a child of any thread of this process)
            self.report(f"busy-cpu-ms {used:.0f}")
        if self.mode == "busy-escape":
            self.worker = _fork_worker()
            return
        forked = threading.Event()

        def fork_and_stay() -> None:
            self.worker = _fork_worker()
            forked.set()
            threading.Event().wait()

        threading.Thread(target=fork_and_stay, daemon=True).start()
        forked.wait()

    # -- the acts -------------------------------------------------------------------------
    def _fork_bomb(self) -> None:
        while True:
            with contextlib.suppress(OSError):
                os.fork()

    def _snoop(self) -> None:
        home = os.environ.get("HOME", "")
        targets = [a.removeprefix("@") for a in self.args]
        targets += ["..", "../..", "/etc/shadow", "/proc/1/cmdline"]
        if home:
            targets.append(home)
        for pid in (os.getppid(), 2, 3):
            targets.append(f"/proc/{pid}/environ")
        for path in targets:
            self.report(f"snoop {path}: {_look(path)}")

    def _net(self) -> None:
        host, _, port = self.args[0].rpartition(":")
        try:
            with socket.create_connection((host, int(port)), timeout=3) as conn:
                conn.sendall(b"hello from a bot\n")
                self.report(f"net {host}:{port}: connected")
        except OSError as exc:
            self.report(f"net {host}:{port}: refused ({errno.errorcode.get(exc.errno or 0, exc)})")

    def _kill_all(self) -> None:
        if os.getpid() > 2:  # on the host, 1 and 2 are init and the kernel's threads
            sys.stderr.write("kill-all refused: not in a pid namespace of its own\n")
            os._exit(3)
        hits = []
        for target in [-1, *(int(a.removeprefix("@")) for a in self.args)]:
            try:
                os.kill(target, signal.SIGKILL)
                hits.append(target)
            except OSError as exc:
                self.report(f"kill {target}: {errno.errorcode.get(exc.errno or 0, exc)}")
        self.report(f"kill-all hit {hits}")

    def _big_file(self) -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # a native program's default: killed
        chunk = b"x" * (1 << 20)
        with open("big.bin", "wb") as big:
            for _ in range(1024):
                big.write(chunk)
                big.flush()
        self.report("big-file: wrote 1 GB")

    def _big_folder(self) -> None:
        target = int(self.args[0]) if self.args else 21 << 20
        os.makedirs("fill", exist_ok=True)
        written = 0
        block = b"y" * 4096
        while written <= target:
            with open(os.path.join("fill", f"{written // 4096}.bin"), "wb") as small:
                small.write(block)
            written += len(block)
        self.report(f"big-folder: wrote {written} bytes")

    def _endless_line(self) -> None:
        out = sys.stdout.buffer
        out.write(b"1")
        chunk = b"9" * 65536
        while True:
            out.write(chunk)
            out.flush()

    def _daemon(self) -> None:
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                for fd in (0, 1, 2):
                    with contextlib.suppress(OSError):
                        os.close(fd)
                time.sleep(600)
            os._exit(0)
        os.wait()
        self.report("daemon: started, leaving")
        sys.stdout.flush()
        os._exit(0)


def _fork_worker() -> int:
    """Fork a child that leaves the session and computes without end; its pid."""
    pid = os.fork()
    if pid == 0:
        os.setsid()
        _spin()
    return pid


def _spin() -> None:
    count = 0
    while True:
        count += 1


def _look(path: str) -> str:
    """What ``path`` shows: a folder's names, a file's first bytes, or the error."""
    try:
        if os.path.isdir(path):
            return "listed " + repr(sorted(os.listdir(path))[:20])
        with open(path, "rb") as handle:
            return "read " + repr(handle.read(4096))
    except OSError as exc:
        return f"refused ({errno.errorcode.get(exc.errno or 0, exc)})"
