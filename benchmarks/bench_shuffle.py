"""Speed and memory of the external shuffle (`referee shuffle`), against copying the file.

A file of annotation-like lines is generated (kanachan's shape: a line number, then tab
separated fields of comma separated small integers, 300-600 bytes a line, each line
distinct), then, all in the same run:

* baseline: the file copied line by line in Python (binary ``for line in f:
  out.write(line)``), the least any line-by-line tool does;
* shuffle: :func:`referee.training.shuffle.shuffle_lines` with a 64 MiB budget (the input
  is many times larger, so it goes through temporary buckets): MB/s, lines/s and the
  ratio to the baseline;
* the process' peak RSS (``resource.getrusage``) before the shuffle (Python, numpy, the
  generator and the copy) and after it;
* a check that the output is a permutation: the same line count, bytes and an
  order-independent sum of CRC-32s.

The temporary buckets and the output go to ``--dir`` (default: the system's temporary
folder), which needs about three times the file's size free.

Run: ``.venv/bin/python benchmarks/bench_shuffle.py [--size-mb 500] [--memory 64M] [--json]``
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
import zlib
from pathlib import Path

import numpy as np
from figures import machine, print_figures

from referee.training.shuffle import parse_size, shuffle_lines

MB = 1_000_000


def generate(path: Path, size: int, seed: int) -> int:
    """Write about ``size`` bytes of annotation-like lines to ``path``; the line count."""
    rng = np.random.default_rng(seed)
    pool = []
    for _ in range(4096):  # distinct bodies; each line gets its own number in front
        numbers = rng.integers(0, 600, int(rng.integers(70, 150)))
        cuts = np.sort(rng.choice(np.arange(1, len(numbers)), 6, replace=False))
        pool.append("\t".join(",".join(map(str, part))
                              for part in np.split(numbers, cuts)).encode())
    lines = written = 0
    with path.open("wb") as out:
        while written < size:
            picks = rng.integers(0, len(pool), 10_000).tolist()
            data = b"".join(b"%d,%s\n" % (lines + i, pool[p]) for i, p in enumerate(picks))
            out.write(data)
            written += len(data)
            lines += len(picks)
    return lines


def fingerprint(path: Path) -> tuple[int, int, int]:
    """Lines, bytes and the sum of the lines' CRC-32s (the same for any order)."""
    lines = size = total = 0
    with path.open("rb") as stream:
        for line in stream:
            lines += 1
            size += len(line)
            total += zlib.crc32(line)
    return lines, size, total


def peak_rss_mb() -> float:
    """The process' peak resident memory so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / MB


def main() -> None:
    """Generate, copy, shuffle, check; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size-mb", type=int, default=500, help="size of the file (MB)")
    parser.add_argument("--memory", default="64M", help="the shuffle's budget")
    parser.add_argument("--dir", type=Path, help="folder for the files")
    parser.add_argument("--json", action="store_true", help="one JSON line")
    args = parser.parse_args()
    memory = parse_size(args.memory)

    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-shuffle-", dir=args.dir) as folder:
        source, copy, output = (Path(folder) / name for name in ("in.txt", "copy.txt",
                                                                 "out.txt"))
        start = time.perf_counter()
        lines = generate(source, args.size_mb * MB, seed=1)
        generated = time.perf_counter() - start
        size = source.stat().st_size

        start = time.perf_counter()
        with source.open("rb") as stream, copy.open("wb") as out:
            for line in stream:
                out.write(line)
        copied = time.perf_counter() - start
        copy.unlink()
        rss_before = peak_rss_mb()

        start = time.perf_counter()
        result = shuffle_lines([source], output, memory=memory, seed=7, temp_dir=folder)
        shuffled = time.perf_counter() - start
        rss_after = peak_rss_mb()

        same = fingerprint(source) == fingerprint(output)
        moved = source.open("rb").readline() != output.open("rb").readline()

    print_figures({
        "machine": machine(),
        "load average (1 min) at start, end": f"{load_start:.2f}, {os.getloadavg()[0]:.2f}",
        "file": f"{size / MB:.0f} MB, {lines} lines, {size / lines:.0f} bytes a line "
                f"(generated in {generated:.1f} s)",
        "memory budget": f"{memory / 2**20:g} MiB",
        "baseline: line-by-line copy": f"{size / MB / copied:.0f} MB/s, "
                                       f"{lines / copied:,.0f} lines/s ({copied:.1f} s)",
        "shuffle": f"{size / MB / shuffled:.0f} MB/s, {lines / shuffled:,.0f} lines/s "
                   f"({shuffled:.1f} s)",
        "shuffle / copy (rate ratio)": round(copied / shuffled, 2),
        "buckets (split again)": f"{result.buckets} ({result.resplits})",
        "peak RSS before the shuffle (MB)": round(rss_before, 1),
        "peak RSS after the shuffle (MB)": round(rss_after, 1),
        "output is a permutation of the input": same and moved,
    }, args.json)


if __name__ == "__main__":
    main()
