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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from referee.core.bot_pool import BotPool
from referee.core.clock import Clock, TimeControl
from referee.core.errors import BotFault, ConfigError
from referee.core.limits import megabytes
from referee.core.match import forfeit, play_game
from referee.core.outcome import Outcome
from referee.core.players import PlayerSpec, play_rotations, start_player
from referee.core.record import GameRecord, PlayerInfo
from referee.core.sandbox import SandboxConfig, SandboxPlan, plan_sandbox
from referee.games.planowanie.protocol import PlanowanieSeat, PlayerProgram
from referee.games.planowanie.rules import (
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
    rules = settings.rules
    if len(players) != rules.players:
        raise ConfigError(f"the game is for {rules.players} players, got {len(players)}")
    record = GameRecord(
        game="planowanie",
        players=[PlayerInfo(p.name, list(p.command)) for p in players],
        settings=settings.describe(),
        seed=seed,
        index=index,
    )
    plan = plan_sandbox(settings.sandbox)
    suspend = settings.sandbox.suspends(True)
    record.sandbox = plan.describe(suspend)
    engine = PlanowanieGame(rules, seed)
    programs: list[PlayerProgram] = []
    game = _Game(players, settings, seed if bot_seed is None else bot_seed, work_dir,
                 (plan, suspend), pool)
    try:
        game.start_and_play(engine, programs, record)
    except BaseException:
        game.finish(programs, keep=False)
        raise
    game.finish(programs, keep=True, offender=record.offender)
    record.settings["points"] = list(engine.table.points)
    over = engine.to_play() is None
    record.settings["deals_played"] = engine.table.deal + (1 if over else 0)
    return record


@dataclass
class _Game:
    """How one game gets its programs: started, or taken from a pool and set up again."""

    players: Sequence[PlayerSpec]
    settings: PlanowanieSettings
    bot_seed: int
    work_dir: Path
    sandbox: tuple[SandboxPlan, bool]
    """The sandbox plan, and whether programs are suspended off turn."""
    pool: BotPool | None

    def program(self, seat: int) -> PlayerProgram:
        """A program for ``seat``, set up for this game: one kept if the pool has one that
        takes the new configuration, else a fresh one (``BotFault`` if it cannot start or
        get ready)."""
        player, settings = self.players[seat], self.settings
        kept = self.pool.take(player, PlayerProgram) if self.pool is not None else None
        if kept is not None:
            kept.process.begin_game(seat)
            kept.clock = Clock(settings.time)
            try:
                kept.setup(settings.rules, seat)
                return kept
            except BotFault as fault:
                log.info("%s does not take a new game (%s): starting it again",
                         player.name, fault)
                kept.finish(settings.end_grace, settings.quit_at_end)
        process = start_player(player, self.work_dir, seed=self.bot_seed * 7 + seat,
                               memory_limit=settings.memory_limit, tag=f"{seat}-",
                               sandbox=self.sandbox[0], suspend=self.sandbox[1], seat=seat)
        program = PlayerProgram(process, player.name, Clock(settings.time))
        try:
            program.setup(settings.rules, seat)
        except BotFault as fault:
            program.finish(settings.end_grace, settings.quit_at_end)
            if fault.outcome is Outcome.TIMEOUT:
                fault = BotFault(fault.outcome,
                                 "not ready in time (set_deck, set_players, set_game)")
            raise fault from None
        return program

    def start_and_play(self, engine: PlanowanieGame, programs: list[PlayerProgram],
                       record: GameRecord) -> None:
        """Get every seat's program (into ``programs``) and play; a fault closes the
        record."""
        for seat, player in enumerate(self.players):
            try:
                programs.append(self.program(seat))
            except BotFault as fault:
                forfeit(record, seat, self.settings.rules.players, fault, player.name)
                return
        seats: list[Any] = [PlanowanieSeat(p, seat) for seat, p in enumerate(programs)]
        play_game(engine, seats, record)

    def finish(self, programs: list[PlayerProgram], *, keep: bool,
               offender: int | None = None) -> None:
        """End the programs, or with ``keep`` (a game played to its end) give those that
        did not fault back to the pool."""
        grace, polite = self.settings.end_grace, self.settings.quit_at_end
        for seat, program in enumerate(programs):
            if (self.pool is None or not keep or seat == offender
                    or not program.process.running):
                program.finish(grace, polite)
            else:
                self.pool.keep(self.players[seat], program, program.process,
                               partial(program.finish, grace, polite))


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
