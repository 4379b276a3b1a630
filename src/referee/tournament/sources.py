"""Where results to rate come from: a tournament store or a PGN file, named by a path.

``referee ratings`` takes any mix of both. A store is a folder holding
``tournament.sqlite`` (or that file itself); anything else is read as PGN. A store also
knows the BayesElo settings of its tournament, which are used unless others are asked for.

A game is counted once: a store's own exports (``results.pgn`` in its folder and in its
site's ``report/``) are left out when the store is rated too, and a source named twice
(a store's folder and its ``tournament.sqlite``, a file given twice) is read once.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from pathlib import Path

from referee.core.errors import ConfigError
from referee.core.json_read import json_value
from referee.tournament.pgn import PgnError, read_pgn_results
from referee.tournament.ratings import BayesEloParams, Result

# The store's modules (sqlite3, the tournament's records, rich tables) are imported when a
# store is read: rating PGN files needs none of them.


EXPORTS = ("results.pgn", "report/results.pgn")
"""The PGN files a tournament writes of its store's results, relative to its folder."""


def is_store(path: Path) -> bool:
    """Whether ``path`` names a tournament store (its folder or its SQLite file)."""
    return path.suffix == ".sqlite" or (path / "tournament.sqlite").exists()


@dataclass
class ResultSource:
    """One file of results: a store or a PGN file."""

    path: Path

    @property
    def kind(self) -> str:
        """``store`` or ``pgn``."""
        return "store" if is_store(self.path) else "pgn"

    def check(self) -> None:
        """Raise ``ConfigError`` if the source cannot be read at all."""
        try:
            self.path.stat()
        except OSError as exc:  # missing, a loop of symbolic links, a folder shut
            reason = "no such file or folder" if exc.errno == errno.ENOENT else exc.strerror
            raise ConfigError(f"{self.path}: {reason or exc}") from None
        if self.kind == "pgn" and self.path.is_dir():
            raise ConfigError(f"{self.path}: a folder without a tournament store "
                              "(tournament.sqlite)")

    def results(self) -> Iterator[Result]:
        """Stream ``(first, second, score of first)``; errors name the file (and line)."""
        if self.kind == "store":
            from referee.tournament.results import pairwise
            from referee.tournament.store import Store

            store = Store.open_existing(self.path)
            try:
                yield from pairwise(store.games(status="done", by_finish=True))
            finally:
                store.close()
            return
        try:
            yield from read_pgn_results(self.path)  # (white, black, score) tuples
        except PgnError as exc:
            raise ConfigError(str(exc)) from None
        except OSError as exc:
            raise ConfigError(f"{self.path}: cannot read: {exc.strerror or exc}") from None

    def params(self) -> BayesEloParams | None:
        """The BayesElo settings the store's tournament used (None for PGN or unknown)."""
        if self.kind != "store":
            return None
        from referee.tournament.store import Store

        store = Store.open_existing(self.path)
        try:
            text = store.meta("tournament")
        finally:
            store.close()
        if not text:
            return None
        try:
            meta = json_value(text)
        except ValueError:  # (a store written by no referee: BayesElo's defaults)
            return None
        data = meta.get("ratings") if isinstance(meta, dict) else None
        if not isinstance(data, dict):
            return None
        known = {f.name for f in fields(BayesEloParams)}
        try:
            return BayesEloParams(**{k: v for k, v in data.items() if k in known})
        except (TypeError, ValueError):
            return None


def distinct_sources(paths: Sequence[Path]) -> tuple[list[ResultSource], list[str]]:
    """The sources of ``paths`` that give each game once (see the module), and a line
    for each path left out, saying why."""
    stores: dict[Path, Path] = {}  # each store's folder: the path that first named it
    for path in paths:
        if is_store(path) and path.exists():
            stores.setdefault(_store_folder(path), path)
    kept: list[ResultSource] = []
    seen: set[Path] = set()
    left_out: list[str] = []
    for path in paths:
        key = _store_folder(path) if is_store(path) else _resolved(path)
        if key in seen:
            left_out.append(f"{path}: named already, read once")
            continue
        seen.add(key)
        owner = next((given for folder, given in stores.items()
                      if any(key == folder / name for name in EXPORTS)), None)
        if owner is not None and not is_store(path):
            left_out.append(f"{path}: the results of the store {owner}, which is rated "
                            "too: counted once, from the store")
            continue
        kept.append(ResultSource(path))
    return kept, left_out


def _resolved(path: Path) -> Path:
    """``path`` resolved; absolute only where it cannot be (a loop of symbolic links: the
    source's check then says so)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a loop, before Python 3.13
        return path.absolute()


def _store_folder(path: Path) -> Path:
    """The folder of a store named by its folder or its file, resolved."""
    resolved = _resolved(path)
    return resolved.parent if resolved.suffix == ".sqlite" else resolved


def all_results(sources: list[ResultSource]) -> Iterator[Result]:
    """The results of every source, one after the other."""
    for source in sources:
        yield from source.results()
