"""The ``taiwan`` tai table, pattern by pattern, with real hands in the protocol's tile
ids (110-193 Wan, 210-293 Tiao, 310-393 Tong, 410 East, 420 West, 430 South, 440 North,
450 Red, 460 Green, 470 White, flowers 10-80); what ``icga`` scores differently; and
properties of both tables (hypothesis)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.errors import ConfigError
from referee.games.mahjong.hand import decompositions
from referee.games.mahjong.melds import Meld, MeldKind
from referee.games.mahjong.scoring import (
    PRESETS,
    Table,
    TaiTable,
    TaiwanTable,
    WinContext,
    flower_score,
    flower_win,
    preset,
    score,
)
from referee.games.mahjong.tiles import ALL_TILES, counts_of, is_flower, kind_of

TAIWAN = TaiwanTable()
ICGA = TaiTable()
Patterns = tuple[list[tuple[str, int]], int]


def meld(tiles: str, kind: MeldKind | None = None) -> Meld:
    """A meld of these tile ids: a chow or pung (by its tiles) unless ``kind`` says."""
    tids = tuple(sorted(int(t) for t in tiles.split()))
    if kind is None:
        kind = MeldKind.PUNG if len({t // 10 for t in tids}) == 1 else MeldKind.CHOW
    if kind is MeldKind.CONCEALED_KONG:
        return Meld(kind, tids)
    return Meld(kind, tids, claimed=tids[0], source=3)


def tai(held: str, win: int, *melds: Meld, table: Table = TAIWAN, seat: int = 1,
        round_wind: int = 0, self_draw: bool = False, dealer: bool = False,
        flowers: tuple[int, ...] = (), **flags: Any) -> Patterns:
    """The patterns and total of winning on ``win`` with the tiles ``held`` before it
    (South in the East round by default, on a discard)."""
    counts = counts_of([*(int(t) for t in held.split()), win])
    ctx = WinContext(tuple(counts), melds, kind_of(win), self_draw, seat, round_wind,
                     dealer, flags.pop("discarder_is_dealer", False), flowers, **flags)
    result = score(ctx, decompositions(counts), table)
    return list(result.patterns), result.total_tai


# A hand worth nothing: 1-2-3 Wan melded, 3-4-5 Wan, 5-6-7 Tong, a 9 Wan pung, a 4 Tong
# pair, won on 4 Tiao from 2-3 Tiao (a two-sided wait: 1 or 4 Tiao).
CHOW_123W = meld("110 120 130")
PLAIN = "131 140 150  350 360 370  190 191 192  340 341  220 230"
WIN_4T = 240


def test_a_plain_hand_scores_nothing() -> None:
    assert tai(PLAIN, WIN_4T, CHOW_123W) == ([], 0)
    assert tai(PLAIN, WIN_4T, CHOW_123W, table=ICGA) == ([], 0)


def test_dealer_zhuang_jia() -> None:
    assert tai(PLAIN, WIN_4T, CHOW_123W, seat=0, dealer=True) == ([("dealer", 1)], 1)
    assert tai(PLAIN, WIN_4T, CHOW_123W, discarder_is_dealer=True) == ([("dealer", 1)], 1)


def test_concealed_hand_men_qing() -> None:
    assert tai("110 120 130 " + PLAIN, WIN_4T) == ([("concealed_hand", 1)], 1)


def test_self_drawn_zi_mo_and_concealed_self_drawn_bu_qiu_ren() -> None:
    assert tai(PLAIN, WIN_4T, CHOW_123W, self_draw=True) == ([("self_drawn", 1)], 1)
    assert tai("110 120 130 " + PLAIN, WIN_4T, self_draw=True) == (
        [("concealed_hand", 1), ("concealed_self_drawn", 1), ("self_drawn", 1)], 3)


def test_seat_and_round_wind_men_feng_quan_feng() -> None:
    south = PLAIN.replace("190 191 192", "430 431 432")
    assert tai(south, WIN_4T, CHOW_123W) == ([("seat_wind", 1)], 1)
    assert tai(south, WIN_4T, CHOW_123W, seat=2, round_wind=1) == ([("round_wind", 1)], 1)
    assert tai(south, WIN_4T, CHOW_123W, round_wind=1) == (
        [("seat_wind", 1), ("round_wind", 1)], 2)


def test_seat_flowers_zheng_hua() -> None:
    # South's flowers are Summer (20) and Orchid (60); Spring (10) is East's.
    assert tai(PLAIN, WIN_4T, CHOW_123W, flowers=(20, 60, 10)) == ([("seat_flower", 2)], 2)


def test_a_flower_set_hua_gang_replaces_its_seat_flower() -> None:
    seasons = (10, 20, 30, 40)
    assert tai(PLAIN, WIN_4T, CHOW_123W, flowers=(*seasons, 60)) == (
        [("four_seasons", 1), ("seat_flower", 1)], 2)
    assert tai(PLAIN, WIN_4T, CHOW_123W, flowers=(50, 60, 70, 80)) == (
        [("four_plants", 1)], 1)
    # icga: 2 tai a set.
    assert tai(PLAIN, WIN_4T, CHOW_123W, table=ICGA, flowers=(*seasons, 60)) == (
        [("four_seasons", 2), ("seat_flower", 1)], 3)


def test_dragon_pung_san_yuan_pai() -> None:
    red = PLAIN.replace("190 191 192", "450 451 452")
    assert tai(red, WIN_4T, CHOW_123W) == ([("dragon_pung", 1)], 1)


def test_single_wait_du_ting_edge_middle_and_pair() -> None:
    middle = PLAIN.replace("220 230", "220 240")
    assert tai(middle, 230, CHOW_123W) == ([("single_wait", 1)], 1)  # 2_4 waiting 3
    edge = PLAIN.replace("220 230", "210 220")
    assert tai(edge, 230, CHOW_123W) == ([("single_wait", 1)], 1)  # 1-2 waiting 3
    pair = PLAIN.replace("220 230", "220 230 240").replace("340 341", "440")
    assert tai(pair, 441, CHOW_123W) == ([("single_wait", 1)], 1)  # North alone
    # A lone 4 Tong next to 5-6-7 Tong also waits on 7 Tong (4-5-6 and 7-7).
    pair = PLAIN.replace("220 230", "220 230 240").replace("340 341", "340")
    assert tai(pair, 341, CHOW_123W) == ([], 0)


def test_no_single_wait_for_a_hand_that_also_waited_on_another_kind() -> None:
    # 3-4-5-5 Wan won on 5 Wan, read as the pair: it also waited on 2 Wan.
    hand = PLAIN.replace("131 140 150", "131 140 150 151").replace(
        "340 341  220 230", "220 230 240")
    assert tai(hand, 152, CHOW_123W) == ([], 0)
    assert tai(hand, 152, CHOW_123W, table=ICGA) == ([], 0)


def test_robbing_the_kong_qiang_gang() -> None:
    assert tai(PLAIN, WIN_4T, CHOW_123W, robbing_kong=True) == ([("robbing_kong", 1)], 1)


def test_kong_replacement_gang_shang_kai_hua_is_self_drawn_only() -> None:
    assert tai(PLAIN, WIN_4T, CHOW_123W, self_draw=True, kong_replacement=True) == (
        [("self_drawn", 1), ("kong_replacement", 1)], 2)


def test_last_tile_hai_di_lao_yue_is_self_drawn_only() -> None:
    assert tai(PLAIN, WIN_4T, CHOW_123W, self_draw=True, last_tile=True) == (
        [("self_drawn", 1), ("last_tile", 1)], 2)
    # 河底撈魚 (the last discard) is not in the table; icga scores both.
    assert tai(PLAIN, WIN_4T, CHOW_123W, last_tile=True) == ([], 0)
    assert tai(PLAIN, WIN_4T, CHOW_123W, table=ICGA, last_tile=True) == (
        [("last_tile", 1)], 1)


ALL_MELDED = (CHOW_123W, meld("220 230 240"), meld("350 360 370"), meld("190 191 192"),
              meld("131 140 150"))


def test_all_melded_quan_qiu_ren_on_a_discard_and_half_melded_ban_qiu_ren() -> None:
    assert tai("340", 341, *ALL_MELDED) == ([("all_melded", 2)], 2)
    assert tai("340", 341, *ALL_MELDED, self_draw=True) == (
        [("self_drawn", 1), ("half_melded", 1)], 2)
    # icga has neither; the pair wait scores its single wait.
    assert tai("340", 341, *ALL_MELDED, table=ICGA) == ([("single_wait", 1)], 1)


ALL_CHOWS = PLAIN.replace("190 191 192", "170 180 190")


def test_all_chows_ping_hu() -> None:
    assert tai(ALL_CHOWS, WIN_4T, CHOW_123W) == ([("all_chows", 2)], 2)


def test_all_chows_ping_hu_wants_a_discard_two_kinds_no_flower_no_honour_and_a_meld() -> None:
    flower = tai(ALL_CHOWS, WIN_4T, CHOW_123W, flowers=(10,))  # not South's flower
    assert flower == ([], 0)
    assert tai(ALL_CHOWS, WIN_4T, CHOW_123W, self_draw=True) == ([("self_drawn", 1)], 1)
    assert tai("110 120 130 " + ALL_CHOWS, WIN_4T) == ([("concealed_hand", 1)], 1)
    honour_pair = ALL_CHOWS.replace("340 341", "410 411")
    assert tai(honour_pair, WIN_4T, CHOW_123W) == ([], 0)
    closed = ALL_CHOWS.replace("220 230", "220 240")
    assert tai(closed, 230, CHOW_123W) == ([("single_wait", 1)], 1)
    # icga asks none of that.
    assert tai(ALL_CHOWS, WIN_4T, CHOW_123W, table=ICGA, flowers=(10,)) == (
        [("all_chows", 2)], 2)
    assert tai(honour_pair, WIN_4T, CHOW_123W, table=ICGA) == ([], 0)


PUNGS_3 = PLAIN.replace("131 140 150", "131 132 133").replace("350 360 370", "350 351 352")


def test_three_concealed_pungs_san_an_ke() -> None:
    assert tai(PUNGS_3, WIN_4T, CHOW_123W) == ([("three_concealed_pungs", 2)], 2)


def test_four_concealed_pungs_si_an_ke() -> None:
    # Four pungs in hand, the fourth self-drawn (7 Tiao or 4 Tong would do).
    hand = PUNGS_3.replace("220 230", "270 271")
    assert tai(hand, 272, CHOW_123W, self_draw=True) == (
        [("self_drawn", 1), ("four_concealed_pungs", 5)], 6)


def test_five_concealed_pungs_wu_an_ke() -> None:
    hand = PUNGS_3.replace("220 230", "270 271") + " 111 112 113"
    assert tai(hand, 272, self_draw=True) == (
        [("concealed_hand", 1), ("concealed_self_drawn", 1), ("self_drawn", 1),
         ("all_pungs", 4), ("five_concealed_pungs", 8)], 15)


def test_all_pungs_peng_peng_hu() -> None:
    # Two pungs melded, two in hand, 2 Tiao completed by a discard (not concealed).
    hand = "131 132 133  350 351 352  220 221  340 341"
    assert tai(hand, 222, meld("110 111 112"), meld("190 191 192")) == (
        [("all_pungs", 4)], 4)


def test_little_three_dragons_xiao_san_yuan() -> None:
    hand = "450 451 452  131 140 150  220 230  470 471"
    assert tai(hand, WIN_4T, CHOW_123W, meld("460 461 462")) == (
        [("little_three_dragons", 4)], 4)


def test_big_three_dragons_da_san_yuan() -> None:
    hand = "450 451 452  470 471 472  220 230  340 341"
    assert tai(hand, WIN_4T, CHOW_123W, meld("460 461 462")) == (
        [("big_three_dragons", 8)], 8)


def test_half_flush_hun_yi_se() -> None:
    hand = "140 150 160  170 180 190  440 441 442  121 131  151 152"
    assert tai(hand, 141, CHOW_123W) == ([("half_flush", 4)], 4)


def test_full_flush_qing_yi_se() -> None:
    hand = "140 150 160  170 180 190  151 152 153  121 131  191 192"
    assert tai(hand, 141, CHOW_123W) == ([("full_flush", 8)], 8)


WINDS_ES = (meld("410 411 412"), meld("430 431 432"))


def test_little_four_winds_xiao_si_xi_replaces_the_wind_pungs() -> None:
    hand = "420 421 422  131 140 150  220 230  440 441"
    assert tai(hand, WIN_4T, *WINDS_ES) == ([("little_four_winds", 8)], 8)


def test_big_four_winds_da_si_xi_is_16() -> None:
    hand = "420 421 422  440 441 442  220 230  340 341"
    assert tai(hand, WIN_4T, *WINDS_ES) == ([("big_four_winds", 16)], 16)
    assert tai(hand, WIN_4T, *WINDS_ES, table=ICGA) == ([("big_four_winds", 16)], 16)


def test_all_honours_zi_yi_se_is_16_and_keeps_all_pungs() -> None:
    # West and Green melded; North, White in hand; Red completed by a discard.
    hand = "440 441 442  470 471 472  450 451  410 411"
    melds = (meld("420 421 422"), meld("460 461 462"))
    assert tai(hand, 452, *melds) == (
        [("all_pungs", 4), ("all_honors", 16), ("big_three_dragons", 8)], 28)
    assert tai(hand, 452, *melds, table=ICGA) == (
        [("all_pungs", 4), ("all_honors", 8), ("big_three_dragons", 8)], 20)


CONCEALED = "110 120 130 " + PLAIN


def test_heavenly_hand_tian_hu_drops_the_concealed_and_replacement_patterns() -> None:
    assert tai(CONCEALED, WIN_4T, seat=0, dealer=True, self_draw=True, heavenly=True,
               kong_replacement=True) == (
        [("dealer", 1), ("self_drawn", 1), ("heavenly_hand", 24)], 26)


def test_earthly_hand_di_hu_on_the_first_draw_and_human_hand_ren_hu_on_a_discard() -> None:
    assert tai(CONCEALED, WIN_4T, self_draw=True, earthly=True) == (
        [("self_drawn", 1), ("earthly_hand", 16)], 17)
    assert tai(CONCEALED, WIN_4T, earthly=True) == ([("human_hand", 16)], 16)
    assert tai(CONCEALED, WIN_4T, earthly=True, table=ICGA) == (
        [("concealed_hand", 1), ("earthly_hand", 16)], 17)


def test_eight_flowers_ba_xian_guo_hai_and_seven_robbing_one_qi_qiang_yi() -> None:
    eight = flower_score(TAIWAN, payer=None, winner=1, dealer=0)
    assert (eight.patterns, eight.total_tai) == ((("eight_flowers", 8),), 8)
    assert eight.decomposition is None
    seven = flower_score(TAIWAN, payer=2, winner=0, dealer=0)
    assert (seven.patterns, seven.total_tai) == ((("dealer", 1), ("seven_flowers", 8)), 9)
    seven = flower_score(TAIWAN, payer=2, winner=1, dealer=2)  # the dealer pays
    assert seven.patterns == (("dealer", 1), ("seven_flowers", 8))
    with pytest.raises(ValueError, match="no flower wins"):
        flower_score(ICGA, None, 1, 0)


def test_who_wins_on_flowers() -> None:
    seven = [10, 20, 30, 40, 50, 60, 70]
    assert flower_win([[*seven, 80], [], [], []], 0) == (0, None)
    assert flower_win([seven, [80], [], []], 1) == (0, 1)
    assert flower_win([seven[:6], [80, 70], [], []], 1) is None


def test_presets_by_name() -> None:
    assert preset("icga") == ICGA and preset("taiwan") == TAIWAN
    assert sorted(PRESETS) == ["icga", "taiwan"]
    with pytest.raises(ConfigError, match="scoring = 'hk': expected one of icga, taiwan"):
        preset("hk")


# ------------------------------------------------------------------ properties

SUITED = [t for t in ALL_TILES if not is_flower(t)]


@st.composite
def winning_hands(draw: st.DrawFn) -> tuple[list[int], int, list[Meld], dict[str, Any]]:
    """Random winning tile ids: up to three sets melded, the rest and the pair in hand
    (their tiles in a random order), the winning tile among them; random flags."""
    left = {k: [t for t in SUITED if kind_of(t) == k] for k in range(34)}
    sets: list[list[int]] = []
    while len(sets) < 5:
        if draw(st.booleans()):
            kind = draw(st.sampled_from([k for k in range(27) if k % 9 <= 6
                                         and all(left[j] for j in range(k, k + 3))]))
            sets.append([left[j].pop() for j in range(kind, kind + 3)])
        else:
            kind = draw(st.sampled_from([k for k in range(34) if len(left[k]) >= 3]))
            sets.append([left[kind].pop() for _ in range(3)])
    pair_kind = draw(st.sampled_from([k for k in range(34) if len(left[k]) >= 2]))
    pair = [left[pair_kind].pop(), left[pair_kind].pop()]
    melded = draw(st.integers(0, 3))
    melds = [Meld(MeldKind.CHOW if len({kind_of(t) for t in s}) == 3 else MeldKind.PUNG,
                  tuple(sorted(s)), claimed=s[0], source=0) for s in sets[:melded]]
    held = draw(st.permutations([t for s in sets[melded:] for t in s] + pair))
    win = draw(st.sampled_from(held))
    self_draw = draw(st.booleans())
    flags = {"self_draw": self_draw, "seat": draw(st.integers(0, 3)),
             "round_wind": draw(st.integers(0, 3)), "dealer": draw(st.booleans()),
             "discarder_is_dealer": draw(st.booleans()),
             "flowers": tuple(draw(st.sets(st.sampled_from([10, 20, 30, 40, 50, 60, 70, 80])))),
             "robbing_kong": not self_draw and draw(st.booleans()),
             "last_tile": draw(st.booleans()), "kong_replacement": draw(st.booleans()),
             "heavenly": draw(st.booleans()), "earthly": draw(st.booleans())}
    return list(held), win, melds, flags


@settings(max_examples=300)
@given(winning_hands(), st.sampled_from(sorted(PRESETS)), st.randoms(use_true_random=False))
def test_the_tai_do_not_depend_on_the_order_of_the_tiles(
        hand: tuple[list[int], int, list[Meld], dict[str, Any]], name: str,
        rng: Any) -> None:
    held, win, melds, flags = hand
    held.remove(win)
    table = PRESETS[name]
    first = tai(" ".join(map(str, held)), win, *melds, table=table, **flags)
    rng.shuffle(held)
    rng.shuffle(melds)
    again = tai(" ".join(map(str, held)), win, *melds, table=table, **flags)
    assert again == first
    patterns, total = first
    assert total == sum(value for _, value in patterns)
    assert all(value > 0 for _, value in patterns)
    names = [pattern for pattern, _ in patterns]
    assert len(names) == len(set(names))
    assert set(names) <= set(type(table).__dataclass_fields__)
    assert len({"half_flush", "full_flush", "all_honors"} & set(names)) <= 1
    if name == "taiwan":
        assert not {"all_melded", "half_melded"} & set(names) or "single_wait" not in names
        assert len({"heavenly_hand", "earthly_hand", "human_hand"} & set(names)) <= 1


@settings(max_examples=100)
@given(winning_hands(), st.sampled_from(sorted(PRESETS)))
def test_the_best_reading_does_not_depend_on_the_order_of_the_decompositions(
        hand: tuple[list[int], int, list[Meld], dict[str, Any]], name: str) -> None:
    held, win, melds, flags = hand
    counts = counts_of(held)
    flags = dict(flags)
    ctx = WinContext(tuple(counts), tuple(melds), kind_of(win), flags.pop("self_draw"),
                     flags.pop("seat"), flags.pop("round_wind"), flags.pop("dealer"),
                     flags.pop("discarder_is_dealer"), flags.pop("flowers"), **flags)
    decs = decompositions(counts)
    forward = score(ctx, decs, PRESETS[name])
    backward = score(ctx, list(reversed(decs)), PRESETS[name])
    assert forward == backward
