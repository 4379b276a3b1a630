"""One hand (kyoku) of four-player Riichi mahjong: :class:`RiichiKyoku`, the state machine
of draws, discards, calls and claims.

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
:class:`~referee.games.riichi.game.RiichiGame` chains hands into a game.

The class is built in layers, a module each: :mod:`referee.games.riichi.state` (what the
hand is), :mod:`referee.games.riichi.options` (what each seat may do),
:mod:`referee.games.riichi.settle` (how the hand ends and is paid) and this one (the
moves). Its answers are :mod:`referee.games.riichi.actions`; its tiles come from a tile
source of :mod:`referee.games.riichi.walls`.

The rule choices (Tenhou ranked rules unless a
:class:`~referee.games.riichi.settings.RiichiRules` says otherwise; multiple ron, the
exhaustive draw and pao are told with the payments, in :mod:`referee.games.riichi.settle`):

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
- Abortive draws (all with the dealer repeating and honba + 1, as on Tenhou): kyuushu
  kyuuhai (declared on one's first draw before any call, with nine or more kinds of
  terminals and honors), suufon renda (the four first discards the same wind, no call),
  suukaikan (four kans by more than one player, once the fourth kan's discard passes),
  suucha riichi (when the fourth riichi is accepted), sanchahou. A riichi declared with
  the discard that ends the hand in suufon renda or suukaikan is not accepted (as in
  Mortal's arena).

Event ``reach_accepted`` adds ``deltas`` and ``scores`` to mjai's fields; the events that
end a hand are told in :mod:`referee.games.riichi.settle`.
"""

from __future__ import annotations

from typing import Any, Final

from referee.games.riichi.actions import Action
from referee.games.riichi.melds import Meld, MeldType
from referee.games.riichi.scoring import ScoringRules
from referee.games.riichi.scoring import evaluate as score_win
from referee.games.riichi.settings import SEATS, RiichiRules
from referee.games.riichi.settle import KyokuSettle
from referee.games.riichi.shape import ORPHANS, waits_mask
from referee.games.riichi.state import Evaluator
from referee.games.riichi.tiles import parse_mjai
from referee.games.riichi.walls import Deal, TileSource

__all__ = ["RiichiKyoku", "kuikae_kinds"]

_ORPHAN_SET: Final = frozenset(ORPHANS)


class RiichiKyoku(KyokuSettle):
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
        super().__init__(deal, source, rules, evaluate, scoring, events)
        self._tsumo(self.oya, rinshan=False)

    def clone(self, events: list[dict[str, Any]] | None = None) -> RiichiKyoku:
        """An independent copy (the tile source copied too) writing its events to
        ``events`` (default: a copy of this hand's events so far)."""
        return RiichiKyoku(self.deal, self.source, self.rules, self.evaluate, self.scoring,
                           list(self.events) if events is None else events, copy_of=self)

    # ---------------------------------------------------------------- answers

    def apply(self, seat: int, action: Action) -> None:
        """Play a legal answer; ``ValueError`` (with the reason) if it is not legal."""
        found = self.find_legal(seat, action)
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
        self._options = self._discard_options(seat, tile)
        self._answers = {}
        self._waiting = set(self._options)
        self.phase = "respond"
        if not self._waiting:
            self._resolve_discard()

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
            self._kuikae = kuikae_kinds(meld_type, tile, consumed)

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
        self._options = self._ankan_robbers(seat, kind, robbed)
        self._answers = {}
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
        self._options = self._kakan_robbers(seat, tile, action.pai)
        self._answers = {}
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


def kuikae_kinds(meld_type: MeldType, tile: int, consumed: list[int]) -> int:
    """The kinds (a bit each) a caller may not discard right after its chi or pon of
    ``tile`` with ``consumed`` (kuikae): the kind called, and for a chi the kind at the
    other end of the run."""
    kind = tile >> 2
    forbidden = 1 << kind
    if meld_type is MeldType.CHI:
        kinds = sorted(t >> 2 for t in consumed)
        rank = kind % 9
        if kinds[0] > kind and rank + 3 <= 8:
            forbidden |= 1 << (kind + 3)
        elif kinds[1] < kind and rank - 3 >= 0:
            forbidden |= 1 << (kind - 3)
    return forbidden
