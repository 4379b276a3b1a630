"""Small text helpers: clipping, seats as people number them, strict integers (what bots
send), sizes (what users write), the words of a broken bound (``range_text``, ``got``:
shared by the command line's options and ``core.validation``, kept here so that options
need not import pydantic), and of a bot that cannot be written to (``write_failure``)."""

from __future__ import annotations

import re

_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmgt]?)(i?b)?\s*", re.IGNORECASE)
_UNITS = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}

MAX_SIZE = 1 << 50
"""The largest size accepted (1024T): larger ones are mistakes, and beyond 2**64 bytes no
limit of the kernel could hold them."""

MAX_INT_LENGTH = 9
"""Longest integer (sign included) a bot may send: larger answers are not numbers here."""


def clip(text: str, limit: int = 80, marker: str = "...") -> str:
    """``text`` cut to ``limit`` characters, ``marker`` ending it if it was cut."""
    return text if len(text) <= limit else text[: limit - len(marker)] + marker


def seat_name(seat: int) -> str:
    """A seat as people read it, numbered from 1: ``seat 1`` is the first seat (the one
    records, the store and the wire formats number 0)."""
    return f"seat {seat + 1}"


def parse_int(text: str) -> int | None:
    """A decimal integer with at most one sign (``3``, ``-2``, ``+7``) of at most
    ``MAX_INT_LENGTH`` characters; ``None`` for anything else."""
    digits = text[1:] if text[:1] in "+-" else text
    if not digits.isdecimal() or len(text) > MAX_INT_LENGTH:
        return None
    return int(text)


class SizeTooLarge(ValueError):
    """A size above ``MAX_SIZE``."""


def size_text(size: int) -> str:
    """A size in bytes as the referee says it: ``64 KB``, ``1 MB``, ``100 bytes``."""
    if size >= 1 << 20 and size % (1 << 20) == 0:
        return f"{size >> 20} MB"
    if size >= 1024 and size % 1024 == 0:
        return f"{size >> 10} KB"
    return f"{size} bytes"


def parse_size(text: str, bare: int = 1) -> int:
    """Bytes in a size such as ``1G``, ``256M``, ``500K``, ``1.5g``, ``64MiB``, ``4096B``
    (units of 1024); a bare number (``4096``) counts units of ``bare`` bytes. Raises
    ``SizeTooLarge`` above ``MAX_SIZE`` and ``ValueError`` for anything else."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise ValueError(f"not a size: {text!r} (examples: 1G, 256M, 500K)")
    unit = match[2].lower()
    factor = _UNITS[unit] if unit else (1 if match[3] else bare)
    size = float(match[1]) * factor
    if size > MAX_SIZE:
        raise SizeTooLarge(f"{text.strip()!r} is too large (at most {MAX_SIZE >> 40}T)")
    return int(size)


DURATION_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(ms|s|m|h)?\s*", re.IGNORECASE)


def parse_duration(text: str) -> tuple[float, str | None]:
    """A duration as written (``5s``, ``500ms``, ``1.5s``, ``2m``, ``1h``, or a bare
    number): its number and its unit in lower case (``None`` when bare); ``ValueError``
    for anything else."""
    match = _DURATION.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not a duration such as 5s, 500ms or 1.5s")
    unit = match.group(2)
    return float(match.group(1)), unit.lower() if unit else None


def size_has_unit(text: str) -> bool:
    """Whether a size is written with its unit (``256M``, ``4096B``), not bare."""
    return not text.strip()[-1:].isdigit()


def range_text(*, ge: object = None, gt: object = None, le: object = None,
               lt: object = None) -> str:
    """The bound a value broke, in words: ``at least 1``, ``at most 32``, ``more than 0``."""
    ge, gt, le, lt = (f"{b:g}" if isinstance(b, float) else b for b in (ge, gt, le, lt))
    low = f"at least {ge}" if ge is not None else f"more than {gt}" if gt is not None else ""
    high = f"at most {le}" if le is not None else f"less than {lt}" if lt is not None else ""
    return " and ".join(part for part in (low, high) if part)


def got(value: object) -> str:
    """``, got VALUE`` as a message ends (the value shortened if long)."""
    return f", got {clip(repr(value), 40)}"


def write_failure(exc: OSError) -> str:
    """Why a line could not be written to a bot, in the record's words (a bot that closed
    its input, as one that closed its output, has crashed), not Python's."""
    if isinstance(exc, BrokenPipeError):
        return "closed its input"
    return f"its input cannot be written: {exc.strerror or exc}"
