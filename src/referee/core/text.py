"""Small text helpers every game's protocol and replay use: clipping and strict integers."""

from __future__ import annotations

MAX_INT_LENGTH = 9
"""Longest integer (sign included) a bot may send: larger answers are not numbers here."""


def clip(text: str, limit: int = 80, marker: str = "...") -> str:
    """``text`` cut to ``limit`` characters, ``marker`` ending it if it was cut."""
    return text if len(text) <= limit else text[: limit - len(marker)] + marker


def parse_int(text: str) -> int | None:
    """A decimal integer with at most one sign (``3``, ``-2``, ``+7``) of at most
    ``MAX_INT_LENGTH`` characters; ``None`` for anything else."""
    digits = text[1:] if text[:1] in "+-" else text
    if not digits.isdecimal() or len(text) > MAX_INT_LENGTH:
        return None
    return int(text)
