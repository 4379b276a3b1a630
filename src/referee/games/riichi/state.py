"""The state of one Riichi hand: :class:`KyokuState`, what a hand is at any moment, from
its :class:`~referee.games.riichi.walls.Deal` to its :class:`KyokuResult`.

Where every tile is (hands with their kind counts, melds, rivers, the tiles called or
robbed), each seat's riichi, ippatsu, furiten and waits, the dora indicators, the
``phase`` and who is to act, and the options put to the seats; the bookkeeping every
move shares (taking a tile from a hand, revealing a dora indicator, emitting an event),
and copying it all. The layers above it (:mod:`referee.games.riichi.options`, what each
seat may do; :mod:`referee.games.riichi.settle`, how a hand ends;
:mod:`referee.games.riichi.kyoku`, the moves) make it
:class:`~referee.games.riichi.kyoku.RiichiKyoku`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from referee.games.riichi.actions import (
    PLAIN_DAHAI,
    PLAIN_NAME_IDS,
    PLAIN_NAMES,
    RED_DAHAI,
    RED_NAME_IDS,
    RED_NAMES,
    Action,
)
from referee.games.riichi.melds import Meld
from referee.games.riichi.scoring import HandValue, ScoringRules, WinInfo
from referee.games.riichi.settings import SEATS, WIND_NAMES, RiichiRules
from referee.games.riichi.shape import counts_of, waits_mask
from referee.games.riichi.walls import Deal, TileSource

__all__ = ["Evaluator", "KyokuResult", "KyokuState"]

Evaluator = Callable[[WinInfo, ScoringRules], "HandValue | None"]
"""The hand-value function: :func:`referee.games.riichi.scoring.evaluate` or a stand-in."""


@dataclass(frozen=True)
class KyokuResult:
    """How a hand ended.

    ``reason``: ``hora`` (one or more wins), ``fanpai`` (exhaustive draw),
    ``nagashimangan``, or an abortive draw: ``kyushukyuhai``, ``sufonrenta``, ``sukaikan``,
    ``suchareach``, ``sanchaho``.
    ``deltas`` sums the wins' or the draw's score changes (riichi deposits not included);
    ``scores`` are the scores after the hand; ``kyotaku`` the riichi sticks left on the
    table; ``renchan`` whether the dealer stays; ``tenpai`` who was tenpai at an
    exhaustive draw (all False otherwise)."""

    reason: str
    deltas: tuple[int, ...]
    scores: tuple[int, ...]
    kyotaku: int
    renchan: bool
    winners: tuple[int, ...] = ()
    tenpai: tuple[bool, ...] = (False, False, False, False)

    @property
    def abortive(self) -> bool:
        """Whether the hand ended in an abortive draw."""
        return self.reason in ("kyushukyuhai", "sufonrenta", "sukaikan", "suchareach", "sanchaho")

    @property
    def draw(self) -> bool:
        """Whether nobody won."""
        return self.reason != "hora"


class KyokuState:
    """A hand's state (see the module's docstring): built from ``deal`` (the
    ``start_kyoku`` event emitted to ``events``), nothing drawn yet; public to read, not
    to change. ``phase`` is ``tsumo`` (the ``actor`` has drawn ``drawn``), ``reach`` (it
    must discard its declaration tile), ``call`` (it must discard after a chi or pon),
    ``respond`` (the others answer the ``last_discard``), ``chankan`` (they answer a kan)
    or ``over``; ``result`` is set once the hand is over."""

    def __init__(self, deal: Deal, source: TileSource, rules: RiichiRules | None,
                 evaluate: Evaluator, scoring: ScoringRules | None,
                 events: list[dict[str, Any]] | None) -> None:
        self.rules = rules or RiichiRules()
        self.scoring = scoring or self.rules.scoring_rules()
        self.evaluate = evaluate
        red = self.rules.red_fives
        self.names = RED_NAMES if red else PLAIN_NAMES
        self._dahai_table = RED_DAHAI if red else PLAIN_DAHAI
        self._name_ids = RED_NAME_IDS if red else PLAIN_NAME_IDS
        self.source = source
        self.deal = deal
        self.oya = deal.oya
        self.bakaze = deal.bakaze
        self.kyoku = deal.kyoku
        self.honba = deal.honba
        self.kyotaku = deal.kyotaku
        self.scores = list(deal.scores)
        self.events: list[dict[str, Any]] = [] if events is None else events
        self.hands = [list(h) for h in deal.tehais]
        self.counts = [counts_of(h) for h in self.hands]
        self.melds: list[list[Meld]] = [[] for _ in range(SEATS)]
        self.rivers: list[list[int]] = [[] for _ in range(SEATS)]
        """Every discard of each seat, called ones included (they count for furiten)."""
        self.called: set[int] = set()
        """Discards taken by a call (they are in a meld now)."""
        self.robbed: list[int] = []
        """A kakan tile taken by chankan (in no hand and no meld any more)."""
        self.river_kinds = [0] * SEATS
        self.nagashi = [True] * SEATS
        self.riichi = [False] * SEATS
        self.double_riichi = [False] * SEATS
        self.ippatsu = [False] * SEATS
        self.furiten_temp = [False] * SEATS
        self.furiten_riichi = [False] * SEATS
        self.waits = [waits_mask(c) for c in self.counts]
        """Each seat's waits (34-bit kind mask) for its hand without the drawn tile."""
        self.discards = [0] * SEATS
        self.opened = [False] * SEATS
        self.clean = True
        """No call yet (ankan included): the first go-around is uninterrupted."""
        self.kan_owners: list[int] = []
        self.pao: list[tuple[int, str] | None] = [None] * SEATS
        """Per seat, who is liable (pao) for which yakuman ("Daisangen", "Dai Suushii")."""
        self.dora = [deal.dora_marker]
        self.pending_dora = 0
        self.phase = "tsumo"
        self.actor = self.oya
        self.drawn: int | None = None
        self.rinshan = False
        self.last_discard: tuple[int, int] | None = None
        self.result: KyokuResult | None = None
        self._reach_by: int | None = None
        self._reach_double = False
        self._kuikae = 0
        self._kan_check = False
        self._first_winds: list[int] = []
        self._robbing: tuple[str, int, int] | None = None
        self._options: dict[int, list[Action]] = {}
        self._answers: dict[int, Action] = {}
        self._waiting: set[int] = set()
        self._self_cache: list[Action] | None = None
        self._self_full = True
        """Whether ``_self_cache`` has the riichi declaration, if possible (else it was
        not looked for: answers other than ``reach`` are checked without it)."""
        self._base: list[list[Action] | None] = [None] * SEATS
        """Per seat, the discards of the hand without its drawn tile (kept while a
        tsumogiri leaves that hand as it was)."""
        self.events.append({
            "type": "start_kyoku", "bakaze": WIND_NAMES[self.bakaze],
            "dora_marker": self.names[deal.dora_marker], "kyoku": self.kyoku,
            "honba": self.honba, "kyotaku": self.kyotaku, "oya": self.oya,
            "scores": list(self.scores),
            "tehais": [[self.names[t] for t in h] for h in self.hands]})

    # ---------------------------------------------------------------- bookkeeping

    def _furiten(self, seat: int) -> bool:
        return (self.furiten_temp[seat] or self.furiten_riichi[seat]
                or bool(self.waits[seat] & self.river_kinds[seat]))

    def is_furiten(self, seat: int) -> bool:
        """Whether ``seat`` may not ron now (any kind of furiten)."""
        return self._furiten(seat)

    def _take(self, seat: int, name: str, avoid: int | None = None) -> int:
        """Remove and return the lowest tile id of ``seat``'s hand named ``name`` (not
        ``avoid``)."""
        names = self.names
        best = -1
        for t in self.hands[seat]:
            if names[t] == name and t != avoid and (best < 0 or t < best):
                best = t
        assert best >= 0, f"{name} not in hand"
        self._remove(seat, best)
        return best

    def _remove(self, seat: int, tile: int) -> None:
        self.hands[seat].remove(tile)
        self.counts[seat][tile >> 2] -= 1
        self._base[seat] = None

    def _emit(self, event: dict[str, Any]) -> None:
        self.events.append(event)

    def _reveal_dora(self) -> None:
        tile = self.source.dora_indicator(len(self.dora))
        self.dora.append(tile)
        self._emit({"type": "dora", "dora_marker": self.names[tile]})

    def _reveal_pending(self) -> None:
        while self.pending_dora:
            self.pending_dora -= 1
            self._reveal_dora()

    # ---------------------------------------------------------------- checks and copies

    def tiles_in_play(self) -> list[int]:
        """Every tile id dealt or drawn so far, from where it is now: hands, melds, discards
        not called, a robbed kakan tile, and a kakan tile while the others may still rob it;
        sorted (for conservation checks)."""
        out = [t for h in self.hands for t in h]
        out += [t for ms in self.melds for m in ms for t in m.tiles]
        out += [t for r in self.rivers for t in r if t not in self.called]
        out += self.robbed
        if self._robbing is not None and self._robbing[0] == "kakan":
            out.append(self._robbing[2])
        return sorted(out)

    def _copy_state(self, old: KyokuState, events: list[dict[str, Any]]) -> None:
        """Every attribute of ``old``: its lists and sets copied, its source copied."""
        for name in ("rules", "scoring", "evaluate", "names", "_dahai_table", "_name_ids",
                     "deal", "oya", "bakaze", "kyoku", "honba", "kyotaku", "clean",
                     "pending_dora", "phase", "actor", "drawn", "rinshan", "last_discard",
                     "result", "_reach_by", "_reach_double", "_kuikae", "_kan_check",
                     "_robbing", "_self_cache", "_self_full"):
            setattr(self, name, getattr(old, name))
        self.source = old.source.copy()
        self.events = events
        self.scores = list(old.scores)
        self.hands = [list(h) for h in old.hands]
        self.counts = [list(c) for c in old.counts]
        self.melds = [list(m) for m in old.melds]
        self.rivers = [list(r) for r in old.rivers]
        self.called = set(old.called)
        self.robbed = list(old.robbed)
        for name in ("river_kinds", "nagashi", "riichi", "double_riichi", "ippatsu",
                     "furiten_temp", "furiten_riichi", "waits", "discards", "opened",
                     "kan_owners", "dora", "_first_winds", "pao"):
            setattr(self, name, list(getattr(old, name)))
        self._options = dict(old._options)
        self._answers = dict(old._answers)
        self._waiting = set(old._waiting)
        self._base = list(old._base)
