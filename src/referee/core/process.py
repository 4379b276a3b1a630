"""A bot process: spawn it, talk to it in lines, keep it within limits, kill its whole tree.

Reading never blocks the referee: the bot's stdout is non-blocking and waited on with
``poll`` up to a deadline, together with a pidfd that wakes the referee the moment the
bot exits. Lines may end in CR LF, LF or CR; empty lines are skipped; a line longer than
``max_line`` bytes is a protocol error, and so is more than ``output_limit`` bytes of
output in all (flooding), so the referee's memory stays bounded. Bytes that are not
UTF-8 are replaced, never raised on.

The bot's stderr goes to a log file through a small drain thread that stops writing
(but keeps draining) past ``stderr_cap`` bytes, so a flooding bot can neither block nor
fill the disk; past ``output_limit`` bytes the bot is stopped for flooding.

A relay that passes the bot's output on as it comes, without reading lines, has it
streamed instead (:meth:`BotProcess.stream_output`): a drain thread gives every chunk to
the relay, within the same output limit.

The bot starts in its sandbox (:mod:`referee.core.sandbox`, built by
:mod:`referee.core.confine`). With ``suspend`` (fair time, like Piskvork's "suspend the
opponent's brain") it runs only while the referee waits for a line from it: it is
stopped (SIGSTOP of its process groups) a few milliseconds after it has given the line
(``core.deferred_stops``: it may still be leaving its thinking state), unless the
referee waits for it again before then, and continued (SIGCONT) the moment the referee
waits again, or when what it is told fills its input pipe; what it is told meanwhile
waits in the pipe. Its CPU time is measured
(``cpu_time``), and after every turn (:meth:`BotProcess.end_turn`) its folders are
checked against the sandbox's folder limit.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import secrets
import select
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from referee.core.bounded_folders import start_within
from referee.core.confine import Confined, confine
from referee.core.deferred_stops import STOP_GRACE, STOPS
from referee.core.errors import BotFault
from referee.core.exit_status import ended_how, last_line
from referee.core.files import file_size
from referee.core.folder_meter import FolderMeter
from referee.core.limits import TOKEN_VAR, WATCHDOG, MemoryWatchdog, ProcessTree
from referee.core.live_bots import (  # (the last three: this module's names since long)
    _LIVE,
    _LIVE_LOCK,
    _LOCAL,
    _stopping,
)
from referee.core.open_files import SHORT_OF
from referee.core.outcome import Outcome
from referee.core.pidfds import exited_within
from referee.core.pipe_drain import CappedLog, PipeDrain
from referee.core.sandbox import SandboxPlan
from referee.core.spawn import Spawned, spawn
from referee.core.text import size_text, write_failure

log = logging.getLogger(__name__)

DEFAULT_MAX_LINE = 64 * 1024
DEFAULT_STDERR_CAP = 16 * 1024 * 1024
_READ_CHUNK = 65536
_MB = 1 << 20
_POLL_IN = select.POLLIN | select.POLLPRI | select.POLLHUP | select.POLLERR
_CR = 13
_LF = 10



class BotProcess:
    """One running bot program and the line-based pipe conversation with it."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        name: str = "bot",
        cwd: Path | str | None = None,
        env: Mapping[str, str] | None = None,
        stderr_log: Path | str | None = None,
        memory_limit: int | None = None,
        max_line: int = DEFAULT_MAX_LINE,
        stderr_cap: int = DEFAULT_STDERR_CAP,
        watchdog: MemoryWatchdog | None = None,
        cpus: Sequence[int] = (),
        sandbox: SandboxPlan | None = None,
        private: Sequence[tuple[Path, Path]] = (),
        hidden: Sequence[Path] = (),
        suspend: bool = False,
        seat: int | None = None,
    ) -> None:
        if not argv:
            raise ValueError("empty command line")
        self.argv = list(argv)
        self.name = name
        self.cwd = Path(cwd) if cwd is not None else None
        self.env = dict(env) if env is not None else None
        self.stderr_log = Path(stderr_log) if stderr_log is not None else None
        self.memory_limit = memory_limit
        self.max_line = max_line
        self.stderr_cap = stderr_cap
        self.watchdog = watchdog or WATCHDOG
        self.cpus = tuple(cpus)
        self.sandbox = sandbox
        """The sandbox it runs in (``None``: none, as earlier releases ran bots)."""
        self.private = tuple(private)
        """More folders it may write besides its working folder: (host, seen as)."""
        self.hidden = tuple(hidden)
        """Folders it must not see (the output folder)."""
        self.suspend_off_turn = suspend
        self.seat = seat
        """The seat it plays in a game (``None``: none); a game's part of its stderr log
        is that seat's (``core.seat_logs``)."""
        self.stderr_start: int | None = None
        """The size of the stderr log when the bot started: where its output begins."""
        self.stderr_end: int | None = None
        """The size of the stderr log once the bot was stopped and its stderr drained."""
        limits = sandbox.limits if sandbox is not None else None
        self.output_limit = limits.output if limits is not None else None
        self.folder_limit = limits.folder if limits is not None else None
        self._folder_meters: list[FolderMeter] | None = None
        """What measures its folders after each turn (made at the first check)."""
        self.process_limit = limits.processes if limits is not None and sandbox is not None \
            and sandbox.isolated else None
        self.suspended = False
        self._lock = threading.Lock()
        """Suspension's state (its stops may be made by another thread)."""
        self._kill_lock = threading.Lock()
        """One :meth:`kill` at a time: a game's own and a stopping referee's may meet,
        and two at once wrote its folders back over each other and closed them under
        each other."""
        self._released = False
        """Killed, reaped and every resource let go (a later :meth:`kill` does nothing:
        its pid and group may be another's by then)."""
        self._stop_due: float | None = None
        """When its stop falls due (its answer was read; ``None``: none waits)."""
        self.stdout_bytes = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._io: Spawned | None = None
        self._tree: ProcessTree | None = None
        self._buf = bytearray()
        self._skip_lf = False
        self._eof = False
        self._poll: select.poll | None = None
        self._pidfd: int | None = None
        self._stdin_fd = -1
        self._stdout_fd = -1
        self._kill_reason: tuple[Outcome, str] | None = None
        self._stderr: PipeDrain | None = None
        self._stderr_file: CappedLog | None = None
        """What writes its stderr into ``stderr_log`` (capped), while it runs."""
        self._stdout: PipeDrain | None = None
        self._confined: Confined | None = None
        self._cpu_clock: int | None = None
        self._cpu_read_stopped = False
        """``_cpu`` was read while the bot is suspended (it stands until it resumes)."""
        self._cpu = 0.0
        self.started_at = 0.0
        self.games = 0
        """The games it has begun: 1 once started, one more for each :meth:`begin_game`."""
        self.token = ""
        self._stopped: frozenset[int] = frozenset()
        """The mark in the environment of every process of the bot (set at start): a
        crashed referee's successor finds them by it (``core.limits.marked``)."""

    # -- life cycle ---------------------------------------------------------------------
    def start(self) -> None:
        """Spawn the program in its own session; raise ``BotFault(CRASH)`` if it cannot run."""
        if self.cwd is not None:
            self.cwd.mkdir(parents=True, exist_ok=True)
        token = self.token = secrets.token_hex(12)  # marks every process of the bot
        self._released = False
        self.stderr_start = file_size(self.stderr_log)  # before anything can write it
        self.stderr_end = None
        self.games = 1
        env = dict(self.env if self.env is not None else os.environ)
        env[TOKEN_VAR] = token
        if _stopping.is_set():
            raise BotFault(Outcome.CRASH, "not started: the referee is stopping")
        listener = getattr(_LOCAL, "listener", None)
        if listener is not None:
            listener(self)
        if self.sandbox is not None and self.sandbox.limits is not None:
            if self.cwd is None:
                raise ValueError("a sandboxed bot needs its working folder (cwd)")
            start_within([self.cwd, *(host for host, _ in self.private)],
                         self.sandbox.limits.folder, self.name)
            self._confined = confine(self.sandbox, self.argv, cwd=self.cwd, env=env,
                                     private=self.private, hidden=self.hidden,
                                     cpus=self.cpus)
        else:
            self._confined = Confined(self.argv, env, self.cwd)
        try:
            self._io = spawn(self._confined, self.name)
            self._proc = self._io.proc
        except BotFault:
            self._confined.release()
            raise
        except OSError as exc:
            self._confined.release()
            if exc.errno in SHORT_OF:  # the referee's machine, not the bot: not its loss
                raise  # (a tournament stops, and the same command plays the game again)
            raise BotFault(Outcome.CRASH, f"cannot start {self.argv[0]!r}: {exc}") from exc
        self.started_at = time.monotonic()
        if self.cpus and self._confined.argv is self.argv:
            try:
                os.sched_setaffinity(self._proc.pid, self.cpus)
            except (OSError, AttributeError) as exc:
                log.warning("%s: cannot pin to CPUs %s: %s", self.name, self.cpus, exc)
        self._stdin_fd = self._io.stdin.fileno()
        self._stdout_fd = self._io.stdout.fileno()
        os.set_blocking(self._stdin_fd, False)
        os.set_blocking(self._stdout_fd, False)
        self._poll = select.poll()
        self._poll.register(self._stdout_fd, _POLL_IN)
        try:
            self._pidfd = os.pidfd_open(self._proc.pid)
            self._poll.register(self._pidfd, select.POLLIN)
        except (AttributeError, OSError):
            self._pidfd = None
        self._tree = ProcessTree(self._proc.pid, token, self._confined.contained,
                                 -1 if self._pidfd is None else self._pidfd)
        self._stderr_file = None
        if self.stderr_log is not None:
            try:
                self._stderr_file = CappedLog(self.stderr_log, self.stderr_cap)
            except OSError as exc:
                log.warning("%s: its stderr is not kept: %s", self.name, exc)
        try:
            self._stderr = PipeDrain(self._io.stderr, f"stderr-{self.name}",
                                     self._stderr_file or _ignore, limit=self.output_limit,
                                     on_flood=lambda: self._flooded("error output"),
                                     on_end=self._stderr_file.close if self._stderr_file
                                     else None).start()
        except RuntimeError as exc:  # no thread to be had: the referee's machine is short
            self.kill()
            if self._stderr_file is not None:  # (the drain would have closed it)
                self._stderr_file.close()
            raise OSError(errno.EAGAIN, f"no thread for {self.name}'s stderr: {exc}") from exc
        if self.memory_limit or self.process_limit:
            self.watchdog.watch(self._tree, self.memory_limit or None, self._on_limit_kill,
                                max(2, self.process_limit - 2) if self.process_limit else None)
        with _LIVE_LOCK:  # from here on ``stop_all_processes`` sees it, or it sees the stop
            _LIVE.difference_update([p for p in _LIVE if not p.running])
            _LIVE.add(self)
            stopping = _stopping.is_set()
        if stopping:
            self.kill()
            raise BotFault(Outcome.CRASH, "not started: the referee is stopping")
        log.debug("started %s (pid %d): %s", self.name, self._proc.pid, self.argv)
        if listener is not None:
            listener(self)

    def begin_game(self, seat: int | None) -> None:
        """A running bot kept from an earlier game begins another, in ``seat``: its part
        of the stderr log starts here, its memory peak is measured afresh, and this
        thread's spawn listeners hear of it as of a bot started (``core.seat_logs``
        counts it for the game)."""
        self.seat = seat
        self.games += 1
        self.stderr_start = file_size(self.stderr_log)
        self.stderr_end = None
        self.watchdog.peaks.pop(self.pid or -1, None)
        listener = getattr(_LOCAL, "listener", None)
        if listener is not None:
            listener(self)

    def end_game(self, timeout: float = 1.0) -> None:
        """The game is over and the bot is kept for another: wait up to ``timeout`` for
        what it wrote on stderr to be in its log, and end its part of the log there
        (until :meth:`begin_game`)."""
        if self._stderr is not None:
            self._stderr.settle(timeout)
        self.stderr_end = file_size(self.stderr_log)

    @property
    def pid(self) -> int | None:
        """The bot's process id, once started."""
        return self._proc.pid if self._proc is not None else None

    @property
    def returncode(self) -> int | None:
        """The exit status (negative: killed by that signal), ``None`` while running."""
        return self._proc.poll() if self._proc is not None else None

    @property
    def _reaped(self) -> bool:
        """Not started, or ended and reaped: its pid may be another process's (asks no
        ``waitpid``, unlike :attr:`running`: read at every turn)."""
        return self._proc is None or self._proc.returncode is not None

    @property
    def running(self) -> bool:
        """Whether the bot's own process is still running."""
        return self._proc is not None and self._proc.poll() is None

    @property
    def peak_memory(self) -> int:
        """The largest total resident memory seen by the watchdog (0 if not watched)."""
        return self.watchdog.peaks.get(self.pid or -1, 0)

    def alive_processes(self) -> list[int]:
        """Pids of the bot's process tree still running."""
        return self._tree.alive() if self._tree is not None else []

    def wait_stderr(self, timeout: float = 1.0) -> None:
        """Wait up to ``timeout`` seconds for the stderr log to have everything the bot
        wrote (it is complete once the bot and its children have closed stderr)."""
        if self._stderr is not None:
            self._stderr.thread.join(timeout)

    # -- turns: suspension, CPU time, folders ----------------------------------------------
    def suspend(self) -> None:
        """Stop the bot (SIGSTOP to every process of its tree, also those that left its
        process group) until the referee waits for its answer (:meth:`resume`); nothing
        if it has not started, or has ended and been reaped (no ``waitpid`` here: it is
        called after every answer)."""
        with self._lock:
            if self._stop_due is not None:
                self._stop_due = None
                STOPS.cancel(self)
            self._stop()

    def _stop(self) -> None:
        if self.suspended or self._tree is None or self._reaped:
            return
        self._stopped = self._tree.stop()
        self.suspended = True

    def _stop_soon(self) -> None:
        """Stop it :data:`STOP_GRACE` from now, unless it is resumed before (its answer
        read: it may still be leaving its thinking state; ``core.deferred_stops``)."""
        if STOP_GRACE <= 0:
            self.suspend()
            return
        due = time.monotonic() + STOP_GRACE
        with self._lock:
            self._stop_due = due
        STOPS.add(self, due, self._stop_at)

    def _stop_at(self, due: float) -> None:
        """The stop due at ``due``, if it still is (not resumed or killed meanwhile)."""
        with self._lock:
            if self._stop_due == due:
                self._stop_due = None
                self._stop()

    def resume(self) -> None:
        """Continue a suspended bot (SIGCONT to what :meth:`suspend` stopped; nothing once
        its own process has been reaped, when its pid may be another's), or keep one
        whose stop was due soon running."""
        with self._lock:
            if self._stop_due is not None:
                self._stop_due = None
                STOPS.cancel(self)
            if not self.suspended or self._tree is None:
                return
            self.suspended = self._cpu_read_stopped = False
            if not self._reaped:
                self._tree.cont(self._stopped)
            self._stopped = frozenset()

    def end_turn(self) -> None:
        """The bot's turn is over: check its folders (``BotFault(FOLDER_LIMIT)`` over
        the sandbox's limit)."""
        self.check_folders()

    def check_folders(self) -> None:
        """Raise ``BotFault(FOLDER_LIMIT)`` if the bot's folders (working folder and
        private ones) hold more than the sandbox's folder limit."""
        if self.folder_limit is None or self.cwd is None:
            return
        if self._folder_meters is None:
            bounded = self._io.folders if self._io is not None else None
            self._folder_meters = [FolderMeter(f) for f in (
                bounded.paths if bounded is not None and bounded.fds
                else (self.cwd, *(host for host, _ in self.private)))]
        used = sum(meter.size() for meter in self._folder_meters)
        if used > self.folder_limit:
            raise BotFault(Outcome.FOLDER_LIMIT,
                           f"its folders hold {used / _MB:.1f} MB, over the limit of "
                           f"{self.folder_limit / _MB:g} MB")

    def cpu_time(self) -> float:
        """Seconds of CPU the bot's own process has used so far: all its threads, to the
        nanosecond (the kernel's CPU clock of the process, one system call); the last
        figure once the process is gone; 0 before it runs. Its children are not counted
        (the sandbox stops them off turn all the same).

        A figure read while the bot is suspended stands until it is resumed: the referee
        reads it after a turn and before the next, and a stopped bot does not run in
        between (what it runs after the first reading, until its stop lands, counts in
        its next turn's figure)."""
        if self._cpu_read_stopped or self._proc is None or self._proc.returncode is not None:
            return self._cpu  # read while stopped; not started; reaped (the pid may be reused)
        if self._cpu_clock is None:
            pid = self._tree.bot_pid() if self._tree is not None else None
            if pid is None:
                return self._cpu
            self._cpu_clock = process_cpu_clock(pid)
        try:  # (not contextlib.suppress: read at every turn, its cost shows)
            self._cpu = time.clock_gettime(self._cpu_clock)
        except OSError:  # gone: the last figure
            return self._cpu
        self._cpu_read_stopped = self.suspended
        return self._cpu

    def stop(self, grace: float = 1.0) -> None:
        """Let the bot exit by itself within ``grace`` seconds, then kill its whole tree."""
        if self._proc is None:
            return
        self.resume()
        try:
            self._reap(grace)
        except subprocess.TimeoutExpired:
            log.info("%s did not exit within %.1f s: killing it", self.name, grace)
        self.kill()

    def _reap(self, seconds: float) -> None:
        """Reap the bot's own process once it ends, within ``seconds`` (else
        ``subprocess.TimeoutExpired``). The wait is on its pidfd, which wakes the referee
        the moment it exits (``Popen.wait`` polls, sleeping longer and longer)."""
        assert self._proc is not None
        if self._pidfd is not None and self._proc.returncode is None:
            with contextlib.suppress(OSError):
                exited_within(self._pidfd, seconds)
                seconds = 0.0
        self._proc.wait(timeout=seconds)

    def kill(self) -> None:
        """Kill the whole process tree at once and release every resource (another
        thread's kill meanwhile waits for it; once done, a kill does nothing)."""
        with self._kill_lock:
            if self._proc is not None and not self._released:
                self._kill()

    def _kill(self) -> None:
        assert self._proc is not None
        with self._lock:  # (no stop of it is made from here on)
            self._stop_due = None
            STOPS.cancel(self)
        if self._tree is not None:
            self.watchdog.unwatch(self._tree)
            self._tree.kill()
            self._tree.close()
        self.suspended = self._cpu_read_stopped = False
        with contextlib.suppress(OSError):
            self._proc.kill()
        self.cpu_time()  # the last figure, while it can be read (before it is reaped)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._reap(5.0)
        for meter in self._folder_meters or ():
            meter.close()  # (its folder's descriptor; a later check opens it again)
        self._folder_meters = None
        if self._io is not None and self._io.folders is not None:
            self._io.folders.write_back()  # (every process of it has ended)
        if self._confined is not None:
            self._confined.release()
        if self._stdout is not None:  # before its pipe closes under it
            self._stdout.end(close=False)
        for stream in (self._io.stdin, self._io.stdout) if self._io is not None else ():
            with contextlib.suppress(OSError):
                stream.close()
        if self._pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self._pidfd)
            self._pidfd = None
        if self._stderr is not None:
            self._stderr.end(close=True)
        if self.stderr_end is None:  # the first kill's: a later one must not count what
            self.stderr_end = file_size(self.stderr_log)  # another bot wrote since
        with _LIVE_LOCK:
            _LIVE.discard(self)
        self._released = self._proc.returncode is not None

    def stderr_span(self) -> tuple[int, int] | None:
        """The bytes of its stderr log this bot wrote: ``(start, end)``, offsets in the
        file (``end``: the size once it was stopped, or now while it runs); ``None``
        without a log or before it started."""
        if self.stderr_log is None or self.stderr_start is None:
            return None
        end = self.stderr_end
        if end is None:
            end = file_size(self.stderr_log) or 0
        return self.stderr_start, max(self.stderr_start, end)

    def __enter__(self) -> BotProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()

    # -- writing ------------------------------------------------------------------------
    def close_input(self) -> None:
        """Close the bot's standard input: it reads the end of its input (what it is
        sent afterwards is a crash, a broken pipe)."""
        if self._io is not None:
            with contextlib.suppress(OSError):
                self._io.stdin.close()
            self._stdin_fd = -1

    def send(self, text: str, deadline: float | None = None) -> None:
        """Write ``text`` (one or more lines, each already ending in a line end).

        Raises ``BotFault(CRASH)`` if the bot closed its input, ``BotFault(TIMEOUT)`` if
        it does not read its input before ``deadline`` (a ``time.monotonic()`` value).
        """
        data = text.encode()
        fd = self._stdin_fd
        try:
            written = os.write(fd, data)
        except BlockingIOError:
            written = 0
        except OSError as exc:
            raise self._dead_fault(write_failure(exc)) from exc
        if written < len(data):
            self._send_rest(memoryview(data)[written:], deadline)

    def _send_rest(self, data: memoryview, deadline: float | None) -> None:
        self.resume()  # a suspended bot must run to read what fills its input
        poller = select.poll()
        poller.register(self._stdin_fd, select.POLLOUT)
        while data:
            timeout = _ms_until(deadline)
            if timeout == 0:
                raise BotFault(Outcome.TIMEOUT, "does not read its input (pipe full)")
            if not poller.poll(timeout if timeout is not None else 100):
                if self._proc is not None and self._proc.poll() is not None:
                    raise self._dead_fault("exited while being written to")
                continue
            try:
                written = os.write(self._stdin_fd, data)
            except BlockingIOError:
                continue
            except OSError as exc:
                raise self._dead_fault(write_failure(exc)) from exc
            data = data[written:]

    # -- reading ------------------------------------------------------------------------
    def stream_output(self, sink: Callable[[bytes], None],
                      on_end: Callable[[BotFault], None] | None = None) -> None:
        """Give what the bot writes on its standard output to ``sink``, bytes as they
        come, from a thread of its own (a relay's way, instead of :meth:`read_line`, which
        must not be used then). When the output ends (the bot closed it, exited or was
        killed) ``on_end`` is told why; past the sandbox's output limit the bot is killed
        for flooding. :meth:`kill` waits for the thread."""
        if self._io is None or self._stdout is not None:
            raise RuntimeError(f"{self.name}: output already streamed, or not started")
        os.set_blocking(self._stdout_fd, True)

        def counted(data: bytes) -> None:
            self.stdout_bytes += len(data)
            sink(data)

        self._stdout = PipeDrain(
            self._io.stdout, f"stdout-{self.name}", counted, limit=self.output_limit,
            on_flood=lambda: self._flooded("output"),
            on_end=None if on_end is None else
            lambda: on_end(self._dead_fault("closed its output"))).start()

    @property
    def stderr_bytes(self) -> int:
        """Bytes the bot wrote on its stderr (kept in its log or not)."""
        return self._stderr.total if self._stderr is not None else 0

    @property
    def stderr_dropped(self) -> int:
        """Bytes of its stderr not kept in its log (past the cap)."""
        return self._stderr_file.dropped if self._stderr_file is not None else 0

    def _flooded(self, what: str) -> None:
        """Past the output limit on its ``what``: the bot is killed for flooding."""
        if self._kill_reason is None and self._tree is not None:
            self._kill_reason = (Outcome.PROTOCOL_ERROR, f"flooded its {what}: more "
                                 f"than {(self.output_limit or 0) / _MB:g} MB")
            self._tree.kill()

    def read_line(self, deadline: float | None, *, keep_empty: bool = False) -> str:
        """Return the next non-empty line (without its line end).

        ``deadline`` is a ``time.monotonic()`` value (``None``: wait for ever). Raises
        ``BotFault`` with TIMEOUT when it passes, CRASH when the bot exits or closes its
        output, MEMORY_LIMIT when the watchdog killed it. With ``keep_empty`` empty (or
        blank) lines are returned too, as ``""`` (protocols that end answers with one).

        A bot suspended off-turn runs only while this waits for its line (see the module).
        """
        line = self._next_line(keep_empty)
        if line is None:
            if self.suspend_off_turn or self.suspended:  # (under its lock: a stop that
                self.resume()  # another thread is making is waited for, then undone)
            while line is None:
                if self._eof:
                    raise self._dead_fault("closed its output")
                self._wait_readable(deadline)
                self._fill()
                line = self._next_line(keep_empty)
        if self.suspend_off_turn:
            self._stop_soon()
        return line

    def pending_line(self, *, keep_empty: bool = False, read: bool = False) -> str | None:
        """A complete line already received, if any, without waiting (``read``: what the
        pipe holds now is read first, still without waiting)."""
        if read and not self._eof:
            self._fill()
        return self._next_line(keep_empty)

    def pending_lines(self) -> list[str]:
        """Every complete non-empty line already received, in order, without waiting: the
        lines :meth:`pending_line` would give one by one (up to a line over ``max_line``,
        which the next read raises on), split at once."""
        buf = self._buf
        if not buf:  # (the common case while an answer is awaited)
            return []
        end = buf.rfind(b"\n")
        if end < 0 or self._skip_lf or b"\r" in buf:
            lines = []
            with contextlib.suppress(BotFault):  # raised again by the next read
                while (line := self._next_line()) is not None:
                    lines.append(line)
            return lines
        parts = bytes(buf[:end]).split(b"\n")
        if max(map(len, parts)) > self.max_line:
            return self._lines_before_long(parts)
        del buf[: end + 1]
        return [raw.decode("utf-8", errors="replace") for raw in parts if raw.strip()]

    def _lines_before_long(self, parts: list[bytes]) -> list[str]:
        """The lines before the first one over ``max_line`` (taken from the buffer)."""
        lines = []
        for raw in parts:
            if len(raw) > self.max_line:
                break
            del self._buf[: len(raw) + 1]
            if raw.strip():
                lines.append(raw.decode("utf-8", errors="replace"))
        return lines

    def _wait_readable(self, deadline: float | None) -> None:
        """Wait until its output has something, or ``deadline``; the other bots' stops
        that fall due meanwhile are made on the way."""
        assert self._poll is not None
        while True:
            timeout = _ms_until(deadline)
            if timeout == 0:
                raise self._limit_fault() or BotFault(Outcome.TIMEOUT, "no answer in time")
            stop = STOPS.earliest()
            if stop is not None:
                due = _ms_until(stop)
                assert due is not None
                timeout = due if timeout is None else min(timeout, due)
            events = self._poll.poll(timeout if timeout is not None else -1)
            if not events:
                STOPS.run_due()
                continue
            for fd, _ in events:
                if fd == self._stdout_fd:
                    return
            # only the pidfd fired: the bot exited; read what it left, then report
            self._fill()
            if self._buf:
                return
            raise self._dead_fault("exited")

    def _fill(self) -> None:
        """Read one chunk of what is available now into the buffer (non-blocking)."""
        try:
            data = os.read(self._stdout_fd, _READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            self._eof = True
            return
        if not data:
            self._eof = True
            return
        self.stdout_bytes += len(data)
        if self.output_limit is not None and self.stdout_bytes > self.output_limit:
            raise BotFault(Outcome.PROTOCOL_ERROR, "flooded its output: more than "
                           f"{self.output_limit / _MB:g} MB")
        self._take(data)

    def _take(self, data: bytes) -> None:
        if self._skip_lf:
            self._skip_lf = False
            if data[:1] == b"\n":
                data = data[1:]
        buf = self._buf
        buf += data
        tail = max(buf.rfind(b"\n"), buf.rfind(b"\r")) + 1
        if len(buf) - tail > self.max_line:
            raise self._long_line()

    def _long_line(self) -> BotFault:
        return BotFault(Outcome.PROTOCOL_ERROR, f"sent a line over {size_text(self.max_line)}")

    def _next_line(self, keep_empty: bool = False) -> str | None:
        buf = self._buf
        while buf:
            lf = buf.find(b"\n")
            cr = buf.find(b"\r", 0, lf if lf >= 0 else len(buf))
            if cr < 0 and lf < 0:
                return None
            end = cr if cr >= 0 else lf
            if end > self.max_line:  # a long line that came whole within one chunk
                raise self._long_line()
            raw = bytes(buf[:end])
            if cr >= 0 and end + 1 < len(buf) and buf[end + 1] == _LF:
                del buf[: end + 2]
            else:
                if cr >= 0 and end + 1 == len(buf):
                    self._skip_lf = True
                del buf[: end + 1]
            if raw.strip():
                return raw.decode("utf-8", errors="replace")
            if keep_empty:
                return ""
        return None

    # -- faults -------------------------------------------------------------------------
    def _on_limit_kill(self, kind: str, used: str) -> None:
        """The watchdog is killing the bot over a limit: the fault it will be told, and
        the log's line in the same words."""
        if kind == "processes":
            self._kill_reason = (Outcome.PROCESS_LIMIT,
                                 f"{used}: at the sandbox's limit of {self.process_limit} "
                                 "processes")
        else:
            limit_mb = (self.memory_limit or 0) / 2**20
            self._kill_reason = (Outcome.MEMORY_LIMIT,
                                 f"{used} over the limit of {limit_mb:.1f} MB")
        log.warning("%s: %s: killing it", self.name, self._kill_reason[1])

    def _limit_fault(self) -> BotFault | None:
        """The limit a bot that does not answer has hit, if any: it sits at the process
        limit (a fork bomb stopped there)."""
        if self._kill_reason is not None:
            return BotFault(*self._kill_reason)
        if self.process_limit is not None and self._tree is not None:
            count = self._tree.count()
            if count >= self.process_limit - 2:
                return BotFault(Outcome.PROCESS_LIMIT, f"{count} processes: at the sandbox's "
                                f"limit of {self.process_limit} processes")
        return None

    def _dead_fault(self, what: str) -> BotFault:
        if self._kill_reason is not None:
            return BotFault(*self._kill_reason)
        code: int | None = None
        if self._proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self._proc.wait(timeout=0.5)
        if self._kill_reason is not None:
            return BotFault(*self._kill_reason)
        if code is None:
            return BotFault(Outcome.CRASH, what)
        said = self.last_stderr_line()
        said = f" (its last words on stderr: {said})" if said else ""
        contained = self._confined is not None and self._confined.contained
        return BotFault(Outcome.CRASH, f"{what}: {ended_how(code, contained)}{said}")

    def last_stderr_line(self, limit: int = 200) -> str:
        """The last line the bot wrote on stderr (cut to ``limit`` characters), once
        its log is complete; "" without a log or a line."""
        if self.stderr_log is None:
            return ""
        self.wait_stderr(0.3)
        return last_line(self.stderr_log, limit)


def _ms_until(deadline: float | None) -> int | None:
    """Milliseconds until ``deadline`` (rounded up, at least 1), 0 if passed, None if none
    (``None`` or infinite)."""
    if deadline is None or deadline == float("inf"):
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        return 0
    return max(1, int(left * 1000.0 + 0.999))


def process_cpu_clock(pid: int) -> int:
    """The clock id of process ``pid``'s CPU time (all its threads), as Linux's
    ``clock_getcpuclockid`` makes it: ``time.clock_gettime`` of it is that process's CPU
    seconds, to the nanosecond."""
    return (~pid << 3) | 2  # CPUCLOCK_SCHED of the whole process (not one thread)


def _ignore(data: bytes) -> None:
    """A sink that keeps nothing (a bot without a stderr log)."""
