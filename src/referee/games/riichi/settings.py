"""The settings of a Riichi game: :class:`RiichiRules` (Tenhou's four-player ranked rules
by default) and its room presets (:meth:`RiichiRules.tenhou`,
:meth:`RiichiRules.mahjong_soul`), with the table's constants (four seats, the winds).

What each setting does in play is told where it is played: the rule choices in
:mod:`referee.games.riichi.kyoku`, the payments and the end of a game in
:mod:`referee.games.riichi.settle`. Named rule sets and rules files are
:mod:`referee.games.riichi.rulesets`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from referee.games.riichi.scoring import ScoringRules

__all__ = ["SEATS", "WIND_NAMES", "RiichiRules"]

SEATS: Final = 4
WIND_NAMES: Final = ("E", "S", "W", "N")
"""The winds as mjai names them, East first (``bakaze`` of ``start_kyoku``)."""


@dataclass(frozen=True)
class RiichiRules:
    """The configurable rules of a game; the defaults are Tenhou's four-player ranked rules.

    - ``game_length``: ``"east"`` (tonpuusen, E1..E4) or ``"south"`` (hanchan, E1..S4).
    - ``start_points`` each seat's points at the start; ``return_points`` the base of the
      final score (oka: the difference of the four seats goes to first place);
      ``target_points`` what first place needs for the game to end after the last
      scheduled hand (None: ``return_points``).
    - ``uma``: added to the final scores of first to fourth place. Tenhou's ranked rooms
      play 20/10 (+20, +10, -10, -20); Mahjong Soul's final scores use 15/5
      (+15, +5, -5, -15) over a 25000 base: see :meth:`tenhou`, :meth:`mahjong_soul`.
    - ``red_fives`` (one red five per suit, ids 16, 52, 88), ``open_tanyao`` (kuitan):
      passed on to the scoring.
    - ``kuikae_forbidden``: no discarding the called kind after a chi or pon, nor the suji
      kind at the other end of a chi.
    - ``nagashi_mangan``: paid at an exhaustive draw instead of the tenpai payments.
    - ``abort_kyuushu``, ``abort_suufon``, ``abort_suukan``, ``abort_suucha_riichi``:
      the abortive draws kyuushu kyuuhai, suufon renda, suukaikan, suucha riichi.
    - ``triple_ron_abort``: three rons on one tile are a draw (sanchahou); else all win.
    - ``double_ron``: two (or three) rons all win; off: only the nearest (atamahane).
    - ``pao``: the responsibility payment for daisangen and daisuushii (see
      :mod:`referee.games.riichi.settle`).
    - ``double_yakuman`` (kokushi 13-sided wait, suuankou tanki, junsei chuuren and
      daisuushii count twice) and ``kiriage`` (4 han 30 fu and 3 han 60 fu are a mangan):
      passed on to the scoring; off as on Tenhou.
    - ``busting``: a score below 0 after a hand ends the game.
    - ``agari_yame``: in the last scheduled hand, a dealer in first place (and with
      ``target_points`` when ``west_extension``) after a win or a tenpai draw ends the game.
    - ``west_extension``: if nobody has ``target_points`` after the last scheduled hand,
      the game goes on into the next wind (South for an east game, West for a south game)
      in sudden death: it ends after the first hand that leaves someone with
      ``target_points``, and at the latest after that wind's fourth hand (as on Tenhou).
    - ``first_place_ties``: ``"seat"`` (equal points rank by seat order from the first
      dealer, as on Tenhou and Mahjong Soul) or ``"split"`` (tied seats share their uma and
      oka evenly). Riichi sticks left at the end go to first place (the first in seat order
      on a tie).
    - ``final_rounding``: ``"tenhou"``: every seat but first place has its points minus
      ``return_points`` rounded to whole thousands, a half rounded toward zero (Tenhou's
      gosha-rokunyuu: -19.5 is -19, -9.6 is -10), then its uma added; first place gets
      minus the sum of the others (so its oka and the rounding), as the final results of
      Tenhou's logs (``owari``) show. ``"none"``: exact, to a tenth (Mahjong Soul shows
      such scores).
    """

    game_length: str = "south"
    start_points: int = 25000
    return_points: int = 30000
    target_points: int | None = None
    uma: tuple[int, int, int, int] = (20, 10, -10, -20)
    red_fives: bool = True
    open_tanyao: bool = True
    kuikae_forbidden: bool = True
    nagashi_mangan: bool = True
    abort_kyuushu: bool = True
    abort_suufon: bool = True
    abort_suukan: bool = True
    abort_suucha_riichi: bool = True
    triple_ron_abort: bool = True
    double_ron: bool = True
    pao: bool = True
    double_yakuman: bool = False
    kiriage: bool = False
    busting: bool = True
    agari_yame: bool = True
    west_extension: bool = True
    first_place_ties: str = "seat"
    final_rounding: str = "tenhou"

    def __post_init__(self) -> None:
        if self.game_length not in ("east", "south"):
            raise ValueError(f"game_length must be 'east' or 'south', not {self.game_length!r}")
        if self.final_rounding not in ("tenhou", "none"):
            raise ValueError(
                f"final_rounding must be 'tenhou' or 'none', not {self.final_rounding!r}")
        if self.first_place_ties not in ("seat", "split"):
            raise ValueError(
                f"first_place_ties must be 'seat' or 'split', not {self.first_place_ties!r}")
        if len(self.uma) != SEATS:
            raise ValueError(f"uma has four values, not {len(self.uma)}")
        if self.start_points < 1000:
            raise ValueError(f"start_points = {self.start_points}: expected 1000 or more")

    @classmethod
    def tenhou(cls) -> RiichiRules:
        """Tenhou ranked rules (the defaults): 25000 start, 30000 return, uma 20/10."""
        return cls()

    @classmethod
    def mahjong_soul(cls) -> RiichiRules:
        """Mahjong Soul ranked-room settings as far as this engine models them: final scores
        over a 25000 base (no oka) with uma 15/5, 30000 to end the game (west extension),
        three rons all win (no sanchahou), double yakuman, no kiriage mangan (as
        :meth:`ScoringRules.mahjong_soul <referee.games.riichi.scoring.ScoringRules.mahjong_soul>`).
        Its point-based ranking (rank points by room) is not modelled."""
        return cls(return_points=25000, target_points=30000, uma=(15, 5, -5, -15),
                   final_rounding="none", triple_ron_abort=False, double_yakuman=True,
                   kiriage=False)

    @property
    def target(self) -> int:
        """The points first place needs to end the game after the last scheduled hand."""
        return self.return_points if self.target_points is None else self.target_points

    def scoring_rules(self) -> ScoringRules:
        """The scoring options these rules imply."""
        return ScoringRules(red_fives=self.red_fives, open_tanyao=self.open_tanyao,
                            double_yakuman=self.double_yakuman, kiriage=self.kiriage)

