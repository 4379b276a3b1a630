"""ICGA Taiwanese Mahjong as a PettingZoo AEC environment, over the engine that referees
matches (``referee.envs.make("mahjong", ...)``; docs/envs.md has the layout).

One episode is one game of ``hands`` hands (the referee's match). The engine asks one seat
at a time, claims on a discard included (hu from the discarder's right, then kong and
pong, then chow, the first to accept takes the tile), so the agent to act is always the
one seat asked. Tiles are merged by kind: copies of a kind are worth the same, so an
action names a kind and the engine's action uses the lowest copies in the hand.

Action numbers (``ACTIONS`` = 74): ``0..33`` throw a tile of that kind; ``34..67`` a kong
of kind ``k - 34`` (concealed or promoted on one's own turn, melded on a discard);
``68`` pong; ``69..71`` chow with the discard as its lowest, middle or highest tile; ``72``
hu; ``73`` pass. The observation is ``(12, 34)`` float32 (rows by tile kind, seats
relative: 0 the seat itself, 1 the next to play after it, 2 across, 3 the previous), from
exactly what an ICGA client is told: its hand, its draw, its question, every meld (a
concealed kong of another seat only counted), every discard. Rewards: each seat's total
points of the game; an illegal action ends it with the offender last (``EnvMahjongGame.
forfeit_scores``).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from referee.core.aec import EngineEnv
from referee.games.mahjong.actions import (
    Action,
    Ask,
    ConcealedKong,
    Eat,
    Hu,
    Kong,
    Pass,
    Pong,
    PromotedKong,
    Throw,
    chows,
    self_kongs,
)
from referee.games.mahjong.engine import SEATS, MahjongHand, Rules
from referee.games.mahjong.game import MahjongGame
from referee.games.mahjong.melds import MeldKind
from referee.games.mahjong.scoring import Stakes, preset
from referee.games.mahjong.tiles import (
    KIND_TABLE,
    KINDS,
    WINDS,
    counts_of,
    short_name,
    tids_of_kind,
)

__all__ = ["ACTIONS", "ASKED", "CHOW", "DISCARDS", "DRAWN", "HAND", "HANDS_LEFT",
           "HIDDEN_KONGS", "HU", "INFO", "KONG", "MELDS", "OFFER", "PASS", "PONG",
           "ROUND_WIND", "ROWS", "SEAT_WIND", "SOURCE", "THROW",
           "EnvMahjongGame", "MahjongEnvGame", "make_env"]

THROW, KONG, PONG, CHOW, HU, PASS = 0, 34, 68, 69, 72, 73
"""First action number of each kind of answer."""
ACTIONS = 74

HAND, MELDS, DISCARDS, OFFER, DRAWN, INFO = 0, 1, 5, 9, 10, 11
"""First row of each part of the observation (MELDS and DISCARDS: four rows, one per
relative seat)."""
ROWS = 12
ASKED, SEAT_WIND, ROUND_WIND, SOURCE, HIDDEN_KONGS, HANDS_LEFT = 0, 5, 9, 13, 17, 21
"""Columns of the INFO row: the question (5, ``Ask`` order), the seat's wind (4), the
round wind (4), who offers the tile on offer (4), concealed kongs per seat (4), hands to
play after this one, at most 4 counted (1)."""
_ASKS = tuple(Ask)


class _Public:
    """What every client is told of one hand, kept up to date from its events (as a
    client follows the wire): melds and discards per seat, concealed kongs (the owner's
    kinds, the others' count). The rows of ``melds`` and ``discards`` are seats 0..3
    twice over, so that rows ``seat .. seat + 3`` are the seats as ``seat`` sees them."""

    __slots__ = ("discards", "hand", "hidden", "kongs", "melds", "open", "read")

    def __init__(self, hand: MahjongHand) -> None:
        self.hand = hand
        self.read = 0
        self.melds = np.zeros((2 * SEATS, KINDS), dtype=np.float32)
        self.discards = np.zeros((2 * SEATS, KINDS), dtype=np.float32)
        self.hidden = np.zeros((SEATS, KINDS), dtype=np.float32)
        self.kongs = [0] * (2 * SEATS)
        self.open: tuple[int, int] | None = None
        """(seat, kind) of the last discard while it may still be taken."""

    def catch_up(self) -> None:
        """Read the events since the last call."""
        events = self.hand.events
        table = KIND_TABLE
        for event in events[self.read:]:
            kind, seat = event.kind, event.seat
            if kind == "throw":
                self.open = (seat, table[event.tiles[0]])
                _add(self.discards, seat, self.open[1], 1)
            elif kind in ("eat", "pong", "gong"):
                if event.claimed is not None and self.open is not None:
                    _add(self.discards, *self.open, -1)  # the discard taken
                if event.kong == 0:
                    for tile in event.tiles:
                        self.hidden[seat, table[tile]] += 1
                    self.kongs[seat] += 1
                    self.kongs[seat + SEATS] += 1
                else:
                    for tile in event.tiles:
                        _add(self.melds, seat, table[tile], 1)
                self.open = None
            elif kind == "hu":
                if self.open is not None and event.claimed is not None and \
                        table[event.claimed] == self.open[1]:
                    _add(self.discards, *self.open, -1)  # won on it
                self.open = None
            elif kind == "draw":
                self.open = None
        self.read = len(events)


def _add(rows: np.ndarray[Any, Any], seat: int, kind: int, count: int) -> None:
    """Add ``count`` tiles of ``kind`` to ``seat``'s two rows."""
    rows[seat, kind] += count
    rows[seat + SEATS, kind] += count


class EnvMahjongGame(MahjongGame):
    """The referee's game, with what an environment keeps besides: the public record of
    the hand being played and this position's cached observations and masks."""

    def __init__(self, seed: int, rules: Rules | None = None) -> None:
        super().__init__(seed, rules)
        self.cache: dict[Any, np.ndarray[Any, Any]] = {}
        self.cache_key: tuple[int, int] = (-1, -1)
        self.public = _Public(self.hand)

    @classmethod
    def around(cls, hand: MahjongHand, number: int, rules: Rules) -> EnvMahjongGame:
        """An environment engine over a hand kept elsewhere (a bot's mirror of what its
        seat was told): hand ``number`` of a game under ``rules``, with no wall of its
        own. Observing, masks and action numbers work on it; playing on does not."""
        engine = cls.__new__(cls)
        engine.seed, engine.rules = 0, rules
        engine.first_dealer = (hand.dealer - number) % SEATS
        engine.number, engine.totals = number, [0] * SEATS
        engine.results, engine.finished, engine.hand = [], [], hand
        engine.cache, engine.cache_key = {}, (-1, -1)
        engine.public = _Public(hand)
        return engine

    def forfeit_scores(self, seat: int) -> list[float]:
        """The environment's end after ``seat``'s illegal action (a referee's match never
        forfeits a seat: the dummy AI takes it over): the others keep their totals so far,
        and the offender's is the lowest of theirs less the base stake (or its own, if
        that is lower still), so that it is last, by one base at least."""
        scores = self.scores()
        lowest = min(s for k, s in enumerate(scores) if k != seat)
        scores[seat] = min(scores[seat], lowest - max(1, self.rules.stakes.base))
        return scores

    def forget(self) -> None:
        """Drop the cached observations and masks (after changing the state by hand)."""
        self.cache_key = (-1, -1)
        self.cache.clear()

    def cached(self) -> dict[Any, np.ndarray[Any, Any]]:
        """The cache of this position (emptied when the position changed) with the public
        record caught up."""
        key = (self.number, len(self.hand.events))
        if key != self.cache_key:
            self.cache.clear()
            self.cache_key = key
            if self.public.hand is not self.hand:
                self.public = _Public(self.hand)
            self.public.catch_up()
        return self.cache


def _lowest(hand: list[int], kind: int, count: int) -> list[int]:
    """The ``count`` lowest tiles of ``kind`` in ``hand`` (sorted), padded with tiles of
    that kind the hand does not hold (so that the action is illegal, with its reason)."""
    held = sorted(t for t in hand if KIND_TABLE[t] == kind)
    spare = [t for t in tids_of_kind(kind) if t not in held]
    return (held + spare)[:count]


@dataclass
class MahjongEnvGame:
    """ICGA Mahjong for ``EngineEnv``: the game's rules (hands, reserve, tai table...)."""

    rules: Rules = field(default_factory=Rules)
    name: str = "mahjong"
    seats: int = SEATS
    actions: int = ACTIONS
    observation_shape: tuple[int, ...] = (ROWS, KINDS)
    observation_high: float = 4.0

    def new_engine(self, seed: int) -> EnvMahjongGame:
        """A new game: each hand's wall made from ``seed`` as the referee makes it."""
        return EnvMahjongGame(seed, self.rules)

    def copy_engine(self, engine: EnvMahjongGame) -> EnvMahjongGame:
        """An independent copy (the environment's ``state`` and ``clone``): the hand in
        play copied, what never changes shared: the finished hands and their results,
        the rules, and the frozen events, melds and questions of the hand in play."""
        hand = engine.hand
        kept = (engine.rules, hand.question, *engine.finished, *engine.results,
                *hand.events, *(meld for melds in hand.melds for meld in melds))
        return copy.deepcopy(engine, {id(thing): thing for thing in kept})

    # -- observation -------------------------------------------------------------------
    def observe(self, engine: EnvMahjongGame, seat: int) -> np.ndarray[Any, Any]:
        """What ``seat`` knows (docs/envs.md): a copy of a cached array."""
        cache = engine.cached()
        key = ("observe", seat)
        found = cache.get(key)
        if found is None:
            found = cache[key] = self._observe(engine, seat)
        return found.copy()

    def _observe(self, engine: EnvMahjongGame, seat: int) -> np.ndarray[Any, Any]:
        hand, public = engine.hand, engine.public
        out = np.zeros((ROWS, KINDS), dtype=np.float32)
        table = KIND_TABLE
        out[HAND] = counts_of(hand.hands[seat])
        out[MELDS:MELDS + SEATS] = public.melds[seat:seat + SEATS]
        out[MELDS] += public.hidden[seat]
        out[DISCARDS:DISCARDS + SEATS] = public.discards[seat:seat + SEATS]
        info = out[INFO]
        offer = _offer(hand)
        if offer is not None:
            source, tile = offer
            out[OFFER, table[tile]] = 1.0
            info[SOURCE + (source - seat) % SEATS] = 1.0
        question = hand.question
        if question is not None and question.seat == seat:
            info[ASKED + _ASKS.index(question.ask)] = 1.0
            if hand.turn == seat and hand.drawn is not None and hand.discard is None:
                out[DRAWN, table[hand.drawn]] = 1.0
        info[SEAT_WIND + (seat - hand.dealer) % SEATS] = 1.0
        info[ROUND_WIND + hand.round_wind] = 1.0
        info[HIDDEN_KONGS:HIDDEN_KONGS + SEATS] = public.kongs[seat:seat + SEATS]
        info[HANDS_LEFT] = min(4, engine.rules.hands - 1 - engine.number)
        return out

    # -- actions -----------------------------------------------------------------------
    def legal_mask(self, engine: EnvMahjongGame, seat: int) -> np.ndarray[Any, Any]:
        """The answers to the seat's question, by action number (none if not asked)."""
        cache = engine.cached()
        key = ("mask", seat)
        found = cache.get(key)
        if found is None:
            found = cache[key] = self._mask(engine, seat)
        return found.copy()

    def _mask(self, engine: EnvMahjongGame, seat: int) -> np.ndarray[Any, Any]:
        mask = np.zeros(ACTIONS, dtype=np.int8)
        hand = engine.hand
        question = hand.question
        if question is None or question.seat != seat:
            return mask
        ask, tiles = question.ask, hand.hands[seat]
        if ask is Ask.THROW:
            mask[[KIND_TABLE[t] for t in tiles]] = 1
            return mask
        mask[PASS] = 1
        if ask is Ask.HU:
            mask[HU] = 1
        elif hand.discard is None:  # a kong on one's own turn
            if hand.live > 0:
                for kong in self_kongs(tiles, hand.melds[seat]):
                    mask[self.index(engine, seat, kong)] = 1
        else:
            kind = KIND_TABLE[hand.discard[1]]
            held = sum(1 for t in tiles if KIND_TABLE[t] == kind)
            if ask is Ask.GONG and held >= 3 and hand.live > 0:
                mask[KONG + kind] = 1
            elif ask is Ask.PONG and held >= 2:
                mask[PONG] = 1
            elif ask is Ask.EAT:
                for a, b in chows(tiles, kind):
                    mask[CHOW + kind - min(kind, KIND_TABLE[a], KIND_TABLE[b])] = 1
        return mask

    def action(self, engine: EnvMahjongGame, seat: int, index: int) -> Action:
        """The engine's answer for action number ``index`` (the lowest copies of a kind)."""
        hand = engine.hand
        tiles = hand.hands[seat]
        if index < KONG:
            return Throw(_lowest(tiles, index, 1)[0])
        if index < PONG:
            kind = index - KONG
            if hand.discard is not None:
                return Kong(*_lowest(tiles, kind, 3))
            held = _lowest(tiles, kind, 4)
            if sum(1 for t in tiles if KIND_TABLE[t] == kind) == 1 and any(
                    m.kind is MeldKind.PUNG and m.base == kind for m in hand.melds[seat]):
                return PromotedKong(held[0])
            return ConcealedKong(*held)
        if index == HU:
            return Hu()
        if index == PASS:
            return Pass()
        kind = KIND_TABLE[hand.discard[1]] if hand.discard is not None else 0
        if index == PONG:
            return Pong(*_lowest(tiles, kind, 2))
        low = kind - (index - CHOW)
        others = [k for k in range(low, low + 3) if k != kind]
        if low < 0 or any(k >= 27 for k in others):
            return Eat(*_lowest(tiles, kind, 2))  # no chow at all: the engine says why
        return Eat(_lowest(tiles, others[0], 1)[0], _lowest(tiles, others[1], 1)[0])

    def index(self, engine: EnvMahjongGame, seat: int, action: Any) -> int:
        """The action number of one of the engine's answers."""
        if isinstance(action, Throw):
            return THROW + KIND_TABLE[action.tile]
        if isinstance(action, (Kong, ConcealedKong)):
            return KONG + KIND_TABLE[action.a]
        if isinstance(action, PromotedKong):
            return KONG + KIND_TABLE[action.tile]
        if isinstance(action, Pong):
            return PONG
        if isinstance(action, Hu):
            return HU
        if isinstance(action, Pass):
            return PASS
        if isinstance(action, Eat):
            discard = engine.hand.discard
            if discard is None:
                raise ValueError("a chow needs a discard to claim")
            kind = KIND_TABLE[discard[1]]
            return CHOW + kind - min(kind, KIND_TABLE[action.a], KIND_TABLE[action.b])
        raise ValueError(f"not an answer of ICGA Mahjong: {action!r}")

    def render(self, engine: EnvMahjongGame) -> str:
        """The hand: every seat's tiles, melds, flowers and discards; the question."""
        hand = engine.hand
        lines = [f"hand {engine.number + 1}/{engine.rules.hands}, round "
                 f"{WINDS[hand.round_wind]}, dealer seat {hand.dealer}, {hand.live} tiles "
                 f"to draw; totals {' '.join(map(str, engine.totals))}"]
        for s in range(SEATS):
            melds = " ".join("[" + " ".join(short_name(t) for t in m.tiles) + "]"
                             for m in hand.melds[s])
            flowers = " ".join(short_name(t) for t in hand.flowers[s])
            lines.append(f"seat {s}: {' '.join(short_name(t) for t in hand.hands[s])}"
                         f"{' ' + melds if melds else ''}{' | ' + flowers if flowers else ''}"
                         f" | discards {' '.join(short_name(t) for t in hand.discards[s])}")
        if hand.question is not None:
            lines.append(f"seat {hand.question.seat} is asked {hand.question.ask.value}")
        elif hand.result is not None:
            lines.append(f"{hand.result.reason}: {list(hand.result.payments)}")
        return "\n".join(lines)


def _offer(hand: MahjongHand) -> tuple[int, int] | None:
    """(seat, tile) of the tile others may take now: the discard open to claims, or the
    tile a seat adds to its pung while the others may rob it (the last promoted kong's,
    while seats off turn are asked hu with no discard)."""
    if hand.discard is not None:
        return hand.discard
    question = hand.question
    if question is None or question.ask is not Ask.HU or question.seat == hand.turn:
        return None
    for event in reversed(hand.events):
        if event.kind == "gong" and event.kong == 1:
            return event.seat, event.tiles[0]
    return None


def make_env(hands: int = 16, reserve: int = 16, scoring: str = "icga",
             kong_from_previous: bool = False, base: int = 100, per_tai: int = 20,
             render_mode: str | None = None,
             max_moves: int | None = None) -> EngineEnv[EnvMahjongGame]:
    """The ICGA Mahjong AEC environment, with ``referee match mahjong``'s rules: ``hands``
    per game, ``reserve`` (tiles left when a hand is drawn), ``scoring`` (the tai table:
    icga or taiwan), ``kong_from_previous``, the stakes ``base`` and ``per_tai``;
    ``render_mode`` (``"ansi"`` or ``"human"``) and ``max_moves``. ``ConfigError`` names
    a bad option."""
    rules = Rules(hands=hands, reserve=reserve, table=preset(scoring),
                  stakes=Stakes(base, per_tai), kong_from_previous=kong_from_previous)
    return EngineEnv(MahjongEnvGame(rules), render_mode=render_mode, max_moves=max_moves)
