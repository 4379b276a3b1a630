"""The training-data reader: lines parsed and checked (errors name file:line), padded
arrays of fixed shapes and dtypes, batches with their remainder, both formats, plain and
compressed files, worker sharding, and the dataset as a torch IterableDataset when torch
is there (a stand-in module when it is not)."""

from __future__ import annotations

import gzip
import pickle
import tracemalloc
import types
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import faketorch
from referee.core.compressed import DataFileError
from referee.games.riichi.kanachan.annotate4rl import annotate4rl
from referee.games.riichi.kanachan.dataset import (
    CANDIDATE_PADDING,
    DEFAULT_MAX_CANDIDATES,
    DEFAULT_MAX_PROGRESSION,
    MAX_SPARSE,
    PROGRESSION_PADDING,
    SPARSE_PADDING,
    Annotation,
    AnnotationDataset,
    Transition,
    detect_format,
    iter_batches,
    iter_records,
    iter_samples,
    parse_annotation,
    parse_line,
    parse_transition,
)
from referee.training import datafiles
from referee.training.datafiles import FileDataset, TrainingDataError, worker_shard
from textfiles import write

HAND = (353, 358, 362, 390, 394, 398, 426, 430, 434, 461, 462, 465, 466)


def ints(values: Sequence[int]) -> str:
    return ",".join(map(str, values))


def sparse_of(seat: int, *, doras: int = 1, drawn: bool = True) -> list[int]:
    sparse = [3, 6, 7 + seat, 11, 14, *(18 + 37 * k + 4 for k in range(doras)), 203 + 60]
    sparse += [282, 290, 301, 309, 319, 331, 340, 351]  # grades and ranks of the 4 players
    return sparse + [*HAND] + ([489 + 8] if drawn else [])


def bc(index: int, *, game: str = "g", seat: int | None = None, doras: int = 1,
       drawn: bool = True, progression: int | None = None, candidates: int | None = None,
       choice: int | None = None) -> str:
    """BC line number ``index``: its honba (numeric 0) is ``index``, to tell lines apart;
    lengths vary with it unless given."""
    seat = index % 4 if seat is None else seat
    length = 1 + index % 9 if progression is None else progression
    count = 1 + index % 5 if candidates is None else candidates
    numeric = [index, 1, 25000 - 100 * index, 32000, 18000, -1200]
    events = [0] + [5 + (i % 4) * 148 + (i % 37) * 4 for i in range(length - 1)]
    options = [min(4 * i, 545) for i in range(count)]
    results = [3, 8000, -2000, -4000, -2000, 0, 1, 2, 3, seat, 30000 - 9000 * seat, -45]
    return "\t".join([game, ints(sparse_of(seat, doras=doras, drawn=drawn)), ints(numeric),
                      ints(events), ints(options), str(index % count if choice is None
                                                        else choice), ints(results)])



def honbas(arrays: Iterator[dict[str, Any]] | list[dict[str, Any]]) -> list[int]:
    """The line numbers (honba) of samples or batches, in order."""
    out: list[int] = []
    for item in arrays:
        out.extend(np.atleast_2d(item["numeric"])[:, 0].tolist())
    return out


@pytest.fixture
def bc_file(tmp_path: Path) -> Path:
    return write(tmp_path / "bc.txt", [bc(i) for i in range(10)])


@pytest.fixture
def rl_file(tmp_path: Path) -> Path:
    """Offline-RL lines made from two games of BC lines by annotate4rl."""
    lines = [bc(i, game="first", progression=i + 1) for i in range(9)]
    lines += [bc(i, game="second", progression=i - 8) for i in range(9, 15)]
    annotate4rl([write(tmp_path / "games.txt", lines)], tmp_path / "rl.txt")
    return tmp_path / "rl.txt"


# --- records ---------------------------------------------------------------------------------

def test_parse_annotation() -> None:
    line = bc(6, seat=2, progression=4, candidates=3, choice=2)
    record = parse_annotation(line)
    assert isinstance(record, Annotation)
    assert record.game_id == "g" and record.state.seat == 2 and record.choice == 2
    assert record.state.sparse.tolist() == sparse_of(2)
    assert record.state.numeric.tolist() == [6, 1, 24400, 32000, 18000, -1200]
    assert record.state.progression.tolist() == [0, 5, 157, 309]
    assert record.state.candidates.tolist() == [0, 4, 8]
    assert record.results.tolist()[9:11] == [2, 12000]
    assert (record.game_rank, record.game_score) == (2, 12000)
    assert record.to_line() == line


def test_parse_transition_both_forms() -> None:
    first, second = parse_annotation(bc(1, seat=3)), parse_annotation(bc(5, seat=3))
    line = "\t".join([first.state.to_fields(), "1", second.state.to_fields()])
    transition = parse_transition(line)
    assert not transition.terminal and transition.choice == 1
    assert transition.next_state is not None
    assert transition.next_state.progression.tolist() == second.state.progression.tolist()
    assert (transition.game_rank, transition.game_score) == (None, None)
    assert transition.to_line() == line

    terminal = parse_transition(f"{first.state.to_fields()}\t0\t3\t-2500")
    assert terminal.terminal and terminal.next_state is None
    assert (terminal.game_rank, terminal.game_score) == (3, -2500)
    assert terminal.to_line() == f"{first.state.to_fields()}\t0\t3\t-2500"
    assert isinstance(parse_line(line, "rl"), Transition)
    assert isinstance(parse_line(bc(0), "bc"), Annotation)


def test_detect_format() -> None:
    state = parse_annotation(bc(0)).state.to_fields()
    assert detect_format(bc(0)) == "bc"
    assert detect_format(f"{state}\t0\t{state}") == "rl"
    assert detect_format(f"{state}\t0\t1\t25000") == "rl"
    with pytest.raises(TrainingDataError, match=r"^x\.txt:4: 5 fields: neither"):
        detect_format("a\tb\tc\td\te", path="x.txt", line_number=4)


def test_the_largest_sparse_fits(tmp_path: Path) -> None:
    # 5 doras, 13 tiles in hand and a drawn one: every sparse feature there can be
    line = bc(0, doras=5, drawn=True)
    assert len(parse_annotation(line).state.sparse) == MAX_SPARSE == 33
    (batch,) = iter_batches([write(tmp_path / "full.txt", [line])], 4)
    assert (batch["sparse"][0] != SPARSE_PADDING).all()


RL_BAD = {
    "5 fields": ("{s}\t0", "5 fields, an offline-RL line has 9 or 7"),
    "bc line": (None, "a behavioural-cloning line, not an offline-RL one"),
    "rank 4": ("{s}\t0\t4\t25000", "field 5 (game rank): 4 is out of range (0..3)"),
    "two scores": ("{s}\t0\t1\t25000,3", "a behavioural-cloning line"),
    "seats differ": ("{s}\t0\t{other}", "the next state is seat 1's, the first seat 0's"),
    "bad next": ("{s}\t0\t{bad}", "field 8 (candidates): 546 is out of range"),
    "choice": ("{s}\t1\t1\t0", "field 4 (choice): 1 is not an index into the 1 candidates"),
}


@pytest.mark.parametrize("name", sorted(RL_BAD))
def test_bad_rl_lines(name: str) -> None:
    state = parse_annotation(bc(0, seat=0, candidates=1)).state.to_fields()
    other = parse_annotation(bc(1, seat=1)).state.to_fields()
    bad = state.rsplit("\t", 1)[0] + "\t8,546"
    template, problem = RL_BAD[name]
    line = bc(0) if template is None else template.format(s=state, other=other, bad=bad)
    with pytest.raises(TrainingDataError) as caught:
        parse_transition(line, path="rl.txt", line_number=7)
    assert str(caught.value).startswith("rl.txt:7: ")
    assert problem in str(caught.value), str(caught.value)


# --- batches ---------------------------------------------------------------------------------

def test_bc_batches(bc_file: Path) -> None:
    batches = list(iter_batches([bc_file], 4))
    assert [len(batch["choice"]) for batch in batches] == [4, 4, 2]  # the remainder too
    assert honbas(batches) == list(range(10))
    first = batches[0]
    assert set(first) == {"sparse", "numeric", "progression", "candidates", "choice",
                          "results"}
    shapes = {key: value.shape for key, value in first.items()}
    assert shapes == {"sparse": (4, MAX_SPARSE), "numeric": (4, 6),
                      "progression": (4, DEFAULT_MAX_PROGRESSION),
                      "candidates": (4, DEFAULT_MAX_CANDIDATES), "choice": (4,),
                      "results": (4, 12)}
    assert all(value.dtype == np.int32 for value in first.values())
    records = [parse_annotation(bc(i)) for i in range(10)]
    rows = [(batch, row) for batch in batches for row in range(len(batch["choice"]))]
    for record, (batch, row) in zip(records, rows, strict=True):
        for key, values, padding in (
                ("sparse", record.state.sparse, SPARSE_PADDING),
                ("progression", record.state.progression, PROGRESSION_PADDING),
                ("candidates", record.state.candidates, CANDIDATE_PADDING)):
            got = batch[key][row]
            assert got[:len(values)].tolist() == values.tolist()
            assert (got[len(values):] == padding).all()  # padded with the spec's token
        assert batch["numeric"][row].tolist() == record.state.numeric.tolist()
        assert batch["choice"][row] == record.choice
        assert batch["results"][row].tolist() == record.results.tolist()
    assert (batches[0]["numeric"][:, 5] == -1200).all()  # negative scores kept


def test_drop_last_and_exact_batches(bc_file: Path) -> None:
    assert [len(b["choice"]) for b in iter_batches([bc_file], 4, drop_last=True)] == [4, 4]
    assert [len(b["choice"]) for b in iter_batches([bc_file], 5)] == [5, 5]
    assert [len(b["choice"]) for b in iter_batches([bc_file], 64)] == [10]


def test_rl_batches(rl_file: Path) -> None:
    records = list(iter_records([rl_file]))
    assert all(isinstance(record, Transition) for record in records)
    assert sum(record.terminal for record in records if isinstance(record, Transition)) == 8
    (batch,) = iter_batches([rl_file], 100)
    assert set(batch) == {
        "sparse", "numeric", "progression", "candidates", "choice", "next_sparse",
        "next_numeric", "next_progression", "next_candidates", "terminal", "game_rank",
        "game_score"}
    assert batch["terminal"].dtype == np.bool_ and batch["next_sparse"].shape == (15, 33)
    for row, record in enumerate(records):
        assert isinstance(record, Transition)
        assert batch["terminal"][row] == record.terminal
        assert batch["progression"][row, :len(record.state.progression)].tolist() == \
            record.state.progression.tolist()
        if record.next_state is None:
            assert (batch["next_sparse"][row] == SPARSE_PADDING).all()
            assert (batch["next_progression"][row] == PROGRESSION_PADDING).all()
            assert (batch["next_candidates"][row] == CANDIDATE_PADDING).all()
            assert (batch["next_numeric"][row] == 0).all()
            assert batch["game_rank"][row] == record.game_rank
            assert batch["game_score"][row] == record.game_score
        else:
            state = record.next_state
            assert batch["next_numeric"][row].tolist() == state.numeric.tolist()
            count = len(state.candidates)
            assert batch["next_candidates"][row, :count].tolist() == state.candidates.tolist()
            assert (batch["next_candidates"][row, count:] == CANDIDATE_PADDING).all()
            assert (batch["game_rank"][row], batch["game_score"][row]) == (-1, 0)
    # seat 0 of the first game: points 0, 4, 8; the last is terminal, rank 0, score 30000
    seat0 = [row for row in range(9) if batch["sparse"][row, 2] == 7]
    assert batch["terminal"][seat0].tolist() == [False, False, True]
    assert (batch["game_rank"][seat0[-1]], batch["game_score"][seat0[-1]]) == (0, 30000)
    assert batch["next_numeric"][seat0[0], 0] == 4  # the honba of point 4


def test_compressed_and_several_files(tmp_path: Path) -> None:
    lines = [bc(i) for i in range(12)]
    files = [write(tmp_path / "a.gz", lines[:5]), write(tmp_path / "b.bz2", lines[5:9]),
             write(tmp_path / "c.txt", lines[9:])]
    batches = list(iter_batches(files, 5))
    assert [len(b["choice"]) for b in batches] == [5, 5, 2]
    assert honbas(batches) == list(range(12))
    plain = list(iter_batches([write(tmp_path / "all.txt", lines)], 5))
    for one, other in zip(batches, plain, strict=True):
        assert one.keys() == other.keys()
        assert all(np.array_equal(one[key], other[key]) for key in one)


def test_empty_files(tmp_path: Path) -> None:
    empty = write(tmp_path / "empty.gz", [])
    assert list(iter_batches([empty], 4)) == []
    assert list(iter_samples([empty, empty])) == []


def test_samples(bc_file: Path, rl_file: Path) -> None:
    samples = list(iter_samples([bc_file], max_progression=16, max_candidates=8))
    assert len(samples) == 10 and honbas(samples) == list(range(10))
    sample = samples[3]
    assert sample["sparse"].shape == (33,) and sample["progression"].shape == (16,)
    assert sample["candidates"].shape == (8,) and sample["results"].shape == (12,)
    assert sample["choice"].shape == () and int(sample["choice"]) == 3 % 4
    rl = list(iter_samples([rl_file]))
    assert [bool(s["terminal"]) for s in rl].count(True) == 8
    assert all(s["terminal"].shape == () and s["game_rank"].shape == () for s in rl)


# --- limits and errors -----------------------------------------------------------------------

def test_lines_longer_than_the_limits(tmp_path: Path) -> None:
    lines = [bc(0), bc(1, progression=20), bc(2, candidates=9)]
    source = write(tmp_path / "long.gz", lines)
    with pytest.raises(TrainingDataError, match=r"long\.gz:2: progression has 20 elements, "
                                                r"more than max_progression=19"):
        list(iter_batches([source], 2, max_progression=19))
    with pytest.raises(TrainingDataError, match=r"long\.gz:3: candidates has 9 elements, "
                                                r"more than max_candidates=8"):
        list(iter_samples([source], max_candidates=8))
    with pytest.raises(TrainingDataError, match=r"long\.gz:1: sparse has 29 elements"):
        list(iter_batches([source], 2, max_sparse=28))
    (batch,) = iter_batches([source], 3, max_progression=20, max_candidates=9)
    assert batch["progression"].shape == (3, 20) and (batch["progression"][1] != 2165).all()


def test_the_next_state_is_held_to_the_limits(tmp_path: Path) -> None:
    small, large = parse_annotation(bc(0, progression=3)), parse_annotation(bc(4, seat=0,
                                                                               progression=30))
    line = f"{small.state.to_fields()}\t0\t{large.state.to_fields()}"
    source = write(tmp_path / "rl.txt", [line])
    with pytest.raises(TrainingDataError, match=r"rl\.txt:1: the next state's progression "
                                                r"has 30 elements"):
        list(iter_batches([source], 1, max_progression=29))


@pytest.mark.parametrize(("bad", "problem"), [
    (lambda line: line.replace("\t3,6,", "\t3,526,", 1), "526 is out of range (0..525)"),
    (lambda line: line.replace("\t0\t", "\t0,2165\t", 1), "2165 is out of range (0..2164)"),
    (lambda line: line.replace("\t3,6,", "\t3,6,9,", 1), "2 seat features"),
    (lambda line: line.rsplit("\t", 2)[0] + "\t7\t" + line.rsplit("\t", 1)[1],
     "7 is not an index"),
    (lambda line: line + "\t1", "8 fields"),
])
def test_out_of_range_values_name_file_and_line(tmp_path: Path, bad: Any,
                                                problem: str) -> None:
    lines = [bc(i) for i in range(6)]
    lines[4] = bad(bc(4, progression=1, candidates=5))
    source = write(tmp_path / "data.bz2", lines)
    with pytest.raises(TrainingDataError) as caught:
        list(iter_batches([source], 2))
    assert isinstance(caught.value, DataFileError)
    assert str(caught.value).startswith(f"{source}:5: "), str(caught.value)
    assert problem in str(caught.value), str(caught.value)


def test_one_format_per_reading(tmp_path: Path, rl_file: Path) -> None:
    with pytest.raises(TrainingDataError, match=r"rl\.txt:1: 9 fields, a behavioural-cloning "
                                                r"line has 7 \(an offline-RL line\?\)"):
        list(iter_batches([rl_file], 4, format="bc"))
    mixed = write(tmp_path / "mixed.txt", [bc(0), bc(1), rl_file.read_text().split("\n")[0]])
    with pytest.raises(TrainingDataError, match=r"mixed\.txt:3: 9 fields"):
        list(iter_samples([mixed]))
    with pytest.raises(TrainingDataError, match=r"bc\.txt:1: 7 fields with several results"):
        list(iter_samples([write(tmp_path / "bc.txt", [bc(0)])], format="rl"))


def test_bad_arguments(bc_file: Path) -> None:
    with pytest.raises(ValueError, match="batch_size"):
        next(iter_batches([bc_file], 0))
    with pytest.raises(ValueError, match="max_progression must be at least 1"):
        next(iter_batches([bc_file], 4, max_progression=0))
    for shard in ((2, 2), (0, 0), (-1, 3)):
        with pytest.raises(ValueError, match="shard"):
            next(iter_samples([bc_file], shard=shard))
        with pytest.raises(ValueError, match="shard"):
            AnnotationDataset([bc_file], shard=shard)
    with pytest.raises(DataFileError, match="cannot open"):
        next(iter_samples([bc_file.parent / "missing.txt"]))


def test_memory_stays_flat(tmp_path: Path) -> None:
    source = tmp_path / "big.gz"
    with gzip.open(source, "wt", compresslevel=1) as stream:
        for i in range(20_000):
            stream.write(bc(i, progression=1 + i % 100) + "\n")
    tracemalloc.start()
    try:
        count = 0
        for batch in iter_batches([source], 256):
            count += len(batch["choice"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 20_000
    assert peak < 2 * 1024 * 1024, peak  # a batch is 256 * 195 * 4 bytes, about 200 KB


# --- sharding and the dataset ----------------------------------------------------------------

@pytest.mark.parametrize("workers", [1, 2, 3, 4, 7])
def test_shards_split_the_lines(tmp_path: Path, workers: int) -> None:
    files = [write(tmp_path / "a.gz", [bc(i) for i in range(7)]),
             write(tmp_path / "b.txt", [bc(i) for i in range(7, 17)])]
    seen: list[int] = []
    for worker in range(workers):
        mine = honbas(iter_samples(files, shard=(worker, workers)))
        assert mine == list(range(17))[worker::workers]  # every n-th line, across files
        seen += mine
    assert sorted(seen) == list(range(17))  # each line once
    last = workers - 1
    assert honbas(iter_batches(files, 2, shard=(last, workers))) == \
        list(range(17))[last::workers]


def test_the_dataset_shards_by_worker(bc_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dataset = AnnotationDataset([bc_file])
    assert honbas(dataset) == list(range(10))
    assert honbas(dataset) == list(range(10))  # read again on each iteration
    monkeypatch.setattr(datafiles, "worker_shard", lambda: (2, 3))
    assert honbas(dataset) == [2, 5, 8]
    # processes first (rank 1 of 2), then workers (2 of 3): shard 1 * 3 + 2 = 5 of 6
    assert honbas(AnnotationDataset([bc_file], shard=(1, 2))) == [5]
    monkeypatch.setattr(datafiles, "worker_shard", lambda: (0, 3))
    assert honbas(AnnotationDataset([bc_file], shard=(1, 2))) == [3, 9]


def test_without_torch_a_plain_class(bc_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    faketorch.hide(monkeypatch)
    dataset = AnnotationDataset([bc_file], max_candidates=8)
    assert type(dataset) is AnnotationDataset
    assert type(dataset).__mro__ == (AnnotationDataset, FileDataset, object)
    assert worker_shard() == (0, 1)
    copy = pickle.loads(pickle.dumps(dataset))
    assert type(copy) is AnnotationDataset and copy.max_candidates == 8
    assert honbas(copy) == list(range(10))


@pytest.fixture
def fake_torch(monkeypatch: pytest.MonkeyPatch) -> types.SimpleNamespace:
    """A stand-in for torch.utils.data (:func:`faketorch.install`)."""
    return faketorch.install(monkeypatch)


def test_with_torch_an_iterable_dataset(bc_file: Path,
                                        fake_torch: types.SimpleNamespace) -> None:
    dataset = AnnotationDataset([bc_file], max_progression=12)
    assert isinstance(dataset, fake_torch.base) and isinstance(dataset, AnnotationDataset)
    assert type(dataset).__name__ == "AnnotationDataset"
    assert type(AnnotationDataset([bc_file])) is type(dataset)  # the class is made once
    assert worker_shard() == (0, 1)  # the main process
    assert honbas(dataset) == list(range(10))
    fake_torch.info = types.SimpleNamespace(id=1, num_workers=3)
    assert worker_shard() == (1, 3)
    assert honbas(dataset) == [1, 4, 7]
    copy = pickle.loads(pickle.dumps(dataset))  # as for a worker started by spawn
    assert isinstance(copy, fake_torch.base) and copy.max_progression == 12
    assert honbas(copy) == [1, 4, 7]
    assert next(iter(copy))["progression"].shape == (12,)


@pytest.mark.parametrize("workers", [0, 2])
def test_a_torch_data_loader(tmp_path: Path, workers: int) -> None:
    torch = pytest.importorskip(
        "torch", reason="torch is not installed (the test extra has its CPU wheel, torch==2.13.0)")
    from torch.utils.data import DataLoader

    source = write(tmp_path / "bc.gz", [bc(i) for i in range(23)])
    dataset = AnnotationDataset([source])
    assert isinstance(dataset, torch.utils.data.IterableDataset)
    loader = DataLoader(dataset, batch_size=4, num_workers=workers)
    seen: list[int] = []
    for batch in loader:
        assert batch["sparse"].shape[1:] == (MAX_SPARSE,)
        assert batch["sparse"].dtype == torch.int32
        seen += batch["numeric"][:, 0].tolist()
    assert sorted(seen) == list(range(23))
