"""``referee annotate riichi``: Riichi log files turned into one annotation file.

Inputs are log files of any format :func:`~referee.games.riichi.replay.load_log` reads
(mjai JSON lines: our records, Mortal's and mjai's logs; Tenhou mjlog XML; Tenhou JSON;
each plain or gzip) or folders, searched recursively (files in name order). Each file is
one game. Each game is annotated by
:func:`~referee.games.riichi.kanachan.annotate.annotate_game` with its game id: the file
name without its extensions (``2010091009gm-00a9-0000-83af2648`` for
``2010091009gm-00a9-0000-83af2648.mjlog``), or, when two inputs share that name, the path
as given (tabs, commas and spaces made ``_``).

The room and the grades come from the command line when given, else from the log (a Tenhou
room, Tenhou dan), else the defaults (:mod:`referee.games.riichi.kanachan.annotate`). So
do the rules the games were played under
(:func:`~referee.games.riichi.replay.chosen_rules`): a rule set or rules file named on the
command line, else those the log records, else guessed.
A file that cannot be annotated (unreadable, not a whole game, a replay mismatch, no red
fives) is skipped with its reason; the others are written. Files are annotated in ``jobs``
processes or on Ray (:mod:`referee.training.parallel`) and written in input order to one
output (gzip or bz2 by its name, ``-`` for standard output), which appears complete or not
at all (:mod:`referee.training.corpus`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.games.riichi.kanachan.annotate import (
    DEFAULT_GRADE,
    DEFAULT_ROOM,
    TENHOU_ROOMS,
    Context,
    annotate_game,
    grade_of_dan,
)
from referee.training.corpus import AnnotateSummary, GameLines, input_files, write_games
from referee.training.parallel import ordered_map

__all__ = ["Overrides", "annotate_file", "annotate_logs", "context_for", "game_ids"]

_EXTENSIONS = (".gz", ".bz2", ".mjlog", ".json", ".jsonl", ".mjson", ".log", ".txt", ".xml")
_UNSAFE = re.compile(r"[\s,]")


@dataclass(frozen=True)
class Overrides:
    """Command-line values that win over the log's: room 0..4, four grades 0..15, the
    rules the games were played under (a rule set's or a rules file's name, see
    :mod:`referee.games.riichi.rulesets`; resolved where the file is annotated) and the
    game length; and whether the points are kanachan's (:class:`Context`)."""

    room: int | None = None
    grades: tuple[int, ...] | None = None
    rules: str | None = None
    game_length: str | None = None
    kanachan_exact: bool = True


def game_ids(paths: Sequence[Path]) -> list[str]:
    """A game id per file: its name without extensions, or its path when names clash."""
    stems = [_stem(p.name) for p in paths]
    seen = Counter(stems)
    return [_UNSAFE.sub("_", stem if seen[stem] == 1 else str(path))
            for stem, path in zip(stems, paths, strict=True)]


def _stem(name: str) -> str:
    while True:
        for extension in _EXTENSIONS:
            if name.lower().endswith(extension) and len(name) > len(extension):
                name = name[:-len(extension)]
                break
        else:
            return name


def context_for(overrides: Overrides, room: str | None = None,
                dans: tuple[int | None, ...] | None = None) -> Context:
    """The annotation context of a game: the command line's values, else the log's (a
    Tenhou ``room``, Tenhou ``dans``), else the defaults."""
    if overrides.room is not None:
        room_value = overrides.room
    else:
        room_value = TENHOU_ROOMS.get(room or "", DEFAULT_ROOM)
    if overrides.grades is not None:
        grades = overrides.grades
    elif dans is not None and len(dans) == 4:
        grades = tuple(DEFAULT_GRADE if d is None or not 0 <= d <= 20 else grade_of_dan(d)
                       for d in dans)
    else:
        grades = (DEFAULT_GRADE,) * 4
    return Context(room=room_value, grades=grades, kanachan_exact=overrides.kanachan_exact)


def annotate_file(task: tuple[str, str, Overrides]) -> GameLines:
    """Annotate one log file (``(path, game id, overrides)``); errors come back as data."""
    from referee.games.riichi.replay import chosen_rules, load_log
    from referee.games.riichi.rulesets import resolve_rules

    path, game_id, overrides = task
    try:
        loaded = load_log(path)
        context = context_for(overrides, loaded.room, loaded.dans)
        given = None if overrides.rules is None else resolve_rules(overrides.rules)
        rules = chosen_rules(loaded, given, overrides.game_length)
        lines = annotate_game(loaded.events, game_id, context, rules,
                              source=path, final_results=loaded.final_results)
    except (ValueError, OSError, EOFError) as exc:
        return GameLines(path, error=str(exc).replace("\n", " "))
    return GameLines(path, lines)


def annotate_logs(paths: Iterable[str | Path], output: str | Path,
                  overrides: Overrides | None = None, *, jobs: int = 1,
                  ray: str | None = None) -> AnnotateSummary:
    """Annotate every log file under ``paths`` into ``output`` (see the module notes)."""
    files = input_files(paths)
    ids = game_ids(files)
    chosen = overrides or Overrides()
    tasks: Iterator[tuple[str, str, Overrides]] = (
        (str(path), game_id, chosen) for path, game_id in zip(files, ids, strict=True))
    return write_games(ordered_map(annotate_file, tasks, jobs, ray), output)
