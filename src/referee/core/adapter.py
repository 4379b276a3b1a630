"""What a game slice offers to tournaments: its settings, its players, one game played.

The tournament layer knows games only through this interface, so a new game needs no
change to schedules, the store, the runner or the ratings.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from referee.core.errors import ConfigError
from referee.core.players import PlayerSpec
from referee.core.record import GameRecord
from referee.core.replay import ReplayView
from referee.core.sandbox import SandboxConfig
from referee.core.validation import errors_in, validate_table

if TYPE_CHECKING:  # (the pool's module starts processes: not imported for the settings)
    from referee.core.bot_pool import BotPool


@dataclass(frozen=True)
class GameTask:
    """One scheduled game: who sits where, which opening, which seed."""

    key: str
    seats: tuple[PlayerSpec, ...]
    seed: int
    opening: int | None = None
    round: int = 1
    slot: int = 0
    """Which of the concurrent game slots plays it (each slot has its own work folders)."""
    pool: BotPool | None = field(default=None, compare=False, repr=False)
    """The slot's programs kept alive from earlier games (``keep_bots``; ``None``: every
    game starts its own). Only for adapters that :attr:`GameAdapter.keeps_bots`."""


class GameAdapter(Protocol):
    """A game as tournaments see it."""

    name: str
    builtins: Mapping[str, str]
    """Built-in bots by name -> module (the first one is the default house bot)."""
    rating_preset: str
    """The BayesElo preset its tournaments use unless they name one."""
    schedules: tuple[str, ...]
    """The schedule kinds that suit it (the ITPW groups work for any number of seats)."""
    suspends_off_turn: bool
    """Whether its bots are stopped while it is not their turn unless the sandbox says
    otherwise (every game's are: Gomoku's as Piskvork and GomocupJudge do; a protocol
    where a bot must run off its turn would say no)."""
    scores_are_points: bool
    """Whether a game's scores are the game's own points (cards, tiles) rather than
    results (1 win, ½ draw, 0 loss); a fault's scores are results either way."""
    keeps_bots: bool
    """Whether a program can play several games without being started again (a protocol
    with a new game, as Gomocup's ``RESTART``): :meth:`play` then takes its players'
    programs from the task's :attr:`GameTask.pool` and gives back those that did not
    fault."""
    points_unit: str
    """What a game's scores count, as a table's legend says it after "points:" (``1 a
    win, ½ a draw``; ``card points``)."""

    def seat_count(self, settings: Any) -> int:
        """Players in one game under ``settings``."""

    def parse_settings(self, table: Mapping[str, Any], base: Path, source: str) -> Any:
        """Validate the game's settings table; ``ConfigError`` names ``source`` and the key.

        Relative file names in the table are taken relative to ``base``.
        """

    def describe(self, settings: Any) -> dict[str, Any]:
        """The settings as plain data (identifies a tournament; goes into records)."""

    def with_sandbox(self, settings: Any, sandbox: SandboxConfig) -> Any:
        """The same settings with the bots in ``sandbox`` (the tournament's; it does not
        change which games are played, so it is not part of :meth:`describe`)."""

    def opening_count(self, settings: Any) -> int:
        """How many openings the settings provide (0: games start from an empty board)."""

    def parse_player_options(self, table: Mapping[str, Any], source: str,
                             key: str) -> dict[str, Any]:
        """Validate a player's ``options`` table (at ``key`` of the file ``source``): the
        options as the player's :attr:`~referee.core.players.PlayerSpec.options`;
        ``ConfigError`` names each mistake (a game without player options refuses any)."""

    def check_player(self, settings: Any, player: PlayerSpec, work_dir: Path) -> None:
        """Start the player's program, set it up as for a game, end it.

        Raises ``ConfigError`` naming the player and what went wrong if it cannot get
        ready (does not start, crashes, refuses the settings, does not answer in time).
        """

    def play(self, settings: Any, task: GameTask, work_dir: Path) -> GameRecord:
        """Play one game and return its finished record: with fresh bot processes, or
        with the task's kept ones (:attr:`keeps_bots`).

        Bots run in folders under ``work_dir``; their stderr logs go there too.
        """

    def replay(self, record: GameRecord) -> ReplayView:
        """The game as a board picture built up move by move (for game pages, and for the
        live view's boards: a record still being played, without its result, replays as
        far as it goes).

        One step per move of ``record.moves``, in order; pure (no I/O). Raises
        ``ValueError`` if the record is not one of this game's.
        """

    def move_text(self, record: GameRecord, ply: int) -> str:
        """Move ``ply`` (0-based) of ``record`` in the game's notation, as its replay steps
        write moves (``h8``, ``discard 5m``; a step may add where it was played, as
        Riichi's hand), from that move alone: the live view writes the last move of every
        game in progress with it."""

    # An adapter may also have, for the results site: ``native_file(record) -> (suffix,
    # data, label)``, the game in a format of its own offered for download (Gomoku's
    # .psq); ``setting_labels``, a mapping of setting keys to the labels people read
    # (``""``: the setting is bookkeeping, not shown); ``shown_setting(key, value,
    # settings)``, a setting written as the game's players read it (a ``Setting``: a
    # sentence, or items such as Gomoku's openings on small boards), ``None`` for those
    # the site writes in its general way.



TableT = TypeVar("TableT", bound=BaseModel)
SettingsT = TypeVar("SettingsT")


class SettingsTableAdapter(ABC, Generic[TableT, SettingsT]):
    """How an adapter reads a tournament's ``[settings]``: checked by the game's pydantic
    model :attr:`settings_table` (every mistake named with its key), then turned into the
    game's settings by :meth:`settings_from`, whose ``ConfigError`` names the file and
    the section."""

    settings_table: type[TableT]
    player_table: type[BaseModel] | None = None
    """The pydantic model of a player's ``options`` table (``None``: the game's players
    take none)."""
    suspends_off_turn: bool = True
    keeps_bots: bool = False
    name: str

    def parse_settings(self, table: Mapping[str, Any], base: Path, source: str) -> SettingsT:
        """Validate the game's settings table; ``ConfigError`` names ``source`` and the key."""
        spec = validate_table(self.settings_table, table, source, prefix="settings.")
        with errors_in(source, "settings"):
            return self.settings_from(spec, base)

    def parse_player_options(self, table: Mapping[str, Any], source: str,
                             key: str) -> dict[str, Any]:
        """A player's ``options`` checked by :attr:`player_table` (every mistake named
        with its key); ``ConfigError`` if the game's players take no options."""
        if self.player_table is None:
            raise ConfigError(f"{source}: {key}: {self.name} players take no options "
                              f"(remove {key.rsplit('.', 1)[-1]})")
        spec = validate_table(self.player_table, table, source, prefix=f"{key}.")
        return spec.model_dump()

    @abstractmethod
    def settings_from(self, spec: TableT, base: Path) -> SettingsT:
        """The game's settings from a validated table (file names relative to ``base``)."""

    def with_sandbox(self, settings: SettingsT, sandbox: SandboxConfig) -> SettingsT:
        """The same settings (a dataclass with a ``sandbox`` field) in ``sandbox``."""
        return dataclasses.replace(settings, sandbox=sandbox)  # type: ignore[type-var]


class PointsGameAdapter(SettingsTableAdapter[TableT, SettingsT]):
    """The defaults of the games that count their own points (cards, tiles) and play in
    ITPW groups, whatever the number of seats: Planowanie and the Mahjongs."""

    rating_preset: str = "itpw"
    schedules: tuple[str, ...] = ("itpw",)
    scores_are_points: bool = True
