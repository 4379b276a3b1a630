"""The games a dataset is made from: tournament stores, match folders, record files and
a game's own formats, each game labelled by where it comes from.

A game is read once, however many ways the sources reach it. A record and its own
export are one game: a file of the game's own format named as a record is
(``game-001.psq`` or ``game-001.mjson.gz`` beside ``game-001.json``) is left out when
that record is read, and so is any file inside a tournament's folder when its store is
read (the store holds every game; its folder holds their logs and its site). The same
record, file or store reached twice (a folder and a file in it, a folder named twice)
is read once. A file whose record or store is not among the sources is read.

``find_game`` goes the other way: from a label (a dataset row's ``game``) to its game.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from referee.core.decisions import GameData
from referee.core.errors import RefereeError
from referee.core.record import GameRecord, is_record_file

__all__ = ["dataset_records", "find_game", "record_twin"]

STORE = "tournament.sqlite"
_NOT_GAMES = (".log", ".lock", ".sqlite", ".pgn", ".html", ".css", ".js", ".svg", ".toml")
"""Suffixes of the files a match's or tournament's folder holds that hold no game."""


def record_twin(path: Path) -> Path:
    """The record that a file of a game's own format is the export of, by its name:
    ``game-001.psq`` and ``game-001.mjson.gz`` are ``game-001.json``'s."""
    return path.with_name(path.name.split(".", 1)[0] + ".json")


@dataclass
class _Plan:
    """What the sources hold, in order, each once: stores (their folders), records and
    other files (``quiet``: found in a folder, so a file of no known kind is no error)."""

    items: list[tuple[str, Path, bool]] = field(default_factory=list)
    seen: set[Path] = field(default_factory=set)
    stores: set[Path] = field(default_factory=set)
    records: set[Path] = field(default_factory=set)

    def add(self, kind: str, path: Path, quiet: bool = False) -> None:
        key = path.resolve()
        if key in self.seen:
            return
        self.seen.add(key)
        if kind == "store":
            self.stores.add(key)
        elif kind == "record":
            self.records.add(key)
        self.items.append((kind, path, quiet))

    def exported(self, path: Path) -> bool:
        """Whether ``path`` is a game another source gives: the export of a record read,
        or a file in the folder of a store read."""
        key = path.resolve()
        if record_twin(key) in self.records and record_twin(key) != key:
            return True
        return any(parent in self.stores for parent in key.parents)


def dataset_records(paths: Iterable[Path], data: GameData
                    ) -> Iterator[tuple[str, GameRecord | Exception]]:
    """Every game of ``paths``, each once (see the module): a tournament's folder (or its
    ``tournament.sqlite``), a folder of records (``game-*.json``, searched below it) and
    files of the game's own formats, or a record file. A file or game that cannot be read
    comes as an exception with its label, for the writer to count; a path that does not
    exist is a ``RefereeError`` at once."""
    paths = list(paths)
    for path in paths:
        if not path.exists():
            raise RefereeError(f"{path}: no such file or folder")
    plan = _Plan()
    for path in paths:
        if path.is_dir() and (path / STORE).is_file():
            plan.add("store", path)
        elif path.is_dir():
            for file in sorted(p for p in path.rglob("*") if p.is_file()):
                if file.name == STORE:
                    plan.add("store", file.parent)
                elif file.name.startswith("game-") and file.suffix == ".json":
                    plan.add("record", file)
                elif file.suffix not in _NOT_GAMES:
                    plan.add("file", file, quiet=True)  # the game's own formats
        elif path.name == STORE:
            plan.add("store", path.parent)
        else:
            plan.add("record" if is_record_file(path) else "file", path)
    for kind, path, quiet in plan.items:
        if kind == "store":
            yield from _store(path)
        elif not plan.exported(path):
            yield from _file(path, data, quiet)


def _store(folder: Path) -> Iterator[tuple[str, GameRecord | Exception]]:
    from referee.tournament.store import Store

    try:
        store = Store.open_existing(folder)
    except (RefereeError, OSError) as exc:
        yield str(folder), exc
        return
    try:
        for row in store.games("done"):
            try:
                yield f"{folder}#{row.key}", store.record(row.key)
            except (RefereeError, OSError, ValueError) as exc:
                yield f"{folder}#{row.key}", exc
    finally:
        store.close()


def _file(path: Path, data: GameData, quiet: bool = False
          ) -> Iterator[tuple[str, GameRecord | Exception]]:
    try:
        foreign = data.foreign_records(path)
        if foreign is not None:
            for number, record in enumerate(foreign, start=1):
                yield f"{path}#{number}", record
            return
        if quiet:  # a file of no known kind in a folder: not a game
            return
        yield str(path), GameRecord.read(path)
    except (RefereeError, OSError, ValueError) as exc:
        yield str(path), exc


def find_game(label: str, data: GameData, root: Path | None = None) -> GameRecord:
    """The game a dataset labels ``label`` (its rows' ``game``): a record file's path, a
    store's folder or file and the game's key (``tour#r1-3``), or a file of the game's
    own format and the game's number in it (``old.psq#1``). A relative label is read from
    ``root`` (default: the current folder), as the dataset's sources were given.
    ``ValueError`` says why there is no such game."""
    base = Path.cwd() if root is None else Path(root)
    try:
        found = _labelled(label, data, base)
    except (RefereeError, OSError, ValueError, KeyError) as exc:
        raise ValueError(f"{label}: {exc}") from None
    if found.game != data.name:
        raise ValueError(f"{label}: a {found.game} game, not a {data.name} one")
    return found


def _labelled(label: str, data: GameData, base: Path) -> GameRecord:
    """``find_game``'s game, its errors as they come."""
    path = base / label
    if path.is_file():
        return GameRecord.read(path)
    head, sep, tail = label.rpartition("#")
    source = base / head
    if not sep or not source.exists():
        raise ValueError(f"no such file or folder (relative labels are read from "
                         f"{base})")
    if source.is_dir() or source.name == STORE:
        from referee.tournament.store import Store

        store = Store.open_existing(source if source.is_dir() else source.parent)
        try:
            return store.record(tail)
        finally:
            store.close()
    games = data.foreign_records(source) if tail.isdigit() else None
    for number, game in enumerate(games or (), start=1):
        if number == int(tail):
            return game
    raise ValueError(f"no game {tail} in {head}")
