"""Replay a Riichi game log of any source through the engine and prove it exact.

:func:`verify_log` takes an mjai event stream (dicts, or the events of
:mod:`referee.games.riichi.mjai`) from anywhere: our own games, Mortal or mjai logs, Tenhou
mjlog XML or Tenhou JSON converted to mjai (:mod:`referee.games.riichi.mjlog`,
:mod:`referee.games.riichi.tenhou_json`). For each kyoku it deals the hands of the log's
``start_kyoku`` (round, number, honba, sticks, dealer, scores, hands, first dora indicator)
and builds a :class:`~referee.games.riichi.rules.ScriptedWall` of the log's draws (a draw
right after the drawer's kan is a replacement draw), its ``dora`` events and the ura
indicators of its ``hora`` events. mjai names tiles, the engine uses Tenhou's 136 tile ids:
a red five (``5mr``) gets the red id, any other tile the lowest free id of its kind (not a
red one when red fives are played), so no id is dealt twice; a fifth copy of a tile, or a
hidden one (``?``), is an error.

Then it plays the log: every action (``dahai``, ``reach``, the calls and kans, ``hora``, a
nine-terminal ``ryukyoku``) must be among the engine's legal actions when it is taken; seats
the log shows no answer from pass; and every event the engine emits must be the log's, in
order: type, actor, target, tiles (``consumed`` in any order), ``tsumogiri``, deltas,
scores, the draw's reason, ``fu``, ``fan``, ``hora_points`` (the hand's value: Tenhou's
``ten``) and the yaku (by identity, whatever the log's names:
:func:`~referee.games.riichi.yaku.same_yaku`) of a win, the ura indicators of a riichi
winner, whichever of these the log gives. ``dora`` events are matched in order but may sit
anywhere after their kan (sources place a kan's dora differently). Between kyoku the
engine's next position (round, number, honba, sticks, dealer, scores) must be the log's next
``start_kyoku``; an ``end_game`` must come where the engine ends the game, with the same final
points when it gives ``scores``. A log may start at any kyoku (a one-hand excerpt with any
scores) and may stop between two kyoku, or inside its last kyoku (a crashed game, or one
still being played): that kyoku is replayed up to the cut, every event checked as above,
and the report says where the log ends (:attr:`ReplayReport.cut`). A kyoku without its
end that another kyoku or ``end_game`` follows is an error.

Every mismatch is a :class:`ReplayError` (an :class:`~referee.games.riichi.mjai.MjaiError`)
naming the event's number in the stream (from 1: the line of an mjai file without blank
lines), what the log says and what the engine says. The result is a :class:`ReplayReport`.

Rules: ``rules`` are used as given; without them those the log records in ``start_game``
(our own logs do), else Tenhou's with the game length guessed from the log; red fives
always follow the log when it tells (:mod:`referee.games.riichi.logrules`).

:func:`load_log` reads a file of any supported format (told by content, plain or gzip;
:mod:`referee.games.riichi.log_files`, its names given here too), :func:`verify_file`
verifies one with the rules and final results its source records, and :func:`check_logs`
gives one verdict per file for a command line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from referee.core.checking import FileCheck, check_files
from referee.core.record import is_record_file
from referee.games.riichi.log_files import (
    FORMATS,
    LoadedLog,
    chosen_rules,
    detect_format,
    is_tenhou_json,
    load_log,
)
from referee.games.riichi.logrules import kyoku_end, rules_for, wall_tiles
from referee.games.riichi.mjai import Event, MjaiError, event_from_dict, ryukyoku_reason
from referee.games.riichi.rules import (
    Action,
    Deal,
    FinalScore,
    Position,
    RiichiGame,
    RiichiRules,
    ScriptedWall,
    action_from_mjai,
    action_to_mjai,
)
from referee.games.riichi.tiles import UNKNOWN, parse_mjai, tile_of
from referee.games.riichi.yaku import same_yaku

__all__ = [
    "FORMATS", "DecisionObserver", "LoadedLog", "ReplayError", "ReplayReport", "check_logs",
    "chosen_rules", "detect_format", "is_tenhou_json", "load_log", "verify_file",
    "verify_log",
]

WINDS: Final = ("E", "S", "W", "N")
LIVE_WALL: Final = 70
"""Tiles in a real hand's live wall."""

_KANS: Final = frozenset({"daiminkan", "ankan", "kakan"})
_OWN_TURN: Final = frozenset({"dahai", "reach", "kakan", "ankan", "hora", "ryukyoku"})
_CALLS: Final = frozenset({"chi", "pon", "daiminkan"})
_COMPARED: Final = ("actor", "target", "pai", "tsumogiri", "consumed", "dora_marker",
                    "deltas", "scores", "reason", "tenpais", "fu", "fan", "hora_points",
                    "yakus", "ura_markers", "pao", "bakaze", "kyoku", "honba", "kyotaku",
                    "oya", "tehais")
_SPECIAL: Final = frozenset({"consumed", "ura_markers", "reason", "yakus", "tehais"})
"""Compared otherwise than as they are (and an ankan's ``pai``, which the engine does not
give)."""
_compared_keys: Final[dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...]]]] = {}
"""Per key order of a logged event, the keys of _COMPARED it has, in _COMPARED's order:
those compared as they are, then those of :data:`_SPECIAL`."""
_CLIP: Final = 240


class ReplayError(MjaiError):
    """A log the engine does not reproduce: names the event (its number in the stream, from
    1), the problem, what the log says (``logged``) and what the engine says (``engine``: its
    event, its position or its legal actions)."""

    def __init__(self, problem: str, *, source: str | None = None, index: int | None = None,
                 logged: Any = None, engine: Any = None) -> None:
        self.index = index
        self.logged = logged
        self.engine = engine
        text = problem
        if logged is not None:
            text += f"; the log: {_show(logged)}"
        if engine is not None:
            text += f"; the engine: {_show(engine)}"
        super().__init__(text, source=source,
                         where=f"event {index}" if index is not None else None)


@dataclass(frozen=True)
class ReplayReport:
    """What a verified log holds: events read, kyoku played, wins (``hora`` events, so a
    double ron counts two), kyoku drawn, the scores after the last kyoku (the final points,
    sticks to first place, when the game ended; the scores at the cut of a log that stops
    inside a kyoku), whether the log ends the game (verified ``end_game``), the engine's
    final ranks and scores (uma and oka) when the engine ended the game, the rules used,
    and where the log stops inside a kyoku (``cut``)."""

    events: int
    kyoku: int
    wins: int
    draws: int
    scores: tuple[int, ...]
    ended: bool
    final: tuple[FinalScore, ...] | None
    rules: RiichiRules
    cut: str | None = None
    """Where the log stops inside a kyoku, in words (``inside E3, 1 honba, after event
    412 (dahai): the engine waits for seat 2``); None when it does not."""

    def summary(self) -> str:
        """One line: ``8 kyoku (6 wins, 2 draws), game over, scores ...`` (``the log ends
        inside E3, ...`` instead of the game's end for a log cut inside a kyoku)."""
        wins = f"{self.wins} win{'' if self.wins == 1 else 's'}"
        draws = f"{self.draws} draw{'' if self.draws == 1 else 's'}"
        end = "game over" if self.ended else "no game end"
        if self.cut is not None:
            end = f"the log ends {self.cut}"
        text = (f"{self.kyoku} kyoku ({wins}, {draws}), {end}, scores "
                f"{' '.join(map(str, self.scores))}")
        if self.final is not None:
            text += f", results {' '.join(f'{f.score:+g}' for f in self.final)}"
        return text


class DecisionObserver(Protocol):
    """Told of every decision a replay plays, before the engine applies it."""

    def __call__(self, game: RiichiGame, seat: int, action: Action) -> None:
        """``seat`` answers ``action`` (checked legal: the engine's own instance of it) in
        ``game`` as it stands now."""


def verify_log(events: Iterable[Event | Mapping[str, Any]], rules: RiichiRules | None = None,
               *, source: str | None = None, final_results: Sequence[float] | None = None,
               strict: bool = False, observer: DecisionObserver | None = None
               ) -> ReplayReport:
    """Replay ``events`` through the engine and check that it reproduces them (see the
    module notes); ``final_results`` are the final scores (uma and oka included) the source
    records, checked at ``end_game``; ``strict`` wants every ``dora`` event exactly where
    the engine emits it (Tenhou's order); ``observer`` is called with every decision
    (passes included) before it is applied. ``ReplayError`` on the first difference."""
    log = _materialize(events, source)
    return _Replay(log, rules_for(log, rules, source), source, final_results, strict,
                   observer).run()


# ------------------------------------------------------------------------------ input


def _materialize(events: Iterable[Event | Mapping[str, Any]],
                 source: str | None) -> list[dict[str, Any]]:
    """The events as validated mjai dicts (an invalid one is a ReplayError naming it). The
    same :class:`Event` object met again gives the same dict (the replay only reads them)."""
    out: list[dict[str, Any]] = []
    made: dict[int, tuple[Event, dict[str, Any]]] = {}
    """By id, each event object met (kept alive, so that no other takes its id)."""
    for number, item in enumerate(events, start=1):
        if isinstance(item, Event):
            known = made.get(id(item))
            if known is not None and known[0] is item:
                out.append(known[1])
                continue
            obj = item.to_dict()
            made[id(item)] = (item, obj)
            out.append(obj)
            continue
        try:
            event = event_from_dict(item, source=source, line=number)
        except MjaiError as exc:
            raise ReplayError(exc.problem, source=source, index=number,
                              logged=item) from None
        out.append(event.to_dict())
    return out


# ------------------------------------------------------------------------------ replay


class _Ids:
    """Hands out Tenhou tile ids for mjai names, each id once."""

    def __init__(self, red_fives: bool) -> None:
        self.red_fives = red_fives
        self.taken: set[int] = set()

    def take(self, name: str) -> int:
        """The id of the next tile named ``name``; ``ValueError`` says why there is none."""
        if name == UNKNOWN:
            raise ValueError("a hidden tile '?': a replay needs every tile (a full log, "
                             "not one seat's view)")
        try:
            tile = tile_of(name, self.taken, red_fives=self.red_fives)
        except ValueError:
            kind, red = parse_mjai(name)  # raises, naming a bad name
            if red or self.red_fives:
                extra = " (three plain ones with red fives)" if kind in (4, 13, 22) \
                    and not red else ""
                raise ValueError(f"one {name} too many in this kyoku: four of a kind is "
                                 f"all there is{extra}") from None
            raise ValueError(f"a fifth {name} in this kyoku") from None
        self.taken.add(tile)
        return tile


class _Replay:
    """Plays a log through a :class:`RiichiGame`, event by event."""

    def __init__(self, log: list[dict[str, Any]], rules: RiichiRules, source: str | None,
                 final_results: Sequence[float] | None, strict: bool,
                 observer: DecisionObserver | None = None) -> None:
        self.log = log
        self.observer = observer
        self.strict = strict
        self.rules = rules
        self.source = source
        self.final_results = final_results
        self.game = RiichiGame(rules, seed=None)
        self.seen = 0
        """Engine events matched so far (an index into ``game.events``)."""
        self.kyoku_count = 0
        self.wins = 0
        self.draws = 0
        self.ended = False
        self.log_doras: list[int] = []
        self.engine_doras: list[dict[str, Any]] = []
        self.dealt = -1
        """The event of a dealer's first discard played as tsumogiri against its flag."""
        self.start = 0
        """The ``start_kyoku`` of the kyoku being played (an index into ``log``)."""
        self.cut: str | None = None
        """Where the log stops inside its last kyoku (see :attr:`ReplayReport.cut`)."""
        self.starved = False
        """The log's last event left the engine needing a tile the log does not show."""

    def fail(self, index: int, problem: str, logged: Any = None,
             engine: Any = None) -> ReplayError:
        """An error at the 0-based event ``index`` (``len(log)``: the end of the log)."""
        if index >= len(self.log):
            problem = f"at the end of the log: {problem}"
        return ReplayError(problem, source=self.source, index=index + 1, logged=logged,
                           engine=engine)

    def run(self) -> ReplayReport:
        log = self.log
        if not any(event["type"] != "none" for event in log):
            raise self.fail(0, "the log holds no event (an empty file?)")
        i = 0
        while i < len(log):
            kind = log[i]["type"]
            if kind == "none":
                i += 1
            elif kind == "start_game":
                if any(e["type"] != "none" for e in log[:i]):
                    raise self.fail(i, "start_game in the middle of the log", log[i])
                i += 1
            elif kind == "start_kyoku":
                end = kyoku_end(log, i)
                self.kyoku(i, end)
                i = end
            elif kind == "end_game":
                self.end_game(i)
                rest = [k for k in range(i + 1, len(log)) if log[k]["type"] != "none"]
                if rest:
                    raise self.fail(rest[0], "an event after end_game", log[rest[0]])
                break
            else:
                raise self.fail(i, f"{kind} outside a kyoku (start_kyoku expected)", log[i])
        game = self.game
        final = tuple(game.final_scores()) if game.over else None
        scores = game.scores if self.cut is not None else game.position().scores
        return ReplayReport(events=len(log), kyoku=self.kyoku_count, wins=self.wins,
                            draws=self.draws, scores=tuple(scores), ended=self.ended,
                            final=final, rules=self.rules, cut=self.cut)

    # ---------------------------------------------------------------- a kyoku

    def kyoku(self, start: int, end: int) -> None:
        log = self.log
        head = log[start]
        game = self.game
        if game.over:
            raise self.fail(start, "the engine ended the game after the kyoku before", head,
                            game.events[-1])
        if self.kyoku_count:
            self.check_position(start, head)
        deal, wall = self.deal(start, end)
        self.seen = len(game.events)
        try:
            game.start_kyoku(deal, wall)
        except IndexError:  # the dealer's first draw is not in the log
            if not self.at_cut(start):
                raise self.fail(start, "the kyoku shows no first draw of its dealer",
                                head) from None
            self.kyoku_count += 1
            self.cut = self.cut_text(start, end, [])
            return
        self.kyoku_count += 1
        self.start = start
        self.log_doras = []
        self.engine_doras = []
        kans = 0
        doras = 0
        k = start
        while k < end:
            event = log[k]
            kind = event["type"]
            if kind == "none":
                k += 1
                continue
            if kind == "dora" and not self.strict:
                doras += 1
                if doras > kans:
                    raise self.fail(k, "a dora indicator with no kan before it", event)
                self.log_doras.append(k)
            else:
                self.compare(k, event, self.next_engine(k, end))
                kans += kind in _KANS
                self.wins += kind == "hora"
                self.draws += kind == "ryukyoku"
            self.match_doras()
            k += 1
        self.finish_kyoku(end)

    def check_position(self, index: int, head: Mapping[str, Any]) -> None:
        p = self.game.position()
        mine = {"bakaze": WINDS[p.bakaze], "kyoku": p.kyoku, "honba": p.honba,
                "kyotaku": p.kyotaku, "oya": p.oya, "scores": list(p.scores)}
        for key, value in mine.items():
            if head.get(key, value) != value:
                raise self.fail(index, f"start_kyoku: {key} is {head[key]} in the log, "
                                f"{value} in the engine's next hand {_label(p)}",
                                {k: head.get(k) for k in mine}, mine)

    def deal(self, start: int, end: int) -> tuple[Deal, ScriptedWall]:
        head = self.log[start]
        ids = _Ids(self.rules.red_fives)
        hands: list[list[int]] = [[], [], [], []]
        dora: list[int] = []
        draws: list[int] = []
        rinshan: list[int] = []
        ura: list[int] = []
        lists = {"dora": dora, "draw": draws, "rinshan": rinshan, "ura": ura}
        for index, role, name in wall_tiles(self.log, start, end):
            try:
                tile = ids.take(name)
            except ValueError as exc:
                raise self.fail(index, str(exc), self.log[index]) from None
            if role.startswith("hand"):
                hands[int(role[4:])].append(tile)
            else:
                lists[role].append(tile)
        deal = Deal(tuple(tuple(h) for h in hands), dora[0], head["oya"],
                    WINDS.index(head["bakaze"]), head["kyoku"], head["honba"],
                    head["kyotaku"], self.start_scores(start, head))
        return deal, ScriptedWall(draws, rinshan, dora, ura, live_total=LIVE_WALL)

    def start_scores(self, start: int, head: Mapping[str, Any]) -> tuple[int, ...]:
        """The scores of the ``start_kyoku`` at ``start``; without them (the original mjai
        server's logs), the game's own, or the start points for the game's first hand."""
        scores = head.get("scores")
        if scores is not None:
            return tuple(scores)
        if self.kyoku_count:
            return tuple(self.game.position().scores)
        if (head["bakaze"], head["kyoku"], head["honba"], head["kyotaku"]) != ("E", 1, 0, 0):
            raise self.fail(start, "start_kyoku has no scores: a log that starts after the "
                            "game's first hand needs them", head)
        return (self.rules.start_points,) * 4

    def next_engine(self, k: int, end: int) -> dict[str, Any]:
        """The engine's next event (not a dora) to match the log's event ``k``, driving the
        engine with the log's next decision when it has emitted nothing new."""
        events = self.game.events
        while True:
            while not self.strict and self.seen < len(events) \
                    and events[self.seen]["type"] == "dora":
                self.engine_doras.append(events[self.seen])
                self.seen += 1
            if self.seen < len(events):
                event = events[self.seen]
                if event["type"] == "end_game":
                    raise self.fail(k, "the engine's kyoku and game are over", self.log[k],
                                    event)
                self.seen += 1
                return event
            before = len(events)
            self.drive(k, end)
            if len(events) == before:
                if self.starved:  # (the log's last event: its tile would come next)
                    return dict(self.log[k])
                raise self.fail(k, "the engine does not move on",  # pragma: no cover
                                self.log[k])

    def drive(self, k: int, end: int) -> None:
        """Play the log's next decision: its answer to a discard or kan (passes for the
        seats it shows none from), or the acting seat's next action."""
        game = self.game
        kyoku = game.kyoku
        assert kyoku is not None
        log = self.log
        event = log[k]
        if kyoku.result is not None:
            raise self.fail(k, "the engine's kyoku is over", event, game.events[-1])
        if kyoku.phase in ("respond", "chankan"):
            m = k
            while m < end and log[m]["type"] in ("reach_accepted", "dora", "none"):
                m += 1
            answer = log[m] if m < end else None
            if answer is not None and answer["type"] in _CALLS:
                self.play(m, answer["actor"])
            elif answer is not None and answer["type"] == "hora" \
                    and answer["actor"] != answer["target"]:
                target = answer["target"]
                while m < end and log[m]["type"] == "hora" and log[m]["target"] == target \
                        and log[m]["actor"] != target:  # every ron on the tile
                    self.play(m, log[m]["actor"])
                    m += 1
            elif answer is not None and answer["type"] == "ryukyoku" \
                    and ryukyoku_reason(answer.get("reason") or "") == "sanchaho":
                for seat in sorted(game.pending()):
                    ron = next((a for a in game.legal_actions(seat) if a.type == "hora"), None)
                    if ron is not None:
                        self.apply(m, seat, ron)
            if kyoku.phase in ("respond", "chankan"):  # the others pass (none once over)
                for seat in sorted(game.pending()):
                    self.apply(k, seat, Action("none", seat))
            return
        seat = kyoku.actor
        m = k
        while m + 1 < end and log[m]["type"] in ("dora", "none"):  # Tenhou: dora, dahai
            m += 1
        event = log[m]
        if event["type"] not in _OWN_TURN or event.get("actor", seat) != seat:
            raise self.fail(m, f"the engine waits for seat {seat} to act ({kyoku.phase}); the "
                            f"log has {event['type']}", event, self.legal(seat))
        self.play(m, seat)

    def legal(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, "legal": [action_to_mjai(a)
                                        for a in self.game.legal_actions(seat)]}

    def play(self, k: int, seat: int) -> None:
        """Play the log's event ``k`` as the action of ``seat``."""
        event = self.log[k]
        kind = event["type"]
        if kind == "ryukyoku":
            action = Action("ryukyoku", seat)
        else:
            obj = dict(event)
            if kind == "hora" and obj.get("pai") is None:  # Mortal's hora has no pai
                ron = next((a for a in self.game.legal_actions(seat) if a.type == "hora"
                            and a.target == obj.get("target")), None)
                if ron is not None:
                    obj["pai"] = ron.pai
            try:
                action = action_from_mjai(obj, seat)
            except ValueError as exc:
                raise self.fail(k, f"not an action: {exc}", event) from None
            if kind == "dahai" and action.tsumogiri is False:
                action = self.dealt_discard(k, seat, action)
        self.apply(k, seat, action)

    def dealt_discard(self, k: int, seat: int, action: Action) -> Action:
        """A dealer's first discard from its first 14 tiles, not marked tsumogiri (as on
        Mahjong Soul, which deals the dealer 14 tiles) but only legal as tsumogiri: the
        tsumogiri discard, the log's flag accepted when the event is compared."""
        game = self.game
        kyoku = game.kyoku
        assert kyoku is not None
        if (seat != kyoku.oya or kyoku.discards[seat] or kyoku.source.live_left() != LIVE_WALL - 1
                or game.find_legal(seat, action) is not None):
            return action
        flagged = action.with_tsumogiri(True)
        if game.find_legal(seat, flagged) is None:
            return action
        self.dealt = k
        return flagged

    def apply(self, k: int, seat: int, action: Action) -> None:
        game = self.game
        found = game.find_legal(seat, action)
        if found is None:
            reason = game.illegal_reason(seat, action) or "not legal now"
            raise self.fail(k, f"illegal {action.type} of seat {seat}: {reason}",
                            self.log[k], self.legal(seat))
        if self.observer is not None:
            self.observer(game, seat, found)
        try:
            game.apply(seat, found)
        except IndexError as exc:
            if self.at_cut(k):  # the log stops here: the engine would draw what it lacks
                self.starved = True
                return
            raise self.fail(k, f"the log lacks a tile the engine needs here ({exc}): a draw, "
                            f"a dora or an ura indicator", self.log[k]) from None

    def at_cut(self, k: int) -> bool:
        """Whether event ``k`` is the log's last (but ``none`` lines): the kyoku being
        played is cut off after it."""
        return all(e["type"] == "none" for e in self.log[k + 1:])

    def compare(self, k: int, logged: Mapping[str, Any], mine: Mapping[str, Any]) -> None:
        kind = logged["type"]
        if kind != mine["type"]:
            if mine["type"] != "dora" and (
                    kind in _CALLS or (kind in _OWN_TURN and kind != "ryukyoku")):
                raise self.fail(k, f"illegal {kind} of seat {logged.get('actor')}: the engine "
                                f"goes on with {mine['type']}", logged, mine)
            if mine["type"] == "dora":
                raise self.fail(k, f"the log has {kind}, the engine first reveals a dora "
                                "indicator", logged, mine)
            raise self.fail(k, f"the log has {kind}, the engine {mine['type']}", logged, mine)
        shape = tuple(logged)
        keys = _compared_keys.get(shape)
        if keys is None:
            present = set(shape) | ({"ura_markers"} if "uradora_markers" in shape else set())
            keys = _compared_keys[shape] = (
                tuple(k for k in _COMPARED if k in present and k not in _SPECIAL),
                tuple(k for k in _COMPARED if k in present and k in _SPECIAL))
        plain, special = keys
        for key in plain:  # most events: plain values, compared as they are
            value = logged[key]
            if value is not None and value != mine.get(key) \
                    and not (key == "tsumogiri" and k == self.dealt) \
                    and not (key == "pai" and kind == "ankan"):
                raise self.fail(k, f"{kind}: {key} is {_show(value)} in the log, "
                                f"{_show(mine.get(key))} in the engine", logged, mine)
        if special or kind == "ankan":
            self.compare_special(k, kind, special, logged, mine)

    def compare_special(self, k: int, kind: str, keys: tuple[str, ...],
                        logged: Mapping[str, Any], mine: Mapping[str, Any]) -> None:
        """Compare the values that are not compared as they are: tiles in any order, ura
        indicators (of a riichi winner only), a draw's reason under any writer's name, the
        yaku by identity, the dealt hands, an ankan's ``pai``."""
        if kind == "ankan" and logged.get("pai") is not None \
                and logged["pai"] not in logged["consumed"]:  # a writer's pick of the four
            raise self.fail(k, f"ankan: pai {_show(logged['pai'])} is not one of the "
                            "consumed tiles", logged, mine)
        for key in keys:
            value = logged.get(key)
            if key == "ura_markers" and value is None:
                value = logged.get("uradora_markers")
            if value is None or (key == "tehais" and kind != "start_kyoku"):
                continue
            expected = mine.get(key)
            if key == "reason":
                value = ryukyoku_reason(value)
            elif key == "yakus":
                if not same_yaku(value, expected or ()):
                    raise self.fail(k, f"{kind}: the yaku are {_show(value)} in the log, "
                                    f"{_show(expected)} in the engine", logged, mine)
                continue
            elif key == "ura_markers" and not expected:
                continue  # not in riichi: its ura indicators do not count
            elif key == "consumed":
                value, expected = _sorted_names(value), _sorted_names(expected or [])
            if value != expected:
                raise self.fail(k, f"{kind}: {key} is {_show(value)} in the log, "
                                f"{_show(expected)} in the engine", logged, mine)

    def match_doras(self) -> None:
        while self.log_doras and self.engine_doras:
            k = self.log_doras.pop(0)
            self.compare(k, self.log[k], self.engine_doras.pop(0))

    def finish_kyoku(self, end: int) -> None:
        game = self.game
        kyoku = game.kyoku
        assert kyoku is not None
        events = game.events
        while self.seen < len(events) and events[self.seen]["type"] == "dora":
            self.engine_doras.append(events[self.seen])
            self.seen += 1
        self.match_doras()
        if self.log_doras:
            k = self.log_doras[0]
            raise self.fail(k, "the engine reveals no such dora indicator", self.log[k])
        cut = kyoku.result is None and self.at_cut(end - 1)
        if self.engine_doras and not cut:  # (cut off: the log would have shown it later)
            raise self.fail(end, "the log does not show the dora indicator the engine "
                            "reveals", engine=self.engine_doras[0])
        if kyoku.result is None:
            waiting = [] if self.starved else sorted(game.pending())
            if not cut:
                raise self.fail(end, f"the kyoku has no end (a win or a draw) before the "
                                f"log's {self.log[end]['type']}; the engine waits for "
                                f"seat(s) {', '.join(map(str, waiting))}",
                                engine=[self.legal(s) for s in waiting])
            self.cut = self.cut_text(self.start, end, waiting)
            return
        if self.seen < len(events) and events[self.seen]["type"] != "end_game":
            raise self.fail(end, "the log ends the kyoku, the engine goes on",
                            engine=events[self.seen])

    def cut_text(self, start: int, end: int, waiting: Sequence[int]) -> str:
        """Where a log cut inside its last kyoku (its ``start_kyoku`` at ``start``, its
        events ending at ``end``) stops, in words; ``waiting``: the seats the engine waits
        for (none: it needs a tile the log does not show)."""
        head = self.log[start]
        last = max(k for k in range(start, end) if self.log[k]["type"] != "none")
        where = (f"inside {head['bakaze']}{head['kyoku']}, {head['honba']} honba, after "
                 f"event {last + 1} ({self.log[last]['type']})")
        if not waiting:
            return f"{where}: the engine's next tile is not in the log"
        return f"{where}: the engine waits for seat {' and '.join(map(str, waiting))}"

    def end_game(self, index: int) -> None:
        game = self.game
        event = self.log[index]
        if not game.over:
            p = game.position()
            raise self.fail(index, "the log ends the game, the engine goes on",
                            event, {"next": _label(p), "scores": list(p.scores)})
        mine = game.events[self.seen] if self.seen < len(game.events) else game.events[-1]
        scores = event.get("scores")
        if scores is not None and list(scores) != mine.get("scores"):
            raise self.fail(index, "end_game: the final points differ", event, mine)
        self.seen = len(game.events)
        if self.final_results is not None:
            results = [f.score for f in game.final_scores()]
            if list(self.final_results) != results:
                raise self.fail(index, f"end_game: the final results are "
                                f"{list(self.final_results)} in the log, {results} in the "
                                f"engine", event)
        self.ended = True


# ------------------------------------------------------------------------------ files


def verify_file(path: str | Path, rules: RiichiRules | None = None,
                game_length: str | None = None) -> ReplayReport:
    """Read a log file (:func:`load_log`) and verify it, with the rules
    :func:`chosen_rules` gives, and the final results it records."""
    loaded = load_log(path)
    return verify_log(loaded.events, chosen_rules(loaded, rules, game_length),
                      source=loaded.path, final_results=loaded.final_results)


def check_logs(paths: Iterable[str | Path], rules: RiichiRules | None = None,
               game_length: str | None = None) -> list[FileCheck]:
    """One verdict per file for a command line (``FileCheck.line()``: ``OK <path>
    (<format>): <summary>`` or ``FAIL <path>: <the error>``)."""
    def check(path: Path) -> tuple[str, str]:
        log = match_log(path)
        if log is not None:  # the referee's own record: its game is in the mjai log beside
            return (f"match record, its mjai log {log.name}",
                    verify_file(log, rules, game_length).summary())
        return detect_format(path), verify_file(path, rules, game_length).summary()

    return check_files(paths, check)


def match_log(path: str | Path) -> Path | None:
    """The mjai log beside a referee's own match record (``game-001.json`` ->
    ``game-001.mjson.gz``), or ``None`` if ``path`` is not such a record; ``ValueError``
    if it is one whose log is missing."""
    path = Path(path)
    if not is_record_file(path):
        return None
    log = path.with_suffix(".mjson.gz")
    if not log.exists():
        raise ValueError(f"the referee's match record, not a game log; its mjai log "
                         f"{log.name} is not beside it")
    return log


# ------------------------------------------------------------------------------ helpers


def _sorted_names(names: Iterable[str]) -> list[str]:
    return sorted(names, key=parse_mjai)


def _label(p: Position) -> str:
    return f"{WINDS[p.bakaze]}{p.kyoku}, {p.honba} honba, {p.kyotaku} sticks, dealer {p.oya}"


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    return text if len(text) <= _CLIP else text[:_CLIP] + "..."
