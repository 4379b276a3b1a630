"""What ``referee replay GAME`` checks: what the commands that read games take
(``dataset``, ``annotate``, ``ratings``, ``report``), one verdict per game, each game once.

- a file: as the game reads it (a record, a file of its own format: a ``.psq``, a log);
- a tournament's folder, or its ``tournament.sqlite``: every finished game of its store,
  each named ``FOLDER#KEY``; nothing else in the folder (its logs, its site, its
  ``records.jsonl``: the same games);
- a tournament's ``records.jsonl`` (or ``.gz``) alone: every record in it, each named
  ``FILE#N`` (the N-th);
- any other folder (a match's): the records below it (``game-*.json``), in name order,
  and the files of the game's own formats that are not a record's export
  (``game-001.psq`` beside ``game-001.json`` is the same game), and the stores and
  records files below it as above.

A folder with none of these is one FAIL line.
"""

from __future__ import annotations

import functools
import gzip
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from referee.core.checking import FileCheck
from referee.core.errors import ConfigError, RefereeError
from referee.core.json_read import json_value
from referee.core.record import GameRecord
from referee.training.dataset_sources import STORE, record_twin

__all__ = ["RECORDS", "GameChecks", "check_games"]

RECORDS = ("records.jsonl", "records.jsonl.gz")
"""The names of a tournament's records file."""


@dataclass(frozen=True)
class GameChecks:
    """How one game checks what it is given: files (``check_paths``, one verdict per
    file, as ``core.checking.check_files`` gives them), a record read from a store or a
    records file (``check_record``: a summary, or ``ValueError``), and which files found
    in a folder are of its own formats (``own_file``; records are found anyway)."""

    check_paths: Callable[[Sequence[Path]], list[FileCheck]]
    check_record: Callable[[GameRecord], str]
    own_file: Callable[[Path], bool] = lambda path: False


@dataclass
class _Plan:
    """The sources in order, each once: ``store`` (a folder), ``records`` and ``file``."""

    items: list[tuple[str, Path]] = field(default_factory=list)
    seen: set[Path] = field(default_factory=set)

    def add(self, kind: str, path: Path) -> None:
        key = path.resolve()
        if key not in self.seen:
            self.seen.add(key)
            self.items.append((kind, path))

    def stores(self) -> set[Path]:
        return {path.resolve() for kind, path in self.items if kind == "store"}

    def records(self) -> set[Path]:
        return {path.resolve() for kind, path in self.items if kind == "file"
                and path.name.startswith("game-") and path.suffix == ".json"}

    def wanted(self) -> Iterator[tuple[str, Path]]:
        """The items that are not another's game: in a store's folder read, or the
        export of a record read."""
        stores, records = self.stores(), self.records()
        for kind, path in self.items:
            key = path.resolve()
            if kind != "store" and any(parent in stores for parent in key.parents):
                continue
            if kind == "file" and key not in records and record_twin(key) in records:
                continue
            yield kind, path


def _is_store(path: Path) -> bool:
    return path.name == STORE or (path.is_dir() and (path / STORE).is_file())


def _folder(path: Path, plan: _Plan, own_file: Callable[[Path], bool]) -> bool:
    """Add what ``path`` (a folder) holds; whether it holds anything."""
    found = False
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        here = Path(root)
        if STORE in files:
            plan.add("store", here)
            dirs[:] = []  # the store holds its folder's games
            found = True
            continue
        for name in sorted(files):
            file = here / name
            if name.startswith("."):
                continue
            if name in RECORDS:
                plan.add("records", file)
            elif (name.startswith("game-") and name.endswith(".json")) or own_file(file):
                plan.add("file", file)
            else:
                continue
            found = True
    return found


def check_games(paths: Sequence[Path], checks: GameChecks) -> list[FileCheck]:
    """One verdict per game of ``paths`` (see the module), in order."""
    plan = _Plan()
    verdicts: list[FileCheck] = []
    empty: list[Path] = []
    for path in paths:
        if _is_store(path):
            plan.add("store", path.parent if path.name == STORE else path)
        elif path.name in RECORDS and path.is_file():
            plan.add("records", path)
        elif path.is_dir():
            if not _folder(path, plan, checks.own_file):
                empty.append(path)
        else:
            plan.add("file", path)
    for kind, path in plan.wanted():
        if kind == "store":
            verdicts.extend(_store(path, checks.check_record))
        elif kind == "records":
            verdicts.extend(_records(path, checks.check_record))
        else:
            verdicts.extend(checks.check_paths([path]))
    verdicts.extend(FileCheck(str(path), False, "the folder holds no game: no record "
                              "(game-*.json), no tournament store or records file, no file "
                              "of the game's own formats") for path in empty)
    return verdicts


def _checked(label: str, record: Callable[[], GameRecord], check: Callable[[GameRecord], str],
             kind: str) -> FileCheck:
    try:
        return FileCheck(label, True, check(record()), kind)
    except (ValueError, OSError, RefereeError, KeyError) as exc:
        text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
        return FileCheck(label, False, text.removeprefix(f"{label}: "))


def _store(folder: Path, check: Callable[[GameRecord], str]) -> list[FileCheck]:
    from referee.tournament.store import Store

    try:
        store = Store.open_existing(folder)
    except (RefereeError, OSError) as exc:
        return [FileCheck(str(folder), False, str(exc).removeprefix(f"{folder}: "))]
    try:
        rows = store.games(status="done", by_finish=True)
        if not rows:
            return [FileCheck(str(folder), False, "the tournament's store holds no "
                              "finished game")]
        return [_checked(f"{folder}#{row.key}", functools.partial(store.record, row.key),
                         check, "tournament record") for row in rows]
    finally:
        store.close()


def _records(path: Path, check: Callable[[GameRecord], str]) -> list[FileCheck]:
    """Each record of a records file (a line of compact JSON; gzip: a member a record)."""
    verdicts = []
    try:
        with (gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")) as lines:
            for number, line in enumerate((line for line in lines if line.strip()), 1):
                label = f"{path}#{number}"
                verdicts.append(_checked(label, functools.partial(_record, line, label),
                                         check, "tournament record"))
    except (OSError, EOFError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        verdicts.append(FileCheck(str(path), False, f"cannot read: {reason}"))
    if not verdicts:
        verdicts.append(FileCheck(str(path), False, "no records in it"))
    return verdicts


def _record(line: bytes, label: str) -> GameRecord:
    """One line of a records file as a record (``ConfigError`` naming ``label``)."""
    try:
        data = json_value(line)
    except ValueError as exc:
        raise ConfigError(f"{label}: not JSON: {exc}") from None
    return GameRecord.from_dict(data, label)
