"""Offline-RL training data from behavioural-cloning annotations (kanachan's annotate4rl).

The input is an annotator's output, not shuffled: behavioural-cloning (BC) lines of 7
fields (game id, sparse, numeric, progression, candidates, choice, results; see
:mod:`referee.training.dataset`), the lines of a game consecutive and in the order its
decision points came. A point belongs to the seat given by its sparse feature 7..10
(7 + seat). For each game and seat, each point gives one offline-RL line:

* a point followed by a later point of the same seat in the game gives the 9-field
  transition ``s, a, s'``: its 4 state fields, its choice, and the 4 state fields of the
  seat's next point;
* the seat's last point of the game gives the 7-field terminal line ``s, a, rank, score``:
  its 4 state fields, its choice, the game rank (results element 9) and the game score
  (results element 10).

So there are as many output lines as input lines, 4 of them terminal in a 4-player game
(one per seat that had a decision). Within a game the lines come in the order of their
first point; games keep their order. State fields and choices are copied as they are
(once checked); rank and score are written in plain decimal.

Memory stays flat: only the points of the current game whose line cannot be written yet
are held (a point waits for the seat's next point; the last ones for the end of the
game), and each finished game's id as an 8-byte hash (8 bytes a game: 80 MB for 10
million games), to tell a game that comes back (two ids with the same 64-bit hash would
be a false alarm: odds below 1 in 300,000 for 10 million games).

Errors are typed, naming the file and line: a malformed line is a
:class:`~referee.training.dataset.TrainingDataError`; a game id that appears again after
other games (shuffled input, or files concatenated in the wrong way) is a
:class:`GameOrderError`, a subclass of it. Both are ``DataFileError`` (and so
``ConfigError``). Inputs and output may be plain, gzip or bz2 (output by its name), ``"-"``
being standard input or output; the output is written to a hidden file beside it and
renamed at the end (it may be one of the inputs), and removed on an error.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from referee.training.dataset import SourceLine, TrainingDataError, parse_annotation, read_lines
from referee.training.shuffle import AtomicOutput

__all__ = ["GameOrderError", "RLResult", "annotate4rl", "iter_rl_lines"]

_RECENT = 1 << 16  # game hashes kept in a set before they go to the sorted array
_WRITE = 1 << 16  # characters of output gathered before a write


class GameOrderError(TrainingDataError):
    """A game whose lines are not all together: its id appears again after other games."""


@dataclass(frozen=True)
class RLResult:
    """What a conversion did."""

    games: int
    """Games read."""
    points: int
    """Decision points read (input lines)."""
    transitions: int
    """9-field lines written (a point and the seat's next one)."""
    terminals: int
    """7-field lines written (the last point of a seat in a game)."""

    @property
    def lines(self) -> int:
        """Lines written: one per point."""
        return self.transitions + self.terminals


class _SeenGames:
    """The ids of finished games, as 8-byte hashes: a set of the latest and a sorted array
    of the others (8 bytes a game)."""

    def __init__(self) -> None:
        self._recent: set[int] = set()
        self._old = np.empty(0, np.uint64)

    @staticmethod
    def _key(game_id: str) -> int:
        digest = hashlib.blake2b(game_id.encode(), digest_size=8).digest()
        return int.from_bytes(digest, "little")

    def add(self, game_id: str) -> None:
        self._recent.add(self._key(game_id))
        if len(self._recent) >= _RECENT:
            recent = np.fromiter(self._recent, np.uint64, len(self._recent))
            self._old = np.union1d(self._old, recent)
            self._recent.clear()

    def __contains__(self, game_id: str) -> bool:
        key = self._key(game_id)
        if key in self._recent:
            return True
        at = int(np.searchsorted(self._old, np.uint64(key)))
        return at < len(self._old) and int(self._old[at]) == key


@dataclass(slots=True)
class _Point:
    """A decision point waiting for its line to be written: its state and choice as
    written in its line (``"sparse\tnumeric\tprogression\tcandidates\tchoice"``), its
    game result, and the state of the seat's next point once known."""

    head: str
    state: str
    rank: int
    score: int
    next_state: str | None = None

    def line(self) -> str:
        if self.next_state is not None:
            return f"{self.head}\t{self.next_state}"
        return f"{self.head}\t{self.rank}\t{self.score}"


def iter_rl_lines(lines: Iterable[SourceLine]) -> Generator[str, None, RLResult]:
    """The offline-RL lines (without ``"\\n"``) of the BC lines ``lines`` (as
    :func:`~referee.training.dataset.read_lines` gives them), streamed; returns the counts
    (the ``StopIteration`` value). Raises :class:`GameOrderError` for a game that comes
    back and :class:`~referee.training.dataset.TrainingDataError` for a bad line."""
    seen = _SeenGames()
    game: str | None = None
    waiting: deque[_Point] = deque()  # in the order of the points
    latest: dict[int, _Point] = {}  # the last point of each seat so far
    games = points = terminals = 0
    for source in lines:
        annotation = parse_annotation(source.text, path=source.path,
                                      line_number=source.number)
        if annotation.game_id != game:
            if game is not None:
                terminals += len(latest)
                while waiting:
                    yield waiting.popleft().line()
                seen.add(game)
            if annotation.game_id in seen:
                raise GameOrderError(
                    source.path, source.number,
                    f"game {annotation.game_id!r} appears again after other games: the "
                    "lines of a game must be together, in order (an annotator's output, "
                    "not shuffled)")
            game = annotation.game_id
            games += 1
            latest.clear()
        points += 1
        fields = source.text.split("\t")
        state = "\t".join(fields[1:5])
        point = _Point(f"{state}\t{fields[5]}", state, annotation.game_rank,
                       annotation.game_score)
        seat = annotation.state.seat
        before = latest.get(seat)
        if before is not None:
            before.next_state = point.state
        latest[seat] = point
        waiting.append(point)
        while waiting and waiting[0].next_state is not None:
            yield waiting.popleft().line()
    terminals += len(latest)
    while waiting:
        yield waiting.popleft().line()
    return RLResult(games=games, points=points, transitions=points - terminals,
                    terminals=terminals)


def annotate4rl(inputs: Sequence[str | Path], output: str | Path) -> RLResult:
    """Write the offline-RL lines of the BC annotation files ``inputs`` (read one after
    the other, a game's lines together) to ``output`` (see the module's description).

    Raises ``ValueError`` for bad arguments, :class:`GameOrderError` for a game that comes
    back, :class:`~referee.training.dataset.TrainingDataError` for a bad line and
    ``DataFileError`` for a file that cannot be read or written; the output is then left
    as it was.
    """
    if not inputs:
        raise ValueError("no input files")
    if sum(str(path) == "-" for path in inputs) > 1:
        raise ValueError("standard input ('-') can only be read once")
    converted = iter_rl_lines(read_lines(inputs))
    try:
        with AtomicOutput(output) as out:
            gathered: list[str] = []
            size = 0
            while True:
                try:
                    line = next(converted)
                except StopIteration as stop:
                    result: RLResult = stop.value
                    break
                gathered.append(line)
                size += len(line)
                if size >= _WRITE:
                    gathered.append("")
                    out.write("\n".join(gathered).encode())
                    gathered = []
                    size = 0
            if gathered:
                gathered.append("")
                out.write("\n".join(gathered).encode())
    finally:
        converted.close()
    return result
