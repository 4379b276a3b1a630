"""Winning shapes over 34-kind counts: agari, tenpai, waits and riichi discards, fast.

A hand is a list of 34 counts (kinds as in :mod:`referee.games.riichi.tiles`); only the
concealed tiles count, the melds are already complete. The checks split the counts into
four groups, the three suits (9 counts each) and the honors (7 counts), and look each group
up in a memo table filled on first use (a group key is the tuple of its counts; a few
thousand keys cover ordinary play). For each group the table holds:

- whether it is complete: sets only (sum % 3 == 0) or sets and one pair (sum % 3 == 2);
- its waits: the ranks that, added once, make it complete (never a fifth copy: a rank the
  group already holds four of is no wait, as on Tenhou, where a hand waiting only on a
  tile it holds all four of is not tenpai);
- what one removal can give: a complete group (with or without pair), or a group with
  waits (used to know, before a riichi, whether some discard leaves the hand tenpai).

A whole hand is then combined from its four groups: exactly one pair overall, every group
complete (agari), or one group waiting (tenpai). Seven pairs (seven distinct kinds) and
thirteen orphans are checked apart, on a fully concealed hand (13 or 14 tiles) only.

:func:`shanten` is the shanten number (regular hands, seven pairs, thirteen orphans), by a
small dynamic programme over memoized group decompositions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Final

from referee.core.suits import suit_is_sets

__all__ = [
    "ORPHANS",
    "can_riichi_discard",
    "counts_of",
    "improving_kinds",
    "is_agari",
    "is_tenpai",
    "kinds_of_mask",
    "kokushi_waits_mask",
    "shanten",
    "tenpai_discards",
    "waits",
    "waits_mask",
]

ORPHANS: Final = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
"""The terminal and honor kinds (kokushi's thirteen)."""
_ORPHAN_MASK: Final = sum(1 << k for k in ORPHANS)

# Group status.
_ZERO: Final = 0  # complete with no pair (sets only)
_BAD: Final = 1  # not complete
_PAIR: Final = 2  # complete with exactly one pair
# Removal flags: one tile less can make the group ...
_RM_ZERO: Final = 1  # complete, no pair
_RM_PAIR: Final = 2  # complete with its pair
_RM_WAIT_ZERO: Final = 4  # waiting, and complete without pair once the wait comes
_RM_WAIT_PAIR: Final = 8  # waiting, and complete with a pair once the wait comes

Info = tuple[int, int, int, int, int, int, int]
"""(status, waits as a bit mask over the group's ranks, removal flags, tile count, ranks
held twice, ranks held once, ranks held twice or more)."""

_SUIT_DONE: Final[dict[tuple[int, ...], bool]] = {}
_HONOR_DONE: Final[dict[tuple[int, ...], bool]] = {}
_SUIT_INFO: Final[dict[tuple[int, ...], Info]] = {}
_HONOR_INFO: Final[dict[tuple[int, ...], Info]] = {}




def _suit_done(key: tuple[int, ...]) -> bool:
    """Whether a suit group is complete: sets, plus one pair when its size is 2 mod 3."""
    done = _SUIT_DONE.get(key)
    if done is not None:
        return done
    total = sum(key)
    c = list(key)
    if total % 3 == 0:
        done = suit_is_sets(c)
    elif total % 3 == 2:
        done = False
        for r in range(9):
            if c[r] >= 2:
                c[r] -= 2
                done = suit_is_sets(c)
                c[r] += 2
                if done:
                    break
    else:
        done = False
    _SUIT_DONE[key] = done
    return done


def _honor_done(key: tuple[int, ...]) -> bool:
    """Whether an honor group is complete: triplets, plus one pair when size is 2 mod 3."""
    done = _HONOR_DONE.get(key)
    if done is None:
        pairs = key.count(2)
        done = key.count(1) == 0 and key.count(4) == 0 and pairs == (1 if sum(key) % 3 == 2
                                                                       else 0)
        _HONOR_DONE[key] = done
    return done


def _info(key: tuple[int, ...], honor: bool) -> Info:
    """The table entry of a group, computed (and stored) on first use."""
    table = _HONOR_INFO if honor else _SUIT_INFO
    found = table.get(key)
    if found is not None:
        return found
    done = _honor_done if honor else _suit_done
    total = sum(key)
    status = (_PAIR if total % 3 == 2 else _ZERO) if done(key) else _BAD
    wait = 0
    if total % 3 != 0:
        c = list(key)
        for r in range(len(c)):
            if c[r] < 4:
                c[r] += 1
                if done(tuple(c)):
                    wait |= 1 << r
                c[r] -= 1
    removal = 0
    if total:
        c = list(key)
        for r in range(len(c)):
            if c[r]:
                c[r] -= 1
                sub = _info(tuple(c), honor)
                c[r] += 1
                if sub[0] == _ZERO:
                    removal |= _RM_ZERO
                elif sub[0] == _PAIR:
                    removal |= _RM_PAIR
                if sub[1]:
                    removal |= _RM_WAIT_PAIR if sub[3] % 3 == 1 else _RM_WAIT_ZERO
    entry = (status, wait, removal, total, key.count(2), key.count(1),
             len(key) - key.count(0) - key.count(1))
    table[key] = entry
    return entry


def _groups(counts: Sequence[int]) -> tuple[Info, Info, Info, Info]:
    """The table entries of the three suits and the honors."""
    suit = _SUIT_INFO
    c = counts  # the keys built item by item: no slices made first
    m = (c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8])
    p = (c[9], c[10], c[11], c[12], c[13], c[14], c[15], c[16], c[17])
    s = (c[18], c[19], c[20], c[21], c[22], c[23], c[24], c[25], c[26])
    z = (c[27], c[28], c[29], c[30], c[31], c[32], c[33])
    return (suit.get(m) or _info(m, False), suit.get(p) or _info(p, False),
            suit.get(s) or _info(s, False), _HONOR_INFO.get(z) or _info(z, True))


_SHIFT: Final = (0, 9, 18, 27)


def counts_of(tiles: Iterable[int]) -> list[int]:
    """The 34 kind counts of some tile ids (0..135)."""
    counts = [0] * 34
    for t in tiles:
        counts[t >> 2] += 1
    return counts


def is_agari(counts: Sequence[int]) -> bool:
    """Whether the concealed counts (3n+2 tiles) are a complete hand: sets and one pair,
    or (14 tiles) seven distinct pairs or thirteen orphans."""
    g = _groups(counts)
    statuses = (g[0][0], g[1][0], g[2][0], g[3][0])
    if _BAD not in statuses and statuses.count(_PAIR) == 1:
        return True
    if g[0][3] + g[1][3] + g[2][3] + g[3][3] != 14:
        return False
    return _chiitoi_agari(counts) or _kokushi_agari(counts)


def _chiitoi_agari(counts: Sequence[int]) -> bool:
    return counts.count(2) == 7


def _kokushi_agari(counts: Sequence[int]) -> bool:
    pairs = 0
    for k in ORPHANS:
        n = counts[k]
        if n == 0 or n > 2:
            return False
        pairs += n == 2
    return pairs == 1


def waits_mask(counts: Sequence[int]) -> int:
    """The kinds (a 34-bit mask) that complete the concealed counts (3n+1 tiles); no
    fifth copies; 0 when the hand is not tenpai."""
    return _waits(_groups(counts), counts)


def _waits(g: Sequence[Info], counts: Sequence[int]) -> int:
    """:func:`waits_mask` of ``counts``, whose four groups' entries are ``g``."""
    bad = 0
    pairs = 0
    for info in g:
        if info[0] == _BAD:
            bad += 1
        elif info[0] == _PAIR:
            pairs += 1
    mask = 0
    for i in range(4):
        info = g[i]
        if not info[1]:
            continue
        other_bad = bad - (info[0] == _BAD)
        if other_bad:
            continue
        other_pairs = pairs - (info[0] == _PAIR)
        if (info[3] % 3 == 1 and other_pairs == 0) or (info[3] % 3 == 2 and other_pairs == 1):
            mask |= info[1] << _SHIFT[i]
    if g[0][3] + g[1][3] + g[2][3] + g[3][3] == 13:
        if (g[0][4] + g[1][4] + g[2][4] + g[3][4] == 6
                and g[0][5] + g[1][5] + g[2][5] + g[3][5] == 1):  # seven pairs, one to go
            mask |= 1 << counts.index(1)
        if g[3][3] >= 6:  # kokushi needs six honor kinds at least
            mask |= _kokushi_waits(counts)
    return mask


def _chiitoi_waits(counts: Sequence[int]) -> int:
    if counts.count(2) != 6 or counts.count(1) != 1:
        return 0
    return 1 << counts.index(1)


def kokushi_waits_mask(counts: Sequence[int]) -> int:
    """The thirteen-orphans waits (34-bit mask) of 13 concealed tiles; 0 if none."""
    return _kokushi_waits(counts)


def _kokushi_waits(counts: Sequence[int]) -> int:
    present = 0
    pairs = 0
    total = 0
    for k in ORPHANS:
        n = counts[k]
        if n:
            if n > 2:
                return 0
            present += 1
            pairs += n == 2
            total += n
    if total != 13:
        return 0
    if present == 13:
        return _ORPHAN_MASK
    if present == 12 and pairs == 1:
        return sum(1 << k for k in ORPHANS if not counts[k])
    return 0


def kinds_of_mask(mask: int) -> list[int]:
    """The kinds whose bits are set in a 34-bit mask, ascending."""
    out = []
    k = 0
    while mask:
        if mask & 1:
            out.append(k)
        mask >>= 1
        k += 1
    return out


def waits(counts: Sequence[int]) -> list[int]:
    """The kinds that complete the concealed counts (3n+1 tiles), ascending."""
    return kinds_of_mask(waits_mask(counts))


def is_tenpai(counts: Sequence[int]) -> bool:
    """Whether the concealed counts (3n+1 tiles) wait on at least one kind."""
    return waits_mask(counts) != 0


def can_riichi_discard(counts: Sequence[int]) -> bool:
    """Whether some discard from the concealed counts (3n+2 tiles) leaves them tenpai."""
    g = _groups(counts)
    st = (g[0][0], g[1][0], g[2][0], g[3][0])
    # One discard and one wait touch at most two groups: the others must be complete.
    for d in range(4) if st.count(_BAD) <= 2 else ():
        rm = g[d][2]
        if not rm:
            continue
        # The discard's group keeps waiting: every other group complete, pairs to fit.
        others_ok = True
        other_pairs = 0
        for j in range(4):
            if j != d:
                if st[j] == _BAD:
                    others_ok = False
                    break
                other_pairs += st[j] == _PAIR
        if others_ok and ((rm & _RM_WAIT_PAIR and other_pairs == 0)
                          or (rm & _RM_WAIT_ZERO and other_pairs == 1)):
            return True
        # The discard's group becomes complete and another group waits.
        for d_status, flag in ((_ZERO, _RM_ZERO), (_PAIR, _RM_PAIR)):
            if not rm & flag:
                continue
            for w in range(4):
                if w == d or not g[w][1]:
                    continue
                pairs = 1 if d_status == _PAIR else 0
                ok = True
                for j in range(4):
                    if j != d and j != w:
                        if st[j] == _BAD:
                            ok = False
                            break
                        pairs += st[j] == _PAIR
                if not ok:
                    continue
                size = g[w][3] % 3
                if (size == 1 and pairs == 0) or (size == 2 and pairs == 1):
                    return True
    if g[0][3] + g[1][3] + g[2][3] + g[3][3] == 14:
        return ((g[0][6] + g[1][6] + g[2][6] + g[3][6] >= 6 and _chiitoi_riichi(counts))
                or (g[3][3] >= 6 and _kokushi_riichi(counts)))
    return False


def _chiitoi_riichi(counts: Sequence[int]) -> bool:
    if 34 - counts.count(0) - counts.count(1) < 6:  # six kinds held twice or more
        return False
    c = list(counts)
    for k in range(34):
        if c[k]:
            c[k] -= 1
            found = _chiitoi_waits(c) != 0
            c[k] += 1
            if found:
                return True
    return False


def _kokushi_riichi(counts: Sequence[int]) -> bool:
    present = sum(1 for k in ORPHANS if counts[k])
    return present >= 12 and sum(counts[k] for k in ORPHANS) >= 13


def tenpai_discards(counts: Sequence[int]) -> list[int]:
    """The kinds whose discard leaves the concealed counts (3n+2 tiles) tenpai."""
    c = list(counts)
    g = list(_groups(c))
    out = []
    for d in range(4):  # a discard changes its own group only
        low = _SHIFT[d]
        high = low + (9 if d < 3 else 7)
        honor = d == 3
        table = _HONOR_INFO if honor else _SUIT_INFO
        kept = g[d]
        for k in range(low, high):
            if c[k]:
                c[k] -= 1
                key = tuple(c[low:high])
                g[d] = table.get(key) or _info(key, honor)
                if _waits(g, c):
                    out.append(k)
                c[k] += 1
        g[d] = kept
    return out


# ------------------------------------------------------------------------------ shanten


@lru_cache(maxsize=1 << 16)
def _group(key: tuple[int, ...], honor: bool) -> frozenset[tuple[int, int, int]]:
    """The (sets, partial sets, pair) decompositions of one suit's or the honors' counts."""
    counts = list(key)
    i = next((r for r, c in enumerate(counts) if c), -1)
    if i < 0:
        return frozenset({(0, 0, 0)})
    out: set[tuple[int, int, int]] = set()

    def add(dm: int, dt: int, dp: int, removed: Iterable[int]) -> None:
        rest = list(counts)
        for r in removed:
            rest[r] -= 1
        for m, t, p in _group(tuple(rest), honor):
            if p + dp <= 1:
                out.add((min(m + dm, 4), min(t + dt, 4), p + dp))

    c = counts[i]
    if c >= 3:
        add(1, 0, 0, (i, i, i))
    if c >= 2:
        add(0, 0, 1, (i, i))
        add(0, 1, 0, (i, i))
    if not honor:
        if i + 2 < 9 and counts[i + 1] and counts[i + 2]:
            add(1, 0, 0, (i, i + 1, i + 2))
        if i + 1 < 9 and counts[i + 1]:
            add(0, 1, 0, (i, i + 1))
        if i + 2 < 9 and counts[i + 2]:
            add(0, 1, 0, (i, i + 2))
    add(0, 0, 0, (i,))
    return frozenset(_pareto(out))


def _pareto(options: set[tuple[int, int, int]]) -> set[tuple[int, int, int]]:
    """Drop the decompositions another one beats in sets, partial sets and pair."""
    return {o for o in options
            if not any(x != o and x[0] >= o[0] and x[1] >= o[1] and x[2] >= o[2]
                       for x in options)}


def shanten(counts: Sequence[int], melds: int = 0) -> int:
    """The shanten number of the concealed counts with ``melds`` called sets (-1: complete,
    0: tenpai); seven pairs and thirteen orphans count only for a closed hand."""
    key = tuple(counts)
    table = _merge(_merge(_START[min(melds, 4)], _table(key[0:9], False)),
                   _merge(_table(key[9:18], False), _table(key[18:27], False)))
    best = _regular(_merge(table, _table(key[27:34], True)))
    if melds == 0 and sum(key) >= 13:
        best = min(best, _special(*_special_counts(key)))
    return best


def _special_counts(key: Sequence[int]) -> tuple[int, int, int, int]:
    """What seven pairs and thirteen orphans depend on: (kinds held twice or more, kinds
    held, orphan kinds held, 1 if an orphan kind is held twice or more)."""
    pairs = distinct = orphans = doubled = 0
    for c in key:
        distinct += c > 0
        pairs += c >= 2
    for k in ORPHANS:
        orphans += key[k] > 0
        doubled |= key[k] >= 2
    return pairs, distinct, orphans, doubled


def _special(pairs: int, distinct: int, orphans: int, doubled: int) -> int:
    """The lower shanten of seven pairs and of thirteen orphans (see _special_counts)."""
    return min(6 - pairs + max(0, 7 - distinct), 13 - orphans - doubled)


_Table = tuple[int, ...]
"""Per pair flag p (0, 1) and set count m (0..4), at p * 5 + m: the most partial sets of
a decomposition (-1: none has that many sets and pairs)."""

_START: tuple[_Table, ...] = tuple(
    tuple(0 if i == m else -1 for i in range(10)) for m in range(5))
"""The table of nothing yet, with ``m`` sets already called."""


@lru_cache(maxsize=1 << 16)
def _table(key: tuple[int, ...], honor: bool) -> _Table:
    """The table of one suit's or the honors' counts."""
    best = [-1] * 10
    for m, t, p in _group(key, honor):
        if t > best[p * 5 + m]:
            best[p * 5 + m] = t
    return tuple(best)


@lru_cache(maxsize=1 << 16)
def _merge(a: _Table, b: _Table) -> _Table:
    """The table of two groups together (at most four sets, at most one pair)."""
    out = [-1] * 10
    for i in range(10):
        ta = a[i]
        if ta < 0:
            continue
        pa, ma = divmod(i, 5)
        for j in range(10 if pa == 0 else 5):
            tb = b[j]
            if tb >= 0:
                pb, mb = divmod(j, 5)
                k = (pa + pb) * 5 + min(ma + mb, 4)
                if ta + tb > out[k]:
                    out[k] = ta + tb
    return tuple(out)


@lru_cache(maxsize=1 << 12)
def _regular(table: _Table) -> int:
    """The shanten of sets and a pair: 8 - 2 sets - partial sets (at most what the sets
    leave room for) - the pair."""
    return min(8 - 2 * m - min(table[p * 5 + m], 4 - m) - p
               for p in (0, 1) for m in range(5) if table[p * 5 + m] >= 0)


def improving_kinds(counts: Sequence[int], melds: int = 0) -> int:
    """The kinds (a 34-bit mask) whose draw lowers the shanten of the counts (3n+1 tiles)
    with ``melds`` called sets: each kind as :func:`shanten` would judge the counts with it
    added, computed group by group (a fifth copy is never counted)."""
    key = tuple(counts)
    tables = [_table(key[lo:lo + 9], False) for lo in (0, 9, 18)] + [_table(key[27:34], True)]
    start = _START[min(melds, 4)]
    regular = _regular(_merge(_merge(start, tables[0]),
                              _merge(tables[1], _merge(tables[2], tables[3]))))
    total = sum(key)
    closed = melds == 0 and total + 1 >= 13
    pairs, distinct, orphans, doubled = _special_counts(key) if closed else (0, 0, 0, 0)
    base = regular
    if melds == 0 and total >= 13:
        base = min(base, _special(pairs, distinct, orphans, doubled))
    mask = 0
    for g, lo in enumerate((0, 9, 18, 27)):
        honor = g == 3
        size = 7 if honor else 9
        rest = start
        for h in range(4):
            if h != g:
                rest = _merge(rest, tables[h])
        sub = list(key[lo:lo + size])
        for r in range(size):
            c = sub[r]
            if c >= 4:
                continue
            if c == 0 and (honor or not any(
                    0 <= r + d < 9 and sub[r + d] for d in (-2, -1, 1, 2))):
                value = regular  # a lone new tile completes nothing
            else:
                sub[r] = c + 1
                value = _regular(_merge(rest, _table(tuple(sub), honor)))
                sub[r] = c
            if closed:
                orphan = lo + r in _ORPHAN_KINDS
                value = min(value, _special(pairs + (c == 1), distinct + (c == 0),
                                            orphans + (orphan and c == 0),
                                            doubled | (orphan and c == 1)))
            if value < base:
                mask |= 1 << (lo + r)
    return mask


_ORPHAN_KINDS: Final = frozenset(ORPHANS)
