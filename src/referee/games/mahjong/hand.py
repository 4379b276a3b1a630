"""Hand checks of a Taiwanese 16-tile hand: winning or not, every reading of a winning
hand, shanten and waits. Pure functions over the 34 per-kind counts of the concealed
tiles (``tiles.counts_of``); exposed melds are never in the counts.

Each suit (9 kinds) is worked out on its own and memoized under the tuple of its 9
counts; the honors (7 kinds) take only pungs and a pair. The suits' and the honors'
answers are then combined, so a check is a few dictionary look-ups once the tables are
warm.

Shanten is exact, the 4-copies limit included: it is ``d - 1`` where ``d`` is the least
number of tiles to draw to hold a winning hand, over every winning hand of ``total // 3``
sets and a pair that has at most 4 tiles of each kind (only the hand's own tiles count:
the player cannot see the others). ``d`` is found per suit by a dynamic programme over
the ranks (how many chows start at each rank, a pung, the pair), then combined over the
suits and the honors. Unlike the usual ``2*sets - 2*complete - partials - pair`` formula
it never counts a wait on a kind the hand already holds all 4 of (``1111`` + sets is
1-shanten, not tenpai).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from referee.games.mahjong.melds import Decomposition, SetKind

__all__ = ["MAX_TILES", "decompositions", "is_winning", "shanten", "waits"]

KINDS = 34
MAX_TILES = 17
"""The most concealed tiles a hand holds (16 and a drawn tile); ``shanten`` allows no more."""
_MAX_SETS = MAX_TILES // 3
_WIDTH = 2 * (_MAX_SETS + 1)
"""A cost vector holds ``cost[2 * sets + pair]`` for 0..5 sets and 0..1 pair."""
_INF = 99
_BAD = 9
"""A group's pair count when it is no set of sets and pairs (any sum of 4 is above 1)."""
_CACHE_LIMIT = 400_000
"""Memo tables are emptied when one grows past this (a bound on memory, not on speed)."""


def _check(key: tuple[int, ...]) -> None:
    """Refuse counts outside 0..4 (run only when a key is new to a table)."""
    for count in key:
        if not 0 <= count <= 4:
            raise ValueError(f"a kind count must be 0..4, got {count}")


# ---------------------------------------------------------------------------------------
# Winning check.

_SUIT_WIN: dict[tuple[int, ...], int] = {}
"""Suit counts -> 0 (sets only), 1 (sets and one pair) or ``_BAD``."""
_HONOR_WIN: dict[tuple[int, ...], int] = {}
"""Honor counts -> number of pairs if every count is 0, 2 or 3, else ``_BAD``."""


def _sets_only(c: list[int], i: int) -> bool:
    """Whether the suit counts ``c`` from rank ``i`` on split into pungs and chows
    (``c`` is restored before returning)."""
    while i < 9 and c[i] == 0:
        i += 1
    if i == 9:
        return True
    if c[i] >= 3:
        c[i] -= 3
        ok = _sets_only(c, i)
        c[i] += 3
        if ok:
            return True
    if i <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        ok = _sets_only(c, i)
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
        return ok
    return False


def _suit_win(key: tuple[int, ...]) -> int:
    """The ``_SUIT_WIN`` entry of a suit, computed and stored."""
    _check(key)
    c = list(key)
    total = sum(c)
    result = _BAD
    if total % 3 == 0:
        result = 0 if _sets_only(c, 0) else _BAD
    elif total % 3 == 2:
        for i in range(9):
            if c[i] >= 2:
                c[i] -= 2
                ok = _sets_only(c, 0)
                c[i] += 2
                if ok:
                    result = 1
                    break
    if len(_SUIT_WIN) >= _CACHE_LIMIT:
        _SUIT_WIN.clear()
    _SUIT_WIN[key] = result
    return result


def _honor_win(key: tuple[int, ...]) -> int:
    """The ``_HONOR_WIN`` entry of the honors, computed and stored."""
    _check(key)
    result = _BAD if any(c not in (0, 2, 3) for c in key) else key.count(2)
    _HONOR_WIN[key] = result
    return result


def is_winning(counts: Sequence[int]) -> bool:
    """Whether the 34 ``counts`` split into sets (pungs, chows inside a suit) and exactly
    one pair; ``False`` for any total that is not 2 (mod 3)."""
    if len(counts) != KINDS:
        raise ValueError(f"expected {KINDS} counts, got {len(counts)}")
    table = _SUIT_WIN
    key = tuple(counts[0:9])
    pairs = table.get(key)
    if pairs is None:
        pairs = _suit_win(key)
    if pairs > 1:
        return False
    key = tuple(counts[9:18])
    more = table.get(key)
    if more is None:
        more = _suit_win(key)
    pairs += more
    if pairs > 1:
        return False
    key = tuple(counts[18:27])
    more = table.get(key)
    if more is None:
        more = _suit_win(key)
    pairs += more
    if pairs > 1:
        return False
    key = tuple(counts[27:34])
    more = _HONOR_WIN.get(key)
    if more is None:
        more = _honor_win(key)
    return pairs + more == 1


# ---------------------------------------------------------------------------------------
# Readings.

_Reading = tuple[int, tuple[tuple[int, int], ...]]
"""(pair kind or -1, sets as (0 chow | 1 pung, kind)) inside one group, kinds relative."""


def _suit_readings(key: tuple[int, ...]) -> set[_Reading]:
    """Every reading of a suit's counts as sets and at most one pair."""
    found: set[_Reading] = set()
    c = list(key)
    sets: list[tuple[int, int]] = []

    def walk(i: int, pair: int) -> None:
        while i < 9 and c[i] == 0:
            i += 1
        if i == 9:
            found.add((pair, tuple(sorted(sets))))
            return
        if pair < 0 and c[i] >= 2:
            c[i] -= 2
            walk(i, i)
            c[i] += 2
        if c[i] >= 3:
            c[i] -= 3
            sets.append((1, i))
            walk(i, pair)
            sets.pop()
            c[i] += 3
        if i <= 6 and c[i + 1] and c[i + 2]:
            for k in (i, i + 1, i + 2):
                c[k] -= 1
            sets.append((0, i))
            walk(i, pair)
            sets.pop()
            for k in (i, i + 1, i + 2):
                c[k] += 1

    walk(0, -1)
    return found


def _honor_readings(key: tuple[int, ...]) -> set[_Reading]:
    """The reading of the honors (pungs and pairs only), if they have one pair at most."""
    pairs = [k for k, c in enumerate(key) if c == 2]
    if any(c not in (0, 2, 3) for c in key) or len(pairs) > 1:
        return set()
    return {(pairs[0] if pairs else -1, tuple((1, k) for k, c in enumerate(key) if c == 3))}


def decompositions(counts: Sequence[int]) -> list[Decomposition]:
    """Every distinct reading of a winning hand as a pair and sets (``[]`` if the hand is
    not winning), sorted by pair and sets; ``111222333`` reads as three pungs or three
    chows."""
    if not is_winning(counts):
        return []
    groups = [
        (_suit_readings(tuple(counts[0:9])), 0),
        (_suit_readings(tuple(counts[9:18])), 9),
        (_suit_readings(tuple(counts[18:27])), 18),
        (_honor_readings(tuple(counts[27:34])), 27),
    ]
    kinds = (SetKind.CHOW, SetKind.PUNG)
    result: set[Decomposition] = set()
    for choice in itertools.product(*(sorted(readings) for readings, _ in groups)):
        pairs = [pair + base for (pair, _), (_, base) in zip(choice, groups, strict=True)
                 if pair >= 0]
        if len(pairs) != 1:
            continue
        sets = [(kinds[pung], kind + base)
                for (_, group_sets), (_, base) in zip(choice, groups, strict=True)
                for pung, kind in group_sets]
        sets.sort(key=lambda s: (s[0].value, s[1]))
        result.add(Decomposition(pairs[0], tuple(sets)))
    return sorted(result, key=lambda d: (d.pair, [(s.value, k) for s, k in d.sets]))


# ---------------------------------------------------------------------------------------
# Shanten.

_Vector = tuple[int, ...]
_VECTORS: list[_Vector] = []
"""Interned cost vectors: ``cost[2 * sets + pair]`` = the fewest tiles to draw for a group
to hold exactly that many sets and pairs (at most 4 of a kind)."""
_VECTOR_IDS: dict[_Vector, int] = {}
_SUIT_VEC: dict[tuple[int, ...], int] = {}
"""Suit counts -> vector id."""
_HONOR_VEC: dict[tuple[int, ...], int] = {}
"""Honor counts -> vector id."""
_JOINED: dict[tuple[int, int], int] = {}
"""(vector id, vector id) -> id of the two groups' joint vector."""
_FINAL: dict[tuple[int, int], tuple[int, ...]] = {}
"""(suits 1-2 joint id, suit 3 and honors joint id) -> shanten for 0..5 sets."""
_RANKS: dict[int, _Vector] = {}
"""The suit programme's memo: (rank, counts from that rank on in base 5, chows started
one and two ranks before) -> the cost vector of the ranks from there on."""
_SHARED: dict[_Vector, _Vector] = {}
"""One copy of each vector in ``_RANKS`` (they repeat a lot)."""
_ZERO: _Vector = (0,) + (_INF,) * (_WIDTH - 1)


def _intern(vector: _Vector) -> int:
    """The id of ``vector`` (added if new)."""
    found = _VECTOR_IDS.get(vector)
    if found is None:
        found = _VECTOR_IDS[vector] = len(_VECTORS)
        _VECTORS.append(vector)
    return found


def _clear_shanten_tables() -> None:
    """Empty every shanten table at once (the ids must stay consistent)."""
    _VECTORS.clear()
    _VECTOR_IDS.clear()
    _SUIT_VEC.clear()
    _HONOR_VEC.clear()
    _JOINED.clear()
    _FINAL.clear()
    _RANKS.clear()
    _SHARED.clear()


def _ranks(i: int, rest: int, older: int, newer: int) -> _Vector:
    """Costs for the suit's ranks ``i..8`` whose counts are ``rest`` (base 5, rank ``i``
    lowest), with ``older`` chows started at ``i - 2`` and ``newer`` at ``i - 1`` still
    needing a tile of rank ``i``."""
    if i == 9:
        return _ZERO
    memo = ((rest * 9 + i) * 5 + older) * 5 + newer
    found = _RANKS.get(memo)
    if found is not None:
        return found
    held = rest % 5
    above = rest // 5
    best = [_INF] * _WIDTH
    started = older + newer
    for pair in (0, 1):
        for pung in (0, 1):
            base = started + 3 * pung + 2 * pair
            if base > 4:
                continue
            for chows in range(4 - base + 1 if i <= 6 else 1):
                used = base + chows
                cost = used - held if used > held else 0
                tail = _ranks(i + 1, above, newer, chows)
                shift = 2 * (chows + pung) + pair
                for j in range(0, _WIDTH - shift, 1 + pair):
                    value = tail[j] + cost
                    if value < best[j + shift]:
                        best[j + shift] = value
    vector = tuple(min(v, _INF) for v in best)
    found = _RANKS[memo] = _SHARED.setdefault(vector, vector)
    return found


def _suit_vector(key: tuple[int, ...]) -> int:
    """The ``_SUIT_VEC`` entry of a suit, computed and stored."""
    if max(len(_RANKS), len(_JOINED), len(_FINAL), len(_SUIT_VEC)) >= _CACHE_LIMIT:
        _clear_shanten_tables()
    _check(key)
    code = 0
    for count in reversed(key):
        code = code * 5 + count
    found = _SUIT_VEC[key] = _intern(_ranks(0, code, 0, 0))
    return found


def _honor_vector(key: tuple[int, ...]) -> int:
    """The ``_HONOR_VEC`` entry of the honors, computed and stored: each honor kind is
    nothing, a pung or the pair."""
    _check(key)
    vector = list(_ZERO)
    for count in key:
        pung = max(0, 3 - count)
        pair = max(0, 2 - count)
        new = list(vector)
        for j in range(_WIDTH):
            if j + 2 < _WIDTH:
                new[j + 2] = min(new[j + 2], vector[j] + pung)
            if j % 2 == 0:
                new[j + 1] = min(new[j + 1], vector[j] + pair)
        vector = [min(v, _INF) for v in new]
    found = _HONOR_VEC[key] = _intern(tuple(vector))
    return found


def _join(a: int, b: int) -> int:
    """The id of the joint vector of two groups, computed and stored."""
    left, right = _VECTORS[a], _VECTORS[b]
    best = [_INF] * _WIDTH
    for i in range(_WIDTH):
        x = left[i]
        if x >= _INF:
            continue
        # i + j: sets add up; at most one of the two has the pair.
        for j in range(0, _WIDTH - i, 2 if i & 1 else 1):
            value = x + right[j]
            if value < best[i + j]:
                best[i + j] = value
    found = _JOINED[a, b] = _intern(tuple(min(v, _INF) for v in best))
    return found


def _final(a: int, b: int) -> tuple[int, ...]:
    """Shanten of two joint groups for 0..5 sets and the pair, computed and stored."""
    left, right = _VECTORS[a], _VECTORS[b]
    final = tuple(
        min(min(left[2 * sets] + right[2 * (need - sets) + 1],
                left[2 * sets + 1] + right[2 * (need - sets)]) for sets in range(need + 1)) - 1
        for need in range(_MAX_SETS + 1))
    _FINAL[a, b] = final
    return final


def shanten(counts: Sequence[int]) -> int:
    """Tile exchanges still needed to reach tenpai (``0``); ``-1`` for a winning hand.
    Totals 1 or 2 (mod 3), at most ``MAX_TILES``; sets needed = total // 3; sets and a
    pair only; exact under the 4-copies limit of the hand's own tiles."""
    if len(counts) != KINDS:
        raise ValueError(f"expected {KINDS} counts, got {len(counts)}")
    total = sum(counts)
    if total % 3 == 0 or total > MAX_TILES:
        raise ValueError(f"a hand of {total} tiles has no shanten (1 or 2 mod 3, at most "
                         f"{MAX_TILES})")
    key = tuple(counts[0:9])
    a = _SUIT_VEC.get(key)
    if a is None:
        a = _suit_vector(key)
    key = tuple(counts[9:18])
    b = _SUIT_VEC.get(key)
    if b is None:
        b = _suit_vector(key)
    key = tuple(counts[18:27])
    c = _SUIT_VEC.get(key)
    if c is None:
        c = _suit_vector(key)
    key = tuple(counts[27:34])
    h = _HONOR_VEC.get(key)
    if h is None:
        h = _honor_vector(key)
    ab = _JOINED.get((a, b))
    if ab is None:
        ab = _join(a, b)
    ch = _JOINED.get((c, h))
    if ch is None:
        ch = _join(c, h)
    final = _FINAL.get((ab, ch))
    if final is None:
        final = _final(ab, ch)
    return final[total // 3]


def waits(counts: Sequence[int]) -> list[int]:
    """The kinds that complete a hand of 1 (mod 3) tiles, in kind order; kinds the hand
    already holds all 4 of are not waits."""
    if len(counts) != KINDS:
        raise ValueError(f"expected {KINDS} counts, got {len(counts)}")
    if sum(counts) % 3 != 1:
        raise ValueError("waits need a hand of 1 (mod 3) tiles")
    hand = list(counts)
    found = []
    for kind in range(KINDS):
        if hand[kind] >= 4:
            continue
        hand[kind] += 1
        if is_winning(hand):
            found.append(kind)
        hand[kind] -= 1
    return found
