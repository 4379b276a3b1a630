"""The command line that runs one bot inside its sandbox.

An isolated bot runs as ``bwrap [namespaces, mounts] python -I -S -c LAUNCHER ...``: the
launcher, a few lines of Python run inside the sandbox, sets the resource limits
(``setrlimit``: processes, file size, open files, no core dumps), pins the CPUs, takes
the bot's own user id when the referee is root, then executes the bot. Without
bubblewrap the launcher alone sets the limits (and asks to die with the referee).

What an isolated bot sees (a whitelist, :class:`_Mounts`): the system read-only
(``/usr``, ``/etc``, ``/lib*``, ``/bin``, ``/sbin``, ``/sys``), a private ``/tmp`` and
``/dev/shm`` of limited size, its own ``/proc`` and a minimal ``/dev``; the Python and the
referee that run the built-in bots; its program's folder and the folders of the files its
command line names, read-only (never the host's ``/tmp``, ``/dev`` or ``/proc``: a file
there shows alone, or not at all); its working folder (and any private folder a game
gives it) read-write. Everything else bubblewrap makes is read-only. The output folder
(other bots' folders, logs, the tournament store) and ``$HOME`` are covered by empty
folders wherever a readable path would show them. It has no network (its own network
namespace: no sockets of the host either), its own process ids (it cannot see or signal
the referee or other bots), and it dies with the referee: the first process of its pid
namespace is bubblewrap's small init, which runs as the referee's user and dies with
bubblewrap (``--die-with-parent``), which dies with the referee; when it dies the kernel
kills every process of the namespace. The bot is the init's child (process 2 there).
The bot itself could not be made to die with bubblewrap when it has a user id of its own:
the kernel does not deliver the parent-death signal across users.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from referee.core.bot_users import BotUser, give, lease_user, ways_in
from referee.core.bounded_folders import tmpfs_size
from referee.core.errors import BotFault
from referee.core.outcome import Outcome
from referee.core.sandbox import (
    SandboxConfig,
    SandboxLevel,
    SandboxLimits,
    SandboxPlan,
    SandboxSupport,
)
from referee.core.seccomp import user_namespace_filter

__all__ = ["LAUNCHER", "Confined", "confine", "trial_run"]

LAUNCHER = """\
import os, resource, sys
spec, program, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
uid = parent = prog = None
for item in filter(None, spec.split(',')):
    key, _, value = item.partition('=')
    if key.startswith('RLIMIT_'):
        resource.setrlimit(getattr(resource, key), (int(value), int(value)))
    elif key == 'cpus':
        os.sched_setaffinity(0, [int(c) for c in value.split('+')])
    elif key == 'uid':
        uid = int(value)
    elif key == 'parent':
        parent = int(value)
    elif key in ('stdin', 'stdout'):
        fd, to = int(value), 0 if key == 'stdin' else 1
        if fd != to:
            os.dup2(fd, to)
            os.close(fd)
    elif key == 'seccomp':
        prog = bytes.fromhex(value)
if parent is not None or prog is not None:  # (before the bot's user: it may not read it)
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
if uid is not None:
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
if parent is not None:  # (without bubblewrap) die with the referee, its parent
    libc.prctl(1, 9, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(125)
if prog is not None:  # no new privileges, then the filter (core/seccomp.py)
    code = ctypes.create_string_buffer(prog, len(prog))
    class Program(ctypes.Structure):
        _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]
    filt = Program(len(prog) // 8, ctypes.addressof(code))
    if libc.prctl(38, 1, 0, 0, 0) or libc.prctl(22, 2, ctypes.byref(filt), 0, 0):
        sys.stderr.write('referee: cannot load the seccomp filter: %s\\n'
                         % os.strerror(ctypes.get_errno()))
        os._exit(126)
try:
    os.execv(program, argv)
except OSError as exc:
    sys.stderr.write('referee: cannot start %s: %s\\n' % (program, exc.strerror))
    os._exit(127)
"""
"""The launcher run in the bot's process before the bot: ``python -I -S -c LAUNCHER SPEC
PROGRAM ARGV...`` (``SPEC``: ``RLIMIT_NPROC=64,cpus=0+1,uid=N,parent=PID,stdin=FD,
stdout=FD,seccomp=HEX``, comma-separated: the limits, the CPUs, the bot's own user, death
with the referee, the standard input and output taken from those descriptors, the
seccomp filter of :mod:`referee.core.seccomp`)."""

STDIO_DUP = 'exec 0<&{0} 1>&{1} {0}<&- {1}>&-; exec "$@"'
"""What bash runs in an isolated bot's process before the native launcher: its standard
input and output from the descriptors that bubblewrap passed (bubblewrap and its init keep
only their own 0, 1 and 2, /dev/null there, so the bot's end of each pipe is its own)."""

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/sys")
"""What every isolated bot sees of the system, read-only."""

ENV_KEEP = ("PATH", "LANG", "LANGUAGE", "TZ", "TERM")
"""The environment variables an isolated bot keeps (with ``LC_*`` and the referee's own
``REFEREE_*``); the rest, which may hold the organiser's secrets, it does not see."""

_PACKAGE_ROOT = Path(__file__).resolve().parents[2]
"""The folder holding the ``referee`` package (``src/`` or site-packages)."""

_RUNNING_PYTHON = frozenset({*(Path(p) for p in (sys.base_prefix, sys.prefix, sys.exec_prefix,
                                                   sys.base_exec_prefix)), _PACKAGE_ROOT})
"""What runs the built-in bots: this Python's installation and the referee's package."""

_ROOT = Path("/")
_TMP = Path("/tmp")
_OWN_DIRS = (Path("/dev"), Path("/proc"))
"""The folders every isolated bot has of its own."""


@dataclass
class Confined:
    """How to start one bot in its sandbox.

    An isolated bot (``contained``) gets its standard input and output through two
    descriptors passed to bubblewrap rather than as bubblewrap's own (which bubblewrap and
    its init would hold open as long as they run: a bot that closes its output would not
    be seen to), and its seccomp filter through a third: :meth:`command` names them.
    """

    argv: list[str]
    """The command (isolated: bubblewrap and its options, the launcher added by
    :meth:`command`)."""
    env: dict[str, str]
    cwd: Path | None
    contained: bool = False
    """Whether the bot has its own pid namespace (its processes cannot outlive it)."""
    user: BotUser | None = field(default=None, repr=False)
    """The bot's own user (the referee is root), until :meth:`release`."""
    seccomp: bytes | None = None
    """The seccomp filter bubblewrap loads (isolated bots on a known architecture)."""
    launch: list[str] = field(default_factory=list)
    """The native launcher and the bot (isolated; empty: the Python launcher)."""
    spec: list[str] = field(default_factory=list)
    """The Python launcher's settings (isolated, without the native launcher)."""
    program: str = ""
    bot_argv: list[str] = field(default_factory=list)
    bounded: Sequence[tuple[Path, Path]] = ()
    """Its writable folders, ``(host folder, path the bot sees)``, each a bounded folder
    of its own in the sandbox (``core.bounded_folders``)."""
    folder_limit: int = 0

    def command(self, stdin_fd: int | None = None, stdout_fd: int | None = None,
                seccomp_fd: int | None = None, info_fd: int | None = None,
                block_fd: int | None = None) -> list[str]:
        """The command to run: an isolated bot's takes its standard input and output
        from ``stdin_fd`` and ``stdout_fd`` and its filter from ``seccomp_fd``, all
        passed to bubblewrap (``None``: its own 0 and 1, no filter); bubblewrap says where
        it runs on ``info_fd`` and waits on ``block_fd`` (its folders are filled then)."""
        if not self.contained:
            return self.argv
        args = list(self.argv)
        if seccomp_fd is not None:
            args += ["--seccomp", str(seccomp_fd)]
        if info_fd is not None and block_fd is not None:
            args += ["--info-fd", str(info_fd), "--block-fd", str(block_fd)]
        stdio = stdin_fd is not None and stdout_fd is not None
        bash = _system_tool("bash")
        if self.launch and (not stdio or bash is not None):
            if stdio:
                args += [str(bash), "-c", STDIO_DUP.format(stdin_fd, stdout_fd), "launch"]
            return args + self.launch
        spec = list(self.spec)
        if stdio:
            spec += [f"stdin={stdin_fd}", f"stdout={stdout_fd}"]
        return args + _launcher(spec, self.program, self.bot_argv)

    def release(self) -> None:
        """Take back what the bot's user was given and its user id (once the bot is
        dead)."""
        if self.user is not None:
            self.user.release()
            self.user = None


def confine(plan: SandboxPlan, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str],
            private: Sequence[tuple[Path, Path]] = (), hidden: Sequence[Path] = (),
            cpus: Sequence[int] = ()) -> Confined:
    """The command that runs ``argv`` under ``plan`` in working folder ``cwd``.

    ``private``: more folders the bot may write, as (host folder, path the bot sees);
    ``hidden``: folders it must not see (the output folder); ``cpus``: the CPUs to pin it
    to. Raises ``BotFault(CRASH)`` if the program cannot be found, or (the referee is
    root) cannot be opened to the bot's own user.
    """
    limits = plan.limits
    if limits is None:
        return Confined(list(argv), dict(env), cwd)
    program = _program(argv[0], env)
    spec = [f"RLIMIT_FSIZE={limits.file_size}", f"RLIMIT_NOFILE={limits.open_files}",
            "RLIMIT_CORE=0"]
    if cpus:
        spec.append("cpus=" + "+".join(str(c) for c in cpus))
    kept = _kept_env(env)
    writable = [(cwd, cwd), *private]
    for folder, _ in writable:
        folder.mkdir(parents=True, exist_ok=True)
    files = [(Path(program), True), *((Path(a), False) for a in argv[1:]
                                      if os.path.isabs(a) and os.path.exists(a)
                                      and not _in_own_dirs(Path(a)))]
    support = plan.support
    if support is None:  # no isolation: the limits, its own user, death with the referee
        spec.append(f"parent={os.getpid()}")
        user = _own_user(plan, writable, files, lambda path: True)
        if user is not None:
            spec.append(f"uid={user.uid}")
        if plan.filter is not None:
            spec.append(f"seccomp={plan.filter.hex()}")
        return Confined(_launcher(spec, program, argv), kept, cwd, user=user)
    spec.insert(0, f"RLIMIT_NPROC={limits.processes}")
    kept.update(HOME=str(cwd), TMPDIR="/tmp")
    mounts = _Mounts()
    mounts.system()
    mounts.readable(_readable(plan.config, argv, program))
    mounts.hide([*hidden, Path.home()])
    for _, inside in writable:
        mounts.bounded(inside, tmpfs_size(limits.folder))
    user = _own_user(plan, writable, files, mounts.shows_host)
    uid = user.uid if user is not None else None
    if uid is not None:
        spec.append(f"uid={uid}")
    args = [support.bwrap or "bwrap", "--die-with-parent", "--new-session",
            "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--hostname", "sandbox"]
    if support.root:
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args.append("--unshare-user")
        if support.disable_userns:
            args.append("--disable-userns")
    args += [*mounts.args, *_private_tmpfs("/tmp", limits.tmp), *mounts.after_tmp,
             *_private_tmpfs("/dev/shm", limits.tmp), *mounts.sealed(), "--chdir", str(cwd)]
    return Confined(args, kept, None, True, user, plan.filter,
                    _native_launcher(limits, cpus, uid, program, argv) or [], spec,
                    program, list(argv), writable, limits.folder)


def _own_user(plan: SandboxPlan, writable: Sequence[tuple[Path, Path]],
              files: Sequence[tuple[Path, bool]],
              host: Callable[[Path], bool]) -> BotUser | None:
    """The bot's own user when the referee is root (``None`` otherwise): its folders
    given to it, the way to its files and folders opened to it (``host``: whether the bot
    sees the host's file at a path)."""
    if not plan.root:
        return None
    user = lease_user()
    try:
        if plan.support is None:  # (isolated, its folders are copies in its sandbox)
            for folder, _ in writable:
                give(folder, user.uid, close=True)
        user.open_way(ways_in(files, [inside for _, inside in writable], host))
    except BaseException:
        user.release()
        raise
    return user


def _native_launcher(limits: SandboxLimits, cpus: Sequence[int], uid: int | None,
                     program: str, argv: Sequence[str]) -> list[str] | None:
    """The launcher made of util-linux's small programs (``prlimit``, ``taskset``,
    ``setpriv``: a few milliseconds less per start than Python's), if the system has
    them where the sandbox shows them; ``None`` if not."""
    tools = {name: _system_tool(name) for name in ("prlimit", "taskset", "setpriv")}
    if None in tools.values():
        return None
    command = [str(tools["prlimit"]), f"--nproc={limits.processes}",
               f"--fsize={limits.file_size}", f"--nofile={limits.open_files}", "--core=0",
               "--"]
    if cpus:
        command += [str(tools["taskset"]), "-c", ",".join(str(c) for c in cpus)]
    if uid is not None:  # the bot's own user; then death with bubblewrap (setuid forgets it)
        command += [str(tools["setpriv"]), f"--reuid={uid}", f"--regid={uid}",
                    "--clear-groups", "--pdeathsig=KILL", "--"]
    return [*command, program, *argv[1:]]


@functools.cache
def _system_tool(name: str) -> str | None:
    """The absolute path of system program ``name`` if it lies in a folder every
    sandbox shows (``SYSTEM_DIRS``), else ``None``."""
    found = shutil.which(name, path="/usr/bin:/bin:/usr/sbin:/sbin")
    if found is None:
        return None
    return found if any(_within(Path(found), Path(d)) for d in SYSTEM_DIRS) else None


def _private_tmpfs(path: str, size: int) -> list[str]:
    """A private, writable folder of ``size`` bytes at most (in memory)."""
    return ["--size", str(size), "--perms", "1777", "--tmpfs", path]


def _launcher(spec: Sequence[str], program: str, argv: Sequence[str]) -> list[str]:
    return [sys.executable, "-I", "-S", "-c", LAUNCHER, ",".join(spec), program, *argv]


def _program(name: str, env: Mapping[str, str]) -> str:
    """The program's absolute path (looked up on ``PATH`` like ``execvp``)."""
    if os.sep in name:
        return os.path.abspath(name)
    found = shutil.which(name, path=env.get("PATH", os.defpath))
    if found is None:
        raise BotFault(Outcome.CRASH, f"cannot start {name!r}: not found on PATH")
    return os.path.abspath(found)


def _kept_env(env: Mapping[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items()
            if k in ENV_KEEP or k.startswith(("LC_", "REFEREE_"))}


def _readable(config: SandboxConfig, argv: Sequence[str], program: str) -> list[Path]:
    """The paths an isolated bot may read besides the system: the Python and the
    referee of the built-in bots, its program's installation (a version manager's whole
    folder for its shims), the folders of the files its command line names, and the ones
    the user added."""
    paths = set(_RUNNING_PYTHON)
    home = Path.home()
    for name in (program, os.path.realpath(program)):
        path = Path(name)
        parent = path.parent
        if parent.name == "shims" and _narrow(parent.parent, home):  # pyenv, rbenv, asdf: the
            paths.add(parent.parent)  # shim runs the tool, which runs its interpreters
        paths.add(parent.parent if parent.name == "bin" and _narrow(parent.parent, home)
                  else parent if _narrow(parent, home) else path)
    for arg in argv[1:]:
        if os.path.isabs(arg) and os.path.exists(arg) and not _in_own_dirs(Path(arg)):
            path = Path(os.path.normpath(arg))
            folder = path if path.is_dir() else path.parent
            if _narrow(folder, home):
                paths.add(folder)
            elif path.is_file():
                paths.add(path)
    paths.update(config.readable)
    return sorted((p for p in paths if p.exists()), key=lambda p: len(p.parts))


def _narrow(folder: Path, home: Path) -> bool:
    """Whether a folder may be shown whole: not ``/``, not ``home`` (``$HOME``) or above
    it, not the host's ``/tmp``, ``/dev`` or ``/proc`` (the bot has its own)."""
    return (folder not in (_ROOT, _TMP) and not _within(home, folder)
            and not _in_own_dirs(folder))


def _in_own_dirs(path: Path) -> bool:
    """Whether ``path`` lies in ``/dev`` or ``/proc``, which every isolated bot has of its
    own (a file named there on its command line, ``/dev/null``, is the bot's own)."""
    return any(_within(path, own) for own in _OWN_DIRS)


def _within(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or inside it (both absolute; compared as text,
    which is many times faster than ``Path.parents``)."""
    inside, outer = str(path), str(folder)
    return inside == outer or inside.startswith(outer.rstrip("/") + "/")


class _Mounts:
    """The mount options of one sandbox, in order, creating the folders they need."""

    def __init__(self) -> None:
        self.args: list[str] = []
        self.after_tmp: list[str] = []
        self._mounts: list[tuple[str, str, int, bool]] = []
        """(mount point, its text followed by ``/``, its depth, shows the host's files),
        in mount order (as text: this is asked for every folder of every mount)."""
        self._add(_ROOT, False)
        self._tmp_done = False
        self._covers: list[Path] = []
        """The empty folders over hidden paths (sealed read-only at the end)."""

    def _add(self, point: Path, host: bool) -> None:
        text = str(point)
        self._mounts.append((text, text.rstrip("/") + "/", len(point.parts), host))

    def shows_host(self, path: Path) -> bool:
        """Whether ``path`` in the sandbox lies in a read-only view of the host's
        files (so it exists there) rather than in an empty tmpfs: the deepest mount
        point that holds it decides (the last of equal depth)."""
        return self._shows_host_text(str(path))

    def _shows_host_text(self, text: str) -> bool:
        depth, host = -1, False
        for point, prefix, level, shows in self._mounts:
            if level >= depth and (text == point or text.startswith(prefix)):
                depth, host = level, shows
        return host

    def _out(self, path: Path) -> list[str]:
        return self.after_tmp if self._tmp_done or _within(path, _TMP) else self.args

    def _parents(self, path: Path) -> None:
        """Make the folders above ``path`` that no view of the host shows, outer first
        (each a prefix of its text: a ``Path`` for each costs more than the rest)."""
        text = str(path)
        out = self._out(path)
        end = text.find("/", 1)
        while end > 0:
            parent = text[:end]
            if not self._shows_host_text(parent):
                out.extend(["--perms", "0755", "--dir", parent])
            end = text.find("/", end + 1)

    def system(self) -> None:
        """The system's folders, read-only (symbolic links kept as links)."""
        for name, link in _system_dirs():
            if link is not None:
                self.args += ["--symlink", link, name]
            else:
                self.args += ["--ro-bind", name, name]
                self._add(Path(name), True)
        self.args += ["--proc", "/proc", "--dev", "/dev"]
        self._add(_TMP, False)

    def readable(self, paths: Sequence[Path]) -> None:
        """Read-only views of ``paths`` (files or folders)."""
        for path in paths:
            if self.shows_host(path):
                continue
            self._parents(path)
            self._out(path).extend(["--ro-bind", str(path), str(path)])
            self._add(path, True)

    def hide(self, paths: Sequence[Path]) -> None:
        """An empty folder over each of ``paths`` that a readable view shows."""
        self._tmp_done = True
        for path in sorted(paths, key=lambda p: len(p.parts)):  # outer first: it hides
            if path.is_dir() and self.shows_host(path):  # the inner ones (no cover)
                self.after_tmp += ["--tmpfs", str(path)]
                self._covers.append(path)
                self._add(path, False)

    def sealed(self) -> list[str]:
        """The last options: every folder bubblewrap made (the root, ``/dev``, the
        covers over hidden paths) read-only. As a normal user the bot owns them, and
        they are memory it could otherwise fill without limit."""
        args = []
        for point in [*self._covers, Path("/dev"), Path("/")]:
            args += ["--remount-ro", str(point)]
        return args

    def bounded(self, inside: Path, size: int) -> None:
        """A writable folder of its own at ``inside``, of ``size`` bytes at most (in
        memory; the host's folder is copied in and out by ``core.bounded_folders``)."""
        self._tmp_done = True
        self._parents(inside)
        self.after_tmp += ["--size", str(size), "--perms", "0755", "--tmpfs", str(inside)]
        self._add(inside, False)


@functools.cache
def _system_dirs() -> tuple[tuple[str, str | None], ...]:
    """The folders of :data:`SYSTEM_DIRS` this machine has, each with what it links to
    (``None``: a folder), looked at once: the system does not change while bots run."""
    found: list[tuple[str, str | None]] = []
    for name in SYSTEM_DIRS:
        if os.path.islink(name):
            found.append((name, os.readlink(name)))
        elif os.path.isdir(name):
            found.append((name, None))
    return tuple(found)


@contextlib.contextmanager
def _trial_folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="referee-sandbox-trial-") as name:
        os.chmod(name, 0o755)
        yield Path(name)


def trial_run(support: SandboxSupport) -> str:
    """Run a trial bot (Python, through the launcher, with the seccomp filter and its
    standard output passed as a bot's is) isolated with ``support``: empty if it ran and
    said so, else why not, in one line."""
    from referee.core.spawn import spawn  # (it starts what this module builds)

    plan = SandboxPlan(SandboxConfig(SandboxLevel.STRICT), support, root=support.root,
                       filter=user_namespace_filter())
    with _trial_folder() as folder:
        work = folder / "work"
        try:
            confined = confine(plan, [sys.executable, "-I", "-S", "-c", "print('ok')"],
                               cwd=work, env=dict(os.environ))
        except (OSError, BotFault) as exc:
            return f"bubblewrap cannot be set up: {exc}"
        try:
            started = spawn(confined)
            with started.stdin, started.stdout, started.stderr:
                started.stdin.close()
                try:  # (what it writes is a few bytes: it cannot fill a pipe)
                    started.proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    started.proc.kill()
                    started.proc.wait()
                    return "bubblewrap does not run: the trial program did not end in 30 s"
                said, errors = started.stdout.read(), started.stderr.read()
        except OSError as exc:
            return f"bubblewrap does not run: {exc}"
        finally:
            confined.release()
    if started.proc.returncode != 0 or said.strip() != b"ok":
        lines = [line for line in errors.decode(errors="replace").splitlines()
                 if line.strip()]
        said_text = lines[-1] if lines else f"exit status {started.proc.returncode}"
        return f"bubblewrap cannot isolate a program here: {said_text}"
    return ""


def filter_trial(program: bytes) -> bool:
    """Whether the launcher loads the seccomp filter ``program`` here without bubblewrap
    (and a program then runs)."""
    run = subprocess.run(_launcher([f"seccomp={program.hex()}"], sys.executable,
                                   [sys.executable, "-I", "-S", "-c", "pass"]),
                         capture_output=True, timeout=30, stdin=subprocess.DEVNULL,
                         check=False)
    return run.returncode == 0
