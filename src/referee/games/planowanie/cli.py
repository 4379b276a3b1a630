"""Planowanie's commands: ``referee match planowanie``, ``referee replay planowanie``,
``referee console planowanie``, ``referee bot planowanie``, ``referee dataset
planowanie``, ``referee connect planowanie`` (``COMMANDS``, found through
``games/registry.py``)."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

from referee.cli import options as opt
from referee.cli import support
from referee.cli.data_commands import dataset_command
from referee.cli.policy_bots import run_policy_bot
from referee.cli.web_connect import connect_command
from referee.core.checking import check_files
from referee.core.errors import ConfigError
from referee.core.policy import Policy
from referee.core.sandbox import SandboxConfig
from referee.games.planowanie.defaults import MEMORY_MB

__all__ = ["COMMANDS"]

F = TypeVar("F", bound=Callable[..., object])


def _ms(value: int) -> float:
    """An old option's milliseconds, in seconds."""
    return value / 1000


def _deck_options(command: F) -> F:
    """``--values``, ``--suits`` and ``--deals``: the deck and the deal schedule."""
    for option in reversed([
        click.option("--values", default="23456789TJQKA", show_default=True,
                     help="Card values, lowest first (set_deck)."),
        click.option("--suits", default="CDHS", show_default=True,
                     help="Suits; the first is trumps (set_deck)."),
        click.option("--deals", help="The deals as set_game's arguments, 'd c1 s1 ... cd sd' "
                     "[default: 13 deals of 1..13 cards, the starter moving one seat each "
                     "deal]."),
    ]):
        command = option(command)
    return command


@click.command("planowanie")
@click.argument("players", nargs=-1, required=True, metavar="PLAYER1 PLAYER2 [PLAYER3 [PLAYER4]]")
@click.option("--games", type=opt.Whole(1, opt.MAX_GAMES), help="Games to play; seats rotate each "
              "game [default: one per player, every player once in every seat].")
@_deck_options
@opt.game_time_option("180s", "a whole game (time_left)")
@opt.move_time_option("0", "each answer on top of the game clock, 0 = no limit (the "
                      "referee's own: the protocol has a game clock only)", positive=False)
@opt.tolerance_option(legacy="ms")
@opt.startup_option(what="start and take the configuration", legacy="ms")
@opt.memory_option(f"{MEMORY_MB}M")
@click.option("--quit", "quit_at_end", is_flag=True,
              help="End the programs with quit after each game instead of killing them.")
@opt.seed_option("the deals")
@opt.records_out_options("records and logs", "referee-out/match-<time>")
@opt.sandbox_options("on")
@opt.json_option
@opt.renamed("--time", "game_time", "--game-time", type=int, convert=_ms)
def match_planowanie(players: tuple[str, ...], games: int | None, values: str, suits: str,
                     deals: str | None, game_time: float, move_time: float, tolerance: float,
                     startup: float, memory: int, quit_at_end: bool, seed: int | None,
                     out_dir: Path | None,
                     overwrite: bool,
                     sandbox: SandboxConfig, json_mode: bool) -> None:
    """Play Planowanie (the ITPW card game) between 2 to 4 player programs.

    Each PLAYER is a built-in player (random, heuristic) or a command line, e.g.
    "./my-player" or "python3 player.py". Every game starts the programs afresh; the
    seats rotate from game to game, and each full rotation plays the same deals. Records
    (JSON) and each program's stderr log go to the output folder.
    """
    from referee.core.clock import time_control
    from referee.games.planowanie.adapter import PlanowanieAdapter
    from referee.games.planowanie.match import BUILTIN_PLAYERS, PlanowanieSettings, run_match

    console = support.human_console(json_mode)
    try:
        if not 2 <= len(players) <= 4:
            raise ConfigError(f"planowanie needs 2 to 4 players, got {len(players)}")
        count = len(players) if games is None else games
        specs = support.runnable_players(players, BUILTIN_PLAYERS)
        try:
            settings = PlanowanieSettings.from_options(
                values=values, suits=suits, players=len(specs), deals=deals,
                quit_at_end=quit_at_end)
        except ConfigError as exc:
            raise ConfigError(f"--values/--suits/--deals: {exc}") from None
        settings = dataclasses.replace(
            settings, memory_limit=memory or None,
            time=time_control(turn=move_time or None, game=game_time, tolerance=tolerance,
                              startup=startup))
        chosen = support.seed_or_random(seed)
        out, sandbox, sandbox_line = support.confine(
            sandbox, out_dir, "match", suspend_default=True, overwrite=overwrite)
        settings = dataclasses.replace(settings, sandbox=sandbox)
        records = support.play_games(
            console, f"Planowanie, {len(settings.rules.deals)} deals, deck {values}/{suits} "
            f"({suits[0]} trumps), {count} game(s)", specs, chosen, count,
            lambda done: run_match(specs, settings, chosen, count, out, on_game=done),
            sandbox_line)
    except BaseException as exc:
        support.fail(exc, "the finished games are in the output folder")
    support.finish_match(console, "planowanie", out, chosen, specs, records,
                         PlanowanieAdapter.scores_are_points, json_mode)


@click.command("planowanie")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@opt.json_option
def replay_planowanie(files: tuple[Path, ...], json_mode: bool) -> None:
    """Replay Planowanie records through the engine and check them.

    FILES are the referee's records (JSON): the deals are made again from each record's
    seed and settings, every declaration and card must be legal and by the seat to play,
    and the points (or a fault's loss) the engine's. FILES may also be folders: a match's
    (its records), a tournament's (or its tournament.sqlite: every game of its store); or
    a tournament's records.jsonl. One OK or FAIL line per game; the exit status is 1 if
    any fails.
    """
    from referee.cli.replay_sources import GameChecks, check_games
    from referee.games.planowanie.check import check_file, check_record

    support.report_checks(check_games(files, GameChecks(
        lambda paths: check_files(paths, check_file), check_record)), json_mode)


@click.command("planowanie")
@click.argument("player", metavar="PLAYER")
@_deck_options
@click.option("--players", type=opt.Whole(2, 4), default=4, show_default=True,
              help="Players at the table, 2..4 (set_players).")
@click.option("--seat", type=opt.Whole(0, 3), default=0, show_default=True,
              help="The program's seat, 0-based (set_players).")
@click.option("--opponents", type=click.Choice(["random", "heuristic"]), default="random",
              show_default=True, help="The built-in strategy playing the other seats.")
@opt.move_time_option("10s", "each answer (then the console stops waiting)")
@opt.game_time_option("180s", "the game, told with time_left (not enforced)")
@opt.seed_option("the deals and the opponents")
@opt.out_option("the program's work folder and stderr log", "referee-out/console-<time>")
@click.option("--history", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="File of the lines typed, kept across sessions (on a terminal) "
                   "[default: ~/.local/state/referee/planowanie-console.history].")
@opt.sandbox_options(None)
@opt.renamed("--timeout", "move_time", "--move-time", type=int, convert=_ms)
@opt.renamed("--time", "game_time", "--game-time", type=int, convert=_ms)
def console_planowanie(player: str, values: str, suits: str, deals: str | None, players: int,
                       seat: int, opponents: str, move_time: float, game_time: float,
                       seed: int | None, out_dir: Path | None, history: Path | None,
                       sandbox: SandboxConfig) -> None:
    """Start a Planowanie PLAYER and talk to it (type :help for the commands).

    PLAYER is a built-in player (random, heuristic) or a command line. Any line typed is
    sent to the program and its answer shown; :new, :step [N] and :auto run a game the
    console referees (the other seats played by --opponents), :declare and :play act by
    hand (the seat is then yours: :step and :auto wait at its turns until :release),
    :state shows the game, :quit sends quit and lets the program exit. On a
    terminal, lines can be edited, Up/Down recall earlier ones (--history) and Tab
    completes commands and cards; Ctrl-C clears the line, Ctrl-D ends.
    """
    from referee.games.planowanie.console import ConsoleConfig, ConsoleSession
    from referee.games.planowanie.match import BUILTIN_PLAYERS, PlanowanieSettings

    try:
        spec = support.runnable_players([player], BUILTIN_PLAYERS)[0]
        try:
            rules = PlanowanieSettings.from_options(values=values, suits=suits,
                                                    players=players, deals=deals).rules
        except ConfigError as exc:
            raise ConfigError(f"--values/--suits/--players/--deals: {exc}") from None
        try:
            config = ConsoleConfig(
                rules, seat=seat, opponents=opponents, timeout_ms=round(move_time * 1000),
                time_ms=round(game_time * 1000), seed=support.seed_or_random(seed))
        except ConfigError as exc:
            raise ConfigError(f"--seat/--move-time/--game-time: {exc}") from None
        out, sandbox, sandbox_line = support.confine(
            sandbox, out_dir, "console", suspend_default=False, fresh=False)
        config = dataclasses.replace(config, sandbox=sandbox)
        click.echo(sandbox_line, err=True)
        session = ConsoleSession(spec, out, config, stdin=sys.stdin, stdout=sys.stdout)
        if sys.stdin.isatty() and sys.stdout.isatty():  # a person at a terminal: editing
            from referee.cli.line_input import LineEditor, history_path

            session.reader = LineEditor("planowanie> ", session.completions,
                                        history or history_path("planowanie-console"),
                                        notes=session.say)
        code = session.run()
    except BaseException as exc:
        support.fail(exc)
    if code:
        sys.exit(code)


@click.command("planowanie")
@opt.policy_options
def bot_planowanie(policy: str, paths: tuple[Path, ...], name: str | None) -> None:
    """Run a Python policy as a Planowanie player on standard input and output (needs the
    envs extra: pip install 'referee[envs]').

    The policy is called with what the Planowanie environment observes
    (referee.envs.make("planowanie"): a dict of "observation" and "action_mask") and
    returns an action number: 0..C declare that many tricks, C + 1 + card plays a card.
    The deck, players and deals come from the referee (set_deck, set_players, set_game).
    Put it in a match as any player (a player's command that starts with referee runs
    this referee, on PATH or not):

      referee match planowanie random random "referee bot planowanie --policy a:act --path ."
    """

    def play(loaded: Policy) -> int:
        from referee.games.planowanie.policy_bot import run_policy

        return run_policy(loaded, name or policy)

    run_policy_bot("planowanie", policy, paths, play)

COMMANDS: dict[str, click.Command] = {"match": match_planowanie,
                                      "replay": replay_planowanie,
                                      "console": console_planowanie,
                                      "bot": bot_planowanie,
                                      "dataset": dataset_command("planowanie"),
                                      "connect": connect_command("planowanie")}
"""Planowanie's commands by verb."""
