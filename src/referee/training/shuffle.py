"""Shuffle the lines of files larger than memory (an external shuffle).

Learning programs read training data in order, so the decision points of one round must
not come clustered: :func:`shuffle_lines` puts the lines of one or more files in a uniformly
random order, holding at most about ``memory`` bytes of lines at any time.

How it works:

1. If the whole input fits in half the budget, it is shuffled in memory and written.
2. Otherwise pass 1 streams the input and deals every line to one of ``K`` temporary
   bucket files, each line's bucket drawn uniformly at random. ``K`` is chosen from the
   input's size (files on disk; a compressed file is assumed to expand ten times, standard
   input to be large) so that a bucket takes about 40 % of the budget.
3. Pass 2 takes the buckets in a random order; each is read, shuffled in memory (a
   uniformly random permutation) and written out. A bucket that turns out too big for the
   budget (a low estimate, or bad luck) is dealt again into smaller buckets, recursively.

Dealing lines independently and uniformly to buckets and then shuffling each bucket
uniformly gives every order of the lines the same chance, whatever the number of
buckets and however they are split again.

The cost of a line in memory is taken as its length plus :data:`LINE_COST` bytes (Python's
bookkeeping). Lines are bytes, kept exactly: only ``"\\n"`` ends a line, and a last line
without it gets one. Inputs and output may be plain, gzip or bz2
(:mod:`referee.core.compressed`); ``"-"`` is standard input or output. The output is
written to a hidden file beside it and renamed at the end, so it may be one of the inputs,
and no half-written output is left behind. Temporary files go to a fresh folder (in
``temp_dir``, or beside the output), removed at the end, on errors and on Ctrl-C too.
The same inputs, seed and budget always give the same output (with the same numpy, whose
PCG64 generator draws the order).
"""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import shutil
import signal
import stat
import tempfile
from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

import numpy as np

from referee.core.compressed import (
    DataFileError,
    compression_for_name,
    detect_compression,
    discard_output,
    open_bytes,
)
from referee.core.interrupts import raise_if_asked
from referee.core.text import parse_size

__all__ = [
    "DEFAULT_MEMORY", "LINES_GZIP_LEVEL", "LINE_COST", "MIN_MEMORY", "AtomicOutput",
    "ShuffleResult", "parse_size",
    "shuffle_lines",
]

KIB = 1024
MIB = 1024 * KIB
DEFAULT_MEMORY = 256 * MIB
"""The default memory budget: 256 MiB."""
MIN_MEMORY = 64 * KIB
"""The smallest memory budget accepted."""
LINE_COST = 64
"""Bytes of Python bookkeeping counted per line held in memory, besides its text (the
bytes object's header, its list slot, its place in the permutation)."""

_FIT = 0.5  # a bucket (or the whole input) of at most this share of the budget is shuffled
_TARGET = 0.4  # buckets are sized for this share of the budget
_EXPANSION = 10  # a compressed file is assumed to hold this many times its size
_BUCKET_COST = 4096  # bytes of bookkeeping per open bucket file: at most budget / this
_MAX_DEPTH = 40  # buckets split again this often are shuffled in memory anyway
def _max_buckets() -> int:
    """Bucket files open at once in pass 1: at most 256, and well within the process's
    limit of open files."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Unix
        return 256
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 256 if soft == resource.RLIM_INFINITY else max(2, min(256, soft // 2))


@dataclass(frozen=True)
class ShuffleResult:
    """What a shuffle did."""

    lines: int
    """Lines written (as many as read)."""
    bytes: int
    """Bytes of lines written (before any compression), a newline added to a last line."""
    buckets: int
    """Temporary bucket files written, at every level (0: shuffled in memory)."""
    resplits: int
    """Buckets that did not fit in the budget and were dealt again into smaller ones."""
    seed: int
    """The seed used (drawn at random when none was given)."""


@dataclass(slots=True)
class _Bucket:
    """One temporary file of lines, each ending in ``"\\n"``."""

    path: str
    file: BinaryIO | None
    size: int = 0
    lines: int = 0

    @property
    def cost(self) -> int:
        return self.size + LINE_COST * self.lines

    def write(self, data: bytes) -> None:
        assert self.file is not None
        view = memoryview(data)
        while view:
            written = self.file.write(view)
            view = view[written:]


def _blocks(stream: BinaryIO, size: int) -> Iterator[tuple[list[bytes], int]]:
    """The lines of ``stream`` (without their ``"\\n"``), as lists read ``size`` bytes at a
    time, each with its size in bytes (newlines included); a last line without ``"\\n"``
    counts as a line (and its newline as a byte)."""
    pieces: list[bytes] = []  # the start of a line that goes on in the next read
    held = 0  # bytes in pieces
    while block := stream.read(size):
        raise_if_asked()  # (an interrupt whose raise a finalizer swallowed)
        parts = block.split(b"\n")
        if len(parts) == 1:
            pieces.append(block)
            held += len(block)
            continue
        if pieces:
            pieces.append(parts[0])
            parts[0] = b"".join(pieces)
            pieces = []
        tail = parts.pop()
        yield parts, held + len(block) - len(tail)
        held = len(tail)
        if tail:
            pieces.append(tail)
    if pieces:
        yield [b"".join(pieces)], held + 1


def _input_blocks(inputs: Sequence[str | Path],
                  size: int) -> Generator[tuple[list[bytes], int], None, None]:
    """The lines of every input in turn (see :func:`_blocks`)."""
    for path in inputs:
        with open_bytes(path) as stream:
            yield from _blocks(stream, size)


class _Shuffler:
    """The state of one shuffle: generator, budget, temporary folder, output, counts."""

    def __init__(self, rng: np.random.Generator, memory: int, temp: Path | None,
                 out: BinaryIO) -> None:
        self.rng = rng
        self.memory = memory
        self.chunk = min(max(memory // 16, 4 * KIB), 8 * MIB)
        self.temp = temp
        self.out = out
        self.max_buckets = _max_buckets()
        self.buckets = 0
        self.resplits = 0

    def fits(self, cost: int) -> bool:
        """Whether lines of this cost are shuffled in memory."""
        return cost <= _FIT * self.memory

    def bucket_count(self, cost: float | None) -> int:
        """Buckets for lines of about this cost (None: unknown, as many as allowed)."""
        wanted = self.max_buckets if cost is None else math.ceil(cost / (_TARGET * self.memory))
        return max(2, min(self.max_buckets, self.memory // _BUCKET_COST, wanted))

    def emit(self, lines: list[bytes], size: int, ended: bool) -> None:
        """Write ``lines`` (``size`` bytes in all) in a random order; ``ended``: each
        already ends with its ``"\\n"``."""
        count = len(lines)
        if count == 0:
            return
        order = self.rng.permutation(count)
        step = max(1, self.chunk // max(1, size // count))
        glue = b"" if ended else b"\n"
        for start in range(0, count, step):
            self.out.write(glue.join([lines[i] for i in order[start:start + step].tolist()]))
            if not ended:
                self.out.write(b"\n")

    def deal(self, blocks: Iterable[tuple[list[bytes], int]], count: int) -> list[_Bucket]:
        """Deal the lines of ``blocks`` to ``count`` new bucket files at random."""
        assert self.temp is not None
        buckets: list[_Bucket] = []
        try:
            for _ in range(count):
                self.buckets += 1
                path = os.path.join(self.temp, f"{self.buckets:07d}")
                buckets.append(_Bucket(path, open(path, "xb", buffering=0)))  # noqa: SIM115
            for block, _ in blocks:
                if not block:
                    continue
                ids = self.rng.integers(0, count, len(block), dtype=np.uint16)
                sizes = np.bincount(ids, minlength=count).tolist()
                order = np.argsort(ids, kind="stable").tolist()
                dealt = [block[i] for i in order]
                del ids, order
                start = 0
                for bucket, size in zip(buckets, sizes, strict=True):
                    if size:
                        data = b"\n".join(dealt[start:start + size])
                        bucket.write(data)
                        bucket.write(b"\n")
                        bucket.size += len(data) + 1
                        bucket.lines += size
                        start += size
        finally:
            for bucket in buckets:
                if bucket.file is not None:
                    bucket.file.close()
                    bucket.file = None
        return buckets

    def drain(self, bucket: _Bucket, depth: int) -> None:
        """Write the lines of ``bucket`` in a random order (dealing them again into smaller
        buckets first if they do not fit), then delete its file."""
        if bucket.lines <= 1:
            with open(bucket.path, "rb") as file:
                shutil.copyfileobj(file, self.out, self.chunk)
        elif self.fits(bucket.cost) or depth >= _MAX_DEPTH:
            with open(bucket.path, "rb") as file:
                lines = file.readlines()
            self.emit(lines, bucket.size, ended=True)
            del lines
        else:
            self.resplits += 1
            with open(bucket.path, "rb") as file:
                smaller = self.deal(_blocks(file, self.chunk), self.bucket_count(bucket.cost))
            os.remove(bucket.path)
            for index in self.rng.permutation(len(smaller)).tolist():
                self.drain(smaller[index], depth + 1)
        with contextlib.suppress(FileNotFoundError):
            os.remove(bucket.path)


def _estimated_size(path: str | Path) -> int | None:
    """About how many bytes of lines the input holds (None: unknown, as for standard input
    or a pipe, which are not read here); checks that a file can be opened and read."""
    if str(path) == "-":
        return None
    try:
        status = os.stat(path)
    except OSError as exc:
        raise DataFileError(str(path), f"cannot open: {exc.strerror or exc}") from None
    if stat.S_ISDIR(status.st_mode):
        raise DataFileError(str(path), "cannot open: it is a folder")
    if not stat.S_ISREG(status.st_mode):
        return None  # a pipe (such as <(zcat ...)): its first bytes must not be taken here
    compression = detect_compression(path)
    return status.st_size if compression == "plain" else status.st_size * _EXPANSION


LINES_GZIP_LEVEL = 5
"""The gzip level of annotation files: on annotation lines (long runs shared from line to
line) level 5 compresses within 2 % of level 6 in half the time (``docs/benchmarks.md``)."""


class AtomicOutput:
    """An output file that appears all at once, complete, or not at all.

    :attr:`stream` takes bytes (gzip at :data:`LINES_GZIP_LEVEL` for a ``.gz`` name, bz2
    for ``.bz2``, else plain), written whole or not at all (``core.compressed``);
    :meth:`commit` puts the file in place and :meth:`discard` drops it. ``"-"`` is
    standard output, written directly. As a context manager it gives the stream and
    commits at the end of the block, or discards if the block raises. Errors are
    ``DataFileError`` naming ``output``.
    """

    def __init__(self, output: str | Path) -> None:
        if str(output) != "-" and Path(output).is_dir():
            raise DataFileError(str(output), "cannot write: it is a folder")
        compression = compression_for_name(output)
        self.stream = open_bytes(output, "w", compression=compression,
                                 level=LINES_GZIP_LEVEL if compression == "gzip" else None)

    def commit(self) -> None:
        """Finish the file and put it in place (on failure it is discarded)."""
        self.stream.close()

    def discard(self) -> None:
        """Drop what was written (the file is not created)."""
        discard_output(self.stream)

    def __enter__(self) -> BinaryIO:
        return self.stream

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()


def shuffle_lines(inputs: Sequence[str | Path], output: str | Path, *,
                  memory: int = DEFAULT_MEMORY, seed: int | None = None,
                  temp_dir: str | Path | None = None) -> ShuffleResult:
    """Write the lines of ``inputs`` (one after the other) to ``output`` in a uniformly
    random order, holding about ``memory`` bytes of lines at most (see the module's
    description).

    Inputs may be plain, gzip or bz2 (told by their first bytes); the output is gzip for a
    ``.gz`` name, bz2 for ``.bz2``, else plain; ``"-"`` is standard input or output. The
    same inputs, ``seed`` and ``memory`` give the same output; without a seed one is drawn
    (and returned). Temporary files (about the input's size) go to a new folder in
    ``temp_dir`` (default: the output's folder, or the system's for standard output),
    always removed. Raises ``ValueError`` for bad arguments and ``DataFileError`` for a file
    that cannot be read or written.
    """
    if not inputs:
        raise ValueError("no input files")
    if sum(str(path) == "-" for path in inputs) > 1:
        raise ValueError("standard input ('-') can only be read once")
    if memory < MIN_MEMORY:
        raise ValueError(f"the memory budget must be at least {MIN_MEMORY // KIB}K, "
                         f"got {memory} bytes")
    if seed is None:
        seed = secrets.randbelow(2**31)
    elif seed < 0:
        raise ValueError(f"the seed must not be negative, got {seed}")
    sizes = [_estimated_size(path) for path in inputs]
    known = None if None in sizes else sum(size or 0 for size in sizes)

    to_stdout = str(output) == "-"
    target = Path(output)
    written = AtomicOutput(output)
    out = written.stream
    temp: Path | None = None
    done = False
    blocks = _input_blocks(inputs, min(max(memory // 16, 4 * KIB), 8 * MIB))
    try:
        shuffler = _Shuffler(np.random.default_rng(seed), memory, None, out)
        pending: list[tuple[list[bytes], int]] = []
        lines = size = 0
        for block, block_size in blocks:
            pending.append((block, block_size))
            lines += len(block)
            size += block_size
            if not shuffler.fits(size + LINE_COST * lines):
                break
        else:  # all of it fits
            everything = list(chain.from_iterable(block for block, _ in pending))
            pending.clear()
            shuffler.emit(everything, size, ended=False)
            del everything
        if pending:
            base = Path(temp_dir) if temp_dir is not None else (
                Path(tempfile.gettempdir()) if to_stdout else target.parent)
            try:
                temp = Path(tempfile.mkdtemp(prefix=".referee-shuffle-", dir=base))
            except OSError as exc:
                raise DataFileError(str(base), "cannot create a temporary folder: "
                                               f"{exc.strerror or exc}") from None
            shuffler.temp = temp
            mean = size / lines
            count = shuffler.bucket_count(
                None if known is None else max(known, size) * (1 + LINE_COST / mean))

            def counted() -> Iterator[tuple[list[bytes], int]]:
                nonlocal lines, size
                while pending:
                    yield pending.pop(0)
                for block, block_size in blocks:
                    lines += len(block)
                    size += block_size
                    yield block, block_size

            try:
                buckets = shuffler.deal(counted(), count)
                for index in shuffler.rng.permutation(len(buckets)).tolist():
                    shuffler.drain(buckets[index], 1)
            except OSError as exc:
                raise DataFileError(str(temp), "cannot use the temporary folder: "
                                               f"{exc.strerror or exc}") from None
        written.commit()
        done = True
    except BaseException:
        written.discard()
        raise
    finally:
        try:
            blocks.close()
        finally:  # (an interrupt landing in the close must not keep the folder)
            if temp is not None:
                _remove_folder(temp, done)
    return ShuffleResult(lines=lines, bytes=size, buckets=shuffler.buckets,
                         resplits=shuffler.resplits, seed=seed)


def _remove_folder(path: Path, done: bool) -> None:
    """Remove the temporary folder and all in it, even if an interrupt (Ctrl-C, or SIGTERM
    as the CLI raises it) comes meanwhile: the removal starts again and finishes first.
    Such an interrupt is then raised, unless the shuffle was ``done`` (its output is
    complete: the interrupt came too late to stop it)."""
    interrupted: KeyboardInterrupt | None = None
    for _ in range(100):
        try:
            with _signals_held():
                shutil.rmtree(path, ignore_errors=True)
        except KeyboardInterrupt as exc:
            interrupted = exc
            continue
        break
    if interrupted is not None and not done:
        raise interrupted


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the block is over (then they are delivered): the
    removal is not cut short."""
    held = {signal.SIGINT, signal.SIGTERM}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)
