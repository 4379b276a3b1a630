"""The player loop of the built-in mjai bots and the bot's own view of the game.

A :class:`View` follows the (masked) mjai events a seat receives and keeps what that seat
knows: its hand and melds, everyone's discards, riichi declarations, dora markers, the
tiles it has seen, the live wall's size, its furiten state, and whether the last event
asks it a decision. A *policy* maps a view with a decision to an mjai action dict.

The view's option checks (:meth:`View.can_tsumo`, :meth:`View.can_ron`,
:meth:`View.pon_options`, :meth:`View.chi_options`, :meth:`View.can_reach`) are
conservative: each says yes only when the engine's rules certainly allow the action, so a
built-in bot never answers illegally (it may miss a rare option instead).

:func:`run` is the process loop: one JSON object (or, mjai.app batched style, one JSON
array) a line on standard input, one answer line on standard output per line read.
:func:`shanten` is a small memoized shanten number (regular hands, seven pairs, thirteen
orphans) for the greedy policy.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Any, TextIO

from referee.games.riichi.melds import Meld, MeldType
from referee.games.riichi.scoring import WinInfo, evaluate
from referee.games.riichi.shape import ORPHANS, waits_mask
from referee.games.riichi.tiles import KINDS, parse_mjai, tile_of

__all__ = ["Policy", "View", "kind", "run", "shanten", "ukeire"]

Policy = Callable[["View"], dict[str, Any]]
"""A bot's brain: the mjai action (``{"type": "none"}`` to pass) for a view with a decision."""

NONE: dict[str, Any] = {"type": "none"}
_WINDS = "ESWN"


def kind(name: str) -> int:
    """The kind 0..33 of an mjai tile name."""
    return parse_mjai(name)[0]


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
    return _shanten(tuple(counts), melds)


@lru_cache(maxsize=1 << 16)
def _table(key: tuple[int, ...], honor: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per pair flag (0, 1) and set count m (0..4): the most partial sets (-1: none)."""
    best = [[-1] * 5, [-1] * 5]
    for m, t, p in _group(key, honor):
        if t > best[p][m]:
            best[p][m] = t
    return tuple(best[0]), tuple(best[1])


@lru_cache(maxsize=1 << 18)
def _shanten(counts: tuple[int, ...], melds: int) -> int:
    dp = [[-1] * 5, [-1] * 5]
    dp[0][min(melds, 4)] = 0
    for lo, hi, honor in ((0, 9, False), (9, 18, False), (18, 27, False), (27, 34, True)):
        table = _table(counts[lo:hi], honor)
        new = [[-1] * 5, [-1] * 5]
        for p in (0, 1):
            row = dp[p]
            for m in range(5):
                t = row[m]
                if t < 0:
                    continue
                for gp in (0, 1) if p == 0 else (0,):
                    g = table[gp]
                    target = new[p + gp]
                    for gm in range(5):
                        gt = g[gm]
                        if gt >= 0:
                            mm = min(m + gm, 4)
                            if t + gt > target[mm]:
                                target[mm] = t + gt
        dp = new
    best = min(8 - 2 * m - min(dp[p][m], 4 - m) - p
               for p in (0, 1) for m in range(5) if dp[p][m] >= 0)
    if melds == 0 and sum(counts) >= 13:
        pairs = sum(1 for c in counts if c >= 2)
        distinct = sum(1 for c in counts if c)
        best = min(best, 6 - pairs + max(0, 7 - distinct))
        orphans = sum(1 for k in ORPHANS if counts[k])
        best = min(best, 13 - orphans - (1 if any(counts[k] >= 2 for k in ORPHANS) else 0))
    return best


def ukeire(counts: list[int], melds: int, seen: Sequence[int]) -> int:
    """How many unseen tiles lower the shanten of the counts (3n+1 tiles)."""
    base = shanten(counts, melds)
    total = 0
    for k in range(KINDS):
        left = 4 - seen[k] - counts[k]
        if left <= 0 or not _near(counts, k):
            continue
        counts[k] += 1
        if shanten(counts, melds) < base:
            total += left
        counts[k] -= 1
    return total


def _near(counts: Sequence[int], k: int) -> bool:
    """Whether kind ``k`` can connect with the hand (held, or a suit neighbour within 2)."""
    if counts[k] or (k in ORPHANS and melds_free(counts)):
        return True
    if k >= 27:
        return False
    rank = k % 9
    return any(0 <= rank + d < 9 and counts[k + d] for d in (-2, -1, 1, 2))


def melds_free(counts: Sequence[int]) -> bool:
    """Whether the hand is a full closed one (thirteen orphans may still matter)."""
    return sum(counts) >= 13


# ------------------------------------------------------------------------------ the view


class View:
    """One seat's knowledge of the game, built from the events it receives."""

    def __init__(self, seat: int | None = None) -> None:
        self.seat = 0 if seat is None else seat
        self.names: list[str] = []
        self.scores = [25000] * 4
        self.kyoku_reset()

    def kyoku_reset(self) -> None:
        """Forget the last hand's state."""
        self.hand: list[str] = []
        self.melds: list[tuple[str, list[str]]] = []
        self.discards: list[list[int]] = [[] for _ in range(4)]
        self.riichi = [False] * 4
        self.riichi_at: list[int | None] = [None] * 4
        self.dora_markers: list[str] = []
        self.seen = [0] * KINDS
        self.live = 70
        self.bakaze = 0
        self.oya = 0
        self.drawn: str | None = None
        self.decision: str | None = None
        """``tsumo``, ``reach`` (discard the declaration tile), ``call`` (discard after a
        call), ``respond`` (another seat's ``last_discard``) or None."""
        self.last_discard: tuple[int, str] | None = None
        self.furiten_temp = False
        self.furiten_riichi = False
        self.kuikae: set[int] = set()
        self.reach_pending = False
        self._pass: int | None = None

    # ---------------------------------------------------------------- state

    @property
    def counts(self) -> list[int]:
        """The concealed hand as 34 kind counts."""
        out = [0] * KINDS
        for name in self.hand:
            out[kind(name)] += 1
        return out

    @property
    def opened(self) -> bool:
        """Whether a call opened the hand (an ankan does not)."""
        return any(t != "ankan" for t, _ in self.melds)

    def _waits(self, counts: list[int]) -> int:
        return waits_mask(counts) if sum(counts) % 3 == 1 else 0

    # ---------------------------------------------------------------- events

    def update(self, event: dict[str, Any]) -> None:
        """Follow one event (masked or not)."""
        kind_ = event.get("type")
        me = self.seat
        actor: int = event.get("actor", -1)
        self.decision = None
        if self._pass is not None:  # the tile we were offered has passed
            self._passed(self._pass)
            self._pass = None
        if kind_ == "start_game":
            if isinstance(event.get("id"), int):
                self.seat = event["id"]
            self.names = list(event.get("names") or [])
        elif kind_ == "start_kyoku":
            self.kyoku_reset()
            self.bakaze = _WINDS.index(event["bakaze"])
            self.oya = event["oya"]
            self.scores = list(event["scores"])
            self.hand = list(event["tehais"][me])
            self._see_marker(event["dora_marker"])
        elif kind_ == "tsumo":
            self.live -= 1
            if actor == me:
                self.hand.append(event["pai"])
                self.drawn = event["pai"]
                self.decision = "tsumo"
        elif kind_ == "dahai":
            pai = event["pai"]
            self.discards[actor].append(kind(pai))
            if actor == me:
                self.hand.remove(pai)
                self.drawn = None
                self.kuikae = set()
                self.furiten_temp = False
            else:
                self.seen[kind(pai)] += 1
                self.last_discard = (actor, pai)
                self.decision = "respond"
                self._pass = kind(pai)
        elif kind_ in ("chi", "pon", "daiminkan"):
            self._call(event)
        elif kind_ == "kakan":
            if actor == me:
                self.hand.remove(event["pai"])
                for i, (t, tiles) in enumerate(self.melds):
                    if t == "pon" and kind(tiles[0]) == kind(event["pai"]):
                        self.melds[i] = ("kakan", [*tiles, event["pai"]])
            else:
                self.seen[kind(event["pai"])] += 1
                self._pass = kind(event["pai"])
        elif kind_ == "ankan":
            consumed = list(event["consumed"])
            if actor == me:
                for name in consumed:
                    self.hand.remove(name)
                self.melds.append(("ankan", consumed))
            else:
                for name in consumed:
                    if name != "?":
                        self.seen[kind(name)] += 1
        elif kind_ == "dora":
            self._see_marker(event["dora_marker"])
        elif kind_ == "reach":
            if actor == me:
                self.decision = "reach"
                self.reach_pending = True
        elif kind_ == "reach_accepted":
            self.riichi[actor] = True
            self.riichi_at[actor] = len(self.discards[actor])
            if actor == me:
                self.reach_pending = False
            if event.get("scores"):
                self.scores = list(event["scores"])
        elif kind_ in ("hora", "ryukyoku") and event.get("scores"):
            self.scores = list(event["scores"])

    def _see_marker(self, name: str) -> None:
        self.dora_markers.append(name)
        self.seen[kind(name)] += 1

    def _passed(self, k: int) -> None:
        """A winning tile another seat let go: furiten until our next discard (for good
        after riichi). Marked whether or not we could ron (a superset of the engine's)."""
        counts = self.counts
        if self._waits(counts) >> k & 1:
            self.furiten_temp = True
            if self.riichi[self.seat] or self.reach_pending:
                self.furiten_riichi = True

    def _call(self, event: dict[str, Any]) -> None:
        actor = event["actor"]
        pai = event["pai"]
        consumed = list(event["consumed"])
        if actor == self.seat:
            for name in consumed:
                self.hand.remove(name)
            self.melds.append((event["type"], sorted([*consumed, pai], key=parse_mjai)))
            k = kind(pai)
            self.kuikae = {k}
            if event["type"] == "chi":
                low = min(kind(n) for n in [*consumed, pai])
                if low == k and k % 9 + 3 <= 8:
                    self.kuikae.add(k + 3)
                elif low == k - 2 and k % 9 - 3 >= 0:
                    self.kuikae.add(k - 3)
            if event["type"] != "daiminkan":
                self.decision = "call"
        else:
            for name in consumed:
                self.seen[kind(name)] += 1

    # ---------------------------------------------------------------- options

    def _win_info(self, tile: str, tsumo: bool) -> WinInfo:
        taken: set[int] = set()

        def ids(names: Sequence[str]) -> list[int]:
            out = []
            for n in names:
                t = tile_of(n, taken)
                taken.add(t)
                out.append(t)
            return out

        concealed = list(self.hand) if tsumo else [*self.hand, tile]
        concealed.remove(tile)
        win = ids([tile])[0]
        hand_ids = ids(concealed)
        melds = []
        for t, names in self.melds:
            tiles = tuple(sorted(ids(names)))
            opened = t != "ankan"
            melds.append(Meld(MeldType(t), tiles, tiles[0] if opened else None,
                              (self.seat + 1) % 4 if opened else None))
        every = [*hand_ids, win, *(t for m in melds for t in m.tiles)]
        riichi = self.riichi[self.seat]
        return WinInfo(tiles=tuple(every), melds=tuple(melds), win_tile=win, tsumo=tsumo,
                       riichi=riichi, double_riichi=False, ippatsu=False, rinshan=False,
                       chankan=False, haitei=False, houtei=False, tenhou=False,
                       chiihou=False, seat_wind=(self.seat - self.oya) % 4,
                       round_wind=self.bakaze, dora_indicators=(), ura_indicators=())

    def _has_yaku(self, tile: str, tsumo: bool) -> bool:
        if self.riichi[self.seat] or (tsumo and not self.opened):
            return True
        try:
            return evaluate(self._win_info(tile, tsumo)) is not None
        except ValueError:
            return False

    def can_tsumo(self) -> bool:
        """Whether the drawn tile certainly wins (shape and a yaku)."""
        if self.decision != "tsumo" or self.drawn is None:
            return False
        counts = self.counts
        k = kind(self.drawn)
        counts[k] -= 1
        return bool(self._waits(counts) >> k & 1) and self._has_yaku(self.drawn, True)

    def can_ron(self) -> bool:
        """Whether the last discard certainly wins: a wait, no furiten, a yaku."""
        if self.decision != "respond" or self.last_discard is None:
            return False
        pai = self.last_discard[1]
        k = kind(pai)
        counts = self.counts
        waits = self._waits(counts)
        if not waits >> k & 1 or self.furiten_temp or self.furiten_riichi:
            return False
        if any(waits >> d & 1 for d in self.discards[self.seat]):
            return False
        return self._has_yaku(pai, False)

    def _calls_allowed(self) -> bool:
        return (self.decision == "respond" and self.last_discard is not None
                and not self.riichi[self.seat] and not self.reach_pending and self.live > 0)

    def pon_options(self) -> list[dict[str, Any]]:
        """The pon actions the engine certainly offers on the last discard."""
        if not self._calls_allowed():
            return []
        assert self.last_discard is not None
        target, pai = self.last_discard
        k = kind(pai)
        same = [n for n in self.hand if kind(n) == k]
        if len(same) < 2 or len(self.hand) - len(same) <= 0:
            return []
        plain = sorted(same, key=parse_mjai)[:2]
        return [{"type": "pon", "actor": self.seat, "target": target, "pai": pai,
                 "consumed": plain}]

    def chi_options(self) -> list[dict[str, Any]]:
        """The chi actions the engine certainly offers on the last discard."""
        if not self._calls_allowed():
            return []
        assert self.last_discard is not None
        target, pai = self.last_discard
        k = kind(pai)
        if target != (self.seat - 1) % 4 or k >= 27:
            return []
        rank = k % 9
        counts = self.counts
        out = []
        for low in (rank - 2, rank - 1, rank):
            if low < 0 or low > 6:
                continue
            a, b = [k - rank + r for r in (low, low + 1, low + 2) if r != rank]
            if not counts[a] or not counts[b]:
                continue
            forbidden = counts[k]
            if low == rank and rank + 3 <= 8:
                forbidden += counts[k + 3]
            elif low == rank - 2 and rank - 3 >= 0:
                forbidden += counts[k - 3]
            if len(self.hand) - 2 - forbidden <= 0:
                continue
            na = sorted((n for n in self.hand if kind(n) == a), key=parse_mjai)[0]
            nb = sorted((n for n in self.hand if kind(n) == b), key=parse_mjai)[0]
            out.append({"type": "chi", "actor": self.seat, "target": target, "pai": pai,
                        "consumed": [na, nb]})
        return out

    def can_reach(self) -> bool:
        """Whether a riichi declaration is certainly allowed now (before the discard)."""
        if self.decision != "tsumo" or self.opened or self.riichi[self.seat]:
            return False
        if self.scores[self.seat] < 1000 or self.live < 4:
            return False
        counts = self.counts
        for k in range(KINDS):
            if counts[k]:
                counts[k] -= 1
                ok = self._waits(counts) != 0
                counts[k] += 1
                if ok:
                    return True
        return False

    def discardable(self) -> list[str]:
        """The tile names this seat may discard now (kuikae and riichi respected)."""
        if self.riichi[self.seat] and self.drawn is not None and self.decision == "tsumo":
            return [self.drawn]
        names = [n for n in dict.fromkeys(self.hand) if kind(n) not in self.kuikae]
        if self.decision == "reach":
            counts = self.counts
            keep = []
            for n in names:
                counts[kind(n)] -= 1
                if self._waits(counts):
                    keep.append(n)
                counts[kind(n)] += 1
            names = keep
        return names

    def dahai(self, name: str) -> dict[str, Any]:
        """The discard of a tile of this name (the drawn tile itself when it is that one)."""
        tsumogiri = self.drawn is not None and self.decision != "call" and name == self.drawn
        return {"type": "dahai", "actor": self.seat, "pai": name, "tsumogiri": tsumogiri}

    def hora(self) -> dict[str, Any]:
        """The win on the drawn tile or on the last discard."""
        if self.decision == "tsumo":
            return {"type": "hora", "actor": self.seat, "target": self.seat, "pai": self.drawn}
        assert self.last_discard is not None
        return {"type": "hora", "actor": self.seat, "target": self.last_discard[0],
                "pai": self.last_discard[1]}


# ------------------------------------------------------------------------------ the loop


def decide(view: View, policy: Policy) -> dict[str, Any]:
    """The policy's answer if the view has a decision, else ``none``."""
    return policy(view) if view.decision is not None else dict(NONE)


def run(policy: Policy, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """Play a game over mjai: one answer line per line read; ends after ``end_game``."""
    view = View()
    for line in stdin:
        if not line.strip():
            continue
        data = json.loads(line)
        events = data if isinstance(data, list) else [data]
        over = False
        for event in events:
            view.update(event)
            over = over or event.get("type") == "end_game"
        stdout.write(json.dumps(decide(view, policy), separators=(",", ":")) + "\n")
        stdout.flush()
        if over:
            return 0
    return 0
