"""Offline-RL training data from behavioural-cloning annotations (kanachan's annotate4rl).

The input is an annotator's output, not shuffled: behavioural-cloning (BC) lines of 7
fields (game id, sparse, numeric, progression, candidates, choice, results; see
:mod:`referee.games.riichi.kanachan.dataset`), the lines of a game consecutive and in the
order its decision points came. A point belongs to the seat given by its sparse feature 7..10
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

kanachan's options (``bin/annotate4rl`` of Cryolite/kanachan): points of a room below
``min_room`` (``--filter-by-room``, Gold there by default) or of a player's grade below
``min_grade`` (``--filter-by-grade``) are left out before the pairing; ``curriculum`` and
``td_aware`` write each game's and seat's lines together (:func:`iter_rl_chunks`), the
latter each chunk from its last point to its first and the chunks in a random order (on
disk, through :func:`~referee.training.shuffle.shuffle_lines`). "From the last point to the
first" is kanachan's order: its lines sorted by their point's round, honba, progression
length and tiles drawn, from the greatest, a stable sort, so that points alike in all of
these (the copies of a point of a hand won by several players, one per winner) keep the
order they came in (a plain reversal would number those copies backwards).

Memory stays flat: only the points of the current game whose line cannot be written yet
are held (a point waits for the seat's next point; the last ones for the end of the
game), and each finished game's id as an 8-byte hash (8 bytes a game: 80 MB for 10
million games), to tell a game that comes back (two ids with the same 64-bit hash would
be a false alarm: odds below 1 in 300,000 for 10 million games).

Errors are typed, naming the file and line: a malformed line is a
:class:`~referee.training.datafiles.TrainingDataError`; a game id that appears again after
other games (shuffled input, or files concatenated in the wrong way) is a
:class:`GameOrderError`, a subclass of it. Both are ``DataFileError`` (and so
``ConfigError``). Inputs and output may be plain, gzip or bz2 (output by its name), ``"-"``
being standard input or output; the output is written to a hidden file beside it and
renamed at the end (it may be one of the inputs), and removed on an error.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections import deque
from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Final

import numpy as np

from referee.games.riichi.kanachan.dataset import State, parse_annotation
from referee.games.riichi.kanachan.encoding import GRADE, LEFT, MAX_LEFT, ROUND, WIND
from referee.training.datafiles import SourceLine, TrainingDataError, read_lines
from referee.training.shuffle import AtomicOutput, shuffle_lines

__all__ = ["GRADE_FILTERS", "ROOM_FILTERS", "GameOrderError", "RLResult", "annotate4rl",
           "iter_rl_chunks", "iter_rl_lines"]

_RECENT = 1 << 16  # game hashes kept in a set before they go to the sorted array
_WRITE = 1 << 16  # characters of output gathered before a write
_SEPARATOR: Final = "\x1f"  # between the lines of a chunk shuffled whole

ROOM_FILTERS: Final = {"bronze": 0, "silver": 1, "gold": 2, "jade": 3, "throne": 4}
"""kanachan's ``--filter-by-room`` names: that room or above."""
GRADE_FILTERS: Final = {"expert1": 6, "expert2": 7, "expert3": 8, "master1": 9,
                        "master2": 10, "master3": 11, "saint1": 12, "saint2": 13,
                        "saint3": 14, "celestial": 15}
"""kanachan's ``--filter-by-grade`` names: that grade or above."""


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
    filtered: int = 0
    """Input lines left out by the room and grade filters."""

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


Order = tuple[int, int, int, int, int]
"""Where a point stands in its game, as kanachan's annotate4rl sorts the points of a seat:
round wind, round, honba, progression length, tiles drawn from the wall."""


def _order(state: State) -> Order:
    """The :data:`Order` of a point's state."""
    sparse = state.sparse
    left = sparse[(sparse >= LEFT) & (sparse <= LEFT + MAX_LEFT)]
    drawn = LEFT + MAX_LEFT - int(left[0]) if len(left) else 0
    return (int(sparse[3]) - WIND, int(sparse[4]) - ROUND, int(state.numeric[0]),
            len(state.progression), drawn)


@dataclass(slots=True)
class _Point:
    """A decision point waiting for its line to be written: its state and choice as
    written in its line (``"sparse\tnumeric\tprogression\tcandidates\tchoice"``), its
    game result, its seat, its :data:`Order`, and the state of the seat's next point once
    known."""

    head: str
    state: str
    rank: int
    score: int
    seat: int
    order: Order
    next_state: str | None = None

    def line(self) -> str:
        if self.next_state is not None:
            return f"{self.head}\t{self.next_state}"
        return f"{self.head}\t{self.rank}\t{self.score}"


def _grade(sparse: Any) -> int:
    """The grade of a point's own player, from its sparse features (an array)."""
    own = sparse[(sparse >= GRADE[0]) & (sparse < GRADE[0] + 16)]
    return int(own[0]) - GRADE[0] if len(own) else 0


def _rl_points(lines: Iterable[SourceLine], min_room: int, min_grade: int
               ) -> Generator[tuple[int, _Point], None, RLResult]:
    """(game number, point) of the BC lines, each point once its offline-RL line can be
    written (:meth:`_Point.line`), streamed (see :func:`iter_rl_lines`)."""
    seen = _SeenGames()
    game: str | None = None
    waiting: deque[_Point] = deque()  # in the order of the points
    latest: dict[int, _Point] = {}  # the last point of each seat so far
    games = points = terminals = filtered = 0
    for source in lines:
        annotation = parse_annotation(source.text, path=source.path,
                                      line_number=source.number)
        sparse = annotation.state.sparse
        if int(sparse[0]) < min_room or (min_grade and _grade(sparse) < min_grade):
            filtered += 1
            continue
        if annotation.game_id != game:
            if game is not None:
                terminals += len(latest)
                while waiting:
                    yield games, waiting.popleft()
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
        seat = annotation.state.seat
        point = _Point(f"{state}\t{fields[5]}", state, annotation.game_rank,
                       annotation.game_score, seat, _order(annotation.state))
        before = latest.get(seat)
        if before is not None:
            before.next_state = point.state
        latest[seat] = point
        waiting.append(point)
        while waiting and waiting[0].next_state is not None:
            yield games, waiting.popleft()
    terminals += len(latest)
    while waiting:
        yield games, waiting.popleft()
    return RLResult(games=games, points=points, transitions=points - terminals,
                    terminals=terminals, filtered=filtered)


def iter_rl_lines(lines: Iterable[SourceLine], *, min_room: int = 0, min_grade: int = 0
                  ) -> Generator[str, None, RLResult]:
    """The offline-RL lines (without ``"\\n"``) of the BC lines ``lines`` (as
    :func:`~referee.training.datafiles.read_lines` gives them), streamed, leaving out the
    points of a room below ``min_room`` or of a player below grade ``min_grade``; returns
    the counts (the ``StopIteration`` value). Raises :class:`GameOrderError` for a game
    that comes back and :class:`~referee.training.datafiles.TrainingDataError` for a bad
    line."""
    inner = _rl_points(lines, min_room, min_grade)
    while True:
        try:
            _, point = next(inner)
        except StopIteration as stop:
            result: RLResult = stop.value
            return result
        yield point.line()


def iter_rl_chunks(lines: Iterable[SourceLine], *, min_room: int = 0, min_grade: int = 0,
                   td_aware: bool = False, curriculum: bool = False
                   ) -> Generator[list[str], None, RLResult]:
    """The offline-RL lines of each game and seat together (a chunk; games in order, seats
    ascending, lines in the order of the points), as kanachan's ``--td-aware`` (each chunk
    from its last point to its first: sorted by their :data:`Order`, from the greatest,
    points of the same order kept as they came) and ``--curriculum`` (each line led by
    ``n - i - 1`` and a tab, ``i`` its place in a chunk of ``n``, as written) make them."""
    inner = _rl_points(lines, min_room, min_grade)
    current = 0
    seats: dict[int, list[_Point]] = {}

    def chunks() -> Iterator[list[str]]:
        for seat in sorted(seats):
            points = seats[seat]
            if td_aware:  # (a stable sort: reverse=True keeps equals in their order)
                points = sorted(points, key=lambda point: point.order, reverse=True)
            chunk = [point.line() for point in points]
            if curriculum:
                chunk = [f"{len(chunk) - i - 1}\t{line}" for i, line in enumerate(chunk)]
            yield chunk
        seats.clear()

    while True:
        try:
            game, point = next(inner)
        except StopIteration as stop:
            yield from chunks()
            result: RLResult = stop.value
            return result
        if game != current:
            yield from chunks()
            current = game
        seats.setdefault(point.seat, []).append(point)


def _write(out: BinaryIO, lines: Iterator[str]) -> None:
    """Write ``lines`` (each with a line end added) in blocks."""
    gathered: list[str] = []
    size = 0
    for line in lines:
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


def _drain(generator: Generator[Any, None, RLResult], into: list[RLResult]) -> Iterator[Any]:
    """The items of ``generator``, its returned value appended to ``into``."""
    into.append((yield from generator))


def annotate4rl(inputs: Sequence[str | Path], output: str | Path, *, min_room: int = 0,
                min_grade: int = 0, td_aware: bool = False, curriculum: bool = False,
                seed: int | None = None, temp_dir: str | Path | None = None) -> RLResult:
    """Write the offline-RL lines of the BC annotation files ``inputs`` (read one after
    the other, a game's lines together) to ``output`` (see the module's description).
    ``min_room`` and ``min_grade`` leave out the points of a lower room or player's grade;
    ``td_aware`` writes each game's and seat's chunk from its last point to its first, the
    chunks in a random order (``seed``; shuffled on disk in ``temp_dir``, default the
    output's folder, in bounded memory); ``curriculum`` leads each line with how many
    lines of its chunk follow it.

    Raises ``ValueError`` for bad arguments, :class:`GameOrderError` for a game that comes
    back, :class:`~referee.training.datafiles.TrainingDataError` for a bad line and
    ``DataFileError`` for a file that cannot be read or written; the output is then left
    as it was.
    """
    if not inputs:
        raise ValueError("no input files")
    if sum(str(path) == "-" for path in inputs) > 1:
        raise ValueError("standard input ('-') can only be read once")
    results: list[RLResult] = []
    source = read_lines(inputs)
    try:
        if not td_aware and not curriculum:
            converted: Iterator[str] = _drain(iter_rl_lines(source, min_room=min_room,
                                                            min_grade=min_grade), results)
        else:
            chunks = _drain(iter_rl_chunks(source, min_room=min_room, min_grade=min_grade,
                                           td_aware=td_aware, curriculum=curriculum), results)
            if td_aware:
                with tempfile.TemporaryDirectory(
                        prefix=".annotate4rl-", dir=temp_dir or _folder(output)) as folder:
                    _shuffled(chunks, Path(folder), output, seed)
                return results[0]
            converted = (line for chunk in chunks for line in chunk)
        with AtomicOutput(output) as out:
            _write(out, converted)
        return results[0]
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()


def _folder(output: str | Path) -> str | None:
    """The output's folder (None, the system's temporary folder, for standard output)."""
    return None if str(output) == "-" else str(Path(output).resolve().parent)


def _shuffled(chunks: Iterator[list[str]], folder: Path, output: str | Path,
              seed: int | None) -> None:
    """Write the chunks to ``output`` in a random order: each chunk one record of a file
    (its lines joined by a unit separator), shuffled by
    :func:`~referee.training.shuffle.shuffle_lines`, then its lines written out."""
    records = folder / "chunks.txt"
    with open(records, "wb") as out:
        _write(out, (_SEPARATOR.join(chunk) for chunk in chunks))
    shuffled = folder / "shuffled.txt"
    shuffle_lines([records], shuffled, seed=seed, temp_dir=folder)
    records.unlink()
    with open(shuffled, "rb") as stream, AtomicOutput(output) as out:
        for record in stream:
            out.write(record.replace(_SEPARATOR.encode(), b"\n"))
