"""Process trees: finding every process a bot started, measuring and killing them.

A bot is started in a session of its own (its pid is the session and process-group id),
so every process it forks stays findable by session id even after the bot itself has
exited. Children that leave the session are still found as descendants while their
parent lives, and are remembered once seen. A child that leaves the session and loses
its parent before anyone looked is found at kill time by the token the bot's
environment carries (``TOKEN_VAR``), which every descendant inherits unless it clears
its environment.

A sandboxed bot has a pid namespace of its own (``contained``): all its processes are
descendants of its root and die with it, so its tree is walked from the root alone
(``/proc/PID/task/TID/children``), without scanning the whole system. The root is
bubblewrap, its child the namespace's first process (bubblewrap's init, which adopts
the bot's orphans), the init's first child the bot.

The ``MemoryWatchdog`` is one background thread that watches every registered tree and
kills a tree whose total resident memory, or number of processes, goes over its limit.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from typing import TypeVar

import psutil

from referee.core.pidfds import exited_within, pidfd_of, pidfd_signal, wait_exit

log = logging.getLogger(__name__)

_T = TypeVar("_T")

Ident = tuple[int, float]
"""A process identity: pid and creation time (pids are reused, the pair is not)."""



def megabytes(mb: int) -> int | None:
    """A memory limit given in MB, in bytes (0: no limit, ``None``)."""
    return mb * 2**20 or None

def _ident(proc: psutil.Process) -> Ident | None:
    try:
        return proc.pid, proc.create_time()
    except (psutil.Error, OSError):  # (OSError: no descriptor left to read it with)
        return None


TOKEN_VAR = "REFEREE_BOT_TOKEN"
"""The environment variable that marks every process of one bot (see ``marked``)."""


def marked(token: str, since: int | None = None) -> list[int]:
    """Pids of live processes whose environment holds ``TOKEN_VAR=token`` (``since``: only
    those created after process ``since``, see :func:`pids_since`)."""
    return marked_any({token}, since)


def marked_any(tokens: Iterable[str], since: int | None = None) -> list[int]:
    """Pids of live processes whose environment holds ``TOKEN_VAR=`` one of ``tokens``
    (``since``: only those created after process ``since``, see :func:`pids_since`)."""
    needles = {f"{TOKEN_VAR}={token}".encode() for token in tokens}
    found = []
    for pid in pids_since(since):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if needles.intersection(f.read().split(b"\0")):
                    found.append(pid)
        except OSError:
            continue
    return found


def session_members(sid: int) -> list[int]:
    """Pids of all live processes whose session id is ``sid`` (a session's members are
    created after its leader, whose pid is ``sid``: only those pids are asked)."""
    found = []
    for pid in pids_since(sid):
        try:
            if os.getsid(pid) == sid:
                found.append(pid)
        except OSError:
            continue
    return found


PROBED = 4096
"""Up to this many pids given since a bot started are asked one by one (most are gone);
more, and ``/proc`` is listed instead."""


def pids_since(first: int | None) -> Iterable[int]:
    """Pids of the live processes, or (``first`` given) pids that processes created after
    process ``first`` may have (some may be no process: the caller asks each): Linux gives
    pids in increasing order, wrapping round at ``pid_max``, so these are the pids from
    ``first`` to the last one given (``/proc/sys/kernel/ns_last_pid``), across the wrap
    if there was one since. Finding a bot's processes this way costs what the processes
    started since the bot cost, not what every process of the machine does (only a bot
    that outlives ``pid_max`` process starts on the machine could have a process this
    misses; all of them without the kernel's figures)."""
    if not os.path.isdir("/proc"):
        return []
    limits = _pid_limits() if first is not None else None
    if first is None or limits is None:
        return _proc_pids()
    last, pid_max = limits
    wrapped = last < first
    span = (pid_max - first + last + 1) if wrapped else (last - first + 1)
    if span <= PROBED:
        return ([*range(first, pid_max), *range(1, last + 1)] if wrapped
                else range(first, last + 1))
    pids = _proc_pids()
    if wrapped:
        return [pid for pid in pids if pid >= first or pid <= last]
    return [pid for pid in pids if first <= pid <= last]


def _proc_pids() -> list[int]:
    """The pids ``/proc`` lists (none if it cannot be listed: no descriptor left)."""
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _pid_limits() -> tuple[int, int] | None:
    """The last pid given in this namespace and ``pid_max`` (``None``: unknown)."""
    try:
        with open("/proc/sys/kernel/ns_last_pid", "rb") as f:
            last = int(f.read())
        with open("/proc/sys/kernel/pid_max", "rb") as f:
            return last, int(f.read())
    except (OSError, ValueError):
        return None


def descendants(pid: int, read: Callable[[str], bytes] | None = None,
                tasks: Callable[[int], list[str]] | None = None) -> list[int]:
    """Pids of ``pid``'s live descendants, from the kernel's children lists (empty if
    they cannot be read). ``read(key)`` reads the list ``/proc/<key>/children`` (``key``
    is ``PID/task/TID``; ``OSError`` if it cannot): by default it opens the file.
    ``tasks(pid)`` lists the thread ids of ``pid`` (``OSError`` if it cannot): by default
    its ``task`` folder is listed."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        try:
            threads = (tasks(parent) if tasks is not None
                       else os.listdir(f"/proc/{parent}/task"))
        except OSError:
            continue
        for task in threads:
            key = f"{parent}/task/{task}"
            try:
                data = read(key) if read is not None else _read_children(key)
            except OSError:
                continue
            children = [int(c) for c in data.split()]
            found += children
            todo += children
    return found


def _read_children(key: str) -> bytes:
    with open(f"/proc/{key}/children", "rb") as f:
        return f.read()


_PRUNE_EVERY = 64
"""Stops of a tree (or looks of the watchdog) between two closings of what its walk keeps
open for processes gone."""

_KEPT_MOST = 256
"""Files of one kind a tree keeps open between its walks, at most."""


class _KeptFiles:
    """Files of one kind under ``/proc`` (``/proc/KEY/NAME``, ``KEY`` starting with a
    pid) kept open between the walks of one tree, up to :data:`_KEPT_MOST`: a walk
    reads each through its descriptor. One that cannot be read any more (its process
    ended) is closed and its path opened afresh, once: the pid may be another
    process's now."""

    def __init__(self, name: str, flags: int) -> None:
        self._name = name
        self._flags = flags
        self._fds: dict[str, int] = {}

    def read(self, key: str, read: Callable[[int], _T]) -> _T:
        """``read(fd)`` of the file of ``key`` (``OSError`` if it cannot be had)."""
        fd = self._fds.get(key)
        if fd is not None:
            try:
                return read(fd)
            except OSError:
                self._close(key)
        fd = os.open(f"/proc/{key}/{self._name}", self._flags)
        try:
            value = read(fd)
        except OSError:
            os.close(fd)
            raise
        if len(self._fds) < _KEPT_MOST:
            self._fds[key] = fd
        else:
            os.close(fd)
        return value

    def pids(self) -> set[int]:
        """The processes whose files are kept open."""
        return {int(key.partition("/")[0]) for key in self._fds}

    def forget(self, live: set[int]) -> None:
        """Close the files of the processes not in ``live``."""
        for key in [key for key in self._fds if int(key.partition("/")[0]) not in live]:
            self._close(key)

    def close(self) -> None:
        """Close every file kept open."""
        for key in list(self._fds):
            self._close(key)

    def _close(self, key: str) -> None:
        fd = self._fds.pop(key, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)


class _Walk:
    """The kernel's children lists and ``task`` folders of one tree's processes, kept open
    between its walks (:func:`descendants` through descriptors). Bubblewrap's init has
    one thread: its thread list is not read; another process's threads are counted first
    (one ``fstat`` of its ``task`` folder) and listed only when there are several."""

    def __init__(self) -> None:
        self.children = _KeptFiles("children", os.O_RDONLY)
        """``PID/task/TID`` -> that thread's children list."""
        self.folders = _KeptFiles("task", os.O_RDONLY | os.O_DIRECTORY)
        """``PID`` -> its ``task`` folder."""

    def descendants(self, pid: int, init: int | None) -> list[int]:
        """As :func:`descendants` (``init``: bubblewrap's init, if known)."""
        return descendants(pid, lambda key: self.children.read(key, _read_whole),
                           lambda task: self.tasks(task, init))

    def tasks(self, pid: int, init: int | None = None) -> list[str]:
        """The thread ids of ``pid``: its own alone for ``init`` or when its ``task``
        folder counts one thread (a folder's link count is 2 and one per thread), else
        the folder listed. ``OSError`` if it is gone (a folder kept open for a pid that
        has ended counts no thread: it is closed, and the pid's folder opened again in
        case it was reused)."""
        if pid == init:
            return [str(pid)]
        return self.folders.read(str(pid), lambda fd: _count_tasks(pid, fd))

    def forget(self, live: set[int]) -> None:
        """Close what is kept for the processes not in ``live``."""
        self.folders.forget(live)
        self.children.forget(live)

    def close(self) -> None:
        """Close everything kept open."""
        self.children.close()
        self.folders.close()


_PIDS_PER_SECOND = 1e7
"""More pids than any machine can give in a second: each costs a ``clone`` (microseconds
of CPU), which holds the kernel's one task-list lock for writing, so starts are made one
at a time however many cores there are. Two equal readings of the last pid given,
less than ``pid_max`` over this apart, mean that no pid was given between them: the
counter cannot have gone round (3.3 ms with the smallest usual ``pid_max``, 32,768;
0.42 s with 4,194,304). Were it ever wrong, a child forked by a suspended bot just
before its stop would run for one turn, until the next walk."""


class PidCounter:
    """The last pid given in the referee's pid namespace (``ns_last_pid``), read through
    a descriptor kept open: whether any process or thread was started on the machine
    between two readings. Processes in a sandbox's own pid namespace have a pid in the
    referee's too, so they count; they cannot set this counter back (that takes
    privileges over the referee's namespace)."""

    def __init__(self) -> None:
        self._fd = -1
        self.window = 0.0
        """Seconds within which two equal readings are trusted (``pid_max`` over
        :data:`_PIDS_PER_SECOND`; 0 until the first reading)."""
        self._opened = False
        self._lock = threading.Lock()

    def read(self) -> tuple[int, float] | None:
        """The last pid given and the monotonic time of the reading (``None``: the
        kernel does not say)."""
        if not self._opened:
            self._open()
        try:
            return int(os.pread(self._fd, 32, 0)), time.monotonic()
        except (OSError, ValueError):
            return None

    def unchanged(self, before: tuple[int, float] | None,
                  now: tuple[int, float] | None) -> bool:
        """Whether no pid was given between the readings ``before`` and ``now``."""
        return (before is not None and now is not None and before[0] == now[0]
                and now[1] - before[1] < self.window)

    def _open(self) -> None:
        with self._lock:
            if self._opened:
                return
            limits = _pid_limits()
            if limits is not None:
                with contextlib.suppress(OSError):
                    self._fd = os.open("/proc/sys/kernel/ns_last_pid", os.O_RDONLY)
                    self.window = limits[1] / _PIDS_PER_SECOND
            self._opened = True


PIDS = PidCounter()
"""The referee's one reader of the last pid given."""


class ProcessTree:
    """Every process belonging to one bot: its root, its session, its descendants."""

    def __init__(self, root_pid: int, token: str | None = None,
                 contained: bool = False, root_fd: int = -1) -> None:
        self.root_pid = root_pid
        self.root_fd = root_fd
        """A pidfd of the root its owner keeps open (-1: none), waited on by
        :meth:`kill` with no descriptor to open (see there); the tree never closes it."""
        self.token = token
        self.contained = contained
        """Whether the tree lives in a pid namespace of its own (see the module)."""
        self.groups: frozenset[int] = frozenset({root_pid})
        """The process groups of the bot (``suspend`` stops each), refreshed by
        :meth:`processes`."""
        self._seen: dict[int, float] = {}
        self._walk = _Walk()
        """What the walks of suspension keep open (see :meth:`_descendants`)."""
        self._stops = 0
        self._mark: tuple[int, float] | None = None
        """The last pid given, read at the last stop (see :meth:`_alone`)."""
        self._last_stop: frozenset[int] = frozenset()
        self._bot: int | None = None
        self._bot_fd = -1
        self._init: int | None = None
        self._init_fd = -1
        self._lock = threading.Lock()
        self._usage_files: _UsageFiles | None = _UsageFiles() if contained else None
        """The files :meth:`usage` keeps open, read and closed under the lock (the
        watchdog's thread and a game's both measure); ``None`` once closed."""
        if not contained:  # (a contained tree is walked from its root alone)
            try:
                root = psutil.Process(root_pid)
                self._seen[root_pid] = root.create_time()
            except psutil.Error:
                pass

    def processes(self, thorough: bool = False) -> list[psutil.Process]:
        """The live processes of the tree (root, session members, seen descendants).

        ``thorough`` also looks for processes carrying the tree's token (slower: it reads
        every process's environment), to find descendants that escaped session and parent.
        """
        if self.contained:
            return self._contained_processes()
        candidates: dict[int, psutil.Process] = {}
        pids: set[int] = set(session_members(self.root_pid))
        if thorough and self.token is not None:
            pids.update(marked(self.token, since=self.root_pid))
        with self._lock:
            pids.update(self._seen)
        for pid in pids:
            try:
                proc = psutil.Process(pid)
            except (psutil.Error, OSError):  # (OSError: no descriptor left: see kill)
                continue
            ident = _ident(proc)
            if ident is None:
                continue
            known = self._seen.get(pid)
            if known is not None and abs(known - ident[1]) > 0.01:
                continue  # the pid was reused by an unrelated process
            candidates[pid] = proc
        for pid in list(candidates):  # the kernel's children lists: not every process's
            for child in descendants(pid):  # parent, as psutil's ``children`` reads them
                if child not in candidates:
                    with contextlib.suppress(psutil.Error, OSError):
                        candidates[child] = psutil.Process(child)
        with self._lock:
            for proc in candidates.values():
                ident = _ident(proc)
                if ident is not None:
                    self._seen.setdefault(ident[0], ident[1])
        self._note_groups(candidates)
        return list(candidates.values())

    def _contained_processes(self) -> list[psutil.Process]:
        found: dict[int, psutil.Process] = {}
        for pid in [self.root_pid, *descendants(self.root_pid)]:
            with contextlib.suppress(psutil.Error, OSError):
                found[pid] = psutil.Process(pid)
        self.bot_pid()  # the init, if it runs: its group (the bot's too) is never stopped
        groups = set()
        for pid in found.keys() - {self.root_pid, self._init}:
            with contextlib.suppress(OSError):
                groups.add(os.getpgid(pid))
        self.groups = frozenset(groups - {self._init})
        return list(found.values())

    def _note_groups(self, procs: dict[int, psutil.Process]) -> None:
        groups = set()
        for pid in procs:
            with contextlib.suppress(OSError):
                groups.add(os.getpgid(pid))
        if groups:
            self.groups = frozenset(groups)

    def stop(self) -> frozenset[int]:
        """SIGSTOP the whole tree (its process groups and every descendant, including
        any that left them with ``setsid``), sweeping again until no new process appears
        (a stopped process cannot fork); returns the pids stopped, for :meth:`cont`.
        Contained, the walk from the namespace's init finds every process of the bot
        (the init adopts its orphans): its process groups need no signal of their own."""
        if not self.contained:
            for group in self.groups:
                with contextlib.suppress(OSError):
                    os.killpg(group, signal.SIGSTOP)
            with contextlib.suppress(OSError):  # also if it left its groups (the root is
                os.kill(self.root_pid, signal.SIGSTOP)  # our child, not reaped: its pid)
        elif not self._signal_bot(signal.SIGSTOP):
            return frozenset()
        elif self._alone():
            return self._last_stop
        top = self._bot if self.contained else self.root_pid
        start = self._init if self.contained else top
        assert top is not None and start is not None
        stopped: set[int] = {top}  # (signalled above: it cannot fork any more)
        for _ in range(8):
            new = set(self._descendants(start)) - stopped
            if not new:
                break
            for pid in new:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGSTOP)
            stopped |= new
        self._stops += 1
        if self._stops % _PRUNE_EVERY == 0:  # (a bot whose children come and go would
            self._walk.forget(stopped | {start})  # otherwise keep 256 of each open)
        self._last_stop = frozenset(stopped)
        return self._last_stop

    def _alone(self) -> bool:
        """Whether the contained bot, just stopped, is still its tree's one process and
        need not be walked: the last walk found it alone, and no pid has been given on
        the machine since (a stopped process cannot fork: one that forked before its
        stop gave a pid first). Most bots are one process, so most stops are this one
        reading; a bot whose children come and go is walked at every stop."""
        mark, self._mark = self._mark, PIDS.read()
        return self._last_stop == {self._bot} and PIDS.unchanged(mark, self._mark)

    def _descendants(self, pid: int) -> list[int]:
        """As :func:`descendants`, keeping the kernel's children lists open between calls
        (suspension walks the tree at every turn; a dead task's list fails and is opened
        afresh, so a reused pid is read as it is now)."""
        return self._walk.descendants(pid, self._init)

    def close(self) -> None:
        """Close the files kept open (the tree is no longer walked or measured)."""
        self._walk.close()
        with self._lock:
            if self._usage_files is not None:
                self._usage_files.close()
                self._usage_files = None
        for fd in (self._bot_fd, self._init_fd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._bot_fd = self._init_fd = -1

    def cont(self, stopped: frozenset[int]) -> None:
        """SIGCONT what :meth:`stop` stopped (and, not contained, the process groups); a
        contained bot's own process through its pidfd, as it was stopped (never a
        process that took its pid after it ended)."""
        if not self.contained:
            for group in self.groups:
                with contextlib.suppress(OSError):
                    os.killpg(group, signal.SIGCONT)
        for pid in stopped:
            if pid == self._bot:
                pidfd_signal(self._bot_fd, signal.SIGCONT)
                continue
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGCONT)

    def bot_pid(self) -> int | None:
        """The bot's own process: the root, or in a pid namespace the first child of the
        namespace's first process (the root's child, bubblewrap's init); both stay the
        same: remembered once found. ``None`` if it is not running yet."""
        if not self.contained:
            return self.root_pid
        if self._init is None:
            self._init = _first_child(self.root_pid)
            if self._init is None:
                return None
            self._init_fd = pidfd_of(self._init)
        if self._bot is None:
            self._bot = _first_child(self._init)
            if self._bot is None:
                return None
            self._bot_fd = pidfd_of(self._bot)
        return self._bot

    def _signal_bot(self, sig: int) -> bool:
        """Send ``sig`` to the contained bot's own process through its pidfd (never to a
        process that reused its pid); whether it still runs."""
        if self.bot_pid() is None:
            return False
        return pidfd_signal(self._bot_fd, sig)

    def count(self) -> int:
        """How many processes of the bot are alive (a sandbox's own bubblewrap and init
        left out)."""
        return self.usage()[0]

    def usage(self) -> tuple[int, int]:
        """How many processes of the bot are alive (a sandbox's own bubblewrap and init
        left out) and the resident memory of the whole tree in bytes, from one walk:
        what the watchdog measures at every tick. Contained, the walk and the readings
        go through files of ``/proc`` kept open between calls (one ``pread`` of each
        process's ``statm``); ``(0, 0)`` once the tree is closed."""
        if not self.contained:
            procs = [p for p in self.processes() if _alive(p)]
            total = 0
            for proc in procs:
                with contextlib.suppress(psutil.Error):
                    total += proc.memory_info().rss
            return len(procs), total
        with self._lock:
            files = self._usage_files
            if files is None:
                return 0, 0
            alive, pages = files.measure(self.root_pid, self._init)
        return max(0, alive - 2), pages * _PAGE_SIZE

    def kill(self) -> int:
        """SIGKILL every process of the tree; returns how many were signalled. With no
        descriptor left to read ``/proc`` with, what it cannot find is left to the
        signals it can still send: the namespace's init, the process group."""
        count = 0
        if self.contained:  # the bot, then the namespace's first process (its init):
            count = int(self._signal_bot(signal.SIGKILL))  # the kernel kills the rest
            # an init's exit waits for every process of its namespace to be gone: once it
            # has ended, nothing is left. bubblewrap may exit before it (the init tells it
            # of the bot's end at once), so the wait is on the init's pidfd, then on
            # bubblewrap's (killing bubblewrap instead would leave the init's remains to
            # the machine's init). Both pidfds are held from the bot's start (bubblewrap's
            # by its owner, if it has one): with no descriptor left (EMFILE), none could
            # be opened now
            if pidfd_signal(self._init_fd, signal.SIGKILL) and self._ends(1.0):
                return count + 1
        with contextlib.suppress(OSError):
            os.killpg(self.root_pid, signal.SIGKILL)
        for sweep in range(3):  # children may fork while we kill; sweep until none is left
            # (the environments are read once: what later sweeps find descends from them)
            procs = [p for p in self.processes(thorough=sweep == 0) if _alive(p)]
            if not procs:
                break
            for proc in procs:
                try:
                    proc.kill()
                    count += 1
                except (psutil.Error, OSError):
                    continue
            # not the root: it is the referee's child, which psutil would reap, leaving
            # its Popen an exit status of 0 instead of the signal that killed it (and a
            # process gone meanwhile may make psutil's wait fail: the next sweep tells)
            with contextlib.suppress(psutil.Error, OSError):
                psutil.wait_procs([p for p in procs if p.pid != self.root_pid],
                                  timeout=0.5)
        return count

    def _ends(self, seconds: float) -> bool:
        """Whether the contained tree's init, then its root, end within ``seconds`` (not
        reaped); the root waited on through :attr:`root_fd` if there is one, else a
        pidfd opened for the wait."""
        deadline = time.monotonic() + seconds
        if not exited_within(self._init_fd, seconds):
            return False
        left = deadline - time.monotonic()
        if self.root_fd < 0:
            return wait_exit(self.root_pid, left)
        return exited_within(self.root_fd, left)

    def alive(self) -> list[int]:
        """Pids of the tree's processes that are still running (not zombies)."""
        return [p.pid for p in self.processes(thorough=True) if _alive(p)]


def _count_tasks(pid: int, fd: int) -> list[str]:
    """The threads of ``pid`` through its open ``task`` folder ``fd`` (``OSError`` if it
    has ended: its folder counts none)."""
    threads = os.fstat(fd).st_nlink - 2
    if threads == 1:
        return [str(pid)]
    if threads < 1:
        raise ProcessLookupError(pid)
    return os.listdir(fd)


def _read_whole(fd: int) -> bytes:
    """A small file of ``/proc`` open as ``fd``, read from its start."""
    return os.pread(fd, 1 << 16, 0)


_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def _statm_reading(fd: int) -> tuple[bool, int]:
    """Whether the process of the ``/proc/PID/statm`` open as ``fd`` is alive and its
    resident pages (the file's second field, what psutil reads as ``rss``); ``OSError``
    if it has been reaped. A zombie, or a process whose exit has released its memory,
    reads all zeros: a live process always has a size (the first field)."""
    size, resident = os.pread(fd, 256, 0).split(maxsplit=2)[:2]
    return size != b"0", int(resident)


class _UsageFiles:
    """What the watchdog keeps open to measure one contained tree: its own walk's files
    (:class:`_Walk`) and each process's ``statm``."""

    def __init__(self) -> None:
        self._walk = _Walk()
        self._stats = _KeptFiles("statm", os.O_RDONLY)
        self._measures = 0

    def measure(self, root: int, init: int | None) -> tuple[int, int]:
        """The live processes of the tree of ``root`` (``init``: bubblewrap's init, if
        known) and their resident pages."""
        pids = [root, *self._walk.descendants(root, init)]
        alive = pages = 0
        for pid in pids:
            try:
                live, resident = self._stats.read(str(pid), _statm_reading)
            except (OSError, ValueError):
                continue
            alive += live
            pages += resident
        self._measures += 1
        if self._measures % _PRUNE_EVERY == 0:
            live_pids = set(pids)
            self._walk.forget(live_pids)
            self._stats.forget(live_pids)
        return alive, pages

    def close(self) -> None:
        """Close every file kept open."""
        self._walk.close()
        self._stats.close()


def _first_child(pid: int) -> int | None:
    """The first child of process ``pid`` (``None``: none, or ``pid`` is gone)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", "rb") as f:
            children = f.read().split()
    except OSError:
        return None
    return int(children[0]) if children else None


def _alive(proc: psutil.Process) -> bool:
    try:
        return bool(proc.status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False
    except OSError:  # (no descriptor left to read it with: taken as alive, to be killed)
        return True


Watch = tuple["ProcessTree", int | None, int | None, "Callable[[str, str], None]"]
"""A watched tree: its memory limit (bytes), its process limit, what to call on a kill."""


REFEREE_CPUS = (frozenset(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                else None)
"""The CPUs the referee runs on, read at import, before a game's thread is pinned
(``None``: the system cannot pin)."""


class MemoryWatchdog:
    """One thread that kills any watched process tree going over its memory limit or its
    process limit."""

    def __init__(self, interval: float = 0.1) -> None:
        self.interval = interval
        self._watched: dict[int, Watch] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self.peaks: dict[int, int] = {}

    def watch(self, tree: ProcessTree, limit: int | None,
              on_kill: Callable[[str, str], None], processes: int | None = None) -> None:
        """Watch ``tree``: over ``limit`` bytes of memory, or with ``processes`` or more
        processes, call ``on_kill(kind, text)`` (kind ``memory`` or ``processes``, text
        what it used) and kill it."""
        with self._lock:
            self._watched[tree.root_pid] = (tree, limit, processes, on_kill)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="referee-memory-watchdog", daemon=True
                )
                self._thread.start()

    def unwatch(self, tree: ProcessTree) -> None:
        """Stop watching ``tree``."""
        with self._lock:
            self._watched.pop(tree.root_pid, None)

    def check(self, entries: Iterable[Watch]) -> None:
        """Measure each tree once and kill those over a limit."""
        for tree, limit, processes, on_kill in entries:
            root = tree.root_pid
            if processes is None and limit is None:
                continue
            count, rss = tree.usage()
            if processes is not None and count >= processes:  # (the owner says it in its
                on_kill("processes", f"{count} processes")  # own words: the record's)
                tree.kill()
                self.unwatch(tree)
                continue
            if limit is None:
                continue
            self.peaks[root] = max(self.peaks.get(root, 0), rss)
            if rss > limit:
                on_kill("memory", f"memory {rss / 2**20:.1f} MB")
                tree.kill()
                self.unwatch(tree)

    def _run(self) -> None:
        if REFEREE_CPUS is not None:  # not on the CPUs of the game whose thread started it
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, REFEREE_CPUS)
        while True:
            with self._lock:
                entries = list(self._watched.values())
            if not entries:
                with self._lock:
                    if not self._watched:
                        self._thread = None
                        return
                continue
            started = time.monotonic()
            try:
                self.check(entries)
            except Exception:  # the watchdog must never die silently
                log.exception("memory watchdog check failed")
            spent = time.monotonic() - started
            self._wake.wait(max(self.interval, 4 * spent))


WATCHDOG = MemoryWatchdog()
"""The process-wide watchdog shared by every bot process."""
