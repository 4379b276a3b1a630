"""Settings, times and points as a person reads them: seconds rather than milliseconds,
megabytes rather than bytes, words rather than internal keys, never raw JSON.

``readable_settings(settings, adapter)`` -> ``[Setting(label, text, items)]``:
``items`` is for values shown as a list, ``text`` for the others. What is one game's (its
labels, its values in words, Gomoku's openings as moves on small boards, Mahjong's hands
as sentences) the game's adapter writes (``setting_labels``, ``shown_setting``); this
module writes the rest the same way for every game (units from the keys' suffixes; a web
game's ``table_clocks``, each seat's clock, a line per seat).
Everything here is plain text; the templates escape it.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Mapping
from typing import Any

from referee.core.replay import Setting

HIDDEN = frozenset({"game_key"})
"""Record settings that are the tournament's bookkeeping (the game's key: shown elsewhere);
each game names its own (``setting_labels`` of ``""``)."""

LABELS = {"tolerance_ms": "Time tolerance", "max_memory": "Memory limit",
          "table_clocks": "Clocks by seat"}
"""Labels of the settings several games share (the others: the game's, or the key in
words)."""
CLOCK_LABELS = {"turn_ms": "Time per move", "game_ms": "Time per game",
                "tolerance_ms": "Time tolerance"}
"""The labels of a seat's clock in a web game's ``table_clocks`` (the web server writes
each seat's limits there, in milliseconds, ``None`` for none)."""
SHOWN_ITEMS = 12
"""List values longer than this are shown folded (``<details>``) by the templates."""


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


def label_of(key: str, labels: Mapping[str, str] | None = None) -> str:
    """A setting's label: the game's (``labels``), else a known name, else its key in words
    (``max_turns`` -> Max turns)."""
    if labels is not None and key in labels:
        return labels[key]
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
    if isinstance(value, int | float) and not isinstance(value, bool):
        if key.endswith("_ms"):
            return seconds(value)
        if key.endswith("_time") or key == "move_time":
            return f"{value:g} s"
        if key.endswith("_bytes") or key in ("max_memory", "memory_limit"):
            return megabytes(value)
    return scalar(value)


def _labels(adapter: object) -> Mapping[str, str]:
    """The game's labels of its settings (``setting_labels``; none for an unknown game)."""
    labels = getattr(adapter, "setting_labels", None)
    return labels if isinstance(labels, Mapping) else {}


def visible_settings(settings: Mapping[str, Any], adapter: object = None) -> dict[str, Any]:
    """The settings a page shows, in their order: all but the bookkeeping (``HIDDEN``, and
    those the game labels ``""``)."""
    labels = _labels(adapter)
    return {key: value for key, value in settings.items()
            if key not in HIDDEN and labels.get(key) != ""}


def readable_settings(settings: Mapping[str, Any], adapter: object = None) -> list[Setting]:
    """The settings worth showing, in words, in the order given (bookkeeping keys left
    out). A game adapter with a ``shown_setting(key, value, settings)`` method writes the
    settings it knows better (a ``Setting``, whose empty label means the usual one; one
    with neither text nor items is left out; ``None`` for the others); it is given the
    shown settings only, so the result depends on nothing else (``visible_settings``:
    what a page may keep it by)."""
    own = getattr(adapter, "shown_setting", None)
    labels = _labels(adapter)
    visible = visible_settings(settings, adapter)
    shown = []
    for key, value in visible.items():
        label = label_of(key, labels)
        made = own(key, value, visible) if callable(own) else None
        if isinstance(made, Setting):
            if made.text or made.items:
                shown.append(Setting(made.label or label, made.text, list(made.items)))
        elif key == "table_clocks" and isinstance(value, list) and value:
            shown.append(Setting(label, items=[clock_text(seat, clock)
                                               for seat, clock in enumerate(value)]))
        elif isinstance(value, Mapping) and value:  # a table of its own (Riichi's rules)
            shown.append(Setting(label, items=[f"{label_of(str(k))}: {value_text(str(k), v)}"
                                               for k, v in value.items()]))
        elif isinstance(value, list) and value and all(
                isinstance(v, list | tuple | Mapping) for v in value):
            shown.append(Setting(f"{label} ({len(value)})", items=[scalar(v) for v in value]))
        else:
            shown.append(Setting(label, value_text(key, value)))
    return shown


def clock_text(seat: int, clock: Any) -> str:
    """One seat's clock of a web game (``table_clocks``) in words: ``Seat 1: time per
    move 60 s, time per game none, time tolerance 1 s``."""
    if not isinstance(clock, Mapping):
        return f"Seat {seat + 1}: {scalar(clock)}"
    parts = [f"{CLOCK_LABELS.get(str(key), label_of(str(key))).lower()} "
             f"{value_text(str(key), value)}" for key, value in clock.items()]
    return f"Seat {seat + 1}: {', '.join(parts) or 'none'}"


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


__all__ = ["SHOWN_ITEMS", "Setting", "about_text", "clock_text", "duration", "label_of",
           "megabytes", "ms", "percent", "points", "readable_settings", "scalar", "seconds",
           "short_name", "value_text", "visible_settings", "when"]
