"""What the core's tests of real bot processes share: the tag every bot of a test
inherits, by which a test finds what it left running (a failure)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from proctags import TAG, left_behind


@pytest.fixture
def tag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A tag every bot of the test inherits; any left running at the end is a failure."""
    value = f"core-{time.time_ns()}-{tmp_path.name}"
    monkeypatch.setenv(TAG, value)
    yield value
    left = left_behind(value)
    assert not left, f"left running: {[p.pid for p in left]}"
