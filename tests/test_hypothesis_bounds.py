"""Every hypothesis property test is bounded: the profile loaded by ``conftest.py`` gives a
deadline per example, a number of examples and a time for shrinking a failure, and no test
lifts them (``deadline=None``, thousands of examples), so that a bug fails at a slow example
instead of at the suite's timeout."""

from __future__ import annotations

import ast
from datetime import timedelta
from pathlib import Path

from hypothesis import settings
from hypothesis.internal.conjecture import engine

TESTS = Path(__file__).resolve().parent
MAX_EXAMPLES = 500
"""The most examples one test may ask for."""
MAX_DEADLINE_MS = 10_000
"""The longest deadline one test may set."""


def settings_calls() -> list[tuple[str, ast.Call]]:
    """Every ``settings(...)`` call in the tests, with where it is."""
    calls = []
    for path in sorted(TESTS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in (
                    "settings", "hypothesis.settings"):
                calls.append((f"{path.relative_to(TESTS)}:{node.lineno}", node))
    return calls


def test_the_profile_bounds_examples_and_their_time() -> None:
    # conftest.py's profile is loaded (hypothesis alone: 100 examples, 200 ms)
    assert settings.default.deadline == timedelta(seconds=2)
    assert settings.default.max_examples == 100
    assert settings.default.print_blob
    # shrinking a failure stops after 30 s (the constant is still the one hypothesis reads)
    assert engine.MAX_SHRINKING_SECONDS == 30
    assert "MAX_SHRINKING_SECONDS" in Path(engine.__file__).read_text(encoding="utf-8")


def test_no_test_lifts_the_bounds() -> None:
    calls = settings_calls()
    assert len(calls) > 20  # the scan sees the property tests
    for where, call in calls:
        for keyword in call.keywords:
            if keyword.arg == "deadline":
                value = ast.literal_eval(keyword.value)
                assert value is not None, f"{where}: deadline=None"
                assert 0 < value <= MAX_DEADLINE_MS, f"{where}: deadline={value}"
            if keyword.arg == "max_examples":
                value = ast.literal_eval(keyword.value)
                assert 0 < value <= MAX_EXAMPLES, f"{where}: max_examples={value}"
