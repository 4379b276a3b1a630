"""Test helpers: write and read text-line files, plain, gzip or bz2."""

from __future__ import annotations

import bz2
import gzip
from collections.abc import Sequence
from pathlib import Path


def write(path: Path, lines: Sequence[str]) -> Path:
    """Write ``lines`` (each ended by a newline), compressed as the name's suffix says."""
    data = "".join(line + "\n" for line in lines).encode()
    if path.suffix == ".gz":
        data = gzip.compress(data)
    elif path.suffix == ".bz2":
        data = bz2.compress(data)
    path.write_bytes(data)
    return path


def read(path: Path) -> list[str]:
    """The lines of a file, plain or compressed (told by its first bytes)."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    elif data[:3] == b"BZh":
        data = bz2.decompress(data)
    text = data.decode()
    assert text == "" or text.endswith("\n")
    return text.split("\n")[:-1]
