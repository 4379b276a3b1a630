"""One seat's copy of a Riichi game, rebuilt from the mjai events that seat receives: what
the environment (:mod:`referee.games.riichi.env`) reads to give the seat its observation
and its legal mask, so that a bot (``referee bot riichi``) sees exactly what the seat
would see in the environment.

:class:`SeatKyoku` is the engine's own hand (a
:class:`~referee.games.riichi.kyoku.RiichiKyoku`: its questions, its yaku checks and its
tables of discards) whose state holds only what the seat knows: its concealed tiles,
melds, discards, riichi, ippatsu, furiten and waits; the public state (the live wall's
size, dora indicators, kans, whether the first go-around is uninterrupted, riichi, scores
and sticks). The other seats' concealed hands are empty, so the engine's own code offers
the seat exactly its options and the others none. Tiles get ids as a replay gives them
(:func:`~referee.games.riichi.tiles.tile_of`: a red five its own id, any other tile the
lowest free copy), one per tile the seat sees, so a hand and its indicators never share
an id; the options depend on names only.

Each event changes the state as the engine changed it when it emitted that event. What
the engine does once a question has passed (a discard or a kan let go: temporary
furiten, the kan counted, ippatsu broken) happens at the next event, unless it is a win.

:class:`SeatGame` is a :class:`~referee.games.riichi.game.RiichiGame` holding the seat's
hands, which :class:`~referee.games.riichi.env.RiichiEnvEngine` wraps as it wraps a game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from referee.games.riichi.actions import Action
from referee.games.riichi.game import RiichiGame
from referee.games.riichi.kyoku import RiichiKyoku, kuikae_kinds
from referee.games.riichi.melds import Meld, MeldType
from referee.games.riichi.scoring import evaluate as score_win
from referee.games.riichi.settings import SEATS, WIND_NAMES, RiichiRules
from referee.games.riichi.shape import waits_mask
from referee.games.riichi.state import KyokuResult, KyokuState
from referee.games.riichi.tiles import KINDS, TILES, kind_name, parse_mjai, tile_of
from referee.games.riichi.walls import Deal

__all__ = ["LIVE_WALL", "SeatGame", "SeatKyoku"]

LIVE_WALL: Final = 70
"""Tiles in a hand's live wall; every draw, replacement draws included, takes one."""
_OVER: Final = KyokuResult("hora", (0,) * SEATS, (0,) * SEATS, 0, False)
"""The result a seat's copy of a hand gets when it ends (the copy keeps no payments)."""


class _Counted:
    """The live wall as a seat counts it (its tiles are unknown): 70 less every draw."""

    def __init__(self) -> None:
        self.draws = 0

    def live_left(self) -> int:
        """Tiles the live wall still holds."""
        return LIVE_WALL - self.draws

    def _unknown(self) -> int:
        raise ValueError("a seat's copy of a hand does not know the wall")

    def draw(self) -> int:
        """Not known to a seat."""
        return self._unknown()

    def draw_rinshan(self) -> int:
        """Not known to a seat."""
        return self._unknown()

    def dora_indicator(self, n: int) -> int:
        """Not known to a seat (its copy keeps the indicators shown)."""
        return self._unknown()

    def ura_indicator(self, n: int) -> int:
        """Not known to a seat."""
        return self._unknown()

    def copy(self) -> _Counted:
        """An independent copy."""
        new = _Counted()
        new.draws = self.draws
        return new


class SeatKyoku(RiichiKyoku):
    """One hand as ``seat`` knows it, from its (masked) ``start_kyoku`` on; :meth:`see`
    follows each later event of the hand. ``pending()``, ``legal_actions()`` and the
    state the environment reads are the engine's for this seat (see the module)."""

    def __init__(self, seat: int, start: Mapping[str, Any], rules: RiichiRules) -> None:
        self.seat = seat
        self._taken: set[int] = set()
        self._red = rules.red_fives
        dora = self._new_id(start["dora_marker"])
        own = tuple(self._new_id(name) for name in start["tehais"][seat])
        if len(own) != 13:
            raise ValueError(f"start_kyoku deals seat {seat} {len(own)} tiles, not 13")
        spare = iter(t for t in range(TILES) if t not in self._taken)
        tehais = tuple(own if s == seat else tuple(next(spare) for _ in range(13))
                       for s in range(SEATS))
        scores = start.get("scores") or (rules.start_points,) * SEATS
        deal = Deal(tehais, dora, int(start["oya"]), WIND_NAMES.index(start["bakaze"]),
                    int(start["kyoku"]), int(start["honba"]), int(start["kyotaku"]),
                    tuple(int(s) for s in scores))
        self._wall = _Counted()
        KyokuState.__init__(self, deal, self._wall, rules, score_win, None, [])
        for s in range(SEATS):  # the others' tiles are unknown: none
            if s != seat:
                self.hands[s] = []
                self.counts[s] = [0] * KINDS
                self.waits[s] = 0
        self._quiet = True
        """Nobody is asked after this event: ``start_kyoku`` (the dealer's draw comes
        next), a daiminkan (its replacement draw), a kan's ``dora`` (a discard or a draw
        comes next), an ankan (its ``dora`` comes before the others are asked)."""
        self._after_ankan = False
        """The last event was an ankan: the others' question comes after its indicator."""
        self._kan_draw = False
        """The next draw replaces a kan's tile."""
        self._question: tuple[str, int, int] | None = None
        """A discard or kan the others may answer: (its kind, its player, the tile)."""

    # ---------------------------------------------------------------- tiles

    def _new_id(self, name: str) -> int:
        """An id for a tile the seat now sees (``ValueError`` when its kind is used up:
        events that do not fit one game)."""
        try:
            tile = tile_of(name, self._taken, red_fives=self._red)
        except ValueError as exc:
            raise ValueError(f"seat {getattr(self, 'seat', '?')}'s events do not fit one "
                             f"hand: {exc}") from None
        self._taken.add(tile)
        return tile

    # ---------------------------------------------------------------- questions

    def pending(self) -> set[int]:
        """The seat, when it must answer now (the engine's question to it), else the seat
        to act on its own turn, or nobody."""
        if self._quiet:
            return set()
        return super().pending()

    def _passed(self) -> None:
        """What the engine does once a discard or a kan has been let go."""
        question = self._question
        if question is None:
            return
        self._question = None
        kind, actor, tile = question
        if kind == "dahai":
            self._mark_passed(tile >> 2, actor)
        elif kind == "kakan":
            self._mark_passed(tile >> 2, actor)
            self.kan_owners.append(actor)
            self.clean = False
            self.ippatsu = [False] * SEATS
        else:  # an ankan: a seat asked (a kokushi wait) and passing is furiten
            for s in self._options:
                self.furiten_temp[s] = True
            self.ippatsu = [False] * SEATS
        self._options = {}
        self._waiting = set()

    def _ask(self, kind: str, actor: int, tile: int,
             options: Mapping[int, list[Action]]) -> None:
        """Others may answer ``actor``'s discard or kan of ``tile``: the seat's options,
        if it has any (``options`` the engine's, by seat)."""
        mine = options.get(self.seat)
        self._options = {self.seat: mine} if mine and actor != self.seat else {}
        self._waiting = set(self._options)
        self._answers = {}
        self._question = (kind, actor, tile)

    # ---------------------------------------------------------------- events

    def see(self, event: Mapping[str, Any]) -> None:
        """Follow one event of the hand (masked or not)."""
        kind = event["type"]
        if kind == "hora" or kind == "ryukyoku":
            self._question = None
            self._options = {}
            self._waiting = set()
            self.phase = "over"
            self.result = _OVER
            return
        if kind == "none" or kind == "end_kyoku":
            return
        if kind != "dora":  # (an ankan's indicator comes before the others are asked)
            self._passed()
            self._after_ankan = False
        self._self_cache = None
        self._quiet = False
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, event)

    def _tsumo_event(self, event: Mapping[str, Any]) -> None:
        actor = int(event["actor"])
        self._wall.draws += 1
        self.rinshan = self._kan_draw
        self._kan_draw = False
        self.actor = actor
        self.phase = "tsumo"
        if actor == self.seat:
            tile = self._new_id(event["pai"])
            self.hands[actor].append(tile)
            self.counts[actor][tile >> 2] += 1
            self.drawn = tile
        else:
            self.drawn = None

    def _dahai_event(self, event: Mapping[str, Any]) -> None:
        actor = int(event["actor"])
        seat = self.seat
        drawn = self.drawn
        tsumogiri = event.get("tsumogiri")
        if tsumogiri is None:  # a writer that leaves it out: the drawn tile if it is that
            tsumogiri = drawn is not None and self.names[drawn] == event["pai"] \
                and self.counts[seat][drawn >> 2] == 1
        if actor == seat:
            if tsumogiri and drawn is not None:
                tile = drawn
                self.hands[seat].remove(tile)
                self.counts[seat][tile >> 2] -= 1
            else:
                tile = self._take(seat, event["pai"], avoid=drawn)
            if not tsumogiri:
                self.waits[seat] = waits_mask(self.counts[seat])
            self.furiten_temp[seat] = False
            if self.phase == "reach":
                self._reach_by = seat
        else:
            tile = self._new_id(event["pai"])
        self.rivers[actor].append(tile)
        self.river_kinds[actor] |= 1 << (tile >> 2)
        self.discards[actor] += 1
        if self.riichi[actor]:
            self.ippatsu[actor] = False
        self.drawn = None
        self.rinshan = False
        self._kuikae = 0
        self.last_discard = (actor, tile)
        self.actor = actor
        self.phase = "respond"
        self._ask("dahai", actor, tile,
                  self._discard_options(actor, tile) if actor != seat else {})

    def _reach_event(self, event: Mapping[str, Any]) -> None:
        actor = int(event["actor"])
        if actor == self.seat:
            self._reach_double = self.clean and not self.discards[actor]
        self.actor = actor
        self.phase = "reach"

    def _reach_accepted_event(self, event: Mapping[str, Any]) -> None:
        actor = int(event["actor"])
        self._reach_by = None
        self.riichi[actor] = True
        self.ippatsu[actor] = True
        if actor == self.seat:
            self.double_riichi[actor] = self._reach_double
        scores = event.get("scores")
        if scores is not None:
            self.scores = [int(s) for s in scores]
        else:
            self.scores[actor] -= 1000
        self.kyotaku += 1

    def _call_event(self, event: Mapping[str, Any]) -> None:
        kind = event["type"]
        actor = int(event["actor"])
        seat = self.seat
        if self.last_discard is None:
            raise ValueError(f"{kind} with no discard before it")
        target, tile = self.last_discard
        self.called.add(tile)
        self.clean = False
        self.opened[actor] = True
        self.ippatsu = [False] * SEATS
        meld_type = MeldType(kind)
        consumed: list[int] = []
        if actor == seat:
            consumed = [self._take(seat, name) for name in event["consumed"]]
            self.melds[seat].append(Meld(meld_type, tuple(sorted([*consumed, tile])), tile,
                                         target))
        self.actor = actor
        self.drawn = None
        self.rinshan = False
        if meld_type is MeldType.DAIMINKAN:
            self.kan_owners.append(actor)
            if actor == seat:
                self.waits[seat] = waits_mask(self.counts[seat])
            self._kan_draw = True
            self._quiet = True  # until the replacement draw
            return
        self.phase = "call"
        if consumed and self.rules.kuikae_forbidden:
            self._kuikae = kuikae_kinds(meld_type, tile, consumed)

    def _ankan_event(self, event: Mapping[str, Any]) -> None:
        actor = int(event["actor"])
        seat = self.seat
        kind = parse_mjai(event["consumed"][0])[0]
        self.kan_owners.append(actor)
        self.clean = False
        self.drawn = None
        self._kan_draw = True
        self.phase = "chankan"
        self._quiet = self._after_ankan = True
        if actor == seat:
            tiles = [t for t in self.hands[seat] if t >> 2 == kind]
            for t in tiles:
                self._remove(seat, t)
            self.melds[seat].append(Meld(MeldType.ANKAN, tuple(sorted(tiles))))
            self.waits[seat] = waits_mask(self.counts[seat])
            self.ippatsu = [False] * SEATS  # (the others' chankan question: not ours)
            self._options = {}
            self._waiting = set()
            return
        robbed = self._new_id(kind_name(kind))  # the engine's: the kan's highest id
        self._ask("ankan", actor, robbed, self._ankan_robbers(actor, kind, robbed))

    def _kakan_event(self, event: Mapping[str, Any]) -> None:
        actor = int(event["actor"])
        seat = self.seat
        pai = event["pai"]
        self.drawn = None
        self._kan_draw = True
        self.phase = "chankan"
        if actor == seat:
            tile = self._take(seat, pai)
            self.waits[seat] = waits_mask(self.counts[seat])
            melds = self.melds[seat]
            for i, meld in enumerate(melds):
                if meld.type is MeldType.PON and meld.kind == tile >> 2:
                    melds[i] = Meld(MeldType.KAKAN, tuple(sorted([*meld.tiles, tile])),
                                    meld.taken, meld.target)
                    break
            self.kan_owners.append(seat)
            self.clean = False
            self.ippatsu = [False] * SEATS  # (the others' chankan question: not ours)
            self._options = {}
            self._waiting = set()
            return
        tile = self._new_id(pai)
        self._ask("kakan", actor, tile, self._kakan_robbers(actor, tile, pai))

    def _dora_event(self, event: Mapping[str, Any]) -> None:
        self.dora.append(self._new_id(event["dora_marker"]))
        self._quiet = not self._after_ankan  # (else: the others may rob the ankan now)
        self._after_ankan = False


_HANDLERS: Final = {
    "tsumo": SeatKyoku._tsumo_event,
    "dahai": SeatKyoku._dahai_event,
    "reach": SeatKyoku._reach_event,
    "reach_accepted": SeatKyoku._reach_accepted_event,
    "chi": SeatKyoku._call_event,
    "pon": SeatKyoku._call_event,
    "daiminkan": SeatKyoku._call_event,
    "ankan": SeatKyoku._ankan_event,
    "kakan": SeatKyoku._kakan_event,
    "dora": SeatKyoku._dora_event,
}


class SeatGame(RiichiGame):
    """A game as ``seat`` knows it from the events it receives (:meth:`see`), under
    ``rules``; ``events`` holds them, as the environment's table reads them."""

    def __init__(self, seat: int, rules: RiichiRules) -> None:
        super().__init__(rules, seed=None)
        self.seat = seat
        self.started = 0
        """Hands started so far."""
        self.hand: SeatKyoku | None = None
        """The hand being played (also ``kyoku``)."""

    def see(self, event: Mapping[str, Any]) -> None:
        """Follow one event (``ValueError`` for one that does not fit the game)."""
        self.events.append(dict(event))
        kind = event["type"]
        if kind == "start_kyoku":
            if not self.started:  # the first dealer: each kyoku number moves the deal on
                self.first_oya = (int(event["oya"]) - (int(event["kyoku"]) - 1)) % SEATS
            self.started += 1
            self.hand = self.kyoku = SeatKyoku(self.seat, event, self.rules)
        elif kind == "end_game":
            self.over = True
        elif self.hand is not None:
            self.hand.see(event)
