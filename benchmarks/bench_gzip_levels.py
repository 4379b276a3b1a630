"""gzip levels on annotation lines: the size and the time of each, against level 6.

The corpus: the annotation lines of the five whole real games in ``tests/data/riichi`` and
of ``--selfplay`` games of four greedy bots (``bench_annotate.py``'s corpus). Each level
compresses the whole text once per round as a gzip stream (what ``.gz`` outputs are), best
of ``--rounds``; the baseline is level 6 (gzip's default) in the same run. This is why
annotation files are written at level 5 (:data:`referee.training.shuffle.LINES_GZIP_LEVEL`).

Run: ``.venv/bin/python benchmarks/bench_gzip_levels.py [--selfplay 20] [--rounds 5]
[--json]``
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

from bench_annotate import corpus_files
from figures import machine, print_figures


def corpus(selfplay_games: int) -> bytes:
    """The annotation lines of the corpus, as one text."""
    from referee.games.riichi.kanachan.logs import annotate_logs

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "lines.txt"
        annotate_logs(corpus_files(Path(folder), selfplay_games), out)
        return out.read_bytes()


def gzip_stream(text: bytes, level: int) -> int:
    """The size of ``text`` as a gzip stream at ``level``."""
    packer = zlib.compressobj(level, zlib.DEFLATED, 31)
    return len(packer.compress(text) + packer.flush())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--selfplay", type=int, default=20, help="self-play games added")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    text = corpus(args.selfplay)
    lines = text.count(b"\n")
    sizes: dict[int, int] = {}
    times: dict[int, float] = {}
    for level in range(1, 10):
        best = float("inf")
        for _ in range(args.rounds):
            start = time.process_time()
            sizes[level] = gzip_stream(text, level)
            best = min(best, time.process_time() - start)
        times[level] = best
    figures: dict[str, Any] = {
        "machine": machine(),
        "load_average": round(os.getloadavg()[0], 2), "lines": lines,
        "bytes_per_line": round(len(text) / lines)}
    for level in range(1, 10):
        figures[f"level_{level}"] = (
            f"{len(text) / sizes[level]:.1f}x smaller, {times[level] * 1e6 / lines:.2f} us/line,"
            f" size/level 6 {sizes[level] / sizes[6]:.3f}, time/level 6 "
            f"{times[level] / times[6]:.2f}")
    print_figures(figures, args.json)


if __name__ == "__main__":
    main()
