"""What the tests that run a whole tournament share: its file written to a folder, with
the files it names, and run there as ``referee tournament`` does, printing nothing; and a
stored record as its results site offers it."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

from rich.console import Console

from referee.core.record import GameRecord
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


def as_published(record: GameRecord) -> dict[str, Any]:
    """A stored record of built-in players as the results site offers it: the same,
    but each program's command with its paths by their file names (the site names no
    folder of the organiser's, such as the Python environment's)."""
    data = record.to_dict()
    for player in data["players"]:
        player["command"] = [os.path.basename(w) if os.path.isabs(w) else w
                             for w in player["command"]]
    return data
