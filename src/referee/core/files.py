"""Files written whole or not at all: the bytes go to a temporary file beside the target,
which is renamed over it only once complete. A full disk, a file size limit, an
interrupt or any error removes the temporary, so no reader ever sees half a file.

Text is UTF-8. A name that came from a path which is not UTF-8 (a brain's file name, say)
holds "surrogate" characters that UTF-8 cannot encode; they are written as ``\\udcff``
escapes, which JSON reads back as the same characters and any other reader sees as
plain text, instead of failing the write.
"""

from __future__ import annotations

import contextlib
import os
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import BinaryIO, TextIO

__all__ = ["BackgroundWriter", "atomic_binary", "atomic_text", "partial_path",
           "write_bytes_atomic", "write_text_atomic"]

TEXT_ERRORS = "backslashreplace"
"""How text that UTF-8 cannot encode is written (see the module's docstring)."""


def partial_path(path: Path) -> Path:
    """The temporary file that becomes ``path`` (same folder, so the rename is atomic; the
    process id keeps two writers apart)."""
    return path.with_name(f"{path.name}.{os.getpid()}.tmp")


@contextlib.contextmanager
def _committed(path: Path, partial: Path) -> Iterator[None]:
    """Rename ``partial`` over ``path`` when the block ends normally; remove it otherwise.
    An ``OSError`` is raised again naming ``path``, the file the user asked for."""
    try:
        yield
        os.replace(partial, path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def atomic_text(path: str | Path) -> Iterator[TextIO]:
    """A text file (UTF-8, ``"\\n"`` line ends) that appears at ``path`` only when the
    ``with`` block ends without an error."""
    target = Path(path)
    partial = partial_path(target)
    with _committed(target, partial), \
            open(partial, "w", encoding="utf-8", errors=TEXT_ERRORS, newline="\n") as handle:
        yield handle


@contextlib.contextmanager
def atomic_binary(path: str | Path) -> Iterator[BinaryIO]:
    """A binary file that appears at ``path`` only when the ``with`` block ends without an
    error."""
    target = Path(path)
    partial = partial_path(target)
    with _committed(target, partial), open(partial, "wb") as handle:
        yield handle


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` whole or not at all; returns the path."""
    with atomic_text(path) as handle:
        handle.write(text)
    return Path(path)


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` whole or not at all; returns the path."""
    with atomic_binary(path) as handle:
        handle.write(data)
    return Path(path)


class BackgroundWriter:
    """Text files written whole or not at all (``write_text_atomic``) by a few threads,
    while the caller makes the next ones: creating a file waits on the disk more than it
    computes, and these waits then overlap. At most ``pending`` files wait to be written
    (``write`` waits for the oldest beyond that). Leaving the ``with`` block waits for
    every file and raises the first error (an error in the block itself is raised as it
    is, the files not yet begun dropped)."""

    def __init__(self, threads: int = 3, pending: int = 32) -> None:
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="file-writer")
        self._futures: deque[Future[Path]] = deque()
        self._pending = pending

    def write(self, path: str | Path, text: str) -> None:
        """Have ``text`` written to ``path`` (raises the error of an earlier file)."""
        while len(self._futures) >= self._pending:
            self._futures.popleft().result()
        self._futures.append(self._pool.submit(write_text_atomic, path, text))

    def __enter__(self) -> BackgroundWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        try:
            while self._futures:
                future = self._futures.popleft()
                if kind is None:
                    future.result()
                else:  # the block failed: its error is the one to raise
                    future.cancel()
        finally:
            self._pool.shutdown(wait=True, cancel_futures=True)

