"""Named Riichi rule sets and rules files: the rules a game is played, or a log was played,
under.

A rule set is a :class:`~referee.games.riichi.rules.RiichiRules`. It is named by a preset
(:data:`PRESETS`) or read from a rules file, and written into a game's own log as a plain
object (:func:`rules_to_dict`, read back by :func:`rules_from_dict`), so that the log says
exactly how it was played.

Presets:

- ``tenhou``: Tenhou's ranked rules (:meth:`RiichiRules.tenhou`), the default.
- ``mahjong_soul``: Mahjong Soul's ranked rooms (:meth:`RiichiRules.mahjong_soul`).
- ``mjai_app``: the rules of the mjai.app simulator (AI Jansou), which runs Mortal's arena:
  Tenhou's, except that three rons all win (no sanchahou, as Mortal's
  ``libriichi/src/arena/board.rs`` says) and four riichi do not abort the hand.

A rules file is TOML (``.toml``) or JSON (any other name) holding one table: an optional
``preset`` (the base, ``tenhou`` by default) and any :class:`RiichiRules` field by name
(``game_length = "east"``, ``abort_suucha_riichi = false``, ``uma = [15, 5, -5, -15]``,
``target_points = 30000``). An unknown key, a value of the wrong type or a value the
rules refuse is a :class:`RulesError` naming the file and the key.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import fields, replace
from pathlib import Path
from typing import Any, Final

from referee.core.errors import ConfigError
from referee.core.json_read import json_value
from referee.core.toml_read import toml_table
from referee.games.riichi.rules import RiichiRules

__all__ = ["PRESETS", "RulesError", "load_rules_file", "preset_rules", "resolve_rules",
           "rules_from_dict", "rules_to_dict"]


class RulesError(ConfigError, ValueError):
    """A rule set that cannot be used: an unknown preset, a bad rules file or entry (a
    ``ConfigError`` for a command line, a ``ValueError`` for code that reads logs)."""


def _mjai_app() -> RiichiRules:
    """The mjai.app simulator's rules: Tenhou's, all three rons win, no four-riichi abort."""
    return replace(RiichiRules.tenhou(), triple_ron_abort=False, abort_suucha_riichi=False)


PRESETS: Final[dict[str, Callable[[], RiichiRules]]] = {
    "tenhou": RiichiRules.tenhou,
    "mahjong_soul": RiichiRules.mahjong_soul,
    "mjai_app": _mjai_app,
}
"""The named rule sets, by name."""

_FIELDS: Final = {f.name: f for f in fields(RiichiRules)}


def _kind(value: object) -> str:
    """The kind of setting a default value shows: ``bool``, ``int``, ``int?`` (None: the
    optional settings are all integers), ``uma`` (a tuple) or ``str``."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if value is None:
        return "int?"
    return "uma" if isinstance(value, tuple) else "str"


_KINDS: Final[dict[str, str]] = {
    name: _kind(getattr(RiichiRules(), name)) for name in _FIELDS}
"""Per field of :class:`RiichiRules`, the kind of value it takes, from the defaults (not
from the annotations, which a compiled build holds as classes, not as text)."""


def preset_rules(name: str, game_length: str | None = None) -> RiichiRules:
    """The preset ``name``, with ``game_length`` (``east`` or ``south``) when given;
    :class:`RulesError` for an unknown name or length."""
    maker = PRESETS.get(name)
    if maker is None:
        raise RulesError(f"unknown rule set {name!r} (known: {', '.join(PRESETS)}, or a "
                         "rules file)")
    return _with_length(maker(), game_length, name)


def _with_length(rules: RiichiRules, game_length: str | None, source: str) -> RiichiRules:
    if game_length is None or game_length == rules.game_length:
        return rules
    if game_length not in ("east", "south"):
        raise RulesError(f"{source}: game length {game_length!r} is not east or south")
    return replace(rules, game_length=game_length)


def rules_to_dict(rules: RiichiRules) -> dict[str, Any]:
    """Every field of ``rules`` as plain JSON data (``uma`` a list)."""
    out: dict[str, Any] = {}
    for name in _FIELDS:
        value = getattr(rules, name)
        out[name] = list(value) if isinstance(value, tuple) else value
    return out


def _value(name: str, value: Any, where: str) -> Any:
    """``value`` checked for the field ``name`` (:class:`RulesError` names ``where``)."""
    kind = _KINDS[name]
    ok = {
        "bool": isinstance(value, bool),
        "int": isinstance(value, int) and not isinstance(value, bool),
        "int?": value is None or (isinstance(value, int) and not isinstance(value, bool)),
        "uma": isinstance(value, (list, tuple)) and len(value) == 4
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value),
        "str": isinstance(value, str),
    }[kind]
    if not ok:
        wanted = {"bool": "true or false", "int": "an integer", "int?": "an integer",
                  "uma": "four integers", "str": "a string"}[kind]
        raise RulesError(f"{where}: {name} must be {wanted}, not {value!r}")
    return tuple(value) if kind == "uma" else value


def rules_from_dict(obj: Any, source: str = "rules") -> RiichiRules:
    """The rules an object describes: an optional ``preset`` (the base, default
    ``tenhou``) and fields of :class:`RiichiRules` by name. :class:`RulesError` names
    ``source`` and the bad key."""
    if not isinstance(obj, Mapping):
        raise RulesError(f"{source}: the rules are not a table of settings: {obj!r}")
    base_name = obj.get("preset", "tenhou")
    if not isinstance(base_name, str) or base_name not in PRESETS:
        raise RulesError(f"{source}: preset {base_name!r} is not one of "
                         f"{', '.join(PRESETS)}")
    changes: dict[str, Any] = {}
    for key, value in obj.items():
        if key == "preset":
            continue
        if key not in _FIELDS:
            raise RulesError(f"{source}: unknown setting {key!r} (known: "
                             f"{', '.join(_FIELDS)})")
        changes[key] = _value(key, value, source)
    try:
        return replace(PRESETS[base_name](), **changes)
    except ValueError as exc:
        raise RulesError(f"{source}: {exc}") from None


def load_rules_file(path: str | Path) -> RiichiRules:
    """The rules of a rules file (TOML for ``.toml``, else JSON); :class:`RulesError` for
    a file that cannot be read or holds bad settings."""
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RulesError(f"{name}: cannot read the rules file: {exc}") from None
    try:
        obj = toml_table(text) if name.lower().endswith(".toml") else json_value(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise RulesError(f"{name}: not a valid rules file: {exc}") from None
    return rules_from_dict(obj, name)


def resolve_rules(spec: str, game_length: str | None = None) -> RiichiRules:
    """The rules named by ``spec``: a preset name, else a rules file's path; with
    ``game_length`` (``east`` or ``south``) replacing the length when given."""
    if spec in PRESETS:
        return preset_rules(spec, game_length)
    if not Path(spec).is_file():
        raise RulesError(f"{spec!r} is neither a rule set ({', '.join(PRESETS)}) nor a "
                         "rules file")
    return _with_length(load_rules_file(spec), game_length, spec)
