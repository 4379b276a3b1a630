"""Planowanie rules: the deck, the deals, declarations, tricks and scoring. Pure.

A card is an ``int``: ``suit * len(values) + rank``, so suit 0 is the trump suit (the
first character of ``set_deck``'s suits) and within a suit a higher id is a higher card.
A hand is a bit mask of card ids. A declaration is a ``Declare``; a played card is its id.

``Table`` is the state everyone at the table sees (declarations once revealed, the trick
on the table, tricks taken, points); ``PlanowanieGame`` is the referee's engine (a table
and every hand, dealt from a seed); ``SeatView`` is what one player knows (a table and its
own hand), for bots and the console. All three follow one set of rules, in ``Table``.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from referee.core.errors import ConfigError

TOURNAMENT_VALUES = "23456789TJQKA"
TOURNAMENT_SUITS = "CDHS"
MIN_PLAYERS = 2
MAX_PLAYERS = 4


@dataclass(frozen=True)
class Deck:
    """The cards: one character per value (ascending) and per suit (the first is trumps)."""

    values: str = TOURNAMENT_VALUES
    suits: str = TOURNAMENT_SUITS
    names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for what, text in (("values", self.values), ("suits", self.suits)):
            if not text:
                raise ConfigError(f"deck {what} must not be empty")
            if len(set(text)) != len(text):
                raise ConfigError(f"deck {what} {text!r} repeat a character")
            if any(not c.isprintable() or c.isspace() for c in text):
                raise ConfigError(f"deck {what} {text!r} must be printable characters, no spaces")
        names = tuple(v + s for s in self.suits for v in self.values)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "_index", {name: i for i, name in enumerate(names)})

    @property
    def size(self) -> int:
        """Number of cards."""
        return len(self.names)

    def card(self, name: str) -> int | None:
        """The id of the card named ``name`` (value then suit), ``None`` if there is none."""
        return self._index.get(name)

    def name(self, card: int) -> str:
        """The two-character name of ``card``."""
        return self.names[card]

    def suit(self, card: int) -> int:
        """The suit index of ``card`` (0: trumps)."""
        return card // len(self.values)

    def suit_mask(self, suit: int) -> int:
        """The bit mask of every card of ``suit``."""
        width = len(self.values)
        return ((1 << width) - 1) << (suit * width)


Deal = tuple[int, int]
"""One deal of the schedule: (cards per player, starting player)."""


def tournament_deals(players: int = 4, deals: int = 13) -> tuple[Deal, ...]:
    """The tournament schedule: deal i has i cards, the starter moves one seat each deal."""
    return tuple((i, (i - 1) % players) for i in range(1, deals + 1))


@dataclass(frozen=True)
class Rules:
    """A game's configuration: the deck, how many players, the deals."""

    deck: Deck = field(default_factory=Deck)
    players: int = 4
    deals: tuple[Deal, ...] = field(default_factory=tournament_deals)

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ConfigError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, "
                              f"got {self.players}")
        if not self.deals:
            raise ConfigError("the game needs at least one deal")
        for number, (cards, starter) in enumerate(self.deals, start=1):
            if cards < 1:
                raise ConfigError(f"deal {number}: {cards} cards, need at least 1")
            if cards * self.players > self.deck.size:
                raise ConfigError(f"deal {number}: {cards} cards for {self.players} players "
                                  f"need {cards * self.players}, the deck has "
                                  f"{self.deck.size}")
            if not 0 <= starter < self.players:
                raise ConfigError(f"deal {number}: starting player {starter} is not one "
                                  f"of 0..{self.players - 1}")

    @property
    def total_actions(self) -> int:
        """Declarations plus cards over the whole game."""
        return sum(self.players * (cards + 1) for cards, _ in self.deals)

    def set_game_args(self) -> str:
        """The arguments of ``set_game``: ``d c1 s1 ... cd sd``."""
        return " ".join([str(len(self.deals)), *(f"{c} {s}" for c, s in self.deals)])


def parse_deals(words: Sequence[str]) -> tuple[Deal, ...]:
    """The deals of ``set_game``'s arguments (``d c1 s1 ... cd sd``); ``ConfigError`` if bad."""
    try:
        numbers = [int(w) for w in words]
    except ValueError:
        raise ConfigError(f"set_game arguments must be integers: {' '.join(words)}") from None
    if not numbers or numbers[0] < 1 or len(numbers) != 1 + 2 * numbers[0]:
        raise ConfigError("set_game needs d, then d pairs of cards and starting player")
    return tuple((numbers[1 + 2 * i], numbers[2 + 2 * i]) for i in range(numbers[0]))


def deal_hands(rules: Rules, seed: int) -> list[list[int]]:
    """Every deal's hands (bit masks, seat order) from ``seed``: the same seed, the same cards.

    Each deal shuffles the whole deck and gives each seat the next ``cards`` cards, so a
    seat's hands depend only on the seed and the rules (not on who sits there).
    """
    rng = random.Random(seed)
    deck = list(range(rules.deck.size))
    deals = []
    for cards, _ in rules.deals:
        rng.shuffle(deck)
        hands = []
        for seat in range(rules.players):
            mask = 0
            for card in deck[seat * cards:(seat + 1) * cards]:
                mask |= 1 << card
            hands.append(mask)
        deals.append(hands)
    return deals


def cards_of(mask: int) -> list[int]:
    """The card ids in a bit mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Sequence[int]) -> int:
    """The bit mask of some card ids."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


@dataclass(frozen=True, slots=True)
class Declare:
    """A declaration: the number of tricks a player means to take in this deal."""

    tricks: int


Action = Declare | int
"""A declaration or a card id."""


class Phase(enum.Enum):
    """Where a deal is: declaring, playing, or the whole game is over."""

    DECLARE = "declare"
    PLAY = "play"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class DealResult:
    """A deal played to its end: its number (0-based), cards per player, what each seat
    declared and took, the points each gained, and its last trick (as ``last_trick``)."""

    deal: int
    cards: int
    declared: tuple[int, ...]
    tricks: tuple[int, ...]
    gained: tuple[int, ...]
    last_trick: tuple[int, tuple[int, ...], int]


class Table:
    """What every player sees: revealed declarations, the trick, tricks taken, points.

    Declarations are kept as they come (``pending``) and revealed together once every
    player has declared. ``played`` is the mask of cards already played in this deal.
    """

    __slots__ = (
        "_n",
        "_pending",
        "_width",
        "cards",
        "deal",
        "declared",
        "last_deal",
        "last_trick",
        "leader",
        "phase",
        "played",
        "points",
        "rules",
        "starter",
        "trick",
        "trick_leader",
        "tricks",
    )

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._n = rules.players
        self._width = len(rules.deck.values)
        self.points = [0] * rules.players
        self.deal = -1
        self.cards = 0
        self.starter = 0
        self.declared: list[int | None] = []
        self._pending: list[int | None] = []
        self.tricks: list[int] = []
        self.trick: list[int] = []
        self.trick_leader = 0
        self.leader = 0
        self.played = 0
        self.last_trick: tuple[int, tuple[int, ...], int] | None = None
        """The last completed trick: (its leader, its cards in play order, its winner)."""
        self.last_deal: DealResult | None = None
        """The last deal played to its end (what the table saw of it once it was over)."""
        self.phase = Phase.DECLARE

    def copy(self) -> Table:
        """An independent copy."""
        other = Table.__new__(Table)
        for name in Table.__slots__:
            value = getattr(self, name)
            setattr(other, name, value[:] if isinstance(value, list) else value)
        return other

    def start_deal(self, deal: int) -> None:
        """Begin deal ``deal`` (0-based): nothing declared, nothing played."""
        self.deal = deal
        self.cards, self.starter = self.rules.deals[deal]
        n = self._n
        self.declared = [None] * n
        self._pending = [None] * n
        self.tricks = [0] * n
        self.trick = []
        self.leader = self.trick_leader = self.starter
        self.played = 0
        self.last_trick = None
        self.phase = Phase.DECLARE

    # -- turns --------------------------------------------------------------------------
    def next_to_declare(self) -> int | None:
        """The next seat to declare (from the starter, clockwise), ``None`` once all have."""
        n = self._n
        for k in range(n):
            seat = (self.starter + k) % n
            if self._pending[seat] is None:
                return seat
        return None

    def to_play(self) -> int | None:
        """The seat to decide next, ``None`` when the game is over."""
        if self.phase is Phase.PLAY:
            return (self.trick_leader + len(self.trick)) % self._n
        if self.phase is Phase.DECLARE:
            return self.next_to_declare()
        return None

    def said(self, seat: int) -> int | None:
        """``seat``'s declaration in this deal, revealed or not yet (``None`` before it
        declares): what the referee knows, and the seat itself."""
        return self._pending[seat] if self._pending else None

    def led_suit(self) -> int | None:
        """The suit of the trick's first card, ``None`` before it is led."""
        return self.trick[0] // self._width if self.trick else None

    def legal_mask(self, hand: int) -> int:
        """The cards of ``hand`` that may be played now (follow suit when possible)."""
        if self.trick:
            suit = self.trick[0] // self._width
            width = self._width
            same = hand & (((1 << width) - 1) << (suit * width))
            if same:
                return same
        return hand

    # -- events -------------------------------------------------------------------------
    def declare(self, seat: int, tricks: int) -> bool:
        """Note ``seat``'s declaration; returns ``True`` when it was the last (all revealed)."""
        self._pending[seat] = tricks
        if None in self._pending:
            return False
        self.declared = self._pending[:]
        self.phase = Phase.PLAY
        return True

    def play(self, seat: int, card: int) -> int | None:
        """Put ``seat``'s card on the trick; returns the trick's winner when it completes.

        When the deal's last trick completes, its points are added and the next deal
        starts (or the game is over).
        """
        trick = self.trick
        trick.append(card)
        self.played |= 1 << card
        if len(trick) < self._n:
            return None
        winner = (self.trick_leader + self.trick_winner_index(trick)) % self._n
        self.tricks[winner] += 1
        self.last_trick = (self.trick_leader, tuple(trick), winner)
        self.trick = []
        self.trick_leader = winner
        if sum(self.tricks) == self.cards:
            self._score_deal()
        return winner

    def trick_winner_index(self, trick: Sequence[int]) -> int:
        """Which card of a complete trick (in play order) takes it."""
        width = self._width
        best = 0
        best_card = trick[0]
        best_suit = best_card // width
        for k in range(1, len(trick)):
            card = trick[k]
            suit = card // width
            if suit == best_suit:
                if card > best_card:
                    best, best_card = k, card
            elif suit == 0:
                best, best_card, best_suit = k, card, 0
        return best

    def _score_deal(self) -> None:
        gained = []
        for seat in range(self._n):
            taken = self.tricks[seat]
            gained.append(taken + (self.cards if taken == self.declared[seat] else 0))
            self.points[seat] += gained[-1]
        assert self.last_trick is not None
        self.last_deal = DealResult(self.deal, self.cards, tuple(n or 0 for n in self.declared),
                                    tuple(self.tricks), tuple(gained), self.last_trick)
        if self.deal + 1 < len(self.rules.deals):
            self.start_deal(self.deal + 1)
        else:
            self.phase = Phase.OVER


class PlanowanieGame:
    """The referee's engine: the table and every hand, dealt from ``seed``."""

    __slots__ = ("deals", "hands", "rules", "seed", "table")

    def __init__(self, rules: Rules, seed: int, deals: list[list[int]] | None = None) -> None:
        self.rules = rules
        self.seed = seed
        self.deals = deals if deals is not None else deal_hands(rules, seed)
        self.table = Table(rules)
        self.hands: list[int] = []
        self._begin(0)

    def _begin(self, deal: int) -> None:
        self.table.start_deal(deal)
        self.hands = list(self.deals[deal])

    def copy(self) -> PlanowanieGame:
        """An independent copy (the dealt cards are shared: they never change)."""
        other = PlanowanieGame.__new__(PlanowanieGame)
        other.rules = self.rules
        other.seed = self.seed
        other.deals = self.deals
        other.table = self.table.copy()
        other.hands = self.hands[:]
        return other

    # -- the match loop's interface -----------------------------------------------------
    def to_play(self) -> int | None:
        """The seat to decide next, ``None`` once the game is over."""
        return self.table.to_play()

    def legal_actions(self) -> list[Action]:
        """Every action the seat to play may take."""
        table = self.table
        seat = table.to_play()
        if seat is None:
            return []
        if table.phase is Phase.DECLARE:
            return [Declare(k) for k in range(table.cards + 1)]
        return list(cards_of(table.legal_mask(self.hands[seat])))

    def illegal_reason(self, seat: int, action: Action) -> str | None:
        """Why ``action`` is not allowed for ``seat`` now, ``None`` if it is."""
        table = self.table
        if seat != table.to_play():
            return "it is not this player's turn"
        if table.phase is Phase.DECLARE:
            if not isinstance(action, Declare):
                return "a card was played during the declarations"
            if not 0 <= action.tricks <= table.cards:
                return f"declared {action.tricks}, not in 0..{table.cards}"
            return None
        if isinstance(action, Declare):
            return "a declaration during the play"
        deck = self.rules.deck
        if not 0 <= action < deck.size:
            return f"card {action} does not exist"
        bit = 1 << action
        if not self.hands[seat] & bit:
            return f"{deck.name(action)} is not in the player's hand"
        if not table.legal_mask(self.hands[seat]) & bit:
            led = deck.suits[table.led_suit() or 0]
            return f"{deck.name(action)} does not follow suit ({led} was led)"
        return None

    def apply(self, seat: int, action: Action) -> int | None:
        """Play a legal action (declarations stay hidden until every seat has declared);
        returns the seat that took the trick when this card completed one."""
        table = self.table
        if isinstance(action, Declare):
            table.declare(seat, action.tricks)
            return None
        self.hands[seat] &= ~(1 << action)
        deal = table.deal
        winner = table.play(seat, action)
        if table.deal != deal:
            self.hands = list(self.deals[table.deal])
        return winner

    def notation(self, action: Action) -> str:
        """``declare N`` or the card's name."""
        if isinstance(action, Declare):
            return f"declare {action.tricks}"
        return self.rules.deck.name(action) if 0 <= action < self.rules.deck.size else "??"

    def scores(self) -> list[float]:
        """Points per seat."""
        return [float(p) for p in self.table.points]

    def end_reason(self) -> str:
        """How the game ended."""
        return f"{len(self.rules.deals)} deals played"

    def forfeit_scores(self, seat: int) -> list[float]:
        """The offender loses (0), every other seat wins (1)."""
        scores = [1.0] * self.rules.players
        scores[seat] = 0.0
        return scores


class SeatView:
    """What one player knows: the rules, its seat, the table and its own hand.

    Fed with the events the protocol carries (its cards, the declarations, every card
    played); used by bots and by the console to follow a game.
    """

    __slots__ = ("hand", "rules", "seat", "table")

    def __init__(self, rules: Rules, seat: int) -> None:
        self.rules = rules
        self.seat = seat
        self.table = Table(rules)
        self.hand = 0

    def new_deal(self, cards: Sequence[int]) -> None:
        """This deal's cards (``set_cards``); the first one starts the game.

        Later deals start by themselves when the previous one's last trick is played.
        """
        if self.table.deal < 0:
            self.table.start_deal(0)
        self.hand = mask_of(cards)

    def declare(self, seat: int, tricks: int) -> None:
        """A player's declaration (as ``declare`` tells it)."""
        self.table.declare(seat, tricks)

    def play(self, seat: int, card: int) -> None:
        """A player's card (as ``play`` tells it, the player's own included)."""
        if seat == self.seat:
            self.hand &= ~(1 << card)
        deal = self.table.deal
        self.table.play(seat, card)
        if self.table.deal != deal:
            self.hand = 0  # the next deal's cards come with set_cards

    def legal_cards(self) -> list[int]:
        """The cards this player may play now."""
        return cards_of(self.table.legal_mask(self.hand))


def deal_views(views: Iterable[SeatView], game: PlanowanieGame) -> None:
    """Give every view its cards of the game's current deal (what ``set_cards`` tells)."""
    hands = game.deals[game.table.deal]
    for view in views:
        view.new_deal(cards_of(hands[view.seat]))


def show_action(views: Iterable[SeatView], game: PlanowanieGame, seat: int,
                action: Action) -> None:
    """Tell every view what the protocol tells its player once ``seat``'s ``action`` has
    been applied to ``game``: every declaration after the last one, every card."""
    if isinstance(action, Declare):
        if game.table.phase is not Phase.DECLARE:
            declared = [n or 0 for n in game.table.declared]
            for view in views:
                for i, n in enumerate(declared):
                    view.declare(i, n)
        return
    for view in views:
        view.play(seat, action)


def seat_summary(game: PlanowanieGame, seat: int, said: int | None) -> str:
    """One seat as the console and the environment show it: ``hand 2C 5H | declared 1 |
    tricks 0 | points 3``. While seats declare, ``said`` is the seat's declaration not yet
    shown to the others (``N (hidden)``; ``-`` before it declares)."""
    table = game.table
    deck = game.rules.deck
    hand = " ".join(deck.name(c) for c in cards_of(game.hands[seat])) or "-"
    if table.phase is Phase.DECLARE:
        declared = "-" if said is None else f"{said} (hidden)"
    else:
        declared = str(table.declared[seat])
    return (f"hand {hand} | declared {declared} | tricks {table.tricks[seat]} | "
            f"points {table.points[seat]}")


def trick_summary(game: PlanowanieGame) -> str:
    """The cards of the trick on the table, in the order played: ``seat 2 5H, seat 3 7H``
    (``""`` for an empty trick)."""
    table = game.table
    players = game.rules.players
    return ", ".join(f"seat {(table.trick_leader + k) % players} {game.rules.deck.name(c)}"
                     for k, c in enumerate(table.trick))

