"""The shape of the command line: verbs whose subcommands are the games that have them,
and a top-level help that lists the games, the verbs and the commands across games.

``referee match gomoku ...``: ``match`` is a :class:`GameVerbGroup`; it asks the registry
which games have a ``match`` and imports a game's commands only when one is run (or its
help shown). Old spellings stay callable for one release as hidden commands that warn.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import click

from referee.cli.support import warn
from referee.games.registry import GAMES, game_command, top_level_command

__all__ = ["VERBS", "GameVerbGroup", "RefereeGroup", "deprecated_alias"]

VERBS: dict[str, str] = {
    "match": "Play a match (one or more games) between programs.",
    "replay": "Check recorded games by replaying them through the rules engine.",
    "export": "Write recorded games in other formats.",
    "console": "Talk to one game program by hand: a debug console.",
    "serve": "Run a game's server for clients on the network.",
    "connect": "Join a game's server or a web table's seat: a wrapper that runs one program "
               "for one seat.",
    "play": "Run a game on standard input and output, for a person or a program.",
    "annotate": "Turn game logs into training data.",
    "selfplay": "Play games of built-in bots and write their training data in one go.",
    "bot": "Run a Python policy (as for the game's environment) as a bot program "
           "(needs the envs extra: pip install 'referee[envs]').",
    "dataset": "Turn games into training data: a row per decision, in Parquet (needs the "
               "data extra: pip install 'referee[data]').",
}
"""Every verb a game may have, with what it does (and the extra it needs beyond the base
install), in the order the help lists them."""

ACROSS_GAMES = ("tournament", "ratings", "report", "shuffle", "annotate4rl", "web")
"""The commands that need no game named, listed under their own heading (``annotate4rl``
is Riichi's, found through the registry; ``web`` is the game server of every game)."""


class GameVerbGroup(click.Group):
    """A verb (``match``, ``replay``...): one subcommand per game that has it."""

    def __init__(self, verb: str) -> None:
        super().__init__(name=verb, help=VERBS[verb], no_args_is_help=True)
        self.verb = verb

    def list_commands(self, ctx: click.Context) -> list[str]:
        """The games with this verb, in the registry's order."""
        return [g.name for g in GAMES if self.verb in g.verbs]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The game's command for this verb (its module imported now)."""
        command = game_command(cmd_name, self.verb)
        return command if isinstance(command, click.Command) else None


class RefereeGroup(click.Group):
    """The top-level group: its help lists the games and what each has, the verbs, and
    the commands across games; hidden commands (old spellings) are left out. A game's
    stand-alone commands (the registry's ``top_level``) are found when used."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        """Run the command line; standing alone, a usage mistake is one line too
        (``referee: error: Invalid value for '--games': ... (see referee match gomoku
        --help)``, exit status 2), as every other error is (``support.fail``)."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except click.UsageError as exc:
            where = f" (see {exc.ctx.command_path} --help)" if exc.ctx is not None else ""
            click.echo(f"referee: error: {exc.format_message().rstrip('.')}{where}", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            click.echo(f"referee: error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("referee: interrupted", err=True)
            sys.exit(130)
        sys.exit(code if isinstance(code, int) else 0)

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Its own commands and the games' stand-alone ones."""
        return sorted({*super().list_commands(ctx), *(n for g in GAMES for n in g.top_level)})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """A command of its own, else a game's stand-alone command (imported now)."""
        command = super().get_command(ctx, cmd_name)
        if command is None:
            found = top_level_command(cmd_name)
            command = found if isinstance(found, click.Command) else None
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The three lists of ``referee --help``."""
        width = formatter.width or 80
        with formatter.section("Games (referee VERB GAME ...)"):
            formatter.write_dl([(g.name, f"{g.summary[:1].upper()}{g.summary[1:]}; "
                                         f"{', '.join(g.verbs)}") for g in GAMES])
        rows = []
        for verb in VERBS:
            games = [g.name for g in GAMES if verb in g.verbs]
            if games and verb in self.commands:
                rows.append((verb, f"{VERBS[verb]} [{', '.join(games)}]"))
        with formatter.section("Verbs"):
            formatter.write_dl(rows)
        across = []
        for name in ACROSS_GAMES:
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                across.append((name, command.get_short_help_str(width)))
        with formatter.section("Across games"):
            formatter.write_dl(across)


def deprecated_alias(name: str, new: str, command: click.Command) -> click.Command:
    """``command`` under its old ``name``, hidden from the help, warning that ``new`` is
    its spelling now (``referee psq`` for ``referee export gomoku``)."""
    callback = command.callback
    assert callback is not None

    def warned(*args: Any, **kwargs: Any) -> Any:
        warn(f"'referee {name}' is deprecated and will be removed: use 'referee {new}'")
        return callback(*args, **kwargs)

    return click.Command(name, context_settings=command.context_settings, callback=warned,
                         params=command.params, help=command.help, hidden=True,
                         add_help_option=command.add_help_option)
