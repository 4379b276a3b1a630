"""The tournament file (TOML) turned into validated settings.

Every mistake is reported at once, each with its key and the reason, for example::

    demo.toml: schedule.kind: Input should be 'round-robin', 'gauntlet', 'swiss' or 'itpw'
    demo.toml: players[2].command: give either command or builtin

A file looks like this (every key but ``game`` and ``players`` has a default)::

    name = "demo"
    game = "gomoku"
    seed = 1
    concurrency = 2          # games at once (default: cores - 1, at least 1)
    output = "out/demo"      # relative to the file (default: referee-out/<name>)

    affinity = true          # pin each game's players to CPUs of their own
    keep_bots = true         # programs play game after game (Gomoku's RESTART)
    sandbox = "auto"         # auto | strict | off, or a [sandbox] table (docs/sandbox.md)

    [schedule]
    kind = "round-robin"     # round-robin | gauntlet | swiss
    rounds = 1               # round-robin/gauntlet: repetitions; swiss: rounds

    [settings]               # the game's own settings (see docs/tournaments.md)
    rule = "freestyle"
    size = 15

    [[players]]
    name = "threat"
    builtin = "threat"

    [[players]]
    name = "mine"
    command = "./pbrain-mine --fast"
    cpus = [1]
    options = { batched = true }   # the game's own options of this player (Riichi's)
"""

from __future__ import annotations

import collections
import hashlib
import itertools
import json
import os
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from referee.core.adapter import GameAdapter
from referee.core.errors import ConfigError
from referee.core.players import PlayerSpec, builtin_command, resolve_player
from referee.core.sandbox import SandboxConfig, SandboxLevel, SandboxLimits, check_readable
from referee.core.text import parse_size
from referee.core.toml_read import toml_table
from referee.core.validation import validate_table
from referee.tournament.ratings import BayesEloParams


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class PlayerEntry(_Strict):
    """One ``[[players]]`` table."""

    name: str = Field(min_length=1, max_length=64, pattern=r"^[\w.#+-]+$")
    command: str | list[str] | None = None
    builtin: str | None = None
    cpus: list[int] | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    """The game's own options of this player, checked by the game's adapter
    (``GameAdapter.parse_player_options``: Riichi's ``batched``; the others take none)."""

    @model_validator(mode="after")
    def _one_source(self) -> PlayerEntry:
        if (self.command is None) == (self.builtin is None):
            raise ValueError("give either command or builtin")
        if isinstance(self.command, list) and not self.command:
            raise ValueError("command is empty")
        return self


class ScheduleEntry(_Strict):
    """The ``[schedule]`` table."""

    kind: Literal["round-robin", "gauntlet", "swiss", "itpw"] = "round-robin"
    rounds: int = Field(default=1, ge=1, le=100_000)
    gauntlet: str | None = None
    """The player who meets all others (gauntlet; default: the first player)."""
    random_rounds: int = Field(default=10, ge=0)
    """ITPW: rounds whose groups are drawn at random before the variance-minimising ones."""
    house: str | None = None
    """ITPW: the built-in bot that fills the field up to a multiple of the group size
    (default: the game's first built-in)."""


class SprtEntry(_Strict):
    """The ``[sprt]`` table: stop a two-player match early once the test decides."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = Field(default=0.05, gt=0, lt=0.5)
    beta: float = Field(default=0.05, gt=0, lt=0.5)
    model: Literal["normalized", "logistic", "bayesian"] = "normalized"
    """fastchess' SPRT models: normalized (bounds in nElo, the default), logistic (Elo),
    bayesian (BayesElo)."""

    @model_validator(mode="after")
    def _ordered(self) -> SprtEntry:
        if self.elo1 <= self.elo0:
            raise ValueError("elo1 must be greater than elo0")
        return self


class RatingsEntry(_Strict):
    """The ``[ratings]`` table: BayesElo's preset and any parameter changed from it."""

    preset: Literal["gomocup", "bayeselo", "itpw"] | None = None
    """Default: the game's own (gomocup for Gomoku, itpw for Planowanie)."""
    advantage: float | None = None
    drawelo: float | None = Field(default=None, gt=0)
    prior: float | None = Field(default=None, ge=0)
    offset: float = 0.0
    confidence: float = Field(default=0.95, gt=0, lt=1)

    def params(self, default: str = "gomocup") -> BayesEloParams:
        """The BayesElo parameters this table selects (``default``: the preset when the
        table names none)."""
        return BayesEloParams.preset(
            self.preset or default, advantage=self.advantage, drawelo=self.drawelo,
            prior=self.prior, offset=self.offset, confidence=self.confidence)


class SandboxEntry(_Strict):
    """``[sandbox]``: how every player's program is confined (docs/sandbox.md)."""

    level: Literal["auto", "strict", "off"] = "auto"
    max_processes: int = Field(default=SandboxLimits.processes, ge=4, le=4_194_304)
    max_file_size: str | int = "64M"
    """A size (``64M``, ``1G``; a bare number is megabytes)."""
    max_folder: str | int = "20M"
    read: list[str] = Field(default_factory=list)
    """Files and folders every program may read (relative to the file)."""
    suspend: bool | None = None
    """Stop each program off-turn (default: the game's; on for every game)."""

    def config(self, base: Path) -> SandboxConfig:
        """The sandbox, readable paths relative to ``base``; ``ConfigError`` names the key."""
        sizes = {}
        for key in ("max_file_size", "max_folder"):
            value = getattr(self, key)
            try:
                sizes[key] = parse_size(str(value), 1 << 20)
            except ValueError as exc:
                raise ConfigError(f"sandbox.{key}: {exc}") from None
            if sizes[key] < 1024:
                raise ConfigError(f"sandbox.{key}: {value!r} is too small (at least 1K)")
        try:
            readable = check_readable([base / p for p in self.read])
        except ConfigError as exc:
            raise ConfigError(f"sandbox.read: {exc}") from None
        return SandboxConfig(SandboxLevel.parse(self.level),
                             SandboxLimits(processes=self.max_processes,
                                           file_size=sizes["max_file_size"],
                                           folder=sizes["max_folder"]),
                             readable=readable, suspend=self.suspend)


class TournamentFile(_Strict):
    """The whole file, before the game's own settings are checked by the game."""

    name: str = Field(default="tournament", min_length=1, pattern=r"^[\w.+-]+$")
    game: str
    seed: int = Field(default=1, ge=0)
    concurrency: int | None = Field(default=None, ge=1, le=1024)
    output: str | None = None
    standings_every: int = Field(default=10, ge=1)
    records_gzip: bool = False
    affinity: bool = False
    """Pin each concurrent game's players to CPUs of their own (when cores allow)."""
    keep_bots: bool = False
    """Keep each program alive between its games (games whose protocol can begin a new
    game with a running program: Gomoku's ``RESTART``, Planowanie's set-up commands)."""
    sandbox: SandboxEntry = SandboxEntry()
    """``sandbox = "strict"`` (a level) or a ``[sandbox]`` table."""
    schedule: ScheduleEntry = ScheduleEntry()
    settings: dict[str, Any] = Field(default_factory=dict)
    sprt: SprtEntry | None = None
    ratings: RatingsEntry = RatingsEntry()
    players: list[PlayerEntry] = Field(min_length=2)

    @field_validator("sandbox", mode="before")
    @classmethod
    def _level_alone(cls, value: Any) -> Any:
        return {"level": value} if isinstance(value, str) else value

    @model_validator(mode="after")
    def _unique_names(self) -> TournamentFile:
        names = [p.name for p in self.players]
        twice = sorted(n for n, seen in collections.Counter(names).items() if seen > 1)
        if twice:
            raise ValueError(f"player names must be unique: {', '.join(twice)}")
        if self.schedule.gauntlet is not None and self.schedule.gauntlet not in names:
            raise ValueError(f"schedule.gauntlet {self.schedule.gauntlet!r} is not a player")
        if self.sprt is not None and len(self.players) != 2:
            raise ValueError("sprt needs exactly 2 players")
        return self


@dataclass(frozen=True)
class Tournament:
    """A validated tournament: the file's settings plus the game's parsed settings."""

    source: Path
    spec: TournamentFile
    adapter: GameAdapter
    settings: Any
    players: tuple[PlayerSpec, ...]
    output: Path
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    """The players' sandbox (also in :attr:`settings`, see :meth:`confined`)."""

    @property
    def name(self) -> str:
        """The tournament's name."""
        return self.spec.name

    def confined(self, level: SandboxLevel | None = None) -> Tournament:
        """The tournament with its sandbox (at ``level`` if given: the command line's
        override) in the game's settings, the output folder hidden from every program."""
        config = self.sandbox if level is None else self.sandbox.with_level(level)
        config = replace(config, hidden=(self.output,))
        return replace(self, sandbox=config,
                       settings=self.adapter.with_sandbox(self.settings, config))

    @property
    def suspends_off_turn(self) -> bool:
        """Whether its players are suspended off turn: as its sandbox says, else as its
        game does by default."""
        return self.sandbox.suspends(self.adapter.suspends_off_turn)

    def rating_params(self) -> BayesEloParams:
        """The BayesElo parameters of this tournament (the game's preset by default)."""
        return self.spec.ratings.params(self.adapter.rating_preset)

    def concurrency(self, override: int | None = None) -> int:
        """Games at once: the override, the file's value, or cores - 1 (at least 1)."""
        if override is not None:
            return max(1, override)
        if self.spec.concurrency is not None:
            return self.spec.concurrency
        return max(1, (os.cpu_count() or 2) - 1)

    def fingerprint(self) -> str:
        """A hash of everything that decides which games are played and how.

        Concurrency, output folder and display options are left out: changing them does not
        make it another tournament.
        """
        data = {
            "game": self.spec.game,
            "seed": self.spec.seed,
            "schedule": self.spec.schedule.model_dump(),
            "sprt": self.spec.sprt.model_dump() if self.spec.sprt else None,
            "settings": self.adapter.describe(self.settings),
            "players": [[p.name, p.command, *([dict(p.options)] if p.options else [])]
                        for p in self.players],
        }
        text = json.dumps(data, sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()


def load_tournament(path: Path | str, games: Mapping[str, GameAdapter]) -> Tournament:
    """Read and validate a tournament file; ``ConfigError`` lists every mistake."""
    path = Path(path)
    try:
        raw = toml_table(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not a text file: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return parse_tournament(raw, path, games)


def parse_tournament(raw: Mapping[str, Any], path: Path,
                     games: Mapping[str, GameAdapter]) -> Tournament:
    """Validate an already-parsed tournament table (see ``load_tournament``)."""
    source = str(path)
    spec = validate_table(TournamentFile, raw, source)
    adapter = games.get(spec.game)
    if adapter is None:
        known = ", ".join(sorted(games))
        raise ConfigError(f"{source}: game: unknown game {spec.game!r} (known: {known})")
    base = path.parent.resolve()
    settings = adapter.parse_settings(spec.settings, base, source)
    seats = adapter.seat_count(settings)
    if spec.keep_bots and not adapter.keeps_bots:
        raise ConfigError(f"{source}: keep_bots: {spec.game} programs cannot play another "
                          "game without being started again (its protocol has no new "
                          "game): remove keep_bots")
    kind = spec.schedule.kind
    if kind not in adapter.schedules:
        raise ConfigError(f"{source}: schedule.kind: {spec.game} is played with "
                          f"{' or '.join(adapter.schedules)}, not {kind}")
    if kind != "itpw" and len(spec.players) < seats:
        raise ConfigError(f"{source}: players: {spec.game} needs at least {seats} "
                          f"players, got {len(spec.players)}")
    players = []
    errors = []
    for number, entry in enumerate(spec.players):
        key = f"{source}: players[{number}]"
        options: dict[str, Any] = {}
        if entry.options:
            try:
                options = adapter.parse_player_options(entry.options, source,
                                                       f"players[{number}].options")
            except ConfigError as exc:
                errors.append(str(exc))  # (and the entry's other keys checked too)
        if entry.builtin is not None:
            if entry.builtin not in adapter.builtins:
                known = ", ".join(sorted(adapter.builtins))
                errors.append(f"{key}.builtin: unknown built-in {entry.builtin!r} "
                              f"(known: {known})")
                continue
            command = builtin_command(adapter.builtins[entry.builtin])
            players.append(PlayerSpec(entry.name, command, True, tuple(entry.cpus or ()),
                                      options))
            continue
        text = entry.command if isinstance(entry.command, str) else shlex.join(entry.command or [])
        try:
            resolved = resolve_player(text, {}, base)
        except ConfigError as exc:
            errors.append(f"{key}.command: {exc}")
            continue
        players.append(PlayerSpec(entry.name, resolved.command, False,
                                  tuple(entry.cpus or ()), options))
    if errors:
        raise ConfigError("\n".join(errors))
    if kind == "itpw":
        players.extend(house_players(spec, adapter, seats, source))
    output = Path(spec.output) if spec.output else Path("referee-out") / spec.name
    if not output.is_absolute():
        output = (base / output) if spec.output else output.resolve()
    try:
        sandbox = spec.sandbox.config(base)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    return Tournament(path, spec, adapter, settings, tuple(players), output,
                      sandbox).confined()



def house_players(spec: TournamentFile, adapter: GameAdapter, seats: int,
                  source: str) -> list[PlayerSpec]:
    """ITPW: the house bots that fill the field up to a multiple of the group size.

    They are named ``house-1``, ``house-2``... and run ``schedule.house`` (default: the
    game's first built-in bot).
    """
    house = spec.schedule.house or next(iter(adapter.builtins))
    if house not in adapter.builtins:
        known = ", ".join(sorted(adapter.builtins))
        raise ConfigError(f"{source}: schedule.house: unknown built-in {house!r} "
                          f"(known: {known})")
    missing = -len(spec.players) % seats
    if not missing:
        return []
    taken = {p.name for p in spec.players}
    free = (f"house-{k}" for k in itertools.count(1) if f"house-{k}" not in taken)
    house_names = list(itertools.islice(free, missing))
    command = builtin_command(adapter.builtins[house])
    return [PlayerSpec(name, command, True) for name in house_names]
