"""Gomoku's commands: ``referee match gomoku``, ``referee replay gomoku``, ``referee export
gomoku`` (``COMMANDS``, found through ``games/registry.py``)."""

from __future__ import annotations

from pathlib import Path

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
from referee.games.gomoku.board import MAX_SIZE, MIN_SIZE
from referee.games.gomoku.defaults import MEMORY_MB, TOLERANCE_MS

__all__ = ["COMMANDS"]

def _ms(value: int) -> float:
    """An old option's milliseconds, in seconds."""
    return value / 1000


@click.command("gomoku")
@click.argument("players", nargs=2, metavar="BRAIN1 BRAIN2")
@click.option("--rule", default="freestyle", show_default=True,
              help="freestyle, exact5, renju, caro or caro5 (or the Gomocup bitmask "
                   "0, 1, 4, 8, 9).")
@click.option("--renju-judge", type=click.Choice(["rif", "gomocup"]), default="rif",
              show_default=True,
              help="Renju threes: RIF's letter, or as GomocupJudge/Piskvork (a straight-four "
                   "point that also makes a five completes no three).")
@click.option("--draw-at-empty", type=opt.Whole(0), default=0, show_default=True,
              help="End a game as a draw when only this many empty points remain "
                   "(GomocupJudge: 25 in renju); 0 = when the board is full.")
@click.option("--size", type=opt.Whole(MIN_SIZE, MAX_SIZE), default=15, show_default=True,
              help="Square board size (5..32).")
@click.option("--width", type=opt.Whole(MIN_SIZE, MAX_SIZE),
              help="Board width for a rectangular board (5..32).")
@click.option("--height", type=opt.Whole(MIN_SIZE, MAX_SIZE),
              help="Board height for a rectangular board (5..32).")
@click.option("--games", type=opt.Whole(1, opt.MAX_GAMES),
              help="Games in the match (colours alternate) [default: 2, or with --openings "
                   "two per opening: every opening with both colours].")
@click.option("--openings", "openings_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Openings file: one per line, stones as x,y offsets from the centre; "
                   "each opening is played with both colours, in file order.")
@click.option("--swap2", is_flag=True, help="Open every game with swap2, played by the brains.")
@opt.move_time_option("5s", "each move (INFO timeout_turn; 0: as fast as it can)",
                      positive=False)
@opt.game_time_option("0", "a whole game (INFO timeout_match)")
@opt.tolerance_option(f"{TOLERANCE_MS}ms", legacy="ms")
@opt.startup_option(what="answer START/RESTART and ABOUT", legacy="ms")
@opt.memory_option(f"{MEMORY_MB}M")
@opt.seed_option("the match (it seeds the built-in brains)")
@opt.records_out_options("records and logs", "referee-out/match-<time>")
@click.option("--folder", type=click.Path(file_okay=False, path_type=Path),
              help="Folder for brains' persistent files (INFO folder).")
@click.option("--no-psq", is_flag=True, help="Do not write Piskvork .psq files.")
@opt.sandbox_options("on, as Piskvork and GomocupJudge")
@opt.json_option
@opt.renamed("--timeout-turn", "move_time", "--move-time", type=int, convert=_ms)
@opt.renamed("--timeout-match", "game_time", "--game-time", type=int, convert=_ms)
def match_gomoku(players: tuple[str, str], rule: str, renju_judge: str, draw_at_empty: int,
                 size: int, width: int | None, height: int | None, games: int | None,
                 openings_file: Path | None, swap2: bool, move_time: float, game_time: float,
                 tolerance: float, startup: float, memory: int, seed: int | None,
                 out_dir: Path | None, overwrite: bool, folder: Path | None, no_psq: bool,
                 sandbox: SandboxConfig, json_mode: bool) -> None:
    """Play a Gomoku match between two Gomocup brains.

    BRAIN1 and BRAIN2 are built-in brains (random, threat) or command lines, e.g.
    "./pbrain-foo" or "python3 my_brain.py". Records (JSON and .psq) and each brain's
    stderr log go to the output folder.
    """
    from referee.core.clock import time_control
    from referee.games.gomoku.adapter import GomokuAdapter
    from referee.games.gomoku.board import Rule
    from referee.games.gomoku.match import BUILTIN_BRAINS, GomokuMatch, GomokuSettings
    from referee.games.gomoku.openings import coverage, read_openings
    from referee.games.gomoku.renju import RenjuJudge

    console = support.human_console(json_mode)
    try:
        try:
            parsed_rule = Rule.parse(rule)
        except ValueError as exc:
            raise ConfigError(f"--rule: {exc}") from None
        specs = support.runnable_players(players, BUILTIN_BRAINS)
        openings = read_openings(openings_file) if openings_file else []
        if games is None:
            games = 2 * len(openings) if openings else 2
        out, sandbox, sandbox_line = support.confine(
            sandbox, out_dir, "match", suspend_default=True, overwrite=overwrite)
        settings = GomokuSettings(
            width=width or size, height=height or width or size, rule=parsed_rule,
            time=time_control(turn=move_time, game=game_time, tolerance=tolerance,
                              startup=startup),
            memory_limit=memory or None, games=games, openings=openings, swap2=swap2,
            seed=support.seed_or_random(seed), folder=folder.resolve() if folder else None,
            psq=not no_psq, renju_judge=RenjuJudge.parse(renju_judge),
            draw_at_empty=draw_at_empty, sandbox=sandbox)
        console.print(f"Judged: {settings.judged()}", markup=False)
        if openings:
            console.print(f"Openings ({openings_file}): {coverage(len(openings), games)}",
                          markup=False)
        records = support.play_games(
            console, f"Gomoku {settings.rule.value} {settings.width}x{settings.height}, "
            f"{games} game(s)", specs, settings.seed, games,
            lambda done: GomokuMatch(specs, settings, out, on_game=done).run().records,
            sandbox_line)
    except BaseException as exc:
        support.fail(exc, "the finished games are in the output folder")
    support.finish_match(console, "gomoku", out, settings.seed, specs, records,
                         GomokuAdapter.scores_are_points, json_mode)


@click.command("gomoku")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--rule", default="freestyle", show_default=True,
              help="The rule of .psq files (they do not say it): as for match.")
@click.option("--renju-judge", type=click.Choice(["rif", "gomocup"]), default="rif",
              show_default=True, help="The renju judge of .psq files.")
@opt.json_option
def replay_gomoku(files: tuple[Path, ...], rule: str, renju_judge: str,
                  json_mode: bool) -> None:
    """Replay Gomoku games through the engine and check them.

    FILES are the referee's records (.json: every move legal and by the seat to play, the
    illegal one illegal, the result the engine's) or Piskvork .psq files (every stone on
    an empty point, no forbidden point for black in renju, nothing after a five), or
    folders: a match's (its records and .psq files, each game once), a tournament's (or
    its tournament.sqlite: every game of its store); or a tournament's records.jsonl. One
    OK or FAIL line per game; the exit status is 1 if any fails.
    """
    from referee.cli.replay_sources import GameChecks, check_games
    from referee.games.gomoku.board import Rule
    from referee.games.gomoku.check import check_file, check_record
    from referee.games.gomoku.renju import RenjuJudge

    try:
        parsed = Rule.parse(rule)
    except ValueError as exc:
        support.fail(ConfigError(f"--rule: {exc}"))
    judge = RenjuJudge.parse(renju_judge)
    verdicts = check_games(files, GameChecks(
        lambda paths: check_files(paths, lambda path: check_file(path, parsed, judge)),
        check_record, lambda path: path.suffix.lower() == ".psq"))
    support.report_checks(verdicts, json_mode)


@click.command("gomoku")
@click.argument("records", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--psq", "to_psq", is_flag=True, default=True,
              help="Write Piskvork .psq files (the one format so far; the default).")
@click.option("-o", "--output", type=click.Path(path_type=Path),
              help="Where to write: a file (one record) or a folder [default: beside each "
                   "record, with .psq].")
def export_gomoku(records: tuple[Path, ...], to_psq: bool, output: Path | None) -> None:
    """Export Gomoku game records (JSON) as Piskvork .psq files; prints each file
    written."""
    from referee.core.record import GameRecord
    from referee.games.gomoku.psq import write_psq

    try:
        if output is not None and len(records) > 1 and not output.is_dir():
            raise ConfigError(f"-o {output}: give a folder to export {len(records)} records")
        for record_file in records:
            record = GameRecord.read(record_file)
            target = record_file.with_suffix(".psq")
            if output is not None:
                target = output / target.name if output.is_dir() else output
            click.echo(str(write_psq(record, target)))
    except BaseException as exc:
        support.fail(exc)


@click.command("gomoku")
@opt.policy_options
@click.option("--renju-judge", type=click.Choice(["rif", "gomocup"]), default="rif",
              show_default=True, help="How the mask judges black's forbidden points in renju.")
def bot_gomoku(policy: str, paths: tuple[Path, ...], name: str | None,
               renju_judge: str) -> None:
    """Run a Python policy as a Gomocup brain on standard input and output (needs the
    envs extra: pip install 'referee[envs]').

    The policy is called with what the Gomoku environment observes
    (referee.envs.make("gomoku"): a dict of "observation" and "action_mask") and returns
    the action number y * width + x. Put it in a match as any brain (a player's command
    that starts with referee runs this referee, on PATH or not):

    \b
      referee match gomoku "referee bot gomoku --policy my_agent:policy --path . \\
        --name mine" threat
    """

    def play(loaded: Policy) -> int:
        from referee.games.gomoku.bots.brain import brain_main, format_about
        from referee.games.gomoku.policy_bot import PolicyStrategy
        from referee.games.gomoku.renju import RenjuJudge

        strategy = PolicyStrategy(loaded, RenjuJudge.parse(renju_judge))
        return brain_main(strategy, format_about(name or policy, "1"))

    run_policy_bot("gomoku", policy, paths, play)

COMMANDS: dict[str, click.Command] = {"match": match_gomoku, "replay": replay_gomoku,
                                      "export": export_gomoku, "bot": bot_gomoku,
                                      "dataset": dataset_command("gomoku"),
                                      "connect": connect_command("gomoku")}
"""Gomoku's commands by verb."""
