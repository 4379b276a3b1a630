"""The sandbox bots run in: the level asked for, the limits, what this machine allows.

Three levels (``--sandbox``, ``sandbox`` in a tournament file):

- ``auto`` (the default) isolates each bot with everything the machine allows and says
  what is missing: with Debian's ``bubblewrap`` (``bwrap``) a bot has no network, its own
  process ids, a read-only view of the system with only its own files and folder, and a
  limited number of processes; without it, only the resource limits below apply.
- ``strict`` refuses to start unless every protection is active.
- ``off`` starts bots as earlier releases did.

The resource limits (``setrlimit`` in the bot's process before it runs: processes, file
size, open files, no core dumps) and the size of the bot's folders, checked after every
move, apply in ``auto`` and ``strict``. :class:`SandboxConfig` is what a user asks;
:func:`plan_sandbox` turns it into a :class:`SandboxPlan`, what will be active on this
machine (``ConfigError`` in ``strict`` when something is missing); the command that
runs one bot is built by :mod:`referee.core.confine`.
"""

from __future__ import annotations

import enum
import functools
import logging
import os
import resource
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from referee.core.errors import ConfigError
from referee.core.seccomp import user_namespace_filter

log = logging.getLogger(__name__)

MB = 1 << 20

__all__ = ["SandboxConfig", "SandboxLevel", "SandboxLimits", "SandboxPlan", "SandboxSupport",
           "plan_sandbox", "sandbox_support"]


class SandboxLevel(enum.Enum):
    """How much isolation to insist on."""

    AUTO = "auto"
    STRICT = "strict"
    OFF = "off"

    @classmethod
    def parse(cls, text: str) -> SandboxLevel:
        """The level named ``text``; ``ConfigError`` lists the names otherwise."""
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise ConfigError(f"unknown sandbox level {text!r}: auto, strict or off") from None


@dataclass(frozen=True)
class SandboxLimits:
    """The resource limits of each bot (sizes in bytes)."""

    processes: int = 64
    """Processes and threads of the bot at once (a fork bomb stops there)."""
    file_size: int = 64 * MB
    """The largest file the bot may write."""
    open_files: int = 1024
    """Files (and pipes, sockets) the bot may have open at once."""
    folder: int = 20 * MB
    """The bot's folders (its working folder, its persistent folder) together, checked
    after every move (over it: the outcome ``folder-limit``, like Gomocup's FLE)."""
    tmp: int = 64 * MB
    """The size of the bot's private ``/tmp`` (isolated bots only)."""
    output: int = 64 * MB
    """What the bot may write on stdout and on stderr, each, in its life; past it the
    bot floods: a protocol error."""

    def __post_init__(self) -> None:
        for name in ("processes", "file_size", "open_files", "folder", "tmp", "output"):
            if getattr(self, name) < 1:
                raise ConfigError(f"sandbox limit {name} must be at least 1")
        if self.processes < 4:
            raise ConfigError("sandbox limit processes must be at least 4")
        if self.open_files < 16:
            raise ConfigError("sandbox limit open_files must be at least 16")


@dataclass(frozen=True)
class SandboxConfig:
    """The sandbox a user asks for."""

    level: SandboxLevel = SandboxLevel.AUTO
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    readable: tuple[Path, ...] = ()
    """More paths every bot may read (the system's, its program's and its arguments'
    files are readable anyway)."""
    hidden: tuple[Path, ...] = ()
    """Folders no bot may see even where a readable path would show them (the output
    folder of the command or tournament; ``$HOME`` is always hidden)."""
    suspend: bool | None = None
    """Stop each bot while it is not its turn; ``None``: the game's default (on for every
    game's matches and tournaments; off where a person drives the program or a relay
    passes its output on)."""

    def suspends(self, game_default: bool) -> bool:
        """Whether bots are suspended off-turn, ``game_default`` unless the user said."""
        return game_default if self.suspend is None else self.suspend

    def with_level(self, level: SandboxLevel) -> SandboxConfig:
        """The same limits at another level."""
        return replace(self, level=level)


OFF = SandboxConfig(SandboxLevel.OFF)
"""No sandbox at all: bots start as in earlier releases."""


@dataclass(frozen=True)
class SandboxSupport:
    """What this machine allows: bubblewrap, and whether it can isolate here."""

    bwrap: str | None
    """The ``bwrap`` program, if installed."""
    version: str
    """``bubblewrap 0.8.0`` (empty if not installed)."""
    usable: bool
    """Whether a trial bot ran isolated."""
    problem: str
    """Why it cannot isolate (empty if it can)."""
    root: bool
    """The referee runs as root: each isolated bot gets a user id of its own."""
    disable_userns: bool = False
    """Whether this bubblewrap can forbid the bot new user namespaces."""


@functools.cache
def sandbox_support() -> SandboxSupport:
    """Probe this machine once: is ``bwrap`` installed, and does an isolated trial run?"""
    root = os.geteuid() == 0
    path = shutil.which("bwrap")
    if path is None:
        return SandboxSupport(None, "", False, "bubblewrap is not installed (Debian and "
                              "Ubuntu: apt install bubblewrap; Fedora: dnf install "
                              "bubblewrap)", root)
    try:
        shown = subprocess.run([path, "--version"], capture_output=True, text=True,
                               timeout=10)
        version = shown.stdout.strip() or "bubblewrap"
        usage = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        return SandboxSupport(path, "", False, f"{path} does not run: {exc}", root)
    found = SandboxSupport(path, version, True, "", root, "--disable-userns" in usage.stdout)
    from referee.core.confine import trial_run  # the trial builds a real bot's command

    problem = trial_run(found)
    if problem:
        return replace(found, usable=False, problem=problem)
    return found


@dataclass(frozen=True)
class SandboxPlan:
    """The sandbox as it will be on this machine: what the user asked, what is active."""

    config: SandboxConfig
    support: SandboxSupport | None = None
    """The machine's support when bots are isolated (``None``: not isolated)."""
    missing: tuple[str, ...] = ()
    """The protections asked for (``auto``) that this machine cannot give."""
    root: bool = False
    """The referee runs as root: each bot runs as a user id of its own (isolated or
    not; ``off``: as root)."""
    filter: bytes | None = None
    """The seccomp filter every bot gets (no new user namespaces), if this machine
    takes it (:mod:`referee.core.seccomp`)."""

    @property
    def level(self) -> SandboxLevel:
        """The level asked for."""
        return self.config.level

    @property
    def limits(self) -> SandboxLimits | None:
        """The resource limits, ``None`` when the sandbox is off; no more than the
        referee's own hard limits (a bot may not get more than its parent has, e.g. under
        ``ulimit -f``), so the ``describe`` line says what bots really get."""
        if self.config.level is SandboxLevel.OFF:
            return None
        return under_hard_limits(self.config.limits)

    @property
    def isolated(self) -> bool:
        """Whether bots run in bubblewrap (own namespaces, private filesystem)."""
        return self.support is not None

    def protections(self, suspend: bool) -> list[str]:
        """The protections active for a game, in words."""
        limits = self.limits
        if limits is None:
            return [*(["as root"] if self.root else []),
                    *(["suspended off-turn"] if suspend else [])]
        active = []
        if self.isolated:
            active += ["network off", "private filesystem", "pid namespace"]
        if self.filter is not None:
            active.append("no user namespaces")
        if self.root:
            active.append("own user id")
        if self.isolated:
            active.append(f"{limits.processes} processes")
        active += [f"{_size(limits.file_size)} files", f"{limits.open_files} open files",
                   f"{_size(limits.folder)} folder", "no core dumps"]
        if suspend:
            active.append("suspended off-turn")
        return active

    def describe(self, suspend: bool) -> str:
        """One line for match headers, records and the results site: ``sandbox:
        bubblewrap 0.8.0 — network off, private filesystem, ...``."""
        if self.limits is None:
            said = self.protections(suspend)
            return "sandbox: off" + (f" — {', '.join(said)}" if said else "")
        tool = self.support.version if self.support is not None else "limits only"
        text = f"sandbox: {tool} — {', '.join(self.protections(suspend))}"
        if self.missing:
            text += f"; missing: {', '.join(self.missing)}"
        return text


ISOLATION = ("network off", "private filesystem", "pid namespace", "process limit")
"""What only bubblewrap gives (named in ``missing`` and in ``strict``'s refusal)."""


@functools.cache
def _warn_once(problem: str) -> None:
    log.warning("sandbox: %s; bots run with resource limits only (missing: %s); "
                "--sandbox strict refuses to run without them", problem, ", ".join(ISOLATION))


def plan_sandbox(config: SandboxConfig, support: SandboxSupport | None = None) -> SandboxPlan:
    """What ``config`` gives on this machine (``support``: probed if not given).

    ``auto`` without bubblewrap logs one warning naming what is missing; ``strict``
    raises ``ConfigError`` naming it instead.
    """
    if config.level is SandboxLevel.OFF:
        return SandboxPlan(config, root=os.geteuid() == 0)
    found = support if support is not None else sandbox_support()
    if found.usable:
        return SandboxPlan(config, found, root=found.root, filter=user_namespace_filter())
    if config.level is SandboxLevel.STRICT:
        raise ConfigError(f"--sandbox strict: {found.problem}; it is needed for "
                          f"{', '.join(ISOLATION)} (--sandbox auto runs without them)")
    _warn_once(found.problem)
    return SandboxPlan(config, None, ISOLATION, root=found.root, filter=_launcher_filter())


@functools.cache
def _launcher_filter() -> bytes | None:
    """The seccomp filter, if the launcher can load it here without bubblewrap (tried
    once: a kernel without seccomp would refuse it, and every bot with it)."""
    found = user_namespace_filter()
    if found is None:
        return None
    from referee.core.confine import filter_trial  # the trial runs the real launcher

    return found if filter_trial(found) else None


def under_hard_limits(limits: SandboxLimits) -> SandboxLimits:
    """``limits`` lowered to this process's hard limits where those are lower."""
    lowered = {}
    for name, which in (("file_size", resource.RLIMIT_FSIZE),
                        ("open_files", resource.RLIMIT_NOFILE),
                        ("processes", resource.RLIMIT_NPROC)):
        hard = resource.getrlimit(which)[1]
        if hard != resource.RLIM_INFINITY and getattr(limits, name) > hard:
            lowered[name] = hard
    return replace(limits, **lowered) if lowered else limits


def _size(size: int) -> str:
    """``64 MB``, ``512 KB``, ``1.5 GB``."""
    for unit, name in ((1 << 30, "GB"), (MB, "MB"), (1 << 10, "KB")):
        if size >= unit:
            return f"{size / unit:.3g} {name}"
    return f"{size} B"


def check_readable(paths: Sequence[Path]) -> tuple[Path, ...]:
    """``paths`` made absolute; ``ConfigError`` names one that does not exist."""
    found = []
    for path in paths:
        absolute = Path(os.path.abspath(path))
        if not absolute.exists():
            raise ConfigError(f"sandbox: readable path {path} does not exist")
        found.append(absolute)
    return tuple(found)
