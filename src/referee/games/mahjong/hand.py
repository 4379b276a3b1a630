"""Hand checks of a Taiwanese 16-tile hand: winning or not, every reading of a winning
hand, shanten and waits. Pure functions over the 34 per-kind counts of the concealed
tiles (``tiles.counts_of``); exposed melds are never in the counts.

Each suit (9 kinds) is worked out on its own and memoized under the tuple of its 9
counts; the honors (7 kinds) take only pungs and a pair. The suits' and the honors'
answers are then combined, so a check is a few dictionary look-ups once the tables are
warm.

Shanten is exact, the 4-copies limit included: it is ``d - 1`` where ``d`` is the least
number of tiles to draw to hold a winning hand (a *target*: ``total // 3`` sets and a
pair, at most 4 tiles of a kind; only the hand's own tiles count, the others are
unseen). Unlike the usual ``2*sets - 2*complete - partials - pair`` formula it never
counts a wait on a kind the hand already holds all 4 of (``1111`` + sets is 1-shanten,
not tenpai).

How ``d`` is found: for each group (a suit, the honors) a *cost vector* gives, for 0..5
sets and 0..1 pair in that group, the fewest tiles to draw for them; the vectors are
joined by (min, +) over how the sets and the pair split between the groups. A suit's
vector comes from a dynamic programme over its ranks (how many chows start at a rank,
a pung there, the pair there), ranks 1..5 and 6..9 apart, joined over the chows that
cross between them. The honors' vector is exact; a suit's only looks at *irreducible*
targets, which is enough: a set of a suit whose every tile is one to draw (each of its
ranks holds more target tiles than hand tiles) costs 3, and the same set drawn from
scratch as a pung of an honor no other set uses (there are 7 honors and at most 6 sets
and pairs) costs at most 3; the pair likewise costs 2. So a cheapest target has no
such set, which means: no more chows start at a rank than the most tiles held on their
three ranks, a pung only where at most 2 of its tiles are drawn, the pair only where
at most 1 is.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from referee.core.suits import suit_is_sets
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




def _suit_win(key: tuple[int, ...]) -> int:
    """The ``_SUIT_WIN`` entry of a suit, computed and stored."""
    _check(key)
    c = list(key)
    total = sum(c)
    result = _BAD
    if total % 3 == 0:
        result = 0 if suit_is_sets(c, 0) else _BAD
    elif total % 3 == 2:
        for i in range(9):
            if c[i] >= 2:
                c[i] -= 2
                ok = suit_is_sets(c, 0)
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
    pairs = 0
    for low in (0, 9, 18):
        key = tuple(counts[low:low + 9])
        more = _SUIT_WIN.get(key)
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
to hold exactly that many sets and pairs (at most 4 of a kind; in a suit, irreducible
targets only, see the module docstring); ``_INF`` where none."""
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
"""``_ranks`` by (rank index, counts from there in base 5, chows still open)."""
_LOW: dict[tuple[int, ...], tuple[tuple[int, int], ...]] = {}
"""Counts of a suit's ranks 1..5 -> ``_low_ranks``."""
_HIGH: dict[int, tuple[int, ...]] = {}
"""Counts of a suit's ranks 6..9 in base 5 -> ``_high_ranks``."""
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
    _LOW.clear()
    _HIGH.clear()


def _ranks(i: int, rest: int, older: int, newer: int) -> _Vector:
    """The cost vector of a suit's ranks ``i + 1 .. 9`` (``rest``: their counts in base 5,
    rank ``i + 1`` lowest) when ``older`` chows started at rank ``i - 1`` and ``newer`` at
    rank ``i`` still take a tile of rank ``i + 1``; backwards, stored in ``_RANKS``."""
    held = rest % 5
    above = rest // 5
    best = [_INF] * _WIDTH
    started = older + newer
    table = _RANKS
    # Irreducible targets only (see the module docstring): at most as many chows start
    # here as the most tiles held on their three ranks; a pung only if at most 2 tiles of
    # the rank are drawn, the pair only if at most 1.
    most = max(held, above % 5, above // 5 % 5) if i <= 6 else 0
    for pair in (0, 1):
        for pung in (0, 1):
            base = started + 3 * pung + 2 * pair
            room = min(4, held + 1 if pair else held + 2 if pung else 4) - base
            if room < 0:
                continue
            for chows in range(min(room, most) + 1):
                used = base + chows
                cost = used - held if used > held else 0
                tail = _ZERO if i == 8 else table.get(
                    ((above * 9 + i + 1) * 5 + newer) * 5 + chows)
                if tail is None:
                    tail = _ranks(i + 1, above, newer, chows)
                shift = 2 * (chows + pung) + pair
                # Values never exceed _INF: only a smaller value replaces one.
                for j in range(0, _WIDTH - shift, 1 + pair):
                    value = tail[j] + cost
                    if value < best[j + shift]:
                        best[j + shift] = value
    found = table[((rest * 9 + i) * 5 + older) * 5 + newer] = tuple(best)
    return found


def _low_ranks(key: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """For ranks 1..5 of a suit (``key``: their counts), forwards: (chows started at rank
    4 and at rank 5 as ``5 * at4 + at5``, id of the cost vector of ranks 1..5) for each
    such pair some target reaches; stored in ``_LOW``."""
    states: dict[tuple[int, int], list[int]] = {(0, 0): list(_ZERO)}
    for i in range(5):
        held = key[i]
        # The chow bound needs the next two ranks: ranks 4 and 5 get it in _suit_vector.
        most = max(held, key[i + 1], key[i + 2]) if i <= 2 else 4
        reached: dict[tuple[int, int], list[int]] = {}
        for (older, newer), vector in states.items():
            started = older + newer
            for pair in (0, 1):
                for pung in (0, 1):
                    base = started + 3 * pung + 2 * pair
                    room = min(4, held + 1 if pair else held + 2 if pung else 4) - base
                    for chows in range(min(room, most) + 1):
                        used = base + chows
                        cost = used - held if used > held else 0
                        shift = 2 * (chows + pung) + pair
                        best = reached.get((newer, chows))
                        if best is None:
                            best = reached[newer, chows] = [_INF] * _WIDTH
                        for j in range(0, _WIDTH - shift, 1 + pair):
                            value = vector[j] + cost
                            if value < best[j + shift]:
                                best[j + shift] = value
        states = reached
    found = _LOW[key] = tuple(sorted((5 * older + newer, _intern(tuple(vector)))
                                     for (older, newer), vector in states.items()))
    return found


def _high_ranks(code: int) -> tuple[int, ...]:
    """For ranks 6..9 of a suit (``code``: their counts in base 5), the id of their cost
    vector after the chows ``5 * at4 + at5`` started at ranks 4 and 5 (-1 where more
    than 4); stored in ``_HIGH``."""
    found = _HIGH[code] = tuple(_intern(_ranks(5, code, older, newer)) if older + newer <= 4
                                else -1 for older in range(5) for newer in range(5))
    return found


def _suit_vector(key: tuple[int, ...]) -> int:
    """The ``_SUIT_VEC`` entry of a suit, computed and stored: ranks 1..5 and 6..9 apart
    (each memoized; there are few), joined over the chows crossing between them. A suit
    read from 9 down to 1 has the same sets, so the reversed counts share the entry."""
    mirror = _SUIT_VEC.get(key[::-1])
    if mirror is not None:
        _SUIT_VEC[key] = mirror
        return mirror
    _check(key)
    low_key = key[0:5]
    low = _LOW.get(low_key)
    if low is None:
        low = _low_ranks(low_key)
    code = key[5] + 5 * (key[6] + 5 * (key[7] + 5 * key[8]))
    high = _HIGH.get(code)
    if high is None:
        high = _high_ranks(code)
    # The chow bound of ranks 4 and 5, which needs ranks 6 and 7.
    most4 = max(key[3], key[4], key[5])
    most5 = max(key[4], key[5], key[6])
    joined = []
    for state, a in low:
        if state // 5 > most4 or state % 5 > most5:
            continue
        b = high[state]
        both = _JOINED.get((a, b))
        if both is None:
            both = _join(a, b)
        joined.append(_VECTORS[both])
    vector_id = _SUIT_VEC[key] = _intern(tuple(map(min, *joined)) if len(joined) > 1
                                         else joined[0])
    return vector_id


def _honor_vector(key: tuple[int, ...]) -> int:
    """The ``_HONOR_VEC`` entry of the honors, computed and stored: each honor kind is
    nothing, a pung or the pair (only the sorted counts matter)."""
    _check(key)
    same = tuple(sorted(key))
    found = _HONOR_VEC.get(same)
    if found is None:
        vector = list(_ZERO)
        for count in same:
            pung = max(0, 3 - count)
            pair = max(0, 2 - count)
            new = list(vector)
            for j in range(_WIDTH):
                if j + 2 < _WIDTH:
                    new[j + 2] = min(new[j + 2], vector[j] + pung)
                if j % 2 == 0:
                    new[j + 1] = min(new[j + 1], vector[j] + pair)
            vector = [min(v, _INF) for v in new]
        found = _HONOR_VEC[same] = _intern(tuple(vector))
    _HONOR_VEC[key] = found
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
    found = _JOINED[a, b] = _intern(tuple(best))
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
    table = _SUIT_VEC
    a = table.get(tuple(counts[0:9]))
    b = table.get(tuple(counts[9:18]))
    c = table.get(tuple(counts[18:27]))
    h = _HONOR_VEC.get(tuple(counts[27:34]))
    if a is None or b is None or c is None or h is None:
        return _shanten_slow(counts, total)
    ab = _JOINED.get((a, b))
    ch = _JOINED.get((c, h))
    if ab is None or ch is None:
        return _shanten_slow(counts, total)
    final = _FINAL.get((ab, ch))
    if final is None:
        return _shanten_slow(counts, total)
    return final[total // 3]


def _shanten_slow(counts: Sequence[int], total: int) -> int:
    """``shanten`` when some table misses: empties the tables first if one is full (never
    in the middle of a computation, as vector ids would go stale), then fills them."""
    if max(len(_SUIT_VEC), len(_HONOR_VEC), len(_JOINED), len(_FINAL)) >= _CACHE_LIMIT:
        _clear_shanten_tables()
    ids = []
    for start in (0, 9, 18):
        key = tuple(counts[start:start + 9])
        found = _SUIT_VEC.get(key)
        ids.append(_suit_vector(key) if found is None else found)
    key = tuple(counts[27:34])
    found = _HONOR_VEC.get(key)
    ids.append(_honor_vector(key) if found is None else found)
    a, b, c, h = ids
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
