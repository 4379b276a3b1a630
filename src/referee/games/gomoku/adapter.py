"""Gomoku as tournaments see it: the ``[settings]`` table and one game played."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from referee.core.adapter import GameTask, SettingsTableAdapter
from referee.core.errors import ConfigError, MatchAborted
from referee.core.players import PlayerSpec, readiness_check
from referee.core.record import GameRecord
from referee.core.replay import Picture, ReplayView, Setting
from referee.core.validation import Megabytes, Milliseconds
from referee.games.gomoku.board import MAX_SIZE, MIN_SIZE, Rule, point_name
from referee.games.gomoku.defaults import MEMORY_MB, TOLERANCE_MS
from referee.games.gomoku.match import BUILTIN_BRAINS, GomokuMatch, GomokuSettings
from referee.games.gomoku.openings import place_opening, read_openings
from referee.games.gomoku.protocol import Brain
from referee.games.gomoku.renju import RenjuJudge
from referee.games.gomoku.replay import (
    gomoku_replay,
    mini_board,
    move_notation,
    record_size,
)

DRAWN_OPENINGS = 100
"""Openings the results site draws on small boards (the others are written as text)."""
SETTING_LABELS = {
    "width": "Board width", "height": "Board height", "rule": "Rule",
    "renju_judge": "Renju threes read as", "draw_at_empty": "Draw with empty points left",
    "timeout_turn_ms": "Time per move", "timeout_match_ms": "Time per game",
    "swap2": "Swap2 opening", "openings": "Openings",
    "black": "", "swap2_first": "", "colors": "", "win_line": "",
}
"""The settings' labels on the results site (``""``: bookkeeping a record keeps, shown by
the game page otherwise: who played black, the winning line)."""
SETTING_WORDS = {
    "rule": {"freestyle": "freestyle (five or more in a row)",
             "exact5": "exact five (exactly five in a row)", "renju": "renju",
             "caro": "caro (five not blocked at both ends)",
             "caro5": "caro, exactly five (not blocked at both ends)"},
    "renju_judge": {"rif": "RIF's rules", "gomocup": "GomocupJudge does"},
}
"""Values of a setting in words, by the setting's key."""


class GomokuTable(BaseModel):
    """The ``[settings]`` table of a Gomoku tournament (times in ms or with their unit,
    ``"5s"``; memory in MB or with its unit, ``"350M"``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rule: str = "freestyle"
    renju_judge: str = "rif"
    draw_at_empty: int = Field(default=0, ge=0)
    size: int = Field(default=15, ge=MIN_SIZE, le=MAX_SIZE)
    width: int | None = Field(default=None, ge=MIN_SIZE, le=MAX_SIZE)
    height: int | None = Field(default=None, ge=MIN_SIZE, le=MAX_SIZE)
    timeout_turn: Milliseconds = Field(default=5000, ge=0)
    timeout_match: Milliseconds = Field(default=0, ge=0)
    tolerance: Milliseconds = Field(default=TOLERANCE_MS, ge=0)
    startup: Milliseconds = Field(default=30000, gt=0)
    memory: Megabytes = Field(default=MEMORY_MB, ge=0)
    openings: str | None = None
    swap2: bool = False
    folder: str | None = None

    @field_validator("rule")
    @classmethod
    def _rule(cls, value: str) -> str:
        Rule.parse(value)  # raises ValueError with the known names
        return value

    @field_validator("renju_judge")
    @classmethod
    def _judge(cls, value: str) -> str:
        RenjuJudge.parse(value)  # raises ValueError naming both judges
        return value


class GomokuAdapter(SettingsTableAdapter[GomokuTable, GomokuSettings]):
    """The Gomoku slice for tournaments: two seats, seat 0 plays black (or opens swap2)."""

    keeps_bots = True

    name = "gomoku"
    builtins: Mapping[str, str] = BUILTIN_BRAINS
    rating_preset: str = "gomocup"
    schedules: tuple[str, ...] = ("round-robin", "gauntlet", "swiss", "itpw")
    scores_are_points: bool = False
    points_unit: str = "1 a win, \u00bd a draw"
    setting_labels: Mapping[str, str] = SETTING_LABELS

    def seat_count(self, settings: GomokuSettings) -> int:
        """Two players."""
        return 2

    settings_table = GomokuTable

    def settings_from(self, spec: GomokuTable, base: Path) -> GomokuSettings:
        """The board, the rule, the clocks and the openings (a file relative to ``base``)."""
        openings = []
        if spec.openings:
            path = Path(spec.openings)
            openings = read_openings(path if path.is_absolute() else base / path)
        return GomokuSettings.from_options(
            size=spec.size, width=spec.width, height=spec.height,
            timeout_turn=spec.timeout_turn, timeout_match=spec.timeout_match,
            tolerance=spec.tolerance, startup=spec.startup, memory=spec.memory,
            rule=Rule.parse(spec.rule), renju_judge=RenjuJudge.parse(spec.renju_judge),
            draw_at_empty=spec.draw_at_empty, games=1, openings=openings, swap2=spec.swap2,
            folder=(base / spec.folder).resolve() if spec.folder else None, psq=False,
        )

    def describe(self, settings: GomokuSettings) -> dict[str, Any]:
        """Settings as plain data, openings included (they decide the games)."""
        data = settings.describe()
        data["openings"] = settings.openings
        return data

    def opening_count(self, settings: GomokuSettings) -> int:
        """Number of openings in the file (0 without one)."""
        return len(settings.openings)

    def check_player(self, settings: GomokuSettings, player: PlayerSpec, work_dir: Path) -> None:
        """START the brain on the tournament's board (with its INFO), then END it."""
        match = GomokuMatch([player, player], settings, work_dir, write_files=False)
        try:
            with readiness_check(player, "get ready for a game"):
                match.check_player(0)
        except MatchAborted as exc:
            raise ConfigError(f"player {player.name}: {exc}") from None

    def play(self, settings: GomokuSettings, task: GameTask, work_dir: Path) -> GameRecord:
        """One game: seat 0 plays black (or opens swap2). With the task's pool, the
        brains kept from earlier games play it (after RESTART) and those that did not
        fault go back to the pool; otherwise fresh brains, ended after the game."""
        match = GomokuMatch(task.seats, replace(settings, seed=task.seed), work_dir,
                            write_files=False)
        pool = task.pool
        if pool is not None:
            for seat, player in enumerate(task.seats):
                brain = pool.take(player, Brain)
                if brain is not None:
                    match.adopt(seat, brain)
        opening = []
        if task.opening is not None:
            opening = place_opening(settings.openings[task.opening], settings.width,
                                    settings.height)
        try:
            record = match.play_game(0, first=0, opening=opening)
        except BaseException:
            match.close()
            raise
        if pool is None:
            match.close()
        else:
            for seat, brain in match.release():
                pool.keep(task.seats[seat], brain, brain.process,
                          partial(brain.end, settings.end_grace))
        record.seed = task.seed
        record.settings["game_key"] = task.key
        return record

    def shown_setting(self, key: str, value: Any, settings: Mapping[str, Any]
                      ) -> Setting | None:
        """For the results site: the rule and the renju judge in words, and the openings
        drawn on small boards captioned with their points as the game pages name them
        (``h8 i7``; each stone relative to the centre in the record), the first
        ``DRAWN_OPENINGS`` of them, the rest as text (none: one line saying so); ``None``
        for the other settings."""
        words = SETTING_WORDS.get(key, {})
        if isinstance(value, str) and value in words:
            return Setting("", words[value])
        if key != "openings" or not isinstance(value, list):
            return None
        if not value:
            return Setting("", "none (every game starts on an empty board)")
        width = int(settings.get("width") or 15)
        height = int(settings.get("height") or width)
        shown: list[str | Picture] = []
        for opening in value:
            try:
                stones = [(width // 2 + int(dx), height // 2 + int(dy)) for dx, dy in opening]
            except (TypeError, ValueError):
                shown.append(str(opening))
                continue
            text = " ".join(point_name(x, y) for x, y in stones) or "empty board"
            shown.append(Picture(mini_board(width, height, stones), text)
                         if len(shown) < DRAWN_OPENINGS else text)
        return Setting(f"Openings ({len(value)})", items=shown)

    def native_file(self, record: GameRecord) -> tuple[str, bytes, str]:
        """The game as a Piskvork .psq file (for the results site's downloads)."""
        from referee.games.gomoku.psq import record_to_psq

        return ".psq", record_to_psq(record).encode(), "Piskvork .psq"

    def replay(self, record: GameRecord) -> ReplayView:
        """The board move by move, numbered stones, last move and winning line marked."""
        return gomoku_replay(record)

    def move_text(self, record: GameRecord, ply: int) -> str:
        """The move's points as players write them (``h8``)."""
        try:
            width, height = record_size(record.settings)
        except ValueError:
            width = height = MAX_SIZE
        return move_notation(record.moves[ply].move, width, height)
