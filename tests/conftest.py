"""Shared test set-up: this folder is on ``sys.path``, so helpers such as ``proctags``
can be imported by the tests of every subfolder; the hypothesis profile that bounds every
property test is loaded here; the browser tests' Chromium is a fixture here."""

import compileall
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis.internal.conjecture import engine as hypothesis_engine

from browsing import chromium, playwright_api

HYPOTHESIS_MAX_EXAMPLES = 100
"""Examples per property test unless the test says fewer (or, cheap, more)."""

HYPOTHESIS_DEADLINE_MS = 2000
"""Milliseconds one example may take: about thirty times the slowest typical example of the
property tests that use it (a few ms to about 60 ms), so that a loaded machine does not trip
it while a bug that makes an example slow fails at that example. Tests whose examples are
slower (about 100 to 250 ms) set ``deadline=10_000`` themselves."""

settings.register_profile("referee", max_examples=HYPOTHESIS_MAX_EXAMPLES,
                          deadline=HYPOTHESIS_DEADLINE_MS, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "referee"))

HYPOTHESIS_SHRINK_SECONDS = 30
"""Seconds hypothesis may spend shrinking one failure before it reports the smallest case
found so far (its own default is 300 s: a bug that makes examples slow kept a test busy for
minutes, and pytest-timeout's failure, raised inside the test, is taken by hypothesis as
one more failing example). Hypothesis's source leaves this constant open to patching."""
hypothesis_engine.MAX_SHRINKING_SECONDS = HYPOTHESIS_SHRINK_SECONDS


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Before the workers start: the project's sources (and the tests' bots) compiled to
    bytecode once, as an import would cache them. The tests start thousands of Python
    programs (the command line, bots); with ``PYTHONDONTWRITEBYTECODE`` set, or a fresh
    clone, each would compile every module it imports again (a referee's imports: 0.9 s of
    CPU instead of 0.55 s; an eighth of the CPU of the Planowanie and Mahjong tests).
    (Done by the controlling process only: workers have ``workerinput``.)"""
    if not hasattr(session.config, "workerinput"):
        root = Path(__file__).resolve().parents[1]
        for folder in (root / "src", root / "tests", root / "examples"):
            compileall.compile_dir(folder, quiet=2, workers=0)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``slow`` (each takes from about 7 s to over a minute) run first:
    pytest-xdist deals the first tests out to its workers in turn, so the long ones run
    side by side from the start and the short ones even out the end. Collected last, as
    they are in the files, a long one started near the end kept one worker busy alone
    while the other had nothing left (the suite's last minute on 2 CPUs)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # (stable)


@pytest.fixture
def tmp_path(tmp_path: Path) -> Path:
    """pytest's temporary folder, open to other users (0755): when the tests run as root,
    sandboxed bots run as users of their own and must read the programs a test writes
    there, as an organiser's bot folders must be readable (docs/sandbox.md)."""
    os.chmod(tmp_path, 0o755)
    return tmp_path


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium for a test module (Debian's, through Playwright: ``browsing``);
    the test is skipped, saying why, without either."""
    with chromium(playwright_api()) as launched:
        yield launched
