"""Training-data files whatever the game: their lines streamed, errors naming file and line,
shards of the lines, and a dataset base that is a PyTorch ``IterableDataset`` when it can.

A game's reader of its training format parses the lines :func:`read_lines` gives, raises
:class:`TrainingDataError` for a bad one, and subclasses :class:`FileDataset` for its
dataset (the format's samples, one at a time).

Files are read one after the other, streamed (plain, gzip or bz2, told by their first
bytes: :mod:`referee.core.compressed`; ``"-"`` is standard input), so memory stays flat.
A shard (index, count) is every count-th line from the index-th, counted over all the files
in turn. PyTorch is optional: when it can be imported, a :class:`FileDataset` is a
``torch.utils.data.IterableDataset`` (made so when the object is created: importing this
module never imports torch), and each ``DataLoader`` worker reads its share of the lines.
"""

from __future__ import annotations

import importlib
import types
from abc import ABCMeta, abstractmethod
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple, TypeVar, cast

from referee.core.compressed import DataFileError, open_text

__all__ = ["FileDataset", "SourceLine", "TrainingDataError", "check_shard", "read_lines",
           "worker_shard"]


class TrainingDataError(DataFileError):
    """A line of training data that is not in the format: the message is
    ``"<file>:<line>: <problem>"``; ``path``, ``line`` and ``problem`` hold the parts."""

    def __init__(self, path: str, line: int, problem: str) -> None:
        super().__init__(path, problem)
        self.line = line
        self.args = (f"{path}:{line}: {problem}",)


class SourceLine(NamedTuple):
    """A line of a file, without its end of line."""

    path: str
    """The file's name (``<stdin>`` for standard input)."""
    number: int
    """The line's number, from 1."""
    text: str
    """The line without ``"\\n"`` (or ``"\\r\\n"``)."""


def read_lines(paths: Iterable[str | Path]) -> Iterator[SourceLine]:
    """The lines of the files in turn (plain, gzip or bz2; ``"-"`` standard input), each
    without its ``"\\n"`` or ``"\\r\\n"``, streamed."""
    for path in paths:
        name = "<stdin>" if str(path) == "-" else str(path)
        with open_text(path) as stream:
            for number, line in enumerate(stream, 1):
                if line.endswith("\n"):
                    line = line[:-2] if line.endswith("\r\n") else line[:-1]
                yield SourceLine(name, number, line)


def check_shard(shard: tuple[int, int]) -> None:
    """``ValueError`` unless ``shard`` is (index, count) with 0 <= index < count."""
    index, count = shard
    if count < 1 or not 0 <= index < count:
        raise ValueError(f"shard must be (index, count) with 0 <= index < count, got {shard}")


def worker_shard() -> tuple[int, int]:
    """(worker id, number of workers) of the PyTorch ``DataLoader`` worker running this;
    (0, 1) in the main process or without torch."""
    try:
        data = importlib.import_module("torch.utils.data")
    except ImportError:
        return 0, 1
    info = data.get_worker_info()
    if info is None:
        return 0, 1
    return int(info.id), int(info.num_workers)


_D = TypeVar("_D", bound="FileDataset")
_TORCH_CLASSES: dict[tuple[type, type], type] = {}
_PLAIN_CLASS: dict[type, type] = {}


def _torch_class(cls: type[_D]) -> type[_D]:
    """``cls``, or (when torch can be imported) a subclass of it and of
    ``torch.utils.data.IterableDataset``, made once."""
    try:
        base = importlib.import_module("torch.utils.data").IterableDataset
    except ImportError:
        return cls
    if issubclass(cls, base):
        return cls
    made = _TORCH_CLASSES.get((cls, base))
    if made is None:
        def body(namespace: dict[str, Any]) -> None:
            namespace.update(__module__=cls.__module__, __qualname__=cls.__qualname__,
                             __doc__=cls.__doc__)

        made = types.new_class(cls.__name__, (cls, base), exec_body=body)
        _TORCH_CLASSES[(cls, base)] = made
        _PLAIN_CLASS[made] = cls
    return cast(type[_D], made)


def _restore(cls: type[FileDataset], state: dict[str, Any]) -> FileDataset:
    """A :class:`FileDataset` unpickled (on torch's base again if torch is there)."""
    dataset = cls.__new__(cls)
    dataset.__dict__.update(state)
    return dataset


class FileDataset(metaclass=ABCMeta):
    """The base of a dataset read from files again on each iteration: a subclass gives
    ``__iter__``, reading the lines of :meth:`share`.

    A ``torch.utils.data.IterableDataset`` when torch can be imported, to give to a
    ``DataLoader``: each worker takes its share of the lines (worker ``i`` of ``n``: lines
    ``i``, ``i + n``, ...), and ``shard`` = (index, count) splits the lines between
    processes first (for example (rank, world size) in distributed training). Pickled by
    its attributes, so a worker started by spawn gets it whole.
    """

    def __new__(cls, *args: Any, **kwargs: Any) -> FileDataset:
        return object.__new__(_torch_class(cls))

    def __init__(self, shard: tuple[int, int] = (0, 1)) -> None:
        check_shard(shard)
        self.shard = shard

    def share(self) -> tuple[int, int]:
        """The shard of the lines this process's worker reads: ``shard`` split again
        between the ``DataLoader`` workers."""
        index, count = self.shard
        worker, workers = worker_shard()
        return index * workers + worker, count * workers

    @abstractmethod
    def __iter__(self) -> Iterator[Any]:
        """The samples of this process's share of the lines (a subclass reads them)."""

    def __reduce__(self) -> tuple[Any, ...]:
        return _restore, (_PLAIN_CLASS.get(type(self), type(self)), dict(self.__dict__))
