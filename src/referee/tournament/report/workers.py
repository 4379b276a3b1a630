"""The worker processes of the results site, which write the game pages of a large site.

``PageWorkers`` starts ``python -m referee.tournament.report.page_worker`` once per share of
the finished games, gives each a pickled ``PageJob`` then its pickled list of indices on
its standard input, and
later collects the pickled list of their ``GameFacts`` from their standard output. The
site starts these itself, rather than through ``multiprocessing``, so that building a site
never runs the caller's main script again in the workers (a script without an
``if __name__ == "__main__"`` guard would start building again in each).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.tournament.report.downloads import Download
from referee.tournament.report.summary import TournamentInfo


@dataclass(frozen=True)
class GameFacts:
    """What the game lists and player pages keep of a game whose page is written."""

    index: int
    """Its place in ``SiteBuilder.done`` (schedule order)."""
    key: str
    roles: tuple[str, ...]
    about: dict[str, dict[str, str]]
    duration: str
    programs: dict[str, str] = field(default_factory=dict)
    """Each player's program as the site shows it (``Public.program``)."""


@dataclass(frozen=True)
class PageJob:
    """What a worker process needs to write game pages (sent to it once, pickled)."""

    store_folder: Path
    out: Path
    info: TournamentInfo
    order: list[str]
    generated: str
    logs: dict[str, list[Download]]
    done: list[tuple[Any, ...]]
    """The finished games' rows in schedule order, as ``GameRow.values()``."""


class PageWorkers:
    """Processes writing the game pages of each share of ``job.done``
    (``python -m referee.tournament.report.workers``), started at once; ``collect``
    waits for their facts, so the caller can write other pages meanwhile."""

    def __init__(self, job: PageJob, shares: Sequence[Sequence[int]]) -> None:
        package = Path(__file__).resolve().parents[3]  # the folder that holds ``referee``
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(package),
                                                         env.get("PYTHONPATH", "")) if p)
        self.started = [
            subprocess.Popen([sys.executable, "-m", "referee.tournament.report.page_worker"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
            for _ in shares]
        # each is given the job (pickled once) and its share as soon as it has started (it
        # imports first): by threads, so that no worker waits for another one's start, nor
        # the caller for any
        common = pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL)
        self._feeding = [threading.Thread(target=_give, args=(process, common, pickle.dumps(
            list(share), protocol=pickle.HIGHEST_PROTOCOL)), daemon=True)
            for process, share in zip(self.started, shares, strict=True)]
        for thread in self._feeding:
            thread.start()

    def collect(self) -> list[GameFacts]:
        """Wait for every worker; their facts. Raises ``RuntimeError`` if one failed (its
        error is on stderr, shared)."""
        facts: list[GameFacts] = []
        failed = []
        for thread in self._feeding:
            thread.join()
        for process in self.started:
            assert process.stdout is not None
            with process.stdout:
                out = process.stdout.read()
            if process.wait():
                failed.append(process.returncode)
            else:
                facts.extend(pickle.loads(out))
        if failed:
            raise RuntimeError(f"{len(failed)} of {len(self.started)} processes writing game "
                               f"pages failed (exit status {failed[0]}); see the error above")
        return facts


def _give(process: subprocess.Popen[bytes], *pieces: bytes) -> None:
    """Write ``pieces`` to a worker's standard input and close it (a dead worker: its exit
    status tells)."""
    assert process.stdin is not None
    with contextlib.suppress(BrokenPipeError), process.stdin:
        for data in pieces:
            process.stdin.write(data)


def run_workers(job: PageJob, shares: Sequence[Sequence[int]]) -> list[GameFacts]:
    """Write the game pages of each share of ``job.done`` in a process of its own, all at
    once; their facts (``PageWorkers``)."""
    return PageWorkers(job, shares).collect()
