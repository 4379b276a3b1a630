"""Tenhou's JSON game logs (the tenhou.net/6 format, plain or gzip) read as mjai events.

The format, as tenhou.net/6 shows a game and as mjai-reviewer's convlog reads it:

- The top object (or one per line, each holding one kyoku, as some writers give a game:
  their kyoku are read in order, the players and rules from the first line): ``name``
  (four player names), ``rule`` (``disp``, the room in words such
  as ``"般南喰赤"``: 東 an east-only game, 南 east-south, 喰 open tanyao; ``aka`` or ``aka51``
  ``aka52`` ``aka53`` the red fives), ``log`` (one entry per kyoku), optionally ``title``,
  ``ref``, ``ver``, ``dan``, ``rate``, ``sx``, ``lobby`` and ``sc`` (the final points and
  results by seat, alternating: ``[points0, result0, points1, result1, ...]``; present only
  in the record of a whole game).
- A kyoku: ``[[kyoku, honba, kyotaku], scores, dora indicators, ura indicators, hai0, take0,
  discard0, hai1, take1, discard1, hai2, take2, discard2, hai3, take3, discard3, result]``.
  ``kyoku`` counts from 0 (East 1) to 15: the dealer is ``kyoku % 4``, the round wind
  ``ESWN[kyoku // 4]``. ``scores`` are those at the start. The dora indicators are the first
  one and those revealed by kans, in order; the ura indicators are given when a riichi hand
  won. ``haiN`` are the 13 dealt tiles of seat N.
- Tiles: 11-19 man, 21-29 pin, 31-39 sou, 41-47 East South West North White Green Red,
  51 52 53 the red fives of man, pin and sou.
- ``takeN``, what seat N took in order: a tile code (a draw, also the replacement draw after a
  kan) or a call: ``"c" + called + two tiles`` (chi, always from the left), ``"p"`` with
  three tiles (pon) or ``"m"`` with four (open kan on a discard). The letter stands before
  the called tile, and its place tells whose discard it was: first (index 0) the left seat
  (kamicha), index 2 the seat across (toimen), last (index 4 for a pon, 6 for a kan) the right
  seat (shimocha). ``"c275226"``: chi of 7p with 5p-red and 6p; ``"1212p12"``: pon of 2m
  from the right.
- ``discardN``, what seat N gave out in order: a tile code (a discard from the hand), 60 (the
  tile just drawn, tsumogiri), ``"r" + code`` or ``"r60"`` (a riichi declaration with that
  discard), ``0`` (no discard: the entry of an open kan, whose replacement draw comes next),
  an added kan ``"k"`` (the letter before the added tile, at the place of the pon's letter:
  ``"3636k3636"``) or a closed kan ``"a"`` (``"424242a42"``), each followed by a
  replacement draw unless robbed.
- ``result``: ``["和了", deltas, [who, from, pao, points, yaku...], ...]`` (one deltas and
  detail pair per winner of a multiple ron, nearest to the discarder first; ``who == from``
  for tsumo; yaku as ``"立直(1飜)"`` or ``"四槓子(役満)"``; points as ``"30符2飜2000点"``)
  or a draw: ``["流局", deltas]`` (also ``全員聴牌``, ``全員不聴``), ``流し満貫``,
  ``九種九牌``, ``四家立直``, ``三家和了``, ``四槓散了``, ``四風連打``. Deltas include honba
  and riichi sticks.

The four seats' lists do not say in which order the seats acted; the order is rebuilt by
playing the turns: after a discard, a seat whose next take calls that very tile from that
seat acts next (a pon or kan before a chi), else the next seat draws. When a call could match
this discard or a later identical one (the "confusing calls" of convlog's test data), the
reading backtracks: every seat's tiles are followed, and an order that discards a tile not in
hand, or leaves takes or discards unused, is abandoned for the next possibility.

The events come in the order of Tenhou's own mjlog and of :mod:`referee.games.riichi.kyoku`:
``reach_accepted`` once the declaration discard passes (before the call or draw after it), the
dora of a closed kan right after it, that of an open or added kan just before the kanning
seat's next discard (or when its next kan stands). ``hora`` carries ``pai``, ``deltas``,
``scores``, ``ura_markers`` (for a winner in riichi), ``fu``, ``fan``, ``hora_points`` (the
hand's value) and ``yakus`` as the detail shows them
(:func:`~referee.games.riichi.yaku.tenhou_detail`); ``ryukyoku`` the reason as the original
mjai names it, ``deltas`` and ``scores``.
``start_game`` has ``names``, ``aka_flag`` and ``kyoku_first`` (0 east-south, 4 east only, as
convlog writes it); ``end_game`` (written only when ``sc`` is there) carries the final points in
``scores``. Every problem is a :class:`TenhouJsonError` naming the file, the kyoku and what is
wrong.
"""

from __future__ import annotations

import json
import re
import zlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.core.json_read import json_value
from referee.games.riichi.mjai import (
    Ankan,
    Chi,
    Dahai,
    Daiminkan,
    Dora,
    EndGame,
    EndKyoku,
    Event,
    Hora,
    Kakan,
    MjaiError,
    Pon,
    Reach,
    ReachAccepted,
    Ryukyoku,
    StartGame,
    StartKyoku,
    Tsumo,
    open_log,
)
from referee.games.riichi.rules import RiichiRules
from referee.games.riichi.tiles import kind_name
from referee.games.riichi.yaku import tenhou_detail

__all__ = [
    "DRAW_REASONS", "TenhouJsonError", "TenhouLog", "TenhouRule", "code_kind", "code_name",
    "parse_tenhou_json", "read_tenhou_json", "tenhou_to_mjai",
]

DRAW_REASONS: dict[str, str] = {
    "流局": "fanpai", "全員聴牌": "fanpai", "全員不聴": "fanpai", "流し満貫": "nagashimangan",
    "九種九牌": "kyushukyuhai", "四家立直": "suchareach", "三家和了": "sanchaho",
    "四槓散了": "sukaikan", "四風連打": "sufonrenta",
}
"""A draw's result word to the reason the original mjai gives it."""

WIN = "和了"
TSUMOGIRI = 60
NO_DISCARD = 0
_WINDS = "ESWN"
_RED_CODES = {51: 4, 52: 13, 53: 22}
_CALL = re.compile(r"(\d*)([cpmka])(\d+)")
_REACH = re.compile(r"r(\d\d)")
_MAX_BRANCHES = 10_000


class TenhouJsonError(MjaiError):
    """A malformed Tenhou JSON log: names the file, the kyoku (its place in ``log``) and the
    problem."""

    def __init__(self, problem: str, *, source: str | None = None,
                 kyoku: int | None = None, label: str | None = None) -> None:
        self.kyoku = kyoku
        where = None
        if kyoku is not None:
            where = f"log[{kyoku}]" + (f" ({label})" if label else "")
        super().__init__(problem, source=source, where=where)


def code_kind(code: int) -> int:
    """The tile kind 0..33 of a Tenhou JSON tile code; ``ValueError`` for a bad code."""
    if isinstance(code, bool) or not isinstance(code, int):
        raise ValueError(f"{code!r} is not a tile code")
    if code in _RED_CODES:
        return _RED_CODES[code]
    suit, rank = divmod(code, 10)
    if 1 <= suit <= 3 and 1 <= rank <= 9:
        return (suit - 1) * 9 + rank - 1
    if suit == 4 and 1 <= rank <= 7:
        return 27 + rank - 1
    raise ValueError(f"{code} is not a tile code (11-19, 21-29, 31-39, 41-47, 51-53)")


def code_name(code: int) -> str:
    """The mjai name of a Tenhou JSON tile code: 15 is ``5m``, 51 ``5mr``, 47 ``C``."""
    return kind_name(code_kind(code)) + ("r" if code in _RED_CODES else "")


# ------------------------------------------------------------------------------ the log


_ROOMS = {"般": "ippan", "上": "joukyuu", "特": "tokujou", "鳳": "houou"}
"""Tenhou's rooms by the first character of a rule's ``disp``."""


@dataclass(frozen=True, slots=True)
class TenhouRule:
    """The room's rules as far as the log tells them."""

    disp: str
    red_fives: bool
    hanchan: bool
    open_tanyao: bool

    @property
    def room(self) -> str | None:
        """The Tenhou room, named as mjlog's rooms are (``ippan``, ``joukyuu``, ``tokujou``,
        ``houou``), from the first character of ``disp``; None if it names none."""
        return _ROOMS.get(self.disp[:1])

    def riichi_rules(self) -> RiichiRules:
        """The engine's rules for such a game (Tenhou's otherwise)."""
        return RiichiRules(game_length="south" if self.hanchan else "east",
                           red_fives=self.red_fives, open_tanyao=self.open_tanyao)


@dataclass(frozen=True, slots=True)
class TenhouLog:
    """A parsed Tenhou JSON log: the players, the rules, the raw kyoku entries (checked
    when converted) and the final points and results when the log has them (``sc``)."""

    source: str
    names: tuple[str, ...]
    rule: TenhouRule
    kyoku: tuple[Any, ...]
    final_scores: tuple[int, ...] | None = None
    final_results: tuple[float, ...] | None = None
    ref: str | None = None

    def events(self) -> list[Event]:
        """The mjai events of the whole log (see :func:`tenhou_to_mjai`)."""
        return tenhou_to_mjai(self)


def parse_tenhou_json(data: str | bytes | Mapping[str, Any], *,
                      source: str = "<tenhou json>") -> TenhouLog:
    """Parse a Tenhou JSON log from its text or decoded object; the kyoku entries are
    checked by :func:`tenhou_to_mjai`."""
    def fail(problem: str) -> TenhouJsonError:
        return TenhouJsonError(problem, source=source)

    obj: Any = data
    if isinstance(data, (str, bytes)):
        try:
            obj = json_value(data)
        except json.JSONDecodeError as exc:
            if exc.msg != "Extra data":
                raise fail(f"malformed JSON: {exc.msg} at line {exc.lineno}, column "
                           f"{exc.colno}") from None
            obj = _joined_lines(data, fail)
        except UnicodeDecodeError as exc:
            raise fail(f"not UTF-8: {exc.reason}") from None
    if not isinstance(obj, Mapping):
        raise fail("the log is not a JSON object")
    kyoku = obj.get("log")
    if not isinstance(kyoku, list):
        raise fail("no 'log' list of kyoku")
    names = obj.get("name", ["", "", "", ""])
    if not (isinstance(names, list) and len(names) == 4 and all(isinstance(n, str)
                                                                  for n in names)):
        raise fail(f"'name' is not four player names: {names!r}")
    rule = obj.get("rule", {})
    if not isinstance(rule, Mapping):
        raise fail(f"'rule' is not an object: {rule!r}")
    disp = rule.get("disp", "")
    if not isinstance(disp, str):
        raise fail(f"'rule.disp' is not a string: {disp!r}")
    aka = [rule.get(k, 0) for k in ("aka", "aka51", "aka52", "aka53")]
    if not all(isinstance(a, int) for a in aka):
        raise fail(f"'rule' has a non-integer red five setting: {dict(rule)!r}")
    tenhou_words = "東" in disp or "南" in disp
    east = "東" in disp or (not tenhou_words and "east" in disp.lower())
    parsed_rule = TenhouRule(disp=disp, red_fives=sum(aka) > 0, hanchan=not east,
                             open_tanyao="喰" in disp or not tenhou_words)
    final_scores = final_results = None
    sc = obj.get("sc")
    if sc is not None:
        if not (isinstance(sc, list) and len(sc) == 8
                and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in sc)):
            raise fail(f"'sc' is not four (points, result) pairs: {sc!r}")
        points = [int(x) for x in sc[0::2]]
        if abs(sum(points)) < 10_000:  # hundreds of points, as mjlog's owari
            points = [100 * p for p in points]
        final_scores = tuple(points)
        final_results = tuple(float(x) for x in sc[1::2])
    ref = obj.get("ref")
    return TenhouLog(source=source, names=tuple(names), rule=parsed_rule, kyoku=tuple(kyoku),
                     final_scores=final_scores, final_results=final_results,
                     ref=ref if isinstance(ref, str) else None)


def _joined_lines(data: str | bytes, fail: Callable[[str], TenhouJsonError]) -> Any:
    """A log written one kyoku per line, each line a whole log object holding one kyoku
    (or more) in ``log``, or a bare kyoku list: one object with every kyoku in order, the
    players and rules of the first object, ``sc`` and ``ref`` of the last that has them."""
    merged: dict[str, Any] = {}
    kyoku: list[Any] = []
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            part = json_value(line)
        except json.JSONDecodeError as exc:
            raise fail(f"line {number}: malformed JSON: {exc.msg} at column {exc.colno}") \
                from None
        if isinstance(part, list):
            kyoku.append(part)
            continue
        if not isinstance(part, Mapping) or not isinstance(part.get("log"), list):
            raise fail(f"line {number}: neither a log object with a 'log' list nor a kyoku")
        for key, value in part.items():
            if key != "log" and (key not in merged or key in ("sc", "ref")):
                merged[key] = value
        kyoku.extend(part["log"])
    merged["log"] = kyoku
    return merged


def read_tenhou_json(path: str | Path) -> TenhouLog:
    """Read a Tenhou JSON log file (plain or gzip)."""
    source = str(path)
    try:
        with open_log(path) as stream:
            data = stream.read()
    except (EOFError, zlib.error) as exc:
        raise TenhouJsonError(f"cannot read the file: {exc}", source=source) from None
    return parse_tenhou_json(data, source=source)


def tenhou_to_mjai(log: TenhouLog) -> list[Event]:
    """The mjai events of a log: ``start_game``, each kyoku from ``start_kyoku`` to
    ``end_kyoku``, and ``end_game`` when the log records the game's end."""
    events: list[Event] = [StartGame(names=log.names, aka_flag=log.rule.red_fives,
                                     kyoku_first=0 if log.rule.hanchan else 4)]
    for index, raw in enumerate(log.kyoku):
        events.extend(_KyokuReader(log, index, raw).events())
    if log.final_scores is not None:
        events.append(EndGame(extra={"scores": list(log.final_scores)}))
    return events


# ------------------------------------------------------------------------------ a kyoku


class _Dead(Exception):
    """An order of the turns that does not fit the lists (internal)."""


@dataclass(frozen=True, slots=True)
class _Draw:
    code: int


@dataclass(frozen=True, slots=True)
class _Call:
    type: str  # chi, pon, daiminkan
    target: int
    called: int
    consumed: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Discard:
    code: int | None  # None: tsumogiri
    reach: bool = False


@dataclass(frozen=True, slots=True)
class _Kan:
    type: str  # kakan, ankan
    tiles: tuple[int, ...]  # kakan: the added tile first, then the pon's three


@dataclass(frozen=True, slots=True)
class _Skip:
    """The discard entry of an open kan (0)."""


_Take = _Draw | _Call
_Give = _Discard | _Kan | _Skip


@dataclass
class _Turns:
    """Where the rebuilding of the turn order stands (copied at each branch)."""

    actor: int
    takes: list[int] = field(default_factory=lambda: [0] * 4)
    gives: list[int] = field(default_factory=lambda: [0] * 4)
    hands: list[Counter[int]] = field(default_factory=list)
    drawn: list[int | None] = field(default_factory=lambda: [None] * 4)
    taking: bool = True
    claimable: tuple[int, int] | None = None
    steps: list[tuple[bool, int]] = field(default_factory=list)
    choices: list[int | None] = field(default_factory=list)

    def fork(self, choice: int | None) -> _Turns:
        new = _Turns(self.actor, list(self.takes), list(self.gives),
                     [Counter(h) for h in self.hands], list(self.drawn), self.taking,
                     self.claimable, list(self.steps))
        new.choose(choice)
        return new

    def choose(self, caller: int | None) -> None:
        """After a discard: ``caller`` takes it next, or (None) the next seat draws."""
        assert self.claimable is not None
        if caller is None:
            self.actor = (self.claimable[0] + 1) % 4
            self.claimable = None
        else:
            self.actor = caller
        self.choices = []


class _KyokuReader:
    """Checks one kyoku entry and turns it into events."""

    def __init__(self, log: TenhouLog, index: int, raw: Any) -> None:
        self.source = log.source
        self.index = index
        self.label: str | None = None
        if not isinstance(raw, list) or len(raw) != 17:
            raise self.error(f"a kyoku is a list of 17 entries, not {_clip(raw)}")
        meta = raw[0]
        if not (isinstance(meta, list) and len(meta) == 3 and all(_is_int(x) and x >= 0
                                                                    for x in meta)):
            raise self.error(f"[kyoku, honba, kyotaku] expected, got {_clip(meta)}")
        self.number, self.honba, self.kyotaku = meta
        if self.number >= 16:
            raise self.error(f"kyoku number {self.number} is past North 4")
        self.label = f"{_WINDS[self.number // 4]}{self.number % 4 + 1}-{self.honba}"
        self.scores = self.ints(raw[1], "scores", 4)
        self.dora = self.codes(raw[2], "dora indicators")
        if not self.dora:
            raise self.error("no dora indicator")
        self.ura = self.codes(raw[3], "ura indicators")
        self.hands = [self.codes(raw[4 + 3 * s], f"the hand of seat {s}") for s in range(4)]
        for s, hand in enumerate(self.hands):
            if len(hand) != 13:
                raise self.error(f"the hand of seat {s} has {len(hand)} tiles, not 13")
        self.take_lists = [self.takes(raw[5 + 3 * s], s) for s in range(4)]
        self.give_lists = [self.gives(raw[6 + 3 * s], s) for s in range(4)]
        self.result = raw[16]
        if not (isinstance(self.result, list) and self.result
                and isinstance(self.result[0], str)):
            raise self.error(f"the result is not [word, ...]: {_clip(self.result)}")

    def error(self, problem: str) -> TenhouJsonError:
        return TenhouJsonError(problem, source=self.source, kyoku=self.index, label=self.label)

    # ---------------------------------------------------------------- checking

    def ints(self, value: Any, what: str, count: int) -> tuple[int, ...]:
        if not (isinstance(value, list) and len(value) == count
                and all(_is_int(x) for x in value)):
            raise self.error(f"{what}: {count} integers expected, got {_clip(value)}")
        return tuple(value)

    def code(self, value: Any, what: str) -> int:
        try:
            code_kind(value)
        except ValueError as exc:
            raise self.error(f"{what}: {exc}") from None
        return int(value)

    def codes(self, value: Any, what: str) -> list[int]:
        if not isinstance(value, list):
            raise self.error(f"{what}: a list of tile codes expected, got {_clip(value)}")
        return [self.code(x, what) for x in value]

    def items(self, value: Any, what: str) -> list[tuple[str, Any]]:
        """The items of the list ``value`` (``what``), each with its place for errors."""
        if not isinstance(value, list):
            raise self.error(f"{what}: a list expected, got {_clip(value)}")
        return [(f"{what}, item {i}", item) for i, item in enumerate(value)]

    def takes(self, value: Any, seat: int) -> list[_Take]:
        out: list[_Take] = []
        for where, item in self.items(value, f"the takes of seat {seat}"):
            if isinstance(item, str):
                letter, tiles, place = self.call(item, where)
                if letter not in "cpm":
                    raise self.error(f"{where}: {item!r} is not a chi, pon or open kan")
                called = tiles[place]
                consumed = tuple(t for j, t in enumerate(tiles) if j != place)
                if letter == "c":
                    if place != 0:
                        raise self.error(f"{where}: a chi {item!r} names its tile first")
                    kinds = sorted(code_kind(t) for t in tiles)
                    if kinds[0] >= 27 or kinds != list(range(kinds[0], kinds[0] + 3)) \
                            or kinds[0] // 9 != kinds[2] // 9:
                        raise self.error(f"{where}: {item!r} is not a run")
                    out.append(_Call("chi", (seat + 3) % 4, called, consumed))
                    continue
                last = 2 * (len(tiles) - 1)
                offsets = {0: 3, 2: 2, last: 1}
                if 2 * place not in offsets:
                    raise self.error(f"{where}: the letter of {item!r} is misplaced")
                self.same_kind(tiles, item, where)
                kind = "pon" if letter == "p" else "daiminkan"
                if len(tiles) != (3 if kind == "pon" else 4):
                    raise self.error(f"{where}: {item!r} has {len(tiles)} tiles")
                out.append(_Call(kind, (seat + offsets[2 * place]) % 4, called, consumed))
            else:
                out.append(_Draw(self.code(item, where)))
        return out

    def gives(self, value: Any, seat: int) -> list[_Give]:
        out: list[_Give] = []
        for where, item in self.items(value, f"the discards of seat {seat}"):
            if isinstance(item, str):
                if m := _REACH.fullmatch(item):
                    code = int(m.group(1))
                    out.append(_Discard(None if code == TSUMOGIRI
                                        else self.code(code, where), reach=True))
                    continue
                letter, tiles, place = self.call(item, where)
                if letter not in "ka" or len(tiles) != 4:
                    raise self.error(f"{where}: {item!r} is not an added or closed kan")
                self.same_kind(tiles, item, where)
                added = tiles[place]
                rest = tuple(t for j, t in enumerate(tiles) if j != place)
                out.append(_Kan("kakan" if letter == "k" else "ankan", (added, *rest)))
            elif item == TSUMOGIRI:
                out.append(_Discard(None))
            elif item == NO_DISCARD and _is_int(item):
                out.append(_Skip())
            else:
                out.append(_Discard(self.code(item, where)))
        return out

    def call(self, text: str, where: str) -> tuple[str, list[int], int]:
        """(letter, tile codes, index of the tile after the letter) of a call string."""
        m = _CALL.fullmatch(text)
        if m is None or len(m.group(1)) % 2 or len(m.group(3)) % 2 or not m.group(3):
            raise self.error(f"{where}: {text!r} is not a call")
        digits = m.group(1) + m.group(3)
        tiles = [self.code(int(digits[j:j + 2]), where) for j in range(0, len(digits), 2)]
        if len(tiles) not in (3, 4):
            raise self.error(f"{where}: {text!r} has {len(tiles)} tiles")
        return m.group(2), tiles, len(m.group(1)) // 2

    def same_kind(self, tiles: Sequence[int], text: str, where: str) -> None:
        if len({code_kind(t) for t in tiles}) != 1:
            raise self.error(f"{where}: {text!r} mixes tile kinds")

    # ---------------------------------------------------------------- the turn order

    def order(self) -> list[tuple[bool, int]]:
        """The turns (True: a take, False: a discard entry, with the seat) in play order."""
        turns = _Turns(self.number % 4, hands=[Counter(h) for h in self.hands])
        waiting: list[_Turns] = []
        first: _Dead | None = None
        branches = 0
        while True:
            try:
                if self.step(turns):
                    return turns.steps
                if turns.choices:
                    best, *others = turns.choices
                    waiting.extend(turns.fork(c) for c in reversed(others))
                    turns.choose(best)
            except _Dead as exc:
                first = first or exc
                branches += 1
                if not waiting or branches > _MAX_BRANCHES:
                    raise self.error(f"the takes and discards do not make a game: {first}") \
                        from None
                turns = waiting.pop()

    def done(self, t: _Turns) -> bool:
        return all(t.takes[s] == len(self.take_lists[s])
                   and t.gives[s] == len(self.give_lists[s]) for s in range(4))

    def step(self, t: _Turns) -> bool:
        """Play one turn; True once the kyoku is over with every list used up."""
        seat = t.actor
        if t.taking:
            if t.takes[seat] >= len(self.take_lists[seat]):
                raise _Dead(f"seat {seat} should take a tile, but its takes are used up")
            take = self.take_lists[seat][t.takes[seat]]
            if isinstance(take, _Call):
                if t.claimable != (take.target, take.called) or (
                        take.type == "chi" and seat != (take.target + 1) % 4):
                    raise _Dead(f"seat {seat}'s {take.type} of {code_name(take.called)} "
                                f"does not follow a discard of it by seat {take.target}")
                for code in take.consumed:
                    _remove(t.hands[seat], code, seat)
                t.drawn[seat] = None
            else:
                t.hands[seat][take.code] += 1
                t.drawn[seat] = take.code
            t.claimable = None
            t.takes[seat] += 1
            t.steps.append((True, seat))
            t.taking = False
            return False
        if t.gives[seat] >= len(self.give_lists[seat]):
            if self.done(t):
                return True
            raise _Dead(f"seat {seat} has no discard left but the kyoku goes on")
        give = self.give_lists[seat][t.gives[seat]]
        took = self.take_lists[seat][t.takes[seat] - 1]
        kanned = isinstance(took, _Call) and took.type == "daiminkan"
        if kanned != isinstance(give, _Skip):
            raise _Dead(f"seat {seat}: an open kan goes with a 0 discard entry")
        t.gives[seat] += 1
        t.steps.append((False, seat))
        if isinstance(give, _Skip):
            t.taking = True
            return False
        if isinstance(give, _Kan):
            for tile in give.tiles[:1] if give.type == "kakan" else give.tiles:
                _remove(t.hands[seat], tile, seat)
            t.drawn[seat] = None
            t.taking = True
            return self.done(t)
        out = give.code if give.code is not None else t.drawn[seat]
        if out is None:
            raise _Dead(f"seat {seat} discards the drawn tile (60) after a call")
        _remove(t.hands[seat], out, seat)
        t.drawn[seat] = None
        t.claimable = (seat, out)
        t.taking = True
        if self.done(t):
            return True
        callers = []
        for other in range(4):
            if other == seat or t.takes[other] >= len(self.take_lists[other]):
                continue
            take = self.take_lists[other][t.takes[other]]
            if isinstance(take, _Call) and take.target == seat and take.called == out and (
                    take.type != "chi" or other == (seat + 1) % 4):
                callers.append((take.type == "chi", other))
        t.choices = [other for _, other in sorted(callers)] + [None]
        if len(t.choices) == 1:
            t.choose(None)
        return False

    # ---------------------------------------------------------------- events

    def events(self) -> list[Event]:
        steps = self.order()
        names = [[code_name(c) for c in h] for h in self.hands]
        out: list[Event] = [StartKyoku(
            bakaze=_WINDS[self.number // 4], dora_marker=code_name(self.dora[0]),
            kyoku=self.number % 4 + 1, honba=self.honba, kyotaku=self.kyotaku,
            oya=self.number % 4, scores=self.scores, tehais=tuple(tuple(h) for h in names))]
        scores = list(self.scores)
        revealed = 1
        pending = 0
        standing_kakan = False
        reach_by: int | None = None
        riichi = [False] * 4
        takes = [0] * 4
        gives = [0] * 4
        drawn: list[int | None] = [None] * 4
        last: tuple[int, int] | None = None  # the seat and tile a ron would take

        def reveal(count: int) -> None:
            nonlocal revealed
            for _ in range(count):
                if revealed >= len(self.dora):
                    raise self.error(f"a kan reveals dora indicator {revealed + 1}, but the "
                                     f"log lists {len(self.dora)}")
                out.append(Dora(dora_marker=code_name(self.dora[revealed])))
                revealed += 1

        def accept() -> None:
            nonlocal reach_by
            if reach_by is None:
                return
            scores[reach_by] -= 1000
            riichi[reach_by] = True
            out.append(ReachAccepted(
                actor=reach_by, deltas=tuple(-1000 if s == reach_by else 0 for s in range(4)),
                scores=tuple(scores)))
            reach_by = None

        for taking, seat in steps:
            if taking:
                take = self.take_lists[seat][takes[seat]]
                takes[seat] += 1
                accept()
                if isinstance(take, _Call):
                    cls = {"chi": Chi, "pon": Pon, "daiminkan": Daiminkan}[take.type]
                    out.append(cls(actor=seat, target=take.target, pai=code_name(take.called),
                                   consumed=tuple(code_name(c) for c in take.consumed)))
                    pending += take.type == "daiminkan"
                    drawn[seat] = None
                else:
                    if standing_kakan:
                        reveal(pending)
                        pending = 1
                        standing_kakan = False
                    out.append(Tsumo(actor=seat, pai=code_name(take.code)))
                    drawn[seat] = take.code
                continue
            give = self.give_lists[seat][gives[seat]]
            gives[seat] += 1
            if isinstance(give, _Skip):
                continue
            if isinstance(give, _Kan):
                tiles = tuple(code_name(c) for c in give.tiles)
                if give.type == "ankan":
                    reveal(pending)
                    pending = 0
                    out.append(Ankan(actor=seat, consumed=tiles))
                    reveal(1)
                    last = (seat, next((c for c in give.tiles if c not in _RED_CODES),
                                       give.tiles[0]))
                else:
                    out.append(Kakan(actor=seat, pai=tiles[0], consumed=tiles[1:]))
                    standing_kakan = True
                    last = (seat, give.tiles[0])
                drawn[seat] = None
                continue
            if give.reach:
                out.append(Reach(actor=seat))
            reveal(pending)
            pending = 0
            code = give.code if give.code is not None else drawn[seat]
            assert code is not None  # order() checked it
            out.append(Dahai(actor=seat, pai=code_name(code), tsumogiri=give.code is None))
            drawn[seat] = None
            last = (seat, code)
            if give.reach:
                reach_by = seat
        out.extend(self.ending(steps[-1], drawn, last, scores, riichi, accept))
        out.append(EndKyoku())
        return out

    def ending(self, final: tuple[bool, int], drawn: list[int | None],
               last: tuple[int, int] | None, scores: list[int], riichi: list[bool],
               accept: Callable[[], None]) -> list[Event]:
        """The hora or ryukyoku events of the result."""
        word = self.result[0]
        out: list[Event] = []
        if word == WIN:
            pairs = self.result[1:]
            if not pairs or len(pairs) % 2:
                raise self.error(f"a win without (deltas, detail) pairs: {_clip(self.result)}")
            for i in range(0, len(pairs), 2):
                deltas = self.ints(pairs[i], "the deltas of a win", 4)
                detail = pairs[i + 1]
                if not (isinstance(detail, list) and len(detail) >= 2
                        and all(_is_int(x) and 0 <= x < 4 for x in detail[:2])):
                    raise self.error(f"a win's detail is not [who, from, ...]: {_clip(detail)}")
                who, target = detail[0], detail[1]
                if who == target:
                    pai = drawn[who]
                    if final != (True, who) or pai is None:
                        raise self.error(f"seat {who} wins by tsumo, but its draw is not the "
                                         f"last thing played")
                else:
                    if last is None or final != (False, target) or last[0] != target:
                        raise self.error(f"seat {who} wins on a tile of seat {target}, but "
                                         f"seat {target} did not give out the last tile")
                    pai = last[1]
                for s in range(4):
                    scores[s] += deltas[s]
                fu, fan, points, yaku = tenhou_detail(detail[3:])
                pao = detail[2] if len(detail) > 2 and _is_int(detail[2]) \
                    and 0 <= detail[2] < 4 and detail[2] != who else None
                out.append(Hora(
                    actor=who, target=target, pai=code_name(pai), deltas=deltas, pao=pao,
                    ura_markers=tuple(code_name(c) for c in self.ura)
                    if riichi[who] and self.ura else None,
                    fu=fu, fan=fan, hora_points=points, scores=tuple(scores),
                    yakus=None if yaku is None else tuple(yaku)))
            return out
        reason = DRAW_REASONS.get(word)
        if reason is None:
            raise self.error(f"unknown result {word!r}")
        deltas = (0, 0, 0, 0) if len(self.result) < 2 \
            else self.ints(self.result[1], "the deltas of a draw", 4)
        if reason == "suchareach":
            accept()
        for s in range(4):
            scores[s] += deltas[s]
        out.append(Ryukyoku(reason=reason, deltas=deltas, scores=tuple(scores)))
        return out


# ------------------------------------------------------------------------------ helpers


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _clip(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


def _remove(hand: Counter[int], code: int, seat: int) -> None:
    if hand[code] <= 0:
        raise _Dead(f"seat {seat} gives out {code_name(code)}, which it does not hold")
    hand[code] -= 1
