"""Training-data files whatever the game: lines streamed with their file and number, errors
naming both, shards, and the dataset base (plain without torch, a torch IterableDataset
with it, split between processes and workers, pickled whole)."""

from __future__ import annotations

import gzip
import importlib.util
import io
import pickle
import sys
import types
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

import faketorch
from referee.core.compressed import DataFileError
from referee.training import datafiles
from referee.training.datafiles import (
    FileDataset,
    SourceLine,
    TrainingDataError,
    check_shard,
    read_lines,
    worker_shard,
)
from textfiles import write


class Lines(FileDataset):
    """The texts of the lines of this worker's share."""

    def __init__(self, paths: Iterable[Path], *, shard: tuple[int, int] = (0, 1)) -> None:
        self.paths = tuple(paths)
        super().__init__(shard)

    def __iter__(self) -> Iterator[str]:
        index, count = self.share()
        for position, line in enumerate(read_lines(self.paths)):
            if position % count == index:
                yield line.text


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    """Ten lines ``0`` .. ``9`` in three files, plain, gzip and bz2."""
    return [write(tmp_path / "a.txt", ["0", "1", "2"]), write(tmp_path / "b.gz", ["3", "4"]),
            write(tmp_path / "c.bz2", [str(i) for i in range(5, 10)])]


@pytest.fixture
def fake_torch(monkeypatch: pytest.MonkeyPatch) -> types.SimpleNamespace:
    """A stand-in for torch.utils.data (:func:`faketorch.install`)."""
    return faketorch.install(monkeypatch)


def test_lines_come_in_turn_with_their_file_and_number(files: list[Path]) -> None:
    lines = list(read_lines(files))
    assert [line.text for line in lines] == [str(i) for i in range(10)]
    assert lines[3] == SourceLine(str(files[1]), 1, "3")
    assert lines[-1] == SourceLine(str(files[2]), 5, "9")


def test_line_ends_are_taken_off_and_nothing_else(tmp_path: Path) -> None:
    source = tmp_path / "ends.txt"
    source.write_bytes(b"crlf\r\nlone\rcr\n\n last")
    assert [line.text for line in read_lines([source])] == ["crlf", "lone\rcr", "", " last"]


def test_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(b"x\ny\n"))))
    assert list(read_lines(["-"])) == [SourceLine("<stdin>", 1, "x"),
                                       SourceLine("<stdin>", 2, "y")]


def test_a_missing_file_is_a_data_file_error(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match="cannot open"):
        list(read_lines([tmp_path / "missing.txt"]))


def test_an_error_names_file_and_line() -> None:
    error = TrainingDataError("games.txt", 12, "field 3: empty")
    assert str(error) == "games.txt:12: field 3: empty"
    assert (error.path, error.line, error.problem) == ("games.txt", 12, "field 3: empty")
    assert isinstance(error, DataFileError)


def test_shards() -> None:
    check_shard((0, 1))
    check_shard((6, 7))
    for shard in ((2, 2), (0, 0), (-1, 3)):
        with pytest.raises(ValueError, match="shard"):
            check_shard(shard)
    with pytest.raises(ValueError, match="shard"):
        Lines([], shard=(1, 1))


def test_processes_first_then_workers(files: list[Path],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    assert list(Lines(files)) == [str(i) for i in range(10)]
    monkeypatch.setattr(datafiles, "worker_shard", lambda: (2, 3))
    assert list(Lines(files)) == ["2", "5", "8"]
    # rank 1 of 2, worker 2 of 3: shard 1 * 3 + 2 = 5 of 6
    assert Lines(files, shard=(1, 2)).share() == (5, 6)
    assert list(Lines(files, shard=(1, 2))) == ["5"]
    monkeypatch.setattr(datafiles, "worker_shard", lambda: (0, 3))
    assert list(Lines(files, shard=(1, 2))) == ["3", "9"]


def test_without_torch_a_plain_class(files: list[Path],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    faketorch.hide(monkeypatch)
    dataset = Lines(files, shard=(1, 2))
    assert type(dataset).__mro__ == (Lines, FileDataset, object)
    assert worker_shard() == (0, 1)
    copy = pickle.loads(pickle.dumps(dataset))
    assert type(copy) is Lines and copy.shard == (1, 2) and copy.paths == dataset.paths
    assert list(copy) == ["1", "3", "5", "7", "9"]


def test_with_torch_an_iterable_dataset(files: list[Path],
                                        fake_torch: types.SimpleNamespace) -> None:
    dataset = Lines(files)
    assert isinstance(dataset, fake_torch.base) and isinstance(dataset, Lines)
    assert type(dataset).__name__ == "Lines" and type(dataset).__doc__ == Lines.__doc__
    assert type(Lines(files)) is type(dataset)  # the class is made once
    assert worker_shard() == (0, 1)  # the main process
    fake_torch.info = types.SimpleNamespace(id=1, num_workers=3)
    assert worker_shard() == (1, 3)
    assert list(dataset) == ["1", "4", "7"]
    copy = pickle.loads(pickle.dumps(dataset))  # as for a worker started by spawn
    assert isinstance(copy, fake_torch.base) and type(copy) is type(dataset)
    assert list(copy) == ["1", "4", "7"]


TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(
    not TORCH, reason="torch is not installed (the test extra has its CPU wheel, torch==2.13.0)")


@needs_torch
@pytest.mark.parametrize(("workers", "context"), [(0, None), (2, "fork"), (2, "spawn")])
def test_a_real_torch_data_loader(files: list[Path], workers: int, context: str | None) -> None:
    from torch.utils.data import DataLoader, IterableDataset, get_worker_info

    assert get_worker_info() is None
    dataset = Lines(files)
    assert isinstance(dataset, IterableDataset) and isinstance(dataset, Lines)
    loader = DataLoader(dataset, batch_size=None, num_workers=workers,
                        multiprocessing_context=context)
    # each worker reads its share: every line once (unshared, n workers would give each
    # line n times); the loader takes the workers' samples in turn, so the order is kept
    assert list(loader) == [str(i) for i in range(10)]
    assert list(loader) == [str(i) for i in range(10)]  # read again on each iteration


@needs_torch
def test_real_torch_workers_of_two_processes_split_the_lines(files: list[Path]) -> None:
    from torch.utils.data import DataLoader

    seen = []
    for rank in (0, 1):
        loader = DataLoader(Lines(files, shard=(rank, 2)), batch_size=2, num_workers=2)
        batches = list(loader)
        assert all(isinstance(batch, list) and len(batch) <= 2 for batch in batches)
        seen += [line for batch in batches for line in batch]
    assert sorted(seen, key=int) == [str(i) for i in range(10)]  # all, none twice


def test_the_base_reads_nothing_itself() -> None:
    with pytest.raises(TypeError, match="abstract .*__iter__"):  # not even made
        iter(FileDataset())  # type: ignore[abstract]
