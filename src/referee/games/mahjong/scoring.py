"""Tai (台) scoring and payments of a Taiwanese 16-tile Mahjong win.

Pure functions: ``score`` reads a finished hand (``WinContext``) in each given
``Decomposition`` of its concealed tiles, with each set the winning tile can be read
into, and keeps the reading worth the most tai under a table; ``payments`` turns the tai
into chips per seat. The flower wins of tables that have them (``flower_win``,
``flower_score``) need no hand at all.

Two tables, chosen by name (``preset``):

- ``icga`` (``tai_icga.TaiTable``, the default): the referee's own table, not ICGA's (the
  framework defines none).
- ``taiwan`` (``tai_taiwan.TaiwanTable``): a common Taiwanese table as the open-source
  engine open_mahjong_unity scores it, with 平胡, 全求人, 半求人, 字一色 and 大四喜 at 16,
  and the flower wins 八仙過海 and 七搶一.

Each module's docstring has its table and its interactions; docs/mahjong.md has both
and their differences. Every reading of every decomposition is tried and the one worth
the most tai is kept (ties: the greatest ``(total_tai, patterns)``, then the greatest
decomposition, so the choice does not depend on the order of the decompositions).
Whether the hand waited on one kind (the single wait) is a property of the hand, not of
a reading (``win.one_wait``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from referee.core.errors import ConfigError
from referee.games.mahjong.melds import Decomposition, SetKind
from referee.games.mahjong.tai_icga import TaiTable
from referee.games.mahjong.tai_taiwan import TaiwanTable
from referee.games.mahjong.win import Pattern, ScoreResult, WinContext, one_wait, readings

__all__ = ["ICGA", "PRESETS", "ScoreResult", "Stakes", "Table", "TaiTable", "TaiwanTable",
           "WinContext", "flower_score", "flower_win", "payments", "preset", "score"]

Table = TaiTable | TaiwanTable
"""A tai table: its class says which rules read the hand, its fields the tai."""

ICGA = TaiTable()
"""The default table."""
PRESETS: dict[str, Table] = {"icga": ICGA, "taiwan": TaiwanTable()}
"""The named tables (``--scoring``, ``scoring =`` in a tournament's ``[settings]``)."""


def preset(name: str) -> Table:
    """The table called ``name``; ``ConfigError`` names the choices otherwise."""
    table = PRESETS.get(name)
    if table is None:
        raise ConfigError(f"scoring = {name!r}: expected one of {', '.join(PRESETS)}")
    return table


@dataclass(frozen=True)
class Stakes:
    """Chips paid per win: ``base + total_tai * per_tai``."""

    base: int = 100
    per_tai: int = 20


def score(ctx: WinContext, decompositions: Iterable[Decomposition],
          table: Table = ICGA) -> ScoreResult:
    """The best-scoring reading of the win over ``decompositions`` of ``ctx.concealed``.

    ``ValueError`` if there is no decomposition, or one that does not match the
    concealed tiles or does not make 5 sets with the melds.
    """
    single = one_wait(ctx)
    best: ScoreResult | None = None
    best_key: tuple[int, tuple[Pattern, ...], tuple[int, ...]] | None = None
    for dec in decompositions:
        order = (dec.pair, *(2 * kind + (set_kind is SetKind.PUNG)
                             for set_kind, kind in dec.sets))
        for reading in readings(ctx, dec):
            patterns = tuple(table.patterns(ctx, reading, single))
            key = (sum(tai for _, tai in patterns), patterns, order)
            if best_key is None or key > best_key:
                best_key = key
                best = ScoreResult(patterns, key[0], dec)
    if best is None:
        raise ValueError("no decomposition to score")
    return best


def flower_win(flowers: Sequence[Sequence[int]], seat: int) -> tuple[int, int | None] | None:
    """After ``seat`` set a flower aside, with ``flowers`` each seat's flowers: ``(seat,
    None)`` if it holds all eight (八仙過海), ``(robber, seat)`` if another seat holds the
    seven others and robs it (七搶一, ``seat`` pays), else None."""
    if len(flowers[seat]) == 8:
        return seat, None
    for robber, held in enumerate(flowers):
        if robber != seat and len(held) == 7:
            return robber, seat
    return None


def flower_score(table: Table, payer: int | None, winner: int, dealer: int) -> ScoreResult:
    """The score of a flower win by ``winner`` (``payer`` None: all eight flowers, paid as
    a self-draw; else seven robbing the eighth from ``payer``), with the dealer's tai when
    the dealer wins or pays it alone."""
    if not isinstance(table, TaiwanTable):
        raise ValueError(f"the {table.name} table has no flower wins")
    name, value = (("eight_flowers", table.eight_flowers) if payer is None
                   else ("seven_flowers", table.seven_flowers))
    patterns: list[Pattern] = []
    if dealer in (winner, payer) and table.dealer:
        patterns.append(("dealer", table.dealer))
    if value:
        patterns.append((name, value))
    return ScoreResult(tuple(patterns), sum(tai for _, tai in patterns))


def payments(result: ScoreResult, winner: int, discarder: int | None,
             stakes: Stakes = Stakes(), dealer: int | None = None,
             dealer_extra: int = 1) -> list[int]:
    """Chips won (+) or lost (-) by seats 0..3; they sum to zero.

    A discard win (``discarder`` a seat, also the player robbed of a kong or of the
    eighth flower): the discarder alone pays ``base + total_tai * per_tai``. A self-draw
    (``discarder`` None): each other seat pays that. The dealer's tai is in ``result``
    when the dealer wins or deals in (pattern ``dealer``); on a non-dealer's self-draw
    only the dealer owes it, so pass ``dealer`` (his seat) to make him pay
    ``dealer_extra`` tai more.
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
