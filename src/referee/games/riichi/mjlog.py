"""Tenhou mjlog XML (``<mjloggm ver="2.3">``, plain or gzip) read as mjai events.

Each element becomes zero or more :class:`MjlogEvent` records, each holding the mjai event
and what the log recorded beside it: tile ids, the decoded meld, the AGARI or RYUUKYOKU
details (fu, points, limit, yaku with han, dora, hands, the score changes) and the rules of
the room, so a replay can compare han, fu and points and not only the deltas.

The conversion:

- ``GO type`` gives the :class:`RoomRules` (bits below), ``UN`` the players (URL-encoded
  names, dan, rate, sex), ``TAIKYOKU`` (or the first ``INIT``) ``start_game``.
- ``INIT seed="round,honba,kyotaku,dice,dice,dora indicator" ten oya hai0..3`` is
  ``start_kyoku``: round wind ``ESWN[round // 4]``, kyoku ``round % 4 + 1``, scores ``ten``
  times 100. It is preceded by ``end_kyoku`` of the kyoku before (not at ``AGARI``, since a
  double ron has two).
- ``T U V W`` + tile id (seats 0-3) are draws (``tsumo``); ``D E F G`` + tile id discards
  (``dahai``), ``tsumogiri`` when the tile is the one the seat drew last and it has not
  discarded or called since (a lower-case tag also means tsumogiri).
- ``N who m`` is a call, decoded by :func:`decode_meld`; ``DORA hai`` is ``dora``;
  ``REACH step=1`` is ``reach``, ``step=2`` ``reach_accepted`` with deltas -1000 and the
  recorded scores.
- ``AGARI`` is ``hora`` (``pai`` the winning tile ``machi``, deltas and scores from ``sc``,
  ``ura_markers`` from ``doraHaiUra``, ``fu``/``hora_points`` from ``ten``, ``fan`` the sum of
  the yaku han, or 13 per yakuman, ``yakus`` the yaku named by
  :data:`~referee.games.riichi.yaku.YAKU_NAMES` with their han); ``RYUUKYOKU`` is
  ``ryukyoku`` with the reason named as the original mjai does (exhaustive ``fanpai``,
  ``kyushukyuhai``, ``sufonrenta``, ``suchareach``, ``sanchaho``, ``sukaikan``,
  ``nagashimangan``).
- ``owari`` on the last result ends the game: ``end_kyoku`` then ``end_game``, the final
  scores and points on the record. ``SHUFFLE``, ``BYE``, reconnect ``UN`` and ``FURITEN``
  give no event. A log that stops between kyoku just stops (no ``end_game``), and so does one
  whose document ends inside a kyoku (a crashed game, or one still being played: no
  ``end_kyoku``; the replay checks it up to the cut). Any malformed element, or a document
  that is not whole XML, is an :class:`MjlogError` naming the file, the element number and
  its tag.

Tenhou's meld field ``m`` is decoded by :func:`~referee.games.riichi.tenhou_meld.
decode_meld`.

``GO type`` bits: 0x01 against people, 0x02 no red fives, 0x04 no open tanyao, 0x08 east-south
(else east only), 0x10 three-player, 0x20 and 0x80 the room (neither: ippan, 0x80 joukyuu,
0x20 tokujou, both houou), 0x40 fast.
"""

from __future__ import annotations

import gzip
import io
import re
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final, cast
from urllib.parse import unquote
from xml.etree import ElementTree

from referee.core.compressed import GZIP_MAGIC
from referee.games.riichi.melds import Meld, MeldType
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
from referee.games.riichi.tenhou_meld import decode_meld
from referee.games.riichi.tiles import TILES, kind_name, kind_of, mjai_name
from referee.games.riichi.yaku import YAKU_NAMES

__all__ = [
    "LIMIT_NAMES", "RYUUKYOKU_REASONS", "YAKU_NAMES", "Agari", "MjlogError", "MjlogEvent",
    "MjlogHeader", "Owari", "Player", "RoomRules", "Ryuukyoku", "decode_meld", "iter_mjlog",
    "read_mjlog_events",
]

LIMIT_NAMES = ("", "mangan", "haneman", "baiman", "sanbaiman", "yakuman")
"""The third number of AGARI ``ten``."""

RYUUKYOKU_REASONS: dict[str | None, str] = {
    None: "fanpai", "yao9": "kyushukyuhai", "kaze4": "sufonrenta", "reach4": "suchareach",
    "ron3": "sanchaho", "kan4": "sukaikan", "nm": "nagashimangan",
}
"""RYUUKYOKU ``type`` (absent for an exhaustive draw) to the original mjai reason."""

_ROOMS = {0x00: "ippan", 0x80: "joukyuu", 0x20: "tokujou", 0xA0: "houou"}
_DRAW: Final = re.compile(r"([TUVWtuvw])(\d+)")
_DISCARD: Final = re.compile(r"([DEFGdefg])(\d+)")
_MOVES: Final[dict[str, tuple[bool, int, int, bool]]] = {
    f"{letters[who]}{tile}": (letters.upper() == "DEFG", who, tile, letters.islower())
    for letters in ("TUVW", "tuvw", "DEFG", "defg") for who in range(4) for tile in range(TILES)}
"""The draw and discard tags written the usual way (``T52``, ``d7``): discard or draw,
seat, tile id, lower case (the others go through the patterns above)."""
_RED_NAMES: Final = tuple(mjai_name(t) for t in range(TILES))
_PLAIN_NAMES: Final = tuple(kind_name(kind_of(t)) for t in range(TILES))
_CHUNK: Final = 1 << 14


def _move_events(names: tuple[str, ...]) -> tuple[tuple[tuple[Tsumo, Dahai, Dahai], ...], ...]:
    """Per seat and tile id, its draw, its discard and its tsumogiri discard: events are
    immutable, so each is made once and shared (most elements of a log are these)."""
    return tuple(tuple((Tsumo(actor=who, pai=names[t]),
                        Dahai(actor=who, pai=names[t], tsumogiri=False),
                        Dahai(actor=who, pai=names[t], tsumogiri=True))
                       for t in range(TILES)) for who in range(4))


_RED_MOVES: Final = _move_events(_RED_NAMES)
_PLAIN_MOVES: Final = _move_events(_PLAIN_NAMES)
_SILENT: Final = frozenset({"SHUFFLE", "BYE", "FURITEN"})


class MjlogError(MjaiError):
    """A malformed mjlog: names the file, the element (counted from 1) and its tag."""

    def __init__(self, problem: str, *, source: str | None = None, index: int | None = None,
                 tag: str | None = None) -> None:
        self.index = index
        self.tag = tag
        where = None
        if index is not None:
            where = f"element {index}" + (f" <{tag}>" if tag else "")
        super().__init__(problem, source=source, where=where)


@dataclass(frozen=True, slots=True)
class RoomRules:
    """The rules a Tenhou room plays, from the ``GO type`` bit field."""

    code: int
    online: bool
    red_fives: bool
    kuitan: bool
    hanchan: bool
    sanma: bool
    fast: bool
    room: str
    lobby: int | None = None

    @classmethod
    def from_type(cls, code: int, lobby: int | None = None) -> RoomRules:
        """Decode a ``GO type`` value."""
        return cls(code=code, online=bool(code & 0x01), red_fives=not code & 0x02,
                   kuitan=not code & 0x04, hanchan=bool(code & 0x08), sanma=bool(code & 0x10),
                   fast=bool(code & 0x40), room=_ROOMS[code & 0xA0], lobby=lobby)


DEFAULT_RULES = RoomRules.from_type(0x09)
"""Assumed when a log has no GO element: online, red fives, open tanyao, east-south."""


@dataclass(frozen=True, slots=True)
class Player:
    """A seat's player as UN records it."""

    name: str
    dan: int | None = None
    rate: float | None = None
    sex: str | None = None


@dataclass(frozen=True, slots=True)
class MjlogHeader:
    """What the log says before the first kyoku."""

    version: str | None
    rules: RoomRules
    players: tuple[Player, ...] | None
    shuffle: str | None = None


@dataclass(frozen=True, slots=True)
class Owari:
    """The game's end: final scores (points, not hundreds) and the uma-adjusted results."""

    scores: tuple[int, ...]
    results: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class Agari:
    """An AGARI as recorded: the hand, the value and the payments (scores in points)."""

    who: int
    from_who: int
    hand: tuple[int, ...]
    """Closed tile ids, the winning tile included."""
    melds: tuple[Meld, ...]
    machi: int
    """The winning tile id."""
    fu: int
    points: int
    """The hand's value without honba and riichi sticks."""
    limit: int
    """0 none, 1 mangan, 2 haneman, 3 baiman, 4 sanbaiman, 5 yakuman (:data:`LIMIT_NAMES`)."""
    yaku: tuple[tuple[int, int], ...]
    """(Tenhou yaku id, han), dora included; empty for a yakuman."""
    yakuman: tuple[int, ...]
    dora_markers: tuple[int, ...]
    ura_markers: tuple[int, ...]
    honba: int
    kyotaku: int
    scores: tuple[int, ...]
    """Scores before the payment."""
    deltas: tuple[int, ...]
    pao: int | None = None
    owari: Owari | None = None

    @property
    def tsumo(self) -> bool:
        """Whether it is a self-drawn win."""
        return self.who == self.from_who

    @property
    def han(self) -> int:
        """The han of the yaku (dora included); 0 for a yakuman."""
        return sum(h for _, h in self.yaku)

    @property
    def yaku_names(self) -> tuple[str, ...]:
        """The names of the yaku and yakuman scored."""
        return tuple(name for name, _ in self.named_yaku)

    @property
    def named_yaku(self) -> tuple[tuple[str, int], ...]:
        """(name, han) of the yaku, then of the yakuman (13 han each)."""
        pairs = [*self.yaku, *((y, 13) for y in self.yakuman)]
        return tuple((YAKU_NAMES.get(y, f"yaku {y}"), h) for y, h in pairs)

    @property
    def limit_name(self) -> str:
        """``mangan`` and so on, or the empty string."""
        return LIMIT_NAMES[self.limit] if 0 <= self.limit < len(LIMIT_NAMES) else str(self.limit)


@dataclass(frozen=True, slots=True)
class Ryuukyoku:
    """A RYUUKYOKU as recorded (scores in points)."""

    kind: str | None
    """Tenhou's ``type`` (``yao9``, ``nm`` ...), None for an exhaustive draw."""
    reason: str
    honba: int
    kyotaku: int
    scores: tuple[int, ...]
    deltas: tuple[int, ...]
    hands: tuple[tuple[int, ...] | None, ...]
    """The hands shown, by seat (None where not shown)."""
    owari: Owari | None = None


class MjlogEvent:
    """One mjai event from a log, with what the log recorded beside it.

    A value (equal by its fields, not to be changed: the attributes are ``Final``), written
    out rather than a frozen dataclass because one is made per element read, where a frozen
    dataclass's ``__init__`` costs several times more (far more compiled).
    """

    __slots__ = ("agari", "event", "hands", "header", "index", "meld", "owari", "ryuukyoku",
                 "tag", "tile")

    def __init__(self, event: Event, tag: str, index: int, tile: int | None = None,
                 meld: Meld | None = None, hands: tuple[tuple[int, ...], ...] | None = None,
                 agari: Agari | None = None, ryuukyoku: Ryuukyoku | None = None,
                 header: MjlogHeader | None = None, owari: Owari | None = None) -> None:
        self.event: Final = event
        self.tag: Final = tag
        """The element it came from."""
        self.index: Final = index
        """That element's number in the file, from 1."""
        self.tile: Final = tile
        """Tile id: drawn, discarded, added to a kan, won on, a new dora indicator, or the
        first dora indicator of ``start_kyoku``."""
        self.meld: Final = meld
        self.hands: Final = hands
        """The dealt tile ids (``start_kyoku``)."""
        self.agari: Final = agari
        self.ryuukyoku: Final = ryuukyoku
        self.header: Final = header
        """On ``start_game``."""
        self.owari: Final = owari
        """On ``end_game``."""

    def _fields(self) -> tuple[Any, ...]:
        return (self.event, self.tag, self.index, self.tile, self.meld, self.hands,
                self.agari, self.ryuukyoku, self.header, self.owari)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MjlogEvent):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        names = ("event", "tag", "index", "tile", "meld", "hands", "agari", "ryuukyoku",
                 "header", "owari")
        return "MjlogEvent(" + ", ".join(
            f"{n}={v!r}" for n, v in zip(names, self._fields(), strict=True)) + ")"


# --- the reader ----------------------------------------------------------------------------

@dataclass
class _Kyoku:
    """The state of the kyoku being read."""

    last_draw: list[int | None] = field(default_factory=lambda: [None] * 4)
    ended: bool = False


class _Reader:
    """Turns mjlog elements into records, one element at a time."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.version: str | None = None
        self.rules = DEFAULT_RULES
        self.go_seen = False
        self.shuffle: str | None = None
        self.players: tuple[Player, ...] | None = None
        self.started = False
        self.kyoku: _Kyoku | None = None
        self.finished = False
        self.index = 0
        self.tag = ""
        self.tile_names = _RED_NAMES
        """The mjai name of each tile id under the room's rules."""
        self.moves = _RED_MOVES
        """The draw and discard events of each seat and tile id under the room's rules."""
        self.out: list[MjlogEvent] = []
        """The records of the elements read, until the caller takes them."""

    # helpers

    def error(self, problem: str) -> MjlogError:
        return MjlogError(problem, source=self.source, index=self.index, tag=self.tag)

    def attr(self, elem: Mapping[str, str], name: str) -> str:
        value = elem.get(name)
        if value is None:
            raise self.error(f"missing attribute {name!r}")
        return value

    def ints(self, elem: Mapping[str, str], name: str, count: int | None = None,
             optional: bool = False) -> tuple[int, ...]:
        text = elem.get(name)
        if text is None:
            if optional:
                return ()
            raise self.error(f"missing attribute {name!r}")
        try:
            values = tuple(int(x) for x in text.split(",")) if text.strip() else ()
        except ValueError:
            raise self.error(f"attribute {name!r} is not a list of integers: {text!r}") from None
        if count is not None and len(values) != count:
            raise self.error(f"attribute {name!r} has {len(values)} numbers, not {count}")
        return values

    def seat(self, elem: Mapping[str, str], name: str) -> int:
        (value,) = self.ints(elem, name, 1)
        if not 0 <= value <= 3:
            raise self.error(f"attribute {name!r} is not a seat 0-3: {value}")
        return value

    def tile_id(self, value: int) -> int:
        if not 0 <= value < TILES:
            raise self.error(f"tile id {value} is not 0-135")
        return value

    def name(self, tile: int) -> str:
        """The mjai name of a tile id under the room's rules (no red without red fives)."""
        return self.tile_names[tile]

    def names(self, tiles: tuple[int, ...] | list[int]) -> tuple[str, ...]:
        return tuple(self.name(t) for t in tiles)

    def emit(self, event: Event, **kw: Any) -> None:
        """Add the record of ``event`` (and what the element recorded beside it)."""
        self.out.append(MjlogEvent(event, self.tag, self.index, **kw))

    def in_kyoku(self) -> _Kyoku:
        if self.kyoku is None or self.finished:
            raise self.error("outside a kyoku")
        return self.kyoku

    def playing(self) -> _Kyoku:
        kyoku = self.in_kyoku()
        if kyoku.ended:
            raise self.error("after the kyoku ended")
        return kyoku

    # elements

    def element(self, tag: str, elem: Mapping[str, str]) -> None:
        """Read the element ``tag`` with the attributes ``elem``."""
        self.index += 1
        self.tag = tag
        if self.finished:
            raise self.error("after the end of the game")
        move = _MOVES.get(tag)
        if move is not None:
            discard, who, tile, lower = move
            if discard:
                self.discard(who, tile, lower)
            else:
                self.draw(who, tile)
        elif m := _DRAW.fullmatch(tag):
            self.draw("TUVW".index(m.group(1).upper()), int(m.group(2)))
        elif m := _DISCARD.fullmatch(tag):
            who = "DEFG".index(m.group(1).upper())
            self.discard(who, int(m.group(2)), m.group(1).islower())
        elif tag in _SILENT:
            if tag == "SHUFFLE":
                self.shuffle = elem.get("seed")
        elif tag == "GO":
            self.go(elem)
        elif tag == "UN":
            self.un(elem)
        elif tag == "TAIKYOKU":
            self.start_game()
        elif tag == "INIT":
            self.init(elem)
        elif tag == "N":
            self.call(elem)
        elif tag == "DORA":
            self.playing()
            (tile,) = self.ints(elem, "hai", 1)
            tile = self.tile_id(tile)
            self.emit(Dora(dora_marker=self.name(tile)), tile=tile)
        elif tag == "REACH":
            self.reach(elem)
        elif tag == "AGARI":
            self.agari(elem)
        elif tag == "RYUUKYOKU":
            self.ryuukyoku(elem)
        else:
            raise self.error("unknown element")

    def go(self, elem: Mapping[str, str]) -> None:
        (code,) = self.ints(elem, "type", 1)
        lobby = self.ints(elem, "lobby", 1, optional=True)
        self.rules = RoomRules.from_type(code, lobby[0] if lobby else None)
        self.tile_names = _RED_NAMES if self.rules.red_fives else _PLAIN_NAMES
        self.moves = _RED_MOVES if self.rules.red_fives else _PLAIN_MOVES
        if self.rules.sanma:
            raise self.error("a three-player game (not supported)")
        self.go_seen = True

    def un(self, elem: Mapping[str, str]) -> None:
        if self.players is not None or elem.get("dan") is None:
            return  # a reconnection
        names = [unquote(self.attr(elem, f"n{i}")) for i in range(4)]
        dans = self.ints(elem, "dan", 4, optional=True)
        rates_text = (elem.get("rate") or "").split(",")
        sexes = (elem.get("sx") or "").split(",")
        players = []
        for i, name in enumerate(names):
            try:
                rate = float(rates_text[i]) if i < len(rates_text) and rates_text[i] else None
            except ValueError:
                raise self.error(f"attribute 'rate' is not a list of numbers: {rates_text}") \
                    from None
            players.append(Player(name=name, dan=dans[i] if dans else None, rate=rate,
                                  sex=sexes[i] if i < len(sexes) and sexes[i] else None))
        self.players = tuple(players)

    def start_game(self) -> None:
        if self.started:
            if self.tag == "TAIKYOKU":
                raise self.error("a second TAIKYOKU")
            return
        self.started = True
        header = MjlogHeader(version=self.version, rules=self.rules, players=self.players,
                             shuffle=self.shuffle)
        names = tuple(p.name for p in self.players) if self.players else None
        self.emit(StartGame(names=names), header=header)

    def end_kyoku(self) -> None:
        if self.kyoku is not None:
            if not self.kyoku.ended:
                raise self.error("the kyoku before has no AGARI or RYUUKYOKU")
            self.emit(EndKyoku())
        self.kyoku = None

    def init(self, elem: Mapping[str, str]) -> None:
        self.start_game()
        self.end_kyoku()
        seed = self.ints(elem, "seed", 6)
        round_, honba, kyotaku, _, _, dora = seed
        if round_ < 0 or honba < 0 or kyotaku < 0:
            raise self.error(f"attribute 'seed' has a negative count: {seed}")
        dora = self.tile_id(dora)
        scores = tuple(100 * x for x in self.ints(elem, "ten", 4))
        oya = self.seat(elem, "oya")
        hands = []
        for i in range(4):
            hand = tuple(self.tile_id(t) for t in self.ints(elem, f"hai{i}", 13))
            hands.append(hand)
        self.kyoku = _Kyoku()
        event = StartKyoku(bakaze="ESWN"[(round_ // 4) % 4], dora_marker=self.name(dora),
                           kyoku=round_ % 4 + 1, honba=honba, kyotaku=kyotaku, oya=oya,
                           scores=scores, tehais=tuple(self.names(h) for h in hands))
        self.emit(event, tile=dora, hands=tuple(hands))

    def draw(self, who: int, tile: int) -> None:
        kyoku = self.playing()
        tile = self.tile_id(tile)
        kyoku.last_draw[who] = tile
        self.emit(self.moves[who][tile][0], tile=tile)

    def discard(self, who: int, tile: int, lower: bool) -> None:
        kyoku = self.playing()
        tile = self.tile_id(tile)
        tsumogiri = lower or kyoku.last_draw[who] == tile
        kyoku.last_draw[who] = None
        self.emit(self.moves[who][tile][2 if tsumogiri else 1], tile=tile)

    def call(self, elem: Mapping[str, str]) -> None:
        kyoku = self.playing()
        who = self.seat(elem, "who")
        (m,) = self.ints(elem, "m", 1)
        try:
            meld = decode_meld(m, who)
        except ValueError as exc:
            raise self.error(str(exc)) from None
        kyoku.last_draw[who] = None
        event: Event
        added: int | None = None
        if meld.type is MeldType.ANKAN:
            event = Ankan(actor=who, consumed=self.names(meld.tiles))
        elif meld.type is MeldType.KAKAN:
            added = meld.tiles[0] + ((m >> 5) & 3)
            pon = tuple(t for t in meld.tiles if t != added)
            event = Kakan(actor=who, pai=self.name(added), consumed=self.names(pon))
        else:
            assert meld.taken is not None and meld.target is not None
            consumed = self.names([t for t in meld.tiles if t != meld.taken])
            cls = {MeldType.CHI: Chi, MeldType.PON: Pon, MeldType.DAIMINKAN: Daiminkan}[meld.type]
            event = cls(actor=who, target=meld.target, pai=self.name(meld.taken),
                        consumed=consumed)
        self.emit(event, meld=meld, tile=added)

    def reach(self, elem: Mapping[str, str]) -> None:
        self.playing()
        who = self.seat(elem, "who")
        (step,) = self.ints(elem, "step", 1)
        if step == 1:
            self.emit(Reach(actor=who))
        elif step == 2:
            deltas = tuple(-1000 if i == who else 0 for i in range(4))
            ten = self.ints(elem, "ten", 4, optional=True)
            scores = tuple(100 * x for x in ten) if ten else None
            self.emit(ReachAccepted(actor=who, deltas=deltas, scores=scores))
        else:
            raise self.error(f"REACH step {step} is not 1 or 2")

    def payments(self, elem: Mapping[str, str]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        sc = self.ints(elem, "sc", 8)
        return tuple(100 * sc[2 * i] for i in range(4)), tuple(100 * sc[2 * i + 1]
                                                              for i in range(4))

    def owari(self, elem: Mapping[str, str]) -> Owari | None:
        text = elem.get("owari")
        if text is None:
            return None
        try:
            parts = [float(x) for x in text.split(",")]
        except ValueError:
            raise self.error(f"attribute 'owari' is not a list of numbers: {text!r}") from None
        if len(parts) != 8:
            raise self.error(f"attribute 'owari' has {len(parts)} numbers, not 8")
        return Owari(scores=tuple(round(100 * parts[2 * i]) for i in range(4)),
                     results=tuple(parts[2 * i + 1] for i in range(4)))

    def ba(self, elem: Mapping[str, str]) -> tuple[int, int]:
        honba, kyotaku = self.ints(elem, "ba", 2)
        return honba, kyotaku

    def agari(self, elem: Mapping[str, str]) -> None:
        kyoku = self.in_kyoku()
        who = self.seat(elem, "who")
        from_who = self.seat(elem, "fromWho")
        hand = tuple(self.tile_id(t) for t in self.ints(elem, "hai"))
        (machi,) = self.ints(elem, "machi", 1)
        machi = self.tile_id(machi)
        melds = []
        for m in self.ints(elem, "m", optional=True):
            try:
                melds.append(decode_meld(m, who))
            except ValueError as exc:
                raise self.error(str(exc)) from None
        fu, points, limit = self.ints(elem, "ten", 3)
        raw_yaku = self.ints(elem, "yaku", optional=True)
        if len(raw_yaku) % 2:
            raise self.error("attribute 'yaku' is not a list of (yaku, han) pairs")
        yaku = tuple(zip(raw_yaku[::2], raw_yaku[1::2], strict=True))
        yakuman = self.ints(elem, "yakuman", optional=True)
        if not yaku and not yakuman:
            raise self.error("neither 'yaku' nor 'yakuman'")
        dora = tuple(self.tile_id(t) for t in self.ints(elem, "doraHai"))
        ura = tuple(self.tile_id(t) for t in self.ints(elem, "doraHaiUra", optional=True))
        honba, kyotaku = self.ba(elem)
        scores, deltas = self.payments(elem)
        pao = self.ints(elem, "paoWho", 1, optional=True)
        owari = self.owari(elem)
        agari = Agari(who=who, from_who=from_who, hand=hand, melds=tuple(melds), machi=machi,
                      fu=fu, points=points, limit=limit, yaku=yaku, yakuman=yakuman,
                      dora_markers=dora, ura_markers=ura, honba=honba, kyotaku=kyotaku,
                      scores=scores, deltas=deltas, pao=pao[0] if pao else None, owari=owari)
        fan = agari.han if yaku else 13 * len(yakuman)
        event = Hora(actor=who, target=from_who, pai=self.name(machi), deltas=deltas,
                     ura_markers=self.names(ura) if ura else None, fu=fu, fan=fan,
                     hora_points=points, pao=pao[0] if pao else None, yakus=agari.named_yaku,
                     scores=tuple(s + d for s, d in zip(scores, deltas, strict=True)))
        kyoku.ended = True
        self.emit(event, tile=machi, agari=agari)
        self.finish(owari)

    def ryuukyoku(self, elem: Mapping[str, str]) -> None:
        kyoku = self.playing()
        kind = elem.get("type")
        if kind not in RYUUKYOKU_REASONS:
            raise self.error(f"unknown draw type {kind!r}")
        reason = RYUUKYOKU_REASONS[kind]
        honba, kyotaku = self.ba(elem)
        scores, deltas = self.payments(elem)
        hands = tuple(
            tuple(self.tile_id(t) for t in self.ints(elem, f"hai{i}"))
            if elem.get(f"hai{i}") is not None else None
            for i in range(4))
        owari = self.owari(elem)
        record = Ryuukyoku(kind=kind, reason=reason, honba=honba, kyotaku=kyotaku,
                           scores=scores, deltas=deltas, hands=hands, owari=owari)
        event = Ryukyoku(reason=reason, deltas=deltas,
                         scores=tuple(s + d for s, d in zip(scores, deltas, strict=True)))
        kyoku.ended = True
        self.emit(event, ryuukyoku=record)
        self.finish(owari)

    def finish(self, owari: Owari | None) -> None:
        if owari is None:
            return
        self.end_kyoku()
        self.finished = True
        self.emit(EndGame(), owari=owari)

    def close(self) -> None:
        """At the end of the file: end the last kyoku if it ended (a log may stop between
        kyoku); a kyoku cut off is left as it stops (no ``end_kyoku``)."""
        self.tag = "/mjloggm"
        if self.kyoku is not None and not self.finished:
            if self.kyoku.ended:
                self.emit(EndKyoku())
            self.kyoku = None


def iter_mjlog(source: str | Path | bytes | IO[bytes], *,
               name: str | None = None) -> Iterator[MjlogEvent]:
    """Stream the records of an mjlog: a path or the bytes of one (plain or gzip), or an open
    binary stream. Memory stays flat: each element is dropped once read."""
    if isinstance(source, (str, Path)):
        label = name or str(source)
        with open_log(source) as stream:
            yield from _parse(stream, label)
    elif isinstance(source, bytes):
        data: IO[bytes] = io.BytesIO(source)
        if source[:2] == GZIP_MAGIC:
            data = cast(IO[bytes], gzip.GzipFile(fileobj=data, mode="rb"))
        yield from _parse(data, name or "<bytes>")
    else:
        yield from _parse(source, name or str(getattr(source, "name", "<stream>")))


class _Elements:
    """An ``XMLParser`` target keeping the root's tag and version and each element inside
    the root (its tag and attributes) as it ends; deeper elements are left out."""

    def __init__(self) -> None:
        self.depth = 0
        self.root: str | None = None
        self.version: str | None = None
        self.open: tuple[str, dict[str, str]] = ("", {})
        self.items: list[tuple[str, dict[str, str]]] = []

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        """An element starts."""
        self.depth += 1
        if self.depth == 2:
            self.open = (tag, attrib)
        elif self.depth == 1:
            self.root = tag
            self.version = attrib.get("ver")

    def end(self, tag: str) -> None:
        """An element ends."""
        if self.depth == 2:
            self.items.append(self.open)
        self.depth -= 1

    def close(self) -> None:
        """The document ends."""


def _parse(stream: IO[bytes], source: str) -> Iterator[MjlogEvent]:
    """The records of the mjlog in ``stream``, read a chunk at a time; everything before a
    problem in the file is read (and a problem it holds reported) before that problem."""
    reader = _Reader(source)
    elements = _Elements()
    parser = ElementTree.XMLParser(target=elements)
    try:
        while True:
            chunk = stream.read(_CHUNK)
            failure: ElementTree.ParseError | None = None
            try:
                if chunk:
                    parser.feed(chunk)
                else:
                    parser.close()
            except ElementTree.ParseError as exc:
                failure = exc
            if elements.root is not None and elements.root != "mjloggm":
                raise MjlogError(f"the root element is <{elements.root}>, not <mjloggm>",
                                 source=source)
            reader.version = elements.version
            out = reader.out
            for tag, attrib in elements.items:
                reader.element(tag, attrib)
                yield from out
                out.clear()
            elements.items.clear()
            if failure is not None:
                raise failure
            if not chunk:
                break
        if elements.root is None:
            raise MjlogError("no <mjloggm> element", source=source)
    except ElementTree.ParseError as exc:
        line, column = exc.position
        raise MjlogError(f"malformed XML at line {line}, column {column + 1}: {exc}",
                         source=source, index=reader.index + 1) from None
    except (EOFError, OSError, zlib.error) as exc:
        raise MjlogError(f"cannot read the file: {exc}", source=source,
                         index=reader.index + 1) from None
    reader.close()
    yield from reader.out


def read_mjlog_events(source: str | Path | bytes) -> Iterator[Event]:
    """Just the mjai events of an mjlog."""
    for record in iter_mjlog(source):
        yield record.event
