"""The mjai referee: four bot programs play a Riichi game over pipes.

Each bot is one process for the whole game; ``{seat}`` in its command line becomes the
seat it plays, 0-3 (:func:`seated`), as mjai.app bots take it as their first argument.
The referee sends it every event of the game as mjai JSON, masked for its seat (other
seats' draws and starting hands are ``"?"``), starting with ``start_game``: the names,
its ``id`` and the rules played, as the log's ``start_game`` records them
(``kyoku_first``, ``aka_flag``, ``rules``), so that a bot knows the game it plays. It
answers every line with one JSON line: its action when the event asks it a decision,
``{"type": "none"}`` otherwise. A bot in *batched* mode (mjai.app style) gets a
JSON array of all events since its last answer, only when it has a decision (and at the
end of the game), and answers once.

Speed: each event is serialised once per view (:func:`encode_event`), a bot gets the
events since the last question in one write, and the referee reads at once only the
answers it needs now (the bots that decide); the ``none`` answers of the others are read
in bulk when it next needs them (their next decision, the end of a hand), each still
due ``decision_time`` after its line was sent or after the bot's previous answer was
read (one already received counts, as when the referee reads several bots in turn).

A malformed answer (``garbage``), an action the hand does not allow (``illegal``), an
action where nothing was asked (``unasked``) or no answer within ``decision_time``
(``late``) is a *failure*: the seat plays the safe default instead (the drawn tile, or a
legal discard after a riichi declaration or a call; ``none`` to a claim question) and the
record gets a note with the hand and the raw line. After ``max_failures`` failures, or at
once when the program crashes, the bot *forfeits*: it is stopped and the safe default
plays its seat to the end (the record says when: its ``forfeits`` and ``failures`` give
the number of moves recorded by then). Nothing else stops a game. A move the safe default
played is recorded with ``"default": true`` in its ``info``.

The whole game (unmasked) is written as a gzipped mjai log next to the JSON record; its
``start_game`` records the rules played (:func:`~referee.games.riichi.logrules.
start_game_event`).
:func:`self_play` plays in-process policies over the same masked views, for fast games.
"""

from __future__ import annotations

import json
import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from referee.core.errors import BotFault
from referee.core.json_read import json_value
from referee.core.outcome import Outcome
from referee.core.players import PlayerSpec, play_rotations, start_player
from referee.core.process import BotProcess
from referee.core.record import GameRecord, PlayerInfo
from referee.core.sandbox import SandboxConfig, plan_sandbox
from referee.games.riichi.bots import greedy, tsumogiri
from referee.games.riichi.bots.player import Policy, View, decide
from referee.games.riichi.defaults import MEMORY_MB
from referee.games.riichi.logrules import start_game_event
from referee.games.riichi.mjai import write_mjai_objects
from referee.games.riichi.rules import (
    Action,
    RiichiGame,
    RiichiKyoku,
    RiichiRules,
    action_from_mjai,
    action_to_mjai,
)
from referee.games.riichi.rulesets import rules_to_dict

log = logging.getLogger(__name__)

__all__ = ["BUILTIN_PLAYERS", "POLICIES", "SEAT_PLACEHOLDER", "AnswerError",
           "RiichiMatchSettings", "SelfPlayResult", "apply_logged", "encode_event",
           "finish_record", "mask_event", "may_pass", "move_text", "pass_all", "play_riichi",
           "read_answer", "run_match", "safe_default", "seated", "self_play"]

BUILTIN_PLAYERS = {
    "tsumogiri": "referee.games.riichi.bots.tsumogiri",
    "greedy": "referee.games.riichi.bots.greedy",
}
"""The built-in mjai bots by name (their modules)."""

POLICIES: dict[str, Policy] = {"tsumogiri": tsumogiri.policy, "greedy": greedy.policy}
"""The same bots as in-process policies."""

GRACE = 0.005
"""Seconds to collect an answer already sent when the shared deadline has passed."""

CLIP = 200
"""Characters of a faulty answer kept in a note."""


@dataclass(frozen=True)
class RiichiMatchSettings:
    """How a game is played: rules, wall seed, seconds per answer, which seats are batched
    (mjai.app style), failures before a forfeit, seconds for the first answer."""

    rules: RiichiRules = field(default_factory=RiichiRules)
    seed: int = 1
    decision_time: float = 5.0
    batched: tuple[bool, ...] = (False, False, False, False)
    max_failures: int = 5
    startup_time: float = 20.0
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    """The bots' sandbox (suspended off-turn unless it says otherwise)."""
    memory_limit: int | None = MEMORY_MB << 20
    """Bytes of memory each bot's process tree may use (``None``: no limit)."""

    def __post_init__(self) -> None:
        if self.decision_time <= 0:
            raise ValueError(f"decision_time must be positive, not {self.decision_time}")
        if len(self.batched) != 4:
            raise ValueError(f"batched names four seats, not {len(self.batched)}")
        if self.max_failures < 1:
            raise ValueError(f"max_failures must be at least 1, not {self.max_failures}")


# ------------------------------------------------------------------------------ helpers


SEAT_PLACEHOLDER = "{seat}"
"""Replaced, in every word of a bot's command line, by the seat the bot plays (0-3):
mjai.app bots read their seat from their first argument (``python bot.py 0``)."""


def seated(player: PlayerSpec, seat: int) -> PlayerSpec:
    """``player`` with :data:`SEAT_PLACEHOLDER` in its command line replaced by ``seat``
    (0 the first dealer's seat, then 1 its right neighbour...); unchanged without it."""
    if not any(SEAT_PLACEHOLDER in word for word in player.command):
        return player
    return replace(player, command=[w.replace(SEAT_PLACEHOLDER, str(seat))
                                    for w in player.command])


_MASKED = frozenset({"start_game", "tsumo", "start_kyoku"})
"""The event types :func:`mask_event` may change."""


def mask_event(event: dict[str, Any], seat: int) -> dict[str, Any]:
    """The event as ``seat`` may see it: other seats' draws and starting hands hidden;
    ``start_game`` gets the seat's ``id``."""
    kind = event["type"]
    if kind == "start_game":
        return {**event, "id": seat}
    if kind == "tsumo" and event["actor"] != seat:
        return {**event, "pai": "?"}
    if kind == "start_kyoku":
        return {**event, "tehais": [list(h) if s == seat else ["?"] * len(h)
                                    for s, h in enumerate(event["tehais"])]}
    return event


def _line(event: dict[str, Any]) -> str:
    return orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE).decode()


def encode_event(event: dict[str, Any]) -> list[str]:
    """The compact JSON line of ``event`` (newline-terminated) as each seat may see it
    (index: the seat), serialised once per distinct view: one line shared by the four
    seats for most events, two for a draw (the drawer's and the others'), four for the
    starts."""
    kind = event["type"]
    if kind not in _MASKED:
        return [_line(event)] * 4
    if kind == "tsumo":
        actor = event["actor"]
        own = _line(event)
        hidden = _line(mask_event(event, (actor + 1) % 4))
        return [own if seat == actor else hidden for seat in range(4)]
    return [_line(mask_event(event, seat)) for seat in range(4)]


_NONE_LINES: set[str] = set()
"""Answer lines seen to be a plain ``none`` (whatever their spacing), not parsed again."""
_NONE_LINES_KEPT = 64

_SETTLING = frozenset({"start_game", "end_kyoku"})
"""The events after which every answer owed is read (the start-up, the end of a hand)."""

_MOST_DUE = 64
"""The writes (chunks of lines) whose answers a bot may owe before the referee reads them
even without needing the bot."""


_MOVE_TEXTS: dict[Action, str] = {}
_MOVE_TEXTS_KEPT = 4096


def move_text(action: Action) -> str:
    """The record's text of a move: its mjai JSON (the same few hundred discards and
    calls recur from game to game, and are written once)."""
    text = _MOVE_TEXTS.get(action)
    if text is None:
        text = json.dumps(action_to_mjai(action))
        if len(_MOVE_TEXTS) >= _MOVE_TEXTS_KEPT:
            _MOVE_TEXTS.clear()
        _MOVE_TEXTS[action] = text
    return text


class AnswerError(ValueError):
    """A bot's answer line that is not an mjai action (``kind`` ``garbage``: malformed
    JSON, an unknown type, a wrong tile name) or not a legal one now (``illegal``)."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(f"{kind}: {reason}")
        self.kind = kind
        self.reason = reason


_ANSWERS: dict[tuple[int, str], Action] = {}
"""Answer lines already read, by seat: the action each says (the same discards and calls
recur from game to game, and are parsed once)."""
_ANSWERS_KEPT = 4096


def read_answer(game: RiichiGame, seat: int, line: str) -> Action:
    """The action of ``seat``'s answer line if it is a legal one now, else ``AnswerError``."""
    key = (seat, line)
    action = _ANSWERS.get(key)
    if action is None:
        try:
            action = action_from_mjai(json_value(line), seat)
        except ValueError as exc:
            raise AnswerError("garbage", str(exc)) from None
        if len(_ANSWERS) >= _ANSWERS_KEPT:
            _ANSWERS.clear()
        _ANSWERS[key] = action
    if game.find_legal(seat, action) is None:
        raise AnswerError("illegal", game.illegal_reason(seat, action) or "not legal now")
    return action


def safe_default(legal: Sequence[Action]) -> Action:
    """The safe answer: the tsumogiri discard, else the first legal discard, else pass."""
    dahai = [a for a in legal if a.type == "dahai"]
    for action in dahai:
        if action.tsumogiri:
            return action
    if dahai:
        return dahai[0]
    for action in legal:
        if action.type == "none":
            return action
    return legal[0]


def _label(game: RiichiGame) -> str:
    kyoku = game.kyoku
    if kyoku is None:
        return "before the first hand"
    return f"{'ESWN'[kyoku.bakaze]}{kyoku.kyoku}-{kyoku.honba}"


def _hand(game: RiichiGame, seat: int) -> str:
    kyoku = game.kyoku
    if kyoku is None:
        return ""
    return " ".join(kyoku.names[t] for t in sorted(kyoku.hands[seat]))


def _clip(line: str | None) -> str:
    if line is None:
        return "(no answer)"
    return line if len(line) <= CLIP else line[:CLIP] + "..."


class _Seat:
    """One bot program in one seat: the answers it owes, its failures."""

    def __init__(self, seat: int, process: BotProcess | None, batched: bool) -> None:
        self.seat = seat
        self.process = process
        self.batched = batched
        self.owed = 0
        """Late answers still to come, to skip."""
        self.silent = False
        """It said nothing through two waits in a row (a hung bot): until it answers
        again, only its decisions are waited for (see :meth:`_Referee.collect`)."""
        self.expected: deque[tuple[float, int, float, bool]] = deque()
        """The answers due to lines sent (plain mode), a chunk at a time: when its lines
        were sent, how many, the seconds the first answer has, whether the last asks a
        decision."""
        self.last_read = 0.0
        """When its last answer was read (``time.monotonic()``)."""
        self.inbox: deque[str] = deque()
        """Answers received and not read yet."""
        self.buffer: list[str] = []
        """Batched mode: the JSON of the events since its last answer."""
        self.failures = 0
        self.forfeited = False
        self.driver: Any = None
        """A seat the caller drives instead (a person at a web table: a
        ``core.match.Seat`` its loop asks), if one is."""

    @property
    def alive(self) -> bool:
        return self.process is not None and not self.forfeited

    def send(self, text: str, deadline: float) -> None:
        assert self.process is not None
        self.process.send(text, deadline)

    def cpu(self) -> float:
        """The CPU seconds the bot has used so far."""
        return self.process.cpu_time() if self.process is not None else 0.0

    def read(self, deadline: float) -> str:
        """The next fresh answer (late ones skipped). An answer already in the pipe when
        the deadline has passed (while the referee read other bots, or did not need this
        one's answers yet) still counts (a few ms of grace to collect it)."""
        assert self.process is not None
        while True:
            line = self.process.read_line(max(deadline, time.monotonic() + GRACE))
            self.silent = False
            if self.owed:
                self.owed -= 1
                continue
            return line


def _failure_outcome(kind: str) -> Outcome:
    """The fault a bot forfeits by after too many failures of ``kind`` (the last one)."""
    return Outcome.TIMEOUT if kind == "late" else Outcome.ILLEGAL_MOVE


class _Referee:
    """The loop of one game between four processes."""

    def __init__(self, game: RiichiGame, seats: list[_Seat], settings: RiichiMatchSettings,
                 record: GameRecord) -> None:
        self.game = game
        self.seats = seats
        self.settings = settings
        self.record = record
        self.first = True
        self.batched = any(settings.batched)
        self.told = 0
        """The game's events told so far."""

    # ---------------------------------------------------------------- faults
    def failure(self, seat: int, kind: str, detail: str, line: str | None) -> None:
        state = self.seats[seat]
        state.failures += 1
        text = (f"{kind} at {_label(self.game)}: {detail}; hand {_hand(self.game, seat)}; "
                f"line {_clip(line)}")
        log.info("seat %d: %s", seat, text)
        self.record.add_note(seat, "failure", text)
        self.record.settings.setdefault("failures", []).append(
            {"seat": seat, "kind": kind, "hand": _label(self.game),
             "tiles": _hand(self.game, seat), "line": _clip(line),
             "moves": len(self.record.moves)})
        if state.failures >= self.settings.max_failures and not state.forfeited:
            self.forfeit(seat, f"{state.failures} failures", _failure_outcome(kind))

    def forfeit(self, seat: int, why: str, outcome: Outcome = Outcome.ILLEGAL_MOVE) -> None:
        """Seat ``seat``'s bot is out for the rest of the game (a fault of ``outcome``,
        counted in the record's faults: the standings' faults column)."""
        state = self.seats[seat]
        state.forfeited = True
        self.record.add_fault(seat, outcome, why)
        self.record.add_note(seat, "forfeit",
                             f"{self.record.players[seat].name} forfeits at "
                             f"{_label(self.game)} ({why}): the safe default plays the seat "
                             "to the end of the game")
        self.record.settings.setdefault("forfeits", []).append(
            {"seat": seat, "hand": _label(self.game), "reason": why,
             "moves": len(self.record.moves)})
        if state.process is not None:
            state.process.stop(0.2)

    def fault(self, seat: int, fault: BotFault, decision: bool) -> None:
        """A timeout is a failure (a bot still owing an earlier late answer fails again
        only at its decisions); anything else (a crash) forfeits at once."""
        if fault.outcome is Outcome.TIMEOUT:
            state = self.seats[seat]
            state.owed += 1
            if state.owed > 1:  # silent through two waits in a row
                state.silent = True
            if decision or state.owed == 1:
                self.failure(seat, "late", fault.reason, None)
        else:
            self.forfeit(seat, f"{fault.outcome.value}: {fault.reason}", fault.outcome)

    # ---------------------------------------------------------------- talking
    def deadline(self) -> float:
        wait = self.settings.startup_time if self.first else self.settings.decision_time
        return time.monotonic() + wait

    def check_none(self, seat: int, line: str) -> None:
        if line in _NONE_LINES:
            return
        try:
            obj = json_value(line)
        except ValueError:
            self.failure(seat, "garbage", "not JSON", line)
            return
        if not isinstance(obj, dict) or obj.get("type") != "none":
            self.failure(seat, "unasked", "an answer where nothing was asked", line)
        elif len(_NONE_LINES) < _NONE_LINES_KEPT:
            _NONE_LINES.add(line)

    def exchange(self, chunk: list[dict[str, Any]], pending: set[int],
                 over: bool) -> dict[int, tuple[str | None, float, float | None]]:
        """Tell every live bot the chunk; the answers (line, seconds, the bot's CPU seconds
        before the chunk) of the pending ones.

        Each event is serialised once (once per view where seats see it differently) and
        a plain bot gets the chunk's lines in one write. The answers of the bots that
        decide are read at once; the others' ``none`` answers are read when the referee
        next needs the bot (its next decision), after ``start_game`` and at the end of a
        hand, or when many are due, each against its own deadline (see :meth:`collect`).
        """
        lines = [encode_event(event) for event in chunk]
        answers: dict[int, tuple[str | None, float, float | None]] = {}
        wait = self.settings.startup_time if self.first else self.settings.decision_time
        self.first = False
        count = len(chunk)
        sent = time.monotonic()
        cpu: dict[int, float] = {}
        plain = [s for s in self.seats if not s.batched and s.alive]
        plain.sort(key=lambda s: s.seat not in pending)  # the deciders first: they think
        # while the others are told, so their answers are more often there when awaited
        for s in plain:
            seat = s.seat
            decides = seat in pending
            if decides:
                cpu[seat] = s.cpu()
            s.expected.append((sent, count, wait, decides))
            text = lines[0][seat] if count == 1 else "".join([line[seat] for line in lines])
            try:
                s.send(text, sent + wait)
            except BotFault as fault:
                self.fault(seat, fault, False)
        ends = over or any(event["type"] in _SETTLING for event in chunk)
        for s in plain:
            if s.alive and (s.seat in pending or ends or len(s.expected) > _MOST_DUE):
                self.collect(s, answers, cpu.get(s.seat))
        if self.batched:
            self.tell_batched(lines, pending, over, answers)
        return answers

    def tell_batched(self, lines: list[list[str]], pending: set[int], over: bool,
                     answers: dict[int, tuple[str | None, float, float | None]]) -> None:
        """Batched bots: the events since their last answer, as one JSON array, when they
        decide or the game is over; their answers go to ``answers``."""
        for s in self.seats:
            if not (s.alive and s.batched):
                continue
            s.buffer.extend(line[s.seat][:-1] for line in lines)
            if s.seat not in pending and not over:
                continue
            batch = "[" + ",".join(s.buffer) + "]\n"
            s.buffer = []
            deadline = self.deadline()
            start = time.monotonic()
            before = s.cpu()
            try:
                s.send(batch, deadline)
                line = s.read(deadline)
            except BotFault as fault:
                self.fault(s.seat, fault, s.seat in pending)
                if s.seat in pending:
                    answers[s.seat] = (None, time.monotonic() - start, None)
                continue
            if s.seat in pending:
                answers[s.seat] = (line, time.monotonic() - start, before)
            else:
                self.check_none(s.seat, line)

    def collect(self, s: _Seat, answers: dict[int, tuple[str | None, float, float | None]],
                cpu: float | None) -> None:
        """Read every answer ``s`` owes, in order. Each is due its seconds (the startup
        time for the first line of the game, else the decision time) after its line was
        sent or after the bot's previous answer was read, whichever is later (a bot
        suspended off turn since then: after the referee resumes it to read it, since it
        could not run before); one already received counts, however late the referee
        reads it. A bot silent through two waits in a row (it owes a late answer and the
        next wait passed too) is waited for only at its decisions until it answers again:
        the rest get what it has sent within the grace (a hung bot costs its failures'
        decision times, not one for every line it is told). ``none`` answers are
        checked; a decision's goes to ``answers``, with its seconds since its line was
        sent and ``cpu``, the bot's CPU seconds when it was sent."""
        expected = s.expected
        process = s.process
        assert process is not None
        known = _NONE_LINES
        decision_time = self.settings.decision_time
        inbox = s.inbox
        while expected:
            sent, count, wait, decides = expected.popleft()
            for k in range(count):
                if not inbox:  # the answers already received, all at once: no waiting
                    inbox.extend(process.pending_lines())
                while inbox and s.owed:
                    inbox.popleft()
                    s.owed -= 1
                    if not inbox:
                        inbox.extend(process.pending_lines())
                decision = decides and k == count - 1
                if inbox:
                    line = inbox.popleft()
                    s.silent = False
                else:
                    begin = max(sent, s.last_read)
                    if process.suspended:  # stopped since then: its time begins now
                        begin = max(begin, time.monotonic())
                    due = begin + (wait if k == 0 else decision_time)
                    if s.silent and not decision:  # a hung bot: what is there, no more
                        due = time.monotonic()
                    try:
                        line = s.read(due)
                    except BotFault as fault:
                        now = s.last_read = time.monotonic()
                        self.fault(s.seat, fault, decision)
                        if not s.alive:
                            expected.clear()
                            return
                        if decision:
                            answers[s.seat] = (None, now - sent, None)
                        continue
                    s.last_read = time.monotonic()
                if decision:
                    answers[s.seat] = (line, time.monotonic() - sent, cpu)
                elif line not in known:
                    self.check_none(s.seat, line)
                    if not s.alive:
                        expected.clear()
                        return
        s.last_read = time.monotonic()

    def action(self, seat: int, line: str | None) -> tuple[Action, bool]:
        """The bot's answer if it is legal, else the safe default (a failure counted);
        and whether it is the default."""
        if line is None:
            return safe_default(self.game.legal_actions(seat)), True
        try:
            return read_answer(self.game, seat, line), False
        except AnswerError as exc:
            self.failure(seat, exc.kind, exc.reason, line)
            return safe_default(self.game.legal_actions(seat)), True

    # ---------------------------------------------------------------- the game
    def play(self, names: Sequence[str]) -> None:
        game = self.game
        # start_game alone, every answer read: the bots' start-up is no decision's time
        self.exchange([start_game_event(names, game.rules)], set(), False)
        while True:
            self.between()
            chunk = game.events[self.told:]
            self.told = len(game.events)
            pending = game.pending()
            answers = self.exchange(chunk, pending, game.over)
            if game.over:
                return
            for seat in sorted(pending):
                action, seconds, info = self.decide(seat, answers)
                if action.type != "none":  # (a pass records nothing)
                    self.record.add_move(seat, move_text(action), seconds, **info)
                game.apply(seat, action)
                self.applied()

    def decide(self, seat: int, answers: dict[int, tuple[str | None, float, float | None]]
               ) -> tuple[Action, float, dict[str, Any]]:
        """Seat ``seat``'s answer now (its bot's, or the safe default), its seconds and
        what the record's move notes of it."""
        state = self.seats[seat]
        before: float | None = None
        default = True
        if seat in answers and not state.forfeited:
            line, seconds, before = answers[seat]
            action, default = self.action(seat, line)
            self.end_turn(seat)
        else:
            action, seconds = safe_default(self.game.legal_actions(seat)), 0.0
        # (the bot waits idle for its next line: its CPU now is its CPU when it answered)
        info: dict[str, Any] = {} if before is None or action.type == "none" else {
            "cpu_ms": round((state.cpu() - before) * 1000, 1)}
        if default:
            info["default"] = True
        return action, seconds, info

    def between(self) -> None:
        """Before the events since the last answers are told (a web table's hook: seats
        taken over); nothing here."""

    def applied(self) -> None:
        """After each answer is applied (a web table's hook: it is shown the game);
        nothing here."""

    def end_turn(self, seat: int) -> None:
        """After a seat's decision: its folders over the sandbox's limit forfeit it."""
        state = self.seats[seat]
        if state.process is None or state.forfeited:
            return
        try:
            state.process.end_turn()
        except BotFault as fault:
            self.forfeit(seat, f"{fault.outcome.value}: {fault.reason}", fault.outcome)




# ------------------------------------------------------------------------------ entry points


def new_record(players: Sequence[PlayerSpec], settings: RiichiMatchSettings) -> GameRecord:
    """An empty record of a game with these players and settings."""
    rules = settings.rules
    return GameRecord("riichi", [PlayerInfo(p.name, p.command) for p in players],
                      settings={"game_length": rules.game_length,
                                "rules": rules_to_dict(rules),
                                "decision_time": settings.decision_time,
                                "batched": list(settings.batched),
                                "max_failures": settings.max_failures,
                                "max_memory": settings.memory_limit},
                      seed=settings.seed)


def play_riichi(players: Sequence[PlayerSpec], settings: RiichiMatchSettings, folder: Path,
                log_path: Path | None = None) -> GameRecord:
    """Play one game with four bot programs; write its mjai log (``log_path``, default
    ``folder/game.mjson.gz``) and return the record (not written)."""
    if len(players) != 4:
        raise ValueError("Riichi mahjong takes four players")
    record = new_record(players, settings)
    plan = plan_sandbox(settings.sandbox)
    suspend = settings.sandbox.suspends(True)
    record.sandbox = plan.describe(suspend)
    game = RiichiGame(settings.rules, seed=settings.seed)
    seats: list[_Seat] = []
    referee = _Referee(game, seats, settings, record)
    try:
        for s, player in enumerate(players):
            try:
                process: BotProcess | None = start_player(
                    seated(player, s), folder, seed=settings.seed * 4 + s,
                    tag=f"seat{s + 1}-", sandbox=plan, suspend=suspend, seat=s,
                    memory_limit=settings.memory_limit)
            except BotFault as fault:
                process = None
                seats.append(_Seat(s, None, settings.batched[s]))
                referee.forfeit(s, f"{fault.outcome.value}: {fault.reason}", fault.outcome)
                continue
            seats.append(_Seat(s, process, settings.batched[s]))
        referee.play([p.name for p in players])
    finally:
        for state in seats:
            if state.process is not None:
                state.process.stop(0.5)
    return finish_record(record, game, seats, [p.name for p in players], settings,
                         log_path or folder / "game.mjson.gz")


def finish_record(record: GameRecord, game: RiichiGame, seats: Sequence[_Seat],
                  names: Sequence[str], settings: RiichiMatchSettings,
                  path: Path) -> GameRecord:
    """Close the record of a game played to its end and write its mjai log to ``path``."""
    finals = game.final_scores()
    record.settings["points"] = [f.points for f in finals]
    record.settings["ranks"] = [f.rank for f in finals]
    record.settings["hands"] = len(game.results)
    record.settings["failure_counts"] = [s.failures for s in seats]
    path.parent.mkdir(parents=True, exist_ok=True)
    write_mjai_objects(path, [start_game_event(names, settings.rules), *game.events])
    record.settings["mjai_log"] = path.name
    forfeits = [s.seat for s in seats if s.forfeited]
    reason = "end of the game" + (
        f"; forfeited: {', '.join(record.players[s].name for s in forfeits)}"
        if forfeits else "")
    record.finish([f.score for f in finals], Outcome.NORMAL, reason)
    return record


def run_match(players: Sequence[PlayerSpec], settings: RiichiMatchSettings, rotations: int,
              out_dir: Path, on_game: Callable[[GameRecord], None] | None = None
              ) -> list[GameRecord]:
    """Duplicate play: ``rotations`` games (1 to 4) on the same seed, the seats rotating
    one place each game; ``game-NNN.json`` and ``game-NNN.mjson.gz`` go to ``out_dir``."""
    if not 1 <= rotations <= 4:
        raise ValueError(f"rotations must be 1 to 4, not {rotations}")

    def play(seated: list[PlayerSpec], number: int) -> GameRecord:
        batched = tuple(settings.batched[(s + number) % 4] for s in range(4))
        here = replace(settings, batched=batched)
        return play_riichi(seated, here, out_dir / f"game-{number + 1}",
                           out_dir / f"game-{number + 1:03d}.mjson.gz")

    return play_rotations(players, rotations, play, out_dir, on_game)


# ------------------------------------------------------------------------------ in-process


@dataclass
class SelfPlayResult:
    """An in-process game: the engine (events, results, final scores) and the illegal
    answers of each seat (replaced by the safe default)."""

    game: RiichiGame
    illegal: list[list[str]]


def self_play(policies: Sequence[Policy], rules: RiichiRules | None = None,
              seed: int = 1, names: Sequence[str] = ("p0", "p1", "p2", "p3")
              ) -> SelfPlayResult:
    """Play a game of four in-process policies, each over its own masked view."""
    game = RiichiGame(rules or RiichiRules(), seed=seed)
    views = [View(s) for s in range(4)]
    for seat, view in enumerate(views):
        view.update(mask_event({"type": "start_game", "names": list(names)}, seat))
    illegal: list[list[str]] = [[] for _ in range(4)]
    told = 0
    while not game.over:
        chunk = game.events[told:]
        told = len(game.events)
        for seat, view in enumerate(views):
            for event in chunk:
                view.update(mask_event(event, seat) if event["type"] in _MASKED else event)
        for seat in sorted(game.pending()):
            answer = decide(views[seat], policies[seat])
            try:  # apply checks first and changes nothing when it refuses
                game.apply(seat, action_from_mjai(answer, seat))
            except ValueError as exc:
                illegal[seat].append(f"{answer}: {exc}")
                game.apply(seat, safe_default(game.legal_actions(seat)))
    return SelfPlayResult(game, illegal)


# ------------------------------------------------------------------------------ replay


def may_pass(game: RiichiGame) -> bool:
    """Whether the seats asked now answer another seat's discard or kan (and may pass)."""
    kyoku = game.kyoku
    return not game.over and kyoku is not None and kyoku.phase in ("respond", "chankan")


def pass_all(game: RiichiGame) -> None:
    """Every seat asked now passes (which ends the question: the game goes on)."""
    for seat in sorted(game.pending()):
        game.apply(seat, Action("none", seat))


def apply_logged(game: RiichiGame, seat: int, action: Action) -> RiichiKyoku:
    """Apply an action from a log or record that leaves out the passes: while it does not
    fit and seats are answering a discard or a kan, they all pass; ``ValueError`` with
    the engine's reason if it never fits. Returns the hand the action was played in."""
    reason = game.illegal_reason(seat, action)
    while reason is not None and may_pass(game):
        pass_all(game)
        reason = game.illegal_reason(seat, action)
    if reason is not None:
        raise ValueError(reason)
    kyoku = game.kyoku
    assert kyoku is not None
    game.apply(seat, action)
    return kyoku
