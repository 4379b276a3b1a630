"""The games the referee knows: the one place that lists them.

Each game is a folder under ``games/``; its entry here says what it is, where its command
line lives (a module whose ``COMMANDS`` maps verbs such as ``match`` to click commands),
which verbs it has (listed here so that ``referee --help`` needs no game imported), and,
for games that tournaments play, its adapter. Adding a game is one folder and one entry.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # imported with a game's adapter, not to list the games
    from referee.core.adapter import GameAdapter

__all__ = ["GAMES", "GameEntry", "env_factory", "game_adapter", "game_adapters", "game_command",
           "game_data", "game_entry", "table_driver", "table_games", "top_level_command"]


@dataclass(frozen=True)
class GameEntry:
    """One game as the command line and tournaments find it."""

    name: str
    summary: str
    """What it is, in a few words (for ``referee --help``)."""
    commands: str
    """The module of its commands (``COMMANDS``: verb -> click command)."""
    verbs: tuple[str, ...]
    """The verbs it has, in the order ``--help`` lists them."""
    adapter: str | None = None
    """``module:Class`` of its tournament adapter, if tournaments play it."""
    top_level: tuple[str, ...] = ()
    """Commands of its ``COMMANDS`` that stand alone, as ``referee NAME`` (a step of a
    data pipeline whose input already says the game)."""
    env: str | None = None
    """``module:function`` making its PettingZoo AEC environment (``referee.envs``)."""
    data: str | None = None
    """``module:object``: its ``GameData``, which replays records for datasets."""
    web: str | None = None
    """``module:object``: its table driver (``core.table.TableDriver``), for the web
    server's tables; its browser board lives in the game's ``web/`` folder."""


GAMES: Final[tuple[GameEntry, ...]] = (
    GameEntry("gomoku", "Gomocup brains (freestyle, exact five, renju, caro, swap2)",
              "referee.games.gomoku.cli",
              ("match", "replay", "export", "bot", "dataset", "connect"),
              "referee.games.gomoku.adapter:GomokuAdapter",
              env="referee.games.gomoku.env:make_env", data="referee.games.gomoku.data:DATA",
              web="referee.games.gomoku.web_table:DRIVER"),
    GameEntry("planowanie", "the ITPW card game, 2 to 4 players",
              "referee.games.planowanie.cli",
              ("match", "replay", "console", "bot", "dataset", "connect"),
              "referee.games.planowanie.adapter:PlanowanieAdapter",
              env="referee.games.planowanie.env:make_env",
              data="referee.games.planowanie.data:DATA",
              web="referee.games.planowanie.web_table:DRIVER"),
    GameEntry("mahjong", "ICGA Taiwanese 16-tile Mahjong (local and network modes)",
              "referee.games.mahjong.cli",
              ("match", "replay", "serve", "connect", "bot", "dataset"),
              "referee.games.mahjong.adapter:MahjongAdapter",
              env="referee.games.mahjong.env:make_env", data="referee.games.mahjong.data:DATA",
              web="referee.games.mahjong.web_table:DRIVER"),
    GameEntry("riichi", "Riichi mahjong (mjai bots, game logs, training data)",
              "referee.games.riichi.cli",
              ("match", "replay", "annotate", "selfplay", "bot", "dataset", "connect"),
              "referee.games.riichi.adapter:RiichiAdapter", top_level=("annotate4rl",),
              env="referee.games.riichi.env:make_env", data="referee.games.riichi.data:DATA",
              web="referee.games.riichi.web_table:DRIVER"),
    GameEntry("gohr", "the Game of Hidden Rules' captive server (pipes, sockets)",
              "referee.games.gohr.cli", ("play", "serve", "replay", "connect"),
              web="referee.games.gohr.web_table:DRIVER"),
)
"""Every game, in the order the help lists them."""


def table_driver(name: str) -> Any:
    """Game ``name``'s table driver (imported now); ``KeyError`` if it has none."""
    entry = game_entry(name)
    if entry is None or entry.web is None:
        raise KeyError(name)
    module, attribute = entry.web.split(":")
    return getattr(importlib.import_module(module), attribute)


def table_games() -> tuple[str, ...]:
    """The games a web table can be opened for, in the registry's order."""
    return tuple(entry.name for entry in GAMES if entry.web is not None)


def game_data(name: str) -> Any:
    """Game ``name``'s ``GameData`` (imported now); ``KeyError`` if it has none."""
    entry = game_entry(name)
    if entry is None or entry.data is None:
        raise KeyError(name)
    module, attribute = entry.data.split(":")
    return getattr(importlib.import_module(module), attribute)


def env_factory(name: str) -> Any:
    """The function making game ``name``'s PettingZoo environment (imported now);
    ``KeyError`` if the game has none."""
    entry = game_entry(name)
    if entry is None or entry.env is None:
        raise KeyError(name)
    module, function = entry.env.split(":")
    return getattr(importlib.import_module(module), function)


def game_entry(name: str) -> GameEntry | None:
    """The entry of game ``name`` (None if there is no such game)."""
    return next((g for g in GAMES if g.name == name), None)


def game_adapters() -> dict[str, GameAdapter]:
    """Every game tournaments play, by name, as adapters (imported on demand)."""
    adapters: dict[str, GameAdapter] = {}
    for entry in GAMES:
        adapter = _adapter_of(entry)
        if adapter is not None:
            adapters[entry.name] = adapter
    return adapters


def game_adapter(name: str) -> GameAdapter | None:
    """The adapter of game ``name``, importing that game alone (None if tournaments do not
    play it or there is no such game)."""
    entry = game_entry(name)
    return _adapter_of(entry) if entry is not None else None


def _adapter_of(entry: GameEntry) -> GameAdapter | None:
    if entry.adapter is None:
        return None
    module, _, cls = entry.adapter.partition(":")
    adapter: GameAdapter = getattr(importlib.import_module(module), cls)()
    return adapter


def game_command(name: str, verb: str) -> Any:
    """The click command of game ``name`` for ``verb`` (None if it has none); the game's
    command module is imported only now."""
    entry = game_entry(name)
    if entry is None or verb not in entry.verbs:
        return None
    return importlib.import_module(entry.commands).COMMANDS.get(verb)


def top_level_command(name: str) -> Any:
    """The click command ``referee NAME`` that a game adds beside the verbs (None if no
    game adds one); the game's command module is imported only now."""
    entry = next((g for g in GAMES if name in g.top_level), None)
    if entry is None:
        return None
    return importlib.import_module(entry.commands).COMMANDS.get(name)
