"""Where the GOHR tests find the sample data: the project's shared copy if present, else
the copy under tests/data/gohr (the same files)."""

from __future__ import annotations

from pathlib import Path

_TESTS = Path(__file__).resolve().parents[2]
SHARED = _TESTS.parent.parent / "shared" / "data" / "gohr"
DATA = SHARED if SHARED.is_dir() else _TESTS / "data" / "gohr"
"""The sample data folder (rules/, boards/, trial-lists/, modifiers/, cond/, param/)."""
