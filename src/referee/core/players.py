"""Players as the user names them: a built-in bot by name, or a command line.

``resolve_players`` turns the strings a user typed into ``PlayerSpec``s with unique
names. A string that names a built-in bot runs that bot with this Python interpreter;
anything else is split like a shell command line (``"./pbrain-x --fast"``) and its name
is the program's file name. A command line whose program is ``referee`` runs the referee
being run (this interpreter, ``-m referee``), whether or not a ``referee`` is on ``PATH``
(a virtual environment that is not activated); a policy bot's (``referee bot GAME``) is
named by its ``--name``, else its ``--policy``, and its ``--path`` folders are made
absolute, as the bot runs in a working folder of its own.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.core.botseed import SEED_ENV
from referee.core.errors import BotFault, ConfigError
from referee.core.process import BotProcess
from referee.core.record import GameRecord
from referee.core.sandbox import SandboxPlan


@dataclass(frozen=True)
class PlayerSpec:
    """A player: the name shown in results and the command that runs it."""

    name: str
    command: list[str] = field(default_factory=list)
    builtin: bool = False
    cpus: tuple[int, ...] = ()
    """CPUs to pin the player's processes to (empty: no pinning)."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """The game's own options of this player (a tournament's ``options`` table, checked
    by the game: Riichi's ``batched``); empty for most."""


def builtin_command(module: str) -> list[str]:
    """The command that runs a built-in bot module with this interpreter."""
    return [sys.executable, "-m", module]


def resolve_player(text: str, builtins: Mapping[str, str], base: Path | None = None) -> PlayerSpec:
    """One player from a built-in name (``builtins`` maps names to modules) or a command.

    Relative paths on the command line are taken relative to ``base`` (default: the
    current folder) and made absolute.
    """
    key = text.strip()
    if key in builtins:
        return PlayerSpec(key, builtin_command(builtins[key]), builtin=True)
    try:
        argv = shlex.split(key)
    except ValueError as exc:
        raise ConfigError(f"player {text!r}: cannot split the command line: {exc}") from None
    if not argv:
        raise ConfigError("player: empty command line")
    if argv[0] == OWN_COMMAND:
        return _own_command(argv[1:], base or Path.cwd())
    argv = [_absolute_if_file(arg, i == 0, base or Path.cwd()) for i, arg in enumerate(argv)]
    name = _program_name(argv)
    return PlayerSpec(name, argv)


OWN_COMMAND = "referee"
"""The program of a player's command line that is the referee being run."""


def _own_command(args: list[str], base: Path) -> PlayerSpec:
    """``referee ARGS`` as a player: this interpreter running the referee, named by a
    policy bot's ``--name`` (else its ``--policy``; ``referee`` for another command),
    its ``--path`` folders absolute (relative ones taken from ``base``)."""
    values: dict[str, str] = {}
    out = list(args)
    for i, arg in enumerate(args):
        option, equals, value = arg.partition("=")
        if option in ("--name", "--policy", "--path"):
            at = i if equals else i + 1
            if not equals:
                value = args[i + 1] if i + 1 < len(args) else ""
            if option == "--path" and value and (base / value).is_dir():
                value = os.path.abspath(base / value)
                out[at] = f"{option}={value}" if equals else value
            values.setdefault(option, value)
    name = "referee"
    if args[:1] == ["bot"]:
        name = values.get("--name") or values.get("--policy") or name
    return PlayerSpec(name, [sys.executable, "-m", "referee", *out])


def _absolute_if_file(arg: str, program: bool, base: Path) -> str:
    """Make a relative path absolute, since bots run in a working folder of their own."""
    if arg.startswith("-"):
        return arg
    path = Path(arg)
    if path.is_absolute():
        return arg
    full = base / path
    if (program and os.sep in arg) or (not program and full.is_file()):
        return os.path.abspath(full)  # not resolve(): a symlinked interpreter (a
        # virtualenv's python) must stay the symlink, or it loses its environment
    return arg


def program_path(argv: Sequence[str]) -> str:
    """The program a command line runs: its first word, or the script an interpreter runs
    (``python3 my_ai.py``: ``my_ai.py``)."""
    if len(argv) > 1 and not argv[1].startswith("-") and Path(argv[1]).is_file():
        return argv[1]
    return argv[0]


def _program_name(argv: Sequence[str]) -> str:
    """The player's default name: the program's file name, or the script an interpreter runs."""
    path = Path(program_path(argv))
    return path.stem if path.suffix.lower() in (".exe", ".py", ".js", ".jar") else path.name


def resolve_players(texts: Sequence[str], builtins: Mapping[str, str]) -> list[PlayerSpec]:
    """Resolve every player and make their names unique (``name``, ``name#2``...)."""
    players = [resolve_player(t, builtins) for t in texts]
    counts: dict[str, int] = {}
    unique = []
    for player in players:
        counts[player.name] = counts.get(player.name, 0) + 1
        if counts[player.name] > 1 or sum(p.name == player.name for p in players) > 1:
            name = f"{player.name}#{counts[player.name]}"
            player = PlayerSpec(name, player.command, player.builtin)
        unique.append(player)
    return unique


_INTERPRETER = re.compile(r"(python|pypy)[\d.]*|node(js)?|ruby|perl|php|bash|sh|Rscript|"
                          r"lua[\d.]*|julia")
"""Programs whose first argument, unless it is an option, is the script they run."""


def check_runnable(player: PlayerSpec) -> None:
    """Raise ``ConfigError`` if the player's program cannot be found, is a folder or is
    not executable, or if the script an interpreter is told to run does not exist."""
    program = player.command[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        path = Path(program)
        if not path.exists():
            raise ConfigError(f"player {player.name}: {program} does not exist")
        if path.is_dir():
            raise ConfigError(f"player {player.name}: {program} is a folder, not a program")
        if not os.access(path, os.X_OK):
            raise ConfigError(f"player {player.name}: {program} is not executable")
    elif shutil.which(program) is None:
        raise ConfigError(f"player {player.name}: {program!r} is not a built-in bot "
                          "and is not found on PATH")
    script = player.command[1] if len(player.command) > 1 else None
    if (script is not None and not script.startswith("-")
            and _INTERPRETER.fullmatch(os.path.basename(program))):
        if not os.path.exists(script):
            raise ConfigError(f"player {player.name}: the script {script} does not exist")
        if os.path.isdir(script) and not os.path.exists(os.path.join(script, "__main__.py")):
            raise ConfigError(f"player {player.name}: {script} is a folder, not a script")


def folder_name(name: str) -> str:
    """A player's name made safe as a file or folder name."""
    return "".join(c if c.isalnum() or c in "-_.#" else "_" for c in name)


def start_player(player: PlayerSpec, folder: Path, *, seed: int | None,
                 memory_limit: int | None = None, tag: str = "",
                 sandbox: SandboxPlan | None = None, suspend: bool = False,
                 private: Sequence[tuple[Path, Path]] = (),
                 seat: int | None = None) -> BotProcess:
    """Start ``player``'s program: it runs in ``folder/work/<tag><name>``, its stderr goes
    to ``folder/logs/<tag><name>.stderr.log``, its seed is in ``SEED_ENV`` (``None``:
    the referee's own environment's, as where the referee does not know the game's seed).
    ``seat`` is the game's seat it plays: the part of its log it writes during a game is
    then that seat's in the record (``core.seat_logs``).

    Under ``sandbox`` it sees none of ``folder`` but its working folder (and the
    ``private`` folders a game gives it: host folder, path it sees); with ``suspend`` it
    is stopped between its turns. Raises ``BotFault(CRASH)`` if the program cannot run.
    """
    safe = tag + folder_name(player.name)
    env = dict(os.environ)
    if seed is not None:
        env[SEED_ENV] = str(seed % 2**31)
    process = BotProcess(
        player.command,
        name=player.name,
        cwd=folder / "work" / safe,
        env=env,
        stderr_log=folder / "logs" / f"{safe}.stderr.log",
        memory_limit=memory_limit,
        cpus=player.cpus,
        sandbox=sandbox,
        private=private,
        hidden=(folder, *(sandbox.config.hidden if sandbox is not None else ())),
        suspend=suspend,
        seat=seat,
    )
    process.start()
    return process


def rotation(players: Sequence[PlayerSpec], game: int) -> list[PlayerSpec]:
    """The seating of game ``game`` (0-based) of a match: the players' cyclic rotation
    ``game mod n``, so every ``n`` games each player sits once in each seat."""
    shift = game % len(players)
    return list(players[shift:]) + list(players[:shift])


def play_rotations(players: Sequence[PlayerSpec], games: int,
                   play: Callable[[list[PlayerSpec], int], GameRecord], out_dir: Path,
                   on_game: Callable[[GameRecord], None] | None = None) -> list[GameRecord]:
    """A match of ``games`` games, the seats rotating one place each game: ``play(seated,
    game)`` plays game ``game`` (0-based); each record gets its number and goes to
    ``out_dir/game-NNN.json`` as soon as it is played, then to ``on_game``."""
    records = []
    for game in range(games):
        record = play(rotation(players, game), game)
        record.index = game + 1
        record.write(out_dir / f"game-{game + 1:03d}.json")
        records.append(record)
        if on_game is not None:
            on_game(record)
    return records


@contextlib.contextmanager
def readiness_check(player: PlayerSpec, task: str) -> Iterator[None]:
    """A tournament's check of a player before its first game: within the block a
    ``BotFault`` becomes the ``ConfigError`` ``player NAME cannot TASK: outcome: reason``."""
    try:
        yield
    except BotFault as fault:
        raise ConfigError(f"player {player.name} cannot {task}: "
                          f"{fault.outcome.value}: {fault}") from None


@contextlib.contextmanager
def trial_process(player: PlayerSpec, folder: Path, task: str,
                  sandbox: SandboxPlan | None = None,
                  memory_limit: int | None = None) -> Iterator[BotProcess]:
    """``player``'s program started (in ``sandbox`` and within ``memory_limit``, as it
    will play) for a :func:`readiness_check` of ``task`` (seed 0, files tagged
    ``check-``), stopped when the block ends."""
    process = None
    with readiness_check(player, task):
        try:
            process = start_player(player, folder, seed=0, tag="check-", sandbox=sandbox,
                                   memory_limit=memory_limit)
            yield process
        finally:
            if process is not None:
                process.stop(1.0)
