"""Files written whole or not at all: the bytes go to a temporary file beside the target,
which is renamed over it only once complete. A full disk, a file size limit, an
interrupt or any error removes the temporary, so no reader ever sees half a file.

Text is UTF-8. A name that came from a path which is not UTF-8 (a brain's file name, say)
holds "surrogate" characters that UTF-8 cannot encode; they are written as ``\\udcff``
escapes, which JSON reads back as the same characters and any other reader sees as
plain text, instead of failing the write.

``file_size`` tells how far a file written by others has grown (a bot's stderr log).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, NoReturn, TextIO

__all__ = ["atomic_binary", "atomic_text", "file_size", "partial_path", "write_bytes_atomic",
           "write_text_atomic"]

TEXT_ERRORS = "backslashreplace"
"""How text that UTF-8 cannot encode is written (see the module's docstring)."""


def partial_path(path: Path) -> Path:
    """The temporary file that becomes ``path`` (same folder, so the rename is atomic; the
    process id keeps two writers apart)."""
    return path.with_name(f"{path.name}.{os.getpid()}.tmp")


def _failed(path: str | Path, partial: str | Path, exc: BaseException) -> NoReturn:
    """Remove ``partial`` after ``exc`` and raise: an ``OSError`` again naming ``path``
    (the file the user asked for), any other error as it is."""
    with contextlib.suppress(OSError):
        os.unlink(partial)
    if isinstance(exc, OSError):
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    raise exc


@contextlib.contextmanager
def _committed(path: Path, partial: Path) -> Iterator[None]:
    """Rename ``partial`` over ``path`` when the block ends normally; remove it otherwise
    (``_failed``)."""
    try:
        yield
        os.replace(partial, path)
    except BaseException as exc:
        _failed(path, partial, exc)


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
    """Write ``text`` to ``path`` whole or not at all (UTF-8, as ``atomic_text``); returns
    the path."""
    return write_bytes_atomic(path, text.encode("utf-8", TEXT_ERRORS))


def write_bytes_atomic(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` whole or not at all; returns the path. (The file is
    written with ``os.write``, no buffer between: the results site writes 20,000 pages.)"""
    name = os.fspath(path)
    partial = f"{name}.{os.getpid()}.tmp"  # partial_path, without making Paths
    try:
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.replace(partial, name)
    except BaseException as exc:
        _failed(name, partial, exc)
    return Path(path)


def file_size(path: Path | None) -> int | None:
    """The size of the file at ``path`` (0 if there is none yet; ``None`` without a path)."""
    if path is None:
        return None
    try:
        return path.stat().st_size
    except OSError:
        return 0
