"""The integer encodings of kanachan's training format, each with its decoder.

Every feature of an annotation line (kanachan's training data format (docs/training.md)) is
built here from plain values (mjai tile names, seats, counts) and read back: for each
encoder ``decode(encode(x)) == x``, and every value stays inside the spec's range
(sparse features < :data:`SPARSE_PADDING` 526, progression < :data:`PROGRESSION_PADDING`
2165, options < :data:`OPTION_VALUE` 546). Encoders raise :class:`EncodingError` (a
``ValueError``) for what the format cannot express, naming it; decoders raise it for an
integer outside the range.

Tiles, as the spec numbers them:

- ``tile`` (0..36): ``0m`` (the red five of man) 0, ``1m``..``9m`` 1..9, ``0p`` 10,
  ``1p``..``9p`` 11..19, ``0s`` 20, ``1s``..``9s`` 21..29, East..Red dragon 30..36.
  Tiles are passed and returned as mjai names (``5mr`` the red five, ``E S W N P F C``).
- ``kind`` (0..33): the 34 kinds without red (closed kans).

Seats in the format count from the game's first dealer (seat 0); a ``relseat`` is the other
player's place as seen from the player of interest: 0 the right neighbour (shimocha), 1 the
player across (toimen), 2 the left neighbour (kamicha).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from referee.games.riichi.tiles import kind_name, parse_mjai

__all__ = [
    "NUMERIC_SIZE",
    "OPTION_PADDING",
    "OPTION_VALUE",
    "PROGRESSION_PADDING",
    "RESULT_SIZE",
    "SPARSE_PADDING",
    "EncodingError",
    "Move",
    "Situation",
    "chi_code",
    "decode_chi",
    "decode_hand",
    "decode_option",
    "decode_pon",
    "decode_progression",
    "decode_sparse",
    "decode_tile",
    "encode_hand",
    "encode_option",
    "encode_progression",
    "encode_sparse",
    "encode_tile",
    "option_value",
    "outcome_code",
    "pon_code",
    "progression_value",
    "relseat",
]

SPARSE_PADDING: Final = 526
PROGRESSION_PADDING: Final = 2165
OPTION_VALUE: Final = 546
OPTION_PADDING: Final = 547
NUMERIC_SIZE: Final = 6
RESULT_SIZE: Final = 12

# sparse feature offsets
ROOM: Final = 0
STYLE: Final = 5
SEAT: Final = 7
WIND: Final = 11
ROUND: Final = 14
DORA: Final = (18, 55, 92, 129, 166)
LEFT: Final = 203
GRADE: Final = (273, 293, 313, 333)
RANK: Final = (289, 309, 329, 349)
HAND: Final = 353
DRAWN: Final = 489
MAX_LEFT: Final = 69
ROOMS: Final = 5
GRADES: Final = 16

# progression offsets
BEGIN: Final = 0
P_DAHAI: Final = 5
P_CHI: Final = 597
P_PON: Final = 957
P_DAIMINKAN: Final = 1437
P_ANKAN: Final = 1881
P_KAKAN: Final = 2017

# option offsets
O_DAHAI: Final = 0
O_ANKAN: Final = 148
O_KAKAN: Final = 182
O_TSUMO: Final = 219
O_KYUUSHU: Final = 220
O_SKIP: Final = 221
O_CHI: Final = 222
O_PON: Final = 312
O_DAIMINKAN: Final = 432
O_RON: Final = 543


class EncodingError(ValueError):
    """A value the training format cannot express, or an integer outside its range."""


# ------------------------------------------------------------------------------ tiles

_HONOR_NAMES: Final = tuple(kind_name(k) for k in range(27, 34))
_TILE_NAMES: Final = tuple(
    [f"5{s}r" if r == 0 else f"{r}{s}" for s in "mps" for r in range(10)]
    + list(_HONOR_NAMES))
_TILE_OF: Final = {name: i for i, name in enumerate(_TILE_NAMES)}


def encode_tile(name: str) -> int:
    """The spec's tile number 0..36 of an mjai tile name."""
    try:
        return _TILE_OF[name]
    except KeyError:
        raise EncodingError(f"{name!r} is not an mjai tile name") from None


def decode_tile(value: int) -> str:
    """The mjai name of a tile number 0..36."""
    if not 0 <= value < len(_TILE_NAMES):
        raise EncodingError(f"tile number {value} is not 0..36")
    return _TILE_NAMES[value]


def _kind(name: str) -> int:
    try:
        return parse_mjai(name)[0]
    except ValueError as exc:
        raise EncodingError(str(exc)) from None


def relseat(seat: int, other: int) -> int:
    """Where ``other`` sits seen from ``seat``: 0 right, 1 across, 2 left."""
    rel = (other - seat) % 4 - 1
    if rel < 0:
        raise EncodingError(f"seat {other} is the player of interest itself")
    return rel


# ------------------------------------------------------------------------------ hands

def _hand_layout() -> tuple[dict[str, tuple[int, int]], tuple[str, ...]]:
    """Per tile name, its first hand slot (offset from 353) and its number of slots; and
    the name of every slot."""
    first: dict[str, tuple[int, int]] = {}
    names: list[str] = []
    for suit in "mps":
        first[f"5{suit}r"] = (len(names), 1)
        names.append(f"5{suit}r")
        for rank in range(1, 10):
            copies = 3 if rank == 5 else 4
            first[f"{rank}{suit}"] = (len(names), copies)
            names.extend([f"{rank}{suit}"] * copies)
    for honor in _HONOR_NAMES:
        first[honor] = (len(names), 4)
        names.extend([honor] * 4)
    return first, tuple(names)


_HAND_FIRST, _HAND_SLOT_NAMES = _hand_layout()


def encode_hand(names: Iterable[str]) -> list[int]:
    """The sparse features (353..488, ascending) of a hand given as mjai names: the red
    five of a suit its own slot, the n-th copy of any other tile the n-th slot of its
    kind (a suit's plain fives have three slots)."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    out: list[int] = []
    for name, count in counts.items():
        slot = _HAND_FIRST.get(name)
        if slot is None:
            raise EncodingError(f"{name!r} is not an mjai tile name")
        start, room = slot
        if count > room:
            raise EncodingError(f"{count} copies of {name} in a hand: the format has room "
                                f"for {room} (red fives are their own tiles)")
        out.extend(range(HAND + start, HAND + start + count))
    out.sort()
    return out


def decode_hand(values: Iterable[int]) -> list[str]:
    """The mjai names of hand features 353..488, in slot order."""
    out = []
    for v in values:
        if not HAND <= v < DRAWN:
            raise EncodingError(f"hand feature {v} is not 353..488")
        out.append(_HAND_SLOT_NAMES[v - HAND])
    return out


# ------------------------------------------------------------------------------ calls

def _chi_table() -> tuple[tuple[int, int, int], ...]:
    """The 30 chows of one suit as (hand tile, hand tile, called tile), in suit numbers
    (0 the red five), in the spec's order: by called tile, then by the lower tile, the
    red five right after its plain twin."""
    out: list[tuple[int, int, int]] = []
    for called in range(1, 10):
        for low in (called - 2, called - 1, called):
            ranks = [r for r in (low, low + 1, low + 2) if r != called]
            if low < 1 or low + 2 > 9:
                continue
            variants = [tuple(ranks)]
            if 5 in ranks:
                variants.append(tuple(0 if r == 5 else r for r in ranks))
            for a, b in variants:
                out.append((a, b, called))
                if called == 5:
                    out.append((a, b, 0))
    return tuple(out)


_CHI: Final = _chi_table()


def _suit_number(name: str) -> tuple[int, int]:
    """(suit 0..2, number 0..9 with 0 the red five) of a suited tile name."""
    t = encode_tile(name)
    if t >= 30:
        raise EncodingError(f"{name} is an honor: it cannot be in a chow")
    return divmod(t, 10)


def _key(pair: Sequence[int]) -> tuple[int, int]:
    a, b = sorted(pair, key=lambda r: 5 if r == 0 else r)
    return a, b


_CHI_OF: Final = {(_key(c[:2]), c[2]): i for i, c in enumerate(_CHI)}


def chi_code(consumed: Sequence[str], called: str) -> int:
    """The chow number 0..89 of a chi: the two tiles from the hand and the called one."""
    if len(consumed) != 2:
        raise EncodingError(f"a chow takes two tiles from the hand, not {list(consumed)}")
    parts = [_suit_number(n) for n in (*consumed, called)]
    suit = parts[2][0]
    if any(p[0] != suit for p in parts):
        raise EncodingError(f"{list(consumed)} and {called} are not of one suit")
    code = _CHI_OF.get((_key([parts[0][1], parts[1][1]]), parts[2][1]))
    if code is None:
        raise EncodingError(f"{list(consumed)} and {called} are not a chow")
    return suit * 30 + code


def decode_chi(code: int) -> tuple[tuple[str, str], str]:
    """The two hand tiles (lower first) and the called tile of chow number 0..89."""
    if not 0 <= code < 90:
        raise EncodingError(f"chow number {code} is not 0..89")
    suit, i = divmod(code, 30)
    a, b, c = _CHI[i]
    s = suit * 10
    return (decode_tile(s + a), decode_tile(s + b)), decode_tile(s + c)


def _pon_table() -> tuple[tuple[int, int], ...]:
    """The 40 pons as (kind 0..33, variant): 0 no red five, 1 a red five from the hand,
    2 the red five called."""
    out: list[tuple[int, int]] = []
    for kind in range(34):
        out.append((kind, 0))
        if kind in (4, 13, 22):
            out.extend([(kind, 1), (kind, 2)])
    return tuple(out)


_PON: Final = _pon_table()
_PON_OF: Final = {p: i for i, p in enumerate(_PON)}


def pon_code(consumed: Sequence[str], called: str) -> int:
    """The pon number 0..39 of a pon: the two tiles from the hand and the called one."""
    if len(consumed) != 2:
        raise EncodingError(f"a pon takes two tiles from the hand, not {list(consumed)}")
    kinds = {_kind(n) for n in (*consumed, called)}
    if len(kinds) != 1:
        raise EncodingError(f"{list(consumed)} and {called} are not three of a kind")
    red_hand = sum(n.endswith("r") for n in consumed)
    red_called = called.endswith("r")
    if red_hand + red_called > 1:
        raise EncodingError(f"two red fives in a pon: {list(consumed)} and {called}")
    variant = 1 if red_hand else 2 if red_called else 0
    return _PON_OF[(kinds.pop(), variant)]


def decode_pon(code: int) -> tuple[tuple[str, str], str]:
    """The two hand tiles (the red five first) and the called tile of pon number 0..39."""
    if not 0 <= code < len(_PON):
        raise EncodingError(f"pon number {code} is not 0..39")
    kind, variant = _PON[code]
    plain = kind_name(kind)
    red = plain + "r"
    if variant == 1:
        return (red, plain), plain
    if variant == 2:
        return (plain, plain), red
    return (plain, plain), plain


# ------------------------------------------------------------------------------ moves

@dataclass(frozen=True, slots=True)
class Move:
    """One progression event or option, decoded.

    ``kind``: ``begin`` (the round starts), ``dahai``, ``chi``, ``pon``, ``daiminkan``,
    ``ankan``, ``kakan``, and, as options only, ``tsumo`` (a win on one's own draw),
    ``kyuushu`` (nine terminals), ``skip`` and ``ron``. ``seat``: the mover (progression
    events; None in options). ``tile``: the discarded, called or added tile (an ankan: its
    kind, plain name). ``consumed``: a chi's or pon's two tiles from the hand (in the order
    :func:`decode_chi` / :func:`decode_pon` give). ``tsumogiri`` and ``riichi``: a
    discard's bits. ``rel``: where the discarder sits seen from the caller (pon,
    daiminkan, ron)."""

    kind: str
    seat: int | None = None
    tile: str | None = None
    consumed: tuple[str, ...] = ()
    tsumogiri: bool = False
    riichi: bool = False
    rel: int | None = None


def _named(kind: str, tile: str | None) -> str:
    if tile is None:
        raise EncodingError(f"a {kind} needs its tile")
    return tile


def _relative(kind: str, rel: int | None) -> int:
    if rel is None or not 0 <= rel < 3:
        raise EncodingError(f"a {kind} needs rel 0..2, not {rel!r}")
    return rel


def _call_code(kind: str, tile: str | None, consumed: Sequence[str]) -> int:
    called = _named(kind, tile)
    return chi_code(consumed, called) if kind == "chi" else pon_code(consumed, called)


def _dahai_bits(tile: str | None, tsumogiri: bool, riichi: bool) -> int:
    return encode_tile(_named("dahai", tile)) * 4 + tsumogiri * 2 + riichi


def progression_value(kind: str, seat: int | None, tile: str | None = None,
                      consumed: Sequence[str] = (), *, tsumogiri: bool = False,
                      riichi: bool = False, rel: int | None = None) -> int:
    """The progression feature (0..2164) of a round event given by its parts (as
    :class:`Move` names them; an ankan's ``tile`` is any tile of its kind)."""
    if kind == "begin":
        return BEGIN
    if seat is None or not 0 <= seat < 4:
        raise EncodingError(f"a progression event needs a seat 0..3, not {seat!r}")
    if kind == "dahai":
        return P_DAHAI + seat * 148 + _dahai_bits(tile, tsumogiri, riichi)
    if kind == "chi":
        return P_CHI + seat * 90 + _call_code(kind, tile, consumed)
    if kind == "pon":
        return P_PON + seat * 120 + _relative(kind, rel) * 40 + \
            _call_code(kind, tile, consumed)
    if kind == "daiminkan":
        return P_DAIMINKAN + seat * 111 + _relative(kind, rel) * 37 + \
            encode_tile(_named(kind, tile))
    if kind == "ankan":
        return P_ANKAN + seat * 34 + _kind(_named(kind, tile))
    if kind == "kakan":
        return P_KAKAN + seat * 37 + encode_tile(_named(kind, tile))
    raise EncodingError(f"no progression feature for {kind!r}")


def encode_progression(move: Move) -> int:
    """The progression feature (0..2164) of a round event."""
    return progression_value(move.kind, move.seat, move.tile, move.consumed,
                             tsumogiri=move.tsumogiri, riichi=move.riichi, rel=move.rel)


def decode_progression(value: int) -> Move:
    """The round event of a progression feature 0..2164."""
    if value == BEGIN:
        return Move("begin")
    if P_DAHAI <= value < P_CHI:
        seat, rest = divmod(value - P_DAHAI, 148)
        tile, bits = divmod(rest, 4)
        return Move("dahai", seat, decode_tile(tile), tsumogiri=bool(bits & 2),
                    riichi=bool(bits & 1))
    if P_CHI <= value < P_PON:
        seat, code = divmod(value - P_CHI, 90)
        consumed, called = decode_chi(code)
        return Move("chi", seat, called, consumed, rel=2)
    if P_PON <= value < P_DAIMINKAN:
        seat, rest = divmod(value - P_PON, 120)
        rel, code = divmod(rest, 40)
        consumed, called = decode_pon(code)
        return Move("pon", seat, called, consumed, rel=rel)
    if P_DAIMINKAN <= value < P_ANKAN:
        seat, rest = divmod(value - P_DAIMINKAN, 111)
        rel, tile = divmod(rest, 37)
        return Move("daiminkan", seat, decode_tile(tile), rel=rel)
    if P_ANKAN <= value < P_KAKAN:
        seat, kind = divmod(value - P_ANKAN, 34)
        return Move("ankan", seat, kind_name(kind))
    if P_KAKAN <= value < PROGRESSION_PADDING:
        seat, tile = divmod(value - P_KAKAN, 37)
        return Move("kakan", seat, decode_tile(tile))
    raise EncodingError(f"progression feature {value} is not 0 or 5..2164")


def option_value(kind: str, tile: str | None = None, consumed: Sequence[str] = (), *,
                 tsumogiri: bool = False, riichi: bool = False, rel: int | None = None) -> int:
    """The option feature (0..545) of a candidate action given by its parts (as
    :class:`Move` names them; an ankan's ``tile`` is any tile of its kind)."""
    if kind == "dahai":
        return O_DAHAI + _dahai_bits(tile, tsumogiri, riichi)
    if kind == "ankan":
        return O_ANKAN + _kind(_named(kind, tile))
    if kind == "kakan":
        return O_KAKAN + encode_tile(_named(kind, tile))
    if kind == "tsumo":
        return O_TSUMO
    if kind == "kyuushu":
        return O_KYUUSHU
    if kind == "skip":
        return O_SKIP
    if kind == "chi":
        return O_CHI + _call_code(kind, tile, consumed)
    if kind == "pon":
        return O_PON + _relative(kind, rel) * 40 + _call_code(kind, tile, consumed)
    if kind == "daiminkan":
        return O_DAIMINKAN + _relative(kind, rel) * 37 + encode_tile(_named(kind, tile))
    if kind == "ron":
        return O_RON + _relative(kind, rel)
    raise EncodingError(f"no option feature for {kind!r}")


def encode_option(move: Move) -> int:
    """The option feature (0..545) of a candidate action (``seat`` is ignored)."""
    return option_value(move.kind, move.tile, move.consumed, tsumogiri=move.tsumogiri,
                        riichi=move.riichi, rel=move.rel)


def decode_option(value: int) -> Move:
    """The candidate action of an option feature 0..545."""
    if O_DAHAI <= value < O_ANKAN:
        tile, bits = divmod(value, 4)
        return Move("dahai", tile=decode_tile(tile), tsumogiri=bool(bits & 2),
                    riichi=bool(bits & 1))
    if O_ANKAN <= value < O_KAKAN:
        return Move("ankan", tile=kind_name(value - O_ANKAN))
    if O_KAKAN <= value < O_TSUMO:
        return Move("kakan", tile=decode_tile(value - O_KAKAN))
    if value in (O_TSUMO, O_KYUUSHU, O_SKIP):
        return Move({O_TSUMO: "tsumo", O_KYUUSHU: "kyuushu", O_SKIP: "skip"}[value])
    if O_CHI <= value < O_PON:
        consumed, called = decode_chi(value - O_CHI)
        return Move("chi", tile=called, consumed=consumed, rel=2)
    if O_PON <= value < O_DAIMINKAN:
        rel, code = divmod(value - O_PON, 40)
        consumed, called = decode_pon(code)
        return Move("pon", tile=called, consumed=consumed, rel=rel)
    if O_DAIMINKAN <= value < O_RON:
        rel, tile = divmod(value - O_DAIMINKAN, 37)
        return Move("daiminkan", tile=decode_tile(tile), rel=rel)
    if O_RON <= value < OPTION_VALUE:
        return Move("ron", rel=value - O_RON)
    raise EncodingError(f"option feature {value} is not 0..545")


# ------------------------------------------------------------------------------ sparse

@dataclass(frozen=True, slots=True)
class Situation:
    """The sparse features of a decision point, decoded.

    ``room`` 0..4 (Bronze .. Throne), ``east`` (a quarter-length game, else half-length),
    ``seat`` 0..3, ``wind`` 0..2 (East, South, West), ``round`` 0..3, ``doras`` the dora
    indicators shown (1..5 mjai names), ``left`` tiles left to draw (0..69), ``grades``
    (0..15) and ``ranks`` (0..3) of the seat and of its right neighbour, the player across
    and its left neighbour, ``hand`` the hand's tiles (mjai names, in slot order) and
    ``drawn`` the drawn tile, if the point follows one's own draw."""

    room: int
    east: bool
    seat: int
    wind: int
    round: int
    doras: tuple[str, ...]
    left: int
    grades: tuple[int, ...]
    ranks: tuple[int, ...]
    hand: tuple[str, ...]
    drawn: str | None = None


def _check(name: str, value: int, limit: int) -> int:
    if not 0 <= value < limit:
        raise EncodingError(f"{name} {value} is not 0..{limit - 1}")
    return value


def encode_sparse(s: Situation) -> list[int]:
    """The sparse features of a situation, in the spec's order (the hand ascending)."""
    if not 1 <= len(s.doras) <= 5:
        raise EncodingError(f"{len(s.doras)} dora indicators: the format takes 1 to 5")
    if len(s.grades) != 4 or len(s.ranks) != 4:
        raise EncodingError("grades and ranks are given for four players")
    out = [ROOM + _check("room", s.room, ROOMS), STYLE + (0 if s.east else 1),
           SEAT + _check("seat", s.seat, 4), WIND + _check("round wind", s.wind, 3),
           ROUND + _check("round", s.round, 4)]
    out.extend(DORA[i] + encode_tile(d) for i, d in enumerate(s.doras))
    out.append(LEFT + _check("tiles left", s.left, MAX_LEFT + 1))
    for i in range(4):
        out.append(GRADE[i] + _check("grade", s.grades[i], GRADES))
        out.append(RANK[i] + _check("rank", s.ranks[i], 4))
    out.extend(encode_hand(s.hand))
    if s.drawn is not None:
        out.append(DRAWN + encode_tile(s.drawn))
    return out


def decode_sparse(values: Sequence[int]) -> Situation:
    """The situation of a list of sparse features (in any order)."""
    fields: dict[str, int] = {}
    doras: dict[int, str] = {}
    grades = [-1] * 4
    ranks = [-1] * 4
    hand: list[int] = []
    drawn: str | None = None
    for v in values:
        if not 0 <= v < SPARSE_PADDING:
            raise EncodingError(f"sparse feature {v} is not 0..525")
        if v < STYLE:
            fields["room"] = v - ROOM
        elif v < SEAT:
            fields["east"] = v == STYLE
        elif v < WIND:
            fields["seat"] = v - SEAT
        elif v < ROUND:
            fields["wind"] = v - WIND
        elif v < DORA[0]:
            fields["round"] = v - ROUND
        elif v < LEFT:
            i, tile = divmod(v - DORA[0], 37)
            doras[i] = decode_tile(tile)
        elif v < GRADE[0]:
            fields["left"] = v - LEFT
        elif v < HAND:
            i, rest = divmod(v - GRADE[0], 20)
            if rest < GRADES:
                grades[i] = rest
            else:
                ranks[i] = rest - GRADES
        elif v < DRAWN:
            hand.append(v)
        else:
            drawn = decode_tile(v - DRAWN)
    missing = [k for k in ("room", "east", "seat", "wind", "round", "left") if k not in fields]
    if missing or -1 in grades or -1 in ranks or sorted(doras) != list(range(len(doras))) \
            or not doras:
        raise EncodingError(f"incomplete sparse features (missing: "
                            f"{', '.join(missing) or 'grades, ranks or doras'})")
    return Situation(room=fields["room"], east=bool(fields["east"]), seat=fields["seat"],
                     wind=fields["wind"], round=fields["round"],
                     doras=tuple(doras[i] for i in range(len(doras))), left=fields["left"],
                     grades=tuple(grades), ranks=tuple(ranks),
                     hand=tuple(decode_hand(sorted(hand))), drawn=drawn)


# ------------------------------------------------------------------------------ results

def outcome_code(seat: int, winners: Sequence[int], target: int | None, tsumo: bool,
                 reason: str, tenpai: bool) -> int:
    """The end-of-round result 0..18 seen from ``seat``: ``winners`` in the order they
    were paid (the first nearest the discarder), ``target`` the discarder, ``reason`` a
    :class:`~referee.games.riichi.rules.KyokuResult` reason, ``tenpai`` the seat's at an
    exhaustive draw. A seat among several winners has its own win's code; other seats see
    the first winner's."""
    if reason != "hora":
        if reason in ("fanpai", "nagashimangan"):
            return 17 if tenpai else 16
        return 18
    if not winners:
        raise EncodingError("a win with no winner")
    if tsumo:
        winner = winners[0]
        return 0 if winner == seat else 1 + relseat(seat, winner)
    if target is None:
        raise EncodingError("a ron with no discarder")
    if seat in winners:
        return 4 + relseat(seat, target)
    winner = winners[0]
    if target == seat:
        return 7 + relseat(seat, winner)
    w, d = relseat(seat, winner), relseat(seat, target)
    return 10 + 2 * w + (d if d < w else d - 1)
