"""Plain, gzip and bz2 files, read by their magic bytes and written by their names, streamed,
with typed errors naming the file (truncated or corrupt archives, bad UTF-8)."""

from __future__ import annotations

import bz2
import gzip
import io
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.compressed import (
    DataFileError,
    compression_for_name,
    detect_compression,
    open_bytes,
    open_text,
    sniff_compression,
)
from referee.core.errors import ConfigError, RefereeError

# Lines that a careless reader would change: a lone \r, \r\n, an empty line, non-ASCII,
# a BOM-like character inside, and a last line without "\n".
TRICKY = ["héllo wörld 東\n", "a\rb\n", "crlf\r\n", "\n", "\ufeffmid\tline\n", "no end"]
FORMATS = ["plain", "gzip", "bz2"]


def compress(data: bytes, fmt: str) -> bytes:
    return {"plain": lambda d: d, "gzip": gzip.compress, "bz2": bz2.compress}[fmt](data)


def test_write_by_name_read_by_magic(tmp_path: Path) -> None:
    for name, fmt, magic in (("a.txt", "plain", b"h\xc3"), ("a.gz", "gzip", b"\x1f\x8b"),
                             ("a.GZ", "gzip", b"\x1f\x8b"), ("a.bz2", "bz2", b"BZh")):
        path = tmp_path / name
        with open_text(path, "w") as out:
            out.writelines(TRICKY)
        raw = path.read_bytes()
        assert raw.startswith(magic), name
        assert compression_for_name(path) == fmt
        assert detect_compression(path) == fmt
        with open_text(path) as text:
            assert list(text) == TRICKY
        with open_text(path) as text:
            assert text.read() == "".join(TRICKY)
        # Other tools read what was written.
        plain = {"plain": raw, "gzip": gzip.decompress(raw) if fmt == "gzip" else b"",
                 "bz2": bz2.decompress(raw) if fmt == "bz2" else b""}[fmt]
        assert plain == "".join(TRICKY).encode()


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", ["data.txt", "data.gz", "data.bz2", "data"])
def test_misleading_names_are_read_by_content(tmp_path: Path, fmt: str, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(compress("".join(TRICKY).encode(), fmt))
    assert detect_compression(path) == fmt
    with open_text(path) as text:
        assert list(text) == TRICKY
    with open_bytes(path) as stream:
        assert stream.read() == "".join(TRICKY).encode()


def test_compression_can_be_forced_on_write(tmp_path: Path) -> None:
    path = tmp_path / "looks-plain.txt"
    with open_text(path, "w", compression="bz2") as out:
        out.write("x\n")
    assert path.read_bytes().startswith(b"BZh")
    with open_text(path) as text:
        assert text.read() == "x\n"


def test_compression_level(tmp_path: Path) -> None:
    sizes = []
    for level in (1, 9):
        path = tmp_path / f"level{level}.gz"
        with open_text(path, "w", level=level) as out:
            out.writelines(f"{i},{i * i % 977},{i % 13}\n" for i in range(20000))
        sizes.append(path.stat().st_size)
        with open_text(path) as text:
            assert sum(1 for _ in text) == 20000
    assert sizes[0] > sizes[1]
    for bad in (0, 10):
        with pytest.raises(ValueError, match="level"):
            open_text(tmp_path / "x.gz", "w", level=bad)


def test_gzip_output_is_reproducible_and_nameless(tmp_path: Path) -> None:
    outputs = []
    for name in ("one.gz", "two.gz"):
        with open_text(tmp_path / name, "w") as out:
            out.write("same lines\n" * 100)
        outputs.append((tmp_path / name).read_bytes())
    assert outputs[0] == outputs[1]
    assert outputs[0][3] == 0  # FLG: no file name in the header
    assert outputs[0][4:8] == b"\0\0\0\0"  # MTIME 0


def test_concatenated_gzip_members_are_one_stream(tmp_path: Path) -> None:
    path = tmp_path / "two-members.gz"
    path.write_bytes(gzip.compress(b"first\n") + gzip.compress(b"second\n"))
    with open_text(path) as text:
        assert list(text) == ["first\n", "second\n"]


def test_plain_text_starting_like_bz2_stays_plain(tmp_path: Path) -> None:
    path = tmp_path / "notes.bz2"
    path.write_text("BZh9 is how bz2 files start\n")
    assert detect_compression(path) == "plain"
    with open_text(path) as text:
        assert text.read() == "BZh9 is how bz2 files start\n"


def test_sniff_compression() -> None:
    assert sniff_compression(b"") == "plain"
    assert sniff_compression(b"\x1f\x8b\x08\0") == "gzip"
    assert sniff_compression(bz2.compress(b"x")[:10]) == "bz2"
    assert sniff_compression(bz2.compress(b"")[:10]) == "bz2"  # an empty bz2 stream
    assert sniff_compression(b"BZh") == "plain"
    with pytest.raises(ValueError, match="xz"):
        sniff_compression(b"\xfd7zXZ\x00\x00")
    with pytest.raises(ValueError, match="zstd"):
        sniff_compression(b"\x28\xb5\x2f\xfd\x00")


@pytest.mark.parametrize("fmt", ["gzip", "bz2"])
@pytest.mark.parametrize("name", ["cut.txt", "cut.gz", "cut.bz2"])
def test_truncated_archives_are_typed_errors(tmp_path: Path, fmt: str, name: str) -> None:
    whole = compress(b"".join(b"line %d of the data\n" % i for i in range(20000)), fmt)
    path = tmp_path / name
    path.write_bytes(whole[:len(whole) * 2 // 3])
    for read in (lambda f: list(f), lambda f: f.read()):
        with pytest.raises(DataFileError) as caught, open_text(path) as text:
            read(text)
        error = caught.value
        assert isinstance(error, ConfigError) and isinstance(error, RefereeError)
        assert error.path == str(path)
        assert str(error).startswith(f"{path}: truncated {fmt} archive")
        assert "end-of-stream" in str(error)
    with pytest.raises(DataFileError, match="truncated"), open_bytes(path) as stream:
        for _ in stream:
            pass


def test_corrupt_archives_are_typed_errors(tmp_path: Path) -> None:
    data = b"".join(b"line %d\n" % i for i in range(1000))
    crc = bytearray(gzip.compress(data))
    crc[-8] ^= 0xFF  # the CRC-32 in the trailer
    bad_bz2 = bytearray(bz2.compress(data))
    bad_bz2[10] ^= 0xFF  # the first block's CRC
    for name, content, kind in (("crc.gz", crc, "gzip"), ("bits.bz2", bad_bz2, "bz2")):
        path = tmp_path / name
        path.write_bytes(bytes(content))
        with pytest.raises(DataFileError) as caught, open_text(path) as text:
            text.read()
        assert str(caught.value).startswith(f"{path}: corrupt {kind} archive")


@pytest.mark.parametrize("fmt", FORMATS)
def test_bad_utf8_is_a_typed_error_with_its_offset(tmp_path: Path, fmt: str) -> None:
    good = b"fine line\n" * 3000  # more than one read of the text layer
    path = tmp_path / "bad.txt"
    path.write_bytes(compress(good + b"caf\xe9\n", fmt))
    for read in (lambda f: list(f), lambda f: f.read(), lambda f: [f.readline()
                                                                   for _ in range(4000)]):
        with pytest.raises(DataFileError) as caught, open_text(path) as text:
            read(text)
        message = str(caught.value)
        assert message.startswith(f"{path}: not UTF-8")
        assert f"0xe9 at offset {len(good) + 3} " in message
    with open_bytes(path) as stream:  # as bytes it is fine
        assert stream.read().endswith(b"caf\xe9\n")


def test_unreadable_files_are_typed_errors(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match="missing.gz: cannot open: No such file"):
        open_text(tmp_path / "missing.gz")
    with pytest.raises(DataFileError, match="cannot open"):
        detect_compression(tmp_path / "missing.gz")
    with pytest.raises(DataFileError, match="no-folder/out.gz: cannot create"):
        open_text(tmp_path / "no-folder" / "out.gz", "w")
    xz = tmp_path / "data.txt"
    xz.write_bytes(b"\xfd7zXZ\x00\x00\x04rest")
    with pytest.raises(DataFileError, match="data.txt: an xz archive: not supported"):
        open_text(xz)
    with pytest.raises(ValueError, match="mode"):
        open_text(xz, "a")  # type: ignore[arg-type]


def test_reading_is_streamed(tmp_path: Path) -> None:
    path = tmp_path / "big.gz"
    line = "0,1,2,3,4,5,6,7,8,9\t" * 10 + "\n"
    with open_text(path, "w") as out:
        for _ in range(60000):  # 12 MB of text
            out.write(line)
    tracemalloc.start()
    try:
        count = 0
        with open_text(path) as text:
            for got in text:
                count += got == line
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 60000
    assert peak < 1_000_000, peak


class _Trickle(io.RawIOBase):
    """A pipe-like stream: not seekable, three bytes a read."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        chunk, self._data = self._data[:3], self._data[3:]
        memoryview(buffer)[:len(chunk)] = chunk
        return len(chunk)


@pytest.mark.parametrize("fmt", FORMATS)
def test_stdin_and_stdout(monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    data = "".join(TRICKY).encode()
    stdin = io.TextIOWrapper(io.BufferedReader(_Trickle(compress(data, fmt)), 4))
    monkeypatch.setattr(sys, "stdin", stdin)
    with open_text("-") as text:
        assert list(text) == TRICKY
    assert not stdin.closed
    sink = io.BytesIO()
    stdout = io.TextIOWrapper(sink)
    monkeypatch.setattr(sys, "stdout", stdout)
    with open_text("-", "w", compression="gzip" if fmt == "gzip" else None) as out:
        out.writelines(TRICKY)
    assert not stdout.closed
    written = sink.getvalue()
    assert (gzip.decompress(written) if fmt == "gzip" else written) == data


def test_stdin_pipe_of_a_real_process() -> None:
    code = ("import sys; from referee.core.compressed import open_text\n"
            "with open_text('-') as f, open_text('-', 'w') as out: out.writelines(f)")
    data = "".join(TRICKY * 1000).encode()
    run = subprocess.run([sys.executable, "-c", code], input=bz2.compress(data),
                         capture_output=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout == data


@settings(max_examples=40)
@given(st.lists(st.text(), max_size=30), st.sampled_from(["x.txt", "x.gz", "x.bz2"]))
def test_any_text_round_trips(tmp_path_factory: pytest.TempPathFactory, texts: list[str],
                              name: str) -> None:
    path = tmp_path_factory.mktemp("round") / name
    content = "\n".join(texts)
    with open_text(path, "w") as out:
        out.write(content)
    *ended, last = content.split("\n")
    with open_text(path) as text:  # only "\n" ends a line, whatever else is in it
        assert list(text) == [part + "\n" for part in ended] + ([last] if last else [])
    with open_text(path) as text:
        assert text.read() == content
    with open_text(path) as text:
        assert "".join(text) == content
