"""The results to rate, counted: win / draw / loss counts per ordered pair of players.

Results are streamed in and folded into a dense players x players x 3 table of counts
(about 24 bytes per ordered pair of players, 24 MB for 1,000 players), whatever the number
of games; many results are taken a chunk at a time, without Python code per game.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterable

import numpy as np

from referee.tournament.bayeselo_mm import IntArray
from referee.tournament.stats import Trinomial

__all__ = ["PairCounts", "Result", "ResultTable"]

_CODES: dict[float, int] = {1.0: 0, 0.5: 1, 0.0: 2}  # first player's score -> win/draw/loss
_BUFFER = 1 << 16
_CHUNK = 1 << 14  # results taken at once by add_results (the tuples are held meanwhile)
_SHIFT_I = 42
_SHIFT_J = 2
_MASK_J = (1 << 40) - 1


PairCounts = Trinomial
"""Games of one ordered pair, seen from the first player (the one with the advantage):
wins, draws, losses (the same counts as a head-to-head ``Trinomial``)."""


class ResultTable:
    """Win / draw / loss counts per ordered pair (first player, second player).

    Results are streamed in: the game list is never kept, only a players x players x 3
    count table (plus a small buffer that is folded in every 65,536 results).
    """

    def __init__(self) -> None:
        """An empty table."""
        self._names: list[str] = []
        self._index: dict[str, int] = {}
        self._capacity = 0
        self._counts: IntArray = np.zeros((0, 0, 3), dtype=np.int64)
        self._buffer: list[int] = []
        self._games = 0

    @classmethod
    def from_results(cls, results: Iterable[tuple[str, str, float]]) -> ResultTable:
        """A table filled from ``(first, second, score of first)`` triples."""
        table = cls()
        table.add_results(results)
        return table

    # -- filling ---------------------------------------------------------------------------
    def _player(self, name: str) -> int:
        index = self._index.get(name)
        if index is None:
            if not isinstance(name, str) or not name:
                raise ValueError(f"player names must be non-empty strings, not {name!r}")
            index = len(self._names)
            self._names.append(name)
            self._index[name] = index
            if index >= self._capacity:
                self._grow(max(16, 2 * self._capacity))
        return index

    def _grow(self, capacity: int) -> None:
        self._flush()
        counts = np.zeros((capacity, capacity, 3), dtype=np.int64)
        old = self._capacity
        counts[:old, :old] = self._counts
        self._counts = counts
        self._capacity = capacity

    def _flush(self) -> None:
        if not self._buffer:
            return
        codes = np.array(self._buffer, dtype=np.int64)
        self._buffer.clear()
        first = codes >> _SHIFT_I
        second = (codes >> _SHIFT_J) & _MASK_J
        outcome = codes & 3
        self._count_cells((first * self._capacity + second) * 3 + outcome)

    def _count_cells(self, flat: IntArray) -> None:
        """Add one to the flat count cell of each entry (repeats counted)."""
        flat = np.sort(flat)
        starts = np.flatnonzero(np.concatenate(([True], flat[1:] != flat[:-1])))
        counts = np.diff(np.append(starts, len(flat)))
        # (np.unique would do, but it imports numpy.ma, 15 ms of a short run's start)
        self._counts.reshape(-1)[flat[starts]] += counts

    def add_result(self, first: str, second: str, score: float) -> None:
        """Record one game: ``score`` is the first player's (1, 0.5 or 0)."""
        code = _CODES.get(score)
        if code is None:
            raise ValueError(f"score must be 1, 0.5 or 0, not {score!r}")
        if first == second:
            raise ValueError(f"a player cannot play itself: {first!r}")
        i = self._player(first)
        j = self._player(second)
        self._buffer.append((i << _SHIFT_I) | (j << _SHIFT_J) | code)
        self._games += 1
        if len(self._buffer) >= _BUFFER:
            self._flush()

    def add_results(self, results: Iterable[tuple[str, str, float]]) -> int:
        """Record many games (any iterable, consumed lazily, ``_CHUNK`` at a time);
        returns how many were added."""
        added = 0
        source = iter(results)
        while chunk := list(itertools.islice(source, _CHUNK)):
            if len(chunk) < 64 or not self._add_chunk(chunk):
                for first, second, score in chunk:  # one by one: errors where they occur
                    self.add_result(first, second, score)
            added += len(chunk)
        return added

    def _add_chunk(self, chunk: list[tuple[str, str, float]]) -> bool:
        """Record a chunk of results at once (no Python code per game); False, with nothing
        recorded, if one of them is not valid."""
        try:
            firsts, seconds, scores = zip(*chunk, strict=True)
            codes = list(map(_CODES.get, scores))
            names = dict.fromkeys(itertools.chain.from_iterable(
                zip(firsts, seconds, strict=True)))
        except (TypeError, ValueError):  # not triples, unhashable names or scores
            return False
        if None in codes or any(map(operator.eq, firsts, seconds)):
            return False
        index = self._index
        new = [name for name in names if name not in index]  # in order of first appearance
        if not all(isinstance(name, str) and name for name in new):
            return False
        for name in new:
            self._player(name)
        self._flush()
        i = np.fromiter(map(index.__getitem__, firsts), np.int64, len(chunk))
        j = np.fromiter(map(index.__getitem__, seconds), np.int64, len(chunk))
        self._count_cells((i * self._capacity + j) * 3 + np.array(codes, dtype=np.int64))
        self._games += len(chunk)
        return True

    def add_counts(self, first: str, second: str, wins: int, draws: int, losses: int) -> None:
        """Add already aggregated games of one ordered pair (counts of the first player)."""
        if first == second:
            raise ValueError(f"a player cannot play itself: {first!r}")
        if min(wins, draws, losses) < 0:
            raise ValueError("counts must not be negative")
        i = self._player(first)
        j = self._player(second)
        self._flush()
        self._counts[i, j] += (wins, draws, losses)
        self._games += wins + draws + losses

    # -- reading ---------------------------------------------------------------------------
    @property
    def players(self) -> list[str]:
        """Player names in order of first appearance."""
        return list(self._names)

    @property
    def games(self) -> int:
        """Number of games recorded."""
        return self._games

    def __len__(self) -> int:
        """Number of games recorded."""
        return self._games

    def counts(self, first: str, second: str) -> PairCounts:
        """Games with ``first`` moving first against ``second`` (zeros if they never met)."""
        i = self._index.get(first)
        j = self._index.get(second)
        if i is None or j is None:
            return PairCounts(0, 0, 0)
        self._flush()
        w, d, lo = (int(x) for x in self._counts[i, j])
        return PairCounts(w, d, lo)

    def matrix(self) -> IntArray:
        """A copy of the counts, shape (players, players, 3): [first, second, (w, d, l)]."""
        self._flush()
        n = len(self._names)
        return self._counts[:n, :n].copy()

    def pairs(self) -> Iterable[tuple[str, str, PairCounts]]:
        """Every ordered pair that played: ``(first, second, counts)``."""
        self._flush()
        n = len(self._names)
        totals = self._counts[:n, :n].sum(axis=2)
        for i, j in zip(*np.nonzero(totals), strict=True):
            w, d, lo = (int(x) for x in self._counts[i, j])
            yield self._names[i], self._names[j], PairCounts(w, d, lo)


Result = tuple[str, str, float]
"""One pairwise result: (first player, second player, score of the first: 1, 0.5 or 0)."""
