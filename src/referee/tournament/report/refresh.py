"""The results site kept up to date while a tournament runs: built again in a background
thread after games finish, one build at a time, at most every ``interval`` seconds (and
never more often than three times the last build took, so that a large site does not take
the machine from the games). Every page is written whole, then renamed into place: a
browser opening the site meanwhile reads the old page or the new one. A build writes only
the game pages that changed since this process last wrote them (``written_pages``): the
new games' and their neighbours'.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

__all__ = ["SiteRefresher"]


class SiteRefresher:
    """Builds ``build()`` (the site) again when poked, in its own thread."""

    def __init__(self, build: Callable[[], object], interval: float = 5.0) -> None:
        self.build = build
        self.interval = interval
        self.builds = 0
        """How many builds were made."""
        self._poked = threading.Event()
        self._stop = threading.Event()
        self._took = 0.0
        self._warned = False
        self._thread = threading.Thread(target=self._loop, name="site-refresher",
                                        daemon=True)
        self._thread.start()

    def poke(self) -> None:
        """A game finished: build the site again when it is time."""
        self._poked.set()

    def close(self) -> None:
        """Stop (a build under way is finished first)."""
        self._stop.set()
        self._poked.set()
        self._thread.join()

    def _loop(self) -> None:
        last = time.monotonic()
        while True:
            self._poked.wait()
            if self._stop.is_set():
                return
            wait = max(self.interval, 3 * self._took) - (time.monotonic() - last)
            if wait > 0 and self._stop.wait(wait):
                return
            self._poked.clear()
            if self._stop.is_set():  # (a close came as the poke was cleared: its own poke
                return  # went with it)
            started = time.monotonic()
            try:
                self.build()
            except Exception as exc:  # the tournament goes on; the final build says it
                if not self._warned:
                    log.warning("the results site could not be built during the run: %s",
                                exc)
                self._warned = True
            else:
                self.builds += 1
            last = time.monotonic()
            self._took = last - started


def site_refresher(store_folder: Path, out_dir: Path, interval: float = 5.0
                   ) -> SiteRefresher:
    """A refresher of the site of the store in ``store_folder`` into ``out_dir`` (in one
    process: the games being played keep the other CPUs)."""
    from referee.tournament.report.site import build_site

    return SiteRefresher(lambda: build_site(store_folder, out_dir, workers=1), interval)
