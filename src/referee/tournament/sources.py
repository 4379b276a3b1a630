"""Where results to rate come from: a tournament store or a PGN file, named by a path.

``referee ratings`` takes any mix of both. A store is a folder holding
``tournament.sqlite`` (or that file itself); anything else is read as PGN. A store also
knows the BayesElo settings of its tournament, which are used unless others are asked for.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, fields
from pathlib import Path

from referee.core.errors import ConfigError
from referee.tournament.pgn import PgnError, read_pgn_results
from referee.tournament.ratings import BayesEloParams, Result

# The store's modules (sqlite3, the tournament's records, rich tables) are imported when a
# store is read: rating PGN files needs none of them.


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
        if not self.path.exists():
            raise ConfigError(f"{self.path}: no such file or folder")
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
        data = json.loads(text).get("ratings") or {}
        known = {f.name for f in fields(BayesEloParams)}
        try:
            return BayesEloParams(**{k: v for k, v in data.items() if k in known})
        except (TypeError, ValueError):
            return None


def all_results(sources: list[ResultSource]) -> Iterator[Result]:
    """The results of every source, one after the other."""
    for source in sources:
        yield from source.results()
