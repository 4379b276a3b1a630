"""The Taiwanese 16-tile engine: walls, the deal and flowers, questions and claim priority,
kongs and robbing, drawn hands, and random play checked for tile conservation, real wins
and zero-sum scores (hypothesis)."""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from referee.games.mahjong.hand import is_winning
from referee.games.mahjong.melds import MeldKind
from referee.games.mahjong.rules import (
    Ask,
    ConcealedKong,
    Eat,
    Hu,
    Kong,
    MahjongGame,
    MahjongHand,
    Pass,
    Pong,
    PromotedKong,
    Question,
    Rules,
    Throw,
    hand_seed,
)
from referee.games.mahjong.scoring import PRESETS, TaiTable, TaiwanTable
from referee.games.mahjong.tiles import (
    ALL_TILES,
    FLOWERS,
    counts_of,
    is_flower,
    kind_of,
    make_wall,
    tids_of_kind,
)

SUITS = {"w": 0, "t": 9, "o": 18}
HONORS = {"E": 27, "S": 28, "W": 29, "N": 30, "R": 31, "G": 32, "B": 33}


def kinds(text: str) -> list[int]:
    """``"123w 55o EEE"`` -> kinds (w Wan, t Tiao, o Tong; E S W N winds, R G B dragons)."""
    out: list[int] = []
    for word in text.split():
        if word[-1] in SUITS:
            out.extend(SUITS[word[-1]] + int(d) - 1 for d in word[:-1])
        else:
            out.extend(HONORS[c] for c in word)
    return out


class Pool:
    """Hands out distinct TIDs of given kinds."""

    def __init__(self) -> None:
        self.left = {k: list(tids_of_kind(k)) for k in range(34)}

    def take(self, text: str) -> list[int]:
        out = []
        for k in kinds(text):
            assert self.left[k], f"a fifth tile of kind {k} in {text!r}"
            out.append(self.left[k].pop(0))
        return out

    def rest(self) -> list[int]:
        return [t for tids in self.left.values() for t in tids]


def build_wall(hands: list[str], draws: Iterable[str] = (), dealer: int = 0
               ) -> tuple[list[int], Pool]:
    """A wall dealing ``hands`` (the dealer's 17, the others' 16) and then ``draws`` from
    the front; flowers come after the draws; the back holds ordinary tiles."""
    pool = Pool()
    dealt = [pool.take(h) for h in hands]
    assert [len(d) for d in dealt] == [17 if s == dealer else 16 for s in range(4)]
    front: list[int] = []
    order = [(dealer + k) % 4 for k in range(4)]
    for round_ in range(4):
        for seat in order:
            front.extend(dealt[seat][4 * round_: 4 * round_ + 4])
    front.append(dealt[dealer][16])
    for d in draws:
        front.extend(pool.take(d))
    return front + list(FLOWERS) + pool.rest(), pool


KONG_DEAL = [
    "1111w 222o 333o 444o 9t E S N",  # the dealer holds four 1-Wan
    "23w 567t 789t 111t 2t 3t 4t 5t W",
    "EE 45w 666w 789w 66t 99o 8o R",
    "S 222t 333t 777o 888o 55t G",
]

CHOW_DEAL = [
    "111w 222w 333w 444w 5w 9o 5o 6w 7w",  # dealer throws 5-Tong
    "46o 567t 789t 111t 2t 3t 4t 6w N",    # seat 1 (next) can eat 4-5-6 Tong
    "55o 123w 456w 789w 66t 99o 8o",       # seat 2 can pong
    "E 222o 333o 777o 888o 55t S",
]


def test_walls_are_the_same_for_a_seed_everywhere() -> None:
    assert make_wall(7) == make_wall(7)
    assert make_wall(7) != make_wall(8)
    assert sorted(make_wall(123)) == sorted(ALL_TILES)
    # pinned: SplitMix64 and Fisher-Yates do not depend on the Python version
    assert make_wall(1)[:6] == [173, 433, 261, 222, 122, 212]
    assert hand_seed(5, 0) != hand_seed(5, 1)


def test_the_deal_gives_17_and_16_and_replaces_flowers_from_the_back() -> None:
    for seed in range(30):
        hand = MahjongHand(make_wall(seed), dealer=seed % 4)
        sizes = [len(h) for h in hand.hands]
        assert sizes[seed % 4] == 17 and sorted(sizes) == [16, 16, 16, 17]
        assert not any(is_flower(t) for h in hand.hands for t in h)
        assert sum(map(len, hand.flowers)) == 8 - sum(
            1 for t in hand.wall[hand.front:hand.back] if is_flower(t))
        assert hand.tile_count() == 144
        assert hand.question == Question(seed % 4, hand.question.ask) if hand.question else True


def test_claim_priority_pong_before_chow_and_the_first_hu_after_the_discarder() -> None:
    wall, _ = build_wall([
        "111w 222w 333w 444w 55w 9o E S",  # dealer (seat 0) throws East
        "23o 567o 789t 111t 234t 5t N",    # seat 1: nobody eats an honor
        "EE 123w 456w 789w 66t 99o 8o",    # seat 2: can pong East
        "E 222o 333o 444o 555o 66t 7t",    # seat 3: holds one East only
    ])
    hand = MahjongHand(wall)
    assert hand.question == Question(0, Ask.THROW)
    east = next(t for t in hand.hands[0] if kind_of(t) == 27)
    hand.apply(0, Throw(east))
    assert hand.question == Question(2, Ask.PONG)  # nobody eats an honor; seat 2 pongs
    pair = tuple(t for t in hand.hands[2] if kind_of(t) == 27)
    assert hand.illegal_reason(1, Pass()) == "seat 2 was not asked anything"
    hand.apply(2, Pong(*pair))
    assert hand.question == Question(2, Ask.THROW)  # after a pong: a discard
    assert hand.melds[2][0].kind is MeldKind.PUNG and hand.melds[2][0].source == 0
    assert hand.discards[0] == []  # the claimed tile left the pool


def test_a_pong_outranks_a_chow_by_the_next_seat() -> None:
    wall, _ = build_wall(CHOW_DEAL)
    hand = MahjongHand(wall)
    five = next(t for t in hand.hands[0] if kind_of(t) == 22)
    hand.apply(0, Throw(five))
    assert hand.question == Question(2, Ask.PONG)
    hand.apply(2, Pass())
    assert hand.question == Question(1, Ask.EAT)
    assert hand.illegal_reason(1, Pong(hand.hands[1][0], hand.hands[1][1])) is not None
    eat = next(a for a in hand.legal_actions() if isinstance(a, Eat))
    hand.apply(1, eat)
    meld = hand.melds[1][0]
    assert meld.kind is MeldKind.CHOW and [kind_of(t) for t in meld.tiles] == [21, 22, 23]
    assert hand.question == Question(1, Ask.THROW)


def autoplay_until(hand: MahjongHand, seat: int, ask: Ask) -> None:
    """Pass on everything and throw what was drawn until ``seat`` is asked ``ask``."""
    while hand.question is not None and hand.question != Question(seat, ask):
        q = hand.question
        if q.ask is Ask.THROW:
            tile = hand.drawn if hand.drawn in hand.hands[q.seat] else hand.hands[q.seat][-1]
            assert tile is not None
            hand.apply(q.seat, Throw(tile))
        else:
            hand.apply(q.seat, Pass())
    assert hand.question == Question(seat, ask)


def first(hand: MahjongHand, seat: int, kind: int) -> int:
    """The first tile of ``kind`` in ``seat``'s hand."""
    return next(t for t in hand.hands[seat] if kind_of(t) == kind)


TWO_WAITERS = [
    "111o 222o 333o 444o 678t 9t E",   # dealer throws East
    "5w 123t 345t 567t 789o 78o N",    # seat 1 throws 5-Wan
    "46w 111t 999t 111w 789w SS",      # seat 2 waits on 5-Wan
    "46w 222t 888t WWW RR 234o",       # seat 3 waits on 5-Wan
]


def test_two_winners_the_first_after_the_discarder_is_asked_first_and_wins() -> None:
    wall, _ = build_wall(TWO_WAITERS, draws=["9o"])
    hand = MahjongHand(wall)
    hand.apply(0, Throw(first(hand, 0, 27)))
    assert hand.question == Question(1, Ask.THROW)
    hand.apply(1, Throw(first(hand, 1, 4)))
    assert hand.question == Question(2, Ask.HU)
    hand.apply(2, Hu())
    result = hand.result
    assert result is not None and result.winner == 2 and result.discarder == 1
    assert sum(result.payments) == 0 and result.payments[2] > 0
    assert result.payments[0] == result.payments[3] == 0  # only the discarder pays
    assert [e.kind for e in hand.events[-2:]] == ["hu", "end"]


def test_the_second_winner_is_asked_when_the_first_passes() -> None:
    wall, _ = build_wall(TWO_WAITERS, draws=["9o"])
    hand = MahjongHand(wall)
    hand.apply(0, Throw(first(hand, 0, 27)))
    hand.apply(1, Throw(first(hand, 1, 4)))
    hand.apply(2, Pass())
    assert hand.question == Question(3, Ask.HU)
    hand.apply(3, Hu())
    assert hand.result is not None and hand.result.winner == 3


def test_concealed_kong_draws_from_the_back() -> None:
    wall, _ = build_wall(KONG_DEAL)
    hand = MahjongHand(wall)
    assert hand.question == Question(0, Ask.GONG)
    kong = next(a for a in hand.legal_actions() if isinstance(a, ConcealedKong))
    back = hand.wall[hand.back - 1]
    hand.apply(0, kong)
    assert hand.melds[0][0].kind is MeldKind.CONCEALED_KONG
    assert back in hand.hands[0] and hand.drawn == back  # the replacement came from the back
    assert hand.events[-3].kind == "gong" and hand.events[-3].kong == 0
    assert hand.events[-2].kind == "draw"
    assert len(hand.hands[0]) + 3 * len(hand.melds[0]) == 17


ROBBING = [
    "55w 111o 222o 333o 789t E S N",   # dealer: a pair of 5-Wan
    "5w 123t 456t 789t 234o 56o W",    # seat 1 throws its 5-Wan
    "46w 111w 999w 777o 888o GG",      # seat 2 waits on 5-Wan
    "R 222t 333t 444w 666w 777w",
]


def test_a_promoted_kong_is_robbed_by_a_seat_waiting_on_its_tile() -> None:
    wall, _ = build_wall(ROBBING, draws=["1t", "2w", "3w", "8w", "5w"])
    hand = MahjongHand(wall)
    hand.apply(0, Throw(first(hand, 0, 27)))
    hand.apply(1, Throw(first(hand, 1, 4)))
    assert hand.question == Question(2, Ask.HU)  # seat 2 could win now; it waits
    hand.apply(2, Pass())
    assert hand.question == Question(0, Ask.PONG)
    hand.apply(0, Pong(*[t for t in hand.hands[0] if kind_of(t) == 4]))
    hand.apply(0, Throw(first(hand, 0, 28)))
    autoplay_until(hand, 0, Ask.GONG)  # the dealer draws the fourth 5-Wan
    promote = next(a for a in hand.legal_actions() if isinstance(a, PromotedKong))
    hand.apply(0, promote)
    assert hand.question == Question(2, Ask.HU)  # robbing the kong
    hand.apply(2, Hu())
    result = hand.result
    assert result is not None and (result.winner, result.discarder) == (2, 0)
    assert result.score is not None and result.score.tai("robbing_kong") == 1
    assert hand.melds[0][0].kind is MeldKind.PUNG  # the kong was never completed
    assert hand.tile_count() == 144


def test_a_promoted_kong_nobody_robs_becomes_a_kong_with_a_replacement() -> None:
    hands = [*ROBBING]
    hands[2] = "47w 111w 999w 777o 888o GG"  # no longer waiting on 5-Wan
    wall, _ = build_wall(hands, draws=["1t", "2w", "3w", "8w", "5w"])
    hand = MahjongHand(wall)
    hand.apply(0, Throw(first(hand, 0, 27)))
    hand.apply(1, Throw(first(hand, 1, 4)))
    assert hand.question == Question(0, Ask.PONG)
    hand.apply(0, Pong(*[t for t in hand.hands[0] if kind_of(t) == 4]))
    hand.apply(0, Throw(first(hand, 0, 28)))
    autoplay_until(hand, 0, Ask.GONG)
    hand.apply(0, next(a for a in hand.legal_actions() if isinstance(a, PromotedKong)))
    assert hand.melds[0][0].kind is MeldKind.PROMOTED_KONG
    assert hand.question is not None and hand.question.seat == 0
    assert len(hand.hands[0]) + 3 * len(hand.melds[0]) == 17


def test_an_exhaustive_draw_pays_nothing() -> None:
    rules = Rules(hands=1, reserve=60)
    game = MahjongGame(3, rules)
    rng = random.Random(1)
    while (seat := game.to_play()) is not None:
        options = [a for a in game.hand.legal_actions() if not isinstance(a, Hu)]
        game.apply(seat, rng.choice(options))
    assert game.results[0].winner is None and game.results[0].payments == (0, 0, 0, 0)
    assert game.results[0].reason.startswith("drawn")


def test_illegal_answers_are_named() -> None:
    hand = MahjongHand(make_wall(11))
    q = hand.question
    assert q is not None
    not_held = next(t for t in ALL_TILES if not is_flower(t) and t not in hand.hands[q.seat])
    if q.ask is Ask.THROW:
        assert "not all in the hand" in (hand.illegal_reason(q.seat, Throw(not_held)) or "")
        assert hand.illegal_reason(q.seat, Pass()) == "a discard is required (/ask throw)"
        assert hand.illegal_reason(q.seat, Hu()) is not None
    assert hand.illegal_reason((q.seat + 1) % 4, Pass()) is not None
    assert hand.illegal_reason(q.seat, Kong(1, 2, 3)) is not None
    assert hand.illegal_reason(q.seat, PromotedKong(not_held)) is not None


def _check_hand_end(hand: MahjongHand) -> None:
    result = hand.result
    assert result is not None
    assert sum(result.payments) == 0
    if result.winner is not None:
        seat = result.winner
        assert result.score is not None
        if result.score.decomposition is None:  # a flower win
            assert len(hand.flowers[seat]) == 8
        else:
            assert is_winning(counts_of(hand.hands[seat]))
            assert len(hand.hands[seat]) + 3 * len(hand.melds[seat]) == 17
        assert result.payments[seat] > 0
        if result.discarder is None:
            assert all(p < 0 for s, p in enumerate(result.payments) if s != seat)
        else:
            assert [s for s, p in enumerate(result.payments) if p < 0] == [result.discarder]


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32), choices=st.integers(0, 2**32),
       scoring=st.sampled_from(sorted(PRESETS)))
@example(seed=578, choices=578, scoring="icga")  # a promoted kong the others may rob
def test_random_play_conserves_tiles_and_every_win_is_real(seed: int, choices: int,
                                                          scoring: str) -> None:
    rng = random.Random(choices)
    game = MahjongGame(seed, Rules(hands=2, table=PRESETS[scoring]))
    while (seat := game.to_play()) is not None:
        hand = game.hand
        options = hand.legal_actions()
        assert options and all(hand.illegal_reason(seat, a) is None for a in options)
        assert hand.tile_count() == 144
        game.apply(seat, rng.choice(options))
        if hand.result is not None:
            _check_hand_end(hand)
        else:
            assert hand.tile_count() == 144
            assert all(len(h) + 3 * len(m) in (16, 17)
                       for h, m in zip(hand.hands, hand.melds, strict=True))
    assert len(game.results) == 2
    assert sum(game.totals) == 0


def test_the_same_seed_and_answers_replay_the_same_events() -> None:
    def play(seed: int) -> list[object]:
        game, rng = MahjongGame(seed, Rules(hands=3)), random.Random(4)
        events: list[object] = []
        while (seat := game.to_play()) is not None:
            events.extend(game.hand.events)
            game.apply(seat, rng.choice(game.hand.legal_actions()))
        return events

    assert play(9) == play(9)
    assert play(9) != play(10)


@pytest.mark.parametrize("dealer", range(4))
def test_the_dealer_passes_every_hand(dealer: int) -> None:
    game = MahjongGame(1, Rules(hands=5), first_dealer=dealer)
    dealers = []
    rng = random.Random(0)
    seen = -1
    while (seat := game.to_play()) is not None:
        if game.number != seen:
            seen = game.number
            dealers.append(game.hand.dealer)
        game.apply(seat, rng.choice(game.hand.legal_actions()))
    assert dealers == [(dealer + k) % 4 for k in range(5)]


def test_the_stakes_are_configurable() -> None:
    from referee.games.mahjong.scoring import Stakes

    wall, _ = build_wall(TWO_WAITERS, draws=["9o"])
    hand = MahjongHand(wall, rules=Rules(stakes=Stakes(base=0, per_tai=10)))
    hand.apply(0, Throw(first(hand, 0, 27)))
    hand.apply(1, Throw(first(hand, 1, 4)))
    hand.apply(2, Hu())
    assert hand.result is not None and hand.result.score is not None
    assert hand.result.payments == (0, -10 * hand.result.score.total_tai,
                                    10 * hand.result.score.total_tai, 0)


KONG_ON_DISCARD = [
    "111w 222w 333w 444w 55w 9o E S",  # dealer (seat 0) throws East
    "EEE 567o 789t 111t 234t N",        # seat 1 (next): three East
    "23o 123w 456w 789w 66t 99o 8o",    # seat 2: holds no East
    "W 222o 333o 444o 555o 66t 7t",     # seat 3
]


@pytest.mark.parametrize(("allowed", "asked"), [(False, Ask.PONG), (True, Ask.GONG)])
def test_no_kong_on_the_previous_player_s_discard_unless_allowed(allowed: bool,
                                                                  asked: Ask) -> None:
    """The framework: "cannot make a Gong by bidding the tile discarded by the previous
    player"; the seat after the discarder may still pong it."""
    wall, _ = build_wall(KONG_ON_DISCARD)
    hand = MahjongHand(wall, rules=Rules(kong_from_previous=allowed))
    east = next(t for t in hand.hands[0] if kind_of(t) == 27)
    hand.apply(0, Throw(east))
    assert hand.question == Question(1, asked)
    if not allowed:
        three = [t for t in hand.hands[1] if kind_of(t) == 27]
        assert hand.illegal_reason(1, Kong(*three)) == "/gong 4 answers /ask gong, not /ask pong"
        assert Pong(three[0], three[1]) in hand.legal_actions()


def test_a_kong_on_the_discard_of_a_seat_further_away_is_asked() -> None:
    deal = [KONG_ON_DISCARD[0], "23o 123w 456w 789w 66t 99o 8o",
            "EEE 567o 789t 111t 234t N", "W 222o 333o 444o 555o 66t 7t"]
    wall, _ = build_wall(deal)
    hand = MahjongHand(wall)  # the framework's rule: only the next seat may not kong
    hand.apply(0, Throw(next(t for t in hand.hands[0] if kind_of(t) == 27)))
    assert hand.question == Question(2, Ask.GONG)


# ------------------------------------------------------------------ flower wins (taiwan)

def flower_wall(places: list[int], seed: int = 5) -> list[int]:
    """The wall of ``seed`` with the eight flowers moved to the front positions
    ``places`` (a flower in them stays; the tiles they replace take the flowers'
    places), so the replacements from the back are never flowers."""
    wall = make_wall(seed)
    for flower, place in zip(FLOWERS, places, strict=True):
        at = wall.index(flower)
        wall[at], wall[place] = wall[place], wall[at]
    return wall


# The dealer (seat 0) is dealt wall[16r .. 16r + 3] in rounds r = 0..3 and wall[64];
# seat 1 wall[16r + 4 .. 16r + 7]. The first draw after the deal, seat 1's, is wall[65].
DEALER_PLACES = [0, 1, 2, 3, 16, 17, 18, 19]
SEAT1_PLACES = [4, 5, 6, 7, 20, 21, 22, 23]


def play_until_the_end(hand: MahjongHand) -> None:
    """Throw the first tile when asked to, pass everything else."""
    while hand.question is not None:
        q = hand.question
        hand.apply(q.seat, Throw(hand.hands[q.seat][0]) if q.ask is Ask.THROW else Pass())


def test_eight_flowers_in_the_deal_end_the_hand_at_once() -> None:
    wall = flower_wall(DEALER_PLACES)
    hand = MahjongHand(wall, rules=Rules(table=TaiwanTable()))
    assert hand.result is not None and hand.question is None
    assert (hand.result.winner, hand.result.discarder) == (0, None)
    assert hand.result.score is not None
    assert hand.result.score.patterns == (("dealer", 1), ("eight_flowers", 8))
    # Paid as a self-draw: 100 + 9 * 20 from each of the three others.
    assert hand.result.payments == (840, -280, -280, -280)
    assert hand.events[-1].kind == "end" and hand.tile_count() == 144
    assert sorted(hand.flowers[0]) == list(FLOWERS)
    # The icga table has no flower win: the dealer just plays his replaced hand.
    hand = MahjongHand(wall, rules=Rules(table=TaiTable()))
    assert hand.result is None and hand.question is not None


def test_a_non_dealer_s_eighth_flower_drawn_in_play_is_paid_by_all_three() -> None:
    wall = flower_wall([*SEAT1_PLACES[:7], 65])
    hand = MahjongHand(wall, rules=Rules(table=TaiwanTable()))
    assert hand.result is None and len(hand.flowers[1]) == 7
    play_until_the_end(hand)
    result = hand.result
    assert result is not None and result.score is not None
    assert (result.winner, result.discarder) == (1, None)
    assert result.score.patterns == (("eight_flowers", 8),)
    # 100 + 8 * 20 each; the dealer (seat 0) one tai more.
    assert result.payments == (-280, 800, -260, -260)
    assert result.reason == "won on all eight flowers"


def test_seven_flowers_rob_the_eighth_from_the_seat_that_draws_it() -> None:
    wall = flower_wall([*DEALER_PLACES[:7], 65])
    hand = MahjongHand(wall, rules=Rules(table=TaiwanTable()))
    assert hand.result is None and len(hand.flowers[0]) == 7
    play_until_the_end(hand)
    result = hand.result
    assert result is not None and result.score is not None
    # Seat 1 drew the eighth flower: the dealer robs it, seat 1 alone pays.
    assert (result.winner, result.discarder) == (0, 1)
    assert result.score.patterns == (("dealer", 1), ("seven_flowers", 8))
    assert result.payments == (280, -280, 0, 0)
    assert result.reason == "won on seven flowers, robbing seat 2's eighth"
    assert sorted(hand.flowers[0]) == list(FLOWERS) and hand.flowers[1] == []
    assert hand.tile_count() == 144
    # Without flower wins, seat 1 replaces the flower and plays on.
    hand = MahjongHand(wall, rules=Rules(table=TaiTable()))
    play_until_the_end(hand)
    assert hand.result is not None and hand.result.reason != result.reason


def test_rules_is_the_public_face_of_the_engine() -> None:
    import referee.games.mahjong.rules as face
    from publicface import check_public_face

    check_public_face(face, {
        "Action", "Ask", "ConcealedKong", "Eat", "Event", "HandResult", "Hu", "Kong",
        "MahjongGame", "MahjongHand", "Pass", "Pong", "PromotedKong", "Question", "Rules",
        "SeatView", "Throw", "chows", "hand_seed", "notation", "options", "self_kongs",
        "tiles_of"})


# ------------------------------------------------------------------ the wall's last tile

LAST_TILE_DEAL = [
    "159w 159t 159o ESWN B 2w 2t 2o",
    "GGG 37w 37t 37o 4w 4t 4o 8w 8t 8o 6w",   # seat 1: three Green
    "6t 6o 9w 9t 9o 3t 3o 7w 7t 7o 5w 5t 5o 1w 1t 1o",
    "RRR 2w 2t 2o 4w 4t 4o 6w 8w 8t 8o E S W",  # seat 3: three Red
]
LAST_TILE_DRAWS = "BBB NNN EE SS WW 3w 3w 3t 3t 3o 3o"
"""18 draws; the 19th, seat 3's, is the last tile before the reserve of 60."""


def play_to_the_last_tile(last: str, reserve: int) -> list[tuple[int, Ask, int]]:
    """Every question (seat, ask, tiles left to draw) of a hand whose 19th draw (seat 3's)
    is ``last``, everyone passing and throwing what was drawn."""
    wall, _ = build_wall(LAST_TILE_DEAL, draws=[LAST_TILE_DRAWS, last])
    hand = MahjongHand(wall, rules=Rules(reserve=reserve))
    asked = []
    while (q := hand.question) is not None:
        asked.append((q.seat, q.ask, hand.live))
        if q.ask is Ask.THROW:
            tile = hand.drawn if hand.drawn in hand.hands[q.seat] else hand.hands[q.seat][-1]
            hand.apply(q.seat, Throw(tile))
        else:
            hand.apply(q.seat, Pass())
    return asked


def test_no_kong_from_the_wall_s_last_tile() -> None:
    """The rule docs/mahjong.md states (the framework is silent): once the live wall is
    empty nobody is asked ``gong``, as the common Taiwanese tables play the last tile
    (海底): a kong takes a replacement tile, and none may be drawn. The seat drawing the
    fourth Red as the last tile is asked only to throw; with one tile more to draw it is
    asked ``gong``."""
    asked = play_to_the_last_tile("R", reserve=60)
    last_draw = max(i for i, (seat, ask, live) in enumerate(asked) if live == 0)
    assert asked[last_draw] == (3, Ask.THROW, 0)
    assert not any(ask is Ask.GONG for _, ask, _ in asked)
    assert (3, Ask.GONG, 1) in play_to_the_last_tile("R", reserve=59)


def test_no_melded_kong_on_the_last_discard() -> None:
    """Seat 3 throws the last tile drawn, a Green: seat 1, holding three, may pong it but
    is not asked ``gong`` (its replacement could not be drawn); a tile earlier, it is."""
    asked = play_to_the_last_tile("G", reserve=60)
    assert asked[-1] == (1, Ask.PONG, 0)
    assert not any(ask is Ask.GONG for _, ask, _ in asked)
    assert (1, Ask.GONG, 1) in play_to_the_last_tile("G", reserve=59)
