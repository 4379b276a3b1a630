"""JSON read fast: orjson where it reads what Python's ``json`` reads, ``json`` elsewhere.

orjson reads the same JSON several times faster, but refuses some of what ``json`` takes
(``NaN``, ``Infinity``, numbers past a double's range) and reads integers past 64 bits as
floats. Those are read by ``json``: a text that orjson refuses, or whose digits could be
such an integer (a run of 20 digits, or 19 after a minus sign), which is rare in what the
referee reads (a seed has at most 19 digits). ``json`` also gives the message of a text
that is not JSON at all.

Values nested deeper than ``core.nesting.MAX_DEPTH`` levels (orjson's limit) are refused
by both alike, with :class:`JsonTooDeep`, a ``json.JSONDecodeError`` (so whatever handles
a text that is not JSON handles it too) naming the line and column where the text goes
too deep.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

from referee.core.nesting import MAX_DEPTH, TOO_DEEP, room_for_nesting

__all__ = ["JsonTooDeep", "json_value"]

_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_WIDE = b"0" * 20
_WIDE_NEGATIVE = b"-" + b"0" * 19
_NESTING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')
"""A string (skipped whole) or a bracket: what the depth of a JSON text is read from."""


class JsonTooDeep(json.JSONDecodeError):
    """A JSON text nested deeper than ``MAX_DEPTH`` levels; ``pos`` is the bracket that
    opens the level too many (``msg``: ``nested deeper than 1024 levels``)."""

    def __init__(self, doc: str, pos: int) -> None:
        """The error at ``pos`` of ``doc`` (line and column as ``json`` counts them)."""
        super().__init__(TOO_DEEP, doc, pos)

    def __reduce__(self) -> tuple[type[JsonTooDeep], tuple[str, int]]:
        """Pickled with what ``__init__`` takes (to cross a process pool)."""
        return type(self), (self.doc, self.pos)


def _too_deep_at(text: str) -> int | None:
    """Where ``text`` opens a level deeper than ``MAX_DEPTH``, or None if it does not."""
    depth = 0
    for token in _NESTING.finditer(text):
        char = token.group()
        if char in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return token.start()
        elif char in "]}":
            depth = max(0, depth - 1)
    return None


def _too_deep(text: str | bytes, fallback: int) -> JsonTooDeep:
    """The error of ``text``, nested too deep (at ``fallback`` if the scan finds no
    place: it reads strings as orjson and json do, so it finds one)."""
    doc = text if isinstance(text, str) else text.decode("utf-8", "replace")
    at = _too_deep_at(doc)
    return JsonTooDeep(doc, fallback if at is None else at)


def _may_hold_wide_integers(data: bytes) -> bool:
    """Whether ``data`` has a run of 20 digits, or 19 after a minus sign (a translation and
    two substring searches: a regular expression is four times slower than orjson)."""
    zeros = data.translate(_DIGITS_AS_ZERO)
    return _WIDE in zeros or _WIDE_NEGATIVE in zeros


def json_value(text: str | bytes) -> Any:
    """The JSON value of ``text``, as ``json.loads`` reads it; ``json.JSONDecodeError`` if
    it is not JSON (with the standard library's message), :class:`JsonTooDeep` (one) if it
    is nested deeper than ``MAX_DEPTH`` levels."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    if not _may_hold_wide_integers(data):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            if exc.msg.startswith("depth limit"):
                raise _too_deep(text, exc.pos) from None
    if data.count(b"[") + data.count(b"{") > MAX_DEPTH:  # it may be too deep: look
        doc = text if isinstance(text, str) else text.decode("utf-8", "replace")
        if (at := _too_deep_at(doc)) is not None:
            raise JsonTooDeep(doc, at)
    try:
        with room_for_nesting():
            return json.loads(text)
    except RecursionError:  # (the room is there: kept as a net)
        raise _too_deep(text, 0) from None
