"""What the results site publishes of the organiser's machine: names, never its folders.

A store keeps each program's full command (``/home/me/venv/bin/python3
/home/me/t/bots/x.py``): the store is the organiser's. Everything the site writes goes
through one ``Public`` first, which shows

- a program by its name and its command relative to the tournament's folder (the folder
  of the tournament file, which the store's meta names; its words that are paths outside
  it by their file names: ``python3 bots/x.py``), a built-in bot as ``built-in NAME``;
- any other text (reasons, bots' messages, settings, logs, the tournament file) with the
  organiser's folders written as people may read them: the tournament's folder as
  relative paths (``bots/x.py``), the store's from there (``out/slots/1``), the Python
  environment by its folder's name (``.venv/lib/...``), the referee's own sources from
  their package (``referee/core/...``), the home folder as ``~``.

Stores of earlier releases do not name the tournament's folder: their commands show
their programs' file names only.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import referee
from referee.core.record import GameRecord, Note
from referee.tournament.store import GameRow

__all__ = ["Public"]

SYSTEM_PREFIXES = ("/usr", "/usr/local", "/opt/homebrew")
"""Python environments that say nothing of the organiser (their paths are kept)."""


class Public:
    """The organiser's folders and how the site writes them (see the module docstring).

    ``folder``: the tournament's folder (``""``: not known); ``store``: the store's;
    ``builtins``: the game's built-in bots (name -> module), to name their commands."""

    def __init__(self, folder: str, store: Path, builtins: Mapping[str, str] | None = None
                 ) -> None:
        self.folder = _real(folder) if folder else ""
        if self.folder == "/":  # (every path is under it: nothing to write relative)
            self.folder = ""
        self.modules = {module: name for name, module in (builtins or {}).items()}
        roots: dict[str, str] = {}
        home = _real(str(Path.home()))
        if home not in ("", "/"):
            roots[home] = "~"
        environment = _real(sys.prefix)
        if environment not in SYSTEM_PREFIXES:
            roots[environment] = Path(environment).name
        sources = _real(str(Path(referee.__file__).parent.parent))
        roots[sources] = ""
        stored = _real(str(store))
        roots[stored] = self._inside(stored) or ""
        if self.folder:
            roots[self.folder] = ""
        self.roots = sorted(roots.items(), key=lambda item: -len(item[0]))
        """Each folder and what is written for it, the longest first."""
        self._pattern = re.compile(
            r"(?<![\w.~/-])(" + "|".join(re.escape(root) for root, _ in self.roots)
            + r")(?:(/)|(?=$|[^\w.-]|[.-](?!\w)))")
        self._with = dict(self.roots)

    def _inside(self, path: str) -> str | None:
        """``path`` relative to the tournament's folder (``None`` outside it)."""
        if not self.folder:
            return None
        if path == self.folder:
            return "."
        if path.startswith(self.folder.rstrip("/") + "/"):
            return path[len(self.folder.rstrip("/")) + 1:]
        return None

    # -- what the site writes --------------------------------------------------------------
    def text(self, text: str) -> str:
        """``text`` with the organiser's folders written as people may read them."""
        if not text or "/" not in text:
            return text
        return self._pattern.sub(self._replace, text)

    def _replace(self, found: re.Match[str]) -> str:
        """What is written for one folder found in a text (and the slash after it)."""
        shown = self._with[found.group(1)]
        if found.group(2):  # a path under it: relative, or from its name
            return f"{shown}/" if shown else ""
        return shown or "."

    def command(self, words: Sequence[str]) -> list[str]:
        """A program's command as the site shows it: relative to the tournament's folder,
        paths elsewhere by their file names."""
        shown = []
        for word in words:
            if os.path.isabs(word):
                inside = self._inside(_real(word))
                shown.append(inside if inside is not None else os.path.basename(word) or word)
            else:
                shown.append(self.text(word))
        return shown

    def program(self, words: Sequence[str]) -> str:
        """What a player is, in a few words: ``built-in greedy``, or its command line."""
        if len(words) == 3 and words[1] == "-m" and words[2] in self.modules:
            return f"built-in {self.modules[words[2]]}"
        return shlex.join(self.command(words))

    def record(self, record: GameRecord) -> GameRecord:
        """The record as the site offers it: the same game, its players' commands and its
        texts as ``command`` and ``text`` write them."""
        text = self.text
        players = [dataclasses.replace(p, command=self.command(p.command),
                                       about={k: text(v) for k, v in p.about.items()})
                   for p in record.players]
        notes = [Note(n.seat, n.ply, n.kind, text(n.text)) for n in record.notes]
        faults = [dataclasses.replace(f, reason=text(f.reason)) for f in record.faults]
        return dataclasses.replace(record, players=players, notes=notes, faults=faults,
                                   reason=text(record.reason), sandbox=text(record.sandbox),
                                   settings=self.settings(record.settings))

    def settings(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        """Settings (plain data) with every text in them as ``text`` writes it."""
        return {key: self._value(value) for key, value in settings.items()}

    def _value(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {key: self._value(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._value(item) for item in value]
        return value

    def row(self, row: GameRow) -> GameRow:
        """A store row with its reason as ``text`` writes it (the same row when nothing
        changes)."""
        if not row.reason:
            return row
        reason = self.text(row.reason)
        return row if reason == row.reason else dataclasses.replace(row, reason=reason)

    def data(self, data: bytes) -> bytes:
        """Bytes (a log) with the organiser's folders written as ``text`` writes them."""
        if b"/" not in data:
            return data
        return self.text(data.decode("utf-8", "surrogateescape")).encode(
            "utf-8", "surrogateescape")


def _real(path: str) -> str:
    """An absolute path as written, without a trailing slash (not resolved: a link to a
    folder is named as the organiser named it)."""
    return os.path.normpath(os.path.abspath(path)) if path else ""
