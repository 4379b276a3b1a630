"""Settings, times and points as a person reads them: seconds rather than milliseconds,
megabytes rather than bytes, words rather than internal keys, Gomoku openings as moves
(``h8 i9``, as the game pages name points), never raw JSON.

``readable_settings(game, settings)`` -> ``[Setting(label, text, items)]``: ``items`` is
for values shown as a list (openings, deals), ``text`` for the others. Everything here is
plain text; the templates escape it.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.core.replay import Picture

HIDDEN = frozenset({"game_key", "colors", "black", "win_line", "swap2_first", "mjai_log"})
"""Record settings that are the referee's bookkeeping (shown elsewhere or not at all)."""

LABELS = {
    "width": "Board width", "height": "Board height", "rule": "Rule",
    "timeout_turn_ms": "Time per move", "timeout_match_ms": "Time per game",
    "tolerance_ms": "Time tolerance", "max_memory": "Memory limit", "swap2": "Swap2 opening",
    "openings": "Openings", "time_ms": "Time per game", "quit_at_end": "Quit at the end",
    "decision_time": "Time per decision", "startup_time": "Start-up time",
    "max_failures": "Faults allowed", "room": "Room", "game": "Game length",
    "game_length": "Game length", "move_time": "Time per move", "per_tai": "Points per tai",
    "base": "Base points",
    "hands": "Hands", "reserve": "Tiles kept in reserve", "deals": "Deals",
}
GAME_LENGTH = {"east": "east round only (tonpuusen)", "south": "east and south rounds (hanchan)"}
WORDS: dict[str, dict[str, str]] = {
    "rule": {"freestyle": "freestyle (five or more in a row)",
             "standard": "standard (exactly five)", "renju": "renju",
             "caro": "caro (five not blocked at both ends)"},
    "game": GAME_LENGTH, "game_length": GAME_LENGTH,
}
"""Values of a setting in words, by the setting's key."""
SHOWN_ITEMS = 12
"""List values longer than this are shown folded (``<details>``) by the templates."""


@dataclass(frozen=True)
class Setting:
    """One setting as shown: its label and its value as text, or as a list of items."""

    label: str
    text: str = ""
    items: list[str | Picture] = field(default_factory=list)
    """Text, or small drawings a game made (``Picture``: Gomoku's openings)."""


def seconds(ms: float) -> str:
    """Milliseconds as a duration: ``2 s``, ``0.5 s``, ``1 min 30 s``."""
    value = ms / 1000
    if value >= 120:
        minutes, rest = divmod(round(value), 60)
        return f"{minutes} min {rest} s" if rest else f"{minutes} min"
    return f"{value:g} s" if value >= 0.001 else f"{ms:g} ms"


def megabytes(count: float) -> str:
    """A number of bytes in MB (binary, as the limits are set), or GB past 10 GB."""
    mb = count / 2**20
    if mb >= 10240:
        return f"{mb / 1024:g} GB"
    return f"{mb:.0f} MB" if mb >= 10 else f"{mb:.3g} MB"


def label_of(key: str) -> str:
    """A setting's label: the known name, else its key in words (``max_turns`` -> Max turns)."""
    if key in LABELS:
        return LABELS[key]
    words = key.removesuffix("_ms").removesuffix("_bytes").replace("_", " ").replace("-", " ")
    return words[:1].upper() + words[1:]


def scalar(value: Any) -> str:
    """A value that is not a list, in words."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, Mapping):
        return ", ".join(f"{label_of(str(k)).lower()} {scalar(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(scalar(v) for v in value)
    return str(value).replace("_", " ")


def value_text(key: str, value: Any) -> str:
    """One setting's value in words and units (``None`` limits read as ``none``)."""
    if value is None:
        return "none"
    if isinstance(value, str) and value in WORDS.get(key, {}):
        return WORDS[key][value]
    if isinstance(value, int | float) and not isinstance(value, bool):
        if key.endswith("_ms"):
            return seconds(value)
        if key.endswith("_time") or key == "move_time":
            return f"{value:g} s"
        if key.endswith("_bytes") or key in ("max_memory", "memory_limit"):
            return megabytes(value)
    return scalar(value)


def visible_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The settings a page shows, in their order: all but the bookkeeping (``HIDDEN``)."""
    return {key: value for key, value in settings.items() if key not in HIDDEN}


def readable_settings(game: str, settings: Mapping[str, Any],
                      adapter: object = None) -> list[Setting]:
    """The settings worth showing, in words, in the order given (bookkeeping keys left
    out). A game adapter with a ``setting_items(key, value, settings)`` method writes the
    settings it knows better (Gomoku's openings on small boards, captioned ``h8 i7``;
    ``None`` for the others); it is given the shown settings only, so the result depends
    on nothing else (``visible_settings``: what a page may keep it by)."""
    own = getattr(adapter, "setting_items", None)
    visible = visible_settings(settings)
    shown = []
    for key, value in visible.items():
        label = label_of(key)
        items = own(key, value, visible) if callable(own) else None
        if items is not None:
            shown.append(Setting(f"{label} ({len(value)})" if isinstance(value, list)
                                 else label, items=list(items) or ["none"]))
        elif isinstance(value, Mapping) and value:  # a table of its own (Riichi's rules)
            shown.append(Setting(label, items=[f"{label_of(str(k))}: {value_text(str(k), v)}"
                                               for k, v in value.items()]))
        elif isinstance(value, list) and value and all(
                isinstance(v, list | tuple | Mapping) for v in value):
            shown.append(Setting(f"{label} ({len(value)})", items=[scalar(v) for v in value]))
        else:
            shown.append(Setting(label, value_text(key, value)))
    return shown


def points(value: float) -> str:
    """Points with a half as ``½`` (``2½``)."""
    whole = math.floor(value)
    if value - whole == 0.5:
        return f"{whole}\u00bd" if whole else "\u00bd"
    return f"{value:g}"


def percent(value: float) -> str:
    """A percentage with one decimal."""
    return f"{value:.1f}%"


def ms(value: float) -> str:
    """A move's time: ``3.2 ms``, ``45 ms``, ``1.25 s``."""
    if value < 10:
        return f"{value:.1f} ms"
    return f"{value:.0f} ms" if value < 1000 else f"{value / 1000:.2f} s"


def short_name(name: str, limit: int = 10) -> str:
    """A name cut to ``limit`` characters (with an ellipsis) for narrow column headers."""
    return name if len(name) <= limit else name[: limit - 1] + "\u2026"


def duration(started: str, finished: str) -> float | None:
    """Seconds between two ISO times of a record, ``None`` if either is missing."""
    try:
        delta = dt.datetime.fromisoformat(finished) - dt.datetime.fromisoformat(started)
    except (TypeError, ValueError):
        return None
    return delta.total_seconds()


def when(iso: str) -> str:
    """An ISO time of a record as ``2026-11-26 14:52:16 UTC`` (as it is if it is not one)."""
    try:
        moment = dt.datetime.fromisoformat(iso)
    except (TypeError, ValueError):
        return iso
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S") + (" UTC" if moment.tzinfo else "")


def about_text(about: Mapping[str, Any]) -> str:
    """A bot's self-description (``name pbrain-threat, version 1.0``)."""
    return ", ".join(f"{k} {v}" for k, v in sorted(about.items()))


__all__ = ["SHOWN_ITEMS", "Setting", "about_text", "duration", "label_of", "megabytes", "ms",
           "percent", "points", "readable_settings", "scalar", "seconds",
           "short_name", "value_text", "visible_settings", "when"]
