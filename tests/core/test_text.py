"""The shared text helpers: clipping and the strict integer bots may send."""

from __future__ import annotations

import pytest

from referee.core.text import clip, parse_int


@pytest.mark.parametrize(("text", "value"), [
    ("3", 3), ("-2", -2), ("+7", 7), ("000", 0), ("123456789", 123456789), ("-12345678", -12345678),
])
def test_integers(text: str, value: int) -> None:
    assert parse_int(text) == value


@pytest.mark.parametrize("text", ["", "+", "-", "+-5", "--3", "1.5", "1e3", " 4",
                                  "1234567890", "-123456789", "0x10", "seven"])
def test_not_integers(text: str) -> None:
    assert parse_int(text) is None


def test_clip() -> None:
    assert clip("short") == "short"
    assert clip("x" * 80) == "x" * 80
    assert clip("x" * 81) == "x" * 77 + "..."
    assert clip("abcdef", 4, "\u2026") == "abc\u2026"
