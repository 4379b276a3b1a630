"""A Planowanie game between player programs: start them, set them up, play, record.

Every game starts fresh programs (one per seat) and ends them: killed, as the contest's
referee does, or with ``quit`` if the settings ask for it. A tournament with
``keep_bots`` gives a pool of programs kept from earlier games instead: a kept program is
set up for the new game as a fresh one is (``set_deck``, ``set_players``, ``set_game``:
GTP style, a new configuration), and started afresh if it refuses; after the game, the
programs that did not fault go back to the pool. A program that cannot start or
refuses the configuration loses the game before it begins; during the game every fault
(an invalid declaration or card, a crash, the game clock, a broken answer) ends it: the
offender loses, every other seat wins, and the record says why.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from referee.core.bot_pool import BotPool
from referee.core.clock import Clock, TimeControl
from referee.core.errors import BotFault, ConfigError
from referee.core.limits import megabytes
from referee.core.match import FaultPolicy, Seat, Watcher, forfeit, play_game
from referee.core.outcome import Outcome
from referee.core.players import PlayerSpec, play_rotations, start_player
from referee.core.record import GameRecord, PlayerInfo
from referee.core.sandbox import SandboxConfig, SandboxPlan, plan_sandbox
from referee.games.planowanie.protocol import PlanowanieSeat, PlayerProgram
from referee.games.planowanie.replay import parse_move
from referee.games.planowanie.rules import (
    Action,
    Deck,
    PlanowanieGame,
    Rules,
    parse_deals,
    tournament_deals,
)

log = logging.getLogger(__name__)

BUILTIN_PLAYERS = {
    "heuristic": "referee.games.planowanie.bots.heuristic_player",
    "random": "referee.games.planowanie.bots.random_player",
}
"""Built-in players by name -> module (each also a ``planowanie-<name>`` script)."""


@dataclass(frozen=True)
class PlanowanieSettings:
    """Everything that defines a game except the players and the seed."""

    rules: Rules = field(default_factory=Rules)
    time: TimeControl = field(
        default_factory=lambda: TimeControl(turn=None, game=180.0, tolerance=0.5))
    memory_limit: int | None = None
    quit_at_end: bool = False
    end_grace: float = 1.0
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    """The programs' sandbox (suspended off-turn unless it says otherwise)."""

    @classmethod
    def from_options(cls, *, values: str = "23456789TJQKA", suits: str = "CDHS",
                     players: int = 4, deals: str | None = None, time: int = 180_000,
                     timeout_turn: int = 0, tolerance: int = 500, startup: int = 30_000,
                     memory: int = 0, quit_at_end: bool = False) -> PlanowanieSettings:
        """Settings from the options as users give them (``referee match planowanie`` and
        a tournament's ``[settings]``): the deck, the number of players, the deals as
        ``set_game``'s arguments (default: the tournament's 1..13 cards), the game clock,
        the time for each answer, tolerance and startup in milliseconds (``time`` and
        ``timeout_turn`` 0: no limit), memory in MB (0: none). Raises ``ConfigError``
        naming the bad value."""
        schedule = parse_deals(deals.split()) if deals else tournament_deals(players)
        control = TimeControl.from_ms(turn=timeout_turn or None, game=time,
                                      tolerance=tolerance, startup=startup)
        return cls(Rules(Deck(values, suits), players, schedule), control, megabytes(memory),
                   quit_at_end)

    def describe(self) -> dict[str, Any]:
        """The settings as plain data for the game record."""
        rules = self.rules
        game, turn = self.time.game, self.time.turn
        data: dict[str, Any] = {
            "values": rules.deck.values,
            "suits": rules.deck.suits,
            "players": rules.players,
            "deals": [list(d) for d in rules.deals],
            "time_ms": None if game is None else round(game * 1000),
            "tolerance_ms": round(self.time.tolerance * 1000),
            "max_memory": self.memory_limit,
        }
        if turn is not None:  # (only when there is one: records and tournaments without
            data["move_ms"] = round(turn * 1000)  # it read, and are fingerprinted, as before)
        return data


def play_planowanie(players: Sequence[PlayerSpec], settings: PlanowanieSettings, seed: int,
                    work_dir: Path, index: int = 1, bot_seed: int | None = None,
                    pool: BotPool | None = None) -> GameRecord:
    """Play one game with programs in seat order and return its finished record: fresh
    ones, or those ``pool`` keeps (see the module).

    ``seed`` decides the deals; ``bot_seed`` (default: ``seed``) the seeds handed to the
    programs (``REFEREE_BRAIN_SEED``), so games on the same deals can differ in play.
    """
    return PlanowanieTableGame(players, settings, seed, work_dir, index=index,
                               bot_seed=bot_seed, pool=pool).play()


SeatMaker = Callable[[int, Clock], Seat]
"""A seat played by no program of the game (a person at a web table): its driver made
from the seat's number and clock."""


class PlanowanieTableGame:
    """One game, with the hooks a web table needs (``play_planowanie`` plays it plainly).

    ``times`` gives each seat its own limits (a person's clock can differ from a
    program's); ``links`` are seats whose program runs elsewhere (joining over the
    network: its ``core.line_link.LineLink`` used as its process). ``play``'s
    ``outside`` seats are driven by the caller; ``take_over`` lets a program take a seat
    from the position reached (a pinch-hitter, or a person's program playing for them),
    told first what that seat's program would have been told so far.
    """

    def __init__(self, players: Sequence[PlayerSpec], settings: PlanowanieSettings, seed: int,
                 work_dir: Path, *, index: int = 1, bot_seed: int | None = None,
                 pool: BotPool | None = None, times: Sequence[TimeControl] | None = None,
                 links: Mapping[int, Callable[[], Any]] | None = None) -> None:
        rules = settings.rules
        if len(players) != rules.players:
            raise ConfigError(f"the game is for {rules.players} players, got {len(players)}")
        self.settings = settings
        self.seed = seed
        self.record = GameRecord(
            game="planowanie",
            players=[PlayerInfo(p.name, list(p.command)) for p in players],
            settings=settings.describe(),
            seed=seed,
            index=index,
        )
        plan = plan_sandbox(settings.sandbox)
        suspend = settings.sandbox.suspends(True)
        self.record.sandbox = plan.describe(suspend)
        self.engine = PlanowanieGame(rules, seed)
        self.game = _Game(list(players), settings, seed if bot_seed is None else bot_seed,
                          work_dir, (plan, suspend), pool, times, dict(links or {}))

    def play(self, outside: Mapping[int, SeatMaker] | None = None,
             watch: Watcher | None = None,
             on_fault: FaultPolicy | None = None) -> GameRecord:
        """Play the game to its end (its programs ended or kept) and return its record."""
        game, engine, record = self.game, self.engine, self.record
        try:
            game.start_and_play(engine, record, outside or {}, watch, on_fault)
        except BaseException:
            game.finish(keep=False)
            raise
        game.finish(keep=True, offender=record.offender)
        record.settings["points"] = list(engine.table.points)
        over = engine.to_play() is None
        record.settings["deals_played"] = engine.table.deal + (1 if over else 0)
        return record

    def current_record(self) -> GameRecord:
        """The record of the game (being played, or finished)."""
        return self.record

    def take_over(self, seat: int, player: PlayerSpec,
                  time: TimeControl | None = None) -> PlanowanieSeat:
        """``player``'s program started to play ``seat`` from the position reached, on a
        new clock with ``time`` (default: the settings'): set up as for a new game, then
        told the game so far; ``BotFault`` if it cannot get ready."""
        game = self.game
        game.players[seat] = player
        self.drop(seat)
        program = game.program(seat, Clock(time or self.settings.time))
        driver = PlanowanieSeat(program, seat)
        rules = self.settings.rules
        replay = PlanowanieGame(rules, self.seed, deals=self.engine.deals)
        moves: list[tuple[int, Action]] = []
        for move in self.record.moves:
            action = parse_move(move.move, rules.deck)
            if action is not None and not move.info.get("illegal"):
                moves.append((move.seat, action))
        try:
            driver.catch_up(replay, moves)
        except BotFault as fault:
            self.drop(seat)
            if fault.outcome is Outcome.TIMEOUT:
                raise BotFault(fault.outcome, "not ready in time (the game so far)") from None
            raise
        return driver

    def drop(self, seat: int) -> None:
        """End the program playing ``seat``, if one does."""
        program = self.game.programs.pop(seat, None)
        if program is not None:
            program.finish(self.settings.end_grace, self.settings.quit_at_end)


@dataclass
class _Game:
    """How one game gets its programs: started, or taken from a pool and set up again."""

    players: list[PlayerSpec]
    settings: PlanowanieSettings
    bot_seed: int
    work_dir: Path
    sandbox: tuple[SandboxPlan, bool]
    """The sandbox plan, and whether programs are suspended off turn."""
    pool: BotPool | None
    times: Sequence[TimeControl] | None = None
    """Each seat's limits (default: the settings')."""
    links: dict[int, Callable[[], Any]] = field(default_factory=dict)
    """Seats whose program runs elsewhere: the link to it, used as its process."""
    programs: dict[int, PlayerProgram] = field(default_factory=dict)
    """The programs playing, by seat."""

    def clock(self, seat: int) -> Clock:
        """A new clock for ``seat``."""
        return Clock(self.times[seat] if self.times else self.settings.time)

    def program(self, seat: int, clock: Clock | None = None) -> PlayerProgram:
        """A program for ``seat``, set up for this game: one kept if the pool has one that
        takes the new configuration, else a fresh one (``BotFault`` if it cannot start or
        get ready)."""
        player, settings = self.players[seat], self.settings
        clock = clock or self.clock(seat)
        link = self.links.get(seat)
        kept = self.pool.take(player, PlayerProgram) \
            if self.pool is not None and link is None else None
        if kept is not None:
            kept.process.begin_game(seat)
            kept.clock = clock
            try:
                kept.setup(settings.rules, seat)
                self.programs[seat] = kept
                return kept
            except BotFault as fault:
                log.info("%s does not take a new game (%s): starting it again",
                         player.name, fault)
                kept.finish(settings.end_grace, settings.quit_at_end)
        if link is not None:
            process: Any = link()
        else:
            process = start_player(player, self.work_dir, seed=self.bot_seed * 7 + seat,
                                   memory_limit=settings.memory_limit, tag=f"{seat}-",
                                   sandbox=self.sandbox[0], suspend=self.sandbox[1],
                                   seat=seat)
        program = PlayerProgram(process, player.name, clock)
        try:
            program.setup(settings.rules, seat)
        except BotFault as fault:
            program.finish(settings.end_grace, settings.quit_at_end)
            if fault.outcome is Outcome.TIMEOUT:
                fault = BotFault(fault.outcome,
                                 "not ready in time (set_deck, set_players, set_game)")
            raise fault from None
        self.programs[seat] = program
        return program

    def start_and_play(self, engine: PlanowanieGame, record: GameRecord,
                       outside: Mapping[int, SeatMaker], watch: Watcher | None,
                       on_fault: FaultPolicy | None) -> None:
        """Get every seat's program (or its outside driver) and play; a fault while
        starting closes the record."""
        seats: list[Any] = []
        for seat, player in enumerate(self.players):
            if seat in outside:
                seats.append(outside[seat](seat, self.clock(seat)))
                continue
            try:
                seats.append(PlanowanieSeat(self.program(seat), seat))
            except BotFault as fault:
                forfeit(record, seat, self.settings.rules.players, fault, player.name)
                return
        if watch is None and on_fault is None:
            play_game(engine, seats, record)
        else:
            play_game(engine, seats, record, on_fault=on_fault, watch=watch)

    def finish(self, *, keep: bool, offender: int | None = None) -> None:
        """End the programs, or with ``keep`` (a game played to its end) give those that
        did not fault back to the pool."""
        grace, polite = self.settings.end_grace, self.settings.quit_at_end
        for seat, program in sorted(self.programs.items()):
            if (self.pool is None or not keep or seat == offender
                    or not program.process.running or seat in self.links):
                program.finish(grace, polite)
            else:
                self.pool.keep(self.players[seat], program, program.process,
                               partial(program.finish, grace, polite))
        self.programs.clear()


def run_match(players: Sequence[PlayerSpec], settings: PlanowanieSettings, seed: int,
              games: int, out_dir: Path,
              on_game: Callable[[GameRecord], None] | None = None) -> list[GameRecord]:
    """Play ``games`` games, seats rotating each game; each cycle of rotations plays the
    same deals (seed ``seed + cycle``), as ITPW rounds do. Records go to ``out_dir``."""
    return play_rotations(
        players, games,
        lambda seated, game: play_planowanie(seated, settings, seed + game // len(players),
                                             out_dir, index=game + 1,
                                             bot_seed=seed * 1009 + game),
        out_dir, on_game)
