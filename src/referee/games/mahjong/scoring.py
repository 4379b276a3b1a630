"""Tai (台) scoring and payments of a Taiwanese 16-tile Mahjong win.

Pure functions: ``score`` reads a finished hand (``WinContext``) in each given
``Decomposition`` of its concealed tiles and keeps the reading worth the most tai;
``payments`` turns the tai into chips per seat.

A winning hand is 5 sets and a pair: the sets of the decomposition (concealed tiles, the
winning tile included) plus ``WinContext.melds`` (exposed sets and concealed kongs).

Default tai table (``TaiTable``; the pattern names below are stable, they are the field
names of ``TaiTable`` and the names in ``ScoreResult.patterns``):

=======================  ===  ==========================================================
``dealer``                 1  the winner is the dealer, or the dealer dealt the winning
                              discard (see ``payments`` for a non-dealer's self-draw)
``self_drawn``             1  won on a self-drawn tile
``concealed_hand``         1  no exposed melds (concealed kongs allowed)
``concealed_self_drawn``   1  both of the above: with them a concealed self-draw is 3
``seat_flower``            1  per flower of the winner's seat (Spring/Plum East,
                              Summer/Orchid South, Autumn/Chrysanthemum West,
                              Winter/Bamboo North)
``four_seasons``           2  all of Spring, Summer, Autumn, Winter
``four_plants``            2  all of Plum, Orchid, Chrysanthemum, Bamboo
``seat_wind``              1  a pung or kong of the seat wind
``round_wind``             1  a pung or kong of the round wind
``dragon_pung``            1  per pung or kong of Red, Green or White
``all_chows``              2  five chows and a pair of suited tiles
``all_pungs``              4  five pungs or kongs
``half_flush``             4  one suit and honors (at least one of each)
``full_flush``             8  one suit, no honors
``all_honors``             8  honors only
``three_concealed_pungs``  2  concealed pungs or kongs: 3
``four_concealed_pungs``   5  ... 4
``five_concealed_pungs``   8  ... 5
``little_three_dragons``   4  two dragon pungs and a dragon pair
``big_three_dragons``      8  three dragon pungs
``little_four_winds``      8  three wind pungs and a wind pair
``big_four_winds``        16  four wind pungs
``heavenly_hand``         16  the dealer wins on his initial hand
``earthly_hand``          16  a non-dealer wins on the dealer's first discard or on his
                              own first draw, with no calls before
``robbing_kong``           1  won on the tile another player added to a pung
``last_tile``              1  won on the last tile of the wall (haitei or houtei)
``kong_replacement``       1  won on a replacement tile after a kong or a flower
``single_wait``            1  the winning tile completes the pair, an edge chow (1-2
                              waiting 3, 8-9 waiting 7) or the middle of a chow
=======================  ===  ==========================================================

Interactions (each is one explicit rule in ``_patterns``):

* A concealed self-draw scores ``concealed_hand`` + ``self_drawn`` +
  ``concealed_self_drawn`` (1 + 1 + 1 = 3 by default).
* A complete set of seasons (plants) scores ``four_seasons`` (``four_plants``) *instead*
  of the seat flower of that set; the seat flower of the other set still counts. All
  eight flowers therefore score 2 + 2 (no special "eight flowers" pattern here).
* ``big_three_dragons`` and ``little_three_dragons`` replace ``dragon_pung``;
  ``big_three_dragons`` replaces ``little_three_dragons`` (they cannot both hold anyway).
* ``big_four_winds`` and ``little_four_winds`` replace ``seat_wind`` and ``round_wind``;
  a seat wind pung that is also the round wind scores both (1 + 1) otherwise.
* ``half_flush``, ``full_flush`` and ``all_honors`` exclude each other (at most one);
  ``all_honors`` still scores ``all_pungs`` and the honor pungs (or the big / little
  dragons and winds).
* Only the largest of ``three_/four_/five_concealed_pungs`` counts. A pung in the
  decomposition is concealed unless the win is on a discard (or a robbed kong) and the
  winning tile is read into that pung; concealed kongs count as concealed pungs,
  exposed pungs and kongs do not.
* ``heavenly_hand`` and ``earthly_hand`` are simply added to everything else.
* The winning tile is read into one set of the decomposition (the pair, a pung or a chow
  holding its kind); ``single_wait`` and the concealment of pungs follow that reading.
  Every reading of every decomposition is tried and the one worth the most tai is kept
  (ties: the greatest ``(total_tai, patterns)``, so the choice does not depend on the
  order of the decompositions).
* A pattern whose table value is 0 is left out of the result.

Not scored: the dealer's continuation streak, "no flowers and no honors" (ping hu
variants), eight flowers as an instant win, and waits that need the whole hand's waiting
tiles (``single_wait`` looks only at the chosen reading).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from referee.games.mahjong.melds import Decomposition, Meld, MeldKind, SetKind
from referee.games.mahjong.tiles import FLOWERS, KINDS

__all__ = ["ScoreResult", "Stakes", "TaiTable", "WinContext", "payments", "score"]

SETS_IN_HAND = 5
"""A 16-tile hand wins with 5 sets and a pair."""
SEASONS = FLOWERS[:4]
"""Spring, Summer, Autumn, Winter: seat flowers of East, South, West, North."""
PLANTS = FLOWERS[4:]
"""Plum, Orchid, Chrysanthemum, Bamboo: seat flowers of East, South, West, North."""
HONORS_START = 27
WINDS_RANGE = range(27, 31)
DRAGONS_RANGE = range(31, 34)


@dataclass(frozen=True)
class WinContext:
    """Everything about a win that the scoring needs.

    ``concealed`` holds the 34 kind counts of the tiles still in the winner's hand (the
    winning tile included, concealed kongs excluded: they are in ``melds``). Winds are
    0 East .. 3 North, relative to the dealer (the dealer sits East).
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


@dataclass(frozen=True)
class TaiTable:
    """The tai of each pattern (see the module docstring); 0 switches a pattern off."""

    dealer: int = 1
    self_drawn: int = 1
    concealed_hand: int = 1
    concealed_self_drawn: int = 1
    seat_flower: int = 1
    four_seasons: int = 2
    four_plants: int = 2
    seat_wind: int = 1
    round_wind: int = 1
    dragon_pung: int = 1
    all_chows: int = 2
    all_pungs: int = 4
    half_flush: int = 4
    full_flush: int = 8
    all_honors: int = 8
    three_concealed_pungs: int = 2
    four_concealed_pungs: int = 5
    five_concealed_pungs: int = 8
    little_three_dragons: int = 4
    big_three_dragons: int = 8
    little_four_winds: int = 8
    big_four_winds: int = 16
    heavenly_hand: int = 16
    earthly_hand: int = 16
    robbing_kong: int = 1
    last_tile: int = 1
    kong_replacement: int = 1
    single_wait: int = 1


@dataclass(frozen=True)
class Stakes:
    """Chips paid per win: ``base + total_tai * per_tai``."""

    base: int = 100
    per_tai: int = 20


@dataclass(frozen=True)
class ScoreResult:
    """The patterns scored, as ``(name, tai)`` (each name at most once, its tai already
    multiplied by how often it occurs), their sum, and the decomposition read."""

    patterns: tuple[tuple[str, int], ...]
    total_tai: int
    decomposition: Decomposition | None = None

    def __post_init__(self) -> None:
        if self.total_tai != sum(tai for _, tai in self.patterns):
            raise ValueError("total_tai must be the sum of the patterns' tai")

    def tai(self, name: str) -> int:
        """The tai scored for pattern ``name`` (0 if it did not score)."""
        return sum(tai for pattern, tai in self.patterns if pattern == name)


def score(ctx: WinContext, decompositions: Iterable[Decomposition],
          table: TaiTable = TaiTable()) -> ScoreResult:
    """The best-scoring reading of the win over ``decompositions`` of ``ctx.concealed``.

    ``ValueError`` if there is no decomposition, or one that does not match the
    concealed tiles or does not make 5 sets with the melds.
    """
    best: ScoreResult | None = None
    best_key: tuple[int, tuple[tuple[str, int], ...]] | None = None
    for dec in decompositions:
        _check(ctx, dec)
        for slot in _winning_slots(dec, ctx.winning_kind):
            patterns = tuple(_patterns(ctx, dec, slot, table))
            key = (sum(tai for _, tai in patterns), patterns)
            if best_key is None or key > best_key:
                best_key = key
                best = ScoreResult(patterns, key[0], dec)
    if best is None:
        raise ValueError("no decomposition to score")
    return best


def payments(result: ScoreResult, winner: int, discarder: int | None,
             stakes: Stakes = Stakes(), dealer: int | None = None,
             dealer_extra: int = 1) -> list[int]:
    """Chips won (+) or lost (-) by seats 0..3; they sum to zero.

    A discard win (``discarder`` a seat, also the player robbed of a kong): the
    discarder alone pays ``base + total_tai * per_tai``. A self-draw (``discarder`` None):
    each other seat pays that. The dealer's tai is in ``result`` when the dealer wins or
    deals in (pattern ``dealer``); on a non-dealer's self-draw only the dealer owes it,
    so pass ``dealer`` (his seat) to make him pay ``dealer_extra`` tai more.
    """
    if not 0 <= winner < 4:
        raise ValueError("winner must be a seat 0..3")
    if discarder is not None and (not 0 <= discarder < 4 or discarder == winner):
        raise ValueError("discarder must be a seat 0..3 other than the winner")
    if dealer is not None and not 0 <= dealer < 4:
        raise ValueError("dealer must be a seat 0..3")
    if dealer_extra < 0:
        raise ValueError("dealer_extra must not be negative")
    amount = stakes.base + result.total_tai * stakes.per_tai
    payers = [discarder] if discarder is not None else [s for s in range(4) if s != winner]
    chips = [0, 0, 0, 0]
    for seat in payers:
        owed = amount
        if discarder is None and dealer is not None and seat == dealer:
            owed += dealer_extra * stakes.per_tai
        chips[seat] -= owed
        chips[winner] += owed
    return chips


PAIR_SLOT = -1
"""The winning tile read into the pair (otherwise a slot is an index into the sets)."""


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


def _is_single_wait(dec: Decomposition, slot: int, winning_kind: int) -> bool:
    """Pair wait, edge wait (1-2 waiting 3, 8-9 waiting 7) or closed wait (4_6 waiting
    5) in this reading."""
    if slot == PAIR_SLOT:
        return True
    set_kind, kind = dec.sets[slot]
    if set_kind is SetKind.PUNG:
        return False
    position = winning_kind - kind
    rank = kind % 9
    return position == 1 or (position == 2 and rank == 0) or (position == 0 and rank == 6)


def _patterns(ctx: WinContext, dec: Decomposition, slot: int,
              table: TaiTable) -> list[tuple[str, int]]:
    """The patterns of one reading, in table order, zero-valued ones left out."""
    found: list[tuple[str, int]] = []

    def add(name: str, value: int, times: int = 1) -> None:
        if value * times:
            found.append((name, value * times))

    pungs: list[int] = [k for sk, k in dec.sets if sk is SetKind.PUNG]
    pungs += [m.base for m in ctx.melds if m.kind is not MeldKind.CHOW]
    chows = [k for sk, k in dec.sets if sk is SetKind.CHOW]
    chows += [m.base for m in ctx.melds if m.kind is MeldKind.CHOW]
    concealed = all(m.is_concealed for m in ctx.melds)

    # Dealer, self-draw, concealment.
    if ctx.dealer or (not ctx.self_draw and ctx.discarder_is_dealer):
        add("dealer", table.dealer)
    if ctx.self_draw:
        add("self_drawn", table.self_drawn)
    if concealed:
        add("concealed_hand", table.concealed_hand)
    if concealed and ctx.self_draw:
        add("concealed_self_drawn", table.concealed_self_drawn)

    # Flowers: a full set replaces the seat flower of that set.
    seat_flowers = 0
    for group, name, value in ((SEASONS, "four_seasons", table.four_seasons),
                               (PLANTS, "four_plants", table.four_plants)):
        if all(f in ctx.flowers for f in group):
            add(name, value)
        elif group[ctx.seat_wind] in ctx.flowers:
            seat_flowers += 1
    add("seat_flower", table.seat_flower, seat_flowers)

    # Honor pungs; the four-winds and three-dragons patterns replace them.
    wind_pungs = [k for k in pungs if k in WINDS_RANGE]
    dragon_pungs = [k for k in pungs if k in DRAGONS_RANGE]
    big_winds = len(wind_pungs) == 4
    little_winds = len(wind_pungs) == 3 and dec.pair in WINDS_RANGE
    big_dragons = len(dragon_pungs) == 3
    little_dragons = len(dragon_pungs) == 2 and dec.pair in DRAGONS_RANGE
    if not (big_winds or little_winds):
        add("seat_wind", table.seat_wind, wind_pungs.count(27 + ctx.seat_wind))
        add("round_wind", table.round_wind, wind_pungs.count(27 + ctx.round_wind))
    if not (big_dragons or little_dragons):
        add("dragon_pung", table.dragon_pung, len(dragon_pungs))

    # Shape of the hand.
    if len(chows) == SETS_IN_HAND and dec.pair < HONORS_START:
        add("all_chows", table.all_chows)
    if len(pungs) == SETS_IN_HAND:
        add("all_pungs", table.all_pungs)

    # Suits: at most one of half flush, full flush, all honors.
    kinds = [dec.pair, *pungs, *chows]
    suits = {k // 9 for k in kinds if k < HONORS_START}
    has_honors = any(k >= HONORS_START for k in kinds)
    if not suits:
        add("all_honors", table.all_honors)
    elif len(suits) == 1 and has_honors:
        add("half_flush", table.half_flush)
    elif len(suits) == 1:
        add("full_flush", table.full_flush)

    # Concealed pungs: only the largest count scores.
    hidden = sum(1 for i, (sk, _) in enumerate(dec.sets) if sk is SetKind.PUNG
                 and (ctx.self_draw or i != slot))
    hidden += sum(1 for m in ctx.melds if m.is_concealed)
    if hidden >= 5:
        add("five_concealed_pungs", table.five_concealed_pungs)
    elif hidden == 4:
        add("four_concealed_pungs", table.four_concealed_pungs)
    elif hidden == 3:
        add("three_concealed_pungs", table.three_concealed_pungs)

    # Big patterns of honors.
    if big_dragons:
        add("big_three_dragons", table.big_three_dragons)
    elif little_dragons:
        add("little_three_dragons", table.little_three_dragons)
    if big_winds:
        add("big_four_winds", table.big_four_winds)
    elif little_winds:
        add("little_four_winds", table.little_four_winds)

    # Special wins.
    if ctx.heavenly:
        add("heavenly_hand", table.heavenly_hand)
    if ctx.earthly:
        add("earthly_hand", table.earthly_hand)
    if ctx.robbing_kong:
        add("robbing_kong", table.robbing_kong)
    if ctx.last_tile:
        add("last_tile", table.last_tile)
    if ctx.kong_replacement:
        add("kong_replacement", table.kong_replacement)
    if _is_single_wait(dec, slot, ctx.winning_kind):
        add("single_wait", table.single_wait)
    return found
