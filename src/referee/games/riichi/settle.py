"""How a Riichi hand ends, and a game: :class:`KyokuSettle`, the layer of
:class:`~referee.games.riichi.kyoku.RiichiKyoku` that settles a hand (wins, draws,
payments), and :func:`final_standings`, a game's final result.

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
- Exhaustive draw: noten bappu (3000 split between tenpai and noten players), or, when
  someone qualifies, nagashi mangan instead (all of the player's discards terminals or
  honors and none of them called; paid as a mangan tsumo, no honba, the sticks stay on the
  table; several qualify: each is paid). The dealer repeats if tenpai; honba + 1.
- Abortive draws pay nothing; the dealer repeats, honba + 1 (as on Tenhou).
- Pao (``pao``, on): a pon or daiminkan of a dragon that completes the third dragon set,
  or of a wind that completes the fourth wind set, makes its discarder liable for
  daisangen or daisuushii: on a tsumo it pays that yakuman whole, on a ron by another
  seat half of it (the discarder pays the other half), and all the honba; further
  yakuman in the hand are paid as usual (:meth:`HandValue.pao_deltas
  <referee.games.riichi.scoring.HandValue.pao_deltas>`). The ``hora`` event then carries
  ``pao`` (the liable seat), as Tenhou's AGARI carries ``paoWho``. Source: riichi.wiki
  "Sekinin barai" (Tenhou and Mahjong Soul apply it to these two yakuman); the honba
  with the liable seat as in Mahjong Soul's logs.
- The end of a game: riichi sticks left on the table go to first place; ranks, uma, oka
  and rounding as :class:`~referee.games.riichi.settings.RiichiRules` says
  (:func:`final_standings`).

Event ``ryukyoku`` carries the reason as the original mjai names it (and as
:mod:`referee.games.riichi.mjlog` converts Tenhou's codes): ``fanpai`` (exhaustive draw),
``nagashimangan``, ``kyushukyuhai``, ``sufonrenta``, ``sukaikan``, ``suchareach``,
``sanchaho``; an exhaustive draw adds ``tenpais`` and ``tehais``. Event ``hora`` adds to
Mortal's fields ``pai``, ``scores``, ``hora_tehais`` (the hand less the winning tile), ``fan``,
``fu``, ``hora_points`` (the hand's value) and ``yakus`` ([name, han], the package's names);
``end_game`` adds the final ``scores``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from referee.games.riichi.options import KyokuOptions
from referee.games.riichi.settings import SEATS, RiichiRules
from referee.games.riichi.state import KyokuResult

__all__ = ["FinalScore", "KyokuSettle", "final_standings", "ranking"]


class KyokuSettle(KyokuOptions):
    """A hand's state and questions, with the ways it ends: rons and tsumo (agari), the
    exhaustive draw (ryuukyoku, nagashi mangan) and the abortive draws, each paid and
    recorded (its events, then :attr:`result`)."""

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


@dataclass(frozen=True)
class FinalScore:
    """A seat's result: its rank (1..4), points (riichi sticks left at the end included
    for first place) and final score in thousands, uma and oka included."""

    rank: int
    points: int
    score: float


def ranking(scores: Sequence[int], first_oya: int) -> list[int]:
    """Seats from first to fourth place: points, then seat order from the first dealer."""
    return sorted(range(SEATS), key=lambda s: (-scores[s], (s - first_oya) % SEATS))


def final_standings(scores: Sequence[int], kyotaku: int, first_oya: int,
                    rules: RiichiRules, last: int | None = None) -> list[FinalScore]:
    """Each seat's rank, points and final score at the end of a game left with ``scores``
    and ``kyotaku`` riichi sticks on the table (they go to first place); ``first_oya``
    the first dealer (seat order from it breaks ties). ``last``: a seat put in fourth
    place whatever its points (one that forfeits: the learning environment's illegal
    action), the others ranked among themselves."""
    order = ranking(scores, first_oya)
    if last is not None:
        order.remove(last)
        order.append(last)
    points = list(scores)
    points[order[0]] += 1000 * kyotaku
    oka = (rules.return_points - rules.start_points) * SEATS / 1000
    bonus = [float(u) for u in rules.uma]
    bonus[0] += oka
    finals: list[FinalScore] = [FinalScore(0, 0, 0.0)] * SEATS
    i = 0
    while i < SEATS:
        j = i
        if rules.first_place_ties == "split":  # ties on the scores before the sticks
            while j + 1 < SEATS and scores[order[j + 1]] == scores[order[i]] \
                    and order[j + 1] != last:
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
    return finals
