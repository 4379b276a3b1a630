"""planowanie-heuristic: declares from its hand's strength, then plays to hit the declaration.

Declaring, it estimates each card's chance to take a trick (higher cards still out, how
many opponents hold cards, the risk of side cards being trumped, ruffs and length in
trumps; the exact chance for a one-card deal) and declares the most likely number of
tricks. Playing, it wins tricks as cheaply as it safely can while it still needs some (or
once the bonus is out of reach), and ducks with its highest losing cards once it has
enough. Every decision is a formula over the hand and the cards seen: no search.

Run it as ``python -m referee.games.planowanie.bots.heuristic_player``. Seed its
tie-breaking with ``--seed N`` or ``REFEREE_BRAIN_SEED``; by default it is seeded from the
system.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from referee.games.planowanie.bots.player import player_main
from referee.games.planowanie.rules import SeatView, Table, cards_of

NAME = "planowanie-heuristic"

SAFE = 0.35
"""The chance a winning card must have to hold for a cheap win while tricks are not short."""

EXCESS = 1.0
"""How many likely winners beyond the tricks still needed count as strength to spare."""

SIDE_FLOOR = 0.05
"""The chance a low side card takes a trick anyway (everyone else discarding), long deals."""


def binomial_pmf(k: int, n: int, p: float) -> float:
    """P(X = k) for X ~ Binomial(n, p)."""
    if k < 0 or k > n:
        return 0.0
    coefficient = 1
    for j in range(k):
        coefficient = coefficient * (n - j) // (j + 1)
    return float(coefficient * p ** k * (1.0 - p) ** (n - k))


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p)."""
    return min(1.0, sum(binomial_pmf(j, n, p) for j in range(min(k, n) + 1)))


def most_likely_count(probs: Sequence[float]) -> int:
    """The mode of the number of successes of independent events with chances ``probs``."""
    dist = [1.0]
    for p in probs:
        nxt = [0.0] * (len(dist) + 1)
        for k, q in enumerate(dist):
            nxt[k] += q * (1.0 - p)
            nxt[k + 1] += q * p
        dist = nxt
    return max(range(len(dist)), key=lambda k: (dist[k], -k))


def one_card_chance(view: SeatView) -> float:
    """The chance the single card of a one-card deal takes the trick."""
    rules = view.rules
    width, deck_size, n = len(rules.deck.values), rules.deck.size, rules.players
    card = cards_of(view.hand)[0]
    suit, rank = divmod(card, width)
    unknown = deck_size - 1
    higher = width - 1 - rank
    trumps = width if suit != 0 and len(rules.deck.suits) > 1 else 0

    def none_of(bad: int, pool: int, players: int) -> float:
        chance = 1.0
        for k in range(players):
            chance *= max(0, pool - bad - k) / (pool - k)
        return chance

    if view.table.starter == view.seat or suit == 0:
        # Led (or a trump): only a higher card of its suit or a trump beats it.
        return none_of(higher + trumps, unknown, n - 1)
    # A side card wins only when the leader leads its suit, lower, and nobody beats it.
    return rank / unknown * none_of(higher + trumps, unknown - 1, n - 2)


def trick_chances(view: SeatView) -> list[float]:
    """Each card's estimated chance to take a trick in this deal (before any play)."""
    rules = view.rules
    width, suits, n, cards = len(rules.deck.values), len(rules.deck.suits), rules.players, \
        view.table.cards
    unknown = rules.deck.size - cards
    per = cards / unknown                       # a given unknown card in a given opponent's hand
    dealt = min(1.0, (n - 1) * per)             # a given unknown card is with some opponent
    mine = [sorted((c % width for c in cards_of(view.hand & rules.deck.suit_mask(s))),
                   reverse=True) for s in range(suits)]
    opp_trump = 1.0 - (1.0 - per) ** (width - len(mine[0])) if suits > 1 else 0.0
    # A side card wins only in a trick its suit is led to: short deals give few chances.
    led = 1.0 - (1.0 - 1.0 / suits) ** (cards + (2 if view.table.starter == view.seat else 0))
    chances: list[float] = []
    trump_chances: list[float] = []
    for suit, ranks in enumerate(mine):
        length = len(ranks)
        for i, rank in enumerate(ranks):
            higher = width - 1 - rank - i       # higher cards of the suit not in my hand
            below = length - 1 - i
            p = binomial_cdf(i, higher, dealt)
            p += binomial_pmf(i + 1, higher, dealt) * (0.35 if below else 0.15)
            if suit:
                # The suit's (i+1)-th round: an opponent with fewer cards of it may trump.
                short = binomial_cdf(i, cards, (width - length) / unknown)
                p *= (1.0 - short * opp_trump) ** (n - 1) * led
                chances.append(p + (1.0 - p) * SIDE_FLOOR * min(1.0, cards / 6))
            else:
                trump_chances.append(p)
    if trump_chances:
        ruff = _ruff_chance(mine, cards)
        trump_chances = [p + (1.0 - p) * ruff for p in trump_chances]
    return chances + trump_chances


def _ruff_chance(mine: list[list[int]], cards: int) -> float:
    """The chance a trump that is not high enough to win by rank takes a trick anyway.

    It does by ruffing a side suit its owner has run out of, or once the opponents have
    no trumps left: more likely with short side suits, and only in deals long enough.
    """
    suits = len(mine)
    if suits < 2:
        return 0.0
    rounds = cards / suits                  # how often each suit is led, about
    shortness = sum(max(0.0, rounds - len(ranks)) for ranks in mine[1:]) / (rounds * (suits - 1))
    return min(1.0, cards / 4) * min(0.6, 0.2 + 0.4 * shortness)


class HeuristicStrategy:
    """Declares the most likely number of tricks, then plays to take exactly that many."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)
        self._deal: tuple[int, int] = (-1, -1)
        self._seen = 0
        self._voids: list[int] = []

    # -- declarations -------------------------------------------------------------------
    def declare(self, view: SeatView) -> int:
        """The most likely number of tricks this hand takes (0..cards)."""
        cards = view.table.cards
        if not view.hand:
            return 0
        if cards == 1:
            return 1 if one_card_chance(view) > 0.5 else 0
        return max(0, min(cards, most_likely_count(trick_chances(view))))

    # -- play ---------------------------------------------------------------------------
    def move(self, view: SeatView) -> int:
        """A legal card: win cheaply while tricks are needed, duck once there are enough."""
        legal = view.legal_cards()
        self._observe(view)
        if len(legal) == 1:
            return legal[0]
        table = view.table
        declared = table.declared[view.seat] if table.declared else None
        need = (declared if declared is not None else 0) - table.tricks[view.seat]
        left = table.cards - sum(table.tricks)
        if need == 0:
            return self._duck(view, legal)
        urgent = need >= left or need < 0
        spare = not urgent and self._strength(view) >= need + EXCESS
        return self._take(view, legal, urgent, spare)

    def _take(self, view: SeatView, legal: list[int], urgent: bool, spare: bool) -> int:
        """A card to win this trick with, or one to give it up with.

        Short of strength it wins as cheaply as is safe and discards its least useful card;
        with strength to spare (more likely winners than tricks needed) it wins with, and
        discards, the cards that would be hardest to lose later.
        """
        table = view.table
        width = len(view.rules.deck.values)
        if not table.trick:
            holds = {c: self._hold(view, c) for c in legal}
            best = max(holds.values())
            if best >= SAFE or urgent:
                # Lead the surest card; among equals a side card (trumps keep), the lowest.
                return self._pick(legal, lambda c: (holds[c] >= best - 0.02,
                                                    self._suit(view, c) != 0,
                                                    self._danger(view, c) if spare
                                                    else -(c % width)))
            return self._discard(view, legal, spare)
        winners = [c for c in legal if self._beats(view, c)]
        if not winners:
            return self._discard(view, legal, spare)
        holds = {c: self._hold(view, c) for c in winners}
        safe = [c for c in winners if holds[c] >= SAFE]
        if safe:
            if spare:
                return self._pick(safe, lambda c: (self._danger(view, c),))
            return min(safe)
        if urgent or len(winners) == len(legal):
            return self._pick(winners, lambda c: (holds[c], -c))
        return self._discard(view, [c for c in legal if c not in holds], spare)

    def _duck(self, view: SeatView, legal: list[int]) -> int:
        """A card least likely to take this trick, shedding dangerous cards when it can."""
        table = view.table
        if not table.trick:
            holds = {c: self._hold(view, c) for c in legal}
            return self._pick(legal, lambda c: (-round(holds[c], 2), self._danger(view, c)))
        losers = [c for c in legal if not self._beats(view, c)]
        if losers:
            return self._pick(losers, lambda c: (self._danger(view, c),))
        if len(table.trick) == view.rules.players - 1:
            return self._pick(legal, lambda c: (self._danger(view, c),))   # taken anyway
        holds = {c: self._hold(view, c) for c in legal}
        return self._pick(legal, lambda c: (-holds[c], -c))

    def _discard(self, view: SeatView, cards: list[int], spare: bool) -> int:
        """A card to give a trick up with: side cards before trumps, short suits first; the
        lowest (to keep winners), or the most dangerous when there are winners to spare."""
        hand = view.hand
        deck = view.rules.deck
        sign = 1 if spare else -1

        def key(c: int) -> tuple[bool, int, int]:
            suit = deck.suit(c)
            return (suit != 0, sign * self._danger(view, c),
                    -(hand & deck.suit_mask(suit)).bit_count())

        return self._pick(cards, key)

    def _pick(self, cards: list[int], key: Callable[[int], tuple[float, ...]]) -> int:
        """The card with the largest key; ties broken at random."""
        keyed = [(key(c), c) for c in cards]
        best = max(k for k, _ in keyed)
        tied = [c for k, c in keyed if k == best]
        return tied[0] if len(tied) == 1 else self.rng.choice(tied)

    # -- what the cards say ----------------------------------------------------------------
    @staticmethod
    def _suit(view: SeatView, card: int) -> int:
        return card // len(view.rules.deck.values)

    def _danger(self, view: SeatView, card: int) -> int:
        """How likely a card is to take a trick later: its rank, trumps above side cards."""
        width = len(view.rules.deck.values)
        suit, rank = divmod(card, width)
        unknown = ~view.hand & ~view.table.played & view.rules.deck.suit_mask(suit)
        higher = (unknown >> (card + 1)).bit_count()
        return (width if suit == 0 else 0) + rank - higher

    def _strength(self, view: SeatView) -> float:
        """How many tricks the hand looks good for: each card's chance to hold if led."""
        return sum(self._hold(view, c, lead=True) for c in cards_of(view.hand))

    def _beats(self, view: SeatView, card: int) -> bool:
        """Whether ``card`` would take the trick as it stands."""
        trick = view.table.trick
        if not trick:
            return True
        return view.table.trick_winner_index([*trick, card]) == len(trick)

    def _hold(self, view: SeatView, card: int, lead: bool = False) -> float:
        """The chance ``card``, played now and winning so far, is not beaten by those after
        (or, with ``lead``, led to a new trick: by anyone)."""
        table = view.table
        rules = view.rules
        deck = rules.deck
        width = len(deck.values)
        n = rules.players
        trick = [] if lead else table.trick
        suit = card // width
        led = trick[0] // width if trick else suit
        unknown = ((1 << deck.size) - 1) & ~view.hand & ~table.played
        pool = unknown.bit_count()
        if pool == 0:
            return 1.0
        higher = (unknown & deck.suit_mask(suit)) >> (card + 1)
        n_higher = higher.bit_count()
        n_led = (unknown & deck.suit_mask(led)).bit_count()
        n_trumps = (unknown & deck.suit_mask(0)).bit_count() if len(deck.suits) > 1 else 0
        done = sum(table.tricks)
        chance = 1.0
        for k in range(len(trick) + 1, n):
            seat = (view.seat + k) % n if lead else (table.trick_leader + k) % n
            voids = self._voids[seat] if seat < len(self._voids) else 0
            per = min(1.0, (table.cards - done) / pool)
            p_higher = 0.0 if voids >> suit & 1 else 1.0 - (1.0 - per) ** n_higher
            p_void = 1.0 if voids >> led & 1 else (1.0 - per) ** n_led
            if suit == led and suit != 0:
                p_trump = 0.0 if voids & 1 else 1.0 - (1.0 - per) ** n_trumps
                beat = p_higher + p_void * p_trump
            elif suit == led:
                beat = p_higher
            else:                               # a trump on a side suit
                beat = p_void * p_higher
            chance *= max(0.0, 1.0 - min(1.0, beat))
        return chance

    def _observe(self, view: SeatView) -> None:
        """Note the suits players showed out of (from the last trick and this one).

        Called at each of this player's turns, it sees every trick of the deal. A new deal
        (or game) starts afresh: another table or deal, or cards played no longer seen.
        """
        table: Table = view.table
        key = (id(table), table.deal)
        n = view.rules.players
        if key != self._deal or table.played & self._seen != self._seen:
            self._deal = key
            self._voids = [0] * n
        self._seen = table.played
        width = len(view.rules.deck.values)
        tricks: list[tuple[int, Sequence[int]]] = [(table.trick_leader, table.trick)]
        if table.last_trick is not None:
            tricks.append((table.last_trick[0], table.last_trick[1]))
        for leader, cards in tricks:
            if not cards:
                continue
            led = cards[0] // width
            for k, card in enumerate(cards[1:], start=1):
                if card // width != led:
                    self._voids[(leader + k) % n] |= 1 << led


def main(argv: Sequence[str] | None = None) -> int:
    """Run the heuristic player on stdin/stdout."""
    return player_main(argv, NAME, "Heuristic Planowanie player.", HeuristicStrategy)


if __name__ == "__main__":
    raise SystemExit(main())
