"""The reference AIs' decisions, over a ``SeatView``: random, greedy (shanten) and the
dummy AI that takes over a faulty seat. Pure functions; the programs speaking the
protocol and the in-process benchmark both use them."""

from __future__ import annotations

import random
from collections.abc import Callable

from referee.games.mahjong import rules
from referee.games.mahjong.hand import shanten
from referee.games.mahjong.tiles import KINDS, counts_of, kind_of

__all__ = ["POLICIES", "Policy", "dummy_policy", "greedy_policy", "random_policy"]

Policy = Callable[[rules.SeatView, random.Random], rules.Action]
"""A decision: the answer to the view's question."""


def random_policy(view: rules.SeatView, rng: random.Random) -> rules.Action:
    """A uniformly random legal answer."""
    return rng.choice(view.options())


def dummy_policy(view: rules.SeatView, rng: random.Random) -> rules.Action:
    """The default dummy AI: wins when it can, claims nothing, throws what it drew (or its
    last tile after a claim)."""
    if view.ask is rules.Ask.HU:
        return rules.Hu()
    if view.ask is rules.Ask.THROW:
        tile = view.drawn if view.drawn in view.hand else view.hand[-1]
        assert tile is not None
        return rules.Throw(tile)
    return rules.Pass()


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


_KONGS = (rules.Kong, rules.ConcealedKong, rules.PromotedKong)
_MELDS = (rules.Eat, rules.Pong, *_KONGS)


def _after_claim(view: rules.SeatView, used: tuple[int, ...]) -> int:
    """Shanten after melding ``used`` from the hand (and throwing the best tile when a
    throw follows; a kong draws instead)."""
    rest = [t for t in view.hand if t not in used]
    if not rest:
        return -1
    return best_discard(rest)[1] if len(rest) % 3 == 2 else shanten(counts_of(rest))


def greedy_policy(view: rules.SeatView, rng: random.Random) -> rules.Action:
    """Win whenever possible; discard to the lowest shanten; claim a pong, chow or kong
    only when it brings the hand closer to winning; declare own kongs that cost nothing."""
    ask = view.ask
    if ask is rules.Ask.HU:
        return rules.Hu()
    if ask is rules.Ask.THROW:
        return rules.Throw(best_discard(view.hand)[0])
    now = shanten(counts_of(view.hand)) if len(view.hand) % 3 == 1 else \
        best_discard(view.hand)[1]
    best: tuple[int, rules.Action] = (now, rules.Pass())
    for action in view.options():
        if not isinstance(action, _MELDS):
            continue
        score = _after_claim(view, tuple(rules.tiles_of(action)))
        if score < best[0] or (score == best[0] and isinstance(action, _KONGS)):
            best = (score, action)
    return best[1]


POLICIES: dict[str, Policy] = {
    "random": random_policy,
    "greedy": greedy_policy,
    "dummy": dummy_policy,
}
"""The built-in AIs by name."""
