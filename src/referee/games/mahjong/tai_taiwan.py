"""The ``taiwan`` preset: a common Taiwanese 16-tile tai table, as the open-source engine
open_mahjong_unity scores it.

Reference: github.com/xelnagamiao/open_mahjong_unity, its Taiwanese scorer
``open_mahjong_server/server/game_calculation/taiwan/``: the values of ``fan.py`` (its
``sml`` table, the engine's default) and the conditions of ``scoring.py`` and
``solver.py``, with three of its own options set: ``all_chows_definition = "strict"``
(平胡 without honours or flowers), ``half_begging_enabled`` (半求人 scores) and
``eight_flowers_mode = "forced_standalone"`` (eight flowers end the hand at once); the
other options at the engine's defaults. docs/mahjong.md has the table in prose and every
difference with the ``icga`` default.

=========================  ===  ======  ===================================================
pattern                    tai  name    when
=========================  ===  ======  ===================================================
``dealer``                   1  莊家     the dealer wins or deals in (the reference pays it
                                        as the dealer's tai; no continuation streak here)
``concealed_hand``           1  門清     no exposed meld (concealed kongs allowed)
``concealed_self_drawn``     1  不求人   concealed and self-drawn
``self_drawn``               1  自摸     won on a self-drawn tile
``seat_wind``                1  門風     a pung or kong of the seat wind
``round_wind``               1  圈風     a pung or kong of the round wind
``seat_flower``              1  正花     per seat flower outside a complete set
``four_seasons``             1  花槓     all of Spring, Summer, Autumn, Winter
``four_plants``              1  花槓     all of Plum, Orchid, Chrysanthemum, Bamboo
``dragon_pung``              1  三元牌   per pung or kong of Red, Green or White
``single_wait``              1  獨聽     the hand waited on one kind, read into the pair,
                                        an edge or the middle of a chow
``robbing_kong``             1  搶槓     won on the tile another player added to a pung
``kong_replacement``         1  槓上開花 self-drawn on a replacement (kong or flower)
``last_tile``                1  海底撈月 self-drawn on the last tile of the wall
``half_melded``              1  半求人   five exposed melds, self-drawn (pair wait)
``all_chows``                2  平胡     five chows, not concealed, won on a discard that
                                        was not the only waiting kind, no honour tile,
                                        no flower
``three_concealed_pungs``    2  三暗刻   three concealed pungs or kongs
``all_melded``               2  全求人   five exposed melds, won on a discard (pair wait)
``all_pungs``                4  碰碰胡   five pungs or kongs
``little_three_dragons``     4  小三元   two dragon pungs and a dragon pair
``half_flush``               4  混一色   one suit and honours
``four_concealed_pungs``     5  四暗刻   four concealed pungs or kongs
``five_concealed_pungs``     8  五暗刻   five concealed pungs or kongs
``big_three_dragons``        8  大三元   three dragon pungs
``little_four_winds``        8  小四喜   three wind pungs and a wind pair
``full_flush``               8  清一色   one suit, no honours
``eight_flowers``            8  八仙過海 all eight flowers: the hand ends, a win paid as a
                                        self-draw (by the three others)
``seven_flowers``            8  七搶一   seven flowers: the eighth, set aside by another
                                        seat, is robbed and ends the hand; that seat pays
``earthly_hand``            16  地胡     a non-dealer self-draws on his first draw, no
                                        call made before
``human_hand``              16  人胡     a non-dealer wins on a discard before his first
                                        draw, no call made before
``all_honors``              16  字一色   honours only
``big_four_winds``          16  大四喜   four wind pungs
``heavenly_hand``           24  天胡     the dealer wins on his initial hand
=========================  ===  ======  ===================================================

Interactions (as the reference scores them):

* 天胡 drops 門清, 不求人, 獨聽 and 槓上開花 (自摸 stays); 地胡 drops 門清 and 不求人;
  人胡 drops 門清.
* 大四喜 and 小四喜 replace the wind pungs; 大三元 and 小三元 replace the dragon pungs.
* 字一色 also scores 碰碰胡 (and the honour patterns); 混一色, 清一色 and 字一色 exclude
  each other.
* 全求人 and 半求人 leave out 獨聽 (their wait is always on the pair).
* The two flower wins score their pattern alone (and the dealer's tai), whatever the
  hand holds.
* Only the largest of the concealed pungs counts; a pung completed by a discard is not
  concealed, nor are exposed pungs and kongs.

Not scored (the ICGA engine has no such event, or the reference leaves them off by
default): 連莊拉莊 (the dealer passes every hand), 天聽 / 地聽 / 報聽 (ready
declarations), 河底撈魚, 無花, 無字無花, 見字, 明槓, 暗槓, 八對半, 四槓 / 五槓, 配牌花胡.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from referee.games.mahjong.win import (
    HONORS_START,
    SETS_IN_HAND,
    Found,
    Pattern,
    Reading,
    WinContext,
    flower_and_honour_patterns,
    honour_facts,
    suit_and_pung_patterns,
)

__all__ = ["TaiwanTable"]


@dataclass(frozen=True)
class TaiwanTable:
    """The ``taiwan`` preset: the tai of each pattern (see the module docstring); 0
    switches a pattern off."""

    name: ClassVar[str] = "taiwan"
    flower_wins: ClassVar[bool] = True
    """Eight flowers (八仙過海) and seven robbing the eighth (七搶一) end the hand."""

    dealer: int = 1
    concealed_hand: int = 1
    concealed_self_drawn: int = 1
    self_drawn: int = 1
    seat_wind: int = 1
    round_wind: int = 1
    seat_flower: int = 1
    four_seasons: int = 1
    four_plants: int = 1
    dragon_pung: int = 1
    single_wait: int = 1
    robbing_kong: int = 1
    kong_replacement: int = 1
    last_tile: int = 1
    half_melded: int = 1
    all_chows: int = 2
    three_concealed_pungs: int = 2
    all_melded: int = 2
    all_pungs: int = 4
    little_three_dragons: int = 4
    half_flush: int = 4
    four_concealed_pungs: int = 5
    five_concealed_pungs: int = 8
    big_three_dragons: int = 8
    little_four_winds: int = 8
    full_flush: int = 8
    eight_flowers: int = 8
    seven_flowers: int = 8
    earthly_hand: int = 16
    human_hand: int = 16
    all_honors: int = 16
    big_four_winds: int = 16
    heavenly_hand: int = 24

    def patterns(self, ctx: WinContext, reading: Reading, one_wait: bool) -> list[Pattern]:
        """The patterns of one reading, in table order, zero-valued ones left out;
        ``one_wait``: the hand waited on the winning kind only."""
        found = Found()
        add = found.add
        concealed = all(m.is_concealed for m in ctx.melds)
        melded = len(ctx.melds) == SETS_IN_HAND and not any(m.is_concealed for m in ctx.melds)
        earthly = ctx.earthly and ctx.self_draw
        if ctx.dealer_involved:
            add("dealer", self.dealer)
        if concealed and not (ctx.heavenly or ctx.earthly):
            add("concealed_hand", self.concealed_hand)
        if concealed and ctx.self_draw and not (ctx.heavenly or earthly):
            add("concealed_self_drawn", self.concealed_self_drawn)
        if ctx.self_draw:
            add("self_drawn", self.self_drawn)
        honours = honour_facts(reading)
        flower_and_honour_patterns(found, self, ctx, honours)
        if one_wait and reading.single_use and not melded and not ctx.heavenly:
            add("single_wait", self.single_wait)
        if ctx.robbing_kong:
            add("robbing_kong", self.robbing_kong)
        if ctx.kong_replacement and ctx.self_draw and not ctx.heavenly:
            add("kong_replacement", self.kong_replacement)
        if ctx.last_tile and ctx.self_draw:
            add("last_tile", self.last_tile)
        if melded:
            add("half_melded" if ctx.self_draw else "all_melded",
                self.half_melded if ctx.self_draw else self.all_melded)
        if (len(reading.chows) == SETS_IN_HAND and not concealed and not ctx.self_draw
                and not one_wait and not ctx.flowers and reading.dec.pair < HONORS_START):
            add("all_chows", self.all_chows)
        if len(reading.pungs) == SETS_IN_HAND:
            add("all_pungs", self.all_pungs)
        suit_and_pung_patterns(found, self, reading, honours)
        if ctx.heavenly:
            add("heavenly_hand", self.heavenly_hand)
        elif earthly:
            add("earthly_hand", self.earthly_hand)
        elif ctx.earthly:
            add("human_hand", self.human_hand)
        return found.items
