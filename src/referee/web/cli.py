"""``referee web``: serve the game server (``--data DIR``), and add its accounts from the
command line (``referee web admin add NAME``, ``referee web user add NAME``). The server's
libraries are imported only when a command runs."""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from referee.cli.support import fail

if TYPE_CHECKING:
    from referee.web.config import WebConfig

__all__ = ["web"]

data_option = click.option(
    "--data", type=click.Path(file_okay=False, path_type=Path),
    help="The server's folder: its secret key, its SQLite database (unless --db names "
         "another) and its games' records; made if missing.")
db_option = click.option(
    "--db", "db_url", metavar="URL",
    help="The database: sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/NAME "
         "[default: DATA/web.sqlite].")


@click.group("web", invoke_without_command=True,
             short_help="Serve the game server of every game, for people and programs "
                        "(needs the web extra: pip install 'referee[web]').")
@data_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on (0.0.0.0 or :: for every interface).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="The port to listen on (0: any free one, said at the start).")
@db_option
@click.option("--guests/--no-guests", default=False, show_default=True,
              help="Whether people may play without an account, as guests.")
@click.option("--proxy", "proxies", metavar="ADDRESSES", default="",
              help="Behind a reverse proxy: the proxies' addresses (comma-separated) whose "
                   "X-Forwarded-For and X-Forwarded-Proto headers are believed.")
@click.option("--away", "leave_grace", type=click.FloatRange(0.1, 86400), default=30.0,
              show_default=True, metavar="SECONDS",
              help="How long a person's seat waits for them once all their pages are closed; "
                   "then the pinch-hitter plays on, or without one they lose (left).")
@click.option("--max-sockets", type=click.IntRange(1, 1_000_000), default=10_000,
              show_default=True, help="The most WebSockets (pages and programs) held at once.")
@click.option("--max-sockets-per-address", type=click.IntRange(1, 1_000_000), default=1_000,
              show_default=True, help="The most WebSockets held from one client address.")
@click.option("--request-timeout", type=click.FloatRange(0.5, 3600), default=10.0,
              show_default=True, metavar="SECONDS",
              help="How long a new connection may take to send its first request; then it "
                   "is answered 408 and closed (connections held idle by the thousand).")
@click.option("--table-workers", type=click.IntRange(0, 64), default=2, show_default=True,
              metavar="N", help="Worker processes that play the tables of programs only "
                                "(0: every table in the server's own process).")
@click.pass_context
def web(ctx: click.Context, data: Path | None, host: str, port: int, db_url: str | None,
        guests: bool, proxies: str, leave_grace: float, max_sockets: int,
        max_sockets_per_address: int, request_timeout: float, table_workers: int) -> None:
    """The game server: people and programs at one table, for every game (needs the web
    extra: pip install 'referee[web]').

    `referee web --data DIR` listens on http://127.0.0.1:8000/ ; add an admin first with
    `referee web admin add NAME --data DIR`.
    """
    if ctx.invoked_subcommand is not None:
        return
    if data is None:
        raise click.UsageError("Missing option '--data': the server's folder.")
    needs_extra()
    from referee.web.config import WebConfig

    config = WebConfig(data=data, host=host, port=port, db_url=db_url, guests=guests,
                       forwarded_allow_ips=tuple(p.strip() for p in proxies.split(",")
                                                 if p.strip()), leave_grace=leave_grace,
                       max_sockets=max_sockets,
                       max_sockets_per_address=max_sockets_per_address,
                       request_timeout=request_timeout, table_workers=table_workers)
    try:
        serve(config)
    except Exception as exc:
        fail(exc)


def serve(config: WebConfig) -> None:
    """Run the server of ``config`` with uvicorn until Ctrl-C or SIGTERM."""
    import uvicorn

    from referee.web.app import create_app
    from referee.web.collector import settle_collector
    from referee.web.fast_lane import LaneProtocol
    from referee.web.guarded_http import guarded_protocol

    logging.getLogger("referee.web").setLevel(logging.INFO)
    open_files_for(config.max_sockets)
    app = create_app(config)
    listener = listen(config.host, config.port)
    host, port = listener.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"referee web: serving on http://{shown}:{port}/ (folder {config.data})")
    sys.stdout.flush()
    settle_collector()  # (the application made: what the process holds from now on)
    server = uvicorn.Server(uvicorn.Config(
        app, http=guarded_protocol(config.request_timeout), ws=LaneProtocol,
        # (no per-message compression: each connection's own compressor cost more of the
        # loop than any other part of sending a table's state to a thousand spectators,
        # and memory besides; a state is a few kilobytes)
        ws_per_message_deflate=False,
        proxy_headers=False, server_header=False, workers=1,
        log_level="info", lifespan="on"))
    # uvicorn stops gracefully on SIGTERM, then raises the signal again under the handler
    # that was there before it: this one, so that a server stopped so ends with status 0
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server.run(sockets=[listener])


def open_files_for(sockets: int) -> None:
    """Raise the process's open-file limit as far as it may go towards what ``sockets``
    connections need (each is a descriptor); say so if it cannot go that far."""
    import resource

    wanted = sockets + 1024  # (the database, the records, the programs' pipes)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(hard, wanted)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    if soft != resource.RLIM_INFINITY and soft < wanted:
        click.echo(f"referee web: the open-file limit is {soft}: the server holds fewer "
                   f"than the {sockets} connections --max-sockets allows (raise it with "
                   "ulimit -n)", err=True)


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port``; one clear error if it cannot be."""
    from referee.core.errors import ConfigError

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ConfigError(f"--host {host}: not an address of this machine ({exc.strerror})"
                          ) from None
    family, kind, proto, _, address = infos[0]
    listener = socket.socket(family, kind, proto)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(address)
    except OSError as exc:
        listener.close()
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    return listener


def needs_extra() -> None:
    """Exit with one line (status 2) if the server's libraries are not installed."""
    import importlib.util

    missing = [name for name in ("starlette", "uvicorn", "sqlalchemy", "alembic", "argon2",
                                 "itsdangerous", "python_multipart")
               if importlib.util.find_spec(name) is None]
    if missing:
        click.echo(f"referee: error: referee web needs {', '.join(missing)}: "
                   "pip install 'referee[web]'", err=True)
        sys.exit(2)


def read_password() -> str:
    """The new password: typed twice without echo on a terminal, else the first line of
    standard input."""
    if sys.stdin.isatty():
        password: str = click.prompt("Password", hide_input=True, confirmation_prompt=True)
        return password
    line = sys.stdin.readline()
    if not line:
        click.echo("referee: error: no password on standard input (give it as its first line)",
                   err=True)
        sys.exit(2)
    return line.rstrip("\r\n")


def add_account(data: Path, db_url: str | None, name: str, admin: bool) -> None:
    """Add the account ``name`` (an admin if ``admin``) with the password read from
    standard input, to the server of ``data``."""
    needs_extra()
    from referee.web.accounts import AccountError, add_user
    from referee.web.config import WebConfig, prepare_folder
    from referee.web.database import session_factory, upgrade

    config = WebConfig(data=data, db_url=db_url)
    try:
        prepare_folder(data)
        engine = upgrade(config.database_url)
    except Exception as exc:
        fail(exc)
    password = read_password()
    try:
        with session_factory(engine)() as session:
            user = add_user(session, name, password, admin=admin)
    except AccountError as exc:
        click.echo(f"referee: error: {exc}", err=True)
        sys.exit(2)
    finally:
        engine.dispose()
    click.echo(f"referee web: {'admin' if user.is_admin else 'user'} {user.name} added")


@web.group("admin")
def admin() -> None:
    """The server's admins (who register programs and manage tables)."""


@admin.command("add")
@click.argument("name")
@data_option
@db_option
def admin_add(name: str, data: Path | None, db_url: str | None) -> None:
    """Add the admin NAME; the password is read from standard input."""
    add_account(_required_data(data), db_url, name, admin=True)


@web.group("user")
def user() -> None:
    """The server's accounts."""


@user.command("add")
@click.argument("name")
@data_option
@db_option
def user_add(name: str, data: Path | None, db_url: str | None) -> None:
    """Add the user NAME; the password is read from standard input."""
    add_account(_required_data(data), db_url, name, admin=False)


def _required_data(data: Path | None) -> Path:
    """``--data``, which the account commands need."""
    if data is None:
        raise click.UsageError("Missing option '--data': the server's folder.")
    return data


@web.group("program")
def program() -> None:
    """The programs registered on the server by its admin: they take seats at tables
    (run by the server in its sandbox, as in tournaments) and play for their owners."""


@program.command("add")
@click.argument("name")
@click.option("--game", required=True, help="The game it plays (gomoku, planowanie...).")
@click.option("--owner", required=True, help="The user it plays for (an account's name).")
@data_option
@db_option
@click.argument("command", nargs=-1, required=True, metavar="-- COMMAND...")
def program_add(name: str, game: str, owner: str, data: Path | None, db_url: str | None,
                command: tuple[str, ...]) -> None:
    """Register the program NAME of GAME for OWNER; COMMAND runs it (relative paths
    made absolute, as a match's players)."""
    import shlex

    needs_extra()
    from referee.core.errors import ConfigError
    from referee.core.players import resolve_player
    from referee.games.registry import table_games
    from referee.web.accounts import find_user
    from referee.web.config import WebConfig, prepare_folder
    from referee.web.database import session_factory, upgrade
    from referee.web.models import Program

    def refuse(text: str) -> None:
        click.echo(f"referee: error: {text}", err=True)
        sys.exit(2)

    if game not in table_games():
        refuse(f"--game {game}: no such game on the server ({', '.join(table_games())})")
    if not (1 <= len(name) <= 80 and all(c.isalnum() or c in "-_." for c in name)):
        refuse(f"program name {name!r}: 1 to 80 letters, digits, '-', '_' or '.'")
    try:
        player = resolve_player(" ".join(shlex.quote(part) for part in command), {})
    except ConfigError as exc:
        refuse(str(exc))
    folder = _required_data(data)
    try:
        prepare_folder(folder)
        engine = upgrade(WebConfig(data=folder, db_url=db_url).database_url)
    except Exception as exc:
        fail(exc)
    try:
        with session_factory(engine).begin() as session:
            user = find_user(session, owner)
            if user is None:
                refuse(f"--owner {owner}: no such user")
            elif session.query(Program).filter(Program.name == name).first() is not None:
                refuse(f"a program {name!r} is already registered")
            else:
                session.add(Program(name=name, game=game, command=list(player.command),
                                    owner_id=user.id))
    finally:
        engine.dispose()
    click.echo(f"referee web: program {name} ({game}) added for {owner}")
