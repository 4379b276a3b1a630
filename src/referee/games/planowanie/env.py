"""Planowanie as a PettingZoo AEC environment, over the engine that referees matches
(``referee.envs.make("planowanie", ...)``; docs/envs.md has the layout).

2 to 4 players and any deck and deal schedule, as ``referee match planowanie`` plays them.
Action numbers: ``0 .. C`` declare that many tricks (``C``: the most cards a deal of the
schedule gives), then ``C + 1 + card`` plays a card (card ids as ``rules``: ``suit *
len(values) + rank``, suit 0 the trumps). The observation is one flat float32 vector in
[0, 1], seen from the seat (relative seat ``r`` is ``(seat + r) % players``): its hand,
the cards played, the trick, the declarations revealed (and its own before they are),
tricks, points, who leads, the phase and the deal. Rewards: each seat's points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from referee.core.aec import EngineEnv
from referee.games.planowanie.rules import (
    Action,
    Deal,
    Deck,
    Declare,
    Phase,
    PlanowanieGame,
    Rules,
    cards_of,
    parse_deals,
    tournament_deals,
)

__all__ = ["EnvPlanowanieGame", "PlanowanieEnvGame", "make_env"]


class EnvPlanowanieGame(PlanowanieGame):
    """The referee's engine, remembering what an environment needs besides: how many
    actions were applied, each seat's declaration of this deal before they are revealed
    (a seat knows its own), and the deal's cards as arrays kept up to date move by move
    (``held``: each seat's hand, ``seen``: the cards of the completed tricks), so that an
    observation is a few array copies. ``cache`` holds this position's observations and
    masks."""

    __slots__ = ("cache", "held", "moves", "said", "seen")

    def __init__(self, rules: Rules, seed: int, deals: list[list[int]] | None = None) -> None:
        super().__init__(rules, seed, deals)
        self.moves = 0
        self.said: list[int | None] = [None] * rules.players
        self.cache: dict[Any, np.ndarray[Any, Any]] = {}
        self.held = np.zeros((rules.players, rules.deck.size), dtype=np.float32)
        self.seen = np.zeros(rules.deck.size, dtype=np.float32)
        self._new_deal()

    def copy(self) -> EnvPlanowanieGame:
        """An independent copy (with its own arrays and an empty cache)."""
        other = EnvPlanowanieGame.__new__(EnvPlanowanieGame)
        base = super().copy()
        for name in PlanowanieGame.__slots__:
            setattr(other, name, getattr(base, name))
        other.moves = self.moves
        other.said = self.said[:]
        other.cache = {}
        other.held = self.held.copy()
        other.seen = self.seen.copy()
        return other

    def _new_deal(self) -> None:
        self.said = [None] * self.rules.players
        self.seen[:] = 0.0
        for seat, hand in enumerate(self.hands):
            self.held[seat] = _bits(hand, self.rules.deck.size)

    def apply(self, seat: int, action: Action) -> int | None:
        """Play a legal action, as the referee's engine does."""
        table = self.table
        deal = table.deal
        if isinstance(action, Declare):
            self.said[seat] = action.tricks
        else:
            self.held[seat, action] = 0.0
        winner = super().apply(seat, action)
        if table.deal != deal:
            self._new_deal()
        elif winner is not None and table.last_trick is not None:
            for card in table.last_trick[1]:
                self.seen[card] = 1.0
        self.moves += 1
        self.cache.clear()
        return winner


def _bits(mask: int, size: int) -> np.ndarray[Any, Any]:
    """The bit mask ``mask`` as ``size`` 0/1 bytes (bit ``i`` at index ``i``)."""
    raw = np.frombuffer(mask.to_bytes((size + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little", count=size)


@dataclass
class PlanowanieEnvGame:
    """Planowanie for ``EngineEnv``: the rules (players, deck, deals); the layout of the
    observation is in ``offsets`` (segment name -> start, in the order of docs/envs.md)."""

    rules: Rules = field(default_factory=Rules)
    name: str = "planowanie"
    seats: int = field(init=False)
    actions: int = field(init=False)
    observation_shape: tuple[int, ...] = field(init=False)
    observation_high: float = 1.0
    max_cards: int = field(init=False)
    """``C``: the most cards a deal gives (declarations are 0..C)."""
    offsets: dict[str, int] = field(init=False)
    """The start of each segment of the observation, by name (docs/envs.md)."""
    top_points: float = field(init=False)
    """The most points a seat can have (every trick and every contract of every deal)."""

    def __post_init__(self) -> None:
        rules = self.rules
        players, size = rules.players, rules.deck.size
        self.seats = players
        self.max_cards = max(cards for cards, _ in rules.deals)
        self.actions = self.max_cards + 1 + size
        lengths = [("hand", size), ("played", size), ("trick", players * size),
                   ("declared", players * (self.max_cards + 1)), ("tricks", players),
                   ("points", players), ("leader", players), ("declaring", 1),
                   ("deal", len(rules.deals)), ("cards", 1)]
        self.offsets = {}
        start = 0
        for segment, length in lengths:
            self.offsets[segment] = start
            start += length
        self.observation_shape = (start,)
        self.top_points = float(sum(2 * cards for cards, _ in rules.deals))

    def new_engine(self, seed: int) -> EnvPlanowanieGame:
        """A new game, every deal's hands dealt from ``seed`` (as the referee deals)."""
        return EnvPlanowanieGame(self.rules, seed)

    def observe(self, engine: EnvPlanowanieGame, seat: int) -> np.ndarray[Any, Any]:
        """What ``seat`` knows (docs/envs.md): a copy of a cached vector."""
        key = ("observe", seat)
        cached = engine.cache.get(key)
        if cached is None:
            cached = engine.cache[key] = self._observe(engine, seat)
        return cached.copy()

    def _observe(self, engine: EnvPlanowanieGame, seat: int) -> np.ndarray[Any, Any]:
        rules, table = self.rules, engine.table
        players, size, at = rules.players, rules.deck.size, self.offsets
        out = np.zeros(self.observation_shape, dtype=np.float32)
        if table.phase is Phase.OVER:
            self._public_scores(out, engine, seat)
            return out
        out[at["hand"]:at["hand"] + size] = engine.held[seat]
        out[at["played"]:at["played"] + size] = engine.seen
        start = at["trick"]
        for k, card in enumerate(table.trick):
            relative = (table.trick_leader + k - seat) % players
            out[start + relative * size + card] = 1.0
        width = self.max_cards + 1
        start = at["declared"]
        if table.phase is Phase.DECLARE:
            own = engine.said[seat]
            if own is not None:
                out[start + own] = 1.0
        else:
            for other in range(players):
                declared = table.declared[other]
                if declared is not None:
                    out[start + (other - seat) % players * width + declared] = 1.0
        self._public_scores(out, engine, seat)
        out[at["leader"] + (table.trick_leader - seat) % players] = 1.0
        out[at["declaring"]] = float(table.phase is Phase.DECLARE)
        out[at["deal"] + table.deal] = 1.0
        out[at["cards"]] = table.cards / self.max_cards
        return out

    def _public_scores(self, out: np.ndarray[Any, Any], engine: PlanowanieGame,
                       seat: int) -> None:
        table, players, at = engine.table, self.rules.players, self.offsets
        for other in range(players):
            relative = (other - seat) % players
            out[at["tricks"] + relative] = table.tricks[other] / self.max_cards
            out[at["points"] + relative] = table.points[other] / self.top_points

    def legal_mask(self, engine: EnvPlanowanieGame, seat: int) -> np.ndarray[Any, Any]:
        """The declarations 0..cards of this deal, or the cards that may be played (the
        suit led when the hand has it); nothing for a seat not to play."""
        key = ("mask", seat)
        cached = engine.cache.get(key)
        if cached is None:
            cached = engine.cache[key] = self._mask(engine, seat)
        return cached.copy()

    def _mask(self, engine: EnvPlanowanieGame, seat: int) -> np.ndarray[Any, Any]:
        mask = np.zeros(self.actions, dtype=np.int8)
        table = engine.table
        if table.to_play() != seat:
            return mask
        if table.phase is Phase.DECLARE:
            mask[:table.cards + 1] = 1
            return mask
        first = self.max_cards + 1
        suit = table.led_suit()
        deck = self.rules.deck
        if suit is not None and engine.hands[seat] & deck.suit_mask(suit):
            width = len(deck.values)
            low, high = suit * width, (suit + 1) * width
            mask[first + low:first + high] = engine.held[seat, low:high]
        else:
            mask[first:] = engine.held[seat]
        return mask

    def action(self, engine: PlanowanieGame, seat: int, index: int) -> Action:
        """``Declare(index)`` for ``0..C``, else the card ``index - C - 1``."""
        if index <= self.max_cards:
            return Declare(index)
        return index - self.max_cards - 1

    def index(self, engine: PlanowanieGame, seat: int, action: Any) -> int:
        """The action number of a declaration or a card."""
        if isinstance(action, Declare):
            if not 0 <= action.tricks <= self.max_cards:
                raise ValueError(f"no action number for {action!r} (0..{self.max_cards})")
            return action.tricks
        if isinstance(action, int) and 0 <= action < self.rules.deck.size:
            return self.max_cards + 1 + action
        raise ValueError(f"not a declaration or a card of the deck: {action!r}")

    def render(self, engine: EnvPlanowanieGame) -> str:
        """The deal, every hand, declarations, the trick, tricks and points."""
        rules, table = self.rules, engine.table
        deck = rules.deck
        if table.phase is Phase.OVER:
            return (f"game over after {len(rules.deals)} deals: points "
                    + " ".join(str(p) for p in table.points))
        phase = "declaring" if table.phase is Phase.DECLARE else "playing"
        lines = [f"deal {table.deal + 1}/{len(rules.deals)}: {table.cards} card(s) each, "
                 f"{phase}, trumps {deck.suits[0]}"]
        for seat in range(rules.players):
            hand = " ".join(deck.name(c) for c in cards_of(engine.hands[seat])) or "-"
            if table.phase is Phase.DECLARE:
                said = engine.said[seat]
                declared = "-" if said is None else f"{said} (hidden)"
            else:
                declared = str(table.declared[seat])
            lines.append(f"seat {seat}: {hand} | declared {declared} | tricks "
                         f"{table.tricks[seat]} | points {table.points[seat]}")
        if table.phase is Phase.PLAY:
            trick = " ".join(f"{(table.trick_leader + k) % rules.players}:{deck.name(c)}"
                             for k, c in enumerate(table.trick))
            lines.append(f"trick (seat {table.trick_leader} leads): {trick or '-'}")
        return "\n".join(lines)


def make_env(players: int = 4, values: str = "23456789TJQKA", suits: str = "CDHS",
             deals: str | Sequence[Deal] | None = None, render_mode: str | None = None,
             max_moves: int | None = None) -> EngineEnv[EnvPlanowanieGame]:
    """The Planowanie AEC environment: ``players`` (2..4), the deck's ``values`` (lowest
    first) and ``suits`` (the first is trumps), ``deals`` as ``set_game``'s arguments
    (``"d c1 s1 ... cd sd"``) or a list of (cards, starting seat) [default: the tournament's
    schedule of deals of 1, 2, ... cards, 13 deals or as many as the deck allows],
    ``render_mode`` (``"ansi"``) and ``max_moves``. ``ConfigError`` names a bad option."""
    deck = Deck(values, suits)
    if deals is None:
        schedule = tournament_deals(players, max(1, min(13, deck.size // players)))
    elif isinstance(deals, str):
        schedule = parse_deals(deals.split())
    else:
        schedule = tuple((int(cards), int(starter)) for cards, starter in deals)
    game = PlanowanieEnvGame(Rules(deck, players, schedule))
    return EngineEnv(game, render_mode=render_mode, max_moves=max_moves)
