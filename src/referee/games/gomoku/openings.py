"""Opening files as Gomocup uses them: one opening per line, stones as offsets from the centre.

A line holds comma- or space-separated integers taken in pairs ``dx,dy``; the stones are
placed alternately black, white, black... at ``centre + (dx, dy)``. Empty lines and lines
starting with ``#`` are skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

from referee.core.errors import ConfigError

Offsets = list[tuple[int, int]]
_SEPARATORS = re.compile(r"[,\s]+")


def parse_openings(text: str, source: str = "openings") -> list[Offsets]:
    """Parse the text of an openings file; errors name ``source`` and the line."""
    openings: list[Offsets] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p for p in _SEPARATORS.split(line) if p]
        try:
            values = [int(p) for p in parts]
        except ValueError:
            bad = next(p for p in parts if not re.fullmatch(r"[+-]?\d+", p))
            raise ConfigError(f"{source}:{number}: {bad!r} is not a whole number") from None
        if len(values) % 2:
            raise ConfigError(f"{source}:{number}: odd count of numbers ({len(values)}); "
                              "expected x,y pairs")
        stones = list(zip(values[0::2], values[1::2], strict=True))
        if len(set(stones)) != len(stones):
            raise ConfigError(f"{source}:{number}: the same point appears twice")
        openings.append(stones)
    if not openings:
        raise ConfigError(f"{source}: no openings found")
    return openings


def read_openings(path: Path | str) -> list[Offsets]:
    """Read an openings file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read openings: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not a text file: {exc}") from exc
    return parse_openings(text, str(path))


def coverage(count: int, games: int) -> str:
    """Which of ``count`` openings a match of ``games`` games plays (each opening twice,
    colours swapped, in file order), as Piskvork tells it: a sentence for the console."""
    used = min(count, (games + 1) // 2)
    text = f"openings 1-{used} of {count}" if used > 1 else f"opening 1 of {count}"
    if used < count:
        return f"{text} (the file has more: --games {2 * count} plays them all)"
    if games > 2 * count:
        return f"{text}, from game {2 * count + 1} again from the first"
    return text


def place_opening(
    offsets: Offsets, width: int, height: int, source: str = "opening"
) -> list[tuple[int, int]]:
    """Turn centre offsets into board points; ``ConfigError`` if a stone falls off the board."""
    cx, cy = width // 2, height // 2
    points = []
    for dx, dy in offsets:
        x, y = cx + dx, cy + dy
        if not (0 <= x < width and 0 <= y < height):
            raise ConfigError(f"{source}: stone {dx},{dy} falls off the {width}x{height} board")
        points.append((x, y))
    return points
