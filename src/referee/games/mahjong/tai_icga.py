"""The referee's own tai table, ``icga`` (the default): the table the ICGA referee has
always played, not ICGA's (the ICGA framework defines the protocol and no tai table;
docs/mahjong.md compares it with the ``taiwan`` preset).

``TaiTable`` holds the tai of each pattern (the pattern names are stable: they are the
field names and the names in ``ScoreResult.patterns``); ``TaiTable.patterns`` scores one
reading of a win:

=======================  ===  ==========================================================
``dealer``                 1  the winner is the dealer, or the dealer dealt the winning
                              discard (see ``scoring.payments`` for a non-dealer's
                              self-draw)
``self_drawn``             1  won on a self-drawn tile
``concealed_hand``         1  no exposed melds (concealed kongs allowed)
``concealed_self_drawn``   1  both of the above: with them a concealed self-draw is 3
``seat_flower``            1  per flower of the winner's seat (Spring/Plum East,
                              Summer/Orchid South, Autumn/Chrysanthemum West,
                              Winter/Bamboo North)
``four_seasons``           2  all of Spring, Summer, Autumn, Winter
``four_plants``            2  all of Plum, Orchid, Chrysanthemum, Bamboo
``seat_wind``              1  a pung or kong of the seat wind
``round_wind``             1  a pung or kong of the round wind
``dragon_pung``            1  per pung or kong of Red, Green or White
``all_chows``              2  five chows and a pair of suited tiles
``all_pungs``              4  five pungs or kongs
``half_flush``             4  one suit and honors (at least one of each)
``full_flush``             8  one suit, no honors
``all_honors``             8  honors only
``three_concealed_pungs``  2  concealed pungs or kongs: 3
``four_concealed_pungs``   5  ... 4
``five_concealed_pungs``   8  ... 5
``little_three_dragons``   4  two dragon pungs and a dragon pair
``big_three_dragons``      8  three dragon pungs
``little_four_winds``      8  three wind pungs and a wind pair
``big_four_winds``        16  four wind pungs
``heavenly_hand``         16  the dealer wins on his initial hand
``earthly_hand``          16  a non-dealer wins on a discard or on his own first draw,
                              before his first discard, with no calls before
``robbing_kong``           1  won on the tile another player added to a pung
``last_tile``              1  won on the last tile of the wall (haitei or houtei)
``kong_replacement``       1  won on a replacement tile after a kong or a flower
``single_wait``            1  the hand waited on one kind only, and the winning tile is
                              read into the pair, an edge chow (1-2 waiting 3, 8-9
                              waiting 7) or the middle of a chow
=======================  ===  ==========================================================

Interactions (each is one explicit rule in ``patterns``):

* A concealed self-draw scores ``concealed_hand`` + ``self_drawn`` +
  ``concealed_self_drawn`` (1 + 1 + 1 = 3 by default).
* A complete set of seasons (plants) scores ``four_seasons`` (``four_plants``) *instead*
  of the seat flower of that set; the seat flower of the other set still counts. All
  eight flowers therefore score 2 + 2 (no "eight flowers" pattern, no flower win).
* ``big_three_dragons`` and ``little_three_dragons`` replace ``dragon_pung``.
* ``big_four_winds`` and ``little_four_winds`` replace ``seat_wind`` and ``round_wind``;
  a seat wind pung that is also the round wind scores both (1 + 1) otherwise.
* ``half_flush``, ``full_flush`` and ``all_honors`` exclude each other (at most one);
  ``all_honors`` still scores ``all_pungs`` and the honor pungs (or the big / little
  dragons and winds).
* Only the largest of ``three_/four_/five_concealed_pungs`` counts. A pung is concealed
  unless the win is on a discard (or a robbed kong) and the winning tile is read into
  that pung; concealed kongs count, exposed pungs and kongs do not.
* ``heavenly_hand``, ``earthly_hand`` and ``all_chows`` are simply added to the rest
  (``all_chows`` asks nothing of flowers, honour pungs, self-draw or the wait).
* ``single_wait`` needs both: the hand waited on one kind (a hand that also waited on
  another kind never scores it, whatever the reading), and the reading kept puts the
  winning tile in the pair, an edge or the middle of a chow.
* A pattern whose table value is 0 is left out of the result.

Not scored: the dealer's continuation streak, "no flowers and no honors", eight flowers
as an instant win.
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

__all__ = ["TaiTable"]


@dataclass(frozen=True)
class TaiTable:
    """The ``icga`` table: the tai of each pattern (see the module docstring); 0 switches a
    pattern off."""

    name: ClassVar[str] = "icga"
    flower_wins: ClassVar[bool] = False
    """No win on flowers alone."""

    dealer: int = 1
    self_drawn: int = 1
    concealed_hand: int = 1
    concealed_self_drawn: int = 1
    seat_flower: int = 1
    four_seasons: int = 2
    four_plants: int = 2
    seat_wind: int = 1
    round_wind: int = 1
    dragon_pung: int = 1
    all_chows: int = 2
    all_pungs: int = 4
    half_flush: int = 4
    full_flush: int = 8
    all_honors: int = 8
    three_concealed_pungs: int = 2
    four_concealed_pungs: int = 5
    five_concealed_pungs: int = 8
    little_three_dragons: int = 4
    big_three_dragons: int = 8
    little_four_winds: int = 8
    big_four_winds: int = 16
    heavenly_hand: int = 16
    earthly_hand: int = 16
    robbing_kong: int = 1
    last_tile: int = 1
    kong_replacement: int = 1
    single_wait: int = 1

    def patterns(self, ctx: WinContext, reading: Reading, one_wait: bool) -> list[Pattern]:
        """The patterns of one reading, in table order, zero-valued ones left out;
        ``one_wait``: the hand waited on the winning kind only."""
        found = Found()
        add = found.add
        concealed = all(m.is_concealed for m in ctx.melds)
        if ctx.dealer_involved:
            add("dealer", self.dealer)
        if ctx.self_draw:
            add("self_drawn", self.self_drawn)
        if concealed:
            add("concealed_hand", self.concealed_hand)
        if concealed and ctx.self_draw:
            add("concealed_self_drawn", self.concealed_self_drawn)
        honours = honour_facts(reading)
        flower_and_honour_patterns(found, self, ctx, honours)
        if len(reading.chows) == SETS_IN_HAND and reading.dec.pair < HONORS_START:
            add("all_chows", self.all_chows)
        if len(reading.pungs) == SETS_IN_HAND:
            add("all_pungs", self.all_pungs)
        suit_and_pung_patterns(found, self, reading, honours)
        if ctx.heavenly:
            add("heavenly_hand", self.heavenly_hand)
        if ctx.earthly:
            add("earthly_hand", self.earthly_hand)
        if ctx.robbing_kong:
            add("robbing_kong", self.robbing_kong)
        if ctx.last_tile:
            add("last_tile", self.last_tile)
        if ctx.kong_replacement:
            add("kong_replacement", self.kong_replacement)
        if one_wait and reading.single_use:
            add("single_wait", self.single_wait)
        return found.items
