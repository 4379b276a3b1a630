"""Checking recorded games: one verdict per file for every game's ``referee replay`` (OK
with a summary, or FAIL with the first thing that is wrong), and the replay of a record's
moves through its game's engine (any engine of ``core.match.Engine``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.core.errors import ConfigError, RefereeError
from referee.core.match import Engine
from referee.core.outcome import Outcome
from referee.core.record import GameRecord

__all__ = ["FileCheck", "check_files", "record_checker", "record_seed", "replay_record"]


@dataclass(frozen=True)
class FileCheck:
    """The verdict on one file: its path, the format read, whether it checked out, and a
    summary (OK) or the reason (FAIL)."""

    path: str
    ok: bool
    text: str
    format: str = ""

    def line(self) -> str:
        """``OK <path> (<format>): <summary>`` or ``FAIL <path>: <reason>``."""
        if not self.ok:
            return f"FAIL {self.path}: {self.text}"
        return f"OK {self.path}{f' ({self.format})' if self.format else ''}: {self.text}"


def check_files(paths: Iterable[str | Path],
                check: Callable[[Path], tuple[str, str]]) -> list[FileCheck]:
    """``check`` each file (it returns the format and a summary, or raises ``ValueError``,
    ``OSError`` or a ``RefereeError`` saying what is wrong); one verdict per file."""
    verdicts = []
    for path in paths:
        try:
            fmt, summary = check(Path(path))
        except (ValueError, OSError, RefereeError) as exc:
            verdicts.append(FileCheck(str(path), False, str(exc)))
        else:
            verdicts.append(FileCheck(str(path), True, summary, fmt))
    return verdicts


def replay_record(engine: Engine, record: GameRecord, parse: Callable[[str], Any]) -> str:
    """Replay ``record``'s moves through ``engine`` (made from the record's settings and
    seed) and check them: every move by the seat to play, legal; a move recorded as
    illegal illegal, and the last one (unless a replacement took the seat over there: a
    fault of ``record.faults``); the result the engine's (or, after a fault, the
    offender's loss). ``parse`` turns a recorded move into the engine's action (a
    ``ValueError`` if it cannot). Returns a summary; raises ``ValueError`` naming the first
    move, or the result, the engine disagrees with."""
    if record.outcome is None or record.scores is None:
        raise ValueError("the game has no result")
    illegal_at = None
    survived = {(f.seat, f.ply) for f in record.faults}  # a replacement took the seat over
    for k, move in enumerate(record.moves, start=1):
        if illegal_at is not None:
            raise ValueError(f"move {k} follows the illegal move {illegal_at}")
        seat = engine.to_play()
        if seat is None:
            raise ValueError(f"move {k} ({move.move}) comes after the end of the game")
        if move.seat != seat:
            raise ValueError(f"move {k} ({move.move}) is seat {move.seat}'s, but seat "
                             f"{seat} was to play")
        try:
            action = parse(move.move)
        except ValueError as exc:
            raise ValueError(f"move {k}: {exc}") from None
        why = engine.illegal_reason(seat, action)
        if move.info.get("illegal"):
            if why is None:
                raise ValueError(f"move {k} ({move.move}) is recorded as illegal, but is legal")
            if (seat, k) not in survived:
                illegal_at = k
            continue
        if why is not None:
            raise ValueError(f"move {k} ({move.move}) is illegal: {why}")
        engine.apply(seat, action)
    return _check_result(record, engine, illegal_at)


def _check_result(record: GameRecord, engine: Engine, illegal_at: int | None) -> str:
    moves = len(record.moves)
    scores = [float(s) for s in record.scores or ()]
    outcome = record.outcome
    assert outcome is not None  # checked by replay_record
    over = engine.to_play() is None
    if outcome is Outcome.NORMAL:
        if not over:
            raise ValueError(f"the record ends normally after {moves} moves, but the game "
                             "is not over")
        if scores != engine.scores():
            raise ValueError(f"the recorded scores {scores} are not the engine's "
                             f"{engine.scores()} ({engine.end_reason()})")
        return f"{moves} moves, {engine.end_reason()}"
    offender = record.offender
    if over:
        raise ValueError(f"the game was over ({engine.end_reason()}), but the record ends "
                         f"with {outcome.value}")
    if offender is None or scores != engine.forfeit_scores(offender):
        raise ValueError(f"a {outcome.value} without the offender's loss")
    if outcome is Outcome.ILLEGAL_MOVE and illegal_at is None:
        raise ValueError("lost by an illegal move, but no move is recorded as illegal")
    return f"{moves} moves, seat {offender} lost by {outcome.value}"


def record_checker(check: Callable[[GameRecord], str]) -> Callable[[Path], tuple[str, str]]:
    """A file check (for ``check_files``) that reads a record file and ``check``s it."""

    def check_file(path: Path) -> tuple[str, str]:
        try:
            record = GameRecord.read(path)
        except ConfigError as exc:
            raise ValueError(str(exc).removeprefix(f"{path}: ")) from None
        return "record", check(record)

    return check_file


def record_seed(record: GameRecord) -> int:
    """The record's seed, which makes its walls or deals again; ``ValueError`` if it has
    none that is a number."""
    seed = record.seed
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"{record.game} record: bad seed {seed!r}")
    return seed
