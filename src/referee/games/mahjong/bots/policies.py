"""The reference AIs' decisions, over a ``SeatView``: random, greedy (shanten) and the
dummy AI that takes over a faulty seat. Pure functions; the programs speaking the
protocol and the in-process benchmark both use them."""

from __future__ import annotations

import random
from collections.abc import Callable

from referee.games.mahjong.hand import shanten
from referee.games.mahjong.rules import (
    Action,
    Ask,
    ConcealedKong,
    Eat,
    Hu,
    Kong,
    Pass,
    Pong,
    PromotedKong,
    SeatView,
    Throw,
)
from referee.games.mahjong.tiles import KINDS, counts_of, kind_of

__all__ = ["POLICIES", "Policy", "dummy_policy", "greedy_policy", "random_policy"]

Policy = Callable[[SeatView, random.Random], Action]
"""A decision: the answer to the view's question."""


def random_policy(view: SeatView, rng: random.Random) -> Action:
    """A uniformly random legal answer."""
    return rng.choice(view.options())


def dummy_policy(view: SeatView, rng: random.Random) -> Action:
    """The default dummy AI: wins when it can, claims nothing, throws what it drew (or its
    last tile after a claim)."""
    if view.ask is Ask.HU:
        return Hu()
    if view.ask is Ask.THROW:
        tile = view.drawn if view.drawn in view.hand else view.hand[-1]
        assert tile is not None
        return Throw(tile)
    return Pass()


def _isolation(counts: list[int], kind: int) -> int:
    """How useless a tile is alone: honors and terminals first, then tiles with no
    neighbours (higher is more useless)."""
    if kind >= 27:
        return 3 if counts[kind] == 1 else 0
    rank = kind % 9
    near = sum(counts[k] for k in range(max(kind - 2, kind - rank), min(kind + 3, kind - rank + 9))
               if k != kind)
    return (2 if rank in (0, 8) else 1) if near == 0 and counts[kind] == 1 else 0


def best_discard(hand: tuple[int, ...] | list[int]) -> tuple[int, int]:
    """(tile, shanten after discarding it) for the discard that leaves the lowest shanten;
    ties go to the most isolated tile, then the highest kind."""
    counts = counts_of(hand)
    best: tuple[int, int, int] | None = None
    best_tile = hand[0]
    for kind in range(KINDS):
        if not counts[kind]:
            continue
        counts[kind] -= 1
        after = shanten(counts)
        counts[kind] += 1
        key = (after, -_isolation(counts, kind), -kind)
        if best is None or key < best:
            best = key
            best_tile = next(t for t in hand if kind_of(t) == kind)
    assert best is not None
    return best_tile, best[0]


def _after_claim(view: SeatView, used: tuple[int, ...]) -> int:
    """Shanten after claiming with ``used`` from the hand and throwing the best tile."""
    rest = [t for t in view.hand if t not in used]
    if not rest:
        return -1
    return best_discard(rest)[1] if len(rest) % 3 == 2 else shanten(counts_of(rest))


def greedy_policy(view: SeatView, rng: random.Random) -> Action:
    """Win whenever possible; discard to the lowest shanten; claim a pong, chow or kong
    only when it brings the hand closer to winning; declare own kongs that cost nothing."""
    ask = view.ask
    if ask is Ask.HU:
        return Hu()
    if ask is Ask.THROW:
        return Throw(best_discard(view.hand)[0])
    now = shanten(counts_of(view.hand)) if len(view.hand) % 3 == 1 else \
        best_discard(view.hand)[1]
    best: tuple[int, Action] = (now, Pass())
    for action in view.options():
        if isinstance(action, Pass):
            continue
        if isinstance(action, (Pong, Eat)):
            score = _after_claim(view, (action.a, action.b))
        elif isinstance(action, Kong):
            score = _after_claim(view, (action.a, action.b, action.c))
        elif isinstance(action, (ConcealedKong, PromotedKong)):
            used = (action.tile,) if isinstance(action, PromotedKong) else \
                (action.a, action.b, action.c, action.d)
            rest = [t for t in view.hand if t not in used]
            score = shanten(counts_of(rest)) if len(rest) % 3 == 1 else best_discard(rest)[1]
        else:
            continue
        if score < best[0] or (score == best[0] and isinstance(
                action, (ConcealedKong, PromotedKong, Kong))):
            best = (score, action)
    return best[1]


POLICIES: dict[str, Policy] = {
    "random": random_policy,
    "greedy": greedy_policy,
    "dummy": dummy_policy,
}
"""The built-in AIs by name."""
