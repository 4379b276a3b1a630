"""The command line, ``referee VERB GAME ...`` and the commands across games.

Each game owns its commands (``games/<game>/cli.py``, listed in ``games/registry.py``);
this module only assembles them under their verbs (``match``, ``replay``...) beside the
commands that span games (``tournament``, ``ratings``, ``report``, ``shuffle``, and ``web``,
the game server; Riichi's ``annotate4rl`` comes through the registry), and keeps the
spellings of earlier releases working, hidden, for one release. The options every game
shares are in ``cli/options.py``.
"""

from __future__ import annotations

import click

from referee import __version__
from referee.cli.data_commands import shuffle
from referee.cli.groups import VERBS, GameVerbGroup, RefereeGroup, deprecated_alias
from referee.cli.support import configure_logging, fail
from referee.cli.tournament_commands import ratings, report, tournament
from referee.games.registry import game_command
from referee.web.cli import web

__all__ = ["fail", "main"]


@click.group(cls=RefereeGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="referee")
@click.option("-v", "--verbose", count=True, help="More log output on stderr (-vv: debug).")
def main(verbose: int) -> None:
    """Run game-playing programs against each other: start them, tell them the game,
    enforce the rules and the clocks, record every game.

    Start with `referee match gomoku threat random`; `referee VERB GAME --help` tells
    the options of one game's command.
    """
    configure_logging(verbose)


for _verb in VERBS:
    main.add_command(GameVerbGroup(_verb))
for _command in (tournament, ratings, report, shuffle, web):
    main.add_command(_command)


def _old(name: str, new: str, game: str, verb: str) -> click.Command:
    """The command ``referee VERB GAME`` under the name an earlier release gave it."""
    return deprecated_alias(name, new, game_command(game, verb))


class _OldGroup(click.Group):
    """``referee mahjong serve|connect`` of earlier releases: hidden, loaded when used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return ["connect", "serve"]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in ("connect", "serve"):
            return None
        return _old(f"mahjong {cmd_name}", f"{cmd_name} mahjong", "mahjong", cmd_name)


class _OldCommand(click.Command):
    """A command of an earlier release (``psq``, ``gohr``, ``gohr-server``): hidden, its
    options those of its new spelling, which is loaded only when it is used."""

    def __init__(self, name: str, new: str, game: str, verb: str) -> None:
        super().__init__(name, hidden=True, add_help_option=False,
                         context_settings={"ignore_unknown_options": True,
                                           "allow_extra_args": True})
        self.target = (new, game, verb)

    def invoke(self, ctx: click.Context) -> object:
        new, game, verb = self.target
        command = _old(self.name or "", new, game, verb)
        return command.main(ctx.args, prog_name=f"referee {self.name}",
                            standalone_mode=False)


main.add_command(_OldGroup("mahjong", hidden=True))
main.add_command(_OldCommand("psq", "export gomoku", "gomoku", "export"))
main.add_command(_OldCommand("gohr", "play gohr", "gohr", "play"))
main.add_command(_OldCommand("gohr-server", "serve gohr", "gohr", "serve"))
