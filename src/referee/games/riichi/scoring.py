"""Riichi hand scoring: yaku, han, fu, points and score changes of a win.

A thin, typed layer over the ``mahjong`` package (``HandCalculator.estimate_hand_value``),
which does all the yaku, fu and point work. This module converts the referee's tiles and
melds to the package's, maps the rule options (:class:`ScoringRules`, Tenhou ranked rules by
default) onto the package's ``OptionalRules``, validates the input and turns the result into
a frozen :class:`HandValue` whose :meth:`HandValue.deltas` gives the four seats' score
changes, honba and riichi sticks included. Pure: no I/O, no state.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Final

from mahjong.constants import EAST
from mahjong.hand_calculating.hand import HandCalculator
from mahjong.hand_calculating.hand_config import HandConfig, HandConstants, OptionalRules
from mahjong.meld import Meld as PkgMeld

from referee.games.riichi.melds import Meld, MeldType
from referee.games.riichi.tiles import TILES, kind_of

__all__ = ["TENHOU_RULES", "HandValue", "ScoringRules", "WinInfo", "evaluate"]

_KAZOE_LIMITS: Final[dict[str, int]] = {
    "yakuman": HandConstants.KAZOE_LIMITED,
    "sanbaiman": HandConstants.KAZOE_SANBAIMAN,
    "none": HandConstants.KAZOE_NO_LIMIT,
}
_RENHOU: Final = ("off", "mangan", "yakuman")
_PKG_MELD_TYPE: Final[dict[MeldType, str]] = {
    MeldType.CHI: PkgMeld.CHI,
    MeldType.PON: PkgMeld.PON,
    MeldType.DAIMINKAN: PkgMeld.KAN,
    MeldType.KAKAN: PkgMeld.SHOUMINKAN,
    MeldType.ANKAN: PkgMeld.KAN,
}
# The package's answers that mean "a legal hand, but not a win"; every other error is a
# contradiction in the input (riichi on an open hand, rinshan on a ron, ...).
_NOT_A_WIN: Final = frozenset({HandCalculator.ERR_HAND_NOT_WINNING, HandCalculator.ERR_NO_YAKU})


@dataclass(frozen=True)
class WinInfo:
    """A win to score.

    ``tiles`` is the winner's whole hand as tile ids: the concealed tiles (with the winning
    tile) plus every tile of every meld, so 14 tiles plus one per kan. ``win_tile`` is the
    winning tile's id (in the concealed part, not in a meld). Winds are 0 East .. 3 North.
    ``ura_indicators`` count only with riichi (or double riichi). ``honba`` and ``kyotaku``
    (riichi sticks on the table) are only carried into :class:`HandValue`; they never change
    the hand's cost. ``renhou`` matters only when :attr:`ScoringRules.renhou` allows it.
    """

    tiles: tuple[int, ...]
    melds: tuple[Meld, ...]
    win_tile: int
    tsumo: bool
    riichi: bool
    double_riichi: bool
    ippatsu: bool
    rinshan: bool
    chankan: bool
    haitei: bool
    houtei: bool
    tenhou: bool
    chiihou: bool
    seat_wind: int
    round_wind: int
    dora_indicators: tuple[int, ...]
    ura_indicators: tuple[int, ...]
    honba: int = 0
    kyotaku: int = 0
    renhou: bool = False


@dataclass(frozen=True)
class ScoringRules:
    """Optional rules; the defaults are Tenhou's four-player ranked rules.

    - ``red_fives`` (aka dora, one red five per suit): on. Package ``has_aka_dora``.
    - ``open_tanyao`` (kuitan): on. Package ``has_open_tanyao``.
    - ``kazoe_limit``: ``"yakuman"`` (13+ han from ordinary yaku and dora count as one
      yakuman, as on Tenhou), ``"sanbaiman"`` or ``"none"`` (26+ han a double yakuman, ...).
      Package ``kazoe_limit`` = ``KAZOE_LIMITED`` / ``KAZOE_SANBAIMAN`` / ``KAZOE_NO_LIMIT``.
    - ``double_yakuman``: off. Tenhou scores kokushi 13-sided wait, suuankou tanki, junsei
      chuuren and daisuushi as single yakuman; distinct yakuman still add up (daisangen +
      tsuuiisou is a double). Package ``has_double_yakuman``.
    - ``kiriage`` (4 han 30 fu and 3 han 60 fu rounded up to mangan): off, as on Tenhou
      and Mahjong Soul (:meth:`mahjong_soul`). Package ``kiriage``.
    - ``renhou``: ``"off"`` (Tenhou has none; :attr:`WinInfo.renhou` is then ignored),
      ``"mangan"`` or ``"yakuman"``. Package ``renhou_as_yakuman``, and ``is_renhou``.
    - ``open_pinfu_fu``: on, an open pinfu-shaped ron is 30 fu (no 1 han 20 fu hands).
      Package ``fu_for_open_pinfu``.
    - ``pinfu_tsumo_fu``: off, a pinfu tsumo is 20 fu. Package ``fu_for_pinfu_tsumo``.

    Not offered, always off as on Tenhou: daisharin, daichisei, sashikomi, paarenchan,
    three-player rules. The sextuple-yakuman cap of the package stays on (no effect in
    practice).
    """

    red_fives: bool = True
    open_tanyao: bool = True
    kazoe_limit: str = "yakuman"
    double_yakuman: bool = False
    kiriage: bool = False
    renhou: str = "off"
    open_pinfu_fu: bool = True
    pinfu_tsumo_fu: bool = False

    def __post_init__(self) -> None:
        if self.kazoe_limit not in _KAZOE_LIMITS:
            raise ValueError(
                f"kazoe_limit must be one of {sorted(_KAZOE_LIMITS)}, not {self.kazoe_limit!r}"
            )
        if self.renhou not in _RENHOU:
            raise ValueError(f"renhou must be one of {list(_RENHOU)}, not {self.renhou!r}")

    @classmethod
    def tenhou(cls) -> ScoringRules:
        """Tenhou ranked rules (the defaults)."""
        return cls()

    @classmethod
    def mahjong_soul(cls) -> ScoringRules:
        """Mahjong Soul ranked rules: as Tenhou, plus double yakuman. No kiriage mangan: 4 han
        30 fu is 7700 (11600 for the dealer), as RiichiEnv's Mahjong Soul preset, checked
        against 20,000 real Mahjong Soul games' scores, pays it."""
        return cls(double_yakuman=True)

    def optional_rules(self) -> OptionalRules:
        """These rules as the package's ``OptionalRules``."""
        return OptionalRules(
            has_open_tanyao=self.open_tanyao,
            has_aka_dora=self.red_fives,
            has_double_yakuman=self.double_yakuman,
            kazoe_limit=_KAZOE_LIMITS[self.kazoe_limit],
            kiriage=self.kiriage,
            fu_for_open_pinfu=self.open_pinfu_fu,
            fu_for_pinfu_tsumo=self.pinfu_tsumo_fu,
            renhou_as_yakuman=self.renhou == "yakuman",
            has_daisharin=False,
            has_daisharin_other_suits=False,
            has_sashikomi_yakuman=False,
            limit_to_sextuple_yakuman=True,
            paarenchan_needs_yaku=True,
            has_daichisei=False,
            is_three_player=False,
        )


@dataclass(frozen=True)
class HandValue:
    """The value of a win, honba and riichi sticks excluded.

    ``yaku`` lists (name, han) as the package names them, dora included (``"Dora"``,
    ``"Aka Dora"``, ``"Ura Dora"``); ``han`` is their sum (13 per yakuman). On a ron
    ``ron_points`` is what the discarder pays and the tsumo fields are 0. On a tsumo
    ``tsumo_non_dealer`` is what each non-dealer pays and ``tsumo_dealer`` what the dealer
    pays (0 when the winner is the dealer), and ``ron_points`` is 0. ``limit`` is the
    package's label: ``""`` below mangan, ``"mangan"``, ``"haneman"``, ``"baiman"``,
    ``"sanbaiman"``, ``"yakuman"``, ``"2x yakuman"`` (yakuman added up), ``"kazoe
    yakuman"`` (13+ han without a yakuman), ``"kiriage mangan"``. ``honba`` and
    ``kyotaku`` are copied from the :class:`WinInfo`.
    """

    han: int
    fu: int
    yaku: tuple[tuple[str, int], ...]
    ron_points: int
    tsumo_dealer: int
    tsumo_non_dealer: int
    limit: str
    tsumo: bool
    dealer: bool
    honba: int = 0
    kyotaku: int = 0

    @property
    def points(self) -> int:
        """What the winner gains from the hand alone (no honba, no riichi sticks)."""
        if not self.tsumo:
            return self.ron_points
        return self.tsumo_dealer + (3 if self.dealer else 2) * self.tsumo_non_dealer

    def deltas(
        self,
        winner: int,
        dealer: int,
        loser: int | None,
        honba: int | None = None,
        kyotaku: int | None = None,
    ) -> tuple[int, int, int, int]:
        """The four seats' score changes for this win.

        ``loser`` is the discarder on a ron and None on a tsumo. Honba: 300 each from the
        discarder on a ron, 100 each from every payer on a tsumo. The ``kyotaku`` riichi
        sticks (1000 each) go to the winner, so the changes sum to ``kyotaku * 1000``.
        ``honba`` and ``kyotaku`` default to the values recorded from the :class:`WinInfo`
        (with a double ron, pass ``kyotaku=0`` for the winner who does not take the sticks).
        """
        honba = self.honba if honba is None else honba
        kyotaku = self.kyotaku if kyotaku is None else kyotaku
        for name, seat in (("winner", winner), ("dealer", dealer), ("loser", loser)):
            if seat is not None and not 0 <= seat <= 3:
                raise ValueError(f"{name} seat must be 0..3, not {seat}")
        if honba < 0 or kyotaku < 0:
            raise ValueError(f"honba and kyotaku must be >= 0, not {honba} and {kyotaku}")
        if (loser is None) != self.tsumo:
            kind = "tsumo" if self.tsumo else "ron"
            raise ValueError(f"this hand was scored as a {kind}; loser={loser} does not fit")
        if (winner == dealer) != self.dealer:
            role = "the dealer" if self.dealer else "a non-dealer"
            raise ValueError(f"this hand was scored for {role}; winner={winner}, dealer={dealer}")
        if loser == winner:
            raise ValueError(f"the winner {winner} cannot be the discarder")
        changes = [0, 0, 0, 0]
        if loser is not None:
            paid = self.ron_points + 300 * honba
            changes[loser] -= paid
            changes[winner] += paid
        else:
            for seat in range(4):
                if seat == winner:
                    continue
                base = self.tsumo_dealer if seat == dealer else self.tsumo_non_dealer
                paid = base + 100 * honba
                changes[seat] -= paid
                changes[winner] += paid
        changes[winner] += 1000 * kyotaku
        return changes[0], changes[1], changes[2], changes[3]


    def pao_deltas(
        self,
        winner: int,
        dealer: int,
        loser: int | None,
        liable: int,
        pao_han: int,
        honba: int | None = None,
        kyotaku: int | None = None,
    ) -> tuple[int, int, int, int]:
        """The score changes when ``liable`` is responsible (pao) for ``pao_han`` han of a
        yakuman hand (13 a yakuman: daisangen or daisuushii fed by that seat's discard).

        The liable seat pays that yakuman's value: all of it on a tsumo, half on a ron by
        another seat (the discarder pays the other half); it also pays all the honba (300
        each). Any further yakuman of the hand is paid as usual (on a tsumo shared as a
        tsumo is). The riichi sticks go to the winner. A ron on the liable seat's own
        discard is paid as usual (see :meth:`deltas`).
        """
        honba = self.honba if honba is None else honba
        kyotaku = self.kyotaku if kyotaku is None else kyotaku
        if not 0 <= liable <= 3 or liable == winner:
            raise ValueError(f"the liable seat must be another seat 0..3, not {liable}")
        if loser == liable:
            return self.deltas(winner, dealer, loser, honba, kyotaku)
        total = self.points
        part = min(total, (48000 if self.dealer else 32000) * pao_han // 13)
        plain = self.deltas(winner, dealer, loser, 0, 0)
        changes = [round(d * (total - part) / total) if total else 0 for d in plain]
        changes[winner] = -sum(changes[s] for s in range(4) if s != winner)
        liable_pays = (part if loser is None else part // 2) + 300 * honba
        changes[liable] -= liable_pays
        changes[winner] += liable_pays
        if loser is not None:
            changes[loser] -= part - part // 2
            changes[winner] += part - part // 2
        changes[winner] += 1000 * kyotaku
        return changes[0], changes[1], changes[2], changes[3]


def _check(info: WinInfo) -> None:
    """Raise ``ValueError`` on malformed input."""
    every = (*info.tiles, *info.dora_indicators, *info.ura_indicators)
    bad = [t for t in every if not 0 <= t < TILES]
    if bad:
        raise ValueError(f"tile ids must be 0..{TILES - 1}: {bad}")
    if info.win_tile not in info.tiles:
        raise ValueError(f"the winning tile {info.win_tile} is not in the hand")
    dup = sorted(t for t, n in Counter(every).items() if n > 1)
    if dup:
        raise ValueError(f"tile ids used more than once (hand and indicators): {dup}")
    if len(info.dora_indicators) > 5 or len(info.ura_indicators) > 5:
        raise ValueError("at most 5 dora and 5 ura dora indicators")
    for name, wind in (("seat_wind", info.seat_wind), ("round_wind", info.round_wind)):
        if not 0 <= wind <= 3:
            raise ValueError(f"{name} must be 0..3 (East..North), not {wind}")
    if info.honba < 0 or info.kyotaku < 0:
        raise ValueError(f"honba and kyotaku must be >= 0, not {info.honba}, {info.kyotaku}")
    if len(info.melds) > 4:
        raise ValueError(f"at most 4 melds, not {len(info.melds)}")
    hand = set(info.tiles)
    in_melds: list[int] = []
    for meld in info.melds:
        _check_meld(meld)
        missing = [t for t in meld.tiles if t not in hand]
        if missing:
            raise ValueError(f"meld {meld} has tiles not in the hand: {missing}")
        in_melds.extend(meld.tiles)
    if len(in_melds) != len(set(in_melds)):
        raise ValueError("two melds share a tile")
    if info.win_tile in in_melds:
        raise ValueError(f"the winning tile {info.win_tile} is in a meld, not concealed")
    kans = sum(meld.is_kan for meld in info.melds)
    if len(info.tiles) != 14 + kans:
        raise ValueError(
            f"a winning hand with {kans} kan(s) has {14 + kans} tiles, not {len(info.tiles)}"
        )


def _check_meld(meld: Meld) -> None:
    """Raise ``ValueError`` unless the meld is a well-formed chi, pon or kan."""
    kinds = sorted(kind_of(t) for t in meld.tiles)
    size = 3 if meld.type in (MeldType.CHI, MeldType.PON) else 4
    if len(meld.tiles) != size:
        raise ValueError(f"a {meld.type.value} has {size} tiles, not {len(meld.tiles)}: {meld}")
    if meld.type is MeldType.CHI:
        first = kinds[0]
        if first >= 27 or first % 9 > 6 or kinds != [first, first + 1, first + 2]:
            raise ValueError(f"a chi is three consecutive tiles of one suit: {meld}")
    elif len(set(kinds)) != 1:
        raise ValueError(f"a {meld.type.value} is {size} tiles of one kind: {meld}")
    if meld.opened and meld.taken is not None and meld.taken not in meld.tiles:
        raise ValueError(f"the taken tile {meld.taken} is not in the meld {meld}")


def _pkg_meld(meld: Meld) -> PkgMeld:
    """The package's meld for one of ours."""
    return PkgMeld(
        meld_type=_PKG_MELD_TYPE[meld.type],
        tiles=sorted(meld.tiles),
        opened=meld.opened,
        called_tile=meld.taken,
        from_who=meld.target,
    )


TENHOU_RULES: Final = ScoringRules()
"""Tenhou ranked rules, the default of :func:`evaluate`."""


def evaluate(info: WinInfo, rules: ScoringRules = TENHOU_RULES) -> HandValue | None:
    """Score a win under ``rules`` (Tenhou ranked rules by default).

    None when the tiles do not form a winning hand or the hand has no yaku (dora alone is
    not a yaku). ``ValueError`` on malformed input: wrong tile count, bad ids or melds, a
    winning tile outside the concealed hand, or contradictory flags (riichi on an open
    hand, rinshan or haitei on a ron, chankan or houtei on a tsumo, ippatsu without riichi,
    tenhou for a non-dealer, chiihou for the dealer...).
    """
    _check(info)
    dealer = info.seat_wind == 0
    renhou = info.renhou and rules.renhou != "off"
    config = HandConfig(
        is_tsumo=info.tsumo,
        is_riichi=info.riichi or info.double_riichi,
        is_ippatsu=info.ippatsu,
        is_rinshan=info.rinshan,
        is_chankan=info.chankan,
        is_haitei=info.haitei,
        is_houtei=info.houtei,
        is_daburu_riichi=info.double_riichi,
        is_tenhou=info.tenhou,
        is_renhou=renhou,
        is_chiihou=info.chiihou,
        player_wind=EAST + info.seat_wind,
        round_wind=EAST + info.round_wind,
        options=rules.optional_rules(),
    )
    melds = [_pkg_meld(m) for m in info.melds]
    result = HandCalculator.estimate_hand_value(
        list(info.tiles),
        info.win_tile,
        melds=melds,
        dora_indicators=list(info.dora_indicators),
        config=config,
        ura_dora_indicators=list(info.ura_indicators),
    )
    if result.error is not None:
        if result.error in _NOT_A_WIN:
            return None
        raise ValueError(f"contradictory win: {result.error.replace('_', ' ')}")
    cost, han, fu = result.cost, result.han, result.fu
    if cost is None or han is None or fu is None:  # pragma: no cover - package contract
        raise RuntimeError("the mahjong package returned no cost for a winning hand")
    opened = result.is_open_hand
    yaku = tuple(
        (y.name, y.han_open if opened and y.han_open else y.han_closed) for y in result.yaku or ()
    )
    main, additional = int(cost["main"]), int(cost["additional"])
    limit = str(cost["yaku_level"])
    if limit.endswith("yakuman") and not any(y.is_yakuman for y in result.yaku or ()):
        limit = f"kazoe {limit}"  # the package drops the "kazoe" it sets for 13+ han
    if info.tsumo:
        ron, t_dealer, t_non = 0, (0 if dealer else main), additional
    else:
        ron, t_dealer, t_non = main, 0, 0
    return HandValue(
        han=int(han),
        fu=int(fu),
        yaku=yaku,
        ron_points=ron,
        tsumo_dealer=t_dealer,
        tsumo_non_dealer=t_non,
        limit=limit,
        tsumo=info.tsumo,
        dealer=dealer,
        honba=info.honba,
        kyotaku=info.kyotaku,
    )
