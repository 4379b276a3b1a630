"""Plain, gzip and bz2 files read and written transparently, as streams.

* Reading tells the format by the file's first bytes (gzip ``1f 8b``, bz2 ``BZh`` with its
  block header), never by its name: ``games.txt`` may well hold gzip.
* Writing chooses the format by the name: ``.gz`` gzip, ``.bz2`` bz2, anything else plain.
  gzip is written (at level 6 unless asked otherwise) with no name and no time in its
  header, so the same lines give the same bytes.
* ``"-"`` is standard input (read) or standard output (write, plain unless a compression is
  asked for); they are never closed.
* Nothing is read ahead beyond a buffer: memory stays flat whatever the file's size.
* A file is written whole or not at all (``core.files``): the bytes go to a temporary file
  renamed to the name asked for when the stream is closed; an error or an interrupt in its
  ``with`` block removes it instead.

Text is UTF-8, and only ``"\\n"`` ends a line; nothing is translated, so every line comes
back exactly as written (a ``"\\r"`` stays in its line).

Every problem is a :class:`DataFileError` naming the file and saying what is wrong: it
cannot be opened, it is a truncated or corrupt archive, it is not UTF-8 (with the byte
offset in the decompressed text), or it is in a format this module does not read (xz,
zstd).
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import os
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, Literal, TextIO, cast

from referee.core.errors import ConfigError
from referee.core.files import TEXT_ERRORS, partial_path

__all__ = [
    "Compression", "DataFileError", "compression_for_name", "detect_compression", "discard_output",
    "open_bytes", "open_text", "sniff_compression",
]

Compression = Literal["plain", "gzip", "bz2"]
"""How a file is stored."""

GZIP_MAGIC = b"\x1f\x8b"
BZ2_MAGIC = b"BZh"
_BZ2_BLOCK = b"\x31\x41\x59\x26\x53\x59"  # a compressed block (pi)
_BZ2_END = b"\x17\x72\x45\x38\x50\x90"  # the end of an empty stream (sqrt pi)
_OTHER_MAGIC = {b"\xfd7zXZ\x00": "an xz", b"\x28\xb5\x2f\xfd": "a zstd"}
_SNIFF = 10  # bytes needed to tell the formats apart
_GZIP_LEVEL = 6  # gzip(1)'s default: 9 is several times slower for a few % less
_NAMES: dict[str, str] = {"plain": "file", "gzip": "gzip archive", "bz2": "bz2 archive"}


class DataFileError(ConfigError):
    """A data file that cannot be opened, read or written: the message is
    ``"<file>: <problem>"``; ``path`` and ``problem`` hold the two parts."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


def sniff_compression(head: bytes) -> Compression:
    """The format that a file starting with ``head`` (its first 10 bytes, or all of a
    shorter file) is in. Raises ``ValueError`` for a known format this module cannot read."""
    if head[:2] == GZIP_MAGIC:
        return "gzip"
    if (head[:3] == BZ2_MAGIC and head[3:4] in b"123456789" and len(head) >= 10
            and head[4:10] in (_BZ2_BLOCK, _BZ2_END)):
        return "bz2"
    for magic, name in _OTHER_MAGIC.items():
        if head.startswith(magic):
            raise ValueError(f"{name} archive: not supported (only gzip and bz2 are)")
    return "plain"


def compression_for_name(path: str | Path) -> Compression:
    """The format a file of this name is written in: ``.gz`` gzip, ``.bz2`` bz2, else plain
    (and plain for ``"-"``)."""
    suffix = Path(str(path)).suffix.lower()
    return "gzip" if suffix == ".gz" else "bz2" if suffix == ".bz2" else "plain"


def _display(path: str | Path, mode: str) -> str:
    if str(path) == "-":
        return "<stdin>" if mode == "r" else "<stdout>"
    return str(path)


def _read_head(stream: BinaryIO) -> bytes:
    """Up to ``_SNIFF`` bytes from the start of ``stream`` (looping: a pipe may give less)."""
    head = b""
    while len(head) < _SNIFF:
        more = stream.read(_SNIFF - len(head))
        if not more:
            break
        head += more
    return head


class _Prefixed(io.RawIOBase):
    """A raw stream giving ``head`` and then the rest of ``stream`` (for a stream that
    cannot seek back after its first bytes were read)."""

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        super().__init__()
        self._head = head
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        if self._head:
            n = min(len(view), len(self._head))
            view[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._stream.read(len(view))
        view[:len(data)] = data
        return len(data)


def detect_compression(path: str | Path) -> Compression:
    """The format of the file at ``path``, told by its first bytes; a ``DataFileError`` if it
    cannot be opened or is in a format this module does not read. (For a regular file: a
    pipe would lose the bytes read here.)"""
    name = str(path)
    try:
        with open(path, "rb") as raw:
            head = _read_head(raw)
    except OSError as exc:
        raise DataFileError(name, f"cannot open: {exc.strerror or exc}") from None
    try:
        return sniff_compression(head)
    except ValueError as exc:
        raise DataFileError(name, str(exc)) from None


class _Reader(io.BufferedIOBase):
    """The decompressed bytes of a file; every read error becomes a ``DataFileError``.

    ``compression`` is the format found; ``position`` counts the bytes given so far.
    """

    def __init__(self, inner: BinaryIO, owned: list[BinaryIO], name: str,
                 compression: Compression) -> None:
        super().__init__()
        self._inner = inner
        self._owned = owned
        self.name = name
        self.compression: Compression = compression
        self.position = 0

    def readable(self) -> bool:
        return True

    def _error(self, exc: BaseException) -> DataFileError:
        kind = _NAMES[self.compression]
        if isinstance(exc, EOFError):
            problem = (f"truncated {kind}: it ends before its end-of-stream marker "
                       f"(after {self.position} bytes of content)")
        elif isinstance(exc, OSError) and exc.errno is not None:
            problem = f"cannot read: {exc.strerror or exc}"
        elif self.compression == "plain":
            problem = f"cannot read: {exc}"
        else:
            problem = f"corrupt {kind} (after {self.position} bytes of content): {exc}"
        return DataFileError(self.name, problem)

    def _take(self, read: Callable[[int], bytes], size: int | None) -> bytes:
        """``read(size)`` (-1 for None) of the stream below, counted, its errors typed."""
        try:
            data = read(-1 if size is None else size)
        except (EOFError, OSError, zlib.error) as exc:
            raise self._error(exc) from None
        self.position += len(data)
        return data

    def read(self, size: int | None = -1) -> bytes:
        """Up to ``size`` bytes (all the rest if negative)."""
        return self._take(self._inner.read, size)

    def read1(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes, with at most one read of the file below."""
        return self._take(self._inner.read1, size)  # type: ignore[attr-defined]

    def readline(self, size: int | None = -1) -> bytes:
        """The next line, with its ``"\\n"`` (none at the end of the file)."""
        return self._take(self._inner.readline, size)

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        """Fill ``buffer`` as far as the data goes; the number of bytes put in it."""
        data = self.read(len(memoryview(buffer).cast("B")))
        memoryview(buffer).cast("B")[:len(data)] = data
        return len(data)

    def close(self) -> None:
        """Close the decompressor and the file (never standard input itself)."""
        if not self.closed:
            try:
                for stream in self._owned:
                    stream.close()
            finally:
                super().close()


class _Writer(io.BufferedIOBase):
    """Bytes written through a compressor (or none) to a file; closing closes both (but
    never standard output itself, which is only flushed)."""

    def __init__(self, inner: BinaryIO, raw: BinaryIO, owned: list[BinaryIO], name: str,
                 compression: Compression, target: Path | None = None) -> None:
        super().__init__()
        self._inner = inner
        self._raw = raw
        self._owned = owned
        self.name = name
        self.compression: Compression = compression
        self._target = target
        """The file to rename the partial one to when closed (``None``: standard output)."""

    def __exit__(self, kind: object, error: object, traceback: object) -> None:
        if kind is not None:
            self.discard()
        else:
            self.close()

    def discard(self) -> None:
        """Close without keeping anything: the partial file is removed (an error or an
        interrupt in the ``with`` block does this)."""
        if self.closed:
            return
        with contextlib.suppress(OSError):
            for stream in self._owned:
                stream.close()
        if self._target is not None:
            partial_path(self._target).unlink(missing_ok=True)
        super().close()

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        """Write all of ``data``; the number of bytes."""
        try:
            return self._inner.write(data)
        except OSError as exc:
            raise DataFileError(self.name, f"cannot write: {exc.strerror or exc}") from None

    def flush(self) -> None:
        """Push buffered bytes to the file (a compressor keeps its pending block)."""
        if self.closed or self._inner.closed:
            return
        try:
            self._inner.flush()
        except OSError as exc:
            raise DataFileError(self.name, f"cannot write: {exc.strerror or exc}") from None

    def close(self) -> None:
        """Finish the archive and close the file."""
        if self.closed:
            return
        try:
            for stream in self._owned:
                stream.close()
            if not self._owned or self._owned[-1] is not self._raw:
                self._raw.flush()  # standard output: flushed, left open
            if self._target is not None:
                os.replace(partial_path(self._target), self._target)
        except OSError as exc:
            if self._target is not None:
                partial_path(self._target).unlink(missing_ok=True)
            raise DataFileError(self.name, f"cannot write: {exc.strerror or exc}") from None
        finally:
            super().close()


def _open_read(path: str | Path, name: str | None = None) -> _Reader:
    name = name or _display(path, "r")
    owned: list[BinaryIO] = []
    if str(path) == "-":
        raw = sys.stdin.buffer
    else:
        try:
            raw = cast(BinaryIO, open(path, "rb"))  # noqa: SIM115 - closed by the _Reader
        except OSError as exc:
            raise DataFileError(name, f"cannot open: {exc.strerror or exc}") from None
        owned.append(raw)
    try:
        start = raw.tell() if raw.seekable() else None
        head = _read_head(raw)
        try:
            compression = sniff_compression(head)
        except ValueError as exc:
            raise DataFileError(name, str(exc)) from None
        source: BinaryIO
        if start is not None:
            raw.seek(start)
            source = raw
        else:
            source = cast(BinaryIO, io.BufferedReader(_Prefixed(head, raw)))
        inner: BinaryIO
        if compression == "gzip":
            inner = cast(BinaryIO, gzip.GzipFile(filename="", fileobj=source, mode="rb"))
            owned.insert(0, inner)
        elif compression == "bz2":
            inner = cast(BinaryIO, bz2.BZ2File(source, mode="rb"))
            owned.insert(0, inner)
        else:
            inner = source
    except OSError as exc:
        for stream in owned:
            stream.close()
        raise DataFileError(name, f"cannot read: {exc.strerror or exc}") from None
    except BaseException:
        for stream in owned:
            stream.close()
        raise
    return _Reader(inner, owned, name, compression)


def _open_write(path: str | Path, compression: Compression | None,
                name: str | None = None, level: int | None = None) -> _Writer:
    name = name or _display(path, "w")
    fmt = compression or compression_for_name(path)
    owned: list[BinaryIO] = []
    if str(path) == "-":
        sys.stdout.flush()
        raw = sys.stdout.buffer
    else:
        target = Path(path)
        try:  # written whole or not at all: renamed to the target once closed
            raw = cast(BinaryIO, open(partial_path(target), "wb"))  # noqa: SIM115 - closed by the _Writer
        except OSError as exc:
            raise DataFileError(name, f"cannot create: {exc.strerror or exc}") from None
        owned.append(raw)
    inner: BinaryIO = raw
    if fmt == "gzip":
        inner = cast(BinaryIO, gzip.GzipFile(filename="", fileobj=raw, mode="wb",
                                             compresslevel=level or _GZIP_LEVEL, mtime=0))
        owned.insert(0, inner)
    elif fmt == "bz2":
        inner = cast(BinaryIO, bz2.BZ2File(raw, mode="wb", compresslevel=level or 9))
        owned.insert(0, inner)
    return _Writer(inner, raw, owned, name, fmt, None if str(path) == "-" else Path(path))


def open_bytes(path: str | Path, mode: Literal["r", "w"] = "r", *,
               compression: Compression | None = None, name: str | None = None,
               level: int | None = None) -> BinaryIO:
    """Open a file as a stream of (decompressed) bytes.

    ``"r"``: the format is told by the first bytes; ``"w"``: it is ``compression`` if given,
    else chosen by the name, at compression ``level`` 1-9 (default: 6 for gzip, 9 for bz2).
    ``"-"`` is standard input or output. Read and write errors are ``DataFileError`` naming
    ``name`` (default: the path); use it in a ``with`` block (closing finishes a written
    archive).
    """
    if mode == "r":
        return cast(BinaryIO, _open_read(path, name))
    if mode == "w":
        if level is not None and not 1 <= level <= 9:
            raise ValueError(f"the compression level must be 1 to 9, got {level}")
        return cast(BinaryIO, _open_write(path, compression, name, level))
    raise ValueError(f"mode must be 'r' or 'w', got {mode!r}")


def discard_output(stream: BinaryIO | TextIO) -> None:
    """Close a stream of :func:`open_bytes` or :func:`open_text` opened for writing
    without keeping its file (an error happened while it was written)."""
    writer = stream.buffer if isinstance(stream, io.TextIOWrapper) else stream
    if isinstance(writer, _Writer):
        writer.discard()
    else:
        with contextlib.suppress(OSError, ValueError):
            stream.close()


class _TextWriter(io.TextIOWrapper):
    """UTF-8 text over a :class:`_Writer`: an error in the ``with`` block discards the
    file instead of keeping what was written so far."""

    def __exit__(self, kind: object, error: object, traceback: object) -> None:
        if kind is None:
            self.close()
            return
        writer = cast(_Writer, self.buffer)
        writer.discard()


class _TextReader(io.TextIOWrapper):
    """UTF-8 text over a :class:`_Reader`; a byte that is not UTF-8 is a
    ``DataFileError`` with its offset. (Iterating calls ``readline``, so it is checked.)"""

    def _decode_error(self, exc: UnicodeDecodeError) -> DataFileError:
        reader = cast(_Reader, self.buffer)
        offset = reader.position - len(exc.object) + exc.start
        bad = exc.object[exc.start:exc.start + 1].hex()
        return DataFileError(reader.name, f"not UTF-8: {exc.reason} (byte 0x{bad} at "
                                          f"offset {offset} of the content)")

    def read(self, size: int | None = -1) -> str:
        """Up to ``size`` characters (all the rest if negative)."""
        try:
            return super().read(size)
        except UnicodeDecodeError as exc:
            raise self._decode_error(exc) from None

    def readline(self, size: int = -1) -> str:  # type: ignore[override]
        """The next line with its ``"\\n"`` (none at the end of the file)."""
        try:
            return super().readline(size)
        except UnicodeDecodeError as exc:
            raise self._decode_error(exc) from None


def open_text(path: str | Path, mode: Literal["r", "w"] = "r", *,
              compression: Compression | None = None, level: int | None = None) -> TextIO:
    """Open a plain, gzip or bz2 file as UTF-8 text, streamed.

    ``"r"``: the format is told by the file's first bytes, not its name; ``"w"``: it is
    ``compression`` if given, else ``.gz`` gzip, ``.bz2`` bz2, otherwise plain (``level``:
    see :func:`open_bytes`). ``"-"`` is standard input or output. Only ``"\\n"`` ends a
    line and nothing is translated, so lines come back exactly as written. Problems
    (cannot open, truncated or corrupt archive, not UTF-8) are ``DataFileError`` naming
    the file. Use it in a ``with`` block.
    """
    if mode == "r":
        return _TextReader(_open_read(path), encoding="utf-8", errors="strict",
                           newline="\n")
    if mode == "w":
        return _TextWriter(open_bytes(path, "w", compression=compression, level=level),
                           encoding="utf-8", errors=TEXT_ERRORS, newline="\n")
    raise ValueError(f"mode must be 'r' or 'w', got {mode!r}")
