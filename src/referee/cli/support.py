"""What every command shares: one clear line for an error, the default output folder,
the players named on a command line, seeds, SIGTERM taken as Ctrl-C, and the ``--json``
summary on standard output."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import errno
import logging
import signal
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from referee.core import interrupts
from referee.core.errors import ConfigError, RefereeError
from referee.core.open_files import SHORT_OF

if TYPE_CHECKING:  # imported where used: ``referee ratings`` needs none of them
    from rich.console import Console

    from referee.core.checking import FileCheck
    from referee.core.players import PlayerSpec
    from referee.core.record import GameRecord
    from referee.core.sandbox import SandboxConfig

__all__ = [
    "LogLines",
    "configure_logging",
    "confine",
    "default_out",
    "emit_json",
    "fail",
    "finish_match",
    "human_console",
    "match_summary",
    "note",
    "os_error_text",
    "output_folder",
    "play_games",
    "report_checks",
    "runnable_players",
    "seed_or_random",
    "sigterm_interrupts",
    "warn",
]


def fail(exc: BaseException, interrupted: str = "") -> NoReturn:
    """End a command on an exception: a ``RefereeError`` is one clear line and exit
    status 2, Ctrl-C (or SIGTERM) exit status 130; anything else goes on up."""
    if isinstance(exc, RefereeError):
        click.echo(f"referee: error: {exc}", err=True)
        sys.exit(2)
    if isinstance(exc, RuntimeError) and str(exc).startswith("can't start new thread"):
        exc = OSError(errno.EAGAIN, f"the referee cannot start a thread ({exc})")
    if isinstance(exc, OSError):  # the disk, a folder, a file: one line naming it
        click.echo(f"referee: error: {os_error_text(exc)}", err=True)
        sys.exit(2)
    sqlite3 = sys.modules.get("sqlite3")  # an error of it only once it is imported
    if sqlite3 is not None and isinstance(exc, sqlite3.Error):  # the store (the disk)
        from referee.tournament.store import store_error_text

        click.echo(f"referee: error: {store_error_text(exc)}", err=True)
        sys.exit(2)
    if isinstance(exc, KeyboardInterrupt):
        click.echo("referee: interrupted" + (f"; {interrupted}" if interrupted else ""),
                   err=True)
        sys.exit(130)
    raise exc


def os_error_text(exc: OSError) -> str:
    """What failed and what to do, for an I/O error (``PATH: reason; hint``; the hint
    names the command's output option, ``--out`` or ``-o``, if it has one)."""
    where = f"{exc.filename}: " if exc.filename else ""
    text = f"{where}{exc.strerror or exc}"
    option = _output_option()
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return text + "; free some space" + (
            f", or choose another folder with {option}" if option else "")
    if exc.errno == errno.EFBIG:
        return text + "; the file size limit (ulimit -f) is too small for the output"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return text + ("; choose a folder you may write with " + option if option else
                       "; check that this user may read and write it")
    if exc.errno in SHORT_OF:
        return text + ("; the referee's machine is short of open files, processes, "
                       "threads or memory for the games at once: raise its limits (ulimit "
                       "-n, ulimit -u) or lower the concurrency, then run the same command "
                       "again (a tournament plays the unfinished games again)")
    return text


def _output_option() -> str:
    """The output option of the command being run (``--out``, else ``-o``), or ""."""
    context = click.get_current_context(silent=True)
    options = [name for param in (context.command.params if context else ())
               if isinstance(param, click.Option) for name in param.opts]
    return next((name for name in ("--out", "-o") if name in options), "")


def warn(text: str) -> None:
    """One line on standard error, as ``referee: warning: ...``."""
    click.echo(f"referee: warning: {text}", err=True)


def note(text: str) -> None:
    """One line on standard error saying what the referee is doing, ``referee: ...``."""
    click.echo(f"referee: {text}", err=True)


class LogLines(logging.Formatter):
    """The referee's log records in the words of its other lines: a warning as
    ``referee: warning: ...`` (as :func:`warn` writes one), an error as ``referee: error:
    ...``, an exception's traceback only with ``-vv``; what ``-v`` and ``-vv`` add (info,
    debug) with its level and the logger's name, for whoever reads the code."""

    def __init__(self, verbose: int = 0) -> None:
        """Lines for a command run with ``verbose`` times ``-v``."""
        super().__init__()
        self.verbose = verbose

    def format(self, record: logging.LogRecord) -> str:
        """One line (more with a traceback at ``-vv``)."""
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            if self.verbose >= 2:
                text += "\n" + self.formatException(record.exc_info)
            else:
                text += f": {record.exc_info[1]}"
        if record.levelno >= logging.ERROR:
            return f"referee: error: {text}"
        if record.levelno >= logging.WARNING:
            return f"referee: warning: {text}"
        return f"{record.levelname} {record.name}: {text}"


def configure_logging(verbose: int) -> None:
    """Log to standard error as :class:`LogLines` writes, warnings and up (``-v``: info,
    ``-vv``: debug)."""
    handler = logging.StreamHandler()
    handler.setFormatter(LogLines(verbose))
    logging.basicConfig(level=logging.WARNING - 10 * min(verbose, 2), handlers=[handler])


def default_out(kind: str) -> Path:
    """``referee-out/<kind>-<date>-<time>-<suffix>`` (the default output folder of a
    command; the short random suffix keeps two commands started in the same second
    apart)."""
    import secrets

    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path("referee-out") / f"{kind}-{stamp}-{secrets.token_hex(2)}"


def runnable_players(texts: Sequence[str], builtins: Mapping[str, str]) -> list[PlayerSpec]:
    """The players named on the command line, each checked to be a program that can run."""
    from referee.core.players import check_runnable, resolve_players

    specs = resolve_players(texts, builtins)
    for spec in specs:
        check_runnable(spec)
    return specs


def seed_or_random(seed: int | None) -> int:
    """The seed given, or a fresh random one (the command records whichever it plays)."""
    import random

    return seed if seed is not None else random.SystemRandom().randrange(2**31)


def _interrupt(signum: int, frame: object) -> None:
    interrupts.note()  # (kept: a raise that lands in a finalizer is lost)
    raise KeyboardInterrupt


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Within the block SIGTERM ends the command as Ctrl-C does (``KeyboardInterrupt``:
    bots killed, finished work kept, temporary files removed); either one is also kept in
    ``core.interrupts``, for the loops that would miss a raise lost in a finalizer (Ctrl-C
    only where it interrupts at all: a command started with it ignored keeps it so)."""
    previous = signal.signal(signal.SIGTERM, _interrupt)
    ctrl_c = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if ctrl_c:
        signal.signal(signal.SIGINT, _interrupt)
    hook = sys.unraisablehook

    def kept_quietly(unraisable: Any) -> None:
        # the lost raise of an interrupt kept: not Python's "Exception ignored" traceback
        if unraisable.exc_type is not KeyboardInterrupt or not interrupts.asked():
            hook(unraisable)

    sys.unraisablehook = kept_quietly
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        if ctrl_c:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.unraisablehook = hook
        interrupts.clear()


def human_console(json_mode: bool) -> Console:
    """Where a command writes for people: standard output, or standard error when the
    ``--json`` summary takes standard output."""
    from referee.output import make_console

    return make_console(stderr=json_mode)


def emit_json(data: Mapping[str, Any]) -> None:
    """The ``--json`` summary: one JSON object, one line, on standard output."""
    import json

    click.echo(json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str))


def match_summary(game: str, out: Path, seed: int, players: Sequence[PlayerSpec],
                  records: Sequence[GameRecord], points_game: bool) -> dict[str, Any]:
    """The ``--json`` summary of a match: its games and each player's standing."""
    from referee.core.standings import Standing, count_game

    lines = {p.name: Standing(p.name) for p in players}
    games = []
    for record in records:
        outcome = record.outcome.value if record.outcome else None
        faults = [(f.seat, f.outcome) for f in record.faults]
        if record.scores:
            count_game(lines, [p.name for p in record.players], record.scores,
                       record.offender, outcome, points_game, faults)
        games.append({"index": record.index, "players": [p.name for p in record.players],
                      "scores": record.scores, "result": record.result_text(),
                      "outcome": outcome, "reason": record.reason,
                      "offender": record.offender, "moves": len(record.moves),
                      "faults": [{"seat": f.seat, "outcome": f.outcome, "reason": f.reason}
                                 for f in record.faults]})
    return {"game": game, "out": str(out), "seed": seed,
            "players": [p.name for p in players], "games": games,
            "standings": [{"player": s.name, "points": s.points, "games": s.games,
                           "won": s.wins, "drawn": s.draws, "lost": s.losses,
                           "faults": s.faults} for s in lines.values()]}


def report_checks(verdicts: Sequence[FileCheck], json_mode: bool) -> None:
    """What ``referee replay`` prints: one line per file (on stderr with ``--json``, whose
    summary lists them), then exit status 1 if a file failed."""
    for verdict in verdicts:
        click.echo(verdict.line(), err=json_mode)
    if json_mode:
        emit_json({"ok": all(v.ok for v in verdicts),
                   "files": [{"file": v.path, "ok": v.ok, "format": v.format,
                              ("summary" if v.ok else "error"): v.text} for v in verdicts]})
    if not all(v.ok for v in verdicts):
        raise SystemExit(1)


RECORD_ENTRIES = ("game-*", "logs")
"""What a match leaves in its output folder as its results (records, the programs' logs):
``--overwrite`` removes these, and only these, before the match starts. The programs'
work folders (``work``) are kept: they are the programs' own files, as a brain's folder
is between Gomocup matches."""


def output_folder(out_dir: Path | None, kind: str, *, fresh: bool = True,
                  overwrite: bool = False) -> Path:
    """The output folder of a command, resolved: ``--out``, else :func:`default_out` of
    ``kind``. A ``fresh`` one (a match's records) must be new or empty, so that old and
    new games never mix; ``overwrite`` first removes the records of an earlier match
    (``RECORD_ENTRIES``) and keeps any other file. ``ConfigError`` says what is wrong."""
    if out_dir is None:
        return default_out(kind).resolve()
    try:
        out = out_dir.resolve()
        entries = sorted(out.iterdir()) if out.is_dir() else []
    except (OSError, RuntimeError) as exc:  # RuntimeError: a loop of symbolic links
        reason = exc.strerror if isinstance(exc, OSError) else "a loop of symbolic links"
        raise ConfigError(f"--out {out_dir}: {reason or exc}; choose another folder") from None
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out_dir}: not a folder; choose another folder")
    if not entries or not fresh:
        return out
    if not overwrite:
        raise ConfigError(
            f"--out {out_dir}: the folder is not empty (it holds {entries[0].name}"
            f"{f' and {len(entries) - 1} more' if len(entries) > 1 else ''}); choose a new "
            "or empty folder, or add --overwrite to replace the records of an earlier match")
    import shutil

    for entry in entries:
        if any(entry.match(pattern) for pattern in RECORD_ENTRIES):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    return out


def confine(config: SandboxConfig, out_dir: Path | None, kind: str,
            suspend_default: bool, *, fresh: bool = True,
            overwrite: bool = False) -> tuple[Path, SandboxConfig, str]:
    """The output folder of a command that runs programs (:func:`output_folder`), their
    sandbox with that folder hidden from them, and the line that says which protections
    are active (``sandbox: ...``). Planned at once, so that ``--sandbox strict`` on a
    machine without isolation stops the command before any program starts
    (``ConfigError``)."""
    from referee.core.sandbox import plan_sandbox

    out = output_folder(out_dir, kind, fresh=fresh, overwrite=overwrite)
    config = dataclasses.replace(config, hidden=(*config.hidden, out))
    return out, config, plan_sandbox(config).describe(config.suspends(suspend_default))


def play_games(console: Console, title: str, players: Sequence[PlayerSpec], seed: int,
               total: int, play: Callable[[Callable[[GameRecord], None]], list[GameRecord]],
               sandbox: str = "") -> list[GameRecord]:
    """Say what is played (``title: players, seed N``, then the ``sandbox`` line), then
    run ``play`` (given what to call after each game) with a line per finished game and,
    on a terminal, a progress bar of ``total`` games."""
    from referee.output import GameProgress

    console.print(f"{title}: {', '.join(p.name for p in players)}, seed {seed}", markup=False)
    if sandbox:
        console.print(sandbox, markup=False)
    with GameProgress(console, total) as progress:
        return play(progress.game_done)


def finish_match(console: Console, game: str, out: Path, seed: int,
                 players: Sequence[PlayerSpec], records: Sequence[GameRecord],
                 points_game: bool, json_mode: bool, note_kinds: Sequence[str] = ()) -> None:
    """The end of every ``referee match``: the results table, each game's notes of
    ``note_kinds`` (takeovers, failures...), where the records are, and with ``--json``
    the summary on standard output."""
    from referee.core.standings import Units, standings_legend
    from referee.games.registry import game_adapter
    from referee.output import results_table

    adapter = game_adapter(game)
    unit = adapter.points_unit if adapter is not None else Units().points_unit
    console.print(results_table(players, records, points_game))
    console.print(standings_legend(Units(max((len(r.players) for r in records), default=2),
                                         unit, points_game)), markup=False)
    for record in records:
        for note in record.notes:
            if note.kind in note_kinds:
                console.print(f"game {record.index}, seat {note.seat + 1} "
                              f"({record.players[note.seat].name}): {note.text}",
                              markup=False)
    console.print(f"Records: {out}", markup=False)
    if json_mode:
        emit_json(match_summary(game, out, seed, players, records, points_game))
