"""The mjai event model: one JSON object a line, as Mortal, mjai.app and the original mjai use.

Representation: one frozen dataclass per event type, all subclasses of :class:`Event`, with the
mjai ``type`` string as the class attribute ``type`` and the mjai fields as typed attributes
(keyword-only; lists become tuples; tiles stay mjai names such as ``"5mr"``). Fields an mjai
dialect may leave out are ``None`` when absent and are then left out again on output, so a line
round-trips exactly for the fields mjai defines. Fields no dialect defines (Mortal's ``meta``,
say) are kept in ``extra`` and written back after the known ones, unless parsing is ``strict``,
where they are an error.

Field sets (required first; ``?`` = optional):

- ``none``; ``end_kyoku``; ``end_game``; ``error`` (message?)
- ``start_game``: names? (4), id? (seat), seed? (Mortal's pair), uri?, kyoku_first?, aka_flag?
- ``start_kyoku``: bakaze, dora_marker, kyoku (1-4), honba, kyotaku, oya, scores? (4; the
  original mjai server leaves them out), tehais (4 x 13, ``?`` allowed)
- ``tsumo``: actor, pai (``?`` allowed); ``dahai``: actor, pai, tsumogiri
- ``chi`` / ``pon``: actor, target, pai, consumed (2); ``daiminkan``: consumed (3)
- ``kakan``: actor, pai, consumed (3); ``ankan``: actor, consumed (4), pai? (some writers
  name one of the four); ``dora``: dora_marker
- ``reach``: actor; ``reach_accepted``: actor, deltas?, scores?
- ``hora``: actor, target, pai?, deltas?, ura_markers? (Mortal), uradora_markers? (original),
  hora_tehais?, yakus? ([name, han] pairs), fu?, fan?, hora_points?, scores?
- ``ryukyoku``: reason?, deltas?, scores?, tehais? (4 lists), tenpais? (4); the reasons of
  other writers are read as the original mjai's (:func:`ryukyoku_reason`)

Every problem is an :class:`MjaiError` (a ``ValueError``) naming the source, the line and what
is wrong. Log files are JSON lines, plain or gzip (recognised by content, not by name), read and
written as streams.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, BinaryIO, ClassVar, Final, cast

import orjson

from referee.core.compressed import GZIP_MAGIC, open_text
from referee.core.json_read import json_value
from referee.games.riichi.tiles import UNKNOWN, parse_mjai

__all__ = [
    "EVENT_TYPES", "RYUKYOKU_REASONS", "Ankan", "Chi", "Dahai", "Daiminkan", "Dora",
    "EndGame", "EndKyoku", "Error", "Event", "Hora", "Kakan", "MjaiError", "NoneEvent", "Pon",
    "Reach", "ReachAccepted", "Ryukyoku", "StartGame", "StartKyoku", "Tsumo",
    "canonical_lines", "dump_lines", "event_from_dict", "iter_events", "open_log",
    "parse_event", "read_mjai", "ryukyoku_reason", "write_mjai", "write_mjai_objects",
]

WINDS = ("E", "S", "W", "N")


class MjaiError(ValueError):
    """A malformed mjai line or log: names the source, the place and the problem."""

    def __init__(self, problem: str, *, source: str | None = None, line: int | None = None,
                 where: str | None = None) -> None:
        self.problem = problem
        self.source = source
        self.line = line
        self.where = where if where is not None else (f"line {line}" if line is not None else None)
        place = ", ".join(p for p in (source, self.where) if p)
        super().__init__(f"{place}: {problem}" if place else problem)


# --- field kinds ---------------------------------------------------------------------------

_Check = Callable[[Any], Any]


class _Bad(Exception):
    """A field value that does not fit its kind (internal; becomes an MjaiError)."""


def _int(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _Bad(f"expected an integer, got {v!r}")
    return v


def _int_range(low: int, high: int | None, expected: str) -> Callable[[Any], int]:
    """The check of an integer from ``low`` to ``high`` (None: no bound), ``expected`` in
    its errors."""
    def check(v: Any) -> int:
        n = _int(v)
        if n < low or (high is not None and n > high):
            raise _Bad(f"expected {expected}, got {n}")
        return n
    return check


_nonneg = _int_range(0, None, "a non-negative integer")
_seat = _int_range(0, 3, "a seat 0-3")
_kyoku = _int_range(1, 4, "a kyoku 1-4")


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise _Bad(f"expected true or false, got {v!r}")
    return v


def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise _Bad(f"expected a string, got {v!r}")
    return v


def _tile(v: Any) -> str:
    if not isinstance(v, str):
        raise _Bad(f"expected a tile name, got {v!r}")
    try:
        parse_mjai(v)
    except ValueError:
        raise _Bad(f"{v!r} is not an mjai tile name") from None
    return v


def _tile_or_unknown(v: Any) -> str:
    return UNKNOWN if v == UNKNOWN else _tile(v)


def _wind(v: Any) -> str:
    if v not in WINDS:
        raise _Bad(f"expected a wind E, S, W or N, got {v!r}")
    return str(v)


def _list(item: _Check, length: int | None = None) -> Callable[[Any], tuple[Any, ...]]:
    def check(v: Any) -> tuple[Any, ...]:
        if not isinstance(v, list):
            raise _Bad(f"expected a list, got {v!r}")
        if length is not None and len(v) != length:
            raise _Bad(f"expected {length} items, got {len(v)}")
        out = []
        for i, x in enumerate(v):
            try:
                out.append(item(x))
            except _Bad as exc:
                raise _Bad(f"item {i}: {exc}") from None
        return tuple(out)
    return check


def _yaku(v: Any) -> tuple[str, int]:
    if not (isinstance(v, list) and len(v) == 2):
        raise _Bad(f"expected a [name, han] pair, got {v!r}")
    return _str(v[0]), _int(v[1])


_QUAD = _list(_int, 4)
_HAND13 = _list(_tile_or_unknown, 13)
_TILES = _list(_tile)


def _f(check: _Check, *, optional: bool = False) -> Any:
    """A dataclass field carrying its validator; optional ones default to ``None``."""
    meta = {"check": check}
    if optional:
        return field(default=None, metadata=meta)
    return field(metadata=meta)


def _nested(v: Any) -> Any:
    return [_nested(x) for x in v] if isinstance(v, tuple) else v


# --- events --------------------------------------------------------------------------------

_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
"""Per event class, the names of its fields but ``extra`` (``to_dict``'s hot path)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of all mjai events; ``type`` is the mjai type string of the subclass."""

    type: ClassVar[str] = ""
    extra: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=True, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of the event: ``type`` first, then the fields present, then extras."""
        out: dict[str, Any] = {"type": self.type}
        names = _FIELD_NAMES.get(type(self))
        if names is None:
            names = _FIELD_NAMES[type(self)] = tuple(
                f.name for f in fields(self) if f.name != "extra")
        for name in names:
            value = getattr(self, name)
            if value is not None:
                out[name] = _nested(value) if type(value) is tuple else value
        if self.extra:
            for key, value in self.extra.items():
                out.setdefault(key, value)
        return out

    def to_json(self) -> str:
        """One compact JSON line (no newline), UTF-8 names kept as they are."""
        return json.dumps(self.to_dict(), separators=(",", ":"), ensure_ascii=False)

    @property
    def actor_seat(self) -> int | None:
        """The acting seat, for the events that have one."""
        actor = getattr(self, "actor", None)
        return actor if isinstance(actor, int) else None


@dataclass(frozen=True, slots=True, kw_only=True)
class NoneEvent(Event):
    """``none``: a bot passing (no action)."""

    type: ClassVar[str] = "none"


@dataclass(frozen=True, slots=True, kw_only=True)
class StartGame(Event):
    """``start_game``: player names, the receiving seat (``id``) in the live protocol."""

    type: ClassVar[str] = "start_game"
    names: tuple[str, ...] | None = _f(_list(_str, 4), optional=True)
    id: int | None = _f(_seat, optional=True)
    seed: tuple[int, ...] | None = _f(_list(_int, 2), optional=True)
    uri: str | None = _f(_str, optional=True)
    kyoku_first: int | None = _f(_nonneg, optional=True)
    aka_flag: bool | None = _f(_bool, optional=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class StartKyoku(Event):
    """``start_kyoku``: round wind, kyoku 1-4, sticks, dealer, scores and the dealt hands."""

    type: ClassVar[str] = "start_kyoku"
    bakaze: str = _f(_wind)
    dora_marker: str = _f(_tile)
    kyoku: int = _f(_kyoku)
    honba: int = _f(_nonneg)
    kyotaku: int = _f(_nonneg)
    oya: int = _f(_seat)
    scores: tuple[int, ...] | None = _f(_QUAD, optional=True)
    tehais: tuple[tuple[str, ...], ...] = _f(_list(_HAND13, 4))


@dataclass(frozen=True, slots=True, kw_only=True)
class Tsumo(Event):
    """``tsumo``: a draw (``?`` when hidden from the receiver)."""

    type: ClassVar[str] = "tsumo"
    actor: int = _f(_seat)
    pai: str = _f(_tile_or_unknown)


@dataclass(frozen=True, slots=True, kw_only=True)
class Dahai(Event):
    """``dahai``: a discard; ``tsumogiri`` when it is the tile just drawn."""

    type: ClassVar[str] = "dahai"
    actor: int = _f(_seat)
    pai: str = _f(_tile)
    tsumogiri: bool = _f(_bool)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Claim(Event):
    """The fields of a call on a discard: ``actor`` takes the discard ``pai`` of
    ``target`` with the tiles ``consumed`` from its hand (two; three for a kan)."""

    actor: int = _f(_seat)
    target: int = _f(_seat)
    pai: str = _f(_tile)
    consumed: tuple[str, ...] = _f(_list(_tile, 2))


@dataclass(frozen=True, slots=True, kw_only=True)
class Chi(_Claim):
    """``chi``: a run completed with the discard ``pai`` of ``target``."""

    type: ClassVar[str] = "chi"


@dataclass(frozen=True, slots=True, kw_only=True)
class Pon(_Claim):
    """``pon``: a triplet completed with the discard ``pai`` of ``target``."""

    type: ClassVar[str] = "pon"


@dataclass(frozen=True, slots=True, kw_only=True)
class Daiminkan(_Claim):
    """``daiminkan``: an open kan on the discard ``pai`` of ``target``."""

    type: ClassVar[str] = "daiminkan"
    consumed: tuple[str, ...] = _f(_list(_tile, 3))


@dataclass(frozen=True, slots=True, kw_only=True)
class Kakan(Event):
    """``kakan``: ``pai`` added to the pon made of ``consumed``."""

    type: ClassVar[str] = "kakan"
    actor: int = _f(_seat)
    pai: str = _f(_tile)
    consumed: tuple[str, ...] = _f(_list(_tile, 3))


@dataclass(frozen=True, slots=True, kw_only=True)
class Ankan(Event):
    """``ankan``: a closed kan of the four ``consumed`` tiles (``pai``, when a writer gives
    it, one of them)."""

    type: ClassVar[str] = "ankan"
    actor: int = _f(_seat)
    consumed: tuple[str, ...] = _f(_list(_tile, 4))
    pai: str | None = _f(_tile, optional=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class Dora(Event):
    """``dora``: a new dora indicator after a kan."""

    type: ClassVar[str] = "dora"
    dora_marker: str = _f(_tile)


@dataclass(frozen=True, slots=True, kw_only=True)
class Reach(Event):
    """``reach``: a riichi declaration (the discard follows)."""

    type: ClassVar[str] = "reach"
    actor: int = _f(_seat)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReachAccepted(Event):
    """``reach_accepted``: the riichi stick placed; logs add the deltas and new scores."""

    type: ClassVar[str] = "reach_accepted"
    actor: int = _f(_seat)
    deltas: tuple[int, ...] | None = _f(_QUAD, optional=True)
    scores: tuple[int, ...] | None = _f(_QUAD, optional=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class Hora(Event):
    """``hora``: a win (``actor == target`` for tsumo) with, in logs, the score changes."""

    type: ClassVar[str] = "hora"
    actor: int = _f(_seat)
    target: int = _f(_seat)
    pai: str | None = _f(_tile, optional=True)
    deltas: tuple[int, ...] | None = _f(_QUAD, optional=True)
    ura_markers: tuple[str, ...] | None = _f(_TILES, optional=True)
    uradora_markers: tuple[str, ...] | None = _f(_TILES, optional=True)
    hora_tehais: tuple[str, ...] | None = _f(_TILES, optional=True)
    yakus: tuple[tuple[str, int], ...] | None = _f(_list(_yaku), optional=True)
    fu: int | None = _f(_nonneg, optional=True)
    fan: int | None = _f(_nonneg, optional=True)
    hora_points: int | None = _f(_nonneg, optional=True)
    scores: tuple[int, ...] | None = _f(_QUAD, optional=True)
    pao: int | None = _f(_seat, optional=True)
    """The seat liable for the hand's yakuman (daisangen or daisuushii), if any."""

    @property
    def is_tsumo(self) -> bool:
        """Whether the win is by self-draw."""
        return self.actor == self.target


@dataclass(frozen=True, slots=True, kw_only=True)
class Ryukyoku(Event):
    """``ryukyoku``: a drawn kyoku (exhaustive or abortive) with, in logs, the changes."""

    type: ClassVar[str] = "ryukyoku"
    reason: str | None = _f(_str, optional=True)
    deltas: tuple[int, ...] | None = _f(_QUAD, optional=True)
    scores: tuple[int, ...] | None = _f(_QUAD, optional=True)
    tehais: tuple[tuple[str, ...], ...] | None = _f(
        _list(_list(_tile_or_unknown), 4), optional=True)
    tenpais: tuple[bool, ...] | None = _f(_list(_bool, 4), optional=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class EndKyoku(Event):
    """``end_kyoku``."""

    type: ClassVar[str] = "end_kyoku"


@dataclass(frozen=True, slots=True, kw_only=True)
class EndGame(Event):
    """``end_game``."""

    type: ClassVar[str] = "end_game"


@dataclass(frozen=True, slots=True, kw_only=True)
class Error(Event):
    """``error``: the server reporting a problem."""

    type: ClassVar[str] = "error"
    message: str | None = _f(_str, optional=True)


RYUKYOKU_REASONS: Final[dict[str, str]] = {
    **{name: name for name in ("fanpai", "nagashimangan", "kyushukyuhai", "sufonrenta",
                               "sukaikan", "suchareach", "sanchaho")},
    "exhaustive_draw": "fanpai", "nagashi_mangan": "nagashimangan",
    "kyushu_kyuhai": "kyushukyuhai", "kyuushu_kyuuhai": "kyushukyuhai",
    "sufuurenta": "sufonrenta", "suufon_renda": "sufonrenta",
    "suukansansen": "sukaikan", "suukaikan": "sukaikan",
    "suucha_riichi": "suchareach", "suurechi": "suchareach",
    "sanchahou": "sanchaho",
}
"""A draw's reason as writers name it (the original mjai's names, RiichiEnv's and
mjai.app's ``exhaustive_draw``, ``kyushu_kyuhai``, ``sufuurenta``, ``suukansansen``,
``suucha_riichi``, and spellings in full) to the original mjai's name."""


def ryukyoku_reason(name: str) -> str:
    """The original mjai's name of a draw's reason (``fanpai``, ``nagashimangan``,
    ``kyushukyuhai``, ``sufonrenta``, ``sukaikan``, ``suchareach``, ``sanchaho``); a name
    no writer is known to use is returned as it is."""
    return RYUKYOKU_REASONS.get(name, name)


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls for cls in (
        NoneEvent, StartGame, StartKyoku, Tsumo, Dahai, Chi, Pon, Daiminkan, Kakan, Ankan,
        Dora, Reach, ReachAccepted, Hora, Ryukyoku, EndKyoku, EndGame, Error)
}

_SPECS: dict[str, tuple[tuple[str, _Check, bool], ...]] = {
    name: tuple((f.name, f.metadata["check"], f.default is None)
                for f in fields(cls) if f.name != "extra")
    for name, cls in EVENT_TYPES.items()
}


# --- parsing -------------------------------------------------------------------------------

def event_from_dict(obj: Any, *, strict: bool = False, source: str | None = None,
                    line: int | None = None) -> Event:
    """A validated event from a decoded JSON value; ``strict`` refuses unknown fields."""
    def fail(problem: str) -> MjaiError:
        return MjaiError(problem, source=source, line=line)

    if not isinstance(obj, dict):
        raise fail(f"expected a JSON object, got {type(obj).__name__}")
    kind = obj.get("type")
    if kind is None:
        raise fail("missing field 'type'")
    if not isinstance(kind, str) or kind not in EVENT_TYPES:
        raise fail(f"unknown event type {kind!r}")
    values: dict[str, Any] = {}
    for name, check, optional in _SPECS[kind]:
        if name not in obj or (optional and obj[name] is None):
            if optional:
                continue
            raise fail(f"{kind}: missing field {name!r}")
        try:
            values[name] = check(obj[name])
        except _Bad as exc:
            raise fail(f"{kind}: field {name!r}: {exc}") from None
    known = {name for name, _, _ in _SPECS[kind]} | {"type"}
    extra = {k: v for k, v in obj.items() if k not in known}
    if extra and strict:
        raise fail(f"{kind}: unknown field {sorted(extra)[0]!r}")
    return EVENT_TYPES[kind](extra=extra, **values)


def parse_event(text: str | bytes, *, strict: bool = False, source: str | None = None,
                line: int | None = None) -> Event:
    """Parse one JSON line into a validated event (``MjaiError`` names what is wrong)."""
    try:
        obj = json_value(text)
    except json.JSONDecodeError as exc:
        raise MjaiError(f"malformed JSON: {exc.msg} at column {exc.colno}",
                        source=source, line=line) from None
    except UnicodeDecodeError as exc:
        raise MjaiError(f"not UTF-8: {exc.reason}", source=source, line=line) from None
    return event_from_dict(obj, strict=strict, source=source, line=line)


def iter_events(lines: Iterable[str | bytes], *, source: str = "<input>",
                strict: bool = False) -> Iterator[Event]:
    """Events from JSON lines (blank lines skipped), each error naming its line number."""
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        yield parse_event(text, strict=strict, source=source, line=number)


# --- files ---------------------------------------------------------------------------------

@contextmanager
def open_log(path: str | Path) -> Iterator[BinaryIO]:
    """Open a log for reading as bytes, decompressing it when it is gzip (told by its magic
    bytes, not its name); closes everything on leaving."""
    with open(path, "rb") as raw:
        if raw.peek(2)[:2] == GZIP_MAGIC:
            with gzip.GzipFile(fileobj=raw, mode="rb") as unzipped:
                yield cast(BinaryIO, unzipped)
        else:
            yield raw


_SEEN_LINES = 8192
"""How many distinct lines :func:`read_mjai` remembers, from file to file (their events
are shared; a line with fields mjai does not define is not remembered)."""
_SEEN_LONGEST = 160
"""The longest line remembered, in bytes: draws, discards, calls and riichi repeat from
game to game; the start of a hand (every hand's tiles) or its end hardly ever does, and
a few thousand of those would hold tens of MB."""
_SEEN: dict[bytes, Event] = {}


def read_mjai(path: str | Path, *, strict: bool = False) -> Iterator[Event]:
    """Stream the events of an mjai log (JSON lines, plain or gzip), one line at a time.

    A line met before (in this file or another; up to :data:`_SEEN_LINES` distinct ones)
    gives the same event object again, unparsed: events are immutable, and games repeat
    most of their lines.
    A truncated or corrupt gzip, bad UTF-8 or a bad line is an ``MjaiError`` naming the file
    and the line.
    """
    source = str(path)
    number = 0
    seen = _SEEN
    with open_log(path) as stream:
        while True:
            try:
                raw = stream.readline()
            except (EOFError, OSError, zlib.error) as exc:
                raise MjaiError(f"cannot read the file: {exc}", source=source,
                                line=number + 1) from None
            if not raw:
                return
            number += 1
            event = seen.get(raw)
            if event is not None:  # a line met before (most draws and discards are)
                yield event
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise MjaiError(f"not UTF-8: {exc.reason}", source=source, line=number) from None
            if text.strip():
                event = parse_event(text, strict=strict, source=source, line=number)
                if not event.extra and len(raw) <= _SEEN_LONGEST:  # (one with extra fields
                    # may be refused when strict)
                    if len(seen) >= _SEEN_LINES:
                        seen.clear()
                    seen[raw] = event
                yield event


def write_mjai(path: str | Path, events: Iterable[Event]) -> int:
    """Write events as compact JSON lines (gzip when the name ends in ``.gz``), whole or not
    at all; the count."""
    count = 0
    with open_text(path, "w") as out:
        for event in events:
            out.write(event.to_json())
            out.write("\n")
            count += 1
    return count


_CANONICAL: dict[bytes, str] = {}
"""Compact JSON of event objects met before -> their canonical lines (at most
:data:`_SEEN_LINES` distinct ones of at most :data:`_SEEN_LONGEST` bytes)."""


def canonical_lines(objects: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """The canonical line (newline-terminated) of each event given as a JSON object, as
    ``event_from_dict(obj).to_json()`` (``MjaiError`` for one that is not an mjai event).
    An object with the same JSON text as one met before (in this log or another: most
    draws and discards are) gets the same line without being validated again."""
    seen = _CANONICAL
    for obj in objects:
        try:
            key: bytes | None = orjson.dumps(obj)
        except TypeError:  # not JSON: event_from_dict says what is wrong
            key = None
        line = seen.get(key) if key is not None else None
        if line is None:
            line = event_from_dict(obj).to_json() + "\n"
            if key is not None and len(key) <= _SEEN_LONGEST:
                if len(seen) >= _SEEN_LINES:
                    seen.clear()
                seen[key] = line
        yield line


def write_mjai_objects(path: str | Path, objects: Iterable[Mapping[str, Any]]) -> int:
    """:func:`write_mjai` for events given as JSON objects (validated, canonical lines:
    :func:`canonical_lines`); the count."""
    count = 0
    with open_text(path, "w") as out:
        for line in canonical_lines(objects):
            out.write(line)
            count += 1
    return count


def dump_lines(events: Iterable[Event]) -> Iterator[str]:
    """The compact JSON line of each event, newline-terminated."""
    for event in events:
        yield event.to_json() + "\n"
