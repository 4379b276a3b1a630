"""Log files of any format read as mjai events: :func:`load_log` tells the format by the
file's content (:func:`detect_format`, plain or gzip) and reads it with what its format
records beside the events (:class:`LoadedLog`: the room's rules, the final results, the
Tenhou room and dan); :func:`chosen_rules` gives the rules to replay it with
(:mod:`referee.games.riichi.replay` replays it).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from referee.core.json_read import json_value
from referee.games.riichi.logrules import recorded_rules
from referee.games.riichi.mjai import EndGame, Event, open_log, read_mjai
from referee.games.riichi.mjlog import RoomRules, iter_mjlog
from referee.games.riichi.rules import RiichiRules
from referee.games.riichi.tenhou_json import read_tenhou_json

__all__ = ["FORMATS", "LoadedLog", "chosen_rules", "detect_format", "is_tenhou_json",
           "load_log"]

FORMATS: Final = ("mjai", "mjlog", "tenhou-json")
"""The log formats :func:`load_log` reads."""


@dataclass(frozen=True)
class LoadedLog:
    """A log file read as mjai events, with what its format records beside them: the rules
    of its room (mjlog ``GO``, Tenhou JSON ``rule``, our mjai logs' ``start_game``), the
    final results (uma and oka included) when the game ended, the Tenhou room (``ippan``,
    ``joukyuu``, ``tokujou``, ``houou``) and the players' Tenhou dan (0 new .. 20 tenhoui;
    mjlog ``UN``) when told."""

    path: str
    format: str
    events: list[Event]
    rules: RiichiRules | None = None
    final_results: tuple[float, ...] | None = None
    room: str | None = None
    dans: tuple[int | None, ...] | None = None


def detect_format(path: str | Path) -> str:
    """``mjlog`` (XML), ``tenhou-json`` (one JSON object with a ``log``) or ``mjai`` (JSON
    lines), from the file's content (plain or gzip); an ``.mjlog`` name is mjlog."""
    if str(path).endswith((".mjlog", ".mjlog.gz")):
        return "mjlog"
    text = _log_head(path)
    if text is None:
        return "mjai"  # let the reader name the problem
    if text.startswith(b"<"):
        return "mjlog"
    obj = _first_json(text)
    if isinstance(obj, dict):
        return "mjai" if "type" in obj else "tenhou-json"
    if _bare_kyoku(obj):
        return "tenhou-json"  # a bare kyoku, one a line
    return "tenhou-json" if text.startswith(b"{") and b'"log"' in text else "mjai"


def is_tenhou_json(path: str | Path) -> bool:
    """Whether ``path`` (plain or gzip) is surely a Tenhou JSON log: one object with a
    ``log``, or hands one a line (stricter than :func:`detect_format`, for a folder's
    JSON files, most of which are something else)."""
    text = _log_head(path)
    if text is None:
        return False
    if text.startswith(b"{"):
        return b'"log"' in text
    return _bare_kyoku(_first_json(text))


def _log_head(path: str | Path) -> bytes | None:
    """The first 64 KB of a log (gunzipped), without a BOM or leading blanks; ``None`` if
    it cannot be read."""
    try:
        with open_log(path) as stream:
            head = stream.read(1 << 16)
    except (EOFError, zlib.error, OSError):
        return None
    return head.lstrip(b"\xef\xbb\xbf \t\r\n")


def _first_json(text: bytes) -> Any:
    """The JSON value of the first line (``None`` if it is not JSON)."""
    try:
        return json_value(text.split(b"\n", 1)[0])
    except ValueError:
        return None


def _bare_kyoku(obj: Any) -> bool:
    """Whether a line's JSON is one hand of Tenhou JSON (a list led by its 3 numbers)."""
    return isinstance(obj, list) and bool(obj) and isinstance(obj[0], list) \
        and len(obj[0]) == 3


def _room_rules(room: RoomRules) -> RiichiRules:
    return RiichiRules(red_fives=room.red_fives, open_tanyao=room.kuitan,
                       game_length="south" if room.hanchan else "east")


def load_log(path: str | Path) -> LoadedLog:
    """Read a log of any format in :data:`FORMATS` as mjai events. An mjlog's ``end_game``
    gets the final points as ``scores``. Reading errors are ``MjaiError``s naming the file."""
    fmt = detect_format(path)
    name = str(path)
    if fmt == "mjlog":
        events: list[Event] = []
        rules: RiichiRules | None = None
        final: tuple[float, ...] | None = None
        room: str | None = None
        dans: tuple[int | None, ...] | None = None
        for record in iter_mjlog(path):
            event = record.event
            header = record.header
            if header is not None:
                rules = _room_rules(header.rules)
                room = header.rules.room
                if header.players is not None:
                    dans = tuple(p.dan for p in header.players)
            if record.owari is not None:
                event = EndGame(extra={"scores": list(record.owari.scores)})
                final = record.owari.results
            events.append(event)
        return LoadedLog(name, fmt, events, rules, final, room, dans)
    if fmt == "tenhou-json":
        tenhou = read_tenhou_json(path)
        return LoadedLog(name, fmt, tenhou.events(), tenhou.rule.riichi_rules(),
                         tenhou.final_results, tenhou.rule.room)
    events = list(read_mjai(path))
    first = events[0] if events and events[0].type == "start_game" else None
    recorded = recorded_rules(first.extra, name) if first is not None else None
    return LoadedLog(name, fmt, events, recorded)


def chosen_rules(loaded: LoadedLog, rules: RiichiRules | None = None,
                 game_length: str | None = None) -> RiichiRules | None:
    """The rules to replay a loaded log with: ``rules`` when given, else those the log
    records (None: guessed by the replay); ``game_length`` replaces the length."""
    chosen = rules or loaded.rules
    if game_length is None or (chosen is not None and chosen.game_length == game_length):
        return chosen
    return replace(chosen or RiichiRules(), game_length=game_length)
