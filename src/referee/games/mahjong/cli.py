"""ICGA Mahjong's commands: ``referee match mahjong`` (local mode), ``referee replay
mahjong``, ``referee serve mahjong`` and ``referee connect mahjong`` (network mode; the
wrapper), ``referee bot mahjong`` and ``referee dataset mahjong``, ``COMMANDS`` found
through ``games/registry.py``."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from referee.cli import options as opt
from referee.cli import support
from referee.cli.data_commands import dataset_command
from referee.cli.policy_bots import run_policy_bot
from referee.core.checking import check_files
from referee.core.errors import ConfigError
from referee.core.players import PlayerSpec
from referee.core.policy import Policy
from referee.core.sandbox import SandboxConfig
from referee.games.mahjong.defaults import MAX_HANDS, MEMORY_MB

__all__ = ["COMMANDS"]

F = TypeVar("F", bound=Callable[..., object])

SCORINGS = ["icga", "taiwan"]
"""The tai tables by name (``scoring.PRESETS``; a test keeps the two lists equal)."""


def _rule_options(command: F) -> F:
    """The options of the rules both modes play: hands, reserve, tai table, and where the
    game may leave the framework's letter."""
    for option in reversed([
        click.option("--hands", type=opt.Whole(1, MAX_HANDS), default=16, show_default=True,
                     help="Hands in a game (16: four wind rounds)."),
        click.option("--reserve", type=opt.Whole(0, 60), default=16, show_default=True,
                     help="Tiles left in the wall when a hand is drawn."),
        click.option("--scoring", type=click.Choice(SCORINGS), default="icga",
                     show_default=True,
                     help="The tai table: icga (the referee's own table, not ICGA's: the "
                          "ICGA framework defines none) or taiwan (a common Taiwanese "
                          "table as open_mahjong_unity scores it, with the eight-flower "
                          "wins); docs/mahjong.md compares them."),
        click.option("--takeover", type=click.Choice(["hand", "game"]), default="hand",
                     show_default=True,
                     help="How long the dummy AI plays for a faulty AI: the rest of the hand "
                          "(the framework) or of the game."),
        click.option("--kong-from-previous", is_flag=True,
                     help="Allow a melded kong on the previous player's discard (the "
                          "framework forbids it)."),
    ]):
        command = option(command)
    return command


@click.command("mahjong")
@click.argument("players", nargs=4, required=True, metavar="AI1 AI2 AI3 AI4")
@_rule_options
@click.option("--rotations", type=opt.Whole(1, 4), default=1, show_default=True,
              help="Duplicate play: games on the same walls, seats rotating each game.")
@click.option("--base", type=opt.Whole(0), default=100, show_default=True,
              help="Points paid for a win before the tai.")
@click.option("--per-tai", type=opt.Whole(0), default=20, show_default=True,
              help="Points paid per tai.")
@opt.move_time_option("10s", legacy="s")
@opt.memory_option(f"{MEMORY_MB}M")
@click.option("--start-path", type=click.Choice(["program", "command"]), default="program",
              show_default=True,
              help="What /start names as the AI's path: its program (the framework's "
                   "AIPath) or its whole command line.")
@opt.seed_option("the walls")
@opt.records_out_options("records and logs", "referee-out/match-<time>")
@opt.sandbox_options("on")
@opt.json_option
def match_mahjong(players: tuple[str, ...], hands: int, reserve: int, scoring: str,
                  takeover: str, kong_from_previous: bool, rotations: int, base: int,
                  per_tai: int, move_time: float, memory: int, start_path: str,
                  seed: int | None,
                  out_dir: Path | None, overwrite: bool, sandbox: SandboxConfig,
                  json_mode: bool) -> None:
    """Play ICGA (Taiwanese 16-tile) Mahjong between four AI programs (local mode).

    Each AI is a built-in one (random, greedy) or a command line. The referee starts the
    four programs for every hand and speaks the ICGA protocol with them on their standard
    input and output. An AI that answers wrongly or late gets /exit and the dummy AI plays
    its seat for the rest of the hand (the record says when, and counts it as a fault).
    """
    from referee.games.mahjong.adapter import MahjongAdapter
    from referee.games.mahjong.match import BUILTIN_PLAYERS, MahjongSettings, run_match
    from referee.games.mahjong.rules import Rules
    from referee.games.mahjong.scoring import Stakes, preset

    console = support.human_console(json_mode)
    try:
        rules = Rules(hands=hands, reserve=reserve, table=preset(scoring),
                      stakes=Stakes(base, per_tai), kong_from_previous=kong_from_previous)
        specs = support.runnable_players(players, BUILTIN_PLAYERS)
        chosen = support.seed_or_random(seed)
        out, sandbox, sandbox_line = support.confine(
            sandbox, out_dir, "match", suspend_default=True, overwrite=overwrite)
        settings = MahjongSettings(rules, chosen, move_time, takeover=takeover,
                                   start_path=start_path, sandbox=sandbox,
                                   memory_limit=memory or None)
        records = support.play_games(
            console, f"ICGA Mahjong, {hands} hand(s), {scoring} tai table, {rotations} seat "
            "rotation(s)", specs, chosen, rotations,
            lambda done: run_match(specs, settings, rotations, out, on_game=done),
            sandbox_line)
    except BaseException as exc:
        support.fail(exc, "the finished games are in the output folder")
    support.finish_match(console, "mahjong", out, chosen, specs, records,
                         MahjongAdapter.scores_are_points, json_mode, ("takeover-at",))


@click.command("mahjong")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@opt.json_option
def replay_mahjong(files: tuple[Path, ...], json_mode: bool) -> None:
    """Replay ICGA Mahjong records through the engine and check them.

    FILES are the referee's records (JSON, local or network mode): the walls are made
    again from each record's seed, every answer (the dummy AI's too) must answer the
    question asked, and each hand's winner, payments and the totals must be the engine's.
    FILES may also be folders: a match's (its records), a tournament's (or its
    tournament.sqlite: every game of its store); or a tournament's records.jsonl. One OK
    or FAIL line per game; the exit status is 1 if any fails.
    """
    from referee.cli.replay_sources import GameChecks, check_games
    from referee.games.mahjong.check import check_file, check_record

    support.report_checks(check_games(files, GameChecks(
        lambda paths: check_files(paths, check_file), check_record)), json_mode)


@click.command("mahjong")
@click.option("--port", type=opt.Whole(0, 65535), required=True,
              help="TCP port to listen on (0: any free port, printed at start).")
@click.option("--seed", type=opt.Whole(0), required=True,
              help="Seed of the walls (the same seed deals the same hands).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind (another than 127.0.0.1 opens it to the network).")
@_rule_options
@opt.move_time_option("10s", "each answer (then the dummy AI takes its seat)", legacy="s")
@click.option("--login-time", type=opt.Duration(legacy="s", positive=True), default="30s",
              show_default=True,
              help="Time a connection has to send its login line, however slowly its bytes "
                   "come, before it is refused and dropped (it holds no seat meanwhile).")
@click.option("--human-time", type=opt.Duration(positive=True), default="120s",
              show_default=True,
              help="Time for each answer of a seat a person plays (connect --human), "
                   "instead of --move-time (then the dummy AI takes the seat, and the "
                   "person is told).")
@opt.records_out_options("the record", "referee-out/mahjong-<time>")
@opt.json_option
def serve_mahjong(port: int, seed: int, host: str, hands: int, reserve: int, scoring: str,
                  takeover: str, kong_from_previous: bool, move_time: float,
                  login_time: float, human_time: float, out_dir: Path | None,
                  overwrite: bool, json_mode: bool) -> None:
    """Run the referee server: wait for four clients to log in (one per seat, with
    `referee connect mahjong`), play the game with them, write the record, stop.

    A client logs in with the line "/login <id> <account>" (id 1..4) and is answered
    /ok or "/refused <reason>" ("/login <id> <account> human" for a person, who has
    --human-time for each answer). Two clients with the same account or seat are both
    refused, and so is a login line over 1024 bytes or not sent within --login-time. A
    client that faults or disconnects is replaced by the dummy AI (a line over 64 KiB is a
    fault); the record says why.
    """
    from referee.games.mahjong.adapter import MahjongAdapter
    from referee.games.mahjong.match import MahjongSettings
    from referee.games.mahjong.rules import Rules
    from referee.games.mahjong.scoring import preset
    from referee.games.mahjong.server import MahjongServer, ServerConfig

    console = support.human_console(json_mode)
    try:
        with support.sigterm_interrupts():
            settings = MahjongSettings(
                Rules(hands=hands, reserve=reserve, table=preset(scoring),
                      kong_from_previous=kong_from_previous), seed, move_time,
                takeover=takeover)
            out = support.output_folder(out_dir, "mahjong", overwrite=overwrite)
            server = MahjongServer(
                ServerConfig(settings, out, host, port, login_time, human_time),
                announce=lambda text: click.echo(f"referee: {text}", err=True))
            bound_host, bound_port = server.address
            click.echo(f"ICGA Mahjong server on {bound_host}:{bound_port}", err=True)
            record, path = server.serve()
    except BaseException as exc:
        support.fail(exc)
    players = [PlayerSpec(p.name, list(p.command)) for p in record.players]
    support.finish_match(console, "mahjong", path.parent, seed, players, [record],
                         MahjongAdapter.scores_are_points, json_mode, ("takeover-at",))
    console.print(f"Record: {path}", markup=False)


@click.command("mahjong")
@click.argument("url")
@click.option("--seat", type=opt.Whole(1, 4), required=True,
              help="The seat to play, 1..4 (as the table's page numbers them).")
@click.option("--name", help="The AI's name at the table [default: its program's].")
@opt.out_option("the AI's working folder and its stderr log", "referee-out/connect-<time>")
@opt.memory_option(f"{MEMORY_MB}M")
@opt.sandbox_options(None)
@click.argument("command", nargs=-1, required=True, metavar="-- AI-COMMAND...")
def connect_table(url: str, seat: int, name: str | None, out_dir: Path | None, memory: int,
                  sandbox: SandboxConfig, command: tuple[str, ...]) -> None:
    """Play a seat of an ICGA Mahjong web table (referee web) with an AI run here: URL
    is the table's address with the seat's join secret, as its page shows it. As the
    ICGA wrapper does, AI-COMMAND (a built-in AI or a command line) is started for every
    hand and its lines relayed; the server referees it as any AI.

    Ends with status 0 when the table's game is over for the seat, 2 if the server
    refuses the seat or cannot be reached.
    """
    from referee.core.players import check_runnable, resolve_player
    from referee.core.sandbox import plan_sandbox
    from referee.games.mahjong.match import BUILTIN_PLAYERS
    from referee.games.mahjong.web_link import TableLink
    from referee.games.mahjong.wrapper import AIProgram, LoginRefused, Wrapper, account_name
    from referee.web.connect_client import program_url

    def notify(text: str) -> None:
        click.echo(f"referee: {text}", err=True)

    try:
        with support.sigterm_interrupts():
            spec = resolve_player(command[0] if len(command) == 1 else shlex.join(command),
                                  BUILTIN_PLAYERS)
            own = spec.command[1:3] == ["-m", "referee"]
            shown = name or (account_name(spec.name, seat) if spec.builtin or own
                             else spec.name)
            check_runnable(PlayerSpec(shown, spec.command))
            program_url(url, seat, shown)  # (a bad address said before anything is set up)
            out, config, sandbox_line = support.confine(
                sandbox, out_dir, "connect", suspend_default=False, fresh=False)
            notify(sandbox_line)
            program = AIProgram(PlayerSpec(shown, spec.command), out, plan_sandbox(config),
                                memory or None)
            link = TableLink(url, seat, shown)
            notify(f"the AI's working folder and standard error log are in {program.out}")
            try:
                Wrapper(link, seat, shown, program, notify=notify).run()
            except LoginRefused as exc:
                raise ConfigError(f"the server refused: {exc}") from None
    except BaseException as exc:
        support.fail(exc)
    click.echo(f"referee: the seat's game is over ({link.ended or 'the connection closed'})",
               err=True)


class _ConnectCommand(click.Command):
    """``referee connect mahjong``: a web table's address first joins that table
    (``connect_table``); otherwise the ICGA framework's options, as ever."""

    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        """The web table's command's context when the first argument is a URL."""
        from referee.games.mahjong.web_link import is_table_url

        if args and is_table_url(args[0]):
            return connect_table.make_context(info_name, args, parent=parent, **extra)
        return super().make_context(info_name, args, parent=parent, **extra)


@click.command("mahjong", cls=_ConnectCommand,
               context_settings={"allow_interspersed_args": False})
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The server's address.")
@click.option("--port", type=opt.Whole(1, 65535), required=True,
              help="The server's port.")
@click.option("--id", "seat", type=opt.Whole(1, 4), required=True,
              help="The client id: the seat, 1..4.")
@click.option("--account",
              help="Account name (1-32 of letters, digits, . _ @ + # -) [default: the AI's "
                   "name and the seat].")
@click.option("--human", is_flag=True,
              help="Play the seat yourself on this console instead of an AI (the server "
                   "gives a person its --human-time per answer; on a terminal, lines can "
                   "be edited, recalled with Up and completed with Tab).")
@opt.out_option("the AI's working folder and its stderr log", "referee-out/connect-<time>")
@opt.memory_option(f"{MEMORY_MB}M")
@opt.sandbox_options(None)
@click.argument("command", nargs=-1, type=click.UNPROCESSED, metavar="-- AI-COMMAND...")
def connect_mahjong(host: str, port: int, seat: int, account: str | None, human: bool,
                    out_dir: Path | None, memory: int, sandbox: SandboxConfig,
                    command: tuple[str, ...]) -> None:
    """Log in to a referee server for one seat and play its hands: start AI-COMMAND for
    every hand and relay the server's lines to it and its answers back (the ICGA
    wrapper). AI-COMMAND is a built-in AI (random, greedy) or a command line.

    The AI runs in the sandbox (--sandbox), in its own working folder under --out, its
    standard error in a log there; it is never suspended (the relay does not follow the
    game). Ends with status 0 when the server closes the connection, 1 if the login is
    refused, 2 on a bad option (--sandbox strict where isolation is missing).

    To play a seat of a web table (referee web) instead: referee connect mahjong URL
    --seat N -- AI-COMMAND, URL the table's address with the seat's join secret, as the
    table's page shows it (referee connect mahjong URL --help).
    """
    from referee.core.players import check_runnable, resolve_player
    from referee.core.sandbox import plan_sandbox
    from referee.games.mahjong.human import HumanConsole, HumanLeft
    from referee.games.mahjong.match import BUILTIN_PLAYERS
    from referee.games.mahjong.wrapper import (
        AIProgram,
        LoginRefused,
        ServerLink,
        Wrapper,
        account_name,
        default_account,
    )

    def notify(text: str) -> None:
        click.echo(f"referee: {text}", err=True)

    try:
        with support.sigterm_interrupts():
            if human and command:
                raise ConfigError("give either --human or an AI command, not both")
            program: AIProgram | None = None
            console: HumanConsole | None = None
            editor: LineEditor | None = None
            if human:
                console = HumanConsole(sys.stdin, sys.stdout)
                name = account or f"human-{seat}"
                if sys.stdin.isatty() and sys.stdout.isatty():  # a person at a terminal
                    from referee.cli.line_input import LineEditor, history_path

                    editor = LineEditor("", console.completions,
                                        history_path("mahjong-human"), notes=console.say)
            elif not command:
                raise ConfigError("give the AI's command after -- (or a built-in AI: "
                                  f"{', '.join(BUILTIN_PLAYERS)}), or --human")
            else:
                spec = resolve_player(command[0] if len(command) == 1
                                      else shlex.join(command), BUILTIN_PLAYERS)
                own = spec.command[1:3] == ["-m", "referee"]  # (referee bot: its --name)
                name = account or (account_name(spec.name, seat) if spec.builtin or own
                                   else default_account(spec.command, seat))
                check_runnable(PlayerSpec(name, spec.command))  # before taking the seat
                out, config, sandbox_line = support.confine(
                    sandbox, out_dir, "connect", suspend_default=False, fresh=False)
                notify(sandbox_line)
                program = AIProgram(PlayerSpec(name, spec.command), out, plan_sandbox(config),
                                    memory or None)
            link = ServerLink(host, port)  # no server: no folder said (the AI's is made
            if program is not None:  # when its first hand starts)
                notify("the AI's working folder and standard error log are in "
                       f"{program.out}")
            wrapper = Wrapper(link, seat, name, program, console, notify, editor)
            wrapper.run()
    except LoginRefused as exc:
        click.echo(f"referee: refused by the server: {exc}", err=True)
        sys.exit(1)
    except HumanLeft:
        click.echo("referee: the input ended: leaving the table", err=True)
    except BaseException as exc:
        support.fail(exc)


@click.command("mahjong")
@opt.policy_options
@click.option("--hands", type=opt.Whole(1, MAX_HANDS), default=16, show_default=True,
              help="Hands in the game (as the match's --hands): the observation counts "
                   "the hands still to play, which the wire does not say.")
def bot_mahjong(policy: str, paths: tuple[Path, ...], name: str | None, hands: int) -> None:
    """Run a Python policy as an ICGA Mahjong AI on standard input and output (one hand
    per run, as every ICGA AI; needs the envs extra: pip install 'referee[envs]').

    The policy is called with what the Mahjong environment observes
    (referee.envs.make("mahjong"): a dict of "observation" and "action_mask") and returns
    an action number (0-33 throw, 34-67 kong, 68 pong, 69-71 chow, 72 hu, 73 pass). Put
    it in a match as any AI (a player's command that starts with referee runs this
    referee, on PATH or not):

      referee match mahjong greedy random random "referee bot mahjong --policy a:act --path ."
    """

    def play(loaded: Policy) -> int:
        from referee.games.mahjong.policy_bot import HAND_FILE, run_policy_ai
        from referee.games.mahjong.rules import Rules

        return run_policy_ai(loaded, Rules(hands=hands), memory=Path(HAND_FILE))

    run_policy_bot("mahjong", policy, paths, play)

COMMANDS: dict[str, click.Command] = {"match": match_mahjong, "replay": replay_mahjong,
                                      "serve": serve_mahjong, "connect": connect_mahjong,
                                      "bot": bot_mahjong, "dataset": dataset_command("mahjong")}
"""ICGA Mahjong's commands by verb."""
