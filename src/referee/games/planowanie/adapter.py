"""Planowanie as tournaments see it: the ``[settings]`` table and one game played."""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from referee.core.adapter import GameTask, PointsGameAdapter
from referee.core.clock import Clock
from referee.core.players import PlayerSpec, readiness_check, start_player
from referee.core.record import GameRecord
from referee.core.replay import ReplayView, Setting
from referee.core.sandbox import plan_sandbox
from referee.core.text import seat_name
from referee.core.validation import Megabytes, Milliseconds
from referee.games.planowanie.defaults import MEMORY_MB
from referee.games.planowanie.match import BUILTIN_PLAYERS, PlanowanieSettings, play_planowanie
from referee.games.planowanie.protocol import PlayerProgram
from referee.games.planowanie.replay import move_notation, planowanie_replay

SETTING_LABELS = {
    "values": "Card values", "suits": "Suits (trumps first)", "players": "Players",
    "deals": "Deals", "time_ms": "Time per game", "move_ms": "Time per answer",
    "quit_at_end": "Quit at the end",
    "points": "Points at the end", "deals_played": "Deals played",
}
"""The settings' labels on the results site (and those of what a record adds)."""


class PlanowanieTable(BaseModel):
    """The ``[settings]`` table of a Planowanie tournament (times in ms or with their unit,
    ``"180s"``; memory in MB or with its unit, ``"400M"``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    values: str = "23456789TJQKA"
    suits: str = "CDHS"
    players: int = Field(default=4, ge=2, le=4)
    deals: str | None = None
    """``set_game``'s arguments (``d c1 s1 ... cd sd``); default: the tournament's 13."""
    time: Milliseconds = Field(default=180_000, ge=0)
    timeout_turn: Milliseconds = Field(default=0, ge=0)
    """Each answer's limit on top of the game clock (the referee's own: the protocol has a
    game clock only); 0: none."""
    tolerance: Milliseconds = Field(default=500, ge=0)
    startup: Milliseconds = Field(default=30_000, gt=0)
    memory: Megabytes = Field(default=MEMORY_MB, ge=0)
    quit_at_end: bool = False


class PlanowanieAdapter(PointsGameAdapter[PlanowanieTable, PlanowanieSettings]):
    """The Planowanie slice for tournaments: 2 to 4 seats, one deal per seed."""

    name = "planowanie"
    keeps_bots = True
    builtins: Mapping[str, str] = BUILTIN_PLAYERS
    points_unit = "card points"
    setting_labels: Mapping[str, str] = SETTING_LABELS

    settings_table = PlanowanieTable

    def settings_from(self, spec: PlanowanieTable, base: Path) -> PlanowanieSettings:
        """The deck, the players, the deals, the clock and the memory."""
        return PlanowanieSettings.from_options(**spec.model_dump())

    def seat_count(self, settings: PlanowanieSettings) -> int:
        """Players per game."""
        return settings.rules.players

    def describe(self, settings: PlanowanieSettings) -> dict[str, Any]:
        """Settings as plain data."""
        data = settings.describe()
        data["quit_at_end"] = settings.quit_at_end
        return data

    def opening_count(self, settings: PlanowanieSettings) -> int:
        """No openings: the seed decides the deals."""
        return 0

    def check_player(self, settings: PlanowanieSettings, player: PlayerSpec,
                     work_dir: Path) -> None:
        """Start the program, send it the game's configuration as seat 0, end it."""
        program: PlayerProgram | None = None
        with readiness_check(player, "get ready for a game"):
            try:
                process = start_player(player, work_dir, seed=0,
                                       memory_limit=settings.memory_limit, tag="check-",
                                       sandbox=plan_sandbox(settings.sandbox))
                program = PlayerProgram(process, player.name, Clock(settings.time))
                program.setup(settings.rules, 0)
            finally:
                if program is not None:
                    program.finish(settings.end_grace, polite=True)

    def play(self, settings: PlanowanieSettings, task: GameTask, work_dir: Path) -> GameRecord:
        """One game, seats as scheduled, the deals from the task's seed: fresh programs,
        or the task's pool's (set up again for the game; those that did not fault go
        back)."""
        bot_seed = zlib.crc32(task.key.encode())  # each game's own, the deals the round's
        record = play_planowanie(task.seats, settings, task.seed, work_dir, bot_seed=bot_seed,
                                 pool=task.pool)
        record.settings["game_key"] = task.key
        return record

    def replay(self, record: GameRecord) -> ReplayView:
        """The deals card by card: hands, the trick, declarations and points."""
        return planowanie_replay(record)

    def move_text(self, record: GameRecord, ply: int) -> str:
        """``declare 2`` or a card (``QH``)."""
        return move_notation(record.moves[ply])

    def shown_setting(self, key: str, value: Any, settings: Mapping[str, Any]
                      ) -> Setting | None:
        """For the results site: each deal as its cards and who starts it, a record's
        points by seat; ``None`` for the other settings."""
        if key == "deals" and isinstance(value, list) and all(
                isinstance(d, list) and len(d) == 2 and all(type(v) is int for v in d)
                for d in value):
            return Setting(f"Deals ({len(value)})", items=[
                f"{cards} card{'s' if cards != 1 else ''} each, {seat_name(starter)} starts"
                for cards, starter in value])
        if key == "points" and isinstance(value, list) and value:
            return Setting("", ", ".join(f"{seat_name(seat)} {points}"
                                         for seat, points in enumerate(value)))
        return None

