"""Tai scoring of a Taiwanese 16-tile win: one hand-checked hand per pattern, the
interactions between patterns, the choice of the best reading, and the payments."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.mahjong.melds import Decomposition, Meld, MeldKind, SetKind
from referee.games.mahjong.scoring import (
    ScoreResult,
    Stakes,
    TaiTable,
    WinContext,
    payments,
    score,
)
from referee.games.mahjong.tiles import tids_of_kind

C, P = SetKind.CHOW, SetKind.PUNG
DEFAULT = TaiTable()
# Kinds used below.
W1, W2, W3, W4, W5, W6, W7, W9 = 0, 1, 2, 3, 4, 5, 6, 8
T1, T2, T4, T7, T9 = 9, 10, 12, 15, 17
D4, D5, D7, D9 = 21, 22, 24, 26
EAST, SOUTH, WEST, NORTH, RED, GREEN, WHITE = 27, 28, 29, 30, 31, 32, 33
SPRING, SUMMER, AUTUMN, WINTER, PLUM, ORCHID, CHRYS, BAMBOO = 10, 20, 30, 40, 50, 60, 70, 80


def dec(pair: int, *sets: tuple[SetKind, int]) -> Decomposition:
    """A decomposition with its sets sorted, as the hand checks give them."""
    return Decomposition(pair, tuple(sorted(sets, key=lambda s: (s[0].value, s[1]))))


def chow_meld(kind: int) -> Meld:
    """An exposed chow starting at ``kind``."""
    tiles = tuple(tids_of_kind(k)[0] for k in range(kind, kind + 3))
    return Meld(MeldKind.CHOW, tiles, claimed=tiles[0], source=3)


def pung_meld(kind: int, meld_kind: MeldKind = MeldKind.PUNG) -> Meld:
    """A pung (3 tiles) or any kong (4 tiles) of ``kind``."""
    tiles = tids_of_kind(kind)
    if meld_kind is MeldKind.PUNG:
        return Meld(meld_kind, tiles[:3], claimed=tiles[0], source=1)
    if meld_kind is MeldKind.CONCEALED_KONG:
        return Meld(meld_kind, tiles)
    return Meld(meld_kind, tiles, claimed=tiles[0], source=1)


def context(d: Decomposition, win: int, melds: tuple[Meld, ...] = (),
            **flags: Any) -> WinContext:
    """The win context whose concealed tiles are exactly ``d``'s tiles."""
    counts = [0] * 34
    counts[d.pair] += 2
    for set_kind, kind in d.sets:
        for k in ([kind] * 3 if set_kind is P else [kind, kind + 1, kind + 2]):
            counts[k] += 1
    args: dict[str, Any] = {"self_draw": False, "seat_wind": 1, "round_wind": 0,
                            "dealer": False, "discarder_is_dealer": False, "flowers": ()}
    args.update(flags)
    return WinContext(concealed=tuple(counts), melds=melds, winning_kind=win, **args)


def pats(ctx: WinContext, *decs: Decomposition, table: TaiTable = DEFAULT) -> dict[str, int]:
    """The scored patterns as a dict (checking the total on the way)."""
    result = score(ctx, decs, table)
    assert result.total_tai == sum(tai for _, tai in result.patterns)
    names = [name for name, _ in result.patterns]
    assert len(names) == len(set(names))
    return dict(result.patterns)


# A plain hand worth nothing: an exposed chow, mixed suits, a pung, two-sided wait on a
# discard (2-3-4 Tiao completed by 4 Tiao), no honors, no flowers.
PLAIN = dec(D4, (C, T2), (C, D5), (P, W9), (C, W3))
PLAIN_MELDS = (chow_meld(W1),)
# The same hand fully concealed (the exposed chow back in the hand).
HIDDEN = dec(D4, (C, T2), (C, D5), (P, W9), (C, W3), (C, W1))


def test_plain_hand_scores_nothing() -> None:
    result = score(context(PLAIN, T4, PLAIN_MELDS), [PLAIN])
    assert result.patterns == ()
    assert result.total_tai == 0
    assert result.decomposition == PLAIN


def test_dealer_wins_or_deals_in() -> None:
    assert pats(context(PLAIN, T4, PLAIN_MELDS, dealer=True, seat_wind=0), PLAIN) == {
        "dealer": 1}
    assert pats(context(PLAIN, T4, PLAIN_MELDS, discarder_is_dealer=True), PLAIN) == {
        "dealer": 1}
    # A self-draw has no discarder: the flag is ignored (payments() handles the dealer).
    assert pats(context(PLAIN, T4, PLAIN_MELDS, self_draw=True, discarder_is_dealer=True),
                PLAIN) == {"self_drawn": 1}


def test_self_drawn() -> None:
    assert pats(context(PLAIN, T4, PLAIN_MELDS, self_draw=True), PLAIN) == {"self_drawn": 1}


def test_concealed_hand_and_concealed_self_draw() -> None:
    assert pats(context(HIDDEN, T4), HIDDEN) == {"concealed_hand": 1}
    assert pats(context(HIDDEN, T4, self_draw=True), HIDDEN) == {
        "concealed_hand": 1, "self_drawn": 1, "concealed_self_drawn": 1}


def test_concealed_kong_keeps_the_hand_concealed_but_exposed_kongs_do_not() -> None:
    d = dec(D4, (C, T2), (C, D5), (C, W3), (C, W1))
    hidden = context(d, T4, (pung_meld(W9, MeldKind.CONCEALED_KONG),))
    assert pats(hidden, d) == {"concealed_hand": 1}
    for kind in (MeldKind.KONG, MeldKind.PROMOTED_KONG, MeldKind.PUNG):
        assert pats(context(d, T4, (pung_meld(W9, kind),)), d) == {}


def test_seat_flowers() -> None:
    # Seat 1 is South: Summer and Orchid are its flowers; Spring and Winter are not.
    ctx = context(PLAIN, T4, PLAIN_MELDS, seat_wind=1, flowers=(SUMMER, ORCHID, SPRING, WINTER))
    assert pats(ctx, PLAIN) == {"seat_flower": 2}
    ctx = context(PLAIN, T4, PLAIN_MELDS, seat_wind=3, flowers=(BAMBOO, SUMMER))
    assert pats(ctx, PLAIN) == {"seat_flower": 1}
    ctx = context(PLAIN, T4, PLAIN_MELDS, seat_wind=0, flowers=(SUMMER, ORCHID))
    assert pats(ctx, PLAIN) == {}


def test_a_flower_set_replaces_its_seat_flower() -> None:
    seasons = (SPRING, SUMMER, AUTUMN, WINTER)
    ctx = context(PLAIN, T4, PLAIN_MELDS, seat_wind=1, flowers=(*seasons, ORCHID))
    assert pats(ctx, PLAIN) == {"four_seasons": 2, "seat_flower": 1}
    ctx = context(PLAIN, T4, PLAIN_MELDS, seat_wind=2, flowers=(PLUM, ORCHID, CHRYS, BAMBOO))
    assert pats(ctx, PLAIN) == {"four_plants": 2}
    ctx = context(PLAIN, T4, PLAIN_MELDS, seat_wind=2,
                  flowers=(*seasons, PLUM, ORCHID, CHRYS, BAMBOO))
    assert pats(ctx, PLAIN) == {"four_seasons": 2, "four_plants": 2}


def test_seat_and_round_wind_pungs() -> None:
    d = dec(D4, (C, T2), (C, D5), (P, SOUTH), (C, W3))
    assert pats(context(d, T4, PLAIN_MELDS, seat_wind=1, round_wind=0), d) == {"seat_wind": 1}
    assert pats(context(d, T4, PLAIN_MELDS, seat_wind=0, round_wind=1), d) == {
        "round_wind": 1}
    assert pats(context(d, T4, PLAIN_MELDS, seat_wind=1, round_wind=1), d) == {
        "seat_wind": 1, "round_wind": 1}
    assert pats(context(d, T4, PLAIN_MELDS, seat_wind=2, round_wind=3), d) == {}
    # An exposed kong of the wind counts the same.
    d = dec(D4, (C, T2), (C, D5), (C, W3))
    melds = (*PLAIN_MELDS, pung_meld(SOUTH, MeldKind.KONG))
    assert pats(context(d, T4, melds, seat_wind=1, round_wind=1), d) == {
        "seat_wind": 1, "round_wind": 1}


def test_dragon_pungs_one_each_and_not_a_dragon_pair() -> None:
    d = dec(D4, (C, T2), (P, RED), (P, WHITE), (C, W3))
    assert pats(context(d, T4, PLAIN_MELDS), d) == {"dragon_pung": 2}
    d = dec(GREEN, (C, T2), (C, D5), (P, WHITE), (C, W3))
    assert pats(context(d, T4, PLAIN_MELDS), d) == {"dragon_pung": 1}


def test_little_and_big_three_dragons_replace_dragon_pungs() -> None:
    little = dec(GREEN, (C, T2), (P, RED), (P, WHITE), (C, W3))
    assert pats(context(little, T4, PLAIN_MELDS), little) == {"little_three_dragons": 4}
    big = dec(D4, (C, T2), (P, RED), (P, WHITE), (P, GREEN))
    assert pats(context(big, T4, PLAIN_MELDS), big) == {"big_three_dragons": 8,
                                                        "three_concealed_pungs": 2}


def test_little_and_big_four_winds_replace_the_wind_pungs() -> None:
    little = dec(NORTH, (C, T2), (P, EAST), (P, SOUTH), (P, WEST))
    ctx = context(little, T4, PLAIN_MELDS, seat_wind=1, round_wind=0)
    assert pats(ctx, little) == {"little_four_winds": 8, "three_concealed_pungs": 2}
    big = dec(D4, (P, EAST), (P, SOUTH), (P, WEST), (P, NORTH))
    ctx = context(big, D4, (pung_meld(W9),), seat_wind=1, round_wind=0)
    # Four pungs in hand read as concealed (the winning tile is in the pair), five
    # pungs in all, a pair wait.
    assert pats(ctx, big) == {"big_four_winds": 16, "all_pungs": 4,
                              "four_concealed_pungs": 5, "single_wait": 1}


def test_all_chows_needs_five_chows_and_a_suited_pair() -> None:
    assert pats(context(HIDDEN, T4), HIDDEN) == {"concealed_hand": 1}  # has a pung
    d = dec(D4, (C, T2), (C, D5), (C, W7), (C, W3))
    assert pats(context(d, T4, PLAIN_MELDS), d) == {"all_chows": 2}
    d = dec(EAST, (C, T2), (C, D5), (C, W7), (C, W3))
    assert pats(context(d, T4, PLAIN_MELDS), d) == {}


def test_all_pungs() -> None:
    d = dec(D4, (P, T2), (P, W3), (P, D9))
    ctx = context(d, D4, (pung_meld(W1), pung_meld(D7, MeldKind.KONG)))
    assert pats(ctx, d) == {"all_pungs": 4, "three_concealed_pungs": 2, "single_wait": 1}


def test_half_flush_full_flush_and_all_honors_exclude_each_other() -> None:
    # Won on 6 Wan, only in 4-5-6 Wan (a two-sided wait).
    half = dec(EAST, (C, W1), (C, W4), (P, W9), (C, W3))
    assert pats(context(half, W6, (chow_meld(W5),), seat_wind=2), half) == {"half_flush": 4}
    full = dec(W2, (C, W1), (C, W4), (P, W9), (C, W3))
    assert pats(context(full, W6, (chow_meld(W5),)), full) == {"full_flush": 8}
    honors = dec(WHITE, (P, EAST), (P, NORTH), (P, RED))
    ctx = context(honors, RED, (pung_meld(WEST), pung_meld(GREEN)), seat_wind=1,
                  round_wind=1)
    # Discard completes the Red pung: two concealed pungs only.
    assert pats(ctx, honors) == {"all_honors": 8, "all_pungs": 4,
                                 "little_three_dragons": 4}


def test_concealed_pungs() -> None:
    three = dec(D4, (P, T2), (P, W3), (P, D9), (C, W4))
    assert pats(context(three, W4, PLAIN_MELDS), three) == {"three_concealed_pungs": 2}
    # Completed by a discard: the pung holding the winning tile is not concealed ...
    assert pats(context(three, T2, PLAIN_MELDS), three) == {}
    # ... unless it is self-drawn.
    assert pats(context(three, T2, PLAIN_MELDS, self_draw=True), three) == {
        "self_drawn": 1, "three_concealed_pungs": 2}
    four = dec(D4, (P, T2), (P, W3), (P, D9), (C, W4))
    ctx = context(four, W4, (pung_meld(T7, MeldKind.CONCEALED_KONG),))
    assert pats(ctx, four) == {"concealed_hand": 1, "four_concealed_pungs": 5}
    five = dec(D4, (P, T2), (P, W3), (P, D9), (P, W5))
    ctx = context(five, D4, (pung_meld(T7, MeldKind.CONCEALED_KONG),))
    assert pats(ctx, five) == {"concealed_hand": 1, "all_pungs": 4,
                               "five_concealed_pungs": 8, "single_wait": 1}
    # Exposed pungs do not count.
    ctx = context(three, W4, (pung_meld(T7),))
    assert pats(ctx, three) == {"three_concealed_pungs": 2}


def test_winning_tile_read_into_a_chow_keeps_the_pung_concealed() -> None:
    # 1-1-1 and 1-2-3 Wan, won on a discarded 1 Wan: read into the chow, the pung stays
    # concealed (three concealed pungs); read into the pung, it would not (two).
    melds = (chow_meld(T7),)
    d = dec(D4, (P, W1), (C, W1), (P, T2), (P, D9))
    assert pats(context(d, W1, melds), d) == {"three_concealed_pungs": 2}
    # Without the chow the discarded 1 Wan can only complete the pung.
    d = dec(D4, (P, W1), (C, W4), (P, T2), (P, D9))
    assert pats(context(d, W1, melds), d) == {}


def test_special_wins() -> None:
    ctx = context(HIDDEN, T4, self_draw=True, dealer=True, seat_wind=0, heavenly=True,
                  last_tile=True, kong_replacement=True)
    assert pats(ctx, HIDDEN) == {"dealer": 1, "self_drawn": 1, "concealed_hand": 1,
                                 "concealed_self_drawn": 1, "heavenly_hand": 16,
                                 "last_tile": 1, "kong_replacement": 1}
    ctx = context(HIDDEN, T4, discarder_is_dealer=True, earthly=True)
    assert pats(ctx, HIDDEN) == {"dealer": 1, "concealed_hand": 1, "earthly_hand": 16}
    ctx = context(PLAIN, T4, PLAIN_MELDS, robbing_kong=True, last_tile=True)
    assert pats(ctx, PLAIN) == {"robbing_kong": 1, "last_tile": 1}


@pytest.mark.parametrize(
    ("d", "win", "single"),
    [
        (dec(T9, (C, T2), (C, D5), (P, W9), (C, W3)), T9, True),  # pair wait
        # 1-2-3-4 Tiao and the pair read into 1 Tiao: the hand also waited on 4 Tiao.
        (dec(T1, (C, T2), (C, D5), (P, W9), (C, W3)), T1, False),
        (dec(D4, (C, T1), (C, D5), (P, W9), (C, W3)), T1 + 2, True),  # 1-2 waiting 3
        (dec(D4, (C, T1), (C, D5), (P, W9), (C, W3)), T1, False),  # 2-3 waiting 1 or 4
        (dec(D4, (C, T7), (C, D5), (P, W9), (C, W3)), T7, True),  # 8-9 waiting 7
        (dec(D4, (C, T7), (C, D5), (P, W9), (C, W3)), T7 + 2, False),  # 7-8 waiting 6/9
        (dec(D4, (C, T2), (C, D5), (P, W9), (C, W3)), T2 + 1, True),  # 2_4 waiting 3
        (dec(D4, (C, T2), (C, D5), (P, W9), (C, W3)), T2, False),  # 3-4 waiting 2 or 5
        (dec(D4, (C, T2), (C, D5), (P, W9), (C, W3)), W9, False),  # shanpon 9 Wan
    ],
)
def test_single_wait(d: Decomposition, win: int, single: bool) -> None:
    result = score(context(d, win, PLAIN_MELDS, self_draw=True), [d])
    assert result.tai("single_wait") == (1 if single else 0)


def test_a_pair_read_into_a_hand_that_waited_on_two_kinds_is_no_single_wait() -> None:
    # 3-4-5 Wan and a 5 Wan pair, won on 5 Wan: read as the pair, but 3-4-5-5 Wan also
    # waited on 2 Wan (2-3-4 and 5-5).
    d = dec(W5, (C, W3), (C, T2), (C, D5), (P, W9))
    assert score(context(d, W5, PLAIN_MELDS), [d]).tai("single_wait") == 0
    # 1-2-3-3 Wan waits on 3 Wan only: read as 1-2-3 and the 3-3 pair, or as the 1-2
    # edge and the 3-3 pair, a single wait either way.
    d = dec(W3, (C, W1), (C, T2), (C, D5), (P, W9))
    assert score(context(d, W3, (chow_meld(T7),)), [d]).tai("single_wait") == 1


def test_a_kind_whose_four_copies_are_held_is_no_wait() -> None:
    # 1-2-3-4 Tiao won on 1 Tiao read into the pair: with the three other 4 Tiao in a
    # pung, 4 Tiao cannot come, the hand waited on 1 Tiao only: a single wait ...
    d = dec(T1, (C, T2), (C, D5), (C, W3))
    ctx = context(d, T1, (*PLAIN_MELDS, pung_meld(T4)))
    assert score(ctx, [d]).tai("single_wait") == 1
    # ... while with the pung on 7 Tiao instead, it also waited on 4 Tiao.
    ctx = context(d, T1, (*PLAIN_MELDS, pung_meld(T7)))
    assert score(ctx, [d]).tai("single_wait") == 0


def test_best_decomposition_is_kept_whatever_the_order() -> None:
    # 111 222 333 Wan as three pungs or three chows, with a Red pair.
    pungs = dec(RED, (P, W1), (P, W2), (P, W3), (C, T4), (C, D7))
    chows = dec(RED, (C, W1), (C, W1), (C, W1), (C, T4), (C, D7))
    ctx = context(pungs, RED)
    for order in ([pungs, chows], [chows, pungs]):
        result = score(ctx, order)
        assert result.decomposition == pungs
        assert dict(result.patterns) == {"concealed_hand": 1, "three_concealed_pungs": 2,
                                         "single_wait": 1}
        assert result.total_tai == 4
    # With a suited pair and all chows worth more, the chow reading wins (no single
    # wait: 111 222 333 5 Wan also waited on 4 Wan, as 111 222 33 345).
    pungs = dec(W5, (P, W1), (P, W2), (P, W3), (C, T4), (C, D7))
    chows = dec(W5, (C, W1), (C, W1), (C, W1), (C, T4), (C, D7))
    table = TaiTable(all_chows=5)
    for order in ([pungs, chows], [chows, pungs]):
        result = score(context(pungs, W5), order, table)
        assert result.decomposition == chows
        assert dict(result.patterns) == {"concealed_hand": 1, "all_chows": 5}


def test_table_values_are_configurable_and_zero_drops_a_pattern() -> None:
    ctx = context(HIDDEN, T4, self_draw=True)
    table = TaiTable(concealed_self_drawn=0, self_drawn=2)
    assert pats(ctx, HIDDEN, table=table) == {"concealed_hand": 1, "self_drawn": 2}


def test_bad_input_is_refused() -> None:
    ctx = context(PLAIN, T4, PLAIN_MELDS)
    with pytest.raises(ValueError, match="no decomposition"):
        score(ctx, [])
    with pytest.raises(ValueError, match="does not match"):
        score(ctx, [dec(D4, (C, T2), (C, D5), (P, W9), (C, W4))])
    with pytest.raises(ValueError, match="sets"):
        score(ctx, [HIDDEN])
    with pytest.raises(ValueError, match="winning tile"):
        context(PLAIN, EAST, PLAIN_MELDS)
    with pytest.raises(ValueError, match="flower"):
        context(PLAIN, T4, PLAIN_MELDS, flowers=(110,))
    with pytest.raises(ValueError, match="total_tai"):
        ScoreResult((("dealer", 1),), 2)


def test_discard_win_payment() -> None:
    result = ScoreResult((("dealer", 1), ("half_flush", 4)), 5)
    assert payments(result, winner=2, discarder=0) == [-200, 0, 200, 0]
    assert payments(result, 2, 0, Stakes(base=50, per_tai=10)) == [-100, 0, 100, 0]
    # The dealer's extra only applies to a self-draw.
    assert payments(result, 2, 0, dealer=0) == [-200, 0, 200, 0]


def test_self_draw_payment() -> None:
    result = ScoreResult((("self_drawn", 1),), 1)
    assert payments(result, winner=1, discarder=None) == [-120, 360, -120, -120]
    # A non-dealer's self-draw: the dealer (seat 3) owes his extra tai.
    assert payments(result, 1, None, dealer=3) == [-120, 380, -120, -140]
    assert payments(result, 1, None, dealer=3, dealer_extra=2) == [-120, 400, -120, -160]
    # The dealer's own self-draw: his tai is already in the result.
    assert payments(result, 3, None, dealer=3) == [-120, -120, -120, 360]


def test_bad_payment_seats_are_refused() -> None:
    result = ScoreResult((), 0)
    for winner, discarder in ((4, None), (1, 1), (1, 5)):
        with pytest.raises(ValueError):
            payments(result, winner, discarder)
    with pytest.raises(ValueError):
        payments(result, 0, None, dealer=7)


@st.composite
def winning_hands(draw: st.DrawFn) -> tuple[WinContext, Decomposition]:
    """A random 5-set hand with some sets melded, and random flags."""
    used = [0] * 34
    sets: list[tuple[SetKind, int]] = []
    melds: list[Meld] = []
    copies = [0] * 34

    def take(kind: int, n: int) -> tuple[int, ...]:
        tids = tids_of_kind(kind)[copies[kind]:copies[kind] + n]
        copies[kind] += n
        return tids

    while len(sets) + len(melds) < 5:
        form = draw(st.sampled_from(["chow", "pung", *MeldKind.__members__]))
        if form in ("chow", "CHOW"):
            kind = draw(st.sampled_from(
                [k for k in range(27) if k % 9 <= 6 and all(used[j] < 4 for j in range(k, k + 3))]))
            need = [kind, kind + 1, kind + 2]
            for k in need:
                used[k] += 1
            if form == "CHOW":
                tiles = tuple(t for k in need for t in take(k, 1))
                melds.append(Meld(MeldKind.CHOW, tiles, claimed=tiles[0], source=0))
            else:
                sets.append((C, kind))
        else:
            size = 4 if form in ("KONG", "PROMOTED_KONG", "CONCEALED_KONG") else 3
            kind = draw(st.sampled_from([k for k in range(34) if used[k] + size <= 4]))
            used[kind] += size
            if form == "pung":
                sets.append((P, kind))
            else:
                melds.append(Meld(MeldKind[form], take(kind, size)))
    pair = draw(st.integers(0, 33).filter(lambda k: used[k] <= 2))
    d = dec(pair, *sets)
    in_hand = [pair] + [k for sk, kind in sets
                        for k in ([kind] if sk is P else [kind, kind + 1, kind + 2])]
    win = draw(st.sampled_from(in_hand))
    self_draw = draw(st.booleans())
    ctx = context(
        d, win, tuple(melds), self_draw=self_draw, seat_wind=draw(st.integers(0, 3)),
        round_wind=draw(st.integers(0, 3)), dealer=draw(st.booleans()),
        discarder_is_dealer=draw(st.booleans()),
        flowers=tuple(draw(st.sets(st.sampled_from([10, 20, 30, 40, 50, 60, 70, 80])))),
        robbing_kong=not self_draw and draw(st.booleans()), last_tile=draw(st.booleans()),
        kong_replacement=draw(st.booleans()), heavenly=draw(st.booleans()),
        earthly=draw(st.booleans()))
    return ctx, d


@settings(max_examples=300)
@given(winning_hands(), st.integers(0, 3), st.one_of(st.none(), st.integers(0, 3)),
       st.integers(0, 500), st.integers(0, 100), st.one_of(st.none(), st.integers(0, 3)))
def test_scores_and_payments_are_consistent(
        hand: tuple[WinContext, Decomposition], winner: int, discarder: int | None,
        base: int, per_tai: int, dealer: int | None) -> None:
    ctx, d = hand
    result = score(ctx, [d])
    assert result.total_tai == sum(tai for _, tai in result.patterns)
    assert all(tai > 0 for _, tai in result.patterns)
    names = [name for name, _ in result.patterns]
    assert len(names) == len(set(names))
    assert set(names) <= set(TaiTable.__dataclass_fields__)
    assert len({"half_flush", "full_flush", "all_honors"} & set(names)) <= 1
    if discarder == winner:
        discarder = None
    chips = payments(result, winner, discarder, Stakes(base, per_tai), dealer=dealer)
    assert sum(chips) == 0
    assert chips[winner] == -sum(c for seat, c in enumerate(chips) if seat != winner)
    assert all(c <= 0 for seat, c in enumerate(chips) if seat != winner)
    amount = base + result.total_tai * per_tai
    if discarder is not None:
        assert chips[discarder] == -amount
        assert chips[winner] == amount
    else:
        extra = per_tai if dealer is not None and dealer != winner else 0
        assert chips[winner] == 3 * amount + extra
