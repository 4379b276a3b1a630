"""Planowanie as a PettingZoo AEC environment, over the engine that referees matches
(``referee.envs.make("planowanie", ...)``; docs/envs.md has the layout).

2 to 4 players and any deck and deal schedule, as ``referee match planowanie`` plays them.
Action numbers: ``0 .. C`` declare that many tricks (``C``: the most cards a deal of the
schedule gives), then ``C + 1 + card`` plays a card (card ids as ``rules``: ``suit *
len(values) + rank``, suit 0 the trumps). The observation is one flat float32 vector of
whole numbers (0/1 but for tricks, points and cards), seen from the seat (relative seat
``r`` is ``(seat + r) % players``): its hand, the cards played, the trick, the
declarations revealed (and its own before they are), tricks, points, who leads, the phase
and the deal. Rewards: each seat's points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from referee.core.aec import EngineEnv
from referee.core.errors import ConfigError
from referee.games.planowanie.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Action,
    Deal,
    Deck,
    Declare,
    Phase,
    PlanowanieGame,
    Rules,
    parse_deals,
    seat_summary,
    tournament_deals,
    trick_summary,
)

__all__ = ["MAX_HIGH", "EnvPlanowanieGame", "Layout", "PlanowanieEnvGame", "make_env"]

MAX_HIGH = 255
"""Points in an observation are clipped to this (observations are whole numbers that fit
a byte: the datasets store them so)."""


@dataclass(frozen=True)
class Layout:
    """Where each part of the observation lies (docs/envs.md), for some rules, and how to
    build a seat's observation from scratch."""

    rules: Rules
    max_cards: int = field(init=False)
    """``C``: the most cards a deal gives (declarations are 0..C)."""
    high: int = field(init=False)
    """The largest value in an observation: the most points a seat can have (every trick
    and every contract of every deal), at most 255 (points are clipped to it)."""
    offsets: dict[str, int] = field(init=False)
    """The start of each segment, by name, in order."""
    length: int = field(init=False)
    actions: int = field(init=False)
    """How many action numbers: ``C + 1`` declarations, then the cards."""
    hand_cells: tuple[int, ...] = field(init=False, repr=False)
    """Per seat, where its hand starts in the views of every seat (one flat array)."""
    trick_cells: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    """Per seat, where its card on the trick goes in each seat's view (flat, card 0)."""

    def __post_init__(self) -> None:
        rules = self.rules
        players, size = rules.players, rules.deck.size
        cards = max(c for c, _ in rules.deals)
        object.__setattr__(self, "max_cards", cards)
        object.__setattr__(self, "high", min(MAX_HIGH, sum(2 * c for c, _ in rules.deals)))
        lengths = [("hand", size), ("played", size), ("trick", players * size),
                   ("declared", players * (cards + 1)), ("tricks", players),
                   ("points", players), ("leader", players), ("declaring", 1),
                   ("deal", len(rules.deals)), ("cards", 1)]
        offsets = {}
        start = 0
        for segment, length in lengths:
            offsets[segment] = start
            start += length
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "length", start)
        object.__setattr__(self, "actions", cards + 1 + size)
        object.__setattr__(self, "hand_cells", tuple(
            seat * start + offsets["hand"] for seat in range(players)))
        object.__setattr__(self, "trick_cells", tuple(
            tuple(viewer * start + offsets["trick"] + (seat - viewer) % players * size
                  for viewer in range(players)) for seat in range(players)))

    def build(self, engine: EnvPlanowanieGame, seat: int) -> np.ndarray[Any, Any]:
        """``seat``'s observation made from the engine's state."""
        rules, table = self.rules, engine.table
        players, size, at = rules.players, rules.deck.size, self.offsets
        out = np.zeros(self.length, dtype=np.float32)
        for other in range(players):
            relative = (other - seat) % players
            out[at["tricks"] + relative] = table.tricks[other]
            out[at["points"] + relative] = min(table.points[other], self.high)
        if table.phase is Phase.OVER:
            return out
        out[at["hand"]:at["hand"] + size] = _bits(engine.hands[seat], size)
        on_table = 0
        for k, card in enumerate(table.trick):
            on_table |= 1 << card
            relative = (table.trick_leader + k - seat) % players
            out[at["trick"] + relative * size + card] = 1.0
        out[at["played"]:at["played"] + size] = _bits(table.played & ~on_table, size)
        width = self.max_cards + 1
        for other in range(players):
            declared = engine.said[other] if table.phase is Phase.DECLARE else \
                table.declared[other]
            if declared is not None and (other == seat or table.phase is Phase.PLAY):
                out[at["declared"] + (other - seat) % players * width + declared] = 1.0
        out[at["leader"] + (table.trick_leader - seat) % players] = 1.0
        out[at["declaring"]] = float(table.phase is Phase.DECLARE)
        out[at["deal"] + table.deal] = 1.0
        out[at["cards"]] = table.cards
        return out


class EnvPlanowanieGame(PlanowanieGame):
    """The referee's engine, with what an environment keeps besides: each seat's
    declaration of this deal before they are revealed (a seat knows its own), every
    seat's observation (``views``, one row per seat) kept up to date move by move, so
    that observing is a copy, each seat's cards as action numbers (``held``, 0/1 bytes),
    and ``legal``, the seat to play at this position and the bits of its legal action
    numbers (``None`` until asked)."""

    __slots__ = ("cells", "held", "layout", "legal", "said", "turn", "views")

    def __init__(self, layout: Layout, seed: int, deals: list[list[int]] | None = None
                 ) -> None:
        super().__init__(layout.rules, seed, deals)
        self.layout = layout
        self.said: list[int | None] = [None] * layout.rules.players
        self.legal: tuple[int, int] | None = None
        self.views = np.zeros((layout.rules.players, layout.length), dtype=np.float32)
        self.cells = self.views.reshape(-1)  # (the same memory, one cell a number)
        self.held = np.zeros((layout.rules.players, layout.actions), dtype=np.int8)
        self.rebuild()

    def rebuild(self) -> None:
        """Make every seat's observation again from the state (at each new deal, or after
        changing the state by hand)."""
        for seat in range(self.rules.players):
            self.views[seat] = self.layout.build(self, seat)
        self._hold()
        self.legal = None
        self.turn = self.table.to_play()

    def to_play(self) -> int | None:
        """The seat to decide next, ``None`` once the game is over (kept by ``apply``)."""
        return self.turn
    def _hold(self) -> None:
        """``held`` from the hands."""
        self.held[:, self.layout.max_cards + 1:] = _rows(self.hands, self.rules.deck.size)

    def copy(self) -> EnvPlanowanieGame:
        """An independent copy (with its own arrays)."""
        other = EnvPlanowanieGame.__new__(EnvPlanowanieGame)
        base = super().copy()
        for name in PlanowanieGame.__slots__:
            setattr(other, name, getattr(base, name))
        other.layout = self.layout
        other.said = self.said[:]
        other.legal = None
        other.turn = self.turn
        other.views = self.views.copy()
        other.cells = other.views.reshape(-1)
        other.held = self.held.copy()
        return other

    def apply(self, seat: int, action: Action) -> int | None:
        """Play a legal action, as the referee's engine does, and bring the observations
        up to date."""
        table = self.table
        deal = table.deal
        self.legal = None
        if isinstance(action, Declare):
            self.said[seat] = action.tricks
            PlanowanieGame.apply(self, seat, action)
            self.turn = table.to_play()
            if table.phase is Phase.DECLARE:
                self.views[seat, self.layout.offsets["declared"] + action.tricks] = 1.0
            else:
                self._revealed()
            return None
        leader = table.trick_leader
        winner = PlanowanieGame.apply(self, seat, action)
        self.turn = table.to_play()
        if table.phase is Phase.OVER:
            self.rebuild()
        elif table.deal != deal:
            self._new_deal()
        elif winner is None:
            self._played(seat, action)
        else:
            self._taken(leader, winner)
        return winner

    def _new_deal(self) -> None:
        """Every view at the start of a deal: what ``Layout.build`` makes then, faster."""
        layout, table, views = self.layout, self.table, self.views
        at, players, size = layout.offsets, self.rules.players, self.rules.deck.size
        self.said = [None] * players
        views[:] = 0.0
        hands = _rows(self.hands, size)
        views[:, at["hand"]:at["hand"] + size] = hands
        self.held[:, layout.max_cards + 1:] = hands
        points = [min(p, layout.high) for p in table.points] * 2
        cells, length = self.cells, layout.length
        for viewer in range(players):
            start = viewer * length
            for relative in range(players):
                cells[start + at["points"] + relative] = points[viewer + relative]
            cells[start + at["leader"] + (table.starter - viewer) % players] = 1.0
        views[:, at["declaring"]] = 1.0
        views[:, at["deal"] + table.deal] = 1.0
        views[:, at["cards"]] = table.cards

    def _revealed(self) -> None:
        at, players = self.layout.offsets, self.rules.players
        width = self.layout.max_cards + 1
        for viewer in range(players):
            row = self.views[viewer]
            for other, declared in enumerate(self.table.declared):
                row[at["declared"] + (other - viewer) % players * width + (declared or 0)] = 1
            row[at["declaring"]] = 0.0

    def _played(self, seat: int, card: int) -> None:
        layout, cells = self.layout, self.cells
        cells[layout.hand_cells[seat] + card] = 0.0
        self.held[seat, layout.max_cards + 1 + card] = 0
        for cell in layout.trick_cells[seat]:
            cells[cell + card] = 1.0

    def _taken(self, leader: int, winner: int) -> None:
        layout, table = self.layout, self.table
        at, players = layout.offsets, self.rules.players
        assert table.last_trick is not None
        cards = table.last_trick[1]
        seat = (leader + players - 1) % players  # the trick's last card was this seat's
        views, cells = self.views, self.cells
        cells[layout.hand_cells[seat] + cards[-1]] = 0.0
        self.held[seat, layout.max_cards + 1 + cards[-1]] = 0
        views[:, at["trick"]:at["declared"]] = 0.0
        taken = table.tricks[winner]
        length, played, tricks, leading = layout.length, at["played"], at["tricks"], \
            at["leader"]
        for viewer in range(players):  # (cell by cell: quicker than by columns)
            start = viewer * length
            for card in cards:
                cells[start + played + card] = 1.0
            cells[start + leading + (leader - viewer) % players] = 0.0
            relative = start + (winner - viewer) % players
            cells[tricks + relative] = taken
            cells[leading + relative] = 1.0


def _rows(masks: Sequence[int], size: int) -> np.ndarray[Any, Any]:
    """The bit masks ``masks`` as rows of ``size`` 0/1 bytes (``_bits`` of each)."""
    width = (size + 7) // 8
    raw = np.frombuffer(b"".join(m.to_bytes(width, "little") for m in masks), np.uint8)
    return np.unpackbits(raw.reshape(len(masks), width), axis=1, bitorder="little",
                         count=size)


def _bits(mask: int, size: int) -> np.ndarray[Any, Any]:
    """The bit mask ``mask`` as ``size`` 0/1 bytes (bit ``i`` at index ``i``)."""
    raw = np.frombuffer(mask.to_bytes((size + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little", count=size)


@dataclass
class PlanowanieEnvGame:
    """Planowanie for ``EngineEnv``: the rules (players, deck, deals) and the layout of
    the observation (``layout.offsets``: segment name -> start, as docs/envs.md)."""

    rules: Rules = field(default_factory=Rules)
    name: str = "planowanie"
    seats: int = field(init=False)
    actions: int = field(init=False)
    observation_shape: tuple[int, ...] = field(init=False)
    observation_high: float = field(init=False)
    layout: Layout = field(init=False)
    _declaring: list[np.ndarray[Any, Any]] = field(init=False, repr=False)
    _declares: tuple[Declare, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.layout = Layout(self.rules)
        self.seats = self.rules.players
        self.actions = self.layout.max_cards + 1 + self.rules.deck.size
        self.observation_shape = (self.layout.length,)
        self.observation_high = float(self.layout.high)
        self._declaring = [np.zeros(self.actions, dtype=np.int8)
                           for _ in range(self.layout.max_cards + 1)]
        for cards, mask in enumerate(self._declaring):
            mask[:cards + 1] = 1
        self._declares = tuple(Declare(k) for k in range(self.layout.max_cards + 1))

    @property
    def max_cards(self) -> int:
        """``C``: the most cards a deal gives (declarations are 0..C)."""
        return self.layout.max_cards

    @property
    def offsets(self) -> dict[str, int]:
        """The start of each segment of the observation, by name."""
        return self.layout.offsets

    def new_engine(self, seed: int) -> EnvPlanowanieGame:
        """A new game, every deal's hands dealt from ``seed`` (as the referee deals)."""
        return EnvPlanowanieGame(self.layout, seed)

    def copy_engine(self, engine: EnvPlanowanieGame) -> EnvPlanowanieGame:
        """An independent copy (the environment's ``state`` and ``clone``)."""
        return engine.copy()

    def observe(self, engine: EnvPlanowanieGame, seat: int) -> np.ndarray[Any, Any]:
        """What ``seat`` knows (docs/envs.md): a copy of its row, kept up to date."""
        row: np.ndarray[Any, Any] = engine.views[seat].copy()
        return row

    def legal_mask(self, engine: EnvPlanowanieGame, seat: int) -> np.ndarray[Any, Any]:
        """The declarations 0..cards of this deal, or the cards that may be played (the
        suit led when the hand has it); nothing for a seat not to play."""
        if engine.turn != seat:
            return np.zeros(self.actions, dtype=np.int8)
        table = engine.table
        first = self.layout.max_cards + 1
        if table.phase is Phase.DECLARE:
            engine.legal = (seat, (1 << (table.cards + 1)) - 1)
            return self._declaring[table.cards].copy()
        hand = engine.hands[seat]
        playable = table.legal_mask(hand)
        engine.legal = (seat, playable << first)
        held = engine.held[seat]
        if playable == hand:
            every: np.ndarray[Any, Any] = held.copy()
            return every
        width = len(self.rules.deck.values)  # the suit led, of which the hand has cards
        low = first + table.trick[0] // width * width
        mask = np.zeros(self.actions, dtype=np.int8)
        mask[low:low + width] = held[low:low + width]
        return mask

    def legal_action(self, engine: EnvPlanowanieGame, seat: int, index: int
                     ) -> Action | None:
        """The action numbered ``index`` if the mask ``seat`` was given at this position
        allows it, else ``None`` (the environment then asks the engine why)."""
        legal = engine.legal
        if legal is None or legal[0] != seat or index < 0 or not legal[1] >> index & 1:
            return None
        first = len(self._declares)
        return self._declares[index] if index < first else index - first

    def action(self, engine: PlanowanieGame, seat: int, index: int) -> Action:
        """``Declare(index)`` for ``0..C``, else the card ``index - C - 1``."""
        first = len(self._declares)
        if index < first:
            return self._declares[index] if index >= 0 else Declare(index)
        return index - first

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
        lines += [f"seat {seat}: {seat_summary(engine, seat, engine.said[seat])}"
                  for seat in range(rules.players)]
        if table.phase is Phase.PLAY:
            lines.append(f"trick (seat {table.trick_leader} leads): "
                         f"{trick_summary(engine) or '-'}")
        return "\n".join(lines)


def make_env(players: int = 4, values: str = "23456789TJQKA", suits: str = "CDHS",
             deals: str | Sequence[Deal] | None = None, render_mode: str | None = None,
             max_moves: int | None = None) -> EngineEnv[EnvPlanowanieGame]:
    """The Planowanie AEC environment: ``players`` (2..4), the deck's ``values`` (lowest
    first) and ``suits`` (the first is trumps), ``deals`` as ``set_game``'s arguments
    (``"d c1 s1 ... cd sd"``) or a list of (cards, starting seat) [default: the tournament's
    schedule of deals of 1, 2, ... cards, 13 deals or as many as the deck allows],
    ``render_mode`` (``"ansi"`` or ``"human"``) and ``max_moves``. ``ConfigError`` names
    a bad option."""
    deck = Deck(values, suits)
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ConfigError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, got {players}")
    if deals is None:
        schedule = tournament_deals(players, max(1, min(13, deck.size // players)))
    elif isinstance(deals, str):
        schedule = parse_deals(deals.split())
    else:
        schedule = tuple((int(cards), int(starter)) for cards, starter in deals)
    game = PlanowanieEnvGame(Rules(deck, players, schedule))
    return EngineEnv(game, render_mode=render_mode, max_moves=max_moves)
