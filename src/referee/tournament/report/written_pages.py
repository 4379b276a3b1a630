"""The game pages this process has written, so that building a site again skips the pages
that would come out the same.

A running tournament builds its site again every few seconds (``refresh``), and
``referee report --serve`` whenever the store changes; most game pages of such a build are
the pages of the build before (a finished game's record never changes). A ``PageKey``
holds everything a game page shows besides its record: the site's name, the game's row,
the numbers of the games it links as previous and next, the logs it offers. A build
writes a game page only when its key differs from the one this process last wrote there,
or the file is gone (or the shared files the pages link, ``static/shared/``). Only this
process's own pages are trusted (its code made them), so nothing is kept on disk: the
first build of a process writes every page.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from dataclasses import replace
from pathlib import Path

from referee.tournament.report.workers import GameFacts

__all__ = ["PageKey", "WrittenPages", "written_pages"]

PageKey = tuple[Hashable, ...]
"""What a game page shows besides its record (equal keys: the same page)."""

SITES_KEPT = 16
"""Sites whose pages a process remembers (the oldest is forgotten first)."""


class WrittenPages:
    """The game pages of one site written by this process, by game key: each page's
    ``PageKey`` and the facts the lists need of it."""

    def __init__(self) -> None:
        self._pages: dict[str, tuple[PageKey, GameFacts]] = {}
        self._lock = threading.Lock()

    def kept(self, key: str, page: PageKey, path: Path, index: int) -> GameFacts | None:
        """The facts of game ``key``'s page if it is still at ``path`` as this process
        wrote it for ``page`` (at place ``index`` now); ``None`` if it must be written."""
        with self._lock:
            known = self._pages.get(key)
        if known is None or known[0] != page or not path.is_file():
            return None
        facts = known[1]
        return facts if facts.index == index else replace(facts, index=index)

    def forget(self) -> None:
        """Trust none of the pages (what they link is gone): the next build writes all."""
        with self._lock:
            self._pages.clear()

    def remember(self, page: PageKey, facts: GameFacts) -> None:
        """Game ``facts.key``'s page was written for ``page``."""
        with self._lock:
            self._pages[facts.key] = (page, facts)


_SITES: dict[tuple[Path, Path], WrittenPages] = {}
_SITES_LOCK = threading.Lock()


def written_pages(out: Path, store_folder: Path) -> WrittenPages:
    """The pages this process has written into the site ``out`` from the store in
    ``store_folder``."""
    where = (out.resolve(), store_folder.resolve())
    with _SITES_LOCK:
        site = _SITES.pop(where, None) or WrittenPages()
        _SITES[where] = site  # the most recent last
        while len(_SITES) > SITES_KEPT:
            del _SITES[next(iter(_SITES))]
        return site
