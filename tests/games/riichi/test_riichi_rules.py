"""The Riichi rules engine: crafted hands (explicit tile sources) for each rule, games from
explicit deals for the game flow, and random play on seeded walls with invariants."""

from __future__ import annotations

import pickle
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from referee.games.riichi import shape
from referee.games.riichi.rules import (
    Action,
    Deal,
    RiichiGame,
    RiichiKyoku,
    RiichiRules,
    ScriptedWall,
    SeededWall,
    action_from_mjai,
    action_to_mjai,
)
from referee.games.riichi.scoring import HandValue, ScoringRules, WinInfo
from referee.games.riichi.scoring import evaluate as real_evaluate
from referee.games.riichi.tiles import parse_mjai, tile_of

HONORS = "ESWNPFC"


# ------------------------------------------------------------------------------ helpers


def names(text: str) -> list[str]:
    """mjai names of a compact hand: ``123m0p77z`` (0 the red five, z 1..7 = E..C)."""
    out: list[str] = []
    digits: list[str] = []
    for ch in text.replace(" ", ""):
        if ch.isdigit():
            digits.append(ch)
            continue
        for d in digits:
            if ch == "z":
                out.append(HONORS[int(d) - 1])
            elif d == "0":
                out.append(f"5{ch}r")
            else:
                out.append(f"{d}{ch}")
        digits = []
    assert not digits, text
    return out


class Tiles:
    """Hands out distinct tile ids for names (at most four of a kind overall)."""

    def __init__(self) -> None:
        self.taken: set[int] = set()

    def ids(self, text: str) -> list[int]:
        out = []
        for name in names(text):
            tile = tile_of(name, self.taken)
            self.taken.add(tile)
            out.append(tile)
        return out


def fake_evaluate(info: WinInfo, rules: ScoringRules) -> HandValue:
    """Every complete shape wins 1000 (1500 for the dealer) on a ron; on a tsumo 300/500
    from each non-dealer and 500 from the dealer (500 all for the dealer)."""
    dealer = info.seat_wind == 0
    if info.tsumo:
        return HandValue(1, 30, (("Fake", 1),), 0, 0 if dealer else 500, 500 if dealer else 300,
                         "", True, dealer)
    return HandValue(1, 30, (("Fake", 1),), 1500 if dealer else 1000, 0, 0, "", False, dealer)


def make(hands: Sequence[str], draws: str = "", rinshan: str = "", dora: str = "8p",
         ura: str = "9p", oya: int = 0, rules: RiichiRules | None = None,
         scores: Sequence[int] = (25000, 25000, 25000, 25000), honba: int = 0,
         kyotaku: int = 0, live_total: int | None = 70, bakaze: int = 0, kyoku: int = 1,
         evaluate: Any = real_evaluate) -> RiichiKyoku:
    """A hand from compact hands (by absolute seat) and the draws in order."""
    return RiichiKyoku(*deal_and_wall(hands, draws, rinshan, dora, ura, oya, scores, honba,
                                      kyotaku, live_total, bakaze, kyoku),
                       rules or RiichiRules(), evaluate)


def deal_and_wall(hands: Sequence[str], draws: str = "", rinshan: str = "", dora: str = "8p",
                  ura: str = "9p", oya: int = 0,
                  scores: Sequence[int] = (25000, 25000, 25000, 25000), honba: int = 0,
                  kyotaku: int = 0, live_total: int | None = 70, bakaze: int = 0,
                  kyoku: int = 1) -> tuple[Deal, ScriptedWall]:
    """A deal and its scripted wall (70 live tiles unless told, not all scripted)."""
    tiles = Tiles()
    tehais = tuple(tuple(tiles.ids(h)) for h in hands)
    dora_ids = tiles.ids(dora)
    ura_ids = tiles.ids(ura)
    live = tiles.ids(draws)
    rin = tiles.ids(rinshan)
    deal = Deal(tehais, dora_ids[0], oya=oya, bakaze=bakaze, kyoku=kyoku, honba=honba,
                kyotaku=kyotaku, scores=tuple(scores))
    return deal, ScriptedWall(live, rin, dora_ids, ura_ids, live_total)


def act(k: RiichiKyoku | RiichiGame, seat: int, kind: str, pai: str | None = None,
        target: int | None = None, consumed: Iterable[str] = (),
        tsumogiri: bool = False) -> None:
    """Play an action that must be legal."""
    action = Action(kind, seat, pai, target, tuple(consumed), tsumogiri)
    reason = k.illegal_reason(seat, action)
    assert reason is None, (reason, k.legal_actions(seat))
    k.apply(seat, action)


def pass_all(k: RiichiKyoku | RiichiGame, keep: Iterable[int] = ()) -> None:
    """Every seat asked about a discard or a kan (but ``keep``) passes."""
    kyoku = k.kyoku if isinstance(k, RiichiGame) else k
    if kyoku is None or kyoku.result is not None or kyoku.phase not in ("respond", "chankan"):
        return
    for s in sorted(k.pending() - set(keep)):
        k.apply(s, Action("none", s))


def discard(k: RiichiKyoku, seat: int, pai: str, keep: Iterable[int] = ()) -> None:
    """``seat`` discards ``pai`` from the hand (not tsumogiri), the others pass."""
    act(k, seat, "dahai", pai)
    pass_all(k, keep)


def tsumogiri(k: RiichiKyoku, seat: int, keep: Iterable[int] = ()) -> None:
    """``seat`` discards its drawn tile, the others pass."""
    assert k.drawn is not None and k.actor == seat
    act(k, seat, "dahai", k.names[k.drawn], tsumogiri=True)
    pass_all(k, keep)


def types(k: RiichiKyoku, since: int = 0) -> list[str]:
    return [e["type"] for e in k.events[since:]]


def last(k: RiichiKyoku | RiichiGame, kind: str) -> dict[str, Any]:
    return next(e for e in reversed(k.events) if e["type"] == kind)


def kinds_of(actions: Iterable[Action]) -> set[str]:
    return {a.type for a in actions}


def dahai_names(k: RiichiKyoku, seat: int) -> set[str]:
    return {a.pai for a in k.legal_actions(seat) if a.type == "dahai" and a.pai}


# ------------------------------------------------------------------------------ actions


def test_actions_round_trip_through_mjai() -> None:
    samples = [
        Action("dahai", 0, "5mr", tsumogiri=True),
        Action("chi", 1, "4m", 0, ("5m", "6m")),
        Action("pon", 2, "E", 1, ("E", "E")),
        Action("daiminkan", 3, "5p", 2, ("5p", "5p", "5pr")),
        Action("kakan", 0, "5s", None, ("5s", "5s", "5sr")),
        Action("ankan", 1, None, None, ("C", "C", "C", "C")),
        Action("hora", 2, "9s", 0),
        Action("reach", 3),
        Action("ryukyoku", 0),
        Action("none", 1),
    ]
    for action in samples:
        assert action_from_mjai(action_to_mjai(action), action.actor) == action
    assert action_to_mjai(Action("none", 2)) == {"type": "none"}
    assert action_from_mjai({"type": "chi", "actor": 1, "target": 0, "pai": "4m",
                             "consumed": ["6m", "5mr"]}).consumed == ("5mr", "6m")
    assert action_from_mjai({"type": "dahai", "actor": 0, "pai": "1m"}).tsumogiri is None
    for bad in ({"type": "fly"}, {"type": "dahai", "actor": 5, "pai": "1m"},
                {"type": "dahai", "actor": 0, "pai": "1x"},
                {"type": "pon", "actor": 0, "target": 1, "pai": "E", "consumed": ["E"]},
                {"type": "hora", "actor": 0, "pai": "E"}):
        with pytest.raises(ValueError):
            action_from_mjai(bad)


def test_actions_are_values() -> None:
    a = Action("chi", 1, "4m", 0, ("5m", "6m"))
    b = Action("chi", 1, pai="4m", target=0, consumed=("5m", "6m"))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != Action("chi", 1, "4m", 0, ("5mr", "6m")) and a != "chi"
    assert repr(a) == ("Action(type='chi', actor=1, pai='4m', target=0, "
                       "consumed=('5m', '6m'), tsumogiri=False)")
    assert pickle.loads(pickle.dumps(a)) == a
    loose = Action("dahai", 2, "7p", tsumogiri=None)
    assert loose.with_tsumogiri(True) == Action("dahai", 2, "7p", tsumogiri=True)
    assert loose.tsumogiri is None  # unchanged


def test_find_legal_gives_the_engines_own_action() -> None:
    game = RiichiGame(RiichiRules(), seed=7)
    seat = game.kyoku.actor if game.kyoku is not None else 0
    legal = game.legal_actions(seat)
    discard = next(a for a in legal if a.type == "dahai" and not a.tsumogiri)
    asked = Action("dahai", seat, discard.pai, tsumogiri=False)
    assert asked is not discard and game.find_legal(seat, asked) is discard
    drawn = next(a for a in legal if a.type == "dahai" and a.tsumogiri)
    loose = Action("dahai", seat, drawn.pai, tsumogiri=None)  # tsumogiri first
    assert game.find_legal(seat, loose) is drawn
    assert game.find_legal((seat + 1) % 4, asked) is None  # not that seat's action
    assert game.find_legal((seat + 1) % 4, Action("none", (seat + 1) % 4)) is None
    held = {a.pai for a in legal if a.type == "dahai"}
    absent = next(n for n in ("1m", "9m", "1p", "9p", "1s", "9s", "E", "S", "W", "N", "P",
                              "F", "C") if n not in held)
    assert game.find_legal(seat, Action("dahai", seat, absent)) is None


def test_seeded_wall_layout() -> None:
    wall = SeededWall(42)
    assert sorted(wall.tiles) == list(range(136))
    assert [wall.haipai(i) for i in range(4)] == [wall.tiles[13 * i:13 * i + 13]
                                                 for i in range(4)]
    assert wall.live_left() == 70
    assert wall.draw() == wall.tiles[66]
    assert wall.draw_rinshan() == wall.tiles[52]
    assert wall.live_left() == 68
    assert [wall.dora_indicator(n) for n in range(5)] == list(wall.tiles[56:61])
    assert [wall.ura_indicator(n) for n in range(5)] == list(wall.tiles[61:66])
    assert SeededWall(42).tiles == wall.tiles != SeededWall(43).tiles


def test_a_hand_starts_with_the_deal_and_the_dealers_draw() -> None:
    k = make(["123456789m1234z", "123456789p1234z", "123456789s1234z", "555z666z777z1m1p1s9s"],
             draws="9m", oya=0)
    start = k.events[0]
    assert start["type"] == "start_kyoku" and start["bakaze"] == "E" and start["oya"] == 0
    assert start["tehais"][0][:3] == ["1m", "2m", "3m"] and start["dora_marker"] == "8p"
    assert k.events[1] == {"type": "tsumo", "actor": 0, "pai": "9m"}
    assert k.pending() == {0}
    legal = k.legal_actions(0)
    assert Action("dahai", 0, "9m", tsumogiri=True) in legal
    assert Action("dahai", 0, "9m", tsumogiri=False) in legal  # the hand holds another 9m
    assert Action("dahai", 0, "1m", tsumogiri=True) not in legal
    assert k.illegal_reason(1, Action("dahai", 1, "1p")) is not None
    assert "not in the hand" in (k.illegal_reason(0, Action("dahai", 0, "1p")) or "")
    assert "not the drawn tile" in (
        k.illegal_reason(0, Action("dahai", 0, "1m", tsumogiri=True)) or "")
    with pytest.raises(ValueError):
        k.apply(0, Action("dahai", 0, "1p"))


# ------------------------------------------------------------------------------ kuikae

KUIKAE_HANDS = ["4m111s222s333s111z", "45067m123456p99s", "44m22233344456z",
                "777p88p777s888s67z"]


def test_chi_variants_and_suji_kuikae() -> None:
    k = make(KUIKAE_HANDS, draws="9m")
    discard(k, 0, "4m", keep=(1, 2))
    assert k.pending() == {1, 2}
    chis = [a for a in k.legal_actions(1) if a.type == "chi"]
    assert [a.consumed for a in chis] == [("5m", "6m"), ("5mr", "6m")]
    assert [a.consumed for a in k.legal_actions(2) if a.type == "pon"] == [("4m", "4m")]
    act(k, 1, "chi", "4m", 0, ("5mr", "6m"))
    act(k, 2, "none")
    assert last(k, "chi") == {"type": "chi", "actor": 1, "target": 0, "pai": "4m",
                              "consumed": ["5mr", "6m"]}
    assert k.pending() == {1}
    allowed = dahai_names(k, 1)
    assert "4m" not in allowed and "7m" not in allowed  # the called kind and its suji
    assert {"5m", "1p", "9s"} <= allowed
    assert "kuikae" in (k.illegal_reason(1, Action("dahai", 1, "7m")) or "")
    assert kinds_of(k.legal_actions(1)) == {"dahai"}


def test_pon_beats_chi() -> None:
    k = make(KUIKAE_HANDS, draws="9m")
    discard(k, 0, "4m", keep=(1, 2))
    act(k, 1, "chi", "4m", 0, ("5m", "6m"))
    act(k, 2, "pon", "4m", 0, ("4m", "4m"))
    assert last(k, "pon")["actor"] == 2 and not any(e["type"] == "chi" for e in k.events)
    assert k.pending() == {2} and len(k.hands[1]) == 13


def test_kuikae_allowed_when_the_rule_is_off() -> None:
    k = make(KUIKAE_HANDS, draws="9m", rules=RiichiRules(kuikae_forbidden=False))
    discard(k, 0, "4m", keep=(1,))
    act(k, 1, "chi", "4m", 0, ("5m", "6m"))
    assert {"4m", "7m"} <= dahai_names(k, 1)


def test_pon_kuikae_and_daiminkan_offer() -> None:
    hands = ["4m111s222s333s111z", "123456789p99s12z", "444m2223334445z", "777p8p777s888s567z"]
    k = make(hands, draws="9m")
    discard(k, 0, "4m", keep=(2,))
    assert {a.type for a in k.legal_actions(2)} == {"pon", "daiminkan", "none"}
    act(k, 2, "pon", "4m", 0, ("4m", "4m"))
    assert "4m" in [k.names[t] for t in k.hands[2]]
    assert "4m" not in dahai_names(k, 2)


# ------------------------------------------------------------------------------ furiten

# Seat 1 waits on 1p and 4p (ittsu: a yaku without riichi).
ITTSU = "23p123456789m11z"
QUIET = ["555z666z777z1s2s3s9p", ITTSU, "222z333z444z1s2s3s9p", "5s6s7s5s6s7s8s8s8s19p22s"]


def test_permanent_furiten_blocks_ron_not_tsumo() -> None:
    k = make(QUIET, draws="9s 4p 1p 9s 9s 4p")
    tsumogiri(k, 0)
    assert Action("hora", 1, "4p", 1) in k.legal_actions(1)  # a tsumo it declines
    tsumogiri(k, 1)
    assert k.is_furiten(1)
    act(k, 2, "dahai", "1p", tsumogiri=True)
    assert 1 not in k.pending()  # furiten: no ron
    pass_all(k)
    tsumogiri(k, 3)
    tsumogiri(k, 0)
    assert Action("hora", 1, "4p", 1) in k.legal_actions(1)  # tsumo is fine in furiten
    act(k, 1, "hora", "4p", 1)
    assert k.result is not None and k.result.winners == (1,)
    hora = last(k, "hora")
    assert hora["target"] == 1 and any(y == "Ittsu" for y, _ in hora["yakus"])


def test_temporary_furiten_lasts_until_the_own_discard() -> None:
    k = make(QUIET, draws="9s 9s 1p 4p 9s 7z 4p")
    tsumogiri(k, 0)
    tsumogiri(k, 1)
    act(k, 2, "dahai", "1p", tsumogiri=True)
    assert Action("hora", 1, "1p", 2) in k.legal_actions(1)
    act(k, 1, "none")  # passes a winning tile
    assert k.is_furiten(1)
    act(k, 3, "dahai", "4p", tsumogiri=True)
    assert 1 not in k.pending()
    pass_all(k)
    tsumogiri(k, 0)
    tsumogiri(k, 1)  # its own discard ends the temporary furiten
    assert not k.is_furiten(1)
    act(k, 2, "dahai", "4p", tsumogiri=True)
    assert Action("hora", 1, "4p", 2) in k.legal_actions(1)


def test_riichi_furiten_lasts_the_hand() -> None:
    k = make(QUIET, draws="9s 7p 1p 9s 9s 6z 4p 9s")
    tsumogiri(k, 0)
    act(k, 1, "reach")
    assert dahai_names(k, 1) == {"7p"}  # only a discard that keeps the hand tenpai
    act(k, 1, "dahai", "7p", tsumogiri=True)
    assert last(k, "reach_accepted")["actor"] == 1
    act(k, 2, "dahai", "1p", tsumogiri=True)
    assert Action("hora", 1, "1p", 2) in k.legal_actions(1)
    act(k, 1, "none")
    pass_all(k)
    tsumogiri(k, 3)
    tsumogiri(k, 0)
    assert k.legal_actions(1) == [Action("dahai", 1, "F", tsumogiri=True)]
    tsumogiri(k, 1)
    assert k.is_furiten(1)
    act(k, 2, "dahai", "4p", tsumogiri=True)
    assert 1 not in k.pending()


# ------------------------------------------------------------------------------ riichi


def test_riichi_needs_points_and_four_tiles_left() -> None:
    k = make(QUIET, draws="9s 7p", scores=(25000, 900, 25000, 25000))
    tsumogiri(k, 0)
    assert "reach" not in kinds_of(k.legal_actions(1))
    k = make(QUIET, draws="9s 7p", live_total=5)
    tsumogiri(k, 0)
    assert k.source.live_left() == 3 and "reach" not in kinds_of(k.legal_actions(1))
    k = make(QUIET, draws="9s 7p", live_total=6)
    tsumogiri(k, 0)
    assert "reach" in kinds_of(k.legal_actions(1))


def test_riichi_deposit_on_acceptance() -> None:
    k = make(QUIET, draws="9s 7p 9s", kyotaku=1)
    tsumogiri(k, 0)
    act(k, 1, "reach")
    assert last(k, "reach") == {"type": "reach", "actor": 1}
    assert "reach" not in kinds_of(k.legal_actions(1))
    assert "not leave the hand tenpai" in (k.illegal_reason(1, Action("dahai", 1, "2p")) or "")
    act(k, 1, "dahai", "7p", tsumogiri=True)
    assert last(k, "reach_accepted") == {"type": "reach_accepted", "actor": 1,
                                         "deltas": [0, -1000, 0, 0],
                                         "scores": [25000, 24000, 25000, 25000]}
    assert k.riichi[1] and k.kyotaku == 2 and k.ippatsu[1]
    assert types(k)[-3:] == ["dahai", "reach_accepted", "tsumo"]


def test_a_riichi_player_may_not_call() -> None:
    k = make(QUIET, draws="9s 7p 1z 9s")
    tsumogiri(k, 0)
    act(k, 1, "reach")
    tsumogiri(k, 1)
    act(k, 2, "dahai", "E", tsumogiri=True)  # seat 1 holds two E but is in riichi
    assert 1 not in k.pending() and k.actor == 3


def test_no_calls_on_the_last_discard() -> None:
    k = make(quick((0,)), draws="5p 5s 5s 5m", live_total=4)
    for seat in (0, 1, 2):
        tsumogiri(k, seat)
    act(k, 3, "dahai", "5m", tsumogiri=True)  # seat 0 could chi 5m, but it is houtei
    assert kinds_of(k.legal_actions(0)) == {"hora", "none"}
    act(k, 0, "hora", "5m", 3)
    assert k.result is not None and k.result.winners == (0,)


def test_ronned_declaration_tile_pays_no_deposit() -> None:
    hands = list(QUIET)
    hands[2] = "222z333z444z1s2s3s7p"  # tanki on 7p
    k = make(hands, draws="9s 7p", evaluate=fake_evaluate)
    tsumogiri(k, 0)
    act(k, 1, "reach")
    act(k, 1, "dahai", "7p", tsumogiri=True)
    act(k, 2, "hora", "7p", 1)
    assert "reach_accepted" not in types(k)
    assert k.result is not None and k.result.kyotaku == 0
    assert k.result.scores == (25000, 24000, 26000, 25000)  # the fake's 1000, no stick
    assert not k.riichi[1]


def test_after_riichi_only_the_drawn_tile_or_a_wait_keeping_ankan() -> None:
    hands = list(QUIET)
    hands[1] = "111234m567p88s11z"  # waits 8s, E
    hands[3] = "567s567s333p19p22s"
    k = make(hands, draws="9s 7p 9s 9s 6p 1m", rinshan="6p", dora="8p 3p")
    tsumogiri(k, 0)
    act(k, 1, "reach")
    tsumogiri(k, 1)
    for seat in (2, 3, 0):
        tsumogiri(k, seat)
    legal = k.legal_actions(1)
    assert Action("ankan", 1, consumed=("1m", "1m", "1m", "1m")) in legal
    assert [a for a in legal if a.type == "dahai"] == [Action("dahai", 1, "1m", tsumogiri=True)]
    assert "only the drawn tile" in (k.illegal_reason(1, Action("dahai", 1, "2m")) or "")
    hands[1] = "11123m567p789p11z"  # waits 1m, 4m, E: an ankan of 1m would drop E
    k = make(hands, draws="9s 7s 9s 9s 6s 1m", dora="8p 3p", ura="4s")
    tsumogiri(k, 0)
    act(k, 1, "reach")
    tsumogiri(k, 1)
    for seat in (2, 3, 0):
        tsumogiri(k, seat)
    assert kinds_of(k.legal_actions(1)) == {"dahai", "hora"}


def _ippatsu_hand(draws: str) -> RiichiKyoku:
    k = make(QUIET, draws=draws, ura="9p")
    tsumogiri(k, 0)
    tsumogiri(k, 1)  # a first discard: no double riichi later
    tsumogiri(k, 2)
    tsumogiri(k, 3)
    tsumogiri(k, 0)
    act(k, 1, "reach")
    act(k, 1, "dahai", "7p", tsumogiri=True)
    pass_all(k)
    return k


def test_ippatsu_tsumo() -> None:
    k = _ippatsu_hand("9s 7p 9s 9s 6p 7p 6p 6p 5p 4p")
    for seat in (2, 3, 0):
        tsumogiri(k, seat)
    act(k, 1, "hora", "4p", 1)
    yaku = dict(last(k, "hora")["yakus"])
    assert {"Riichi", "Ippatsu", "Menzen Tsumo", "Ittsu"} <= set(yaku)
    assert last(k, "hora")["ura_markers"] == ["9p"]


def test_a_call_ends_ippatsu() -> None:
    k = _ippatsu_hand("9s 7p 9s 9s 6p 7p 8s 5p 4p")
    act(k, 2, "dahai", "8s", tsumogiri=True)
    act(k, 3, "pon", "8s", 2, ("8s", "8s"))
    assert not any(k.ippatsu)
    discard(k, 3, "9p")
    tsumogiri(k, 0)
    act(k, 1, "hora", "4p", 1)
    yaku = dict(last(k, "hora")["yakus"])
    assert "Riichi" in yaku and "Ippatsu" not in yaku


def test_double_riichi() -> None:
    k = make(QUIET, draws="9s 7p 9s 9s 6p 4p")
    tsumogiri(k, 0)
    act(k, 1, "reach")
    act(k, 1, "dahai", "7p", tsumogiri=True)
    pass_all(k)
    for seat in (2, 3, 0):
        tsumogiri(k, seat)
    act(k, 1, "hora", "4p", 1)
    yaku = dict(last(k, "hora")["yakus"])
    assert "Double Riichi" in yaku and "Ippatsu" in yaku and "Riichi" not in yaku


# ------------------------------------------------------------------------------ multiple ron

WAIT_4P = "56p567s567s888s22s"  # waits 4p, 7p


def test_double_ron_pays_both_and_sticks_go_to_the_nearest() -> None:
    hands = [QUIET[0], ITTSU, QUIET[2], WAIT_4P]
    k = make(hands, draws="9s 9s 4p", kyotaku=2, honba=1, evaluate=fake_evaluate)
    tsumogiri(k, 0)
    tsumogiri(k, 1)
    act(k, 2, "dahai", "4p", tsumogiri=True)
    assert k.pending() == {1, 3}
    act(k, 1, "hora", "4p", 2)  # answers come in any order
    assert k.result is None
    act(k, 3, "hora", "4p", 2)
    first, second = [e for e in k.events if e["type"] == "hora"]
    # Seat 3 is the nearest after the discarder (seat 2): honba and sticks are its alone.
    assert first["actor"] == 3 and first["deltas"] == [0, 0, -1300, 3300]
    assert second["actor"] == 1 and second["deltas"] == [0, 1000, -1000, 0]
    assert second["scores"] == [25000, 26000, 22700, 28300]
    assert k.result is not None and k.result.winners == (3, 1) and k.result.kyotaku == 0
    assert not k.result.renchan


def test_atamahane_without_double_ron() -> None:
    hands = [QUIET[0], ITTSU, QUIET[2], WAIT_4P]
    k = make(hands, draws="9s 9s 4p", rules=RiichiRules(double_ron=False),
             evaluate=fake_evaluate)
    tsumogiri(k, 0)
    tsumogiri(k, 1)
    act(k, 2, "dahai", "4p", tsumogiri=True)
    act(k, 1, "hora", "4p", 2)
    act(k, 3, "hora", "4p", 2)
    assert k.result is not None and k.result.winners == (3,)


TRIPLE = [QUIET[0], ITTSU, "222z333z444z1s2s3s4p", WAIT_4P]


def test_triple_ron_is_an_abortive_draw() -> None:
    k = make(TRIPLE, draws="4p", evaluate=fake_evaluate, kyotaku=1)
    act(k, 0, "dahai", "4p", tsumogiri=True)
    for seat in (1, 2, 3):
        act(k, seat, "hora", "4p", 0)
    assert last(k, "ryukyoku") == {"type": "ryukyoku", "reason": "sanchaho",
                                   "deltas": [0, 0, 0, 0],
                                   "scores": [25000, 25000, 25000, 25000]}
    assert k.result is not None and k.result.abortive and k.result.renchan
    assert k.result.kyotaku == 1


def test_triple_ron_allowed() -> None:
    k = make(TRIPLE, draws="4p", evaluate=fake_evaluate, kyotaku=1,
             rules=RiichiRules(triple_ron_abort=False))
    act(k, 0, "dahai", "4p", tsumogiri=True)
    for seat in (3, 2, 1):
        act(k, seat, "hora", "4p", 0)
    horas = [e for e in k.events if e["type"] == "hora"]
    assert [e["actor"] for e in horas] == [1, 2, 3]
    assert horas[0]["deltas"] == [-1000, 2000, 0, 0]  # the stick to the nearest
    assert k.result is not None and k.result.scores == (22000, 27000, 26000, 26000)


# ------------------------------------------------------------------------------ kans

CHANKAN = ["55s555666777z19p", "12345678p11122z", "46s123456789m33z", "112233s77s88s99p4z"]


def test_chankan_robs_a_kakan() -> None:
    k = make(CHANKAN, draws="9s 9s 9s 5s 9s 1z 4z 0s", dora="8p 7p")
    for seat in (0, 1, 2):
        tsumogiri(k, seat)
    act(k, 3, "dahai", "5s", tsumogiri=True)
    assert Action("hora", 2, "5s", 3) in k.legal_actions(2)
    act(k, 2, "none")  # seat 2 lets it pass (furiten until its own discard)
    act(k, 0, "pon", "5s", 3, ("5s", "5s"))
    pass_all(k)
    discard(k, 0, "1p")
    for seat in (1, 2, 3):
        tsumogiri(k, seat)
    assert not k.is_furiten(2)
    kakan = Action("kakan", 0, "5sr", None, ("5s", "5s", "5s"))
    assert kakan in k.legal_actions(0)
    act(k, 0, "kakan", "5sr", None, ("5s", "5s", "5s"))
    assert last(k, "kakan") == {"type": "kakan", "actor": 0, "pai": "5sr",
                                "consumed": ["5s", "5s", "5s"]}
    assert k.pending() == {2}
    act(k, 2, "hora", "5sr", 0)
    hora = last(k, "hora")
    assert hora["target"] == 0 and "Chankan" in dict(hora["yakus"])
    assert "dora" not in types(k)
    assert sorted(k.tiles_in_play()) == k.tiles_in_play()
    assert len(set(k.tiles_in_play())) == len(k.tiles_in_play())


ANKAN = ["111m666s222z333z5z", "234567p456m88s99s", "23m456p456p777s88s",
         "9m19p19s12345677z"]


def test_ankan_may_be_robbed_only_by_kokushi() -> None:
    k = make(ANKAN, draws="1m", rinshan="9m", dora="8p 7p")
    act(k, 0, "ankan", consumed=("1m", "1m", "1m", "1m"))
    assert types(k)[-2:] == ["ankan", "dora"]
    assert k.pending() == {3}  # seat 2 waits on 1m too, but only kokushi may rob an ankan
    act(k, 3, "hora", "1m", 0)
    hora = last(k, "hora")
    assert "Kokushi Musou" in dict(hora["yakus"]) and hora["target"] == 0


def test_ankan_reveals_its_dora_at_once() -> None:
    k = make(ANKAN, draws="1m", rinshan="9m", dora="8p 7p")
    start = len(k.events)
    act(k, 0, "ankan", consumed=("1m", "1m", "1m", "1m"))
    act(k, 3, "none")
    assert types(k, start) == ["ankan", "dora", "tsumo"]
    assert k.events[start + 1] == {"type": "dora", "dora_marker": "7p"}
    assert k.dora == [k.source.dora_indicator(0), k.source.dora_indicator(1)]
    assert k.is_furiten(3)  # it let its winning tile pass


# Seat 1 holds three E and waits on 1p once it has called them.
MINKAN = ["1z123456789p2z3z4z", "111z123456789m1p", "555z666z777z9s1s2s3s", "22s33s44s66s77s88s9p"]


def test_daiminkan_dora_comes_with_the_replacement_discard() -> None:
    k = make(MINKAN, draws="9s 9m", rinshan="5m", dora="8p 7p")
    start = len(k.events)
    act(k, 0, "dahai", "E")
    assert {a.type for a in k.legal_actions(1)} == {"pon", "daiminkan", "none"}
    act(k, 1, "daiminkan", "E", 0, ("E", "E", "E"))
    assert types(k, start) == ["dahai", "daiminkan", "tsumo"]
    act(k, 1, "dahai", "5m", tsumogiri=True)
    assert types(k, start)[-3:] == ["dora", "dahai", "tsumo"]
    assert len(k.dora) == 2


def test_rinshan_win_after_daiminkan_reveals_no_dora() -> None:
    k = make(MINKAN, draws="9s", rinshan="1p", dora="8p 7p")
    act(k, 0, "dahai", "E")
    act(k, 1, "daiminkan", "E", 0, ("E", "E", "E"))
    act(k, 1, "hora", "1p", 1)
    assert "dora" not in types(k)
    assert "Rinshan Kaihou" in dict(last(k, "hora")["yakus"])


SUUKAN = ["1111m2222m5z6z7z2s3s", "3333p4444p5z6z7z2s3s", "111z222z1s9s3s4s555p",
          "5s6s7s8s5s6s7s8s9p9p9p1s1s"]


def test_four_kans_by_two_players_abort_after_the_discard() -> None:
    k = make(SUUKAN, draws="9m 9m", rinshan="8m 8m 8m 8m", dora="1z 2z 3z 4z 4z")
    act(k, 0, "ankan", consumed=("1m",) * 4)
    act(k, 0, "ankan", consumed=("2m",) * 4)
    discard(k, 0, "9m")
    act(k, 1, "ankan", consumed=("3p",) * 4)
    act(k, 1, "ankan", consumed=("4p",) * 4)
    assert "ankan" not in kinds_of(k.legal_actions(1))
    act(k, 1, "dahai", "8m", tsumogiri=True)
    pass_all(k)
    assert last(k, "ryukyoku")["reason"] == "sukaikan"
    assert k.result is not None and k.result.abortive and k.result.renchan


def test_four_kans_by_one_player_go_on_and_no_fifth() -> None:
    hands = ["1111m2222m3333m1z", "999s123p567p789p1z", "555z666z777z1s2s3s4s",
             "5s6s7s8s5s6s7s8s3p3p3p1s1s"]
    k = make(hands, draws="4p 2z", rinshan="4p 4p 4p 9s", dora="1z 2z 3z 4z 4z")
    for kind in ("1m", "2m", "3m", "4p"):
        act(k, 0, "ankan", consumed=(kind,) * 4)
    assert len(k.kan_owners) == 4
    act(k, 0, "dahai", "9s", tsumogiri=True)
    assert {a.type for a in k.legal_actions(1)} == {"pon", "none"}  # no fifth kan
    act(k, 1, "none")
    assert k.result is None and k.actor == 1


def test_kakan_dora_comes_with_the_replacement_discard() -> None:
    k = make(CHANKAN, draws="9s 9s 9s 5s 9s 1z 4z 0s 7m", rinshan="6m", dora="8p 7p")
    for seat in (0, 1, 2):
        tsumogiri(k, seat)
    act(k, 3, "dahai", "5s", tsumogiri=True)
    act(k, 2, "none")
    act(k, 0, "pon", "5s", 3, ("5s", "5s"))
    pass_all(k)
    discard(k, 0, "1p")
    for seat in (1, 2, 3):
        tsumogiri(k, seat)
    start = len(k.events)
    act(k, 0, "kakan", "5sr", None, ("5s", "5s", "5s"))
    act(k, 2, "none")
    assert types(k, start) == ["kakan", "tsumo"] and k.rinshan
    assert k.melds[0][0].type.value == "kakan"
    act(k, 0, "dahai", "6m", tsumogiri=True)
    assert types(k, start)[2:4] == ["dora", "dahai"]


# ------------------------------------------------------------------------------ abortive draws


def test_suufon_renda() -> None:
    hands = ["1z123456789m123p", "1z123456789p123s", "1z123456789s445m", "1222333444566z"]
    k = make(hands, draws="6z 6z 7z 7z")
    for seat in range(4):
        assert k.result is None
        discard(k, seat, "E")
    assert last(k, "ryukyoku")["reason"] == "sufonrenta"
    assert k.result is not None and k.result.abortive and k.result.renchan


def test_suufon_renda_needs_the_same_wind() -> None:
    hands = ["1z123456789m123p", "1z123456789p123s", "2z123456789s445m", "1333444z556677z"]
    k = make(hands, draws="6z 6z 7z 7z 7s")
    for seat, wind in enumerate("EESE"):
        discard(k, seat, wind)
    assert k.result is None


KYUUSHU = ["19m19p19s123z2345m", "19m19p19s12z23456p", "555z666z777z1s2s3s4s",
           "5s6s7s8s5s6s7s8s6p6p6p4z4z"]


def test_kyuushu_kyuuhai() -> None:
    k = make(KYUUSHU, draws="5p 8s")
    assert Action("ryukyoku", 0) in k.legal_actions(0)
    tsumogiri(k, 0)
    assert Action("ryukyoku", 1) not in k.legal_actions(1)  # eight kinds only
    k = make(KYUUSHU, draws="5p")
    act(k, 0, "ryukyoku")
    assert last(k, "ryukyoku") == {"type": "ryukyoku", "reason": "kyushukyuhai",
                                   "deltas": [0, 0, 0, 0],
                                   "scores": [25000, 25000, 25000, 25000]}
    assert types(k)[-1] == "end_kyoku"
    assert k.result is not None and k.result.abortive and k.result.renchan


def test_kyuushu_only_on_the_first_uninterrupted_draw() -> None:
    hands = list(KYUUSHU)
    hands[1] = "19m19p19s123z23p45s"  # nine kinds
    hands[3] = "5s6s7s8s5s6s7s8s6p6p1z4z4z"
    k = make(hands, draws="4z 6m 6m")
    act(k, 0, "dahai", "N", tsumogiri=True)
    act(k, 3, "pon", "N", 0, ("N", "N"))
    pass_all(k)
    discard(k, 3, "E")
    tsumogiri(k, 0)
    assert k.actor == 1 and "ryukyoku" not in kinds_of(k.legal_actions(1))  # after a call
    k = make(hands, draws="4z 6m")
    act(k, 0, "dahai", "N", tsumogiri=True)
    pass_all(k)
    assert Action("ryukyoku", 1) in k.legal_actions(1)


# Four tenpai hands in four separate suits (nobody can call another's tiles).
TENPAI = ["1112345678999m", "1112345678999p", "1112345678999s", "1112223334445z"]
NOTEN = ["1223444677999m", "1233445668899p", "1223333447788s", "1112233445566z"]


def test_suucha_riichi() -> None:
    k = make(TENPAI, draws="6z 7z 6z 7z")
    for seat in range(4):
        act(k, seat, "reach")
        act(k, seat, "dahai", k.names[k.drawn or 0], tsumogiri=True)
        pass_all(k)
    assert [e["type"] for e in k.events[-3:]] == ["reach_accepted", "ryukyoku", "end_kyoku"]
    assert last(k, "ryukyoku")["reason"] == "suchareach"
    assert k.result is not None and k.result.kyotaku == 4 and k.result.renchan
    assert k.result.scores == (24000, 24000, 24000, 24000)


# ------------------------------------------------------------------------------ exhaustive draw


def quick(tenpai: Iterable[int], junk: str = "5m 5p 5s 5m") -> list[str]:
    """Hands by seat: tenpai or noten, each in its own suit (or the honors)."""
    ready = set(tenpai)
    return [TENPAI[s] if s in ready else NOTEN[s] for s in range(4)]


def play_out(k: RiichiKyoku | RiichiGame) -> None:
    """Everyone discards what it draws and passes, until the hand is over."""
    kyoku = k.kyoku if isinstance(k, RiichiGame) else k
    assert kyoku is not None
    while kyoku.result is None:
        seat = min(kyoku.pending())
        legal = kyoku.legal_actions(seat)
        choice = next(a for a in legal if a.type == "none" or (a.type == "dahai" and a.tsumogiri))
        k.apply(seat, choice)


@pytest.mark.parametrize(("ready", "deltas"), [
    ((), [0, 0, 0, 0]),
    ((1,), [-1000, 3000, -1000, -1000]),
    ((0, 3), [1500, -1500, -1500, 1500]),
    ((0, 1, 2), [1000, 1000, 1000, -3000]),
    ((0, 1, 2, 3), [0, 0, 0, 0]),
])
def test_noten_bappu(ready: tuple[int, ...], deltas: list[int]) -> None:
    k = make(quick(ready), draws="5m 5p 5s 5m", live_total=4, kyotaku=1)
    play_out(k)
    event = last(k, "ryukyoku")
    assert event["reason"] == "fanpai" and event["deltas"] == deltas
    assert event["tenpais"] == [s in ready for s in range(4)]
    assert k.result is not None and k.result.renchan == (0 in ready)
    assert k.result.kyotaku == 1 and not k.result.abortive


def test_nagashi_mangan_replaces_the_tenpai_payments() -> None:
    k = make(quick((0,)), draws="5m 5p 9s 5m", live_total=4, honba=2, kyotaku=1)
    play_out(k)
    event = last(k, "ryukyoku")
    assert event["reason"] == "nagashimangan"
    assert event["deltas"] == [-4000, -2000, 8000, -2000]  # a mangan tsumo, no honba
    assert k.result is not None and k.result.renchan and k.result.kyotaku == 1
    k = make(quick((0,)), draws="5m 5p 9s 5m", live_total=4,
             rules=RiichiRules(nagashi_mangan=False))
    play_out(k)
    assert last(k, "ryukyoku")["deltas"] == [3000, -1000, -1000, -1000]


def test_nagashi_mangan_lost_by_the_called_discarder_not_by_the_caller() -> None:
    hands = quick(())  # seat 3 holds two P: a pon on seat 2's P
    k = make(hands, draws="5m 5p 5z 5m 5s", live_total=5)
    tsumogiri(k, 0)
    tsumogiri(k, 1)
    act(k, 2, "dahai", "P", tsumogiri=True)
    act(k, 3, "pon", "P", 2, ("P", "P"))
    pass_all(k)
    discard(k, 3, "F")
    play_out(k)
    # Seat 2 discarded only P but it was called; seat 3 called and discarded only F.
    assert last(k, "ryukyoku")["reason"] == "nagashimangan"
    assert last(k, "ryukyoku")["deltas"] == [-4000, -2000, -2000, 8000]


# ------------------------------------------------------------------------------ the game


def next_hand(game: RiichiGame, ready: Iterable[int], junk: str = "5m 5p 5s 5m",
              live_total: int = 4, **position: Any) -> RiichiKyoku:
    """Start the game's next hand at its position (or ``position``'s overrides) from
    quick hands: ``ready`` tenpai, the others noten."""
    p = game.position()
    where = {"oya": p.oya, "bakaze": p.bakaze, "kyoku": p.kyoku, "honba": p.honba,
             "kyotaku": p.kyotaku, "scores": p.scores, **position}
    deal, wall = deal_and_wall(quick(ready), draws=junk, live_total=live_total, **where)
    return game.start_kyoku(deal, wall)


def where(game: RiichiGame) -> tuple[int, int, int, int]:
    p = game.position()
    return p.bakaze, p.kyoku, p.oya, p.honba


def test_renchan_and_honba() -> None:
    game = RiichiGame(seed=None)
    next_hand(game, {0}, kyotaku=1)
    play_out(game)
    assert where(game) == (0, 1, 0, 1)  # dealer tenpai: E1 again, honba 1
    assert game.position().kyotaku == 1 and game.position().scores == (28000, 24000, 24000, 24000)
    next_hand(game, {1})
    play_out(game)
    assert where(game) == (0, 2, 1, 2)  # dealer noten: E2, honba still counts up
    k = next_hand(game, {2}, junk="5p 5s")
    tsumogiri(k, 1)
    act(game, 2, "hora", "5s", 2)  # a non-dealer's tsumo: the dealer passes, honba 0
    assert where(game) == (0, 3, 2, 0) and game.position().kyotaku == 0
    hora = last(game, "hora")
    # Chuuren poutou and chiihou (a first draw): two yakuman, honba 2, the stick.
    assert hora["deltas"][2] == 64000 + 600 + 1000 and hora["fan"] == 26
    assert [r.reason for r in game.results] == ["fanpai", "fanpai", "hora"]


def test_an_abortive_draw_repeats_the_dealer_with_one_more_honba() -> None:
    game = RiichiGame(seed=None)
    deal, wall = deal_and_wall(KYUUSHU, draws="5p", oya=0, honba=3)
    game.start_kyoku(deal, wall)
    act(game, 0, "ryukyoku")
    assert where(game) == (0, 1, 0, 4)
    assert [e["type"] for e in game.events][-2:] == ["ryukyoku", "end_kyoku"]


def test_busting_ends_the_game() -> None:
    game = RiichiGame(seed=None)
    next_hand(game, {1}, scores=(500, 40000, 30000, 29500))
    play_out(game)
    assert game.over and game.events[-1]["type"] == "end_game"
    assert game.position().scores == (-500, 43000, 29000, 28500)
    assert [f.rank for f in game.final_scores()] == [4, 1, 2, 3]
    game = RiichiGame(RiichiRules(busting=False), seed=None)
    next_hand(game, {1}, scores=(500, 40000, 30000, 29500))
    play_out(game)
    assert not game.over and where(game) == (0, 2, 1, 1)


def test_agari_yame_in_the_last_hand() -> None:
    south4 = {"bakaze": 1, "kyoku": 4, "oya": 3}
    game = RiichiGame(seed=None)
    next_hand(game, {3}, scores=(20000, 20000, 20000, 40000), **south4)
    play_out(game)
    assert game.over  # the dealer is first after a tenpai draw: the game stops
    game = RiichiGame(seed=None)
    next_hand(game, {3}, scores=(40000, 20000, 20000, 20000), **south4)
    play_out(game)
    assert not game.over and where(game) == (1, 4, 3, 1)  # not first: play on
    game = RiichiGame(RiichiRules(agari_yame=False), seed=None)
    next_hand(game, {3}, scores=(20000, 20000, 20000, 40000), **south4)
    play_out(game)
    assert not game.over and where(game) == (1, 4, 3, 1)


def test_the_game_ends_after_south_4_when_someone_has_30000() -> None:
    game = RiichiGame(seed=None)
    next_hand(game, (), scores=(31000, 23000, 23000, 23000), bakaze=1, kyoku=4, oya=3)
    play_out(game)
    assert game.over


def test_west_extension_sudden_death() -> None:
    game = RiichiGame(seed=None)
    next_hand(game, (), bakaze=1, kyoku=4, oya=3)
    play_out(game)
    assert not game.over and where(game) == (2, 1, 0, 1)  # nobody has 30000: West 1
    next_hand(game, {0})
    play_out(game)
    assert not game.over and where(game) == (2, 1, 0, 2)  # 28000: still nobody
    next_hand(game, {0})
    play_out(game)
    assert game.over and game.position().scores[0] == 31000  # ends despite the renchan


def test_west_extension_ends_on_30000_and_at_west_4() -> None:
    game = RiichiGame(seed=None)
    next_hand(game, {1}, scores=(25000, 28000, 25000, 22000), bakaze=2, kyoku=1, oya=0)
    play_out(game)
    assert game.over  # seat 1 reached 30000 in the extra wind
    game = RiichiGame(seed=None)
    next_hand(game, (), bakaze=2, kyoku=4, oya=3)
    play_out(game)
    assert game.over  # West 4 is the last hand there is
    game = RiichiGame(RiichiRules(west_extension=False), seed=None)
    next_hand(game, (), bakaze=1, kyoku=4, oya=3)
    play_out(game)
    assert game.over


def test_an_east_game_extends_into_south() -> None:
    rules = RiichiRules(game_length="east")
    game = RiichiGame(rules, seed=None)
    next_hand(game, (), bakaze=0, kyoku=4, oya=3)
    play_out(game)
    assert not game.over and where(game) == (1, 1, 0, 1)
    game = RiichiGame(rules, seed=None)
    next_hand(game, (), scores=(31000, 23000, 23000, 23000), bakaze=0, kyoku=4, oya=3)
    play_out(game)
    assert game.over


def test_final_scores_with_uma_and_oka() -> None:
    last_hand = {"bakaze": 1, "kyoku": 4, "oya": 3, "kyotaku": 1}
    scores = (30000, 30000, 20000, 19000)  # and one stick on the table
    game = RiichiGame(seed=None)
    next_hand(game, (), scores=scores, **last_hand)
    play_out(game)
    finals = game.final_scores()
    # A tie ranks by seat order from the first dealer; the stick goes to first place.
    assert [(f.rank, f.points) for f in finals] == [(1, 31000), (2, 30000), (3, 20000),
                                                    (4, 19000)]
    assert [f.score for f in finals] == [41.0, 10.0, -20.0, -31.0]
    assert game.events[-1] == {"type": "end_game", "scores": [31000, 30000, 20000, 19000]}
    game = RiichiGame(RiichiRules.mahjong_soul(), seed=None)
    next_hand(game, (), scores=scores, **last_hand)
    play_out(game)
    assert [f.score for f in game.final_scores()] == [21.0, 10.0, -10.0, -21.0]
    game = RiichiGame(RiichiRules(first_place_ties="split"), seed=None)
    next_hand(game, (), scores=scores, **last_hand)
    play_out(game)
    assert [(f.rank, f.score) for f in game.final_scores()] == [(1, 26.0), (1, 25.0),
                                                                 (3, -20.0), (4, -31.0)]
    with pytest.raises(ValueError):
        RiichiGame(seed=None).final_scores()


PAO = ["5z7z1s4s7s2p5p8p3m6m9m1z2z", "55z66z77z111m2m99p8s", "6z2s5s8s3p6p9p4m7m3z4z1z2z",
       "3s6s9s1p4p7p5m8m3z4z2z1z9s"]


def _pao_hand(draws: str, rules: RiichiRules | None = None, honba: int = 0,
              kyotaku: int = 0) -> RiichiKyoku:
    """Seat 1 pons haku from seat 0, hatsu from seat 2 and then chun from seat 0 (who
    becomes liable), and waits on 2m (tanki) or 3m."""
    k = make(PAO, draws=draws, rules=rules, honba=honba, kyotaku=kyotaku)
    for dragon, by in (("P", 0), ("F", 2), ("C", 0)):
        if dragon == "C":
            tsumogiri(k, 2)
            tsumogiri(k, 3)
        act(k, by, "dahai", dragon)
        act(k, 1, "pon", dragon, by, (dragon, dragon))
        pass_all(k)
        discard(k, 1, {"P": "9p", "F": "9p", "C": "8s"}[dragon])
    return k


def test_pao_daisangen_tsumo_is_paid_by_the_liable_seat() -> None:
    # draws: seat 0 (haku), seat 2 (hatsu), seats 2 and 3, seat 0 (chun), seats 2, 3, 0, 1.
    k = _pao_hand("9s 1p 1p 9s 5s 5s 6s 6s 2m", honba=1, kyotaku=1)
    assert k.pao[1] == (0, "Daisangen")
    for seat in (2, 3, 0):
        tsumogiri(k, seat)
    act(k, 1, "hora", "2m", 1)
    hora = last(k, "hora")
    assert ["Daisangen", 13] in hora["yakus"] and hora["pao"] == 0
    assert hora["deltas"] == [-32300, 33300, 0, 0]


def test_pao_daisangen_ron_splits_with_the_discarder() -> None:
    k = _pao_hand("9s 1p 1p 9s 5s 5s 2m", honba=2)
    tsumogiri(k, 2)
    act(k, 3, "dahai", "2m", tsumogiri=True)
    act(k, 1, "hora", "2m", 3)
    hora = last(k, "hora")
    assert hora["deltas"] == [-16600, 32600, 0, -16000] and hora["pao"] == 0


def test_pao_liable_seat_dealing_in_pays_as_usual_and_pao_can_be_off() -> None:
    k = _pao_hand("9s 1p 1p 9s 5s 5s 6s 2m", honba=1)
    for seat in (2, 3):
        tsumogiri(k, seat)
    act(k, 0, "dahai", "2m", tsumogiri=True)
    act(k, 1, "hora", "2m", 0)
    assert last(k, "hora")["deltas"] == [-32300, 32300, 0, 0]
    k = _pao_hand("9s 1p 1p 9s 5s 5s 2m", rules=RiichiRules(pao=False))
    assert k.pao[1] is None
    tsumogiri(k, 2)
    act(k, 3, "dahai", "2m", tsumogiri=True)
    act(k, 1, "hora", "2m", 3)
    hora = last(k, "hora")
    assert hora["deltas"] == [0, 32000, 0, -32000] and "pao" not in hora


def test_pao_payments_with_a_second_yakuman() -> None:
    """Only the liable yakuman moves to the liable seat; a second one is paid as usual."""
    value = HandValue(26, 0, (("Daisangen", 13), ("Tsuu Iisou", 13)), 0, 32000, 16000,
                      "2x yakuman", True, False, honba=1, kyotaku=0)
    assert value.pao_deltas(1, 0, None, 2, 13) == (-16000, 64300, -40300, -8000)
    ron = HandValue(26, 0, (("Daisangen", 13), ("Tsuu Iisou", 13)), 64000, 0, 0,
                    "2x yakuman", False, False)
    assert ron.pao_deltas(1, 0, 3, 2, 13, honba=1) == (0, 64300, -16300, -48000)
    with pytest.raises(ValueError):
        ron.pao_deltas(1, 0, 3, 1, 13)


def test_presets() -> None:
    assert RiichiRules.tenhou() == RiichiRules()
    soul = RiichiRules.mahjong_soul()
    assert soul.uma == (15, 5, -5, -15) and soul.return_points == 25000 and soul.target == 30000
    assert not soul.triple_ron_abort and soul.pao
    assert soul.scoring_rules() == ScoringRules(double_yakuman=True, kiriage=False)
    assert soul.scoring_rules() == ScoringRules.mahjong_soul()
    assert RiichiRules().scoring_rules() == ScoringRules.tenhou()
    assert RiichiRules().target == 30000
    with pytest.raises(ValueError):
        RiichiRules(game_length="north")


# ------------------------------------------------------------------------------ random play

NOT_YAKU = {"Dora", "Aka Dora", "Ura Dora"}


def _choose(game: RiichiGame, seat: int, rng: random.Random, bias: float) -> Action:
    legal = game.legal_actions(seat)
    special = [a for a in legal if a.type not in ("dahai", "none")]
    if special and rng.random() < bias:
        return rng.choice(special)
    return rng.choice(legal)


def _check_events(events: Sequence[dict[str, Any]], start: int) -> None:
    """Replay the events on name counts: every discard and call from the hand, every win a
    complete hand with a yaku, the points and sticks conserved."""
    hands: list[Counter[str]] = []
    for e in events:
        kind = e["type"]
        actor = e.get("actor", 0)
        if kind == "start_kyoku":
            hands = [Counter(h) for h in e["tehais"]]
            assert sum(e["scores"]) + 1000 * e["kyotaku"] == 4 * start
        elif kind == "tsumo":
            hands[actor][e["pai"]] += 1
        elif kind in ("dahai", "kakan"):
            assert hands[actor][e["pai"]] > 0, e
            hands[actor][e["pai"]] -= 1
        elif kind in ("chi", "pon", "daiminkan", "ankan"):
            for name in e["consumed"]:
                assert hands[actor][name] > 0, e
                hands[actor][name] -= 1
        elif kind == "hora":
            concealed = Counter(hands[actor])
            if e["target"] != actor:
                concealed[e["pai"]] += 1
            counts = [0] * 34
            for name, n in concealed.items():
                counts[parse_mjai(name)[0]] += n
            assert shape.is_agari(counts), e
            assert {name for name, _ in e["yakus"]} - NOT_YAKU, e
            assert sorted(e["hora_tehais"] + [e["pai"]]) == sorted(concealed.elements())
        elif kind == "end_game":
            assert sum(e["scores"]) == 4 * start


def _play(seed: int, choices: int, bias: float, rules: RiichiRules) -> RiichiGame:
    rng = random.Random(choices)
    game = RiichiGame(rules, seed=seed)
    kyoku = game.kyoku
    while not game.over:
        for seat in sorted(game.pending()):
            action = _choose(game, seat, rng, bias)
            assert game.illegal_reason(seat, action) is None
            assert action_from_mjai(action_to_mjai(action), seat) == action
            game.apply(seat, action)
            assert kyoku is not None
            tiles = kyoku.tiles_in_play()
            assert len(set(tiles)) == len(tiles)
            wall = kyoku.source
            assert isinstance(wall, SeededWall)
            assert len(tiles) == 52 + 70 - wall.live_left()
            if kyoku.result is not None:
                result = kyoku.result
                assert sum(result.scores) + 1000 * result.kyotaku == 4 * rules.start_points
                kyoku = game.kyoku
                break
    return game


@settings(max_examples=12, deadline=10_000)
@example(seed=1453, choices=1204, bias=0.9, east=False, double_ron=False, kuikae=True)
@given(seed=st.integers(0, 2**64 - 1), choices=st.integers(0, 2**32),
       bias=st.sampled_from([0.0, 0.3, 0.9]),
       east=st.booleans(), double_ron=st.booleans(), kuikae=st.booleans())
def test_random_play_keeps_the_invariants(seed: int, choices: int, bias: float, east: bool,
                                          double_ron: bool, kuikae: bool) -> None:
    rules = RiichiRules(game_length="east" if east else "south", double_ron=double_ron,
                        kuikae_forbidden=kuikae)
    game = _play(seed, choices, bias, rules)
    assert game.events[-1]["type"] == "end_game"
    _check_events(game.events, rules.start_points)
    finals = game.final_scores()
    assert sorted(f.rank for f in finals) == [1, 2, 3, 4]
    assert sum(f.points for f in finals) == 4 * rules.start_points
    assert abs(sum(f.score for f in finals)) < 1e-6


def _state(thing: object) -> dict[str, Any]:
    """An object's attributes: its ``__dict__``, or (compiled with mypyc) its data
    attributes."""
    if hasattr(thing, "__dict__"):
        return dict(vars(thing))
    out = {}
    for name in dir(thing):
        value = getattr(thing, name, None)
        if not name.startswith("__") and not callable(value):
            out[name] = value
    return out


def test_random_play_is_deterministic_and_clones_are_independent() -> None:
    first = _play(7, 11, 0.5, RiichiRules())
    second = _play(7, 11, 0.5, RiichiRules())
    assert first.events == second.events
    game = RiichiGame(seed=3)
    for _ in range(30):
        seat = min(game.pending())
        game.apply(seat, game.legal_actions(seat)[0])
    copy = game.clone()
    # Every attribute is copied (equal, and the mutable ones not shared), game and hand.
    assert game.kyoku is not None and copy.kyoku is not None
    for original, twin in ((game, copy), (game.kyoku, copy.kyoku),
                           (game.kyoku.source, copy.kyoku.source)):
        assert _state(twin).keys() == _state(original).keys()
        for name, value in _state(original).items():
            if (name, original) in (("kyoku", game), ("source", game.kyoku)):  # cloned too
                assert getattr(twin, name) is not value
                continue
            assert getattr(twin, name) == value, name
            if isinstance(value, (list, set, dict)) and name != "_self_cache":
                assert getattr(twin, name) is not value, name
    before = list(game.events)
    seat = min(copy.pending())
    copy.apply(seat, copy.legal_actions(seat)[-1])
    assert game.events == before and copy.events != before
    assert game.kyoku is not None and copy.kyoku is not None
    assert game.kyoku.hands != copy.kyoku.hands or game.kyoku.phase != copy.kyoku.phase
    seat = min(game.pending())
    game.apply(seat, game.legal_actions(seat)[-1])
    assert game.events == copy.events


def _basic_points(fan: int, fu: int) -> int:
    """The basic points of a hand, from the scoring table (no rounding up to mangan)."""
    for least, points in ((13, 8000), (11, 6000), (8, 4000), (6, 3000), (5, 2000)):
        if fan >= least:
            return points
    return min(fu * 2 ** (fan + 2), 2000)


def _check_payments(events: Sequence[dict[str, Any]]) -> tuple[int, int]:
    """Every win paid as the scoring table says for its fan and fu, its fan the sum of its
    yaku, honba and riichi sticks to the winner; the wins' count by (tsumo, ron)."""
    counts = [0, 0]
    start: dict[str, Any] = {}
    sticks = 0
    for e in events:
        if e["type"] == "start_kyoku":
            start, sticks = e, e["kyotaku"]
        elif e["type"] == "reach_accepted":
            sticks += 1
        elif e["type"] == "hora":
            winner, oya, honba = e["actor"], start["oya"], start["honba"]
            assert e["fan"] == sum(han for _, han in e["yakus"]), e
            basic = _basic_points(e["fan"], e["fu"])
            pays = [0] * 4
            if e["target"] == winner:  # tsumo: the dealer pays double
                for seat in range(4):
                    if seat != winner:
                        share = 2 * basic if oya in (seat, winner) else basic
                        pays[seat] = -(-share // 100) * 100 + 100 * honba
            else:
                pays[e["target"]] = -(-(6 if winner == oya else 4) * basic // 100) * 100 \
                    + 300 * honba
            assert e["hora_points"] == sum(pays) - 300 * honba, e
            expected = [-pay for pay in pays]
            expected[winner] = sum(pays) + 1000 * sticks
            assert e["deltas"] == expected, (e, start)
            counts[e["target"] != winner] += 1
            sticks = 0
    return counts[0], counts[1]


def test_a_real_win_is_scored_with_the_real_evaluator() -> None:
    tsumo = ron = 0
    for seed in range(40):
        rng = random.Random(seed)
        game = RiichiGame(RiichiRules(game_length="east"), seed=seed)
        while not game.over:
            seat = min(game.pending())
            legal = game.legal_actions(seat)
            pick = next((a for a in legal if a.type in ("hora", "reach")), None)
            game.apply(seat, pick or rng.choice(legal))
        _check_events(game.events, 25000)
        by_tsumo, by_ron = _check_payments(game.events)
        tsumo, ron = tsumo + by_tsumo, ron + by_ron
    # these 40 seeded games have 7 wins (1 to 9 fan, dealer and not): both ways checked
    assert (tsumo, ron) == (3, 4)


def test_a_call_leaving_no_legal_discard_is_not_offered() -> None:
    hands = ["4z9p1s4m1234567p23z", "44z99p11s5677m23z8p", "222s333s444s555s6s",
             "555z666z777z1133m"]
    junk = "9m 9m 9m 9m 8m 8m 8m 8m 2m 2m 2m"
    for forbidden in (True, False):
        k = make(hands, draws=junk, rules=RiichiRules(kuikae_forbidden=forbidden))
        for called, after in (("N", "S"), ("9p", "W"), ("1s", "8p")):
            discard(k, 0, called, keep=(1,))
            act(k, 1, "pon", called, 0, (called, called))
            pass_all(k)
            discard(k, 1, after)
            tsumogiri(k, 2)
            tsumogiri(k, 3)
        act(k, 0, "dahai", "4m")
        # After a chi of 4m with 5m 6m only 7m 7m would remain: suji kuikae, no discard.
        chi = any(a.type == "chi" for a in k.legal_actions(1))
        assert chi is not forbidden


def test_mjai_details_and_reasons() -> None:
    k = make(KUIKAE_HANDS, draws="9m 9s")
    # A dahai without its tsumogiri flag is whichever is legal.
    loose = action_from_mjai({"type": "dahai", "actor": 0, "pai": "9m"})
    assert k.illegal_reason(0, loose) is None
    assert k.illegal_reason(1, Action("dahai", 0, "9m")) is not None  # actor mismatch
    assert "not possible now" in (k.illegal_reason(0, Action("pon", 0, "9m", 1, ("9m", "9m")))
                                  or "")
    assert "tsumogiri" in (k.illegal_reason(0, Action("dahai", 0, "9m", tsumogiri=False)) or "")
    copy = k.clone()
    k.apply(0, loose)
    assert last(k, "dahai") == {"type": "dahai", "actor": 0, "pai": "9m", "tsumogiri": True}
    assert copy.phase == "tsumo" and copy.events[-1]["type"] == "tsumo"
    k = make(KUIKAE_HANDS, draws="9m")
    discard(k, 0, "4m", keep=(1, 2))
    act(k, 1, "none")
    assert "already answered" in (k.illegal_reason(1, Action("none", 1)) or "")
    assert k.pending() == {2}
    game = RiichiGame(seed=5)
    assert game.scores == [25000] * 4 and game.position().scores == (25000,) * 4
    with pytest.raises(ValueError):
        game.start_kyoku()  # a hand is being played
    assert RiichiGame(seed=None).illegal_reason(0, Action("none", 0)) == "no hand is being played"
    with pytest.raises(ValueError):
        RiichiGame(seed=None).start_kyoku()


def test_final_rounding() -> None:
    scores = (20400, 35000, 10500, 34100)  # Tenhou's owari: -20.0 45.0 -39.0 14.0
    game = RiichiGame(seed=None)
    next_hand(game, (), scores=scores, bakaze=1, kyoku=4, oya=3)
    play_out(game)
    assert [f.score for f in game.final_scores()] == [-20.0, 45.0, -39.0, 14.0]
    game = RiichiGame(RiichiRules(final_rounding="none"), seed=None)
    next_hand(game, (), scores=scores, bakaze=1, kyoku=4, oya=3)
    play_out(game)
    assert [f.score for f in game.final_scores()] == [-19.6, 45.0, -39.5, 14.1]


# ------------------------------------------------------------------------------ real games

LOGS = sorted((Path(__file__).resolve().parents[2] / "data" / "riichi").glob("*.mjlog"))


def _all(path: Path) -> Iterator[Any]:
    """The records of an mjlog (read with the log reader, imported here only)."""
    from referee.games.riichi.mjlog import iter_mjlog

    yield from iter_mjlog(path)


@pytest.mark.parametrize("path", LOGS, ids=[p.name for p in LOGS])
def test_real_tenhou_games_replay_exactly(path: Path) -> None:
    """Each hand of a real Tenhou game, dealt from the log's tiles and played with the log's
    actions, gives the very same events, score changes, positions and final results: the
    log replay (:func:`referee.games.riichi.replay.verify_file`) checks every event, the
    position between hands and the final points and results (``owari``)."""
    from referee.games.riichi.replay import verify_file

    report = verify_file(path)
    records = list(_all(path))
    owari = [r.owari for r in records if r.owari][-1]
    assert report.ended and report.final is not None
    assert report.kyoku == sum(r.event.type == "start_kyoku" for r in records)
    assert report.wins == sum(r.event.type == "hora" for r in records)
    assert report.scores == tuple(owari.scores)
    assert [f.score for f in report.final] == list(owari.results)


def test_a_game_started_from_any_hand_knows_its_first_dealer() -> None:
    """South 2 dealt by seat 3: seat 2 dealt East 1 (ties rank from the first dealer)."""
    deal, wall = deal_and_wall(QUIET, draws="9s", bakaze=1, kyoku=2, oya=3)
    game = RiichiGame(RiichiRules(), seed=None)
    game.start_kyoku(deal, wall)
    assert game.first_oya == 2


def test_a_pao_hand_verifies_as_a_log_and_a_wrong_pao_is_named() -> None:
    from referee.games.riichi.replay import ReplayError, verify_log

    k = _pao_hand("9s 1p 1p 9s 5s 5s 2m", honba=2)
    tsumogiri(k, 2)
    act(k, 3, "dahai", "2m", tsumogiri=True)
    act(k, 1, "hora", "2m", 3)
    events = [dict(e) for e in k.events]
    assert verify_log(events, RiichiRules()).wins == 1
    hora = next(e for e in events if e["type"] == "hora")
    hora["pao"] = 2
    with pytest.raises(ReplayError, match="pao is 2 in the log, 0 in the engine"):
        verify_log(events, RiichiRules())


def test_rules_is_the_public_face_of_the_engine() -> None:
    import referee.games.riichi.rules as face
    from publicface import check_public_face

    check_public_face(face, {
        "SEATS", "WIND_NAMES", "Action", "Deal", "Evaluator", "FinalScore", "KyokuResult",
        "Position", "RiichiGame", "RiichiKyoku", "RiichiRules", "ScriptedWall", "SeededWall",
        "TileSource", "action_from_mjai", "action_to_mjai", "hand_seed"})
