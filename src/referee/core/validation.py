"""Validation errors (pydantic) written for people: one line per mistake, with its key."""

from __future__ import annotations

from pydantic import ValidationError


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
