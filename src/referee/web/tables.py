"""Tables being played: each game in a thread of its own, on the game's own driver (a
table of the server's programs only is played so in a worker process: ``table_workers``).

A table starts once every seat is taken (or its owner starts it and the pinch-hitter
fills the empty ones). Its thread hands the game's driver the seats: programs (built-in
bots, programs registered on the server) the driver starts in the server's sandbox as
its command line would, and people's seats (``PersonSeat``) driven by their pages. The
thread publishes what every seat and the spectators may see after every change
(``Hub``); the finished record is written to ``DATA/records/<game>/game-<table>.json``, an
ordinary record that ``replay``, ``ratings`` and ``dataset`` read, and the table's row
says how it ended. Nothing here knows a game.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
import threading
import time
from collections.abc import Mapping, MutableSequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import orjson
from sqlalchemy.orm import Session, sessionmaker

from referee.core.clock import Clock, TimeControl
from referee.core.errors import BotFault, ConfigError, JournalMismatch
from referee.core.journal import Journal
from referee.core.line_link import LineLink
from referee.core.match import Seat
from referee.core.outcome import Outcome
from referee.core.players import PlayerSpec, builtin_command
from referee.core.record import GameRecord
from referee.core.sandbox import SandboxConfig
from referee.core.table import (
    LinkedSeat,
    OutsideSeat,
    ProgramSeat,
    SeatPlan,
    TableDriver,
    TableGame,
)
from referee.games.registry import table_driver
from referee.web.game_stores import GameStores
from referee.web.live import Hub
from referee.web.models import GameTable, Program, utcnow
from referee.web.person_seat import Deputy, Leave, Message, Move, PersonSeat, Resign, TakeBack
from referee.web.program_link import ProgramLink

if TYPE_CHECKING:
    from referee.web.table_workers import WorkedTable

log = logging.getLogger(__name__)

__all__ = ["LEAVE_GRACE", "PACE", "LiveTable", "Publisher", "SeatInfo", "TableHost", "TablePlan",
           "Tables", "conclude", "pace_of", "record_path", "time_controls"]

RESTARTED = "the server stopped during this table's game: it is played again from the start"
"""The note of a table of programs a stopped server was playing, started again."""
RESUMED = ("the server stopped during this table's game: it goes on from where it was "
           "({moves} moves in; every clock starts again)")
"""The note of a table whose game a stopped server was playing, resumed from its journal."""
LEAVE_GRACE = 30.0
"""Seconds a person's seat waits for them to come back once all their pages are closed."""
PACE = 0.2
"""Seconds a table of programs only shows each state before its game goes on, unless the
table says otherwise (its ``clocks``' ``pace_ms``; 0: as fast as its programs play)."""


@dataclass(frozen=True)
class SeatInfo:
    """A seat as its table's row gives it."""

    kind: str
    name: str
    user: int | None = None
    bot: str | None = None
    command: tuple[str, ...] = ()
    """A registered program's command (``kind`` ``program``)."""
    pinch_hitter: bool = False
    """The seat was empty at the start: the pinch-hitter plays it."""


@dataclass(frozen=True)
class TablePlan:
    """What a table's game is played from: its row's settings and seats, as plain data
    (a worker process gets it as it is)."""

    id: str
    game: str
    settings: Mapping[str, Any]
    clocks: Mapping[str, Any]
    reveal: bool
    """Whether spectators see every hidden part once the game is over."""
    pinch_hit: bool
    seats: tuple[SeatInfo, ...]
    delay: float = 0.0
    """Seconds late the spectators are shown everything, hidden parts too (0: they see
    the game as it goes, its hidden parts as ``reveal`` says)."""
    note: str = ""
    """Said on the table's page from the start (a game played again, and why)."""

    @property
    def programs_only(self) -> bool:
        """Whether the server's own programs play every seat (no person's page, no
        program joined over the network): its game needs nothing from the server's
        process but the spectators."""
        return all(info.kind in ("bot", "program") for info in self.seats)


class Publisher(Protocol):
    """Where a table's states and small messages go (the ``Hub``, or a worker's pipe)."""

    def post(self, table: str, states: Mapping[int | None, str]) -> None:
        """Each seat's state (``None``: the spectators')."""

    def note(self, table: str, seat: int | None, text: str) -> None:
        """A small message to ``seat``'s pages (``None``: every page)."""


class TableHost(Protocol):
    """What a ``LiveTable`` needs from the process it is played in."""

    data: Path
    sandbox: SandboxConfig
    leave_grace: float
    links: dict[tuple[str, int], ProgramLink]

    @property
    def hub(self) -> Publisher:
        """Where the table's states go."""

    def record_path(self, game: str, table_id: str) -> Path:
        """Where the table's record is written."""

    def program_of(self, user: int | None, game: str, name: str) -> PlayerSpec | None:
        """``user``'s program ``name`` registered on the server."""

    def finished(self, table: LiveTable, record: GameRecord | None) -> None:
        """The table's game is over."""


def time_controls(clocks: Mapping[str, Any]) -> tuple[TimeControl, TimeControl]:
    """A person's and a program's limits from a table's ``clocks`` (milliseconds: move
    and game; game 0, no game limit)."""
    def control(part: Mapping[str, Any], turn: int) -> TimeControl:
        turn_ms = int(part.get("turn_ms", turn))
        game_ms = int(part.get("game_ms", 0))
        return TimeControl(turn=turn_ms / 1000 if turn_ms else None,
                           game=game_ms / 1000 if game_ms else None, tolerance=1.0,
                           startup=30.0)
    return control(clocks.get("person", {}), 120_000), control(clocks.get("program", {}), 5000)


def pace_of(clocks: Mapping[str, Any]) -> float:
    """The seconds a table of programs only waits after each change before its game goes
    on, from its ``clocks`` (``pace_ms``; :data:`PACE` if it does not say)."""
    return max(0, int(clocks.get("pace_ms", round(PACE * 1000)))) / 1000


class LiveTable:
    """One table's game in progress (the ``SeatHost`` of its people's seats)."""

    def __init__(self, tables: TableHost, plan: TablePlan) -> None:
        self.tables = tables
        self.id = plan.id
        self.game = plan.game
        self.driver: TableDriver = table_driver(plan.game)
        self.settings: dict[str, Any] = dict(plan.settings)
        self.seats = list(plan.seats)
        self.names = self.driver.seat_names(self.settings)
        self.person_time, self.program_time = time_controls(plan.clocks)
        self.pace = pace_of(plan.clocks) if plan.programs_only else 0.0
        """Seconds each state is shown before the game goes on (its programs' next moves
        wait; no clock runs): its spectators can follow it, and a server of many such
        tables spends its time showing their moves, not making moves nobody sees."""
        self.reveal = plan.reveal
        self.delay = plan.delay
        self.pinch = plan.pinch_hit
        self.persons: dict[int, PersonSeat] = {}
        self.status = "playing"
        self.result = ""
        self.notes: list[str] = [plan.note] if plan.note else []
        self.unwritten: list[tuple[int, str]] = []
        """Notes waiting for the record to be made."""
        self.asking: int | None = None
        self.deadline: float | None = None
        self.states: dict[int | None, str] = {}
        self.seq = 0
        self.lock = threading.Lock()
        self.game_run: TableGame | None = None
        self.engine: Any = None
        """The game's engine, once the game has shown it (read in the game's thread)."""
        self.thread = threading.Thread(target=self._run, name=f"table-{self.id}", daemon=True)
        self.connected: dict[int, int] = {}
        self.leaving: dict[int, asyncio.TimerHandle] = {}
        self.playing: dict[int, PlayerSpec] = {}
        """The program playing a seat in place of its own (a pinch-hitter), by seat."""
        self.journal: Journal | None = None
        """The journal of its game (``core.journal``), once its thread plays it."""

    # -- the game thread ----------------------------------------------------------------
    def start(self) -> None:
        """Play the game in its thread."""
        self.thread.start()

    def _run(self) -> None:
        """Play the game to its end, publish it, write its record, close the table."""
        work = self.tables.data / "work" / self.id
        work.mkdir(parents=True, exist_ok=True)
        journal = self._journal()
        plans = [self._plan(seat, info) for seat, info in enumerate(self.seats)]
        game = TableGame(settings=self.settings, seats=plans, times=self.times(),
                         seed=journal.seed, work=work, sandbox=self.tables.sandbox,
                         record_path=self.tables.record_path(self.game, self.id),
                         watch=self._watch, on_fault=self._on_fault)
        self.game_run = game
        if not journal.resuming:
            for seat, info in enumerate(self.seats):
                if info.pinch_hitter:
                    self._note(seat, f"the seat was empty at the start: {info.bot} "
                                     f"pinch-hits seat {seat + 1}")
        record: GameRecord | None = None
        try:
            with journal.activated():
                record = self.driver.play(game)
        except JournalMismatch as exc:
            log.error("table %s: its game cannot be resumed: %s", self.id, exc)
        except Exception:  # a driver's bug must not take the server down
            log.exception("table %s: the game stopped on an error", self.id)
        journal.close()
        self.tables.finished(self, record)
        journal.remove()  # (once its end is filed: a crash before, and it is resumed)

    def _journal(self) -> Journal:
        """The table's journal: that of its game a stopped server was playing, to go on
        from where it was (its notes made again), or a new one with a new seed."""
        path = journal_path(self.tables.data, self.id)
        journal = Journal.read(path)
        if journal is None or not journal.resuming:
            seed = journal.seed if journal else secrets.randbits(31)
            try:
                journal = Journal.create(path, seed)
            except OSError as exc:  # (the game is played all the same, without one)
                log.warning("table %s: no journal (%s): its game cannot go on after a "
                            "crash of the server", self.id, exc)
                journal = Journal(path, seed)
        else:
            for seat, text in journal.notes:
                self.notes.append(text)
                self.unwritten.append((seat, text))
            self.notes.append(RESUMED.format(moves=journal.applied()))
            if RESTARTED in self.notes:
                self.notes.remove(RESTARTED)
            journal.caught_up = self._caught_up
            self.playing.update(journal.players)
        self.journal = journal
        return journal

    def _caught_up(self, engine: Any, seats: MutableSequence[Any]) -> list[tuple[int, Any]]:
        """The stopped game's moves are applied again: each program takes its seat at the
        position reached (as a pinch-hitter would); the people play on from there."""
        game = self.game_run
        faults: list[tuple[int, Any]] = []
        moves = self.journal.applied() if self.journal is not None else 0
        for seat, info in enumerate(self.seats):
            if info.kind not in ("bot", "program") or game is None or game.take_over is None:
                continue
            spec = self.playing.get(seat) or self._program(info)
            try:
                seats[seat] = game.take_over(seat, spec, self.program_time)
            except BotFault as fault:
                faults.append((seat, fault))
                continue
            self._note(seat, f"the server stopped during the game: {spec.name} plays seat "
                             f"{seat + 1} again from move {moves + 1}")
        if game is not None and game.take_over is not None and self.journal is not None:
            faults += self._deputies_again(game.take_over, self.journal, moves)
        return faults

    def _deputies_again(self, take_over: Any, journal: Journal,
                        moves: int) -> list[tuple[int, Any]]:
        """The programs that played for people when the server stopped take their seats
        again at the position reached: a person's own program until they take the seat
        back, a pinch-hitter for the rest of the game. A program of theirs that cannot
        start leaves the seat to the person; a pinch-hitter that cannot is a fault."""
        faults: list[tuple[int, Any]] = []
        for seat, person in self.persons.items():
            spec = journal.players.get(seat)
            if spec is None:
                continue
            for_good = seat in journal.for_good
            try:
                person.deputy = take_over(seat, spec, self.program_time)
            except BotFault as fault:
                if for_good:
                    faults.append((seat, fault))
                    continue
                self._note(seat, f"the server stopped during the game: {spec.name} could not "
                                 f"take seat {seat + 1} again ({fault.reason}): {person.name} "
                                 "plays it")
                journal.released(seat)
                continue
            person.gone = for_good
            self._note(seat, f"the server stopped during the game: {spec.name} plays seat "
                             f"{seat + 1} again for {person.name} from move {moves + 1}")
        return faults

    def _plan(self, seat: int, info: SeatInfo) -> SeatPlan:
        """What plays ``seat``: a program the driver starts, or a person's seat."""
        if info.kind == "remote":
            def link(index: int = seat) -> LineLink:
                joined = self.tables.links[(self.id, index)]
                joined.used = True
                return joined.link
            return LinkedSeat(info.name, link)
        if info.kind == "person":
            def make(index: int, clock: Clock, name: str = info.name) -> Seat:
                person = PersonSeat(self, index, clock, name)
                self.persons[index] = person
                return person
            return OutsideSeat(info.name, make)
        return ProgramSeat(self._program(info))

    def _program(self, info: SeatInfo | None) -> PlayerSpec:
        """A seat's program (``None``: the pinch-hitter, the driver's first built-in)."""
        if info is None or info.kind in ("open", "person"):
            name = next(iter(self.driver.builtins))
            return PlayerSpec(name, builtin_command(self.driver.builtins[name]), builtin=True)
        if info.kind == "bot" and info.bot is not None and info.bot in self.driver.builtins:
            return PlayerSpec(info.bot, builtin_command(self.driver.builtins[info.bot]),
                              builtin=True)
        return PlayerSpec(info.name, list(info.command))

    def _watch(self, engine: Any) -> None:
        """The game changed: publish what each seat and the spectators now see."""
        self.engine = engine
        if self.unwritten:
            self._write_notes()
        # Nobody is asked until the next seat's driver asks (the same seat may decide
        # again: a trick's winner leads the next, a mahjong hand draws then discards).
        self.asking, self.deadline = None, None
        self._publish(engine)
        if self.pace and engine.to_play() is not None:
            time.sleep(self.pace)

    def _publish(self, engine: Any) -> None:
        """Every seat's state and the spectators' to the hub (and kept for new pages)."""
        states = self.states_of(engine)
        with self.lock:
            self.seq += 1
            self.states = states
        self.tables.hub.post(self.id, states)

    def states_of(self, engine: Any) -> dict[int | None, str]:
        """What each person's seat and the spectators see of ``engine`` now."""
        over = engine.to_play() is None
        summary = self._summary(engine)
        states: dict[int | None, str] = {}
        for seat in self.persons:  # (a program's seat has no page of its own)
            states[seat] = _state(summary, self.driver.view(engine, seat, False), seat)
        shown = bool(self.delay) or (over and self.reveal)  # (a delayed table: everything)
        states[None] = _state(summary, self.driver.view(engine, None, shown), None)
        return states

    def _summary(self, engine: Any) -> dict[str, Any]:
        """The table's part of every state: seats, whose turn, clock, result, notes."""
        deadline = self.deadline
        left = None if deadline is None or deadline == float("inf") else \
            max(0, round((deadline - time.monotonic()) * 1000))
        return {
            "id": self.id, "game": self.game, "status": self.status, "result": self.result,
            "at": round(time.time(), 4),  # when the server published it (for latency)
            "seats": [{"name": info.name, "kind": info.kind, "role": self.names[seat]
                       if seat < len(self.names) else "",
                       "present": self.connected.get(seat, 0) > 0,
                       "deputy": seat in self.persons and self.persons[seat].deputy is not None}
                      for seat, info in enumerate(self.seats)],
            "to_play": engine.to_play(), "asking": self.asking, "left_ms": left,
            "notes": self.notes[-20:],
        }

    def times(self) -> list[TimeControl]:
        """Each seat's limits: a person's or a program's, as the table's clocks say."""
        return [self.person_time if info.kind == "person" else self.program_time
                for info in self.seats]

    def clocks(self) -> list[dict[str, int | None]]:
        """Each seat's limits as the table timed it (milliseconds; ``None``: none)."""
        def ms(value: float | None) -> int | None:
            return None if value is None else round(value * 1000)
        return [{"turn_ms": ms(control.turn), "game_ms": ms(control.game),
                 "tolerance_ms": ms(control.tolerance)} for control in self.times()]

    def close_states(self) -> None:
        """The last states, with the table's result (after the game)."""
        if self.engine is not None:
            self._publish(self.engine)

    # -- SeatHost (called in the game thread) -------------------------------------------
    def ask(self, seat: int, engine: Any, deadline: float) -> None:
        """It is ``seat``'s person's turn until ``deadline``."""
        self.asking, self.deadline = seat, deadline
        self._publish(engine)

    def refuse(self, seat: int, reason: str) -> None:
        """Tell ``seat``'s pages why their click was not taken."""
        self.tables.hub.note(self.id, seat, _json({"type": "refused", "reason": reason}))

    def action(self, engine: Any, seat: int, move: Mapping[str, Any]) -> Any:
        """The engine's action for a click (the driver reads it)."""
        return self.driver.action(engine, seat, move)

    def substitute(self, seat: int, player: str | None, why: str) -> Seat | None:
        """A program takes the seat from here: ``player`` (one of the seat's user's
        programs on the server) or, ``None``, the pinch-hitter."""
        game = self.game_run
        if game is None or game.take_over is None:
            return None
        if player is None:
            spec: PlayerSpec | None = self._program(None)
        elif player in self.driver.builtins:
            spec = self._program(SeatInfo("bot", player, bot=player))
        else:
            spec = self.tables.program_of(self.seats[seat].user, self.game, player)
        if spec is None:
            return None
        try:
            deputy = game.take_over(seat, spec, self.program_time)
        except BotFault as fault:
            self._note(seat, f"{spec.name} could not take the seat: {fault.reason}")
            if player is not None:
                raise
            return None
        self._note(seat, f"{why}: {spec.name} plays seat {seat + 1}")
        person = self.seats[seat].kind == "person"
        if not person:
            self.playing[seat] = spec
        if self.journal is not None:
            # resumed after a crash, it takes the seat again: a person's pinch-hitter for
            # good, their own program until they take the seat back
            self.journal.took(seat, spec, for_good=person and player is None)
        return deputy

    def dismiss(self, seat: int) -> None:
        """The person plays again: their program is ended."""
        game = self.game_run
        if game is not None and game.release is not None:
            game.release(seat)
        if self.journal is not None:
            self.journal.released(seat)
        self._note(seat, f"{self.seats[seat].name} plays seat {seat + 1} again")

    def pinch_hit(self) -> bool:
        """Whether a pinch-hitter takes a seat its person gives up."""
        return self.pinch

    def _on_fault(self, engine: Any, seat: int, fault: BotFault) -> Seat | None:
        """A program's fault: with pinch-hit, the pinch-hitter plays on; else it loses."""
        if not self.pinch or self.seats[seat].kind == "person":
            return None
        return self.substitute(seat, None, f"{self.seats[seat].name}: {fault.reason}")

    def _note(self, seat: int, text: str) -> None:
        """A note in the record (and the table's list): who played which part; kept
        until the record is made if it is not yet."""
        self.notes.append(text)
        self.unwritten.append((seat, text))
        self._write_notes()
        if self.journal is not None:
            self.journal.noted(seat, text)

    def _write_notes(self) -> None:
        game = self.game_run
        record = game.record() if game is not None and game.record is not None else None
        if record is not None:
            for seat, text in self.unwritten:
                record.add_note(seat, "table", text)
            self.unwritten.clear()

    # -- the pages (called on the event loop) --------------------------------------------
    def state_for(self, seat: int | None) -> str | None:
        """The newest state a page of ``seat`` sees (for a page that just connected)."""
        with self.lock:
            return self.states.get(seat, self.states.get(None))

    def submit(self, seat: int, message: Message) -> str | None:
        """Hand a person's message to their seat; the reason if it is refused now."""
        person = self.persons.get(seat)
        if self.status != "playing" or person is None:
            return "the game is not being played"
        if isinstance(message, Move) and not person.waiting:
            return "it is not your turn"
        person.put(message)
        return None

    def arrive(self, seat: int | None) -> None:
        """A page of ``seat`` connected: a person who left is back in time."""
        if seat is None:
            return
        self.connected[seat] = self.connected.get(seat, 0) + 1
        timer = self.leaving.pop(seat, None)
        if timer is not None:
            timer.cancel()

    def depart(self, seat: int | None, loop: asyncio.AbstractEventLoop) -> None:
        """A page of ``seat`` closed: with none left, the person has ``leave_grace``
        seconds to come back."""
        if seat is None:
            return
        self.connected[seat] = max(0, self.connected.get(seat, 0) - 1)
        if self.connected[seat] == 0 and seat in self.persons and self.status == "playing":
            self.leaving[seat] = loop.call_later(self.tables.leave_grace, self._gone, seat)

    def _gone(self, seat: int) -> None:
        self.leaving.pop(seat, None)
        person = self.persons.get(seat)
        if person is not None and self.connected.get(seat, 0) == 0:
            person.put(Leave())


def _state(summary: dict[str, Any], view: dict[str, Any], seat: int | None) -> str:
    return _json({"type": "state", "table": summary, "view": view, "you": seat})


def _json(data: Any) -> str:
    return orjson.dumps(data).decode()


def message_of(data: Any) -> Message | None:
    """A page's WebSocket message as a seat's message; ``None`` if it is not one."""
    if not isinstance(data, dict):
        return None
    kind = data.get("type")
    if kind == "move" and isinstance(data.get("move"), dict):
        return Move(data["move"])
    if kind == "resign":
        return Resign()
    if kind == "deputy" and isinstance(data.get("program"), str) and \
            0 < len(data["program"]) <= 80:
        return Deputy(data["program"])
    if kind == "take-back":
        return TakeBack()
    return None


class Tables:
    """Every table being played on the server, and their rows kept up to date."""

    def __init__(self, sessions: sessionmaker[Session], data: Path, hub: Hub,
                 sandbox: SandboxConfig | None = None, leave_grace: float = LEAVE_GRACE,
                 workers: int = 0) -> None:
        self.sessions = sessions
        self.data = data
        self.hub = hub
        self.sandbox = sandbox or SandboxConfig()
        self.leave_grace = leave_grace
        self.live: dict[str, LiveTable | WorkedTable] = {}
        self.lock = threading.Lock()
        self.stores = GameStores(data)
        self.links: dict[tuple[str, int], ProgramLink] = {}
        """The programs joined over the network, by table and seat."""
        from referee.web.table_workers import TableWorkers  # (it imports this module)

        self.workers = TableWorkers(self, workers) if workers > 0 else None
        """The worker processes that play the tables of programs only (``None``: every
        table is played in this process)."""

    def close(self) -> None:
        """The server stops: its worker processes end with it."""
        if self.workers is not None:
            self.workers.close()

    def recover(self) -> int:
        """Tables left being played by a server that stopped: each goes on from where it
        was, by its journal (its people come back to their seats; its programs take
        theirs at the position reached), or, if its game had no move yet, is played again
        from the start; one with a program joined over the network is closed as aborted
        (its game cannot go on without it); how many there were."""
        again: list[str] = []
        with self.sessions.begin() as session:
            rows = session.query(GameTable).filter(GameTable.status == "playing").all()
            for row in rows:
                if all(seat.kind in ("bot", "program", "person") for seat in row.seats):
                    row.status, row.started_at = "open", None
                    again.append(row.id)
                    continue
                row.status = "aborted"
                row.result = "the server stopped during the game"
                row.finished_at = utcnow()
                with contextlib.suppress(OSError):
                    journal_path(self.data, row.id).unlink()
        for table_id in again:
            log.warning("table %s: the server stopped during its game: resumed, or played "
                        "again from the start", table_id)
            try:
                self.start(table_id, RESTARTED)
            except ConfigError as exc:
                self.file("", table_id, None, "aborted", f"could not start again: {exc}")
        return len(rows)

    def start(self, table_id: str, note: str = "") -> LiveTable | WorkedTable:
        """Start the game of table ``table_id`` (its seats as its row has them; empty
        ones get the pinch-hitter), ``note`` shown on its page; ``ConfigError`` if it
        cannot start."""
        with self.lock, self.sessions.begin() as session:
            row = session.get(GameTable, table_id)
            if row is None or row.status != "open":
                raise ConfigError("the table is not open")
            seats = [self._seat_info(session, seat.kind, seat.name or "", seat.user_id,
                                     seat.bot) for seat in row.seats]
            for index, info in enumerate(seats):
                joined = self.links.get((table_id, index))
                if info.kind == "remote" and (joined is None or not joined.link.running):
                    seats[index] = SeatInfo("open", "")  # its program is not there
                elif info.kind == "remote" and joined is not None:
                    seats[index] = dataclasses.replace(info, name=joined.link.name)
            if any(info.kind == "open" for info in seats) and not row.pinch_hit:
                raise ConfigError("every seat must be taken first")
            pinch = next(iter(table_driver(row.game).builtins))
            seats = [info if info.kind != "open" else
                     SeatInfo("bot", f"{pinch} (pinch-hitter)", bot=pinch,
                              pinch_hitter=True) for info in seats]
            for seat, info in zip(row.seats, seats, strict=True):
                if seat.kind == "open":
                    seat.kind, seat.bot, seat.name, seat.token = "bot", info.bot, info.name, None
            row.status = "playing"
            row.started_at = utcnow()
            delay = delay_of(row.reveal)
            plan = TablePlan(row.id, row.game, dict(row.settings), dict(row.clocks or {}),
                             row.reveal != "never", bool(row.pinch_hit), tuple(seats), delay,
                             note)
            if delay:
                self.hub.delay(row.id, delay)  # (before its first state)
            table: LiveTable | WorkedTable
            if plan.programs_only and self.workers is not None:
                table = self.workers.table(plan)
            else:
                table = LiveTable(self, plan)
            self.live[table_id] = table
        table.start()
        return table

    def _seat_info(self, session: Session, kind: str, name: str, user: int | None,
                   bot: str | None) -> SeatInfo:
        if kind == "program" and bot is not None:
            program = session.query(Program).filter(Program.name == bot).one_or_none()
            if program is not None:
                return SeatInfo(kind, name or bot, user, bot, tuple(program.command))
        return SeatInfo(kind, name or bot or "", user, bot)

    def program_of(self, user: int | None, game: str, name: str) -> PlayerSpec | None:
        """``user``'s program ``name`` for ``game`` registered on the server."""
        if user is None:
            return None
        with self.sessions() as session:
            program = session.query(Program).filter(
                Program.name == name, Program.game == game,
                Program.owner_id == user).one_or_none()
            if program is None:
                return None
            return PlayerSpec(program.name, list(program.command))

    def finished(self, table: LiveTable, record: GameRecord | None) -> None:
        """The game of ``table`` is over: its record written, its row closed."""
        table.status, table.result = conclude(table, record)
        self.file(table.game, table.id, record, table.status, table.result)
        table.close_states()
        self.forget(table.id)

    def file(self, game: str, table_id: str, record: GameRecord | None, status: str,
             result: str) -> None:
        """A game's end kept: its record (a finished one) written and in its game's
        store, its table's row closed with ``status`` and ``result``."""
        path: str | None = None
        if record is not None and status == "finished":
            record.write(self.record_path(game, table_id))
            path = f"records/{game}/game-{table_id}.json"
            try:
                self.stores.commit(game, table_id, record)
            except Exception:  # the record file is written: the store can be rebuilt
                log.exception("table %s: the game's store did not take its record", table_id)
        with self.sessions.begin() as session:
            row = session.get(GameTable, table_id)
            if row is not None:
                row.status, row.result, row.record = status, result, path
                row.finished_at = utcnow()
        self.hub.undelay(table_id)  # (once its spectators have been shown the end)

    def forget(self, table_id: str) -> None:
        """The table is no longer being played."""
        with self.lock:
            self.live.pop(table_id, None)

    def ready(self, table_id: str) -> bool:
        """Whether the open table ``table_id`` has every seat taken (its remote programs
        joined), so that it may start."""
        with self.sessions() as session:
            row = session.get(GameTable, table_id)
            if row is None or row.status != "open":
                return False
            return all(seat.kind not in ("open", "remote") or (
                seat.kind == "remote" and (joined := self.links.get((table_id, seat.index)))
                is not None and joined.link.running) for seat in row.seats)

    def record_path(self, game: str, table_id: str) -> Path:
        """Where the record of table ``table_id`` is written."""
        return record_path(self.data, game, table_id)

    def get(self, table_id: str) -> LiveTable | WorkedTable | None:
        """The table ``table_id`` if its game is being played."""
        return self.live.get(table_id)


def delay_of(reveal: str) -> float:
    """The spectators' delay a table's ``reveal`` says (``delay:SECONDS``; 0: none)."""
    if not reveal.startswith("delay:"):
        return 0.0
    try:
        return max(0.0, float(reveal[6:]))
    except ValueError:
        return 0.0


def journal_path(data: Path, table_id: str) -> Path:
    """Where a server in ``data`` keeps the journal of table ``table_id``'s game (out of
    the programs' work folders)."""
    return data / "journals" / f"table-{table_id}.jsonl"


def record_path(data: Path, game: str, table_id: str) -> Path:
    """Where a server in ``data`` writes the record of table ``table_id`` (a match's
    folder a game)."""
    return data / "records" / game / f"game-{table_id}.json"


def conclude(table: LiveTable, record: GameRecord | None) -> tuple[str, str]:
    """How a table's game ended, as its row says it (status and result words); a
    finished record is told the clocks the table timed each seat with (the game's own
    settings keep its defaults)."""
    if record is None or not record.finished:
        return "aborted", "the game stopped on an error"
    record.settings["table_clocks"] = table.clocks()
    return "finished", _result_words(record, table)


def _result_words(record: GameRecord, table: LiveTable) -> str:
    """The result as the lobby says it: the scores by seat, and why."""
    scores = record.scores or []
    names = [info.name for info in table.seats]
    shown = ", ".join(f"{name} {score:g}" for name, score in zip(names, scores, strict=False))
    why = record.reason or (record.outcome.value if record.outcome else "")
    if record.outcome is not None and record.outcome is not Outcome.NORMAL \
            and record.offender is not None:
        why = f"{names[record.offender]} {record.outcome.value}: {why}"
    return f"{shown} ({why})" if why else shown
