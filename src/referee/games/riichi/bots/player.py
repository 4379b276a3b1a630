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
:func:`ukeire` counts the unseen tiles that lower the shanten (for the greedy policy).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from referee.games.riichi.melds import Meld, MeldType
from referee.games.riichi.scoring import WinInfo, evaluate
from referee.games.riichi.shape import improving_kinds, shanten, waits_mask
from referee.games.riichi.tiles import KINDS, kind_name, parse_mjai, tile_of

__all__ = ["Policy", "View", "kind", "run", "shanten", "ukeire"]

Policy = Callable[["View"], dict[str, Any]]
"""A bot's brain: the mjai action (``{"type": "none"}`` to pass) for a view with a decision."""

NONE: dict[str, Any] = {"type": "none"}
_WINDS = "ESWN"


_KIND_BY_NAME = {name: parse_mjai(name)[0] for name in
                 [kind_name(k) for k in range(KINDS)] + ["5mr", "5pr", "5sr"]}


def kind(name: str) -> int:
    """The kind 0..33 of an mjai tile name (``ValueError`` for a bad one)."""
    found = _KIND_BY_NAME.get(name)
    return parse_mjai(name)[0] if found is None else found


# ------------------------------------------------------------------------------ ukeire


def ukeire(counts: list[int], melds: int, seen: Sequence[int]) -> int:
    """How many unseen tiles lower the shanten of the counts (3n+1 tiles)."""
    mask = improving_kinds(counts, melds)
    total = 0
    k = 0
    while mask:
        if mask & 1:
            total += max(0, 4 - seen[k] - counts[k])
        mask >>= 1
        k += 1
    return total


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
        self._counts = [0] * KINDS
        self._wait_mask: int | None = None
        self._draw_waits = 0
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
        """The concealed hand as 34 kind counts (a fresh list the caller may change)."""
        return list(self._counts)

    def _take_in(self, name: str) -> None:
        """A tile joins the concealed hand."""
        self.hand.append(name)
        self._counts[kind(name)] += 1
        self._wait_mask = None

    def _give_up(self, name: str) -> None:
        """A tile leaves the concealed hand."""
        self.hand.remove(name)
        self._counts[kind(name)] -= 1
        self._wait_mask = None

    @property
    def waits(self) -> int:
        """The waits (a bit per kind) of the concealed hand when it has 3n+1 tiles."""
        if self._wait_mask is None:
            self._wait_mask = self._waits(self.counts)
        return self._wait_mask

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
            if event.get("scores") is not None:  # (the original mjai server sends none)
                self.scores = list(event["scores"])
            for name in event["tehais"][me]:
                self._take_in(name)
            self._see_marker(event["dora_marker"])
        elif kind_ == "tsumo":
            self.live -= 1
            if actor == me:
                self._draw_waits = self.waits
                self._take_in(event["pai"])
                self.drawn = event["pai"]
                self.decision = "tsumo"
        elif kind_ == "dahai":
            pai = event["pai"]
            k = kind(pai)
            self.discards[actor].append(k)
            if actor == me:
                self._give_up(pai)
                if pai == self.drawn:  # tsumogiri: the hand is the one before the draw
                    self._wait_mask = self._draw_waits
                self.drawn = None
                self.kuikae = set()
                self.furiten_temp = False
            else:
                self.seen[k] += 1
                self.last_discard = (actor, pai)
                self.decision = "respond"
                self._pass = k
        elif kind_ in ("chi", "pon", "daiminkan"):
            self._call(event)
        elif kind_ == "kakan":
            if actor == me:
                self._give_up(event["pai"])
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
                    self._give_up(name)
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
        if self.waits >> k & 1:
            self.furiten_temp = True
            if self.riichi[self.seat] or self.reach_pending:
                self.furiten_riichi = True

    def _call(self, event: dict[str, Any]) -> None:
        actor = event["actor"]
        pai = event["pai"]
        consumed = list(event["consumed"])
        if actor == self.seat:
            for name in consumed:
                self._give_up(name)
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
        return bool(self._draw_waits >> kind(self.drawn) & 1) and self._has_yaku(self.drawn,
                                                                                True)

    def can_ron(self) -> bool:
        """Whether the last discard certainly wins: a wait, no furiten, a yaku."""
        if self.decision != "respond" or self.last_discard is None:
            return False
        pai = self.last_discard[1]
        k = kind(pai)
        waits = self.waits
        if not waits >> k & 1 or self.furiten_temp or self.furiten_riichi:
            return False
        if any(waits >> d & 1 for d in self.discards[self.seat]):
            return False
        return self._has_yaku(pai, False)

    def _callable(self) -> tuple[int, str, int] | None:
        """The last discard (its discarder, name and kind) when a call on it may be
        offered, else None."""
        if (self.decision != "respond" or self.last_discard is None or self.riichi[self.seat]
                or self.reach_pending or self.live <= 0):
            return None
        target, pai = self.last_discard
        return target, pai, kind(pai)

    def pon_options(self) -> list[dict[str, Any]]:
        """The pon actions the engine certainly offers on the last discard."""
        called = self._callable()
        if called is None:
            return []
        target, pai, k = called
        same = [n for n in self.hand if kind(n) == k]
        if len(same) < 2 or len(self.hand) - len(same) <= 0:
            return []
        plain = sorted(same, key=parse_mjai)[:2]
        return [{"type": "pon", "actor": self.seat, "target": target, "pai": pai,
                 "consumed": plain}]

    def chi_options(self) -> list[dict[str, Any]]:
        """The chi actions the engine certainly offers on the last discard."""
        called = self._callable()
        if called is None:
            return []
        target, pai, k = called
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
