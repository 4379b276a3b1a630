"""Four-player Riichi mahjong: the rules engine of one hand (kyoku) and of a game.

Pure and deterministic: no I/O, no clocks. The engine asks questions and applies answers,
exactly at the decision points a real mjai client is offered (its "possible actions"):

- After its tsumo the actor may ``dahai`` (with the ``tsumogiri`` flag), ``reach``,
  ``ankan``, ``kakan``, ``hora`` (tsumo) or ``ryukyoku`` (kyuushu kyuuhai). After a
  ``reach`` it discards the declaration tile; after a chi or pon it discards.
- After a ``dahai`` every other seat with an option is asked at once: ``hora`` (ron),
  ``pon``, ``daiminkan``, ``chi`` (only the next seat) or ``none``. After a ``kakan`` the
  others may rob it (chankan); an ``ankan`` only a kokushi wait may rob, as on Tenhou.

:meth:`RiichiKyoku.pending` names the seats to answer now, :meth:`RiichiKyoku.legal_actions`
their options, :meth:`RiichiKyoku.find_legal` the engine's own option equal to a given
action (:meth:`RiichiKyoku.illegal_reason` says why there is none), :meth:`RiichiKyoku.apply`
plays one; every action and result is appended to ``events`` as an mjai event dict (full
information: all hands, all draws; whoever relays them masks what a seat may not see).
:class:`RiichiGame` chains hands into a game.

Actions are :class:`Action` values: unchangeable (``Final`` attributes), mjai-shaped, tiles
named as mjai names them (``"5mr"`` the red five), so two copies of a tile that mjai
cannot tell apart are the same action, while a red and a plain five are different options.
:func:`action_from_mjai` and :func:`action_to_mjai` convert from and to mjai dicts.

Tiles come from a :class:`TileSource`: the engine only ever asks it for the next tile, the
next replacement tile and the indicators, so a log replay can supply the recorded tiles.
:class:`SeededWall` is the source of a shuffled wall; :class:`ScriptedWall` plays given lists.

The rule choices (Tenhou ranked rules unless a :class:`RiichiRules` says otherwise):

- Kuikae: after a chi or pon the called kind may not be discarded, nor after a chi the kind
  at the other end of the sequence (suji kuikae); a call that would leave no legal discard
  is not offered.
- Furiten: a wait among one's own discards (permanent), a winning tile passed since one's
  own last discard (temporary; "passed" means the tile completed the hand's shape, whether
  or not a ron was possible), a winning tile passed after riichi (for the rest of the
  hand). Tsumo is allowed in furiten. Waits never count a fifth copy (a hand waiting only
  on a kind it holds four of is not tenpai, as on Tenhou).
- Riichi: closed hand (ankan allowed), 1000 points or more, at least 4 tiles left in the
  live wall, a declaration discard that leaves the hand tenpai. The 1000 deposit and the
  ``reach_accepted`` event come when that discard is not ronned (before any call on it).
  After riichi only the drawn tile may be discarded, or an ankan of the drawn tile's kind
  that keeps the waits. Ippatsu lasts until the riichi player's next discard or any call
  (a kan clears it once it stands, after the chankan question). Double riichi: declared on
  one's first discard with no call (ankan included) before it.
- Kan dora: an ankan reveals its indicator at once (a ``dora`` event right after the
  ``ankan``); a daiminkan or kakan reveals it with the replacement tile's discard, once the
  player has chosen it and before anyone answers it (the ``dora`` event comes just before
  that ``dahai``, in the order of Tenhou's own logs, where the DORA tag sits between the
  replacement draw and the discard, and of Mortal's arena), or, if the player kans again
  first, when that kan stands (before its replacement draw); a rinshan win after a
  daiminkan or kakan reveals nothing. At most four kans; a kan needs a tile left in the
  live wall.
- Multiple ron: all rons on one tile are played (double ron) from the discarder's right
  (shimocha first); honba and the riichi sticks on the table go only to the first of them,
  the winner nearest the discarder in turn order, while each winner is paid the hand's
  value by the discarder. Sources: Tenhou's rules ("Double rons allowed. Repeats and
  deposits go to the next closest player", riichi.wiki/arcturus.su "Tenhou.net rules";
  mjstars.net "Rules for 4-player Ranking Match": "Honba payments and riichi sticks go to
  player closest to the player who dealt in by turn order"), and Mortal's arena, which
  follows Tenhou (libriichi/src/arena/board.rs: honba and kyotaku to the first winner in
  turn order after the discarder). Three rons are an abortive draw (sanchahou) when
  ``triple_ron_abort``; with ``double_ron`` off only the nearest ron stands (atamahane).
- Abortive draws (all with the dealer repeating and honba + 1, as on Tenhou): kyuushu
  kyuuhai (declared on one's first draw before any call, with nine or more kinds of
  terminals and honors), suufon renda (the four first discards the same wind, no call),
  suukaikan (four kans by more than one player, once the fourth kan's discard passes),
  suucha riichi (when the fourth riichi is accepted), sanchahou. A riichi declared with
  the discard that ends the hand in suufon renda or suukaikan is not accepted (as in
  Mortal's arena).
- Exhaustive draw: noten bappu (3000 split between tenpai and noten players), or, when
  someone qualifies, nagashi mangan instead (all of the player's discards terminals or
  honors and none of them called; paid as a mangan tsumo, no honba, the sticks stay on the
  table; several qualify: each is paid). The dealer repeats if tenpai; honba + 1.
- Pao (``pao``, on): a pon or daiminkan of a dragon that completes the third dragon set,
  or of a wind that completes the fourth wind set, makes its discarder liable for
  daisangen or daisuushii: on a tsumo it pays that yakuman whole, on a ron by another
  seat half of it (the discarder pays the other half), and all the honba; further
  yakuman in the hand are paid as usual (:meth:`HandValue.pao_deltas
  <referee.games.riichi.scoring.HandValue.pao_deltas>`). The ``hora`` event then carries
  ``pao`` (the liable seat), as Tenhou's AGARI carries ``paoWho``. Source: riichi.wiki
  "Sekinin barai" (Tenhou and Mahjong Soul apply it to these two yakuman); the honba
  with the liable seat as in Mahjong Soul's logs.

Event ``ryukyoku`` carries the reason as the original mjai names it (and as
:mod:`referee.games.riichi.mjlog` converts Tenhou's codes): ``fanpai`` (exhaustive draw),
``nagashimangan``, ``kyushukyuhai``, ``sufonrenta``, ``sukaikan``, ``suchareach``,
``sanchaho``; an exhaustive draw adds ``tenpais`` and ``tehais``. Event ``hora`` adds to
Mortal's fields ``pai``, ``scores``, ``hora_tehais`` (the hand less the winning tile), ``fan``,
``fu``, ``hora_points`` (the hand's value) and ``yakus`` ([name, han], the package's names);
``reach_accepted`` adds ``deltas`` and ``scores``; ``end_game`` adds the final ``scores``.

Speed: winning shapes, waits and riichi discards come from the tables of
:mod:`referee.games.riichi.shape`; the hand-value function (``evaluate``) is called only
when a hand is complete and its yaku is not certain (riichi and a closed tsumo always have
one), and to score a win.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, Protocol

from referee.core.shuffle import splitmix64, splitmix_shuffle
from referee.games.riichi.melds import Meld, MeldType
from referee.games.riichi.scoring import HandValue, ScoringRules, WinInfo
from referee.games.riichi.scoring import evaluate as score_win
from referee.games.riichi.shape import (
    ORPHANS,
    can_riichi_discard,
    counts_of,
    kokushi_waits_mask,
    tenpai_discards,
    waits_mask,
)
from referee.games.riichi.tiles import KINDS, TILES, kind_name, mjai_name, parse_mjai

__all__ = [
    "Action",
    "Deal",
    "Evaluator",
    "FinalScore",
    "KyokuResult",
    "Position",
    "RiichiGame",
    "RiichiKyoku",
    "RiichiRules",
    "ScriptedWall",
    "SeededWall",
    "TileSource",
    "action_from_mjai",
    "action_to_mjai",
    "hand_seed",
]

SEATS: Final = 4
WIND_NAMES: Final = ("E", "S", "W", "N")
_ORPHAN_SET: Final = frozenset(ORPHANS)
_RED_NAMES: Final = tuple(mjai_name(t) for t in range(TILES))
_PLAIN_NAMES: Final = tuple(kind_name(t >> 2) for t in range(TILES))
_KIND_NAMES: Final = tuple(kind_name(k) for k in range(KINDS))
_FIVES: Final = frozenset({4, 13, 22})
_ACTION_TYPES: Final = frozenset({"dahai", "reach", "chi", "pon", "daiminkan", "kakan",
                                  "ankan", "hora", "ryukyoku", "none"})

Evaluator = Callable[[WinInfo, ScoringRules], "HandValue | None"]
"""The hand-value function: :func:`referee.games.riichi.scoring.evaluate` or a stand-in."""


def _name_key(name: str) -> tuple[int, bool]:
    """Sort key of an mjai tile name: kind, then the red five after the plain ones."""
    return parse_mjai(name)


# ------------------------------------------------------------------------------ rules


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
    - ``pao``: the responsibility payment for daisangen and daisuushii (see above).
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


# ------------------------------------------------------------------------------ tiles


class TileSource(Protocol):
    """Where a hand's tiles come from. The engine asks only this, never a wall list."""

    def draw(self) -> int:
        """The next tile of the live wall."""
        ...

    def draw_rinshan(self) -> int:
        """The next replacement (rinshan) tile after a kan; it shortens the live wall by
        one (the live wall's last tile joins the dead wall)."""
        ...

    def dora_indicator(self, n: int) -> int:
        """The ``n``-th dora indicator, 0-based (0 is the one shown at the start)."""
        ...

    def ura_indicator(self, n: int) -> int:
        """The ``n``-th ura dora indicator, 0-based (under the ``n``-th dora indicator)."""
        ...

    def live_left(self) -> int:
        """Tiles the live wall still holds (0: the last tile has been drawn)."""
        ...

    def copy(self) -> TileSource:
        """An independent copy, at the same point."""
        ...


class SeededWall:
    """A wall of the 136 tiles shuffled from ``seed`` (:func:`splitmix_shuffle` of 0..135).

    Layout of ``tiles`` (the shuffled order):

    - ``tiles[0:52]``: the four starting hands, 13 each: :meth:`haipai` ``(i)`` is
      ``tiles[13 * i: 13 * i + 13]``, hand 0 the dealer's, then the dealer's right
      (shimocha), across (toimen), left (kamicha);
    - ``tiles[52:56]``: the four rinshan (replacement) tiles, drawn in that order;
    - ``tiles[56:61]``: the dora indicators 0..4; ``tiles[61:66]``: the ura indicators 0..4
      (ura ``n`` lies under dora indicator ``n``);
    - ``tiles[66:136]``: the live wall, 70 tiles, drawn in that order. Every rinshan draw
      shortens it by one from the end, so ``live_left`` is 70 minus draws and rinshan draws.
    """

    DEAD_WALL: Final = 14
    LIVE: Final = 70

    def __init__(self, seed: int, *, tiles: tuple[int, ...] | None = None) -> None:
        self.seed = seed
        self.tiles: tuple[int, ...] = tuple(splitmix_shuffle(range(TILES), seed)) \
            if tiles is None else tiles
        """The shuffled tiles (``tiles`` when given: those of this seed, known already)."""
        self._drawn = 0
        self._rinshan = 0

    def copy(self) -> SeededWall:
        """An independent copy, at the same point."""
        new = SeededWall(self.seed, tiles=self.tiles)
        new._drawn = self._drawn
        new._rinshan = self._rinshan
        return new

    def haipai(self, i: int) -> tuple[int, ...]:
        """The ``i``-th starting hand (0: the dealer's, then in turn order)."""
        return self.tiles[13 * i: 13 * i + 13]

    def draw(self) -> int:
        """The next live-wall tile."""
        if self.live_left() <= 0:
            raise IndexError("the live wall is empty")
        tile = self.tiles[66 + self._drawn]
        self._drawn += 1
        return tile

    def draw_rinshan(self) -> int:
        """The next rinshan tile."""
        if self._rinshan >= 4 or self.live_left() <= 0:
            raise IndexError("no rinshan tile is left")
        tile = self.tiles[52 + self._rinshan]
        self._rinshan += 1
        return tile

    def dora_indicator(self, n: int) -> int:
        """Dora indicator ``n`` (0..4)."""
        if not 0 <= n < 5:
            raise IndexError(f"dora indicator {n}: there are five (0..4)")
        return self.tiles[56 + n]

    def ura_indicator(self, n: int) -> int:
        """Ura indicator ``n`` (0..4)."""
        if not 0 <= n < 5:
            raise IndexError(f"ura indicator {n}: there are five (0..4)")
        return self.tiles[61 + n]

    def live_left(self) -> int:
        """Live-wall tiles not drawn yet."""
        return self.LIVE - self._drawn - self._rinshan


class ScriptedWall:
    """A tile source playing given lists: the live-wall draws in order, the rinshan tiles,
    the dora and ura indicators. ``live_total`` is the live wall's size (default: the
    number of draws given; 70 in a real hand); rinshan draws shorten it as in a real wall.
    For crafted hands in tests and for log replays."""

    def __init__(self, live: Sequence[int], rinshan: Sequence[int] = (),
                 dora: Sequence[int] = (), ura: Sequence[int] = (),
                 live_total: int | None = None) -> None:
        self.live = tuple(live)
        self.rinshan = tuple(rinshan)
        self.dora = tuple(dora)
        self.ura = tuple(ura)
        self.live_total = len(self.live) if live_total is None else live_total
        self._drawn = 0
        self._rinshan = 0

    def copy(self) -> ScriptedWall:
        """An independent copy, at the same point."""
        new = ScriptedWall(self.live, self.rinshan, self.dora, self.ura, self.live_total)
        new._drawn = self._drawn
        new._rinshan = self._rinshan
        return new

    def draw(self) -> int:
        """The next scripted draw."""
        if self.live_left() <= 0 or self._drawn >= len(self.live):
            raise IndexError("no scripted draw is left")
        tile = self.live[self._drawn]
        self._drawn += 1
        return tile

    def draw_rinshan(self) -> int:
        """The next scripted rinshan tile."""
        if self._rinshan >= len(self.rinshan):
            raise IndexError("no scripted rinshan tile is left")
        tile = self.rinshan[self._rinshan]
        self._rinshan += 1
        return tile

    def dora_indicator(self, n: int) -> int:
        """Scripted dora indicator ``n``."""
        return self.dora[n]

    def ura_indicator(self, n: int) -> int:
        """Scripted ura indicator ``n``."""
        return self.ura[n]

    def live_left(self) -> int:
        """The live wall's size minus draws and rinshan draws."""
        return self.live_total - self._drawn - self._rinshan


def hand_seed(seed: int, number: int) -> int:
    """The wall seed of hand ``number`` (0-based, repeats counted) of a game seeded ``seed``."""
    mask = (1 << 64) - 1
    _, first = splitmix64((seed & mask) ^ 0x5EED5EED5EED5EED)
    _, out = splitmix64((first + number * 0x9E3779B97F4A7C15) & mask)
    return out


@dataclass(frozen=True)
class Deal:
    """How a hand starts: the four starting hands by absolute seat (13 tile ids each), the
    first dora indicator, the dealer, the round wind (0 East .. 3 North), the hand number
    within the wind (1..4), honba, riichi sticks on the table and the four scores."""

    tehais: tuple[tuple[int, ...], ...]
    dora_marker: int
    oya: int = 0
    bakaze: int = 0
    kyoku: int = 1
    honba: int = 0
    kyotaku: int = 0
    scores: tuple[int, ...] = (25000, 25000, 25000, 25000)

    def __post_init__(self) -> None:
        if len(self.tehais) != SEATS or any(len(h) != 13 for h in self.tehais):
            raise ValueError("a deal is four hands of 13 tiles")
        every = [t for h in self.tehais for t in h] + [self.dora_marker]
        if len(set(every)) != len(every) or not all(0 <= t < TILES for t in every):
            raise ValueError("the dealt tiles and the dora marker must be distinct ids 0..135")
        if not (0 <= self.oya < SEATS and 0 <= self.bakaze < SEATS and 1 <= self.kyoku <= 4):
            raise ValueError("oya and bakaze are 0..3, kyoku 1..4")
        if len(self.scores) != SEATS:
            raise ValueError("a deal has four scores")


# ------------------------------------------------------------------------------ actions


class Action:
    """A seat's answer, shaped like the mjai message that carries it.

    ``type``: ``dahai`` (``pai``, ``tsumogiri``), ``reach``, ``chi`` / ``pon`` /
    ``daiminkan`` (``target``, ``pai`` the called tile, ``consumed`` the tiles from the
    hand), ``kakan`` (``pai`` the added tile, ``consumed`` the pon's three), ``ankan``
    (``consumed`` the four), ``hora`` (``target`` the discarder, the actor itself on a
    tsumo, ``pai`` the winning tile), ``ryukyoku`` (kyuushu kyuuhai), ``none`` (pass).
    Tiles are mjai names; ``consumed`` is sorted (kind, then the red five last).
    ``tsumogiri`` None (only from :func:`action_from_mjai` without the field) means
    "whichever is legal", the tsumogiri discard when both are.

    A value: equal and hashed by its fields, and not to be changed (the attributes are
    ``Final``, which mypy enforces). Written out rather than a frozen dataclass because
    the engine makes and compares actions on its hot path, where a frozen dataclass's
    ``__init__`` and ``__eq__`` cost several times more (and far more compiled).
    """

    __slots__ = ("actor", "consumed", "pai", "target", "tsumogiri", "type")

    def __init__(self, type: str, actor: int, pai: str | None = None,
                 target: int | None = None, consumed: tuple[str, ...] = (),
                 tsumogiri: bool | None = False) -> None:
        self.type: Final = type
        self.actor: Final = actor
        self.pai: Final = pai
        self.target: Final = target
        self.consumed: Final = consumed
        self.tsumogiri: Final = tsumogiri

    def _key(self) -> tuple[str, int, str | None, int | None, tuple[str, ...], bool | None]:
        return (self.type, self.actor, self.pai, self.target, self.consumed, self.tsumogiri)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Action):
            return NotImplemented
        return (self.type == other.type and self.actor == other.actor
                and self.pai == other.pai and self.target == other.target
                and self.consumed == other.consumed and self.tsumogiri == other.tsumogiri)

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Action(type={self.type!r}, actor={self.actor!r}, pai={self.pai!r}, "
                f"target={self.target!r}, consumed={self.consumed!r}, "
                f"tsumogiri={self.tsumogiri!r})")

    def __reduce__(self) -> tuple[type[Action], tuple[Any, ...]]:
        return (Action, self._key())

    def with_tsumogiri(self, flag: bool) -> Action:
        """The same action with ``tsumogiri`` set to ``flag``."""
        return Action(self.type, self.actor, self.pai, self.target, self.consumed, flag)


def action_to_mjai(action: Action) -> dict[str, Any]:
    """The mjai message of an action (``{"type": "none"}`` for a pass)."""
    kind = action.type
    if kind == "none":
        return {"type": "none"}
    out: dict[str, Any] = {"type": kind, "actor": action.actor}
    if kind == "dahai":
        out["pai"] = action.pai
        out["tsumogiri"] = bool(action.tsumogiri)
    elif kind in ("chi", "pon", "daiminkan"):
        out.update(target=action.target, pai=action.pai, consumed=list(action.consumed))
    elif kind == "kakan":
        out.update(pai=action.pai, consumed=list(action.consumed))
    elif kind == "ankan":
        out["consumed"] = list(action.consumed)
    elif kind == "hora":
        out.update(target=action.target, pai=action.pai)
    return out


def action_from_mjai(obj: Mapping[str, Any], actor: int | None = None) -> Action:
    """An action from an mjai message; ``actor`` fills a missing ``actor`` (``none`` and
    Mortal's ``ryukyoku`` carry none). ``ValueError`` says what is malformed."""
    if not isinstance(obj, dict) and not isinstance(obj, Mapping):  # dict: no ABC check
        raise ValueError("an action is a JSON object")
    kind = obj.get("type")
    if kind not in _ACTION_TYPES:
        raise ValueError(f"unknown action type {kind!r}")
    who = obj.get("actor", actor)
    if isinstance(who, bool) or not isinstance(who, int) or not 0 <= who < SEATS:
        raise ValueError(f"actor must be a seat 0..3, not {who!r}")
    if kind == "none":
        return _NONE[who]
    if kind == "dahai":
        flag = obj.get("tsumogiri")
        if flag is not None and not isinstance(flag, bool):
            raise ValueError(f"tsumogiri must be true or false, not {flag!r}")
        return Action("dahai", who, pai=_tile_field(obj, kind, "pai"), tsumogiri=flag)
    if kind in ("chi", "pon", "daiminkan"):
        return Action(kind, who, pai=_tile_field(obj, kind, "pai"),
                      target=_seat_field(obj, kind, "target"),
                      consumed=_consumed_field(obj, kind, 3 if kind == "daiminkan" else 2))
    if kind == "kakan":
        return Action(kind, who, pai=_tile_field(obj, kind, "pai"),
                      consumed=_consumed_field(obj, kind, 3))
    if kind == "ankan":
        return Action(kind, who, consumed=_consumed_field(obj, kind, 4))
    if kind == "hora":
        return Action(kind, who, pai=_tile_field(obj, kind, "pai"),
                      target=_seat_field(obj, kind, "target"))
    return Action(kind, who)


_TILE_NAMES: Final = frozenset(kind_name(k) for k in range(KINDS)) | {"5mr", "5pr", "5sr"}


def _tile_field(obj: Mapping[str, Any], kind: str, key: str) -> str:
    """The mjai tile name in ``obj[key]``; ``ValueError`` if it is missing or bad."""
    name = obj.get(key)
    if name in _TILE_NAMES:
        return name  # type: ignore[no-any-return]
    if not isinstance(name, str):
        raise ValueError(f"{kind} needs a tile name in {key!r}")
    parse_mjai(name)  # raises, naming the bad name
    return name


def _seat_field(obj: Mapping[str, Any], kind: str, key: str) -> int:
    """The seat in ``obj[key]``; ``ValueError`` if it is not 0..3."""
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < SEATS:
        raise ValueError(f"{kind} needs a seat 0..3 in {key!r}, not {value!r}")
    return value


def _consumed_field(obj: Mapping[str, Any], kind: str, count: int) -> tuple[str, ...]:
    """The ``consumed`` tile names, sorted; ``ValueError`` unless ``count`` good names."""
    names = obj.get("consumed")
    if not isinstance(names, (list, tuple)) or len(names) != count or \
            not all(isinstance(n, str) for n in names):
        raise ValueError(f"{kind} needs {count} tile names in 'consumed'")
    for n in names:
        parse_mjai(n)
    return tuple(sorted(names, key=_name_key))


def _action_tables(names: tuple[str, ...]) -> tuple[tuple[tuple[tuple[Action, Action], ...],
                                                         ...], tuple[int, ...]]:
    """The dahai actions of every seat and tile id (not tsumogiri, tsumogiri), shared to
    spare the hot path their construction, and a small id per tile name."""
    table = tuple(tuple((Action("dahai", seat, pai=names[t], tsumogiri=False),
                         Action("dahai", seat, pai=names[t], tsumogiri=True))
                        for t in range(TILES)) for seat in range(SEATS))
    ids = {n: i for i, n in enumerate(sorted(set(names), key=_name_key))}
    return table, tuple(ids[names[t]] for t in range(TILES))


_RED_DAHAI, _RED_NAME_IDS = _action_tables(_RED_NAMES)
_PLAIN_DAHAI, _PLAIN_NAME_IDS = _action_tables(_PLAIN_NAMES)
_NONE: Final = tuple(Action("none", seat) for seat in range(SEATS))
_REACH: Final = tuple(Action("reach", seat) for seat in range(SEATS))
_KYUUSHU: Final = tuple(Action("ryukyoku", seat) for seat in range(SEATS))


# ------------------------------------------------------------------------------ a hand


@dataclass(frozen=True)
class KyokuResult:
    """How a hand ended.

    ``reason``: ``hora`` (one or more wins), ``fanpai`` (exhaustive draw),
    ``nagashimangan``, or an abortive draw: ``kyushukyuhai``, ``sufonrenta``, ``sukaikan``,
    ``suchareach``, ``sanchaho``.
    ``deltas`` sums the wins' or the draw's score changes (riichi deposits not included);
    ``scores`` are the scores after the hand; ``kyotaku`` the riichi sticks left on the
    table; ``renchan`` whether the dealer stays; ``tenpai`` who was tenpai at an
    exhaustive draw (all False otherwise)."""

    reason: str
    deltas: tuple[int, ...]
    scores: tuple[int, ...]
    kyotaku: int
    renchan: bool
    winners: tuple[int, ...] = ()
    tenpai: tuple[bool, ...] = (False, False, False, False)

    @property
    def abortive(self) -> bool:
        """Whether the hand ended in an abortive draw."""
        return self.reason in ("kyushukyuhai", "sufonrenta", "sukaikan", "suchareach", "sanchaho")

    @property
    def draw(self) -> bool:
        """Whether nobody won."""
        return self.reason != "hora"


class RiichiKyoku:
    """One hand, from the deal to its end.

    ``pending()`` names the seats to answer, ``legal_actions(seat)`` their options,
    ``apply(seat, action)`` plays one; ``events`` receives the mjai events (a
    ``start_kyoku`` and the dealer's first ``tsumo`` on construction); ``result`` is set
    once the hand is over (after its ``end_kyoku`` event). ``phase`` is ``tsumo`` (the
    ``actor`` has drawn ``drawn``), ``reach`` (it must discard its declaration tile),
    ``call`` (it must discard after a chi or pon), ``respond`` (the others answer the
    ``last_discard``), ``chankan`` (they answer a kan) or ``over``. The state (hands,
    melds, rivers, riichi, furiten and waits per seat) is public to read, not to change.
    """

    def __init__(self, deal: Deal, source: TileSource, rules: RiichiRules | None = None,
                 evaluate: Evaluator = score_win, scoring: ScoringRules | None = None,
                 events: list[dict[str, Any]] | None = None, *,
                 copy_of: RiichiKyoku | None = None) -> None:
        if copy_of is not None:  # clone(): the state of copy_of, nothing dealt or drawn
            self._copy_state(copy_of, [] if events is None else events)
            return
        self.rules = rules or RiichiRules()
        self.scoring = scoring or self.rules.scoring_rules()
        self.evaluate = evaluate
        red = self.rules.red_fives
        self.names = _RED_NAMES if red else _PLAIN_NAMES
        self._dahai_table = _RED_DAHAI if red else _PLAIN_DAHAI
        self._name_ids = _RED_NAME_IDS if red else _PLAIN_NAME_IDS
        self.source = source
        self.deal = deal
        self.oya = deal.oya
        self.bakaze = deal.bakaze
        self.kyoku = deal.kyoku
        self.honba = deal.honba
        self.kyotaku = deal.kyotaku
        self.scores = list(deal.scores)
        self.events: list[dict[str, Any]] = [] if events is None else events
        self.hands = [list(h) for h in deal.tehais]
        self.counts = [counts_of(h) for h in self.hands]
        self.melds: list[list[Meld]] = [[] for _ in range(SEATS)]
        self.rivers: list[list[int]] = [[] for _ in range(SEATS)]
        """Every discard of each seat, called ones included (they count for furiten)."""
        self.called: set[int] = set()
        """Discards taken by a call (they are in a meld now)."""
        self.robbed: list[int] = []
        """A kakan tile taken by chankan (in no hand and no meld any more)."""
        self.river_kinds = [0] * SEATS
        self.nagashi = [True] * SEATS
        self.riichi = [False] * SEATS
        self.double_riichi = [False] * SEATS
        self.ippatsu = [False] * SEATS
        self.furiten_temp = [False] * SEATS
        self.furiten_riichi = [False] * SEATS
        self.waits = [waits_mask(c) for c in self.counts]
        """Each seat's waits (34-bit kind mask) for its hand without the drawn tile."""
        self.discards = [0] * SEATS
        self.opened = [False] * SEATS
        self.clean = True
        """No call yet (ankan included): the first go-around is uninterrupted."""
        self.kan_owners: list[int] = []
        self.pao: list[tuple[int, str] | None] = [None] * SEATS
        """Per seat, who is liable (pao) for which yakuman ("Daisangen", "Dai Suushii")."""
        self.dora = [deal.dora_marker]
        self.pending_dora = 0
        self.phase = "tsumo"
        self.actor = self.oya
        self.drawn: int | None = None
        self.rinshan = False
        self.last_discard: tuple[int, int] | None = None
        self.result: KyokuResult | None = None
        self._reach_by: int | None = None
        self._reach_double = False
        self._kuikae = 0
        self._kan_check = False
        self._first_winds: list[int] = []
        self._robbing: tuple[str, int, int] | None = None
        self._options: dict[int, list[Action]] = {}
        self._answers: dict[int, Action] = {}
        self._waiting: set[int] = set()
        self._self_cache: list[Action] | None = None
        self._base: list[list[Action] | None] = [None] * SEATS
        """Per seat, the discards of the hand without its drawn tile (kept while a
        tsumogiri leaves that hand as it was)."""
        self.events.append({
            "type": "start_kyoku", "bakaze": WIND_NAMES[self.bakaze],
            "dora_marker": self.names[deal.dora_marker], "kyoku": self.kyoku,
            "honba": self.honba, "kyotaku": self.kyotaku, "oya": self.oya,
            "scores": list(self.scores),
            "tehais": [[self.names[t] for t in h] for h in self.hands]})
        self._tsumo(self.oya, rinshan=False)

    # ---------------------------------------------------------------- questions

    def pending(self) -> set[int]:
        """The seats that must answer now (empty once the hand is over)."""
        if self.result is not None:
            return set()
        if self.phase in ("respond", "chankan"):
            return set(self._waiting)
        return {self.actor}

    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal answer of ``seat`` now (empty if it has nothing to answer)."""
        return list(self._legal(seat))

    def _legal(self, seat: int) -> Sequence[Action]:
        if self.result is not None:
            return ()
        if self.phase in ("respond", "chankan"):
            return self._options.get(seat, ()) if seat in self._waiting else ()
        if seat != self.actor:
            return ()
        if self._self_cache is None:
            self._self_cache = self._self_options()
        return self._self_cache

    def find_legal(self, seat: int, action: Action) -> Action | None:
        """The engine's own legal action of ``seat`` equal to ``action`` (a discard
        without its tsumogiri flag: the legal one, tsumogiri first), or None if it is not
        legal (:meth:`illegal_reason` says why). Applying the one found is quickest."""
        if self.result is not None or action.actor != seat:
            return None
        legal = self._legal(seat)
        found = self._match(action, legal)
        if found is None:
            found = self._match(self._normalize(action, legal), legal)
        return found

    def illegal_reason(self, seat: int, action: Action) -> str | None:
        """Why ``action`` is not a legal answer of ``seat`` now, or None if it is."""
        if self.result is not None:
            return "the hand is over"
        if not 0 <= seat < SEATS:
            return f"there is no seat {seat}"
        if action.actor != seat:
            return f"the action names actor {action.actor} but comes from seat {seat}"
        legal = self._legal(seat)
        if self._match(action, legal) is not None:
            return None
        if not legal:
            if self.phase in ("respond", "chankan") and seat in self._answers:
                return f"seat {seat} has already answered"
            return f"seat {seat} has nothing to decide now (waiting for " \
                f"{', '.join(map(str, sorted(self.pending()))) or 'nobody'})"
        action = self._normalize(action, legal)
        if self._match(action, legal) is not None:
            return None
        types = sorted({a.type for a in legal})
        if action.type not in types:
            return f"{action.type} is not possible now (possible: {', '.join(types)})"
        return self._explain(seat, action, legal)

    def apply(self, seat: int, action: Action) -> None:
        """Play a legal answer; ``ValueError`` (with the reason) if it is not legal."""
        legal = self._legal(seat)
        found = self._match(action, legal)
        if found is None:
            found = self._match(self._normalize(action, legal), legal)
            if found is None:
                raise ValueError(self.illegal_reason(seat, action) or "not legal now")
        action = found
        self._self_cache = None
        if self.phase in ("respond", "chankan"):
            self._answers[seat] = action
            self._waiting.discard(seat)
            if not self._waiting:
                if self.phase == "respond":
                    self._resolve_discard()
                else:
                    self._resolve_robbing()
            return
        kind = action.type
        if kind == "dahai":
            self._dahai(seat, action)
        elif kind == "reach":
            self._reach(seat)
        elif kind == "hora":
            assert self.drawn is not None
            self._win([seat], seat, self.drawn, chankan=False)
        elif kind == "ankan":
            self._ankan(seat, action)
        elif kind == "kakan":
            self._kakan(seat, action)
        elif kind == "ryukyoku":
            self._abort("kyushukyuhai")
        else:  # pragma: no cover - legal_actions offers nothing else here
            raise AssertionError(kind)

    # ---------------------------------------------------------------- helpers

    @staticmethod
    def _match(action: Action, legal: Sequence[Action]) -> Action | None:
        """The legal option equal to ``action`` (the engine's own instance), or None."""
        for option in legal:
            if option is action:
                return option
        pai = action.pai
        kind = action.type
        for option in legal:
            if option.pai == pai and option.type == kind and option == action:
                return option
        return None

    def _furiten(self, seat: int) -> bool:
        return (self.furiten_temp[seat] or self.furiten_riichi[seat]
                or bool(self.waits[seat] & self.river_kinds[seat]))

    def is_furiten(self, seat: int) -> bool:
        """Whether ``seat`` may not ron now (any kind of furiten)."""
        return self._furiten(seat)

    def _take(self, seat: int, name: str, avoid: int | None = None) -> int:
        """Remove and return the lowest tile id of ``seat``'s hand named ``name`` (not
        ``avoid``)."""
        names = self.names
        best = -1
        for t in self.hands[seat]:
            if names[t] == name and t != avoid and (best < 0 or t < best):
                best = t
        assert best >= 0, f"{name} not in hand"
        self._remove(seat, best)
        return best

    def _remove(self, seat: int, tile: int) -> None:
        self.hands[seat].remove(tile)
        self.counts[seat][tile >> 2] -= 1
        self._base[seat] = None

    def _emit(self, event: dict[str, Any]) -> None:
        self.events.append(event)

    def _reveal_dora(self) -> None:
        tile = self.source.dora_indicator(len(self.dora))
        self.dora.append(tile)
        self._emit({"type": "dora", "dora_marker": self.names[tile]})

    def _reveal_pending(self) -> None:
        while self.pending_dora:
            self.pending_dora -= 1
            self._reveal_dora()

    def _normalize(self, action: Action, legal: Sequence[Action]) -> Action:
        """A dahai without its tsumogiri flag becomes the legal one (tsumogiri first)."""
        if action.type == "dahai" and action.tsumogiri is None:
            for flag in (True, False):
                candidate = action.with_tsumogiri(flag)
                if candidate in legal:
                    return candidate
            return action.with_tsumogiri(False)
        return action

    def _explain(self, seat: int, action: Action, legal: Sequence[Action]) -> str:
        """A reason for an action of a legal type that is not legal."""
        if action.type == "dahai":
            name = action.pai
            held = [t for t in self.hands[seat] if self.names[t] == name]
            if not held:
                return f"{name} is not in the hand"
            if self.phase == "tsumo" and self.riichi[seat]:
                return "after riichi only the drawn tile may be discarded"
            if self.phase == "reach" and all(a.pai != name for a in legal):
                return f"discarding {name} would not leave the hand tenpai for riichi"
            if self.phase == "call" and all(a.pai != name for a in legal):
                return f"kuikae: {name} may not be discarded right after this call"
            if action.tsumogiri:
                return f"tsumogiri: {name} is not the drawn tile"
            return f"the only {name} is the drawn tile: that discard is tsumogiri"
        options = ", ".join(str(action_to_mjai(a)) for a in legal if a.type == action.type)
        return f"this {action.type} is not legal; the legal ones: {options}"

    # ---------------------------------------------------------------- own turn

    def _tsumo(self, seat: int, rinshan: bool) -> None:
        tile = self.source.draw_rinshan() if rinshan else self.source.draw()
        self.hands[seat].append(tile)
        self.counts[seat][tile >> 2] += 1
        self.actor = seat
        self.drawn = tile
        self.rinshan = rinshan
        self.phase = "tsumo"
        self._self_cache = None
        self._emit({"type": "tsumo", "actor": seat, "pai": self.names[tile]})

    def _self_options(self) -> list[Action]:
        seat = self.actor
        names = self.names
        hand = self.hands[seat]
        out: list[Action] = []
        if self.phase == "call":
            return self._dahai_options(seat, sorted(hand), -1, ~self._kuikae)
        drawn = self.drawn
        assert drawn is not None
        if self.phase == "reach":
            allowed = 0
            for k in tenpai_discards(self.counts[seat]):
                allowed |= 1 << k
            return self._dahai_options(seat, sorted(hand), drawn, allowed)
        counts = self.counts[seat]
        live = self.source.live_left()
        kan_ok = live > 0 and len(self.kan_owners) < 4
        if self.riichi[seat]:
            out.append(self._dahai_table[seat][drawn][True])
            k = drawn >> 2
            if kan_ok and counts[k] == 4:
                counts[k] = 0
                same = waits_mask(counts) == self.waits[seat]
                counts[k] = 4
                if same:
                    out.append(self._ankan_action(seat, k))
        else:
            base = self._base[seat]
            if base is None:
                base = self._dahai_options(seat, sorted(t for t in hand if t != drawn), -1, -1)
                self._base[seat] = base
            out = [*base, self._dahai_table[seat][drawn][True]]
            if (not self.opened[seat] and self.scores[seat] >= 1000 and live >= 4
                    and self._riichi_possible(seat)):
                out.append(_REACH[seat])
            if kan_ok and 4 in counts:
                for k in range(KINDS):
                    if counts[k] == 4:
                        out.append(self._ankan_action(seat, k))
            if kan_ok and self.opened[seat]:
                for meld in self.melds[seat]:
                    if meld.type is MeldType.PON and counts[meld.kind]:
                        for n in sorted({names[t] for t in hand if t >> 2 == meld.kind},
                                        key=_name_key):
                            out.append(Action("kakan", seat, pai=n, consumed=tuple(
                                sorted((names[t] for t in meld.tiles), key=_name_key))))
        if self.waits[seat] >> (drawn >> 2) & 1 and self._has_yaku(seat, drawn, True, False):
            out.append(Action("hora", seat, pai=names[drawn], target=seat))
        if (self.rules.abort_kyuushu and self.clean and not self.discards[seat]
                and sum(1 for k in ORPHANS if counts[k]) >= 9):
            out.append(_KYUUSHU[seat])
        return out

    def _riichi_possible(self, seat: int) -> bool:
        """Whether some discard leaves the hand (with ``drawn``) tenpai: at once if the
        hand without the drawn tile is tenpai (discard the drawn tile), else by the group
        tables (cheaper than first ruling out, by its shanten, a hand far from tenpai)."""
        return bool(self.waits[seat]) or can_riichi_discard(self.counts[seat])

    def _dahai_options(self, seat: int, hand: list[int], drawn: int,
                       allowed: int) -> list[Action]:
        table = self._dahai_table[seat]
        ids = self._name_ids
        seen = 0
        out: list[Action] = []
        if allowed == -1:
            for t in hand:
                key = 1 << (2 * ids[t] + (t == drawn))
                if not seen & key:
                    seen |= key
                    out.append(table[t][t == drawn])
            return out
        for t in hand:
            if allowed >> (t >> 2) & 1:
                key = 1 << (2 * ids[t] + (t == drawn))
                if not seen & key:
                    seen |= key
                    out.append(table[t][t == drawn])
        return out

    def _ankan_action(self, seat: int, kind: int) -> Action:
        names = self.names
        return Action("ankan", seat, consumed=tuple(sorted(
            (names[t] for t in self.hands[seat] if t >> 2 == kind), key=_name_key)))

    def _has_yaku(self, seat: int, tile: int, tsumo: bool, chankan: bool) -> bool:
        """Whether the shape-complete hand of ``seat`` with ``tile`` wins with a yaku."""
        if self.riichi[seat] or (tsumo and not self.opened[seat]):
            return True  # riichi, or menzen tsumo
        if self.evaluate is score_win and self._sure_yaku(seat, tile, tsumo, chankan):
            return True  # (a scorer of the caller's own is always asked)
        return self._value(seat, tile, tsumo, chankan, ura=False) is not None

    def _sure_yaku(self, seat: int, tile: int, tsumo: bool, chankan: bool) -> bool:
        """Whether the shape-complete hand of ``seat`` with ``tile`` surely has a yaku
        that needs no scoring to see: chankan, rinshan kaihou, haitei or houtei (no live
        tile left), a triplet or kan of dragons, of the seat wind or of the round wind, or
        all simples (tanyao, on an open hand only if the rules allow it). False leaves
        the question to the scorer."""
        if chankan or (tsumo and self.rinshan) or self.source.live_left() == 0:
            return True
        counts = self.counts[seat]
        won = -1 if tsumo else tile >> 2  # a ron's tile is not in the hand yet
        melds = self.melds[seat]
        for kind in (31, 32, 33, 27 + self.bakaze, 27 + (seat - self.oya) % SEATS):
            if counts[kind] + (kind == won) >= 3:
                return True
            for meld in melds:
                if meld.type is not MeldType.CHI and meld.tiles[0] >> 2 == kind:
                    return True
        if self.opened[seat] and not self.scoring.open_tanyao:
            return False
        if won in _ORPHAN_SET:
            return False
        for kind in ORPHANS:
            if counts[kind]:
                return False
        for meld in melds:
            for t in meld.tiles:
                if t >> 2 in _ORPHAN_SET:
                    return False
        return True

    def _value(self, seat: int, tile: int, tsumo: bool, chankan: bool,
               ura: bool) -> HandValue | None:
        concealed = list(self.hands[seat]) if tsumo else [*self.hands[seat], tile]
        tiles = concealed + [t for m in self.melds[seat] for t in m.tiles]
        live = self.source.live_left()
        first = self.clean and not self.discards[seat] and tsumo and not self.rinshan
        riichi = self.riichi[seat]
        info = WinInfo(
            tiles=tuple(tiles), melds=tuple(self.melds[seat]), win_tile=tile, tsumo=tsumo,
            riichi=riichi and not self.double_riichi[seat],
            double_riichi=self.double_riichi[seat], ippatsu=riichi and self.ippatsu[seat],
            rinshan=tsumo and self.rinshan, chankan=chankan,
            haitei=tsumo and not self.rinshan and live == 0,
            houtei=not tsumo and not chankan and live == 0,
            tenhou=first and seat == self.oya, chiihou=first and seat != self.oya,
            seat_wind=(seat - self.oya) % SEATS, round_wind=self.bakaze,
            dora_indicators=tuple(self.dora),
            ura_indicators=tuple(self.source.ura_indicator(i) for i in range(len(self.dora)))
            if ura and riichi else (),
            honba=self.honba, kyotaku=self.kyotaku)
        return self.evaluate(info, self.scoring)

    def _dahai(self, seat: int, action: Action) -> None:
        assert action.pai is not None
        if action.tsumogiri:  # the hand is as before the draw: same waits, same options
            assert self.drawn is not None
            tile = self.drawn
            self.hands[seat].remove(tile)
            self.counts[seat][tile >> 2] -= 1
        else:
            tile = self._take(seat, action.pai, avoid=self.drawn)
        kind = tile >> 2
        declaring = self.phase == "reach"
        self.rivers[seat].append(tile)
        self.river_kinds[seat] |= 1 << kind
        self.discards[seat] += 1
        if kind not in _ORPHAN_SET:
            self.nagashi[seat] = False
        self.furiten_temp[seat] = False
        if self.riichi[seat]:
            self.ippatsu[seat] = False
        if declaring:
            self._reach_by = seat
        self.drawn = None
        self.rinshan = False
        self._kuikae = 0
        self.last_discard = (seat, tile)
        if self.pending_dora:  # a daiminkan's or kakan's indicator, as the tile goes out
            self._reveal_pending()
        self._emit({"type": "dahai", "actor": seat, "pai": self.names[tile],
                    "tsumogiri": bool(action.tsumogiri)})
        if not action.tsumogiri:
            self.waits[seat] = waits_mask(self.counts[seat])
        if self.clean and len(self._first_winds) < SEATS:
            self._first_winds.append(kind)
            winds = self._first_winds
            if (len(winds) == SEATS and self.rules.abort_suufon and 27 <= kind <= 30
                    and winds.count(kind) == SEATS):
                self._abort("sufonrenta")
                return
        if (len(self.kan_owners) == 4 and self.rules.abort_suukan
                and len(set(self.kan_owners)) > 1):
            self._kan_check = True
        self._ask_others(seat, tile)

    def _ask_others(self, seat: int, tile: int) -> None:
        kind = tile >> 2
        live = self.source.live_left()
        names = self.names
        self._options = {}
        self._answers = {}
        rank = kind % 9
        for step in (1, 2, 3):
            s = (seat + step) % SEATS
            opts: list[Action] = []
            if (self.waits[s] >> kind & 1 and not self._furiten(s)
                    and self._has_yaku(s, tile, False, False)):
                opts.append(Action("hora", s, pai=names[tile], target=seat))
            if not self.riichi[s] and live > 0:
                counts = self.counts[s]
                held = counts[kind]
                if held >= 2:
                    opts.extend(self._pon_options(s, seat, tile, held))
                if step == 1 and kind < 27 and (
                        (rank >= 2 and counts[kind - 2] and counts[kind - 1])
                        or (1 <= rank <= 7 and counts[kind - 1] and counts[kind + 1])
                        or (rank <= 6 and counts[kind + 1] and counts[kind + 2])):
                    opts.extend(self._chi_options(s, seat, tile))
            if opts:
                opts.append(_NONE[s])
                self._options[s] = opts
        self._waiting = set(self._options)
        self.phase = "respond"
        if not self._waiting:
            self._resolve_discard()

    def _held(self, seat: int, kind: int) -> list[str]:
        """The names of ``seat``'s tiles of ``kind``, sorted (a red five last)."""
        n = self.counts[seat][kind]
        plain = _KIND_NAMES[kind]
        if self.rules.red_fives and kind in _FIVES and kind * 4 in self.hands[seat]:
            return [plain] * (n - 1) + [plain + "r"]
        return [plain] * n

    def _pon_options(self, s: int, target: int, tile: int, held: int) -> list[Action]:
        kind = tile >> 2
        pai = self.names[tile]
        same = self._held(s, kind)
        out: list[Action] = []
        if not self.rules.kuikae_forbidden or len(self.hands[s]) - held > 0:
            pairs = sorted({(same[i], same[j]) for i in range(held)
                            for j in range(i + 1, held)})
            out.extend(Action("pon", s, pai=pai, target=target, consumed=p) for p in pairs)
        if held == 3 and len(self.kan_owners) < 4:
            out.append(Action("daiminkan", s, pai=pai, target=target, consumed=tuple(same)))
        return out

    def _chi_options(self, s: int, target: int, tile: int) -> list[Action]:
        kind = tile >> 2
        rank = kind % 9
        base = kind - rank
        counts = self.counts[s]
        out: list[Action] = []
        for low in (rank - 2, rank - 1, rank):
            if low < 0 or low > 6:
                continue
            a, b = [base + r for r in (low, low + 1, low + 2) if r != rank]
            if not counts[a] or not counts[b]:
                continue
            if self.rules.kuikae_forbidden:
                forbidden = counts[kind]
                if low == rank and rank + 3 <= 8:
                    forbidden += counts[kind + 3]
                elif low == rank - 2 and rank - 3 >= 0:
                    forbidden += counts[kind - 3]
                if len(self.hands[s]) - 2 - forbidden <= 0:
                    continue
            pai = self.names[tile]
            for na in dict.fromkeys(self._held(s, a)):
                for nb in dict.fromkeys(self._held(s, b)):
                    out.append(Action("chi", s, pai=pai, target=target, consumed=(na, nb)))
        return out

    def _reach(self, seat: int) -> None:
        self._reach_double = self.clean and not self.discards[seat]
        self.phase = "reach"
        self._emit({"type": "reach", "actor": seat})

    def _accept_reach(self) -> bool:
        """Accept a pending riichi declaration; True if that aborted the hand."""
        seat = self._reach_by
        if seat is None:
            return False
        self._reach_by = None
        self.riichi[seat] = True
        self.double_riichi[seat] = self._reach_double
        self.ippatsu[seat] = True
        self.scores[seat] -= 1000
        self.kyotaku += 1
        deltas = [0] * SEATS
        deltas[seat] = -1000
        self._emit({"type": "reach_accepted", "actor": seat, "deltas": deltas,
                    "scores": list(self.scores)})
        if self.rules.abort_suucha_riichi and all(self.riichi):
            self._abort("suchareach")
            return True
        return False

    def _mark_passed(self, kind: int, skip: int) -> None:
        """Seats (but ``skip``) whose wait ``kind`` just passed become furiten."""
        for s in range(SEATS):
            if s != skip and self.waits[s] >> kind & 1:
                self.furiten_temp[s] = True
                if self.riichi[s]:
                    self.furiten_riichi[s] = True

    def _resolve_discard(self) -> None:
        assert self.last_discard is not None
        seat, tile = self.last_discard
        answers = self._answers
        claimed = any(a.type != "none" for a in answers.values())
        order = [(seat + step) % SEATS for step in (1, 2, 3)] if claimed else []
        winners = [s for s in order if s in answers and answers[s].type == "hora"]
        if winners:
            self._rons(winners, seat, tile, chankan=False)
            return
        self._mark_passed(tile >> 2, seat)
        if self._kan_check:
            self._abort("sukaikan")
            return
        if self._accept_reach():
            return
        caller = next((answers[s] for s in order if s in answers
                       and answers[s].type in ("pon", "daiminkan")), None)
        if caller is None and claimed:
            caller = next((answers[s] for s in order if s in answers
                           and answers[s].type == "chi"), None)
        if caller is not None:
            self._call(caller, seat, tile)
        elif self.source.live_left() == 0:
            self._exhaustive()
        else:
            self._tsumo((seat + 1) % SEATS, rinshan=False)

    def _call(self, action: Action, target: int, tile: int) -> None:
        seat = action.actor
        consumed = [self._take(seat, n) for n in action.consumed]
        self.called.add(tile)
        self.nagashi[target] = False
        meld_type = MeldType(action.type)
        self.melds[seat].append(Meld(meld_type, tuple(sorted([*consumed, tile])), tile, target))
        self.clean = False
        self.opened[seat] = True
        self.ippatsu = [False] * SEATS
        self._emit({"type": action.type, "actor": seat, "target": target,
                    "pai": self.names[tile], "consumed": list(action.consumed)})
        if meld_type is not MeldType.CHI and self.rules.pao and tile >> 2 >= 27:
            self._check_pao(seat, target, tile >> 2)
        if meld_type is MeldType.DAIMINKAN:
            self.kan_owners.append(seat)
            self.pending_dora += 1
            self.waits[seat] = waits_mask(self.counts[seat])
            self._tsumo(seat, rinshan=True)
            return
        self.actor = seat
        self.drawn = None
        self.rinshan = False
        self.phase = "call"
        self._self_cache = None
        if self.rules.kuikae_forbidden:
            kind = tile >> 2
            forbidden = 1 << kind
            if meld_type is MeldType.CHI:
                kinds = sorted(t >> 2 for t in consumed)
                rank = kind % 9
                if kinds[0] > kind and rank + 3 <= 8:
                    forbidden |= 1 << (kind + 3)
                elif kinds[1] < kind and rank - 3 >= 0:
                    forbidden |= 1 << (kind - 3)
            self._kuikae = forbidden

    def _check_pao(self, seat: int, target: int, kind: int) -> None:
        """A called dragon or wind that completes the third dragon set or the fourth wind
        set makes its discarder liable (pao) for daisangen or daisuushii."""
        held = {m.kind for m in self.melds[seat] if m.type is not MeldType.CHI}
        if kind >= 31 and {31, 32, 33} <= held:
            self.pao[seat] = (target, "Daisangen")
        elif kind < 31 and {27, 28, 29, 30} <= held:
            self.pao[seat] = (target, "Dai Suushii")

    # ---------------------------------------------------------------- kans

    def _ankan(self, seat: int, action: Action) -> None:
        kind = parse_mjai(action.consumed[0])[0]
        tiles = [t for t in self.hands[seat] if t >> 2 == kind]
        for t in tiles:
            self._remove(seat, t)
        self._reveal_pending()
        self.melds[seat].append(Meld(MeldType.ANKAN, tuple(sorted(tiles))))
        self.kan_owners.append(seat)
        self.clean = False
        self.drawn = None
        self._emit({"type": "ankan", "actor": seat, "consumed": list(action.consumed)})
        self._reveal_dora()
        self.waits[seat] = waits_mask(self.counts[seat])
        robbed = max(tiles)
        self._options = {}
        self._answers = {}
        for step in (1, 2, 3):
            s = (seat + step) % SEATS
            if (len(self.hands[s]) == 13 and kokushi_waits_mask(self.counts[s]) >> kind & 1
                    and not self._furiten(s)):
                self._options[s] = [Action("hora", s, pai=self.names[robbed], target=seat),
                                    _NONE[s]]
        if self._options:
            self._robbing = ("ankan", seat, robbed)
            self._waiting = set(self._options)
            self.phase = "chankan"
            return
        self._finish_kan(seat)

    def _kakan(self, seat: int, action: Action) -> None:
        assert action.pai is not None
        tile = self._take(seat, action.pai)
        self.drawn = None
        self._emit({"type": "kakan", "actor": seat, "pai": action.pai,
                    "consumed": list(action.consumed)})
        self.waits[seat] = waits_mask(self.counts[seat])
        kind = tile >> 2
        self._options = {}
        self._answers = {}
        for step in (1, 2, 3):
            s = (seat + step) % SEATS
            if (self.waits[s] >> kind & 1 and not self._furiten(s)
                    and self._has_yaku(s, tile, False, True)):
                self._options[s] = [Action("hora", s, pai=action.pai, target=seat),
                                    _NONE[s]]
        self._robbing = ("kakan", seat, tile)
        if self._options:
            self._waiting = set(self._options)
            self.phase = "chankan"
            return
        self._resolve_robbing()

    def _resolve_robbing(self) -> None:
        assert self._robbing is not None
        kan, seat, tile = self._robbing
        self._robbing = None
        order = [(seat + step) % SEATS for step in (1, 2, 3)]
        winners = [s for s in order
                   if s in self._answers and self._answers[s].type == "hora"]
        if winners:
            if kan == "kakan":
                self.robbed.append(tile)
            self._rons(winners, seat, tile, chankan=True)
            return
        if kan == "kakan":
            self._mark_passed(tile >> 2, seat)
            melds = self.melds[seat]
            index = next(i for i, m in enumerate(melds)
                         if m.type is MeldType.PON and m.kind == tile >> 2)
            old = melds[index]
            melds[index] = Meld(MeldType.KAKAN, tuple(sorted([*old.tiles, tile])),
                                old.taken, old.target)
            self.kan_owners.append(seat)
            self.clean = False
            self._reveal_pending()
            self.pending_dora += 1
        else:
            for s in self._answers:
                self.furiten_temp[s] = True
        self._finish_kan(seat)

    def _finish_kan(self, seat: int) -> None:
        self.ippatsu = [False] * SEATS
        self._tsumo(seat, rinshan=True)

    # ---------------------------------------------------------------- the end

    def _rons(self, winners: list[int], target: int, tile: int, chankan: bool) -> None:
        if len(winners) == 3 and self.rules.triple_ron_abort:
            self._abort("sanchaho")
            return
        if not self.rules.double_ron:
            winners = winners[:1]
        self._win(winners, target, tile, chankan)

    def _win(self, winners: list[int], target: int, tile: int, chankan: bool) -> None:
        total = [0] * SEATS
        tsumo = winners[0] == target
        names = self.names
        for i, seat in enumerate(winners):
            value = self._value(seat, tile, tsumo, chankan, ura=True)
            if value is None:
                raise RuntimeError(f"seat {seat} was offered a win that does not score")
            loser = None if tsumo else target
            honba, kyotaku = (self.honba, self.kyotaku) if i == 0 else (0, 0)
            pao = self.pao[seat]
            pao_han = dict(value.yaku).get(pao[1], 0) if pao else 0
            if pao and pao_han >= 13:
                deltas = value.pao_deltas(seat, self.oya, loser, pao[0], pao_han, honba,
                                          kyotaku)
            else:
                deltas = value.deltas(seat, self.oya, loser, honba, kyotaku)
            if i == 0:
                self.kyotaku = 0
            for s in range(SEATS):
                self.scores[s] += deltas[s]
                total[s] += deltas[s]
            ura = [names[self.source.ura_indicator(n)] for n in range(len(self.dora))] \
                if self.riichi[seat] else []
            concealed = self.hands[seat][:-1] if tsumo else self.hands[seat]
            self._emit({"type": "hora", "actor": seat, "target": target,
                        "pai": names[tile], "deltas": list(deltas), "ura_markers": ura,
                        "scores": list(self.scores),
                        "hora_tehais": [names[t] for t in concealed],
                        "fan": value.han, "fu": value.fu, "hora_points": value.points,
                        "yakus": [[name, han] for name, han in value.yaku],
                        **({"pao": pao[0]} if pao and pao_han >= 13 else {})})
        self._end("hora", total, renchan=self.oya in winners, winners=tuple(winners))

    def _exhaustive(self) -> None:
        tenpai = [self.waits[s] != 0 for s in range(SEATS)]
        deltas = [0] * SEATS
        nagashi = [s for s in range(SEATS) if self.rules.nagashi_mangan and self.nagashi[s]]
        if nagashi:
            for s in nagashi:
                for p in range(SEATS):
                    if p == s:
                        deltas[p] += 12000 if s == self.oya else 8000
                    elif s == self.oya or p == self.oya:
                        deltas[p] -= 4000
                    else:
                        deltas[p] -= 2000
        else:
            ready = sum(tenpai)
            if 0 < ready < SEATS:
                for s in range(SEATS):
                    deltas[s] = 3000 // ready if tenpai[s] else -3000 // (SEATS - ready)
        for s in range(SEATS):
            self.scores[s] += deltas[s]
        reason = "nagashimangan" if nagashi else "fanpai"
        self._emit({"type": "ryukyoku", "reason": reason, "deltas": deltas,
                    "scores": list(self.scores), "tenpais": tenpai,
                    "tehais": [[self.names[t] for t in h] for h in self.hands]})
        self._end(reason, deltas, renchan=tenpai[self.oya], tenpai=tuple(tenpai))

    def _abort(self, reason: str) -> None:
        self._emit({"type": "ryukyoku", "reason": reason, "deltas": [0] * SEATS,
                    "scores": list(self.scores)})
        self._end(reason, [0] * SEATS, renchan=True)

    def _end(self, reason: str, deltas: list[int], renchan: bool,
             winners: tuple[int, ...] = (),
             tenpai: tuple[bool, ...] = (False, False, False, False)) -> None:
        self.phase = "over"
        self._waiting = set()
        self._options = {}
        self.result = KyokuResult(reason, tuple(deltas), tuple(self.scores), self.kyotaku,
                                  renchan, winners, tenpai)
        self._emit({"type": "end_kyoku"})

    # ---------------------------------------------------------------- checks

    def tiles_in_play(self) -> list[int]:
        """Every tile id dealt or drawn so far, from where it is now: hands, melds, discards
        not called, a robbed kakan tile, and a kakan tile while the others may still rob it;
        sorted (for conservation checks)."""
        out = [t for h in self.hands for t in h]
        out += [t for ms in self.melds for m in ms for t in m.tiles]
        out += [t for r in self.rivers for t in r if t not in self.called]
        out += self.robbed
        if self._robbing is not None and self._robbing[0] == "kakan":
            out.append(self._robbing[2])
        return sorted(out)

    def clone(self, events: list[dict[str, Any]] | None = None) -> RiichiKyoku:
        """An independent copy (the tile source copied too) writing its events to
        ``events`` (default: a copy of this hand's events so far)."""
        return RiichiKyoku(self.deal, self.source, self.rules, self.evaluate, self.scoring,
                           list(self.events) if events is None else events, copy_of=self)

    def _copy_state(self, old: RiichiKyoku, events: list[dict[str, Any]]) -> None:
        """Every attribute of ``old``: its lists and sets copied, its source copied."""
        for name in ("rules", "scoring", "evaluate", "names", "_dahai_table", "_name_ids",
                     "deal", "oya", "bakaze", "kyoku", "honba", "kyotaku", "clean",
                     "pending_dora", "phase", "actor", "drawn", "rinshan", "last_discard",
                     "result", "_reach_by", "_reach_double", "_kuikae", "_kan_check",
                     "_robbing", "_self_cache"):
            setattr(self, name, getattr(old, name))
        self.source = old.source.copy()
        self.events = events
        self.scores = list(old.scores)
        self.hands = [list(h) for h in old.hands]
        self.counts = [list(c) for c in old.counts]
        self.melds = [list(m) for m in old.melds]
        self.rivers = [list(r) for r in old.rivers]
        self.called = set(old.called)
        self.robbed = list(old.robbed)
        for name in ("river_kinds", "nagashi", "riichi", "double_riichi", "ippatsu",
                     "furiten_temp", "furiten_riichi", "waits", "discards", "opened",
                     "kan_owners", "dora", "_first_winds", "pao"):
            setattr(self, name, list(getattr(old, name)))
        self._options = dict(old._options)
        self._answers = dict(old._answers)
        self._waiting = set(old._waiting)
        self._base = list(old._base)


# ------------------------------------------------------------------------------ a game


@dataclass(frozen=True)
class FinalScore:
    """A seat's result: its rank (1..4), points (riichi sticks left at the end included
    for first place) and final score in thousands, uma and oka included."""

    rank: int
    points: int
    score: float


@dataclass(frozen=True)
class Position:
    """Where a game stands between hands: the next hand's round wind (0 East ..), number
    in the wind (1..4), honba, riichi sticks on the table, dealer and the scores."""

    bakaze: int = 0
    kyoku: int = 1
    honba: int = 0
    kyotaku: int = 0
    oya: int = 0
    scores: tuple[int, ...] = (25000, 25000, 25000, 25000)


class RiichiGame:
    """A game: hands from the first dealer (seat 0, East 1) until an end condition.

    With a ``seed`` every hand is dealt from a :class:`SeededWall` (wall seed
    :func:`hand_seed` of the game seed and the hand's number) and the next hand starts by
    itself. With ``seed=None`` the caller starts each hand with :meth:`start_kyoku` and an
    explicit :class:`Deal` and :class:`TileSource` (a log replay); :meth:`position`
    tells what the rules expect next. ``events`` holds every event of the game, ending
    with ``end_game``.
    """

    def __init__(self, rules: RiichiRules | None = None, seed: int | None = 0,
                 evaluate: Evaluator = score_win, scoring: ScoringRules | None = None) -> None:
        self.rules = rules or RiichiRules()
        self.seed = seed
        self.evaluate = evaluate
        self.scoring = scoring or self.rules.scoring_rules()
        self.events: list[dict[str, Any]] = []
        self.results: list[KyokuResult] = []
        self.kyoku: RiichiKyoku | None = None
        self.over = False
        self.first_oya = 0
        self._pos = Position(scores=(self.rules.start_points,) * SEATS)
        self._final: list[FinalScore] | None = None
        if seed is not None:
            self.start_kyoku()

    # ---------------------------------------------------------------- hands

    def position(self) -> Position:
        """Where the game stands: the next hand's position once a hand is settled (the
        final scores, sticks to first place, once the game is over)."""
        return self._pos

    def start_kyoku(self, deal: Deal | None = None,
                    source: TileSource | None = None) -> RiichiKyoku:
        """Start the next hand: from the seeded wall, or from ``deal`` and ``source``
        (whose position, honba, sticks and scores then become the game's)."""
        if self.over:
            raise ValueError("the game is over")
        if self.kyoku is not None and self.kyoku.result is None:
            raise ValueError("a hand is being played")
        if deal is None:
            if self.seed is None:
                raise ValueError("a game without a seed needs an explicit deal and source")
            p = self._pos
            wall = SeededWall(hand_seed(self.seed, len(self.results)))
            tehais = tuple(wall.haipai((seat - p.oya) % SEATS) for seat in range(SEATS))
            deal = Deal(tehais, wall.dora_indicator(0), p.oya, p.bakaze, p.kyoku, p.honba,
                        p.kyotaku, tuple(p.scores))
            source = wall
        elif source is None:
            raise ValueError("an explicit deal needs its tile source")
        else:
            self._pos = Position(deal.bakaze, deal.kyoku, deal.honba, deal.kyotaku,
                                 deal.oya, tuple(deal.scores))
            if not self.results:  # the first dealer: each kyoku number moves the deal on
                self.first_oya = (deal.oya - (deal.kyoku - 1)) % SEATS
        self.kyoku = RiichiKyoku(deal, source, self.rules, self.evaluate, self.scoring,
                                 self.events)
        return self.kyoku

    # ---------------------------------------------------------------- play

    def pending(self) -> set[int]:
        """The seats that must answer now."""
        return set() if self.kyoku is None or self.over else self.kyoku.pending()

    def legal_actions(self, seat: int) -> list[Action]:
        """See :meth:`RiichiKyoku.legal_actions`."""
        return [] if self.kyoku is None or self.over else self.kyoku.legal_actions(seat)

    def find_legal(self, seat: int, action: Action) -> Action | None:
        """See :meth:`RiichiKyoku.find_legal` (None once the game is over)."""
        if self.over or self.kyoku is None:
            return None
        return self.kyoku.find_legal(seat, action)

    def illegal_reason(self, seat: int, action: Action) -> str | None:
        """See :meth:`RiichiKyoku.illegal_reason`."""
        if self.over:
            return "the game is over"
        if self.kyoku is None:
            return "no hand is being played"
        return self.kyoku.illegal_reason(seat, action)

    def apply(self, seat: int, action: Action) -> None:
        """Play a legal answer; when the hand ends, settle it (and, seeded, deal the next)."""
        if self.over or self.kyoku is None:
            raise ValueError("the game is over" if self.over else "no hand is being played")
        self.kyoku.apply(seat, action)
        if self.kyoku.result is not None:
            self._settle(self.kyoku)
            if not self.over and self.seed is not None:
                self.start_kyoku()

    @property
    def scores(self) -> list[int]:
        """The scores now (riichi deposits of the hand in play already taken)."""
        if self.kyoku is not None and self.kyoku.result is None:
            return list(self.kyoku.scores)
        return list(self._pos.scores)

    # ---------------------------------------------------------------- settling

    def _settle(self, kyoku: RiichiKyoku) -> None:
        result = kyoku.result
        assert result is not None
        self.results.append(result)
        p = self._pos
        scores = list(result.scores)
        dealer_stays = result.renchan
        honba = p.honba + 1 if dealer_stays or result.draw else 0
        rules = self.rules
        last = (0 if rules.game_length == "east" else 1) * 4 + 3
        here = p.bakaze * 4 + p.kyoku - 1
        target = rules.target
        top_ok = max(scores) >= target
        end = rules.busting and min(scores) < 0
        if not end and here > last and (top_ok or not rules.west_extension):
            end = True  # sudden death in the extra wind
        if not end and here >= last and dealer_stays and rules.agari_yame \
                and not result.abortive and _ranking(scores, self.first_oya)[0] == p.oya \
                and (top_ok or not rules.west_extension):
            end = True
        if not end and not dealer_stays and here >= last \
                and (top_ok or not rules.west_extension or here + 1 > last + 4):
            end = True
        if dealer_stays:
            nxt = here
            oya = p.oya
        else:
            nxt = here + 1
            oya = (p.oya + 1) % SEATS
        self._pos = Position(nxt // 4 % 4, nxt % 4 + 1, honba, result.kyotaku, oya,
                             tuple(scores))
        if end:
            self._end_game()

    def _end_game(self) -> None:
        self.over = True
        p = self._pos
        order = _ranking(p.scores, self.first_oya)
        points = list(p.scores)
        points[order[0]] += 1000 * p.kyotaku
        self._pos = replace(p, kyotaku=0, scores=tuple(points))
        rules = self.rules
        oka = (rules.return_points - rules.start_points) * SEATS / 1000
        bonus = [float(u) for u in rules.uma]
        bonus[0] += oka
        finals: list[FinalScore] = [FinalScore(0, 0, 0.0)] * SEATS
        i = 0
        while i < SEATS:
            j = i
            if rules.first_place_ties == "split":  # ties on the scores before the sticks
                while j + 1 < SEATS and p.scores[order[j + 1]] == p.scores[order[i]]:
                    j += 1
            share = sum(bonus[i:j + 1]) / (j - i + 1)
            for r in range(i, j + 1):
                seat = order[r]
                diff = points[seat] - rules.return_points
                if rules.final_rounding == "tenhou":
                    thousands, rest = divmod(abs(diff), 1000)
                    base = float((thousands + (rest > 500)) * (1 if diff >= 0 else -1))
                else:
                    base = diff / 1000
                finals[seat] = FinalScore(
                    i + 1 if rules.first_place_ties == "split" else r + 1, points[seat],
                    round(base + share, 1))
            i = j + 1
        if rules.final_rounding == "tenhou":
            top = order[0]
            rest_sum = sum(f.score for s, f in enumerate(finals) if s != top)
            finals[top] = replace(finals[top], score=round(-rest_sum, 1))
        self._final = finals
        self.events.append({"type": "end_game", "scores": points})

    def final_scores(self) -> list[FinalScore]:
        """Each seat's rank, points and final score (``ValueError`` before the end)."""
        if self._final is None:
            raise ValueError("the game is not over")
        return list(self._final)

    def clone(self) -> RiichiGame:
        """An independent copy of the game (for search); events shared up to now."""
        new = RiichiGame(self.rules, None, self.evaluate, self.scoring)
        new.seed = self.seed
        new.events = list(self.events)
        new.results = list(self.results)
        new.kyoku = None if self.kyoku is None else self.kyoku.clone(new.events)
        new.over = self.over
        new.first_oya = self.first_oya
        new._pos = self._pos
        new._final = None if self._final is None else list(self._final)
        return new


def _ranking(scores: Sequence[int], first_oya: int) -> list[int]:
    """Seats from first to fourth place: points, then seat order from the first dealer."""
    return sorted(range(SEATS), key=lambda s: (-scores[s], (s - first_oya) % SEATS))
