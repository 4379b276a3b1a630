"""Riichi scoring: hand-checked han, fu and points from the standard table, the rule options,
every situational yaku, melds (kakan, ankan), malformed input, and the score changes with
honba and riichi sticks; plus a property test over random winning hands."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.riichi.melds import Meld, MeldType
from referee.games.riichi.scoring import HandValue, ScoringRules, WinInfo, evaluate
from referee.games.riichi.tiles import mjai_name, tile_of

# ---------------------------------------------------------------- building hands

_HONOR = "ESWNPFC"


def names(spec: str) -> list[str]:
    """mjai names of a compact spec: ``"234m0p55s EEE"``; ``0`` is a red five, honors are
    their letters."""
    out: list[str] = []
    for group in spec.split():
        if group[0] in _HONOR:
            out.extend(group)
            continue
        for digits, suit in re.findall(r"(\d+)([mps])", group):
            out.extend(f"5{suit}r" if d == "0" else f"{d}{suit}" for d in digits)
    return out


class Table:
    """Hands tiles out by id, each physical tile once."""

    def __init__(self) -> None:
        self.taken: set[int] = set()

    def ids(self, spec: str) -> tuple[int, ...]:
        got = []
        for name in names(spec):
            tile = tile_of(name, self.taken)
            self.taken.add(tile)
            got.append(tile)
        return tuple(got)

    def meld(self, kind: MeldType, spec: str, target: int | None = 1) -> Meld:
        tiles = tuple(sorted(self.ids(spec)))
        if kind is MeldType.ANKAN:
            return Meld(kind, tiles)
        return Meld(kind, tiles, tiles[-1], target)


def win(
    concealed: str,
    win_tile: str,
    meld_specs: tuple[tuple[MeldType, str], ...] = (),
    dora: str = "N",
    ura: str = "",
    **flags: Any,
) -> WinInfo:
    """A WinInfo: ``concealed`` includes the winning tile ``win_tile`` (mjai name); the
    default dora indicator is North (dora: East)."""
    table = Table()
    hand = table.ids(concealed)
    melds = tuple(table.meld(kind, spec) for kind, spec in meld_specs)
    matches = [t for t in hand if mjai_name(t) == names(win_tile)[0]]
    assert matches, f"{win_tile} not in {concealed}"
    dora_ids = table.ids(dora) if dora else ()
    ura_ids = table.ids(ura) if ura else ()
    base: dict[str, Any] = dict(
        tsumo=False, riichi=False, double_riichi=False, ippatsu=False, rinshan=False,
        chankan=False, haitei=False, houtei=False, tenhou=False, chiihou=False,
        seat_wind=1, round_wind=0,
    )
    base.update(flags)
    all_tiles = hand + tuple(t for m in melds for t in m.tiles)
    return WinInfo(
        tiles=all_tiles, melds=melds, win_tile=matches[-1],
        dora_indicators=dora_ids, ura_indicators=ura_ids, **base,
    )


def value(info: WinInfo, rules: ScoringRules | None = None) -> HandValue:
    result = evaluate(info) if rules is None else evaluate(info, rules)
    assert result is not None
    return result


def yaku_names(v: HandValue) -> dict[str, int]:
    return dict(v.yaku)


CHI, PON = MeldType.CHI, MeldType.PON
# riichi-able pinfu shape: 234m 789m 123p 456p 66p, won on 6p (45p waiting on 3p/6p)
PINFU = "234789m12345666p"
# tanyao pinfu: 234m 567m 345p 678s 88p, won on 8s (67s waiting on 5s/8s)
TANPIN = "234567m345p678s88p"


# ---------------------------------------------------------------- standard table values


def test_riichi_tsumo_pinfu_non_dealer_700_1300() -> None:
    v = value(win(PINFU, "6p", tsumo=True, riichi=True))
    assert (v.han, v.fu) == (3, 20)
    assert yaku_names(v) == {"Riichi": 1, "Menzen Tsumo": 1, "Pinfu": 1}
    assert (v.tsumo_dealer, v.tsumo_non_dealer, v.ron_points) == (1300, 700, 0)
    assert v.points == 2700 and v.limit == ""


def test_riichi_tsumo_pinfu_dora_1300_2600() -> None:
    # the 3p indicator makes 4p dora
    v = value(win(PINFU, "6p", tsumo=True, riichi=True, dora="3p"))
    assert (v.han, v.fu) == (4, 20)
    assert yaku_names(v)["Dora"] == 1
    assert (v.tsumo_dealer, v.tsumo_non_dealer) == (2600, 1300)


def test_dealer_riichi_tsumo_pinfu_1300_all() -> None:
    v = value(win(PINFU, "6p", tsumo=True, riichi=True, seat_wind=0))
    assert v.dealer and (v.tsumo_dealer, v.tsumo_non_dealer) == (0, 1300)
    assert v.points == 3900


def test_closed_ron_mangan_and_dealer_mangan() -> None:
    # riichi, tanyao, pinfu and the 88p pair as dora (7p indicator): 5 han
    info = win(TANPIN, "8s", riichi=True, dora="7p")
    v = value(info)
    assert v.han == 5 and yaku_names(v) == {"Riichi": 1, "Tanyao": 1, "Pinfu": 1, "Dora": 2}
    assert (v.ron_points, v.limit) == (8000, "mangan")
    dealer = value(replace(info, seat_wind=0))
    assert (dealer.ron_points, dealer.limit) == (12000, "mangan")


def test_four_han_30_fu_7700_and_kiriage() -> None:
    """7700 on Tenhou and on Mahjong Soul (no kiriage there, as RiichiEnv's Mahjong Soul
    preset, checked against real Mahjong Soul games, pays it); 8000 with kiriage on."""
    info = win(TANPIN, "8s", riichi=True, dora="5s")  # 6s is dora
    v = value(info)
    assert (v.han, v.fu, v.ron_points, v.limit) == (4, 30, 7700, "")
    soul = value(info, ScoringRules.mahjong_soul())
    assert (soul.ron_points, soul.limit) == (7700, "")
    dealer = value(replace(info, seat_wind=0), ScoringRules.mahjong_soul())
    assert dealer.ron_points == 11600
    kiriage = value(info, ScoringRules(kiriage=True))
    assert (kiriage.ron_points, kiriage.limit) == (8000, "kiriage mangan")


def test_three_han_30_fu_tsumo_1000_2000() -> None:
    # riichi, tsumo, and 1 dora; the 66p pair is won on a kanchan 5p (46p): no pinfu, 30 fu
    v = value(win("234789m12346p66s 5p", "5p", tsumo=True, riichi=True, dora="1m"))
    assert (v.han, v.fu) == (3, 30)
    assert (v.tsumo_dealer, v.tsumo_non_dealer) == (2000, 1000)


def test_open_tanyao_1000_and_without_kuitan_none() -> None:
    info = win("567p345s678s55m", "8s", ((CHI, "234m"),))
    v = value(info)
    assert yaku_names(v) == {"Tanyao": 1}
    assert (v.han, v.fu, v.ron_points) == (1, 30, 1000)
    assert evaluate(info, ScoringRules(open_tanyao=False)) is None
    # without the open pinfu fu the hand is 1 han 20 fu: 20 * 2**3 * 4 = 640 -> 700
    low = value(info, ScoringRules(open_pinfu_fu=False))
    assert (low.fu, low.ron_points) == (20, 700)


def test_yakuhai_1_han_30_fu_dealer_1500() -> None:
    info = win("234m567p345s99s", "5s", ((PON, "PPP"),), seat_wind=0)
    v = value(info)
    assert yaku_names(v) == {"Yakuhai (haku)": 1}
    assert (v.han, v.fu, v.ron_points) == (1, 30, 1500)
    assert value(replace(info, seat_wind=2)).ron_points == 1000


def test_round_and_seat_wind_yakuhai() -> None:
    # a pon of South: the seat wind of South, also the round wind in the South round
    info = win("234m567p345s99s", "5s", ((PON, "SSS"),), seat_wind=1, round_wind=1)
    v = value(info)
    assert v.han == 2 and len(v.yaku) == 2
    assert evaluate(replace(info, seat_wind=2, round_wind=0)) is None


def test_chiitoitsu_25_fu() -> None:
    v = value(win("1199m3377p2288s EE", "E", dora="3s"))
    assert yaku_names(v) == {"Chiitoitsu": 2}
    assert (v.han, v.fu, v.ron_points) == (2, 25, 1600)


def test_dora_without_yaku_is_not_a_win() -> None:
    # open, terminals (no tanyao), no yakuhai: three dora but no yaku
    info = win("123p789s11s456m", "6m", ((CHI, "123m"),), dora="9p")  # 1p is dora
    assert evaluate(info) is None


def test_not_a_winning_hand_is_none() -> None:
    assert evaluate(win("234789m12345667p", "7p")) is None


# ---------------------------------------------------------------- dora kinds


def test_red_fives_count_only_when_on() -> None:
    info = win("234m067m345p678s88p", "8s", riichi=True)
    v = value(info)
    assert yaku_names(v)["Aka Dora"] == 1 and v.han == 4
    off = value(info, ScoringRules(red_fives=False))
    assert "Aka Dora" not in yaku_names(off) and off.han == 3


def test_ura_dora_only_with_riichi() -> None:
    # the 7p ura indicator makes the 88p pair two ura dora
    with_riichi = value(win(TANPIN, "8s", riichi=True, ura="7p"))
    assert yaku_names(with_riichi)["Ura Dora"] == 2 and with_riichi.han == 5
    dama = value(win(TANPIN, "8s", ura="7p"))
    assert "Ura Dora" not in yaku_names(dama) and dama.han == 2
    double = value(win(TANPIN, "8s", double_riichi=True, ura="7p"))
    assert yaku_names(double)["Ura Dora"] == 2 and "Double Riichi" in yaku_names(double)


# ---------------------------------------------------------------- situational yaku


@pytest.mark.parametrize(
    ("flags", "yaku"),
    [
        ({"tsumo": True, "haitei": True}, "Haitei Raoyue"),
        ({"houtei": True}, "Houtei Raoyui"),
        ({"chankan": True}, "Chankan"),
        ({"riichi": True, "ippatsu": True}, "Ippatsu"),
        ({"double_riichi": True}, "Double Riichi"),
        ({"double_riichi": True, "riichi": True, "ippatsu": True}, "Ippatsu"),
    ],
)
def test_situational_yaku(flags: dict[str, Any], yaku: str) -> None:
    # closed, won on a kanchan 3s (24s): no pinfu, no yaku until the flags give one
    base = win("123m456m789p11s234s", "3s", dora="")
    assert evaluate(base) is None
    v = value(replace(base, **flags))
    assert yaku in yaku_names(v)


def test_rinshan_with_a_kakan() -> None:
    # a kakan of haku, then the replacement tile wins: yakuhai + rinshan
    info = win("234m567p345s99s", "5s", ((MeldType.KAKAN, "PPPP"),), tsumo=True, rinshan=True)
    assert len(info.tiles) == 15
    v = value(info)
    assert yaku_names(v) == {"Yakuhai (haku)": 1, "Rinshan Kaihou": 1}
    # 20 + 16 (open honor kan) + 2 (tsumo) = 38 -> 40 fu; 2 han 40 fu: 700/1300
    assert (v.han, v.fu, v.tsumo_dealer, v.tsumo_non_dealer) == (2, 40, 1300, 700)


def test_kakan_ron_fu() -> None:
    v = value(win("234m567p345s99s", "5s", ((MeldType.KAKAN, "PPPP"),)))
    # 20 + 16 = 36 -> 40 fu, 1 han 40 fu: 1300
    assert (v.han, v.fu, v.ron_points) == (1, 40, 1300)


def test_ankan_keeps_the_hand_closed() -> None:
    # riichi with an ankan of 9s: 20 + 10 (closed ron) + 32 (closed terminal kan) = 62 -> 70
    v = value(win("234m567p345s88p", "5s", ((MeldType.ANKAN, "9999s"),), riichi=True))
    assert yaku_names(v) == {"Riichi": 1}
    assert (v.han, v.fu, v.ron_points) == (1, 70, 2300)


def test_tenhou_and_chiihou() -> None:
    dealer = value(win(PINFU, "6p", tsumo=True, tenhou=True, seat_wind=0))
    assert yaku_names(dealer) == {"Tenhou": 13}
    assert (dealer.limit, dealer.tsumo_non_dealer, dealer.points) == ("yakuman", 16000, 48000)
    child = value(win(PINFU, "6p", tsumo=True, chiihou=True, seat_wind=2))
    assert yaku_names(child) == {"Chiihou": 13}
    assert (child.tsumo_dealer, child.tsumo_non_dealer, child.points) == (16000, 8000, 32000)


def test_renhou_is_off_by_default() -> None:
    info = win("123m456m789p11s234s", "3s", renhou=True)
    assert evaluate(info) is None  # no yaku without renhou
    as_mangan = value(info, ScoringRules(renhou="mangan"))
    assert as_mangan.limit == "mangan" and as_mangan.ron_points == 8000
    assert value(info, ScoringRules(renhou="yakuman")).ron_points == 32000


# ---------------------------------------------------------------- limits


KAZOE = "112233456789m99m"  # chinitsu, ittsu, iipeiko, pinfu (won on 4m)


def test_kazoe_yakuman_at_13_han() -> None:
    # riichi 1 + tsumo 1 + pinfu 1 + iipeiko 1 + ittsu 2 + chinitsu 6 = 12, + 1 dora (4m)
    info = win(KAZOE, "4m", tsumo=True, riichi=True, dora="3m")
    v = value(info)
    assert v.han == 13 and v.limit == "kazoe yakuman"
    assert (v.tsumo_dealer, v.tsumo_non_dealer, v.points) == (16000, 8000, 32000)
    cap = value(info, ScoringRules(kazoe_limit="sanbaiman"))
    assert (cap.limit, cap.points) == ("sanbaiman", 24000)
    twelve = value(replace(info, dora_indicators=info.dora_indicators[:0]))
    assert (twelve.han, twelve.limit, twelve.points) == (12, "sanbaiman", 24000)


def test_double_yakuman_only_when_on() -> None:
    # suuankou tanki: a single yakuman on Tenhou, a double on Mahjong Soul
    info = win("111m333p555s999s EE", "E", tsumo=True)
    tenhou = value(info)
    assert (tenhou.han, tenhou.limit, tenhou.points) == (13, "yakuman", 32000)
    soul = value(info, ScoringRules.mahjong_soul())
    assert (soul.han, soul.limit, soul.points) == (26, "2x yakuman", 64000)


def test_distinct_yakuman_add_up_on_tenhou() -> None:
    # daisangen + tsuuiisou (one pon, so not also suuankou)
    v = value(win("FFF CCC EEE SS", "S", ((PON, "PPP"),), tsumo=True))
    assert set(yaku_names(v)) == {"Daisangen", "Tsuu Iisou"}
    assert v.limit == "2x yakuman" and v.points == 64000


# ---------------------------------------------------------------- deltas


def test_ron_deltas_with_honba_and_kyotaku() -> None:
    v = value(win(TANPIN, "8s", riichi=True, dora="7p", honba=2, kyotaku=1))
    assert (v.honba, v.kyotaku) == (2, 1)
    # winner seat 1 (South, non-dealer), dealer 0, discarder 3
    assert v.deltas(1, 0, 3) == (0, 8000 + 600 + 1000, 0, -8600)
    assert v.deltas(1, 0, 3, 0, 0) == (0, 8000, 0, -8000)
    assert sum(v.deltas(1, 0, 2, 3, 2)) == 2000


def test_dealer_ron_deltas() -> None:
    v = value(win(TANPIN, "8s", riichi=True, dora="7p", seat_wind=0))
    assert v.deltas(2, 2, 0, 1, 1) == (-12300, 0, 13300, 0)


def test_non_dealer_tsumo_deltas() -> None:
    v = value(win(PINFU, "6p", tsumo=True, riichi=True))  # 700/1300
    changes = v.deltas(3, 1, None, 1, 2)
    assert changes == (-800, -1400, -800, 1400 + 800 + 800 + 2000)
    assert sum(changes) == 2000


def test_dealer_tsumo_deltas() -> None:
    v = value(win(PINFU, "6p", tsumo=True, riichi=True, seat_wind=0))  # 1300 all
    assert v.deltas(0, 0, None, 3, 0) == (3 * 1600, -1600, -1600, -1600)


def test_deltas_reject_inconsistent_seats() -> None:
    ron = value(win(TANPIN, "8s", riichi=True))
    with pytest.raises(ValueError, match="ron"):
        ron.deltas(1, 0, None)
    with pytest.raises(ValueError, match="discarder"):
        ron.deltas(1, 0, 1)
    with pytest.raises(ValueError, match="non-dealer"):
        ron.deltas(0, 0, 1)
    with pytest.raises(ValueError, match="0..3"):
        ron.deltas(4, 0, 1)


# ---------------------------------------------------------------- malformed input


def test_malformed_input_raises() -> None:
    good = win(TANPIN, "8s", riichi=True)
    with pytest.raises(ValueError, match="not 13"):
        evaluate(replace(good, tiles=good.tiles[:-1]))
    with pytest.raises(ValueError, match="not in the hand"):
        evaluate(replace(good, win_tile=135))
    with pytest.raises(ValueError, match="more than once"):
        evaluate(replace(good, dora_indicators=(good.tiles[0],)))
    with pytest.raises(ValueError, match="0..135"):
        evaluate(replace(good, dora_indicators=(136,)))
    with pytest.raises(ValueError, match="seat_wind"):
        evaluate(replace(good, seat_wind=4))
    with pytest.raises(ValueError, match="rinshan"):
        evaluate(replace(good, rinshan=True))
    with pytest.raises(ValueError, match="ippatsu"):
        evaluate(replace(good, riichi=False, ippatsu=True))
    with pytest.raises(ValueError, match="tenhou"):
        evaluate(replace(good, tsumo=True, riichi=False, tenhou=True))
    with pytest.raises(ValueError, match="kazoe_limit"):
        ScoringRules(kazoe_limit="double")


def test_malformed_melds_raise() -> None:
    opened = win("567p345s678s55m", "8s", ((CHI, "234m"),))
    with pytest.raises(ValueError, match="open hand riichi"):
        evaluate(replace(opened, riichi=True))
    meld = opened.melds[0]
    with pytest.raises(ValueError, match="consecutive"):
        evaluate(replace(opened, melds=(replace(meld, tiles=(4, 8, 16)),)))
    with pytest.raises(ValueError, match="not in the hand"):
        evaluate(replace(opened, melds=(replace(meld, tiles=(5, 9, 13), taken=13),)))
    with pytest.raises(ValueError, match="in a meld"):
        evaluate(replace(opened, win_tile=meld.tiles[0]))
    pon = Meld(MeldType.PON, (4, 5, 9), 9, 1)
    with pytest.raises(ValueError, match="one kind"):
        evaluate(replace(opened, melds=(pon,)))


# ---------------------------------------------------------------- property test

# the first kinds of the 21 sequences (1-7 of each suit)
_SEQ_STARTS = [s * 9 + r for s in range(3) for r in range(7)]


def _first_fit(counts: list[int], candidates: list[list[int]]) -> list[int]:
    """The first candidate group that fits in the four copies of each kind, counted in."""
    for group in candidates:
        if all(counts[k] + group.count(k) <= 4 for k in group):
            for k in group:
                counts[k] += 1
            return group
    raise AssertionError("no group fits")  # cannot happen with 4 sets and a pair


@st.composite
def winning_hands(draw: st.DrawFn) -> WinInfo:
    """A random complete hand (4 sets + pair or seven pairs), some sets called, with
    random dora and random flags that do not contradict each other."""
    counts = [0] * 34
    if draw(st.booleans()) and draw(st.integers(0, 9)) == 0:
        kinds = draw(st.lists(st.integers(0, 33), min_size=7, max_size=7, unique=True))
        groups = [[k, k] for k in kinds]
        kinds_of_sets: list[tuple[list[int], MeldType | None]] = [(g, None) for g in groups]
    else:
        kinds_of_sets = []
        kans = (MeldType.DAIMINKAN, MeldType.KAKAN, MeldType.ANKAN)
        for _ in range(4):
            if draw(st.booleans()):
                i = draw(st.integers(0, len(_SEQ_STARTS) - 1))
                call = draw(st.sampled_from([None, None, MeldType.CHI]))
                starts = _SEQ_STARTS[i:] + _SEQ_STARTS[:i]
                candidates = [[k, k + 1, k + 2] for k in starts]
            else:
                k = draw(st.integers(0, 33))
                call = draw(st.sampled_from([None, None, MeldType.PON, *kans]))
                size = 4 if call in kans else 3
                candidates = [[(k + i) % 34] * size for i in range(34)]
            group = _first_fit(counts, candidates)
            kinds_of_sets.append((group, call))
        k = draw(st.integers(0, 33))
        kinds_of_sets.append((_first_fit(counts, [[(k + i) % 34] * 2 for i in range(34)]), None))
    # allocate ids: copy numbers per kind in a random order (red fives included)
    rng = draw(st.randoms(use_true_random=False))
    order = {k: rng.sample(range(4), 4) for k in range(34)}
    used = [0] * 34
    concealed: list[int] = []
    melds: list[Meld] = []
    for group, call in kinds_of_sets:
        ids = []
        for k in group:
            ids.append(k * 4 + order[k][used[k]])
            used[k] += 1
        if call is None:
            concealed.extend(ids)
        elif call is MeldType.ANKAN:
            melds.append(Meld(call, tuple(sorted(ids))))
        else:
            melds.append(Meld(call, tuple(sorted(ids)), ids[0], draw(st.integers(0, 3))))
    win_tile = draw(st.sampled_from(concealed))
    free = [k * 4 + order[k][c] for k in range(34) for c in range(used[k], 4)]
    indicators = draw(st.lists(st.sampled_from(free), min_size=2, max_size=10, unique=True))
    n_dora = draw(st.integers(1, len(indicators) // 2))
    opened = any(m.opened for m in melds)
    has_kan = any(m.is_kan for m in melds)
    seat = draw(st.integers(0, 3))
    tsumo = draw(st.booleans())
    double = not opened and draw(st.booleans()) and draw(st.booleans())
    riichi = double or (not opened and draw(st.booleans()))
    rinshan = tsumo and has_kan and draw(st.booleans())
    haitei = tsumo and not rinshan and draw(st.booleans())
    houtei = not tsumo and draw(st.booleans())
    chankan = not tsumo and not houtei and draw(st.booleans())
    first = tsumo and not melds and draw(st.booleans()) and draw(st.booleans())
    return WinInfo(
        tiles=tuple(concealed) + tuple(t for m in melds for t in m.tiles),
        melds=tuple(melds),
        win_tile=win_tile,
        tsumo=tsumo,
        riichi=riichi,
        double_riichi=double,
        ippatsu=riichi and draw(st.booleans()),
        rinshan=rinshan,
        chankan=chankan,
        haitei=haitei,
        houtei=houtei,
        tenhou=first and seat == 0,
        chiihou=first and seat != 0,
        seat_wind=seat,
        round_wind=draw(st.integers(0, 3)),
        dora_indicators=tuple(indicators[:n_dora]),
        ura_indicators=tuple(indicators[n_dora:2 * n_dora]),
        honba=draw(st.integers(0, 8)),
        kyotaku=draw(st.integers(0, 6)),
    )


_RULES = st.builds(
    ScoringRules,
    red_fives=st.booleans(),
    open_tanyao=st.booleans(),
    kazoe_limit=st.sampled_from(["yakuman", "sanbaiman", "none"]),
    double_yakuman=st.booleans(),
    kiriage=st.booleans(),
)


@settings(max_examples=200)
@given(winning_hands(), _RULES, st.data())
def test_random_wins_score_consistently(info: WinInfo, rules: ScoringRules,
                                        data: st.DataObject) -> None:
    v = evaluate(info, rules)
    if v is None:
        return
    assert v.han >= 1 and v.han == sum(h for _, h in v.yaku)
    assert v.fu == 25 or v.fu % 10 == 0
    dealer_seat = data.draw(st.integers(0, 3))
    winner = dealer_seat if info.seat_wind == 0 else (dealer_seat + info.seat_wind) % 4
    loser = None
    if not info.tsumo:
        loser = data.draw(st.sampled_from([s for s in range(4) if s != winner]))
    changes = v.deltas(winner, dealer_seat, loser)
    assert sum(changes) == info.kyotaku * 1000
    assert changes[winner] >= v.points + 1000 * info.kyotaku > 0
    payers = [s for s in range(4) if s != winner and (loser is None or s == loser)]
    assert all(changes[s] < 0 for s in payers)
    if info.tsumo:
        assert v.ron_points == 0 and v.tsumo_non_dealer > 0
        assert (v.tsumo_dealer == 0) == (info.seat_wind == 0)
    else:
        assert v.ron_points > 0 and v.tsumo_dealer == v.tsumo_non_dealer == 0
