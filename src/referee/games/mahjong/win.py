"""A finished Taiwanese 16-tile hand as the tai tables read it.

``WinContext`` is the win (the concealed kinds, the melds, the winning kind and how it
came); ``ScoreResult`` the patterns a table scored. ``readings`` gives every way to read
the win: a ``Decomposition`` of the concealed tiles and the set the winning tile is read
into, with the facts both tables ask of it (pungs, chows, concealed pungs, whether the
tile completes the pair, an edge or the middle of a chow). ``one_wait`` tells whether the
hand waited on a single kind; ``flower_facts``, ``honour_facts`` and ``suit_class`` are
the readings of flowers, honour pungs and suits the tables share, and
``flower_and_honour_patterns`` and ``suit_and_pung_patterns`` score the patterns both
tables have under the same rules (each with its own tai).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from referee.games.mahjong.hand import waits
from referee.games.mahjong.melds import Decomposition, Meld, MeldKind, SetKind
from referee.games.mahjong.tiles import FLOWERS, KINDS, kind_of

__all__ = ["Found", "HonourFacts", "Pattern", "Reading", "ScoreResult", "SharedTai",
           "WinContext", "flower_and_honour_patterns", "flower_facts", "honour_facts",
           "one_wait", "readings", "suit_and_pung_patterns", "suit_class"]

SETS_IN_HAND = 5
"""A 16-tile hand wins with 5 sets and a pair."""
SEASONS = FLOWERS[:4]
"""Spring, Summer, Autumn, Winter: seat flowers of East, South, West, North."""
PLANTS = FLOWERS[4:]
"""Plum, Orchid, Chrysanthemum, Bamboo: seat flowers of East, South, West, North."""
HONORS_START = 27
WINDS_RANGE = range(27, 31)
DRAGONS_RANGE = range(31, 34)
PAIR_SLOT = -1
"""The winning tile read into the pair (otherwise a slot is an index into the sets)."""

Pattern = tuple[str, int]
"""A scored pattern: its name and its tai (already multiplied by how often it occurs)."""


@dataclass(frozen=True)
class WinContext:
    """Everything about a win that the scoring needs.

    ``concealed`` holds the 34 kind counts of the tiles still in the winner's hand (the
    winning tile included, concealed kongs excluded: they are in ``melds``). Winds are
    0 East .. 3 North, relative to the dealer (the dealer sits East). ``earthly`` is a
    non-dealer's win before his own first discard with no call made before (on his first
    draw, or on a discard).
    """

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    winning_kind: int
    self_draw: bool
    seat_wind: int
    round_wind: int
    dealer: bool
    discarder_is_dealer: bool
    flowers: tuple[int, ...]
    robbing_kong: bool = False
    last_tile: bool = False
    kong_replacement: bool = False
    heavenly: bool = False
    earthly: bool = False

    def __post_init__(self) -> None:
        if len(self.concealed) != KINDS or any(not 0 <= n <= 4 for n in self.concealed):
            raise ValueError("concealed must be 34 kind counts of 0..4")
        if not 0 <= self.winning_kind < KINDS or self.concealed[self.winning_kind] == 0:
            raise ValueError("the winning tile must be among the concealed tiles")
        if not (0 <= self.seat_wind < 4 and 0 <= self.round_wind < 4):
            raise ValueError("winds are 0 (East) .. 3 (North)")
        if any(f not in FLOWERS for f in self.flowers):
            raise ValueError("flowers must be flower TIDs 10..80")
        if self.self_draw and self.robbing_kong:
            raise ValueError("robbing a kong is not a self-draw")

    @property
    def dealer_involved(self) -> bool:
        """The dealer won, or dealt the winning discard (he pays or gets his tai)."""
        return self.dealer or (not self.self_draw and self.discarder_is_dealer)


@dataclass(frozen=True)
class ScoreResult:
    """The patterns scored, as ``(name, tai)`` (each name at most once, its tai already
    multiplied by how often it occurs), their sum, and the decomposition read (None for a
    win without one: the flower wins)."""

    patterns: tuple[Pattern, ...]
    total_tai: int
    decomposition: Decomposition | None = None

    def __post_init__(self) -> None:
        if self.total_tai != sum(tai for _, tai in self.patterns):
            raise ValueError("total_tai must be the sum of the patterns' tai")

    def tai(self, name: str) -> int:
        """The tai scored for pattern ``name`` (0 if it did not score)."""
        return sum(tai for pattern, tai in self.patterns if pattern == name)


@dataclass(frozen=True, slots=True)
class Reading:
    """One reading of a win: ``dec`` of the concealed tiles, the winning tile read into
    ``slot`` (``PAIR_SLOT`` or an index of ``dec.sets``). ``pungs`` and ``chows`` are the
    kinds of every pung or kong and every chow (the hand's and the melds'),
    ``concealed_pungs`` the pungs and kongs that count as concealed in this reading,
    ``single_use`` whether the tile completes the pair, an edge chow (1-2 waiting 3, 8-9
    waiting 7) or the middle of a chow."""

    dec: Decomposition
    slot: int
    pungs: tuple[int, ...]
    chows: tuple[int, ...]
    concealed_pungs: int
    single_use: bool

    @property
    def kinds(self) -> tuple[int, ...]:
        """The pair's kind and each set's lowest kind (enough to tell suits and honours)."""
        return (self.dec.pair, *self.pungs, *self.chows)


def readings(ctx: WinContext, dec: Decomposition) -> Iterator[Reading]:
    """Every reading of ``dec`` (one per set that can hold the winning tile);
    ``ValueError`` unless ``dec`` reads exactly ``ctx.concealed`` into a full hand."""
    _check(ctx, dec)
    pungs = [k for sk, k in dec.sets if sk is SetKind.PUNG]
    pungs += [m.base for m in ctx.melds if m.kind is not MeldKind.CHOW]
    chows = [k for sk, k in dec.sets if sk is SetKind.CHOW]
    chows += [m.base for m in ctx.melds if m.kind is MeldKind.CHOW]
    kongs = sum(1 for m in ctx.melds if m.is_concealed)
    for slot in _winning_slots(dec, ctx.winning_kind):
        hidden = kongs + sum(1 for i, (sk, _) in enumerate(dec.sets)
                             if sk is SetKind.PUNG and (ctx.self_draw or i != slot))
        yield Reading(dec, slot, tuple(pungs), tuple(chows), hidden,
                      _single_use(dec, slot, ctx.winning_kind))


def one_wait(ctx: WinContext) -> bool:
    """Whether the hand waited on one kind only: every tile that completes it, across all
    its decompositions, is of the winning kind. A kind whose four copies the player holds
    (in hand or in his melds) completes nothing."""
    before = list(ctx.concealed)
    before[ctx.winning_kind] -= 1
    held = list(before)
    for meld in ctx.melds:
        for tile in meld.tiles:
            held[kind_of(tile)] += 1
    return [k for k in waits(before) if held[k] < 4] == [ctx.winning_kind]


def flower_facts(ctx: WinContext) -> tuple[int, bool, bool]:
    """(seat flowers held outside a complete set, all four seasons, all four plants): a
    complete set replaces the seat flower it holds."""
    seasons = all(f in ctx.flowers for f in SEASONS)
    plants = all(f in ctx.flowers for f in PLANTS)
    seat = sum(1 for group, full in ((SEASONS, seasons), (PLANTS, plants))
               if not full and group[ctx.seat_wind] in ctx.flowers)
    return seat, seasons, plants


@dataclass(frozen=True, slots=True)
class HonourFacts:
    """The honour pungs of a reading and the big and little winds and dragons."""

    wind_pungs: tuple[int, ...]
    dragon_pungs: int
    big_winds: bool
    little_winds: bool
    big_dragons: bool
    little_dragons: bool


def honour_facts(reading: Reading) -> HonourFacts:
    """Wind and dragon pungs (kongs included); four wind pungs are the big winds, three
    and a wind pair the little winds; likewise three and two dragons."""
    winds = tuple(k for k in reading.pungs if k in WINDS_RANGE)
    dragons = sum(1 for k in reading.pungs if k in DRAGONS_RANGE)
    pair = reading.dec.pair
    return HonourFacts(winds, dragons, len(winds) == 4,
                       len(winds) == 3 and pair in WINDS_RANGE, dragons == 3,
                       dragons == 2 and pair in DRAGONS_RANGE)


def suit_class(reading: Reading) -> str | None:
    """``all_honors`` (no suit), ``half_flush`` (one suit and honours), ``full_flush``
    (one suit, no honours) or None."""
    kinds = reading.kinds
    suits = {k // 9 for k in kinds if k < HONORS_START}
    if not suits:
        return "all_honors"
    if len(suits) > 1:
        return None
    return "half_flush" if any(k >= HONORS_START for k in kinds) else "full_flush"


def _check(ctx: WinContext, dec: Decomposition) -> None:
    """``ValueError`` unless ``dec`` reads exactly ``ctx.concealed`` into a full hand."""
    if len(dec.sets) + len(ctx.melds) != SETS_IN_HAND:
        raise ValueError(f"{dec} and {len(ctx.melds)} melds do not make {SETS_IN_HAND} sets")
    counts = [0] * KINDS
    counts[dec.pair] += 2
    for set_kind, kind in dec.sets:
        if set_kind is SetKind.PUNG:
            counts[kind] += 3
        else:
            if kind >= HONORS_START or kind % 9 > 6:
                raise ValueError(f"no chow starts at kind {kind}")
            for k in range(kind, kind + 3):
                counts[k] += 1
    if tuple(counts) != ctx.concealed:
        raise ValueError(f"{dec} does not match the concealed tiles")


def _winning_slots(dec: Decomposition, winning_kind: int) -> list[int]:
    """Where the winning tile can be read: ``PAIR_SLOT`` or indexes of ``dec.sets``."""
    slots = [PAIR_SLOT] if dec.pair == winning_kind else []
    for i, (set_kind, kind) in enumerate(dec.sets):
        if (set_kind is SetKind.PUNG and kind == winning_kind) or (
                set_kind is SetKind.CHOW and kind <= winning_kind <= kind + 2):
            slots.append(i)
    return slots


def _single_use(dec: Decomposition, slot: int, winning_kind: int) -> bool:
    """Pair, edge (1-2 waiting 3, 8-9 waiting 7) or closed (4_6 waiting 5) in this
    reading."""
    if slot == PAIR_SLOT:
        return True
    set_kind, kind = dec.sets[slot]
    if set_kind is SetKind.PUNG:
        return False
    position = winning_kind - kind
    rank = kind % 9
    return position == 1 or (position == 2 and rank == 0) or (position == 0 and rank == 6)


class Found:
    """The patterns a reading scores, in the order they are added; zero tai left out."""

    def __init__(self) -> None:
        self.items: list[Pattern] = []

    def add(self, name: str, value: int, times: int = 1) -> None:
        """Score ``name`` at ``value`` tai, ``times`` times (nothing if that is 0)."""
        if value * times:
            self.items.append((name, value * times))


class SharedTai(Protocol):
    """The tai of the patterns both tables score under the same rules."""

    @property
    def seat_flower(self) -> int: ...
    @property
    def four_seasons(self) -> int: ...
    @property
    def four_plants(self) -> int: ...
    @property
    def seat_wind(self) -> int: ...
    @property
    def round_wind(self) -> int: ...
    @property
    def dragon_pung(self) -> int: ...
    @property
    def half_flush(self) -> int: ...
    @property
    def full_flush(self) -> int: ...
    @property
    def all_honors(self) -> int: ...
    @property
    def three_concealed_pungs(self) -> int: ...
    @property
    def four_concealed_pungs(self) -> int: ...
    @property
    def five_concealed_pungs(self) -> int: ...
    @property
    def little_three_dragons(self) -> int: ...
    @property
    def big_three_dragons(self) -> int: ...
    @property
    def little_four_winds(self) -> int: ...
    @property
    def big_four_winds(self) -> int: ...


def flower_and_honour_patterns(found: Found, tai: SharedTai, ctx: WinContext,
                               honours: HonourFacts) -> None:
    """A complete set of seasons or plants (it replaces the seat flower it holds), the
    other seat flowers, the seat and round wind pungs (not with the big or little
    winds), the dragon pungs (not with the big or little dragons)."""
    seat_flowers, seasons, plants = flower_facts(ctx)
    if seasons:
        found.add("four_seasons", tai.four_seasons)
    if plants:
        found.add("four_plants", tai.four_plants)
    found.add("seat_flower", tai.seat_flower, seat_flowers)
    if not (honours.big_winds or honours.little_winds):
        found.add("seat_wind", tai.seat_wind,
                  honours.wind_pungs.count(WINDS_RANGE[ctx.seat_wind]))
        found.add("round_wind", tai.round_wind,
                  honours.wind_pungs.count(WINDS_RANGE[ctx.round_wind]))
    if not (honours.big_dragons or honours.little_dragons):
        found.add("dragon_pung", tai.dragon_pung, honours.dragon_pungs)


def suit_and_pung_patterns(found: Found, tai: SharedTai, reading: Reading,
                           honours: HonourFacts) -> None:
    """One of half flush, full flush, all honours; the largest count of concealed
    pungs; big or little dragons; big or little winds."""
    suits = suit_class(reading)
    if suits is not None:
        found.add(suits, getattr(tai, suits))
    hidden = reading.concealed_pungs
    if hidden >= 5:
        found.add("five_concealed_pungs", tai.five_concealed_pungs)
    elif hidden == 4:
        found.add("four_concealed_pungs", tai.four_concealed_pungs)
    elif hidden == 3:
        found.add("three_concealed_pungs", tai.three_concealed_pungs)
    if honours.big_dragons:
        found.add("big_three_dragons", tai.big_three_dragons)
    elif honours.little_dragons:
        found.add("little_three_dragons", tai.little_three_dragons)
    if honours.big_winds:
        found.add("big_four_winds", tai.big_four_winds)
    elif honours.little_winds:
        found.add("little_four_winds", tai.little_four_winds)
