"""What each seat may do in a Riichi hand: :class:`KyokuOptions`, the layer of
:class:`~referee.games.riichi.kyoku.RiichiKyoku` that asks the questions.

:meth:`KyokuOptions.pending` names the seats to answer now,
:meth:`KyokuOptions.legal_actions` their options, :meth:`KyokuOptions.find_legal` the
engine's own option equal to a given action (:meth:`KyokuOptions.illegal_reason` says why
there is none). The options are those a real mjai client is offered (its "possible
actions"): on one's own turn the discards (kuikae and the riichi discard rules applied),
riichi, ankan, kakan, tsumo, kyuushu kyuuhai; on another seat's discard ron, pon,
daiminkan, chi (a call that would leave no legal discard is not offered); on a kan,
chankan. The rules behind each are told in :mod:`referee.games.riichi.kyoku`.

Speed: winning shapes, waits and riichi discards come from the tables of
:mod:`referee.games.riichi.shape`; the hand-value function (``evaluate``) is called only
when a hand is complete and its yaku is not certain (riichi and a closed tsumo always have
one, and :meth:`KyokuOptions._sure_yaku` sees the yaku that need no scoring), and to score
a win.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from referee.games.riichi.actions import (
    KYUUSHU_ACTIONS,
    NONE_ACTIONS,
    REACH_ACTIONS,
    Action,
    action_to_mjai,
    name_key,
)
from referee.games.riichi.melds import MeldType
from referee.games.riichi.scoring import HandValue, WinInfo
from referee.games.riichi.scoring import evaluate as score_win
from referee.games.riichi.settings import SEATS
from referee.games.riichi.shape import (
    ORPHANS,
    can_riichi_discard,
    kokushi_waits_mask,
    tenpai_discards,
    waits_mask,
)
from referee.games.riichi.state import KyokuState
from referee.games.riichi.tiles import KINDS, kind_name

__all__ = ["KyokuOptions"]

_ORPHAN_SET: Final = frozenset(ORPHANS)
_KIND_NAMES: Final = tuple(kind_name(k) for k in range(KINDS))
_FIVES: Final = frozenset({4, 13, 22})


class KyokuOptions(KyokuState):
    """A hand's state with the questions it puts: who answers now, and each one's legal
    options (see the module's docstring)."""

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

    def _legal(self, seat: int, reach: bool = True) -> Sequence[Action]:
        """The legal actions of ``seat`` now; without ``reach``, on its own turn the riichi
        declaration may be left out (not looked for: enough to check any other action)."""
        if self.result is not None:
            return ()
        if self.phase in ("respond", "chankan"):
            return self._options.get(seat, ()) if seat in self._waiting else ()
        if seat != self.actor:
            return ()
        cache = self._self_cache
        if cache is None or (reach and not self._self_full):
            self._self_full = reach
            cache = self._self_cache = self._self_options(reach)
        return cache

    def find_legal(self, seat: int, action: Action) -> Action | None:
        """The engine's own legal action of ``seat`` equal to ``action`` (a discard
        without its tsumogiri flag: the legal one, tsumogiri first), or None if it is not
        legal (:meth:`illegal_reason` says why). Applying the one found is quickest."""
        if self.result is not None or action.actor != seat:
            return None
        legal = self._legal(seat, action.type == "reach")
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

    def _self_options(self, reach: bool = True) -> list[Action]:
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
            if (reach and not self.opened[seat] and self.scores[seat] >= 1000 and live >= 4
                    and self._riichi_possible(seat)):
                out.append(REACH_ACTIONS[seat])
            if kan_ok and 4 in counts:
                for k in range(KINDS):
                    if counts[k] == 4:
                        out.append(self._ankan_action(seat, k))
            if kan_ok and self.opened[seat]:
                for meld in self.melds[seat]:
                    if meld.type is MeldType.PON and counts[meld.kind]:
                        for n in sorted({names[t] for t in hand if t >> 2 == meld.kind},
                                        key=name_key):
                            out.append(Action("kakan", seat, pai=n, consumed=tuple(
                                sorted((names[t] for t in meld.tiles), key=name_key))))
        if self.waits[seat] >> (drawn >> 2) & 1 and self._has_yaku(seat, drawn, True, False):
            out.append(Action("hora", seat, pai=names[drawn], target=seat))
        if (self.rules.abort_kyuushu and self.clean and not self.discards[seat]
                and sum(1 for k in ORPHANS if counts[k]) >= 9):
            out.append(KYUUSHU_ACTIONS[seat])
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
            (names[t] for t in self.hands[seat] if t >> 2 == kind), key=name_key)))

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

    # ---------------------------------------------------------------- claims

    def _discard_options(self, seat: int, tile: int) -> dict[int, list[Action]]:
        """The options of the other seats on ``seat``'s discard of ``tile`` (only the
        seats that have one besides passing)."""
        kind = tile >> 2
        live = self.source.live_left()
        names = self.names
        options: dict[int, list[Action]] = {}
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
                opts.append(NONE_ACTIONS[s])
                options[s] = opts
        return options

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

    def _ankan_robbers(self, seat: int, kind: int, robbed: int) -> dict[int, list[Action]]:
        """The options of the seats that may rob ``seat``'s ankan of ``kind`` (only a
        kokushi wait on that kind, not furiten, as on Tenhou), ``robbed`` its tile."""
        options: dict[int, list[Action]] = {}
        for step in (1, 2, 3):
            s = (seat + step) % SEATS
            if (len(self.hands[s]) == 13 and kokushi_waits_mask(self.counts[s]) >> kind & 1
                    and not self._furiten(s)):
                options[s] = [Action("hora", s, pai=self.names[robbed], target=seat),
                              NONE_ACTIONS[s]]
        return options

    def _kakan_robbers(self, seat: int, tile: int, pai: str) -> dict[int, list[Action]]:
        """The options of the seats that may rob ``seat``'s kakan of ``tile`` (named
        ``pai``): chankan, for a seat waiting on it with a yaku and not furiten."""
        kind = tile >> 2
        options: dict[int, list[Action]] = {}
        for step in (1, 2, 3):
            s = (seat + step) % SEATS
            if (self.waits[s] >> kind & 1 and not self._furiten(s)
                    and self._has_yaku(s, tile, False, True)):
                options[s] = [Action("hora", s, pai=pai, target=seat), NONE_ACTIONS[s]]
        return options
