"""What a seat of ICGA Mahjong is asked and may answer: the questions (:class:`Ask`), the
answers (:data:`Action`: :class:`Throw`, :class:`Eat`, :class:`Pong`, :class:`Kong`,
:class:`ConcealedKong`, :class:`PromotedKong`, :class:`Hu`, :class:`Pass`) in the
client's words (:func:`notation`), every answer to a question (:func:`options`), and
:class:`SeatView`, one seat's knowledge (the bots' input).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from referee.games.mahjong.melds import Meld, MeldKind
from referee.games.mahjong.tiles import KINDS, counts_of, kind_of

__all__ = [
    "Action",
    "Ask",
    "ConcealedKong",
    "Eat",
    "Hu",
    "Kong",
    "Pass",
    "Pong",
    "PromotedKong",
    "SeatView",
    "Throw",
    "chows",
    "notation",
    "options",
    "self_kongs",
    "tiles_of",
]


class Ask(enum.Enum):
    """What a seat is asked (the protocol's ``/ask`` words)."""

    THROW = "throw"
    HU = "hu"
    GONG = "gong"
    PONG = "pong"
    EAT = "eat"


# -------------------------------------------------------------------------------- actions


@dataclass(frozen=True, slots=True)
class Throw:
    """Discard ``tile``."""

    tile: int


@dataclass(frozen=True, slots=True)
class Eat:
    """Chow the discard with two tiles from the hand."""

    a: int
    b: int


@dataclass(frozen=True, slots=True)
class Pong:
    """Pung the discard with two tiles from the hand."""

    a: int
    b: int


@dataclass(frozen=True, slots=True)
class Kong:
    """Melded kong: the discard and three tiles from the hand (ICGA ``/gong 4``)."""

    a: int
    b: int
    c: int


@dataclass(frozen=True, slots=True)
class ConcealedKong:
    """Four tiles of a kind from the hand (ICGA ``/gong 0``)."""

    a: int
    b: int
    c: int
    d: int


@dataclass(frozen=True, slots=True)
class PromotedKong:
    """Add ``tile`` to a pung on the table (ICGA ``/gong 1``)."""

    tile: int


@dataclass(frozen=True, slots=True)
class Hu:
    """Win (on the discard, the robbed kong tile, or one's own draw)."""


@dataclass(frozen=True, slots=True)
class Pass:
    """Decline what was asked."""


Action = Throw | Eat | Pong | Kong | ConcealedKong | PromotedKong | Hu | Pass


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's knowledge, enough to answer a question: the bots' input."""

    seat: int
    hand: tuple[int, ...]
    melds: tuple[Meld, ...]
    drawn: int | None
    discard: int | None
    ask: Ask | None
    live: int = 1

    def options(self) -> list[Action]:
        """The answers to this seat's question (empty if it has none)."""
        if self.ask is None:
            return []
        return options(self.ask, self.hand, self.melds, self.discard, self.live)


def chows(hand: Sequence[int], kind: int) -> list[tuple[int, int]]:
    """Pairs of tiles from ``hand`` (the lowest copy of each kind) that chow with ``kind``."""
    if kind >= 27:
        return []
    suit, rank = divmod(kind, 9)
    first: dict[int, int] = {}
    for t in sorted(hand):
        first.setdefault(kind_of(t), t)
    out = []
    for low in (rank - 2, rank - 1, rank):
        if low < 0 or low + 2 > 8:
            continue
        others = [suit * 9 + r for r in range(low, low + 3) if r != rank]
        if all(k in first for k in others):
            out.append((first[others[0]], first[others[1]]))
    return out


def self_kongs(hand: Sequence[int], melds: Sequence[Meld]) -> list[Action]:
    """The concealed and promoted kongs a hand can declare on its own turn."""
    counts = counts_of(hand)
    out: list[Action] = []
    for kind in range(KINDS):
        if counts[kind] == 4:
            out.append(ConcealedKong(*sorted(t for t in hand if kind_of(t) == kind)))
    for meld in melds:
        if meld.kind is MeldKind.PUNG:
            out.extend(PromotedKong(t) for t in hand if kind_of(t) == meld.base)
    return out


def options(ask: Ask, hand: Sequence[int], melds: Sequence[Meld], discard: int | None,
            live: int = 1) -> list[Action]:
    """Every answer to ``ask`` for a seat holding ``hand`` and ``melds``; ``discard`` is the
    tile open to claims (None on one's own turn); no kong when ``live`` is 0."""
    if ask is Ask.THROW:
        return [Throw(t) for t in hand]
    if ask is Ask.HU:
        return [Hu(), Pass()]
    if discard is None:
        return [*(self_kongs(hand, melds) if live > 0 else []), Pass()]
    kind = kind_of(discard)
    same = sorted(t for t in hand if kind_of(t) == kind)
    if ask is Ask.GONG:
        return [Kong(*same[:3]), Pass()] if len(same) >= 3 and live > 0 else [Pass()]
    if ask is Ask.PONG:
        pairs = sorted({(same[i], same[j]) for i in range(len(same))
                        for j in range(i + 1, len(same))})
        return [*(Pong(a, b) for a, b in pairs), Pass()]
    return [*(Eat(a, b) for a, b in chows(hand, kind)), Pass()]


def tiles_of(action: Action) -> list[int]:
    """The tiles an answer names (those it takes from the hand)."""
    if isinstance(action, Throw):
        return [action.tile]
    if isinstance(action, (Eat, Pong)):
        return [action.a, action.b]
    if isinstance(action, Kong):
        return [action.a, action.b, action.c]
    if isinstance(action, ConcealedKong):
        return [action.a, action.b, action.c, action.d]
    if isinstance(action, PromotedKong):
        return [action.tile]
    return []



_PREFIX: dict[type, str] = {Throw: "/throw", Eat: "/eat", Pong: "/pong", Kong: "/gong 4",
                            ConcealedKong: "/gong 0", PromotedKong: "/gong 1", Hu: "/hu",
                            Pass: "/pass"}


def notation(action: object) -> str:
    """An action in the client's words (``/throw 112``, ``/gong 0 370 371 372 373``)."""
    if not isinstance(action, Action):
        return repr(action)
    return " ".join([_PREFIX[type(action)], *map(str, tiles_of(action))])

