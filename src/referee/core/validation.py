"""Validation errors (pydantic) written for people: one line per mistake, with its key."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from referee.core.errors import ConfigError

Model = TypeVar("Model", bound=BaseModel)


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
        message = item["msg"].removeprefix("Value error, ")
        lines.append(f"{source}: {key}: {message}")
    return "\n".join(lines)


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
