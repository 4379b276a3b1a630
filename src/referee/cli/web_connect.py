"""``referee connect GAME URL --seat N -- COMMAND`` for every game a web table plays:
the command each game's CLI lists under ``connect`` (``web.connect_client`` does it)."""

from __future__ import annotations

import click

from referee.cli import options as opt
from referee.cli.support import fail
from referee.core.errors import ConfigError

__all__ = ["connect_command", "run_connect"]


def run_connect(url: str, seat: int, command: tuple[str, ...], name: str | None) -> None:
    """Play the seat with the command, saying how it ended; a refusal is exit status 2."""
    from referee.core.players import resolve_player
    from referee.web.connect_client import connect_program

    try:
        if not command:
            raise ConfigError("no program: give its command after --")
        player = resolve_player(" ".join(_quoted(part) for part in command), {})
        ended = connect_program(url, seat, player.command, name or player.name,
                                lambda text: click.echo(f"referee: {text}", err=True))
        if ended.startswith("refused: "):
            raise ConfigError(f"the server {ended}")
    except BaseException as exc:
        fail(exc)
    click.echo(f"referee: the seat's game is over ({ended})", err=True)


def _quoted(part: str) -> str:
    import shlex

    return shlex.quote(part)


def connect_command(game: str) -> click.Command:
    """The ``connect`` command of ``game``."""

    @click.command(game, context_settings={"ignore_unknown_options": False})
    @click.argument("url")
    @click.option("--seat", type=opt.Whole(1, 8), required=True,
                  help="The seat to play, from 1 (as the table's page numbers them).")
    @click.option("--name", help="The program's name at the table [default: its file's].")
    @click.argument("command", nargs=-1, required=True, metavar="-- COMMAND...")
    def command_(url: str, seat: int, name: str | None, command: tuple[str, ...]) -> None:
        """Play a seat of a web table with a program run here: URL is the table's address
        with its join secret, as its page shows it; the program speaks the game's own
        protocol, as in a match."""
        run_connect(url, seat, command, name)

    command_.help = (f"Play a seat of a {game} web table (referee web) with a program run "
                     "here, in the game's own protocol. URL: the table's address with the "
                     "seat's join secret, as the table's page shows it.")
    return command_
