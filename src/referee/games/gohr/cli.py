"""The Game of Hidden Rules' commands: ``referee play gohr`` (the captive server on
standard input and output), ``referee serve gohr`` (on sockets), ``referee replay gohr``
(a web table's records checked) and ``referee connect gohr`` (a program plays a web
table's seat); ``COMMANDS``, found through ``games/registry.py``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from referee.cli import support
from referee.cli.options import MAX_JOBS, Duration, Whole, json_option
from referee.cli.support import fail
from referee.cli.web_connect import connect_command
from referee.core.errors import ConfigError, RefereeError

__all__ = ["COMMANDS"]


@click.command("gohr", context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED, metavar="[key=value...] RULES BOARD...")
def play_gohr(args: tuple[str, ...]) -> None:
    """The captive game server of the Game of Hidden Rules, on standard input and output.

    RULES is a rule-set file followed by the boards: a board file (.json), a number of
    pieces or a range (3, 2:4), or pieces, shapes and colors (5 1:3 3:4); or a trial list
    (.csv) and a row number; or R:rules:modifier. Options as key=value: seed=, inputDir=,
    output=brief|standard|full, condTrain=, condTest=, colors=, shapes=, log=,
    logappend=, log.nickname=, log.run=, log.format=long|compact, version=7|8 (the
    answers of CGS 7.x, the default, or 8.060). Type HELP for the commands, EXIT to leave.
    """
    from referee.games.gohr.captive import serve_pipe
    from referee.games.gohr.setup import build_setup

    try:
        setup = build_setup(args)
        serve_pipe(setup, sys.stdin.buffer, sys.stdout)
    except BaseException as exc:
        fail(exc)


@click.command("gohr")
@click.option("--port", type=Whole(0, 65535), required=True,
              help="TCP port to listen on (0: any free port, printed at start).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind (another than 127.0.0.1 opens it to the network).")
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path),
              default=".", show_default=True,
              help="Data folder: every file a client names must be inside it.")
@click.option("--idle", type=Duration(legacy="s"), default="600s", show_default=True,
              help="Silence after which a session is closed.")
@click.option("--login-time", type=Duration(positive=True), default="10s", show_default=True,
              help="Time a new connection has to send its first command (GAME ...) before "
                   "it is told so and closed, freeing its slot.")
@click.option("--max-sessions", type=Whole(1, 65_536), default=64, show_default=True,
              help="Sessions at once, all workers together; more clients are told so and "
                   "closed.")
@click.option("--workers", type=Whole(1, MAX_JOBS), default=os.cpu_count() or 1,
              show_default="the number of cores",
              help="Worker processes sharing the sessions (1: serve in this process).")
def serve_gohr(port: int, host: str, data_dir: Path, idle: float, login_time: float,
               max_sessions: int, workers: int) -> None:
    """The socket-based captive game server: each connection is a session that starts
    with GAME <arguments of referee play gohr>. Stop it with Ctrl-C or SIGTERM.

    A connection that sends no command within --login-time, or a line over 65536 bytes,
    is told why and closed; a session silent for --idle is closed."""
    from referee.games.gohr.socket_server import CaptiveSocketServer, ServerConfig, serve

    try:
        server = CaptiveSocketServer((host, port), ServerConfig(
            data_dir, idle, max_sessions, first_line=login_time))
    except OSError as exc:
        fail(ConfigError(f"cannot serve on {host}:{port}: {exc.strerror or exc}; "
                         f"choose another --port (0: any free one) or --host"))
    except RefereeError as exc:
        fail(ConfigError(f"cannot serve on {host}:{port}: {exc}"))

    def started(pids: list[int]) -> None:
        click.echo(f"GOHR captive server on {host}:{server.server_address[1]}, data "
                   f"{server.config.data}, {len(pids)} worker process"
                   f"{'es' if len(pids) > 1 else ''}", err=True)

    try:
        serve(server, workers, started)  # it stops on SIGTERM itself
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    click.echo("referee: server stopped", err=True)


@click.command("gohr")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@json_option
def replay_gohr(files: tuple[Path, ...], json_mode: bool) -> None:
    """Replay GOHR records (a web table's games) through the engine and check them.

    FILES are the referee's records (JSON): each holds its rule set and boards; every
    MOVE, NEW and EXIT must be legal, its response code the engine's, and the score the
    engine's. FILES may also be folders: the records below them, a store's folder (its
    tournament.sqlite: every game of it) or a records.jsonl. One OK or FAIL line per
    game; the exit status is 1 if any fails.
    """
    from referee.cli.replay_sources import GameChecks, check_games
    from referee.core.checking import check_files
    from referee.games.gohr.check import check_file, check_record

    support.report_checks(check_games(files, GameChecks(
        lambda paths: check_files(paths, check_file), check_record)), json_mode)


COMMANDS: dict[str, click.Command] = {"play": play_gohr, "serve": serve_gohr,
                                      "replay": replay_gohr,
                                      "connect": connect_command("gohr")}
"""The Game of Hidden Rules' commands by verb."""
