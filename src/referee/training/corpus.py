"""A corpus of games turned into training lines, whatever the game: the files to read under
the paths given, each game's lines (or why there are none), and all of them written in
order to one output.

A game's annotator reads the :func:`input_files`, turns each game into :class:`GameLines`
(in worker processes or on Ray: :mod:`referee.training.parallel`) and hands them to
:func:`write_games`, which writes them in order to one output (gzip or bz2 by its name,
``-`` for standard output) that appears complete or not at all
(:class:`~referee.training.shuffle.AtomicOutput`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from referee.core.errors import ConfigError
from referee.training.shuffle import AtomicOutput

__all__ = ["AnnotateSummary", "GameLines", "input_files", "write_games"]


@dataclass
class GameLines:
    """One game's annotation lines, or why there are none."""

    label: str
    lines: list[str] = field(default_factory=list)
    error: str | None = None


@dataclass
class AnnotateSummary:
    """What was written: games, decision points (lines), and the skipped inputs."""

    games: int = 0
    points: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)


_REFEREE_FILES = re.compile(r".*\.stderr\.log|game-\d+\.json")
"""What a match's output folder holds besides its game logs: the bots' stderr logs and
the referee's own records (``game-001.json``, whose game is in the log beside it)."""


def input_files(paths: Iterable[str | Path]) -> list[Path]:
    """The files to read: each file given, and every file under each folder given (in
    name order; hidden ones, and a match folder's stderr logs and records, left out),
    each once, where it first comes (a file given twice, or in a folder given too, is one
    game: read twice, it would be two). ``ConfigError`` names a path that does not exist
    or a folder without a log."""
    out: list[Path] = []
    seen: set[Path] = set()

    def add(path: Path) -> None:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            out.append(path)

    for given in paths:
        path = Path(given)
        if path.is_dir():
            found = False
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if not name.startswith(".") and not _REFEREE_FILES.fullmatch(name):
                        found = True
                        add(Path(root, name))
            if not found:
                raise ConfigError(f"{given}: the folder holds no game log")
        elif path.exists():
            add(path)
        else:
            raise ConfigError(f"{given}: no such file or folder")
    return out


def write_games(games: Iterable[GameLines], output: str | Path) -> AnnotateSummary:
    """Write the lines of ``games`` in order to ``output`` (atomically); skipped games
    are counted with their reasons."""
    summary = AnnotateSummary()
    with AtomicOutput(output) as out:
        for game in games:
            if game.error is not None:
                summary.skipped.append((game.label, game.error))
                continue
            if game.lines:
                out.write(("\n".join(game.lines) + "\n").encode())
            summary.games += 1
            summary.points += len(game.lines)
    return summary
