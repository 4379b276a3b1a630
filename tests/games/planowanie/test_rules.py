"""The Planowanie rules engine: dealing, turns, follow-suit, trumps, scoring, views.

Property tests play random games on random decks, player counts and deal schedules, and
check every step against a separate, deliberately plain model of the rules.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.errors import ConfigError
from referee.games.planowanie.rules import (
    Deck,
    Declare,
    Phase,
    PlanowanieGame,
    Rules,
    SeatView,
    cards_of,
    deal_hands,
    deal_views,
    parse_deals,
    show_action,
    tournament_deals,
)

SPEC_SET_GAME = "13 1 0 2 1 3 2 4 3 5 0 6 1 7 2 8 3 9 0 10 1 11 2 12 3 13 0"


@st.composite
def rules(draw: st.DrawFn) -> Rules:
    """Any valid configuration: a deck, 2 to 4 players, a schedule that fits the deck."""
    values = "".join(draw(st.permutations("23456789TJQKA"))[: draw(st.integers(1, 13))])
    suits = "".join(draw(st.permutations("CDHSXY"))[: draw(st.integers(1, 6))])
    deck = Deck(values, suits)
    players = draw(st.integers(2, 4))
    most = deck.size // players
    if most < 1:
        players = 2
        deck = Deck("23", suits)
        most = deck.size // players
    deals = draw(st.lists(st.tuples(st.integers(1, most), st.integers(0, players - 1)),
                          min_size=1, max_size=6))
    return Rules(deck, players, tuple(deals))


def plain_winner(deck: Deck, cards: list[int]) -> int:
    """The index of the card taking a trick, computed the obvious way."""
    led = deck.suit(cards[0])
    width = len(deck.values)

    def strength(card: int) -> tuple[int, int]:
        suit = deck.suit(card)
        return (2 if suit == 0 else 1 if suit == led else 0, card % width)

    return max(range(len(cards)), key=lambda k: strength(cards[k]))


def play_randomly(game: PlanowanieGame, rng: random.Random) -> list[tuple[int, object]]:
    """Play to the end with random legal actions; returns (seat, action) in order."""
    moves = []
    while (seat := game.to_play()) is not None:
        action = rng.choice(game.legal_actions())
        assert game.illegal_reason(seat, action) is None
        game.apply(seat, action)
        moves.append((seat, action))
    return moves


@settings(max_examples=150)
@given(rules(), st.integers(0, 2**32), st.integers(0, 2**32))
def test_random_games_follow_the_rules(config: Rules, seed: int, choices: int) -> None:
    game = PlanowanieGame(config, seed)
    deck = config.deck
    n = config.players
    rng = random.Random(choices)
    points = [0] * n
    for deal, (cards, starter) in enumerate(config.deals):
        hands = [cards_of(h) for h in game.deals[deal]]
        assert all(len(h) == cards for h in hands)
        assert len({c for h in hands for c in h}) == cards * n  # no card twice
        held = [set(h) for h in hands]
        # declarations: from the starter, clockwise, hidden until all are in
        declared = [0] * n
        for k in range(n):
            seat = game.to_play()
            assert seat == (starter + k) % n and game.table.phase is Phase.DECLARE
            assert game.legal_actions() == [Declare(t) for t in range(cards + 1)]
            assert game.illegal_reason(seat, Declare(cards + 1)) is not None
            choice = rng.randint(0, cards)
            declared[seat] = choice
            game.apply(seat, Declare(choice))
            if k < n - 1:
                assert game.table.declared == [None] * n
        assert game.table.declared == declared
        tricks = [0] * n
        leader = starter
        for _ in range(cards):
            trick = []
            for k in range(n):
                seat = game.to_play()
                assert seat == (leader + k) % n
                legal = game.legal_actions()
                assert set(legal) <= held[seat]
                if trick:
                    led = deck.suit(trick[0])
                    follow = {c for c in held[seat] if deck.suit(c) == led}
                    assert set(legal) == (follow or held[seat])
                    for card in held[seat] - set(legal):
                        assert "follow suit" in (game.illegal_reason(seat, card) or "")
                else:
                    assert set(legal) == held[seat]
                outside = next((c for c in range(deck.size) if c not in held[seat]), None)
                if outside is not None:
                    assert game.illegal_reason(seat, outside) is not None
                card = rng.choice(legal)
                game.apply(seat, card)
                held[seat].discard(card)
                trick.append(card)
            leader = (leader + plain_winner(deck, trick)) % n
            tricks[leader] += 1
        for seat in range(n):
            points[seat] += tricks[seat] + (cards if tricks[seat] == declared[seat] else 0)
        assert game.table.points == points
    assert game.to_play() is None and game.table.phase is Phase.OVER
    assert game.scores() == [float(p) for p in points]
    assert game.legal_actions() == []


@settings(max_examples=60)
@given(rules(), st.integers(0, 2**32))
def test_a_seat_view_fed_with_the_protocol_events_agrees_with_the_engine(
        config: Rules, seed: int) -> None:
    game = PlanowanieGame(config, seed)
    views = [SeatView(config, seat) for seat in range(config.players)]
    rng = random.Random(seed)
    deal = -1
    while (seat := game.to_play()) is not None:
        if game.table.deal != deal:
            deal = game.table.deal
            deal_views(views, game)
        if game.table.phase is Phase.PLAY:
            assert sorted(views[seat].legal_cards()) == sorted(game.legal_actions())
        action = rng.choice(game.legal_actions())
        game.apply(seat, action)
        show_action(views, game, seat, action)
        for view in views:
            assert view.table.points == game.table.points
            assert view.table.tricks == game.table.tricks
            assert view.table.trick == game.table.trick
    assert all(view.table.phase is Phase.OVER for view in views)


@settings(max_examples=40)
@given(rules(), st.integers(0, 2**32))
def test_deals_depend_only_on_the_seed_and_copies_are_independent(
        config: Rules, seed: int) -> None:
    assert deal_hands(config, seed) == deal_hands(config, seed)
    game = PlanowanieGame(config, seed)
    rng = random.Random(1)
    for _ in range(config.players + 1):
        if game.to_play() is not None:
            game.apply(game.to_play() or 0, rng.choice(game.legal_actions()))
    copy = game.copy()
    before = (game.table.points[:], game.hands[:], game.table.trick[:], game.to_play())
    play_randomly(copy, random.Random(2))
    assert (game.table.points, game.hands, game.table.trick, game.to_play()) == before
    assert copy.to_play() is None


def test_the_tournament_configuration_is_the_spec_s() -> None:
    config = Rules()
    assert config.deck.values == "23456789TJQKA" and config.deck.suits == "CDHS"
    assert config.players == 4 and config.set_game_args() == SPEC_SET_GAME
    assert parse_deals(SPEC_SET_GAME.split()) == tournament_deals()
    assert config.total_actions == 4 * 13 + 4 * 91
    assert config.deck.name(0) == "2C" and config.deck.name(51) == "AS"
    assert config.deck.suit(config.deck.card("AC") or 0) == 0  # clubs are trumps


@pytest.mark.parametrize(("names", "winner"), [
    (["AH", "2C", "KH", "AS"], 1),  # the lowest trump beats the led ace
    (["3H", "AS", "KH", "2H"], 2),  # no trump: the highest heart; the ace of spades is off suit
    (["2C", "AC", "AH", "3C"], 1),  # trumps led: the highest trump
])
def test_the_trick_goes_to_the_highest_trump_else_the_highest_of_the_led_suit(
        names: list[str], winner: int) -> None:
    deck = Deck()
    game = PlanowanieGame(Rules(deck, 4, ((1, 0),)), 0)
    game.hands = [1 << (deck.card(n) or 0) for n in names]
    for seat in range(4):
        game.apply(seat, Declare(1 if seat == winner else 0))
    taken = [game.apply(seat, deck.card(name) or 0) for seat, name in enumerate(names)]
    assert taken == [None, None, None, winner]
    expected = [1] * 4  # everyone made the declaration: the bonus of 1 card
    expected[winner] = 2  # plus the trick
    assert game.table.points == expected
    assert game.to_play() is None


def test_illegal_actions_have_reasons() -> None:
    game = PlanowanieGame(Rules(), 1)
    assert game.illegal_reason(1, Declare(0)) == "it is not this player's turn"
    assert game.illegal_reason(0, 5) == "a card was played during the declarations"
    assert game.illegal_reason(0, Declare(2)) == "declared 2, not in 0..1"
    for seat in range(4):
        game.apply(seat, Declare(1))
    assert game.illegal_reason(0, Declare(1)) == "a declaration during the play"
    assert game.illegal_reason(0, 99) == "card 99 does not exist"
    held = cards_of(game.hands[0])[0]
    other = next(c for c in range(52) if c != held)
    assert "is not in the player's hand" in (game.illegal_reason(0, other) or "")
    assert game.notation(Declare(3)) == "declare 3" and game.notation(99) == "??"


@pytest.mark.parametrize(("values", "suits", "players", "deals", "message"), [
    ("", "CD", 2, ((1, 0),), "values must not be empty"),
    ("23", "CC", 2, ((1, 0),), "repeat a character"),
    ("2 3", "CD", 2, ((1, 0),), "no spaces"),
    ("23", "CD", 5, ((1, 0),), "players must be 2 to 4"),
    ("23", "CD", 2, ((3, 0),), "the deck has 4"),
    ("23", "CD", 2, ((1, 2),), "starting player 2"),
    ("23", "CD", 2, ((0, 0),), "need at least 1"),
    ("23", "CD", 2, (), "at least one deal"),
])
def test_bad_configurations_are_refused(values: str, suits: str, players: int,
                                        deals: tuple[tuple[int, int], ...],
                                        message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Rules(Deck(values, suits), players, deals)


@pytest.mark.parametrize("words", [["x"], ["2", "1", "0"], ["0"], ["1", "1", "a"]])
def test_bad_set_game_arguments_are_refused(words: list[str]) -> None:
    with pytest.raises(ConfigError):
        parse_deals(words)
