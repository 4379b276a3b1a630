"""The games a dataset is made from: tournament stores, match folders, record files and
a game's own formats, each game labelled by where it comes from."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from referee.core.decisions import GameData
from referee.core.errors import RefereeError
from referee.core.record import GameRecord

__all__ = ["dataset_records"]

STORE = "tournament.sqlite"


def dataset_records(paths: Iterable[Path], data: GameData
                    ) -> Iterator[tuple[str, GameRecord | Exception]]:
    """Every game of ``paths``: a tournament's folder (or its ``tournament.sqlite``), a
    folder of records (``game-*.json``, searched below it) and files of the game's own
    formats, or a record file. A file or game that cannot be read comes as an exception
    with its label, for the writer to count; a path that does not exist is a
    ``RefereeError`` at once."""
    for path in paths:
        if not path.exists():
            raise RefereeError(f"{path}: no such file or folder")
    for path in paths:
        if path.is_dir() and (path / STORE).is_file():
            yield from _store(path)
        elif path.is_dir():
            for file in sorted(p for p in path.rglob("*") if p.is_file()):
                if file.name == STORE:
                    yield from _store(file.parent)
                elif file.name.startswith("game-") and file.suffix == ".json":
                    yield from _file(file, data)
                elif file.suffix not in (".log", ".lock", ".sqlite", ".pgn", ".html",
                                         ".css", ".js", ".svg", ".toml"):
                    yield from _file(file, data, quiet=True)  # the game's own formats
        elif path.name == STORE:
            yield from _store(path.parent)
        else:
            yield from _file(path, data)


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
