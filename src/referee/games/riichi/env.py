"""Riichi mahjong as a PettingZoo AEC environment, over the engine that referees matches
(``referee.envs.make("riichi", ...)``; the layout is in docs/envs.md).

One agent decides at a time. The engine asks every seat with an option at once after a
discard or a kan (ron, pon, kan, chi or pass), as the mjai referee does; here
:class:`RiichiEnvEngine` puts those questions to the seats one after the other, lowest
seat first (the order in which the referee applies their answers). A seat does not see
the answers given before its own (the engine keeps them until everyone has answered);
then the engine settles the claims by their priority, exactly as in a match.

Actions are kanachan's option numbers (:mod:`referee.games.riichi.kanachan.encoding`,
0..545: discards by tile with the tsumogiri and riichi bits, closed and added kans, tsumo,
nine terminals, pass, chi, pon, open kan, ron) and 546, the riichi declaration. Where
kanachan folds riichi into the declaration discard (one option with the riichi bit), the
engine and mjai take two decisions: 546, then the discard, numbered with the riichi bit.

The observation starts with kanachan's sparse features (multi-hot) and numeric features
(the scores as thousands and hundreds: every cell is a whole number 0..255, a byte), then
each seat's river and calls (from kanachan's progression codes), its riichi and
whether it deals, and what is being decided. Rewards: the final scores as a match
records them (uma and oka included, in thousands of points).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

import numpy as np

from referee.core.aec import EngineEnv
from referee.games.riichi.actions import (
    KYUUSHU_ACTIONS,
    NONE_ACTIONS,
    REACH_ACTIONS,
    RED_DAHAI,
    Action,
    action_to_mjai,
    name_key,
)
from referee.games.riichi.game import RiichiGame
from referee.games.riichi.kanachan.annotate import DEFAULT_GRADE, DEFAULT_ROOM
from referee.games.riichi.kanachan.encoding import (
    DORA,
    DRAWN,
    GRADE,
    LEFT,
    O_ANKAN,
    O_CHI,
    O_DAIMINKAN,
    O_KAKAN,
    O_KYUUSHU,
    O_PON,
    O_RON,
    O_SKIP,
    O_TSUMO,
    OPTION_VALUE,
    RANK,
    ROUND,
    SEAT,
    SPARSE_PADDING,
    STYLE,
    WIND,
    chi_code,
    decode_option,
    encode_hand,
    encode_tile,
    pon_code,
)
from referee.games.riichi.kyoku import RiichiKyoku
from referee.games.riichi.rulesets import preset_rules
from referee.games.riichi.settings import SEATS, WIND_NAMES, RiichiRules
from referee.games.riichi.settle import final_standings, ranking
from referee.games.riichi.tiles import TILES, kind_name, mjai_name, parse_mjai

__all__ = ["ACTIONS", "OBSERVATION_SIZE", "RIICHI", "RiichiEnvEngine", "RiichiEnvGame",
           "make_env"]

# ------------------------------------------------------------------------------ layout

RIICHI: Final = OPTION_VALUE
"""Action 546: declare riichi (then discard, numbered with the riichi bit)."""
ACTIONS: Final = RIICHI + 1

NUMERIC: Final = SPARSE_PADDING
"""Offset of the numeric features: honba, sticks, then the four scores (own first), each
as two cells: its thousands and its hundreds."""
TABLE: Final = NUMERIC + 2 + 2 * SEATS
"""Offset of the four seat blocks (own seat, right, across, left)."""
RIVER_SLOTS: Final = 24
SLOT: Final = 40
"""A river slot: the tile (kanachan number 0..36), tsumogiri, riichi discard, called."""
CALLS: Final = RIVER_SLOTS * SLOT
"""Offset in a seat block of its calls: counts of kanachan's progression codes."""
C_PON: Final = 90
C_DAIMINKAN: Final = 210
C_ANKAN: Final = 321
C_KAKAN: Final = 355
STATUS: Final = CALLS + 392
"""Offset in a seat block of: riichi declared, riichi accepted, dealer."""
BLOCK: Final = STATUS + 3
CONTEXT: Final = TABLE + SEATS * BLOCK
"""Offset of the decision: phase (5), the tile answered (37), its player (3)."""
PHASES: Final = ("tsumo", "reach", "call", "respond", "chankan")
OBSERVATION_SIZE: Final = CONTEXT + len(PHASES) + 37 + 3
HIGH: Final = 255.0
"""The largest value a cell takes: every cell is a whole number from 0 to 255 (a byte, as
datasets store it); honba, sticks and thousands of points are clipped to it."""
MAX_SCORE: Final = 255_900
"""Scores are clipped to 0..255,900 points (255 thousands and 9 hundreds)."""

_TILE_NUMBER: Final = tuple(encode_tile(mjai_name(t)) for t in range(TILES))
_BYTE: Final = 255
"""The largest value of a cell (``HIGH``, as a whole number)."""
_NO_CONTEXT: Final = bytes(OBSERVATION_SIZE - CONTEXT)
"""The cells after the four blocks, all 0 (the observation's end)."""
_HAND_FIRST: Final = tuple(encode_hand([mjai_name(t)])[0] for t in range(TILES))
"""Per tile id, the sparse hand feature of the first copy of its name."""
_DAHAI: Final = {mjai_name(t): encode_tile(mjai_name(t)) * 4 for t in range(TILES)}
_FIVES: Final = frozenset({4, 13, 22})


_PHASE_CELL: Final = {phase: CONTEXT + i for i, phase in enumerate(PHASES)}
_SHARED: Final = {
    **{id(RED_DAHAI[s][t][flag]): _DAHAI[mjai_name(t)] + 2 * flag
       for s in range(SEATS) for t in range(TILES) for flag in (0, 1)},
    **{id(a): O_SKIP for a in NONE_ACTIONS}, **{id(a): RIICHI for a in REACH_ACTIONS},
    **{id(a): O_KYUUSHU for a in KYUUSHU_ACTIONS}}
"""The numbers of the engine's shared action objects (discards without the riichi bit),
by identity: the mask's quick way."""


@cache
def _chi(consumed: tuple[str, ...], pai: str) -> int:
    return chi_code(consumed, pai)


@cache
def _pon(consumed: tuple[str, ...], pai: str) -> int:
    return pon_code(consumed, pai)


def _points(score: int) -> tuple[int, int]:
    """A score as the numeric features give it: its thousands and its hundreds (scores
    are multiples of 100), clipped to 0..255,900 points."""
    clipped = min(max(score, 0), MAX_SCORE)
    return clipped // 1000, clipped % 1000 // 100


def _rel(seat: int, other: int) -> int:
    """Where ``other`` sits seen from ``seat``: 0 right, 1 across, 2 left."""
    return (other - seat) % SEATS - 1


# ------------------------------------------------------------------------------ the engine

class _Table:
    """What every seat may see of the hand in play, per absolute seat as one block of the
    observation, kept up to date from the engine's events (only their public parts)."""

    def __init__(self) -> None:
        self.blocks = bytearray(2 * SEATS * BLOCK)
        """Each seat's block, one byte a cell, twice over (at ``s * BLOCK`` and ``(s + 4)
        * BLOCK``): the four blocks seen from any seat are one slice."""
        self.read = 0
        self.river = [0] * SEATS
        self.declaring = [False] * SEATS
        self.claimable: tuple[int, str] | None = None
        """The seat and tile of the last discard, added kan or closed kan."""
        self._heads: dict[tuple[int, ...], bytes] = {}
        self._heads_of: object = None

    def head(self, kyoku: RiichiKyoku, rules: RiichiRules, seat: int, first: int) -> bytes:
        """The observation's sparse and numeric features that change only with the dora
        indicators, the sticks and the scores (all but the tiles left, the hand and the
        drawn tile), for ``seat``, one byte a cell; ``first`` the first dealer. Kept per
        hand."""
        scores = kyoku.scores
        key = (seat, len(kyoku.dora), kyoku.kyotaku, *scores)
        if self._heads_of is kyoku:
            head = self._heads.get(key)
            if head is not None:
                return head
        else:
            self._heads_of = kyoku
            self._heads = {}
        hot = [DEFAULT_ROOM, STYLE + (rules.game_length != "east"),
               SEAT + (seat - first) % SEATS, WIND + min(kyoku.bakaze, 2),
               ROUND + kyoku.kyoku - 1]
        hot.extend(DORA[i] + _TILE_NUMBER[t] for i, t in enumerate(kyoku.dora[:5]))
        order = ranking(scores, first)
        for i in range(SEATS):
            hot.extend((GRADE[i] + DEFAULT_GRADE, RANK[i] + order.index((seat + i) % SEATS)))
        cells = bytearray(TABLE)
        for cell in hot:
            cells[cell] = 1
        cells[NUMERIC:] = bytes([min(kyoku.honba, _BYTE), min(kyoku.kyotaku, _BYTE),
                                 *(n for i in range(SEATS)
                                   for n in _points(scores[(seat + i) % SEATS]))])
        head = self._heads[key] = bytes(cells)
        return head

    def follow(self, events: Sequence[dict[str, Any]]) -> None:
        """Read the events not read yet."""
        blocks = self.blocks
        for i in range(self.read, len(events)):
            event = events[i]
            kind = event["type"]
            if kind == "tsumo" or kind == "dora":
                continue
            actor = event.get("actor", 0)
            if kind == "dahai":
                slot = self.river[actor]
                self.river[actor] = slot + 1
                pai = event["pai"]
                self.claimable = (actor, pai)
                if slot < RIVER_SLOTS:
                    base = actor * BLOCK + slot * SLOT
                    self._set(base + encode_tile(pai))
                    if event["tsumogiri"]:
                        self._set(base + 37)
                    if self.declaring[actor]:
                        self._set(base + 38)
                self.declaring[actor] = False
            elif kind in ("chi", "pon", "daiminkan"):
                target = event["target"]
                slot = self.river[target] - 1
                if slot < RIVER_SLOTS:
                    self._set(target * BLOCK + slot * SLOT + 39)
                pai = event["pai"]
                consumed = tuple(event["consumed"])
                rel = _rel(actor, target)
                if kind == "chi":
                    code = _chi(consumed, pai)
                elif kind == "pon":
                    code = C_PON + rel * 40 + _pon(consumed, pai)
                else:
                    code = C_DAIMINKAN + rel * 37 + encode_tile(pai)
                self._count(actor * BLOCK + CALLS + code)
            elif kind == "ankan":
                kind_of = parse_mjai(event["consumed"][0])[0]
                self._count(actor * BLOCK + CALLS + C_ANKAN + kind_of)
                self.claimable = (actor, kind_name(kind_of))
            elif kind == "kakan":
                self._count(actor * BLOCK + CALLS + C_KAKAN + encode_tile(event["pai"]))
                self.claimable = (actor, event["pai"])
            elif kind == "reach":
                self.declaring[actor] = True
                self._set(actor * BLOCK + STATUS)
            elif kind == "reach_accepted":
                self._set(actor * BLOCK + STATUS + 1)
            elif kind == "start_kyoku":
                blocks[:] = bytes(len(blocks))
                self._set(event["oya"] * BLOCK + STATUS + 2)
                self.river = [0] * SEATS
                self.declaring = [False] * SEATS
                self.claimable = None
        self.read = len(events)

    def copy(self) -> _Table:
        """An independent copy (its cache of heads left behind: it belongs to a hand)."""
        other = _Table()
        other.blocks[:] = self.blocks
        other.read = self.read
        other.river = list(self.river)
        other.declaring = list(self.declaring)
        other.claimable = self.claimable
        return other

    def _set(self, cell: int) -> None:
        """Set ``cell`` (of the first copy of the blocks) and its twin to 1."""
        blocks = self.blocks
        blocks[cell] = blocks[cell + SEATS * BLOCK] = 1

    def _count(self, cell: int) -> None:
        """One more call of the code at ``cell`` (and its twin)."""
        blocks = self.blocks
        blocks[cell] = blocks[cell + SEATS * BLOCK] = blocks[cell] + 1


class RiichiEnvEngine:
    """A :class:`RiichiGame` as the core's ``Engine`` (``core.match``), one seat at a time:
    the seats the engine asks at once answer in turn, lowest seat first.

    ``moves`` counts the actions applied (it keys the caches of :class:`RiichiEnvGame`).
    """

    def __init__(self, game: RiichiGame) -> None:
        self.game = game
        self.moves = 0
        self.table = _Table()
        self.cache: tuple[int, int, np.ndarray[Any, Any], dict[int, Action]] | None = None
        """(moves, seat, legal mask, legal action by number) of the last mask made."""
        self._turn: tuple[int, int | None] = (-1, None)

    def to_play(self) -> int | None:
        """The seat to decide next (the lowest of those the engine asks), None at the end."""
        moves, seat = self._turn
        if moves == self.moves:
            return seat
        game = self.game
        if game.over or game.kyoku is None:
            seat = None
        else:
            pending = game.kyoku.pending()
            seat = min(pending) if pending else None
        self._turn = (self.moves, seat)
        return seat

    def illegal_reason(self, seat: int, action: Any) -> str | None:
        """Why ``action`` is not ``seat``'s to play now (None if it is)."""
        if not isinstance(action, Action):
            return f"not a Riichi action: {action!r}"
        turn = self.to_play()
        if seat != turn:
            return f"seat {seat} is not to decide now (seat {turn} is)"
        return self.game.illegal_reason(seat, action)

    def apply(self, seat: int, action: Action) -> None:
        """Play a legal action (the engine settles the claims once all have answered)."""
        self.game.apply(seat, action)
        self.moves += 1

    def notation(self, action: Any) -> str:
        """The action as a match records it (its mjai JSON)."""
        if not isinstance(action, Action):
            return repr(action)
        return json.dumps(action_to_mjai(action))

    def scores(self) -> list[float]:
        """The final scores a match records (uma and oka included, thousands of points)."""
        return [f.score for f in self.game.final_scores()]

    def end_reason(self) -> str:
        """How many hands were played and the final points."""
        finals = self.game.final_scores()
        return f"{len(self.game.results)} hands; points {[f.points for f in finals]}"

    def forfeit_scores(self, seat: int) -> list[float]:
        """The game stops now with ``seat`` fourth whatever its points, the others ranked
        by their points; sticks on the table to first place; uma, oka and rounding as the
        room's rules say."""
        game = self.game
        kyoku = game.kyoku
        if kyoku is not None and kyoku.result is None:
            scores, sticks = list(kyoku.scores), kyoku.kyotaku
        else:
            position = game.position()
            scores, sticks = list(position.scores), position.kyotaku
        finals = final_standings(scores, sticks, game.first_oya, game.rules, last=seat)
        return [f.score for f in finals]

    def view(self) -> _Table:
        """The public table, brought up to date."""
        self.table.follow(self.game.events)
        return self.table


# ------------------------------------------------------------------------------ the game

@dataclass
class RiichiEnvGame:
    """Riichi for ``EngineEnv``: the rules of a room and length (``rules``)."""

    rules: RiichiRules
    name: str = "riichi"
    seats: int = SEATS
    actions: int = ACTIONS
    observation_shape: tuple[int, ...] = (OBSERVATION_SIZE,)
    observation_high: float = HIGH

    def __post_init__(self) -> None:
        if not self.rules.red_fives:
            raise ValueError("the Riichi environment needs red fives (kanachan's encoding "
                             "has three slots for the plain fives of a suit)")

    def new_engine(self, seed: int) -> RiichiEnvEngine:
        """A new game; every hand's wall comes from ``seed`` (as in ``referee match``)."""
        return RiichiEnvEngine(RiichiGame(self.rules, seed=seed))

    def copy_engine(self, engine: RiichiEnvEngine) -> RiichiEnvEngine:
        """An independent copy (the environment's ``state`` and ``clone``): the game's
        own ``clone`` (a deep copy would copy the engine's shared action objects, which
        the mask tells by identity), the public table copied."""
        other = RiichiEnvEngine(engine.game.clone())
        other.moves = engine.moves
        other.table = engine.table.copy()
        return other

    # -------------------------------------------------------------- observation

    def observe(self, engine: RiichiEnvEngine, seat: int) -> np.ndarray[Any, Any]:
        """What ``seat`` sees (the layout is in docs/envs.md), as float32."""
        return self.observe_bytes(engine, seat).astype(np.float32)

    def observe_bytes(self, engine: RiichiEnvEngine, seat: int) -> np.ndarray[Any, Any]:
        """``observe`` as uint8 (every cell is a whole number 0..255), made as cheaply:
        what datasets store."""
        table = engine.view()
        game = engine.game
        kyoku = game.kyoku
        if kyoku is None:  # pragma: no cover - a seeded game always has a hand
            return np.zeros(OBSERVATION_SIZE, dtype=np.uint8)
        cells = bytearray(table.head(kyoku, self.rules, seat, game.first_oya))
        cells += table.blocks[seat * BLOCK:(seat + SEATS) * BLOCK]
        cells += _NO_CONTEXT
        cells[LEFT + kyoku.source.live_left()] = 1
        phase = kyoku.phase
        drawn = kyoku.drawn if (phase == "tsumo" or phase == "reach") \
            and kyoku.actor == seat else None
        first, copy = -1, 0  # a name's copies lie together in order: slots slot, slot+1..
        for t in sorted(kyoku.hands[seat]):
            if t != drawn:
                slot = _HAND_FIRST[t]
                if slot == first:
                    copy += 1
                else:
                    first, copy = slot, 0
                cells[slot + copy] = 1
        if drawn is not None:
            cells[DRAWN + _TILE_NUMBER[drawn]] = 1
        if phase in _PHASE_CELL:
            cells[_PHASE_CELL[phase]] = 1
            claimable = table.claimable
            if (phase == "respond" or phase == "chankan") and claimable is not None:
                who, pai = claimable
                cells[CONTEXT + 5 + encode_tile(pai)] = 1
                if who != seat:
                    cells[CONTEXT + 42 + (who - seat) % SEATS - 1] = 1
        return np.frombuffer(cells, dtype=np.uint8)

    # -------------------------------------------------------------- actions

    def legal_mask(self, engine: RiichiEnvEngine, seat: int) -> np.ndarray[Any, Any]:
        """1 for the number of each of the engine's legal actions of ``seat``."""
        return self._legal(engine, seat)[0].copy()

    def _legal(self, engine: RiichiEnvEngine,
               seat: int) -> tuple[np.ndarray[Any, Any], dict[int, Action]]:
        cache = engine.cache
        if cache is not None and cache[0] == engine.moves and cache[1] == seat:
            return cache[2], cache[3]
        if engine.to_play() == seat:
            mask, by_number = self._numbered(engine, seat)
        else:
            mask, by_number = np.zeros(ACTIONS, dtype=np.int8), {}
        engine.cache = (engine.moves, seat, mask, by_number)
        return mask, by_number

    def _numbered(self, engine: RiichiEnvEngine,
                  seat: int) -> tuple[np.ndarray[Any, Any], dict[int, Action]]:
        """The mask of the engine's legal actions of ``seat``, and the actions by number."""
        cells = bytearray(ACTIONS)
        by_number: dict[int, Action] = {}
        kyoku = engine.game.kyoku
        riichi = kyoku is not None and kyoku.phase == "reach"
        for action in engine.game.legal_actions(seat):
            number = _SHARED.get(id(action))
            if number is None:
                number = self.index(engine, seat, action)
            elif riichi and number < O_ANKAN:
                number += 1
            by_number[number] = action
            cells[number] = 1
        return np.frombuffer(cells, dtype=np.int8), by_number

    def asked_mask(self, engine: RiichiEnvEngine, seat: int) -> np.ndarray[Any, Any]:
        """The mask ``seat`` gets when the environment asks it, now: its legal actions
        whether or not it is the seat to decide first (of several seats answering a
        discard, each is asked in turn and its options do not change meanwhile). For a
        replay that takes the answers in another order than the environment's."""
        if engine.to_play() == seat:
            return self._legal(engine, seat)[0]
        return self._numbered(engine, seat)[0]

    def action(self, engine: RiichiEnvEngine, seat: int, index: int) -> Action:
        """The engine's action numbered ``index`` (its own legal action when legal)."""
        legal = self._legal(engine, seat)[1].get(index)
        if legal is not None:
            return legal
        return self._decode(engine, seat, index)

    def legal_action(self, engine: RiichiEnvEngine, seat: int, index: int) -> Action | None:
        """The engine's own legal action numbered ``index``, None if it is not legal."""
        return self._legal(engine, seat)[1].get(index)

    def _decode(self, engine: RiichiEnvEngine, seat: int, index: int) -> Action:
        """The action a number stands for when it is not legal now (for the reason)."""
        if index == RIICHI:
            return REACH_ACTIONS[seat]
        move = decode_option(index)
        kind = move.kind
        tile = move.tile
        if kind == "dahai":
            return Action("dahai", seat, pai=tile, tsumogiri=move.tsumogiri)
        if kind == "skip":
            return NONE_ACTIONS[seat]
        if kind == "kyuushu":
            return KYUUSHU_ACTIONS[seat]
        kyoku = engine.game.kyoku
        if kind == "tsumo":
            drawn = None if kyoku is None or kyoku.drawn is None else mjai_name(kyoku.drawn)
            return Action("hora", seat, pai=drawn, target=seat)
        assert move.rel is not None or kind in ("ankan", "kakan")
        target = (seat + (move.rel or 0) + 1) % SEATS
        if kind == "ron":
            claimable = engine.view().claimable
            return Action("hora", seat, pai=None if claimable is None else claimable[1],
                          target=target)
        if kind in ("chi", "pon"):
            return Action(kind, seat, pai=tile, target=target,
                          consumed=tuple(sorted(move.consumed, key=name_key)))
        assert tile is not None
        plain = tile[:2]
        red = parse_mjai(tile)[0] in _FIVES
        if kind == "ankan":
            return Action("ankan", seat, consumed=(plain,) * 3 + (plain + "r" if red else plain,))
        three = (plain, plain, plain + "r" if red and not tile.endswith("r") else plain)
        if kind == "kakan":
            return Action("kakan", seat, pai=tile, consumed=three)
        return Action("daiminkan", seat, pai=tile, target=target, consumed=three)

    def index(self, engine: RiichiEnvEngine, seat: int, action: Any) -> int:
        """The number of the engine's ``action`` of ``seat`` (kanachan's option number;
        546 for riichi). A discard without its tsumogiri flag is numbered as the engine
        plays it. ``ValueError`` for what is not a Riichi action."""
        if not isinstance(action, Action):
            raise ValueError(f"not a Riichi action: {action!r}")
        kind = action.type
        pai = action.pai
        if kind == "dahai":
            if action.tsumogiri is None:
                action = engine.game.find_legal(seat, action) or action.with_tsumogiri(False)
            kyoku = engine.game.kyoku
            riichi = kyoku is not None and kyoku.phase == "reach"
            number = _DAHAI.get(str(pai))
            if number is None:
                raise ValueError(f"a discard of no tile: {action!r}")
            return number + 2 * bool(action.tsumogiri) + riichi
        if kind == "none":
            return O_SKIP
        if kind == "hora":
            target = action.target
            if target is None or target == seat:
                return O_TSUMO
            return O_RON + _rel(seat, target)
        if kind == "reach":
            return RIICHI
        if kind == "ryukyoku":
            return O_KYUUSHU
        if kind == "chi":
            return O_CHI + _chi(action.consumed, str(pai))
        if kind == "ankan":
            return O_ANKAN + parse_mjai(action.consumed[0])[0]
        if kind == "kakan":
            return O_KAKAN + encode_tile(str(pai))
        target = action.target if action.target is not None else (seat + 2) % SEATS
        if kind == "pon":
            return O_PON + _rel(seat, target) * 40 + _pon(action.consumed, str(pai))
        if kind == "daiminkan":
            return O_DAIMINKAN + _rel(seat, target) * 37 + encode_tile(str(pai))
        raise ValueError(f"not a Riichi action type: {kind!r}")

    # -------------------------------------------------------------- text

    def render(self, engine: RiichiEnvEngine) -> str:
        """The table for people: every hand (all of them: a spectator's view), melds,
        rivers, dora indicators, scores; the final standings once the game is over."""
        game = engine.game
        kyoku = game.kyoku
        if kyoku is None:  # pragma: no cover - a seeded game always has a hand
            return "no hand yet"
        names = kyoku.names
        lines = [f"{WIND_NAMES[kyoku.bakaze]}{kyoku.kyoku}-{kyoku.honba} "
                 f"sticks {kyoku.kyotaku}, dora indicators "
                 f"{' '.join(names[t] for t in kyoku.dora)}, live wall "
                 f"{kyoku.source.live_left()}, phase {kyoku.phase}"]
        for s in range(SEATS):
            wind = WIND_NAMES[(s - kyoku.oya) % SEATS]
            hand = " ".join(names[t] for t in sorted(kyoku.hands[s]))
            melds = " ".join("[" + " ".join(names[t] for t in m.tiles) + "]"
                             for m in kyoku.melds[s])
            river = " ".join(names[t] + ("*" if t in kyoku.called else "")
                             for t in kyoku.rivers[s])
            riichi = " riichi" if kyoku.riichi[s] else ""
            lines.append(f"seat {s} {wind} {kyoku.scores[s]:>6}{riichi}: {hand} {melds}".rstrip())
            lines.append(f"    river: {river}")
        if game.over:
            finals = game.final_scores()
            lines.append("final: " + ", ".join(f"seat {s} rank {f.rank} {f.points} "
                                               f"({f.score:+.1f})"
                                               for s, f in enumerate(finals)))
        return "\n".join(lines)


def make_env(room: str = "tenhou", game: str = "south", rules: RiichiRules | None = None,
             render_mode: str | None = None,
             max_moves: int | None = None) -> EngineEnv[RiichiEnvEngine]:
    """The Riichi AEC environment: ``room`` (``tenhou``, ``mahjong_soul``, ``mjai_app``)
    and ``game`` (``east`` or ``south``) name the rules as ``referee match riichi`` plays
    them, or ``rules`` gives them whole; ``render_mode`` (``"ansi"`` or ``"human"``) and
    ``max_moves`` (actions before the game is truncated)."""
    chosen = rules if rules is not None else preset_rules(room, game)
    return EngineEnv(RiichiEnvGame(chosen), render_mode=render_mode, max_moves=max_moves)
