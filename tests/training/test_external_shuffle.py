"""The external shuffle: a permutation of the lines kept byte for byte, whatever the size
and the budget (buckets split again when they do not fit), really mixed, seeded, in
bounded memory, leaving no temporary files; and `referee shuffle` as a real program."""

from __future__ import annotations

import bz2
import gzip
import itertools
import os
import signal
import subprocess
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.compressed import DataFileError
from referee.training import shuffle as shuffle_module
from referee.training.shuffle import (
    LINES_GZIP_LEVEL,
    MIN_MEMORY,
    ShuffleResult,
    parse_size,
    shuffle_lines,
)


def write(path: Path, lines: list[bytes], end: bool = True) -> Path:
    path.write_bytes(b"\n".join(lines) + (b"\n" if end and lines else b""))
    return path


def lines_of(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert data == b"" or data.endswith(b"\n")
    return data.split(b"\n")[:-1]


def numbered(count: int) -> list[bytes]:
    return [b"line %07d" % i for i in range(count)]


def leftovers(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder)
                  if name.startswith(".") or "shuffle" in name)


# --- sizes -----------------------------------------------------------------------------------

def test_parse_size() -> None:
    assert parse_size("1G") == 1 << 30
    assert parse_size("256M") == parse_size("256m") == parse_size("256MiB") == 256 << 20
    assert parse_size("500K") == parse_size("500kb") == 500 * 1024
    assert parse_size("1.5g") == 3 << 29
    assert parse_size(" 65536 ") == 65536
    for bad in ("", "M", "12Q", "-1M", "1 G B", "1e6", "two"):
        with pytest.raises(ValueError, match="not a size"):
            parse_size(bad)


# --- a permutation, kept exactly -----------------------------------------------------------

@pytest.mark.parametrize("count", [0, 1, 2, 7, 1000, 30_000, 300_000])
def test_output_is_a_permutation(tmp_path: Path, count: int) -> None:
    lines = numbered(count)
    source = write(tmp_path / "in.txt", lines)
    result = shuffle_lines([source], tmp_path / "out.txt", memory=MIN_MEMORY, seed=count)
    out = lines_of(tmp_path / "out.txt")
    assert sorted(out) == lines  # the same multiset (the lines are distinct)
    assert result.lines == count and result.bytes == source.stat().st_size
    if count >= 30_000:  # far beyond 64K: many buckets, split again
        assert out != lines
        assert result.buckets > 100 and result.resplits > 10, result
    if count <= 100:
        assert result.buckets == 0  # it fits: shuffled in memory


def test_lines_are_kept_byte_for_byte(tmp_path: Path) -> None:
    odd = [b"", b"\r", b"crlf\r", b"a\rb", b"\xff\xfe not utf-8", b"\x00nul", b"  spaced  ",
           "東風".encode(), b""]
    lines = odd * 5000 + [b"tail"]  # duplicates too, and beyond the budget
    source = write(tmp_path / "odd.txt", lines, end=False)  # the last line has no newline
    result = shuffle_lines([source], tmp_path / "out.txt", memory=MIN_MEMORY, seed=1)
    assert result.buckets > 0
    assert Counter(lines_of(tmp_path / "out.txt")) == Counter(lines)
    assert result.bytes == source.stat().st_size + 1  # the newline given to the last line


def test_several_inputs_compressed_or_not(tmp_path: Path) -> None:
    first, second, third = numbered(20000), [b"second %d" % i for i in range(5000)], [b"x"]
    write(tmp_path / "one.txt", first, end=False)  # its last line must not merge
    (tmp_path / "two.txt").write_bytes(gzip.compress(b"\n".join(second) + b"\n"))
    (tmp_path / "three.gz").write_bytes(bz2.compress(b"x"))
    unpack = {"out.txt": lambda d: d, "out.gz": gzip.decompress, "out.bz2": bz2.decompress}
    for name, decompress in unpack.items():
        result = shuffle_lines([tmp_path / "one.txt", tmp_path / "two.txt",
                                tmp_path / "three.gz"], tmp_path / name, memory=MIN_MEMORY,
                               seed=3)
        data = decompress((tmp_path / name).read_bytes())
        assert Counter(data.split(b"\n")[:-1]) == Counter(first + second + third)
        assert result.lines == 25001 and result.bytes == len(data)
    packed = (tmp_path / "out.gz").read_bytes()  # the deflate stream after the header:
    assert packed[10:] == gzip.compress(gzip.decompress(packed), LINES_GZIP_LEVEL)[10:]
    assert packed[10:] != gzip.compress(gzip.decompress(packed), 6)[10:]  # not the default
    assert (tmp_path / "out.bz2").read_bytes()[:3] == b"BZh"


def test_empty_inputs(tmp_path: Path) -> None:
    empty = write(tmp_path / "empty.txt", [])
    (tmp_path / "empty.gz").write_bytes(gzip.compress(b""))
    result = shuffle_lines([empty, tmp_path / "empty.gz"], tmp_path / "out.gz", seed=1)
    assert result == ShuffleResult(lines=0, bytes=0, buckets=0, resplits=0, seed=1)
    assert gzip.decompress((tmp_path / "out.gz").read_bytes()) == b""


def test_the_output_may_be_an_input(tmp_path: Path) -> None:
    lines = numbered(50000)
    path = write(tmp_path / "data.txt", lines)
    shuffle_lines([path], path, memory=MIN_MEMORY, seed=9)
    out = lines_of(path)
    assert out != lines and sorted(out) == lines


@settings(max_examples=60)
@given(lines=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")),
                      max_size=120),
       end=st.booleans(), seed=st.integers(0, 2**64), tiny=st.booleans())
def test_any_lines_any_seed_give_a_permutation(tmp_path_factory: pytest.TempPathFactory,
                                               lines: list[bytes], end: bool, seed: int,
                                               tiny: bool) -> None:
    folder = tmp_path_factory.mktemp("prop")
    lines = [b"first", *lines]  # not the magic bytes of gzip, bz2, xz or zstd
    source = write(folder / "in", lines, end=end)
    # tiny: every bucket of two lines or more is "too big", so the buckets are split
    # again and again down to single lines (the deepest recursion there can be).
    with mock.patch.object(shuffle_module, "_FIT", 0.0 if tiny else 0.5):
        result = shuffle_lines([source], folder / "out", memory=MIN_MEMORY, seed=seed,
                               temp_dir=folder)
    # Without the final newline, a last empty line is no line at all (the file ends in
    # "\n", or is empty).
    expected = lines if end or lines[-1] else lines[:-1]
    assert Counter(lines_of(folder / "out")) == Counter(expected)
    assert result.lines == len(expected)
    assert leftovers(folder) == []


# --- random, and seeded --------------------------------------------------------------------

def test_same_seed_same_output_other_seed_other_output(tmp_path: Path) -> None:
    source = write(tmp_path / "in.txt", numbered(40000))
    for memory in (MIN_MEMORY, 64 << 20):  # through buckets, and in memory
        outs = []
        for index, seed in enumerate((5, 5, 6)):
            out = tmp_path / f"out{index}.txt"
            shuffle_lines([source], out, memory=memory, seed=seed)
            outs.append(out.read_bytes())
        assert outs[0] == outs[1]
        assert outs[0] != outs[2]
    drawn = shuffle_lines([source], tmp_path / "a.txt", memory=MIN_MEMORY)
    again = shuffle_lines([source], tmp_path / "b.txt", memory=MIN_MEMORY, seed=drawn.seed)
    assert drawn.seed == again.seed
    assert (tmp_path / "a.txt").read_bytes() == (tmp_path / "b.txt").read_bytes()


def test_sorted_blocks_are_spread_out(tmp_path: Path) -> None:
    """100 blocks of 1000 sorted lines (one round's points, together): in the output each
    block is spread evenly, neighbours in the output come from different blocks, and no
    trace of the input order is left. An identity, a shuffle of whole blocks or chunks, or
    a dealing into buckets without shuffling inside them all fail."""
    blocks, size = 100, 1000
    count = blocks * size
    source = write(tmp_path / "in.txt", [b"%03d %04d" % divmod(i, size) for i in range(count)])
    result = shuffle_lines([source], tmp_path / "out.txt", memory=MIN_MEMORY, seed=2024)
    assert result.buckets > 10
    index = np.array([int(line[:3]) * size + int(line[4:]) for line in
                      lines_of(tmp_path / "out.txt")])
    assert np.array_equal(np.sort(index), np.arange(count))
    block = index // size
    # Each block in each tenth of the output: 100 expected (sd 9.5).
    tenth = np.arange(count) * 10 // count
    cells = np.zeros((blocks, 10), dtype=int)
    np.add.at(cells, (block, tenth), 1)
    assert cells.min() > 55 and cells.max() < 145, (cells.min(), cells.max())
    # Neighbours from the same block: 1 % expected (about 1000 of 99999 pairs, sd 31).
    assert np.count_nonzero(block[1:] == block[:-1]) < 1300
    # Input neighbours still neighbours: about 1 expected.
    assert np.count_nonzero(index[1:] == index[:-1] + 1) < 10
    # No correlation between input and output positions (sd 0.003).
    assert abs(np.corrcoef(index, np.arange(count))[0, 1]) < 0.02


def test_every_order_is_equally_likely(tmp_path: Path) -> None:
    """Four lines shuffled with 720 seeds, through buckets split down to single lines:
    the 24 orders come up about 30 times each (chi-square, 23 degrees of freedom)."""
    source = write(tmp_path / "in.txt", [b"a", b"b", b"c", b"d"])
    seen: Counter[bytes] = Counter()
    runs = 720
    with mock.patch.object(shuffle_module, "_FIT", 0.0):
        for seed in range(runs):
            shuffle_lines([source], tmp_path / "out.txt", seed=seed, temp_dir=tmp_path)
            seen[(tmp_path / "out.txt").read_bytes()] += 1
    assert len(seen) == 24
    expected = runs / 24
    chi2 = sum((n - expected) ** 2 / expected for n in seen.values())
    assert chi2 < 49.7, (chi2, seen)  # p = 0.001


# --- memory and temporary files --------------------------------------------------------------

def test_memory_stays_within_the_budget(tmp_path: Path) -> None:
    budget = 1 << 20
    line = b"12,34,56,78,90,\t" * 6
    source = tmp_path / "in.txt"
    with source.open("wb") as out:
        for i in range(0, 110_000, 1000):  # 11 MB, ten times the budget
            out.write(b"".join(b"%d\t%s\n" % (j, line) for j in range(i, i + 1000)))
    tracemalloc.start()
    try:
        result = shuffle_lines([source], tmp_path / "out.txt", memory=budget, seed=1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.lines == 110_000 and result.buckets >= 10
    assert peak < budget, peak


def test_temporary_files_go_where_asked_and_are_removed(tmp_path: Path) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    source = write(tmp_path / "in.txt", numbered(30000))
    seen: set[str] = set()
    real_drain = shuffle_module._Shuffler.drain

    def spy(self: shuffle_module._Shuffler, bucket: shuffle_module._Bucket,
            depth: int) -> None:
        seen.update(os.listdir(temp))
        real_drain(self, bucket, depth)

    with mock.patch.object(shuffle_module._Shuffler, "drain", spy):
        result = shuffle_lines([source], tmp_path / "out.txt", memory=MIN_MEMORY,
                               temp_dir=temp)
    assert result.buckets > 0 and seen  # they were in temp ...
    assert os.listdir(temp) == []  # ... and are gone
    assert sorted(os.listdir(tmp_path)) == ["in.txt", "out.txt", "temp"]
    shuffle_lines([source], tmp_path / "out.txt", memory=MIN_MEMORY)  # beside the output
    assert sorted(os.listdir(tmp_path)) == ["in.txt", "out.txt", "temp"]


def test_errors_leave_nothing_behind(tmp_path: Path) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    good = write(tmp_path / "good.txt", numbered(30000))
    whole = gzip.compress(b"\n".join(numbered(30000)) + b"\n")
    (tmp_path / "cut.gz").write_bytes(whole[:len(whole) // 2])
    (tmp_path / "out.txt").write_bytes(b"the old output\n")
    with pytest.raises(DataFileError, match=r"cut.gz: truncated gzip archive"):
        shuffle_lines([good, tmp_path / "cut.gz"], tmp_path / "out.txt", memory=MIN_MEMORY,
                      temp_dir=temp)
    assert os.listdir(temp) == []
    assert (tmp_path / "out.txt").read_bytes() == b"the old output\n"  # untouched
    assert sorted(os.listdir(tmp_path)) == ["cut.gz", "good.txt", "out.txt", "temp"]
    # Ctrl-C in the middle of pass 2.
    calls = itertools.count()
    real_drain = shuffle_module._Shuffler.drain

    def interrupted(self: shuffle_module._Shuffler, bucket: shuffle_module._Bucket,
                    depth: int) -> None:
        if next(calls) == 5:
            raise KeyboardInterrupt
        real_drain(self, bucket, depth)

    with mock.patch.object(shuffle_module._Shuffler, "drain", interrupted), \
            pytest.raises(KeyboardInterrupt):
        shuffle_lines([good], tmp_path / "new.txt", memory=MIN_MEMORY, temp_dir=temp)
    assert os.listdir(temp) == []
    assert sorted(os.listdir(tmp_path)) == ["cut.gz", "good.txt", "out.txt", "temp"]


def test_bad_arguments(tmp_path: Path) -> None:
    source = write(tmp_path / "in.txt", [b"a"])
    for kwargs, message in (({"memory": MIN_MEMORY - 1}, "at least 64K"),
                            ({"seed": -1}, "negative")):
        with pytest.raises(ValueError, match=message):
            shuffle_lines([source], tmp_path / "out.txt", **kwargs)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no input"):
        shuffle_lines([], tmp_path / "out.txt")
    with pytest.raises(ValueError, match="only be read once"):
        shuffle_lines(["-", "-"], tmp_path / "out.txt")
    with pytest.raises(DataFileError, match="missing.txt: cannot open"):
        shuffle_lines([source, tmp_path / "missing.txt"], tmp_path / "out.txt")
    with pytest.raises(DataFileError, match="nowhere/out.txt: cannot create"):
        shuffle_lines([source], tmp_path / "nowhere" / "out.txt")
    (tmp_path / "folder").mkdir()
    with pytest.raises(DataFileError, match="folder: cannot open: it is a folder"):
        shuffle_lines([source, tmp_path / "folder"], tmp_path / "out.txt")
    with pytest.raises(DataFileError, match="folder: cannot write: it is a folder"):
        shuffle_lines([source], tmp_path / "folder")
    assert sorted(os.listdir(tmp_path)) == ["folder", "in.txt"]


@pytest.mark.timeout(30)  # a pipe wrongly read twice waits for a writer that is gone
def test_a_named_pipe_is_read_whole(tmp_path: Path) -> None:
    """A pipe (as with `referee shuffle <(zcat data.gz)`) is read once, from its first byte:
    nothing is taken from it to guess its size or format."""
    lines = numbered(20000)
    packed = tmp_path / "lines.gz"
    packed.write_bytes(gzip.compress(b"\n".join(lines) + b"\n"))
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    feeder = subprocess.Popen([sys.executable, "-c", "import sys; data = open(sys.argv[1], "
                               "'rb').read(); open(sys.argv[2], 'wb').write(data)",
                               str(packed), str(fifo)])
    result = shuffle_lines([fifo], tmp_path / "out.txt", memory=MIN_MEMORY, seed=1)
    assert feeder.wait(timeout=60) == 0
    assert sorted(lines_of(tmp_path / "out.txt")) == lines
    assert result.buckets > 0


# --- the command line ----------------------------------------------------------------------

def referee(*args: str, stdin: bytes | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], input=stdin,
                          capture_output=True, timeout=120, cwd=cwd)


def test_cli_shuffles(tmp_path: Path) -> None:
    lines = numbered(30000)
    source = write(tmp_path / "in.txt", lines)
    run = referee("shuffle", str(source), "-o", str(tmp_path / "out.gz"), "--memory", "64K",
                  "--seed", "11")
    assert run.returncode == 0, run.stderr
    summary = run.stderr.decode().strip()
    assert "\n" not in summary and run.stdout == b""
    assert summary.startswith("shuffled 30000 lines") and summary.endswith("seed 11")
    out = gzip.decompress((tmp_path / "out.gz").read_bytes()).split(b"\n")[:-1]
    assert sorted(out) == lines and out != lines
    # The library with the same seed and budget gives the very same order.
    shuffle_lines([source], tmp_path / "api.txt", memory=64 * 1024, seed=11)
    assert lines_of(tmp_path / "api.txt") == out


def test_cli_stdin_to_stdout() -> None:
    lines = numbered(5000)
    run = referee("shuffle", "-", "-o", "-", stdin=bz2.compress(b"\n".join(lines)))
    assert run.returncode == 0, run.stderr
    assert sorted(run.stdout.split(b"\n")[:-1]) == lines
    assert run.stderr.decode().startswith("shuffled 5000 lines")


@pytest.mark.parametrize(("args", "message"), [
    (["in.txt", "-o", "out.txt", "--memory", "12Q"],
     "Invalid value for '--memory': '12Q' is not a size such as 400M, 1G or 512K"),
    (["in.txt", "-o", "out.txt", "--memory", "1K"],
     "Invalid value for '--memory': '1K' is too small"),
    (["in.txt", "-o", "out.txt", "--seed", "-3"], "Invalid value for '--seed'"),
    (["missing.txt", "-o", "out.txt"],
     "Invalid value for 'INPUT...': File 'missing.txt' does not exist"),
    (["in.txt", "-o", "out.txt", "--temp-dir", "nowhere"],
     "Invalid value for '--temp-dir': Directory 'nowhere' does not exist"),
    (["in.txt", "cut.gz", "-o", "out.txt"], "referee: error: cut.gz: truncated gzip archive"),
    (["in.txt", "-o", "no/folder/out.txt"], "referee: error: no/folder/out.txt: cannot create"),
    (["-", "-", "-o", "out.txt"], "referee: error: standard input ('-') can only be read once"),
])
def test_cli_errors_are_one_clear_message(tmp_path: Path, args: list[str],
                                          message: str) -> None:
    write(tmp_path / "in.txt", numbered(100_000))
    (tmp_path / "cut.gz").write_bytes(gzip.compress(b"x\n" * 1000)[:-9])
    run = referee("shuffle", *args, cwd=tmp_path, stdin=b"")
    err = run.stderr.decode()
    assert run.returncode == 2, err
    assert message in err
    assert "Traceback" not in err and err.count("rror") == 1
    assert sorted(os.listdir(tmp_path)) == ["cut.gz", "in.txt"]  # nothing written


def test_cli_sigterm_removes_the_temporary_files(tmp_path: Path) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    source = write(tmp_path / "in.txt", numbered(1_500_000))  # 18 MB at 64K: seconds
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "shuffle", str(source),
                             "-o", str(tmp_path / "out.txt"), "--memory", "64K",
                             "--temp-dir", str(temp)], stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not any(folder.iterdir() for folder in temp.iterdir()):
        assert proc.poll() is None, "finished before its temporary files were seen"
        assert time.monotonic() < deadline
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert os.listdir(temp) == []
    if proc.returncode == 0:  # this test was held up so long that the shuffle had finished
        assert err.decode().startswith("shuffled 1500000 lines")
        assert (tmp_path / "out.txt").stat().st_size == source.stat().st_size
        return
    assert proc.returncode == 130, err
    assert err.decode().startswith("referee: interrupted")
    assert sorted(os.listdir(tmp_path)) == ["in.txt", "temp"]


def test_an_interrupt_during_the_removal_of_the_temporary_folder_waits_for_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C or SIGTERM while the temporary folder is being removed (at the very end of a
    shuffle, or while it is stopping) must not leave the folder behind."""
    import shutil

    from referee.training import shuffle as module

    calls = []
    real = shutil.rmtree

    def interrupted_once(path: str | Path, ignore_errors: bool = False) -> None:
        calls.append(path)
        if len(calls) == 1:
            raise KeyboardInterrupt  # arrives as the removal starts
        real(path, ignore_errors=ignore_errors)

    monkeypatch.setattr(module.shutil, "rmtree", interrupted_once)
    source = write(tmp_path / "in.txt", numbered(20_000))
    temp = tmp_path / "temp"
    temp.mkdir()
    result = shuffle_lines([source], tmp_path / "out.txt", memory=64 * 1024, seed=1,
                           temp_dir=temp)  # done: the late interrupt is not raised
    assert result.lines == 20_000 and len(calls) == 2 and os.listdir(temp) == []
    calls.clear()
    with pytest.raises(KeyboardInterrupt):  # not done: removed, then raised
        module._remove_folder(Path(mkdtemp_with_a_file(temp)), done=False)
    assert len(calls) == 2 and os.listdir(temp) == []


def mkdtemp_with_a_file(base: Path) -> str:
    import tempfile

    folder = tempfile.mkdtemp(dir=base)
    (Path(folder) / "0000001").write_bytes(b"x\n")
    return folder
