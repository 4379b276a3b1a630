"""The options every game's commands share, so that one idea has one name, one unit, one
way of writing its default and one help text everywhere.

| idea | option | unit |
|---|---|---|
| where records and logs go | ``--out DIR`` | a folder |
| what decides the game | ``--seed N`` | an integer |
| time for one answer | ``--move-time DURATION`` | ``5s``, ``500ms``, ``1.5s``, ``2m`` |
| time for a whole game | ``--game-time DURATION`` | the same; ``0``: no limit |
| grace past a limit | ``--tolerance DURATION`` | the same |
| time to start a program | ``--startup DURATION`` | the same |
| memory of a program's process tree | ``--memory SIZE`` | ``400M``, ``1G``; bare: MB; ``0``: none |
| work done at once | ``-j, --jobs N`` | processes, games or CPUs |
| a summary for programs | ``--json`` | one JSON object on standard output |
| how programs are confined | ``--sandbox LEVEL`` and the ``--max-*`` limits | see docs/sandbox.md |

Durations need their unit (``5`` alone could be seconds or milliseconds). Spellings of
earlier releases (``--timeout-turn`` in milliseconds, ``--decision-time`` in seconds, a
``--tolerance`` without a unit...) still work for one release, hidden from ``--help``, each
with a warning that names the new spelling (``renamed``, ``Duration(legacy=...)``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from referee.cli.support import warn
from referee.core.errors import ConfigError
from referee.core.text import (
    DURATION_UNITS,
    SizeTooLarge,
    got,
    parse_duration,
    parse_size,
    range_text,
    size_has_unit,
    size_text,
)

__all__ = ["MAX_GAMES", "MAX_JOBS", "MAX_PROCESSES", "Duration", "Number", "Size", "Whole",
           "game_time_option", "jobs_option", "json_option",
           "memory_option", "move_time_option", "out_option", "output_file_option",
           "policy_options", "records_out_options", "renamed",
           "sandbox_options", "seed_option", "startup_option", "tolerance_option"]

MAX_GAMES = 100_000_000
"""The most games one command plays (a match, a self-play run): more is a slip of the
keyboard, refused as the option's range."""
MAX_JOBS = 1024
"""The most done at once (``-j``, workers), as a tournament file's ``concurrency``."""
MAX_PROCESSES = 4_194_304
"""Linux's largest process id (``PID_MAX_LIMIT``): no program can have more processes."""

F = TypeVar("F", bound=Callable[..., Any])



class Duration(click.ParamType[float, object]):
    """A duration with its unit (``5s``, ``500ms``, ``1.5s``, ``2m``, ``1h``), in seconds;
    ``0`` alone is zero. ``legacy`` is the unit a bare number had in earlier releases
    (``ms`` or ``s``): such a number is still read so, with a warning; without it a bare
    number is refused. ``positive``: zero is refused too."""

    name = "DURATION"

    def __init__(self, legacy: str | None = None, positive: bool = False) -> None:
        self.legacy = legacy
        self.positive = positive

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        """Seconds, or a usage error naming the option."""
        if isinstance(value, float):
            return value
        text = str(value)
        try:
            number, unit = parse_duration(text)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
        if not math.isfinite(number):
            self.fail(f"{text!r} is not a finite duration", param, ctx)
        if unit is None and number != 0:
            name = param.opts[0] if param is not None and param.opts else "the duration"
            if self.legacy is None:
                self.fail(f"{text!r} needs its unit: {text}s or {text}ms", param, ctx)
            warn(f"{name} {text} without a unit is read as {text} {self.legacy}, as earlier "
                 f"releases did; write {text}{self.legacy} (a bare number will be refused)")
            unit = self.legacy
        if self.positive and number == 0:
            self.fail(f"must be more than 0{got(text)}", param, ctx)
        return number * DURATION_UNITS[unit or "s"]


class Size(click.ParamType[int, object]):
    """A size in bytes written ``400M``, ``1G``, ``512K`` (units of 1024) or ``4096B``; a
    bare number is megabytes (``legacy``: bytes, as the option took earlier, read so with
    a warning); at least ``minimum`` bytes, unless it is 0 and ``zero`` is allowed (no
    limit)."""

    name = "SIZE"

    def __init__(self, minimum: int = 0, zero: bool = True, legacy_bytes: bool = False) -> None:
        self.minimum = minimum
        self.zero = zero
        self.legacy_bytes = legacy_bytes

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> int:
        """Bytes, or a usage error naming the option."""
        if isinstance(value, int):
            return value
        text = str(value)
        bare = not size_has_unit(text)
        try:
            size = parse_size(text, 1 if self.legacy_bytes else 1 << 20)
        except SizeTooLarge as exc:
            self.fail(str(exc), param, ctx)
        except ValueError:
            self.fail(f"{text!r} is not a size such as 400M, 1G or 512K", param, ctx)
        if size == 0 and self.zero:
            return 0
        if bare and self.legacy_bytes:
            name = param.opts[0] if param is not None and param.opts else "the size"
            warn(f"{name} {text} without a unit is read as {text} bytes, as earlier releases "
                 f"did; write {text}B (a bare number will be megabytes)")
        if size < max(1, self.minimum):
            smallest = f"at least {size_text(self.minimum)}" if self.minimum else "more than 0"
            self.fail(f"{text!r} is too small ({smallest})", param, ctx)
        return size


class Whole(click.ParamType[int, object]):
    """A whole number within ``minimum`` and ``maximum`` (each optional), refused in the
    words a tournament file's keys use ("must be at least 1, got 0")."""

    name = "INTEGER"

    def __init__(self, minimum: int | None = None, maximum: int | None = None) -> None:
        self.minimum = minimum
        self.maximum = maximum

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> int:
        """The number, or a usage error naming the option."""
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        else:
            try:
                number = int(str(value).strip())
            except ValueError:
                self.fail(f"must be a whole number{got(value)}", param, ctx)
        if self.minimum is not None and number < self.minimum:
            self.fail(f"must be {range_text(ge=self.minimum)}{got(value)}", param, ctx)
        if self.maximum is not None and number > self.maximum:
            self.fail(f"must be {range_text(le=self.maximum)}{got(value)}", param, ctx)
        return number

    def get_metavar(self, param: click.Parameter, ctx: click.Context) -> str:
        """``INTEGER RANGE`` as click shows one, e.g. ``INTEGER RANGE [1<=x<=4]``."""
        if self.minimum is None and self.maximum is None:
            return "INTEGER"
        low = f"{self.minimum}<=" if self.minimum is not None else ""
        high = f"<={self.maximum}" if self.maximum is not None else ""
        return f"INTEGER RANGE [{low}x{high}]"


class Number(click.ParamType[float, object]):
    """A finite number (``nan`` and ``inf`` are refused), more than ``above`` if given."""

    name = "NUMBER"

    def __init__(self, above: float | None = None) -> None:
        self.above = above

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> float:
        """The number, or a usage error naming the option."""
        if isinstance(value, float) and math.isfinite(value):
            number = value
        else:
            try:
                number = float(str(value))
            except ValueError:
                self.fail(f"must be a number{got(value)}", param, ctx)
            if not math.isfinite(number):
                self.fail(f"must be a finite number{got(value)}", param, ctx)
        if self.above is not None and number <= self.above:
            self.fail(f"must be {range_text(gt=self.above)}{got(value)}", param, ctx)
        return number


def renamed(old: str, target: str, new: str, *, type: Any = str,
            convert: Callable[[Any], Any] = lambda v: v) -> Callable[[F], F]:
    """An option of earlier releases kept for one release, hidden: ``old`` (with its own
    ``type``) fills parameter ``target`` (shown as ``new``) through ``convert``, with a
    warning; giving both is a usage error. Put it below the command's other options."""
    dest = "renamed_" + old.lstrip("-").replace("-", "_")

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            value = kwargs.pop(dest, None)
            if value is not None:
                ctx = click.get_current_context()
                if ctx.get_parameter_source(target) is ParameterSource.COMMANDLINE:
                    raise click.UsageError(f"give {new} or {old} (its old spelling), "
                                           "not both")
                kwargs[target] = convert(value)
                warn(f"{old} is deprecated and will be removed: use {new}")
            return command(*args, **kwargs)

        return click.option(old, dest, type=type, hidden=True)(wrapper)  # type: ignore[return-value]

    return decorate


def out_option(what: str, default: str) -> Callable[[F], F]:
    """``--out DIR``: the output folder of ``what`` (logs, a work folder...)."""
    return click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
                        help=f"Output folder for {what} [default: {default}].")


def records_out_options(what: str, default: str) -> Callable[[F], F]:
    """``--out DIR`` for game records, which must be a new or empty folder, and
    ``--overwrite``, which first removes an earlier match's records from it."""
    def decorate(command: F) -> F:
        command = click.option(
            "--overwrite", is_flag=True,
            help="Let --out name a folder that holds an earlier match: its records and "
                 "logs (game-*, logs) are removed first.")(command)
        return click.option(
            "--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
            help=f"Output folder for {what}, new or empty [default: {default}].")(command)
    return decorate


def output_file_option(what: str) -> Callable[[F], F]:
    """``-o, --output FILE``: a data file written whole, compressed as its name says."""
    return click.option("-o", "--output", required=True,
                        type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
                        help=f"The {what} file: gzip if it ends in .gz, bz2 if .bz2, "
                             "- for stdout.")


def seed_option(what: str) -> Callable[[F], F]:
    """``--seed N``: the seed of ``what``, random (and recorded) by default."""
    return click.option("--seed", type=Whole(0),
                        help=f"Seed of {what} (default: random, recorded).")


def move_time_option(default: str, what: str = "each answer", legacy: str | None = None,
                     positive: bool = True) -> Callable[[F], F]:
    """``--move-time DURATION``: the time a program has for one answer (more than 0
    unless not ``positive``)."""
    return click.option("--move-time", type=Duration(legacy, positive), default=default,
                        show_default=True,
                        help=f"Time a program has for {what} (5s, 500ms...).")


def game_time_option(default: str, what: str) -> Callable[[F], F]:
    """``--game-time DURATION``: the time a program has for a whole game (0: no limit)."""
    return click.option("--game-time", type=Duration(), default=default, show_default=True,
                        help=f"Time a program has for {what}, 0 = no limit.")


def tolerance_option(default: str = "500ms", legacy: str | None = None) -> Callable[[F], F]:
    """``--tolerance DURATION``: the grace past a limit before a program is forfeited."""
    return click.option("--tolerance", type=Duration(legacy), default=default,
                        show_default=True,
                        help="Grace past a time limit before a program is forfeited.")


def startup_option(default: str = "30s", what: str = "start",
                   legacy: str | None = None) -> Callable[[F], F]:
    """``--startup DURATION``: the time a program has to start and get ready."""
    return click.option("--startup", type=Duration(legacy), default=default,
                        show_default=True,
                        help=f"Time a program has to {what}.")


def memory_option(default: str) -> Callable[[F], F]:
    """``--memory SIZE``: the memory limit of each program's whole process tree."""
    return click.option("--memory", type=Size(minimum=1 << 20), default=default,
                        show_default=True,
                        help="Memory limit of each program's whole process tree "
                             "(400M, 1G; a bare number is MB; at least 1M), 0 = no limit.")


def jobs_option(what: str, default: int | None = 1) -> Callable[[F], F]:
    """``-j, --jobs N``: how much is done at once."""
    return click.option("-j", "--jobs", type=Whole(1, MAX_JOBS), default=default,
                        show_default=default is not None, help=what)


def json_option(command: F) -> F:
    """``--json``: a machine-readable summary on standard output (the rest on stderr)."""
    return click.option("--json", "json_mode", is_flag=True,
                        help="Print a machine-readable summary (one JSON object) on "
                             "standard output; what people read goes to stderr.")(command)


_SANDBOX_KEYS = ("sandbox_level", "max_processes", "max_file_size", "max_folder",
                 "sandbox_read", "suspend")


def sandbox_options(suspend_default: str | None) -> Callable[[F], F]:
    """The sandbox of the programs a command starts (docs/sandbox.md), given to the
    command as one parameter ``sandbox`` (a ``SandboxConfig``): ``--sandbox
    auto|strict|off``, ``--max-processes N``, ``--max-file-size SIZE``, ``--max-folder
    SIZE``, ``--sandbox-read PATH`` (repeatable) and ``--suspend/--no-suspend``
    (``suspend_default`` says the game's default in the help; ``None``: no such option,
    as where a person drives the program)."""
    from referee.core.sandbox import SandboxConfig, SandboxLevel, SandboxLimits, check_readable

    defaults = SandboxLimits()

    def decorate(command: F) -> F:
        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            values = {key: kwargs.pop(key, None) for key in _SANDBOX_KEYS}
            try:
                kwargs["sandbox"] = SandboxConfig(
                    level=SandboxLevel.parse(values["sandbox_level"]),
                    limits=SandboxLimits(processes=values["max_processes"],
                                         file_size=values["max_file_size"],
                                         folder=values["max_folder"]),
                    readable=check_readable([Path(p) for p in values["sandbox_read"]]),
                    suspend=values["suspend"])
            except ConfigError as exc:
                raise click.UsageError(str(exc)) from None
            return command(*args, **kwargs)

        options = [
            click.option("--sandbox", "sandbox_level",
                         type=click.Choice(["auto", "strict", "off"]), default="auto",
                         show_default=True,
                         help="Confine the programs: auto = every protection this machine "
                              "allows (says what is missing), strict = refuse to start "
                              "without all of them, off = none (docs/sandbox.md)."),
            click.option("--max-processes", type=Whole(4, MAX_PROCESSES),
                         default=defaults.processes, show_default=True,
                         help="Processes and threads each program may have at once."),
            click.option("--max-file-size", type=Size(minimum=1024, zero=False),
                         default="64M", show_default=True,
                         help="The largest file a program may write."),
            click.option("--max-folder", type=Size(minimum=1024, zero=False),
                         default="20M", show_default=True,
                         help="What a program's folders may hold, checked after each move "
                              "(over it: it loses by folder-limit)."),
            click.option("--sandbox-read", type=click.Path(path_type=Path), multiple=True,
                         metavar="PATH",
                         help="A file or folder every program may read besides its own "
                              "(repeatable)."),
        ]
        if suspend_default is not None:
            options.append(click.option(
                "--suspend/--no-suspend", default=None,
                help="Stop each program while it is not its turn (fair time) "
                     f"[default: {suspend_default}]."))
        decorated: Any = wrapper
        for option in reversed(options):
            decorated = option(decorated)
        return decorated  # type: ignore[no-any-return]

    return decorate


def policy_options(command: F) -> F:
    """``--policy module:callable`` (required), ``--path DIR`` (repeatable) and ``--name``:
    the Python policy a ``referee bot`` command runs, where its module is found, and the
    player's name."""
    command = click.option(
        "--name", metavar="NAME",
        help="The player's name: in a match's records and standings (a match reads it from "
             "this command line) and where the game's protocol asks a program its name "
             "(Gomoku's ABOUT, Planowanie's name) [default: the policy, "
             "MODULE:CALLABLE].")(command)
    command = click.option(
        "--path", "paths", multiple=True,
        type=click.Path(exists=True, file_okay=False, resolve_path=True, path_type=Path),
        help="A folder to import the policy's module from (repeatable; the bot runs in a "
             "working folder of its own: in a referee's match or tournament, a relative "
             "folder is taken from where that was started).")(command)
    return click.option(
        "--policy", required=True, metavar="MODULE:CALLABLE",
        help="The policy: a callable taking the environment's observation (a dict of "
             "observation and action_mask) and returning an action number.")(command)
