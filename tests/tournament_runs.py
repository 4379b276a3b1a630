"""What the tests that run a whole tournament share: its file written to a folder, with
the files it names, and run there as ``referee tournament`` does, printing nothing."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from referee.tournament.session import run_tournament


def run_quietly(folder: Path, toml: str, concurrency: int | None = None,
                **files: str) -> Path:
    """Write ``toml`` as ``folder/t.toml`` and ``files`` (name -> text) beside it, run the
    tournament, and return its output folder (``folder/out``, as the file must say)."""
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "t.toml").write_text(toml, encoding="utf-8")
    run_tournament(folder / "t.toml", Console(file=io.StringIO(), width=120),
                   concurrency=concurrency)
    return folder / "out"
