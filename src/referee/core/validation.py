"""Validation errors written for people: one line per mistake, with its key, in the same
words for a command-line option (``cli.options``) and a key of a file (pydantic):
"must be at least 1, got 0", "must be a finite number, got 'nan'"."""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, ValidationError

from referee.core.errors import ConfigError
from referee.core.text import DURATION_UNITS, got, parse_duration, parse_size, range_text

Model = TypeVar("Model", bound=BaseModel)


def _duration_in(unit: str) -> Callable[[object], object]:
    """A settings value as a number of ``unit`` (``ms`` or ``s``): a bare number (or one
    in a string) as it is, as the files have always taken it; a string with its unit as
    the command line takes it (``5s``, ``500ms``, ``1.5s``, ``2m``)."""

    def convert(value: object) -> object:
        if not isinstance(value, str):
            return value
        number, written = parse_duration(value)
        if not math.isfinite(number):
            raise ValueError(f"must be a finite duration{got(value)}")
        if written is None:
            return number
        seconds = number * DURATION_UNITS[written]
        return seconds if unit == "s" else round(seconds * 1000)

    return convert


def _megabytes(value: object) -> object:
    """A memory size in megabytes: a bare number as it is; a size with its unit as the
    command line takes it (``400M``, ``1G``), in whole megabytes."""
    if not isinstance(value, str):
        return value
    try:
        size = parse_size(value, 1 << 20)
    except ValueError as exc:
        raise ValueError(f"must be a size such as 400M or 1G{got(value)}") from exc
    if size % (1 << 20):
        raise ValueError(f"must be whole megabytes (400M, 1G){got(value)}")
    return size >> 20


Milliseconds = Annotated[int, BeforeValidator(_duration_in("ms"))]
"""A duration in a settings table read as milliseconds: ``5000`` or ``"5s"``."""
Seconds = Annotated[float, BeforeValidator(_duration_in("s"))]
"""A duration in a settings table read as seconds: ``5.0`` or ``"5s"``, ``"500ms"``."""
Megabytes = Annotated[int, BeforeValidator(_megabytes)]
"""A memory size in a settings table read as megabytes: ``400`` or ``"400M"``, ``"1G"``."""


def format_errors(source: str, error: ValidationError, prefix: str = "") -> str:
    """One line per mistake: ``source: key.path: reason`` (list items as ``key[3]``)."""
    lines = []
    for item in error.errors():
        parts: list[str] = []
        for loc in item["loc"]:
            if isinstance(loc, int):
                parts[-1:] = [f"{parts[-1]}[{loc}]" if parts else f"[{loc}]"]
            else:
                parts.append(str(loc))
        key = prefix + ".".join(parts) if parts else prefix.rstrip(".") or "(file)"
        lines.append(f"{source}: {key}: {plain_message(item)}")
    return "\n".join(lines)


_PLAIN = {
    "int_parsing": "must be a whole number",
    "int_from_float": "must be a whole number",
    "int_type": "must be a whole number",
    "int_parsing_size": "is too large",
    "float_parsing": "must be a number",
    "float_type": "must be a number",
    "finite_number": "must be a finite number",
    "bool_parsing": "must be true or false",
    "bool_type": "must be true or false",
    "string_type": "must be text (in quotes)",
    "list_type": "must be a list ([...])",
    "dict_type": "must be a table",
    "model_type": "must be a table",
    "model_attributes_type": "must be a table",
}
"""Messages for pydantic's error types that need no context."""


def _pattern_text(pattern: str) -> str:
    """What a name pattern such as ``^[\\w.#+-]+$`` allows, in words."""
    match = re.fullmatch(r"\^\[\\w(.*)\]\+\$", pattern)
    if match is None:
        return f"must match the pattern {pattern}"
    extra = " ".join(match[1].replace("\\", ""))
    return f"may hold only letters, digits and _ {extra}".rstrip()


def plain_message(item: Mapping[str, Any]) -> str:
    """One pydantic error in the words the command line uses (no pydantic jargon)."""
    kind = item["type"]
    ctx = item.get("ctx") or {}
    value = item.get("input")
    if kind == "missing":
        return "missing (this key is required)"
    if kind == "extra_forbidden":
        return "unknown key (check its spelling)"
    if kind == "value_error":
        return str(item["msg"]).removeprefix("Value error, ")
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        message = "must be " + range_text(**{k: ctx[k] for k in ("ge", "gt", "le", "lt")
                                             if k in ctx})
    elif kind == "literal_error":
        message = f"must be one of {ctx.get('expected', 'the names allowed')}"
    elif kind == "string_too_short":
        message = ("must not be empty" if ctx.get("min_length") == 1
                   else f"must have at least {ctx.get('min_length')} characters")
    elif kind == "string_too_long":
        message = f"must have at most {ctx.get('max_length')} characters"
    elif kind == "string_pattern_mismatch":
        message = _pattern_text(str(ctx.get("pattern", "")))
    elif kind == "too_short":
        message = f"must have at least {ctx.get('min_length')} entries"
    elif kind == "too_long":
        message = f"must have at most {ctx.get('max_length')} entries"
    elif kind in _PLAIN:
        message = _PLAIN[kind]
    else:
        message = str(item["msg"])
    if isinstance(value, str | int | float | bool):
        message += got(value)
    return message


def validate_table(model: type[Model], table: Mapping[str, Any], source: str,
                   prefix: str = "") -> Model:
    """``table`` checked by ``model``; ``ConfigError`` lists every mistake (see above)."""
    try:
        return model.model_validate(dict(table))
    except ValidationError as exc:
        raise ConfigError(format_errors(source, exc, prefix)) from None


@contextlib.contextmanager
def errors_in(source: str, section: str) -> Iterator[None]:
    """Name ``source`` and ``section`` in a ``ConfigError`` raised inside the block."""
    try:
        yield
    except ConfigError as exc:
        raise ConfigError(f"{source}: {section}: {exc}") from None
