"""Read kanachan training data back: lines as typed records, padded numpy arrays, batches,
and an iterable dataset for PyTorch (optional).

The format (kanachan's training data format, docs/training.md): one line per sample, fields
separated by tabs, the elements of a field by commas, every element an integer.

* Behavioural cloning (BC), 7 fields: game id (any text, for debugging), sparse features,
  numeric features, progression features, candidates (the legal actions), the index of the
  chosen candidate, results. An :class:`Annotation`.
* Offline RL, 9 fields: sparse, numeric, progression, candidates, action index, and the
  same 4 state fields for the player's next decision point; or 7 fields: the 4 state
  fields, action index, game rank, game score (the player's last decision point of the
  game). A :class:`Transition`, ``terminal`` for the 7-field form.

Records hold each field as a 1-dimensional int64 numpy array. Every line is checked
against the spec's ranges; a bad line is a
:class:`~referee.training.datafiles.TrainingDataError` naming the file and line
(``"games.txt:12: ..."``):

* sparse: 1 or more features, each 0..525, exactly one of them a seat (7..10);
* numeric: exactly 6 integers (honba, riichi sticks, four scores: may be negative);
* progression: 1 or more features, each 0..2164, the first 0 (the start of the round);
* candidates: 1 or more actions, each 0..545 (546 ``<VALUE>`` and 547 ``<PADDING>`` never
  appear in data);
* the choice (action index): a valid index into the candidates;
* results (BC): exactly 12 integers (may be negative), element 0 (the end of the round)
  0..18, elements 5..9 (rankings) 0..3;
* game rank (RL) 0..3, game score (RL) one integer (may be negative);
* integers are plain ASCII decimals of at most 9 digits (so within int32), without
  leading zeros, ``-`` only where negatives are allowed.

Arrays: each feature list is padded to a fixed length with the spec's padding token:

* ``sparse`` [S] padded with 526; S = ``max_sparse``, default :data:`MAX_SPARSE` = 33: room,
  game style, seat, wind, round (5), up to 5 dora indicators, tiles left (1), the grade
  and rank of the 4 players (8), that is 19, and then the tiles the player holds: 13 in
  the hand and the drawn tile, 14 at most (kanachan's annotator keeps the drawn tile out
  of the 13-tile hand). This is kanachan's own ``MAX_NUM_ACTIVE_SPARSE_FEATURES``.
* ``progression`` [P] padded with 2165; P = ``max_progression``, default
  :data:`DEFAULT_MAX_PROGRESSION` = 128. A round has at most 107 events: its start, at
  most 70 discards after draws (the live wall: 136 tiles - 52 dealt - 14 dead wall) and 16
  after chi or pon (4 melds a player), 16 melds and 4 added kans (kanachan's data has at
  most 106 and it pads to 113).
* ``candidates`` [C] padded with 547; C = ``max_candidates``, default
  :data:`DEFAULT_MAX_CANDIDATES` = 32 (kanachan: at most 30 seen, padded to 32).

A line longer than a limit is an error naming it (raise the limit), never truncated.

Every integer array of a sample is ``int32`` (``numeric`` and ``results`` hold exact
integers: cast them to float in the model), ``terminal`` is ``bool``. The keys of a sample
(a batch adds a first dimension B):

* BC: ``sparse`` [S], ``numeric`` [6], ``progression`` [P], ``candidates`` [C],
  ``choice`` [], ``results`` [12].
* RL: the same first 5, then ``next_sparse``, ``next_numeric``, ``next_progression``,
  ``next_candidates`` (the next state; all padding, numeric 0, on a terminal line),
  ``terminal`` [] (True for a 7-field line), ``game_rank`` [] and ``game_score`` []
  (-1 and 0 on a transition line, where they mean nothing).

Files are read one after the other, streamed (plain, gzip or bz2; ``"-"`` is standard
input: :func:`~referee.training.datafiles.read_lines`), so memory stays flat. The format is
told by the first line (9 fields, or 7 whose last field is one number: RL; 7 with 12
results: BC) unless given, and every line must then be of it.

:class:`AnnotationDataset` gives the samples one by one. PyTorch is optional: when it can
be imported, an ``AnnotationDataset`` is a ``torch.utils.data.IterableDataset``
(:class:`~referee.training.datafiles.FileDataset`), and each ``DataLoader`` worker reads
every line but parses only its share: worker ``i`` of ``n`` takes lines ``i, i + n,
i + 2n, ...`` (counted over all the files in turn).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias

import numpy as np
import numpy.typing as npt

from referee.games.riichi.kanachan.encoding import (
    NUMERIC_SIZE,
    OPTION_PADDING,
    OPTION_VALUE,
    PROGRESSION_PADDING,
    RESULT_SIZE,
    SEAT,
    SPARSE_PADDING,
)
from referee.training.datafiles import (
    FileDataset,
    SourceLine,
    TrainingDataError,
    check_shard,
    read_lines,
)

__all__ = [
    "CANDIDATE_PADDING", "CANDIDATE_VALUE", "DEFAULT_MAX_CANDIDATES",
    "DEFAULT_MAX_PROGRESSION", "MAX_SPARSE", "NUMERIC_SIZE", "PROGRESSION_PADDING",
    "RESULTS_SIZE", "SPARSE_PADDING", "Annotation", "AnnotationDataset", "Array", "Format",
    "Ints", "State", "Transition", "detect_format", "iter_batches", "iter_records",
    "iter_samples", "parse_annotation", "parse_line", "parse_transition",
]

CANDIDATE_VALUE: Final = OPTION_VALUE
"""The ``<VALUE>`` token of the action vocabulary (never in data); actions are 0..545."""
CANDIDATE_PADDING: Final = OPTION_PADDING
"""The candidates' padding token."""
RESULTS_SIZE: Final = RESULT_SIZE
"""Results in a behavioural-cloning line."""
MAX_SPARSE: Final = 33
"""Sparse features a decision point can have (see the module's description)."""
DEFAULT_MAX_PROGRESSION: Final = 128
"""The default padded length of the progression features."""
DEFAULT_MAX_CANDIDATES: Final = 32
"""The default padded number of candidates."""

Format: TypeAlias = Literal["bc", "rl"]
"""``"bc"``: behavioural-cloning lines; ``"rl"``: offline-RL lines."""
Array: TypeAlias = npt.NDArray[Any]
"""A numpy array."""
Ints: TypeAlias = npt.NDArray[np.int64]
"""The integers of a field: a 1-dimensional int64 array."""

_SEAT = re.compile(r"(?<![0-9])(?:[7-9]|10)(?![0-9])", re.ASCII)  # in a sparse field
_INT32 = 2**31
# Plain decimals of at most 9 digits (so within int32), no leading zeros.
_NUMBER = r"(?:0|[1-9][0-9]{0,8})"
_UNSIGNED = re.compile(rf"{_NUMBER}(?:,{_NUMBER})*", re.ASCII)
_SIGNED = re.compile(rf"-?{_NUMBER}(?:,-?{_NUMBER})*", re.ASCII)
_ONE = re.compile(_NUMBER, re.ASCII)
_BC_FIELDS = 7
_RL_FIELDS = (9, 7)


class _Bad(Exception):
    """What is wrong with a line (made a :class:`TrainingDataError` by the caller)."""


def _show(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _integers(text: str, what: str, pattern: re.Pattern[str], kind: str) -> Ints:
    """The integers of a field (int64), matched by ``pattern``."""
    if not text:
        raise _Bad(f"{what}: empty")
    if pattern.fullmatch(text) is None:
        raise _Bad(f"{what}: {_show(text)} is not a list of {kind}")
    # a checked field: fromstring reads it exactly, much faster than int() on each
    return np.fromstring(text, dtype=np.int64, sep=",")


def _unsigned(text: str, what: str, bound: int) -> Ints:
    """The non-negative integers of a field, each below ``bound``."""
    values = _integers(text, what, _UNSIGNED, "non-negative integers")
    top = int(values.max())
    if top >= bound:
        raise _Bad(f"{what}: {top} is out of range (0..{bound - 1})")
    return values


def _signed(text: str, what: str, size: int) -> Ints:
    """Exactly ``size`` integers of a field (of 9 digits at most)."""
    values = _integers(text, what, _SIGNED, "integers (of 9 digits at most)")
    if len(values) != size:
        raise _Bad(f"{what}: {len(values)} integers, expected {size}")
    return values


def _one(text: str, what: str, bound: int | None) -> int:
    """A single integer: non-negative below ``bound``, or any (of 9 digits at most) if
    None."""
    if "," in text:
        raise _Bad(f"{what}: {_show(text)} is not a single integer")
    if bound is None:
        return int(_signed(text, what, 1)[0])
    if _ONE.fullmatch(text) is None:
        raise _Bad(f"{what}: {_show(text)} is not a non-negative integer"
                   if text else f"{what}: empty")
    value = int(text)
    if value >= bound:
        raise _Bad(f"{what}: {value} is out of range (0..{bound - 1})")
    return value


@dataclass(frozen=True, slots=True, eq=False)
class State:
    """A decision point as its player sees it: the 4 state fields of a line, each an
    int64 array, and the seat."""

    sparse: Ints
    """Sparse features, 0..525, one of them the seat (7..10)."""
    numeric: Ints
    """Honba, riichi sticks, and the scores of the player and of the others (6)."""
    progression: Ints
    """The events of the round so far, 0..2164, starting with 0."""
    candidates: Ints
    """The actions the player may take, 0..545."""
    seat: int
    """The player's seat, 0..3 (from the first dealer): its sparse feature is 7 + seat."""

    def to_fields(self) -> str:
        """The 4 fields as they are written in a line (tab-separated)."""
        return "\t".join(",".join(map(str, values.tolist())) for values in
                         (self.sparse, self.numeric, self.progression, self.candidates))


def _names(first: int) -> tuple[str, ...]:
    return tuple(f"field {first + i} ({name})" for i, name in
                 enumerate(("sparse", "numeric", "progression", "candidates")))


_FIELD_NAMES: Final = {first: _names(first) for first in (0, 1, 5)}


def _state(fields: Sequence[str], first: int) -> State:
    """The state in ``fields[first:first + 4]`` (checked)."""
    what = _FIELD_NAMES[first]
    sparse = _unsigned(fields[first], what[0], SPARSE_PADDING)
    seat = _SEAT.findall(fields[first])
    seats = len(seat)
    if seats != 1:
        raise _Bad(f"{what[0]}: {'no' if seats == 0 else seats} seat features (7..10), "
                   "expected 1")
    numeric = _signed(fields[first + 1], what[1], NUMERIC_SIZE)
    progression = _unsigned(fields[first + 2], what[2], PROGRESSION_PADDING)
    if progression[0] != 0:
        raise _Bad(f"{what[2]}: starts with {progression[0]}, not 0 (the start of the round)")
    candidates = _unsigned(fields[first + 3], what[3], CANDIDATE_VALUE)
    return State(sparse, numeric, progression, candidates, int(seat[0]) - SEAT)


def _choice(text: str, field: int, state: State) -> int:
    choice = _one(text, f"field {field} (choice)", _INT32)
    if choice >= len(state.candidates):
        raise _Bad(f"field {field} (choice): {choice} is not an index into the "
                   f"{len(state.candidates)} candidates")
    return choice


@dataclass(frozen=True, slots=True, eq=False)
class Annotation:
    """A behavioural-cloning line: a decision point, the choice made, the results."""

    game_id: str
    """The game's id (for debugging only)."""
    state: State
    """The decision point."""
    choice: int
    """The index of the action taken among ``state.candidates``."""
    results: Ints
    """The 12 results of the round and the game, as the player sees them (element 9 the
    game rank, 10 the game score)."""

    @property
    def game_rank(self) -> int:
        """The player's rank at the end of the game, 0..3."""
        return int(self.results[9])

    @property
    def game_score(self) -> int:
        """The player's score at the end of the game."""
        return int(self.results[10])

    def to_line(self) -> str:
        """The line (without ``"\\n"``)."""
        return "\t".join((self.game_id, self.state.to_fields(), str(self.choice),
                          ",".join(map(str, self.results.tolist()))))


@dataclass(frozen=True, slots=True, eq=False)
class Transition:
    """An offline-RL line: a decision point, the action taken, and either the player's
    next decision point or (``terminal``) the player's rank and score at the end of the
    game."""

    state: State
    """The decision point."""
    choice: int
    """The index of the action taken among ``state.candidates``."""
    next_state: State | None
    """The player's next decision point (None: the last one of the game)."""
    game_rank: int | None = None
    """The player's rank at the end of the game, 0..3 (terminal lines only)."""
    game_score: int | None = None
    """The player's score at the end of the game (terminal lines only)."""

    @property
    def terminal(self) -> bool:
        """Whether this is the player's last decision point in the game (7 fields)."""
        return self.next_state is None

    def to_line(self) -> str:
        """The line (without ``"\\n"``): 9 fields, or 7 if terminal."""
        head = f"{self.state.to_fields()}\t{self.choice}"
        if self.next_state is not None:
            return f"{head}\t{self.next_state.to_fields()}"
        return f"{head}\t{self.game_rank}\t{self.game_score}"


def _parse_bc(line: str) -> Annotation:
    if not line:
        raise _Bad("empty line")
    fields = line.split("\t")
    if len(fields) != _BC_FIELDS:
        hint = " (an offline-RL line?)" if len(fields) == 9 else ""
        raise _Bad(f"{len(fields)} fields, a behavioural-cloning line has 7{hint}")
    if not fields[0]:
        raise _Bad("field 0 (game id): empty")
    state = _state(fields, 1)
    choice = _choice(fields[5], 5, state)
    results = _signed(fields[6], "field 6 (results)", RESULTS_SIZE)
    values = results.tolist()
    if not 0 <= values[0] <= 18:
        raise _Bad(f"field 6 (results): element 0 (end of round) is {values[0]}, not 0..18")
    for index in range(5, 10):
        if not 0 <= values[index] <= 3:
            raise _Bad(f"field 6 (results): element {index} (a ranking) is {values[index]}, "
                       "not 0..3")
    return Annotation(fields[0], state, choice, results)


def _parse_rl(line: str) -> Transition:
    if not line:
        raise _Bad("empty line")
    fields = line.split("\t")
    if len(fields) not in _RL_FIELDS:
        raise _Bad(f"{len(fields)} fields, an offline-RL line has 9 or 7")
    if len(fields) == 7 and "," in fields[6]:
        raise _Bad("7 fields with several results: a behavioural-cloning line, "
                   "not an offline-RL one")
    state = _state(fields, 0)
    choice = _choice(fields[4], 4, state)
    if len(fields) == 9:
        following = _state(fields, 5)
        if following.seat != state.seat:
            raise _Bad(f"the next state is seat {following.seat}'s, the first seat "
                       f"{state.seat}'s")
        return Transition(state, choice, following)
    rank = _one(fields[5], "field 5 (game rank)", 4)
    score = _one(fields[6], "field 6 (game score)", None)
    return Transition(state, choice, None, rank, score)


def parse_annotation(line: str, *, path: str = "<string>", line_number: int = 1) -> Annotation:
    """The behavioural-cloning line ``line`` (without its ``"\\n"``), checked; a
    :class:`TrainingDataError` naming ``path`` and ``line_number`` if it is malformed."""
    try:
        return _parse_bc(line)
    except _Bad as exc:
        raise TrainingDataError(path, line_number, str(exc)) from None


def parse_transition(line: str, *, path: str = "<string>", line_number: int = 1) -> Transition:
    """The offline-RL line ``line`` (9 or 7 fields), checked; a :class:`TrainingDataError`
    naming ``path`` and ``line_number`` if it is malformed."""
    try:
        return _parse_rl(line)
    except _Bad as exc:
        raise TrainingDataError(path, line_number, str(exc)) from None


def parse_line(line: str, format: Format, *, path: str = "<string>",
               line_number: int = 1) -> Annotation | Transition:
    """``line`` read as ``format`` (see :func:`parse_annotation`, :func:`parse_transition`)."""
    if format == "bc":
        return parse_annotation(line, path=path, line_number=line_number)
    return parse_transition(line, path=path, line_number=line_number)


def detect_format(line: str, *, path: str = "<string>", line_number: int = 1) -> Format:
    """The format of ``line``, told by its fields alone: 9, or 7 whose last holds one
    number, is offline RL; 7 others are behavioural cloning. Anything else is a
    :class:`TrainingDataError`."""
    if not line:
        raise TrainingDataError(path, line_number, "empty line")
    fields = line.split("\t")
    if len(fields) == 9:
        return "rl"
    if len(fields) == 7:
        return "bc" if "," in fields[6] else "rl"
    raise TrainingDataError(path, line_number, f"{len(fields)} fields: neither a "
                            "behavioural-cloning line (7) nor an offline-RL line (9 or 7)")


def _located(paths: Iterable[str | Path], format: Format | None, shard: tuple[int, int],
             ) -> Iterator[tuple[Annotation | Transition, SourceLine]]:
    """The records of the lines of ``shard`` (index, count: every count-th line from the
    index-th, counted over all the files), with their lines."""
    check_shard(shard)
    index, count = shard
    for position, line in enumerate(read_lines(paths)):
        if format is None:
            format = detect_format(line.text, path=line.path, line_number=line.number)
        if position % count == index:
            yield parse_line(line.text, format, path=line.path,
                             line_number=line.number), line


def iter_records(paths: Iterable[str | Path], *, format: Format | None = None,
                 shard: tuple[int, int] = (0, 1)) -> Iterator[Annotation | Transition]:
    """The records of the files' lines in turn, checked, streamed (see the module's
    description; ``shard`` = (index, count): only every count-th line, from the index-th)."""
    for record, _ in _located(paths, format, shard):
        yield record


@dataclass(frozen=True, slots=True)
class _Limits:
    sparse: int
    progression: int
    candidates: int

    def check(self) -> None:
        for name, value in (("max_sparse", self.sparse), ("max_progression", self.progression),
                            ("max_candidates", self.candidates)):
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")


def _arrays(format: Format, rows: int, limits: _Limits) -> dict[str, Array]:
    """Arrays for ``rows`` samples, all padding."""
    def state(prefix: str) -> dict[str, Array]:
        return {
            f"{prefix}sparse": np.full((rows, limits.sparse), SPARSE_PADDING, np.int32),
            f"{prefix}numeric": np.zeros((rows, NUMERIC_SIZE), np.int32),
            f"{prefix}progression": np.full((rows, limits.progression), PROGRESSION_PADDING,
                                            np.int32),
            f"{prefix}candidates": np.full((rows, limits.candidates), CANDIDATE_PADDING,
                                           np.int32),
        }

    arrays = state("")
    arrays["choice"] = np.zeros(rows, np.int32)
    if format == "bc":
        arrays["results"] = np.zeros((rows, RESULTS_SIZE), np.int32)
    else:
        arrays.update(state("next_"))
        arrays["terminal"] = np.zeros(rows, np.bool_)
        arrays["game_rank"] = np.full(rows, -1, np.int32)
        arrays["game_score"] = np.zeros(rows, np.int32)
    return arrays


def _put_state(arrays: dict[str, Array], prefix: str, row: int, state: State,
               limits: _Limits, line: SourceLine) -> None:
    for name, values, limit in (("sparse", state.sparse, limits.sparse),
                                ("progression", state.progression, limits.progression),
                                ("candidates", state.candidates, limits.candidates)):
        if len(values) > limit:
            what = "the next state's " if prefix else ""
            raise TrainingDataError(line.path, line.number,
                                    f"{what}{name} has {len(values)} elements, more than "
                                    f"max_{name}={limit}")
        arrays[prefix + name][row, :len(values)] = values
    arrays[prefix + "numeric"][row] = state.numeric


def _fill(format: Format, records: Sequence[tuple[Annotation | Transition, SourceLine]],
          limits: _Limits) -> dict[str, Array]:
    """The arrays of ``records`` (all of ``format``)."""
    arrays = _arrays(format, len(records), limits)
    for row, (record, line) in enumerate(records):
        _put_state(arrays, "", row, record.state, limits, line)
        arrays["choice"][row] = record.choice
        if isinstance(record, Annotation):
            arrays["results"][row] = record.results
        elif record.next_state is not None:
            _put_state(arrays, "next_", row, record.next_state, limits, line)
        else:
            arrays["terminal"][row] = True
            arrays["game_rank"][row] = record.game_rank
            arrays["game_score"][row] = record.game_score
    return arrays


def _format_of(record: Annotation | Transition) -> Format:
    return "bc" if isinstance(record, Annotation) else "rl"


def iter_batches(paths: Iterable[str | Path], batch_size: int, *,
                 format: Format | None = None, max_sparse: int = MAX_SPARSE,
                 max_progression: int = DEFAULT_MAX_PROGRESSION,
                 max_candidates: int = DEFAULT_MAX_CANDIDATES, drop_last: bool = False,
                 shard: tuple[int, int] = (0, 1)) -> Iterator[dict[str, Array]]:
    """Batches of ``batch_size`` samples (the last one smaller unless ``drop_last``) of the
    files' lines in turn, as dicts of arrays with a first dimension B (keys, shapes and
    padding: see the module's description), streamed. Raises ``ValueError`` for bad
    arguments and :class:`TrainingDataError` for a bad line (or one longer than a limit).
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    limits = _Limits(max_sparse, max_progression, max_candidates)
    limits.check()
    pending: list[tuple[Annotation | Transition, SourceLine]] = []
    for located in _located(paths, format, shard):
        pending.append(located)
        if len(pending) == batch_size:
            yield _fill(_format_of(pending[0][0]), pending, limits)
            pending = []
    if pending and not drop_last:
        yield _fill(_format_of(pending[0][0]), pending, limits)


def iter_samples(paths: Iterable[str | Path], *, format: Format | None = None,
                 max_sparse: int = MAX_SPARSE, max_progression: int = DEFAULT_MAX_PROGRESSION,
                 max_candidates: int = DEFAULT_MAX_CANDIDATES,
                 shard: tuple[int, int] = (0, 1)) -> Iterator[dict[str, Array]]:
    """The samples of the files' lines in turn, one dict of arrays each (``choice`` and the
    other scalars as 0-dimensional arrays); ``shard`` = (index, count): only every
    count-th line, from the index-th. See :func:`iter_batches`."""
    limits = _Limits(max_sparse, max_progression, max_candidates)
    limits.check()
    for located in _located(paths, format, shard):
        arrays = _fill(_format_of(located[0]), [located], limits)
        yield {key: value.reshape(value.shape[1:]) for key, value in arrays.items()}


class AnnotationDataset(FileDataset):
    """The samples of annotation files (BC or offline RL), one dict of arrays at a time
    (see :func:`iter_samples` and the module's description), read again on each iteration.

    A ``torch.utils.data.IterableDataset`` when torch can be imported, to give to a
    ``DataLoader``: each worker takes its share of the lines (worker ``i`` of ``n``:
    lines ``i``, ``i + n``, ...), and ``shard`` = (index, count) splits the lines between
    processes first (for example (rank, world size) in distributed training).
    """

    def __init__(self, paths: Iterable[str | Path], *, format: Format | None = None,
                 max_sparse: int = MAX_SPARSE, max_progression: int = DEFAULT_MAX_PROGRESSION,
                 max_candidates: int = DEFAULT_MAX_CANDIDATES,
                 shard: tuple[int, int] = (0, 1)) -> None:
        self.paths: tuple[str | Path, ...] = tuple(paths)
        self.format: Format | None = format
        self.max_sparse = max_sparse
        self.max_progression = max_progression
        self.max_candidates = max_candidates
        _Limits(max_sparse, max_progression, max_candidates).check()
        super().__init__(shard)

    def __iter__(self) -> Iterator[dict[str, Array]]:
        return iter_samples(self.paths, format=self.format, max_sparse=self.max_sparse,
                            max_progression=self.max_progression,
                            max_candidates=self.max_candidates, shard=self.share())

    def __repr__(self) -> str:
        return (f"AnnotationDataset({[str(path) for path in self.paths]!r}, "
                f"format={self.format!r}, shard={self.shard!r})")
