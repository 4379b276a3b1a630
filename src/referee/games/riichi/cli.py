"""Riichi's commands: ``referee match riichi`` (mjai bots), ``referee replay riichi`` (any
log), ``referee annotate riichi``, ``referee selfplay riichi`` and ``referee annotate4rl``
(kanachan's training data), ``referee bot riichi`` (a Python policy as an mjai bot) and
``referee dataset riichi`` (the environment's decisions as Parquet), ``referee connect
riichi URL`` (an mjai bot plays a web table's seat); ``COMMANDS``, found through
``games/registry.py``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from referee.cli import options as opt
from referee.cli import support
from referee.cli.data_commands import dataset_command
from referee.cli.policy_bots import run_policy_bot
from referee.cli.web_connect import connect_command
from referee.core.policy import Policy
from referee.core.sandbox import SandboxConfig
from referee.games.riichi.defaults import MEMORY_MB

if TYPE_CHECKING:
    from referee.core.record import GameRecord
    from referee.training.corpus import AnnotateSummary

__all__ = ["COMMANDS"]

F = TypeVar("F", bound=Callable[..., object])


class RuleSet(click.ParamType[str, object]):
    """A rule set's name (``tenhou``, ``mahjong_soul``, ``mjai_app``), a rules file (TOML
    or JSON, see docs/riichi.md) or, when ``auto`` allows it, ``auto``; checked at once."""

    name = "RULES"

    def __init__(self, auto: bool = True) -> None:
        self.auto = auto

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        """The value, or a usage error naming the option."""
        from referee.games.riichi.rulesets import RulesError, resolve_rules

        text = str(value)
        if text != "auto" or not self.auto:
            try:
                resolve_rules(text)
            except RulesError as exc:
                self.fail(str(exc), param, ctx)
        return text


def _log_rules_options(command: F) -> F:
    """``--room`` and ``--game``: the rules Riichi logs were played under."""
    command = click.option(
        "--game", "game_length", type=click.Choice(["east", "south"]),
        help="The game length, replacing that of the rules [default: the rules']."
    )(command)
    return click.option(
        "--room", "rule_set", type=RuleSet(), default="auto", show_default=True,
        help="The rules the logs were played under: tenhou, mahjong_soul, mjai_app, or a "
             "rules file (.toml or .json); auto: those the log records (our logs, mjlog, "
             "Tenhou JSON), else Tenhou's with the length guessed."
    )(command)


@click.command("riichi")
@click.argument("players", nargs=4, required=True, metavar="BOT1 BOT2 BOT3 BOT4")
@click.option("--game", "game_length", type=click.Choice(["east", "south"]), default="south",
              show_default=True, help="East-only game (tonpuusen) or east-south (hanchan).")
@click.option("--room", type=click.Choice(["tenhou", "mahjong_soul", "mjai_app"]),
              default="tenhou", show_default=True,
              help="Whose rules: a ranked room's or the mjai.app simulator's (docs/riichi.md).")
@opt.seed_option("the walls")
@click.option("--rotations", type=opt.Whole(1, 4), default=1, show_default=True,
              help="Duplicate play: games on the same walls, seats rotating each game.")
@opt.move_time_option("5s", "each decision")
@opt.memory_option(f"{MEMORY_MB}M")
@click.option("--max-failures", type=opt.Whole(1), default=5, show_default=True,
              help="Failures (bad, illegal or late answers) before a bot forfeits.")
@click.option("--batched", type=opt.Whole(1, 4), multiple=True, metavar="N",
              help="Bot N (1..4, repeatable) speaks the mjai.app batched style.")
@opt.records_out_options("records and logs", "referee-out/match-<time>")
@opt.sandbox_options("on")
@opt.json_option
@opt.renamed("--decision-time", "move_time", "--move-time",
             type=opt.Number(above=0))
def match_riichi(players: tuple[str, ...], game_length: str, room: str, seed: int | None,
                 rotations: int, move_time: float, memory: int, max_failures: int,
                 batched: tuple[int, ...], out_dir: Path | None, overwrite: bool,
                 sandbox: SandboxConfig,
                 json_mode: bool) -> None:
    """Play Riichi mahjong (Tenhou's or Mahjong Soul's rules) between four mjai bots.

    Each BOT is a built-in one (tsumogiri, greedy) or a command line ({seat} in it becomes
    the seat the bot plays). Every bot runs as one process for the game and gets the mjai
    events (masked for its seat) on its standard input. A bad, illegal or late answer is
    replaced by the safe default and counted; after --max-failures, or a crash, the bot
    forfeits and the safe default plays its seat. Records (JSON) and mjai logs
    (.mjson.gz) go to the output folder.
    """
    from referee.games.riichi.adapter import RiichiAdapter, room_rules
    from referee.games.riichi.match import BUILTIN_PLAYERS, RiichiMatchSettings, run_match

    console = support.human_console(json_mode)
    try:
        specs = support.runnable_players(players, BUILTIN_PLAYERS)
        chosen = support.seed_or_random(seed)
        out, sandbox, sandbox_line = support.confine(
            sandbox, out_dir, "match", suspend_default=True, overwrite=overwrite)
        settings = RiichiMatchSettings(
            room_rules(room, game_length), chosen, move_time,
            tuple(s + 1 in batched for s in range(4)), max_failures, sandbox=sandbox,
            memory_limit=memory or None)
        records = support.play_games(
            console, f"Riichi mahjong, {room} rules, {game_length} game, {rotations} seat "
            "rotation(s)", specs, chosen, rotations,
            lambda done: run_match(specs, settings, rotations, out, on_game=done),
            sandbox_line)
    except BaseException as exc:
        support.fail(exc, "the finished games are in the output folder")
    support.finish_match(console, "riichi", out, chosen, specs, records,
                         RiichiAdapter.scores_are_points, json_mode, ("failure", "forfeit"))


@click.command("riichi")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@_log_rules_options
@opt.json_option
def replay_riichi(files: tuple[Path, ...], rule_set: str, game_length: str | None,
                  json_mode: bool) -> None:
    """Replay Riichi logs through the rules engine and check them.

    FILES are mjai logs (JSON lines), Tenhou mjlog XML or Tenhou JSON (tenhou.net/6, one
    object or one kyoku a line), plain or gzipped, told apart by their content. Every
    action must be legal when taken and every event, score change, win's value and yaku,
    and final result must be the engine's: one OK or FAIL line per file (a FAIL names the
    event, the log's version and the engine's); the exit status is 1 if any file fails.
    FILES may also be folders: a match's (its records, through their logs), a
    tournament's (or its tournament.sqlite: every game of its store), any other (its
    logs); or a tournament's records.jsonl: one line per game.
    """
    from referee.cli.replay_sources import GameChecks, check_games
    from referee.games.riichi.replay import check_logs
    from referee.games.riichi.rulesets import resolve_rules

    rules = None if rule_set == "auto" else resolve_rules(rule_set)
    support.report_checks(check_games(files, GameChecks(
        lambda paths: check_logs(paths, rules, game_length), _check_record, _is_log)),
        json_mode)


def _is_log(path: Path) -> bool:
    """Whether a file found in a folder is a Riichi log: mjai (``.mjson``, ``.jsonl``),
    mjlog, or Tenhou JSON (a ``.json`` holding a log), plain or gzipped."""
    from referee.games.riichi.replay import is_tenhou_json

    name = path.name.lower().removesuffix(".gz")
    if name.endswith((".mjson", ".mjlog", ".jsonl")):
        return True
    return name.endswith(".json") and is_tenhou_json(path)


def _check_record(record: GameRecord) -> str:
    """A tournament's record replayed through the engine as datasets replay it (every
    answer in its place, the results the record's)."""
    from referee.games.riichi.data import RiichiData

    if record.game != "riichi":
        raise ValueError(f"a {record.game} record, not a riichi one")
    decisions = sum(1 for _ in RiichiData().decisions(record))
    return (f"{len(record.moves)} moves, {decisions} decisions, results "
            f"{record.result_text()}")


_MS_ROOMS = {"bronze": 0, "silver": 1, "gold": 2, "jade": 3, "throne": 4}


def _ms_room(value: str | None) -> int | None:
    """A Mahjong Soul room 0..4 or its name (bronze .. throne); a usage error otherwise."""
    if value is None:
        return None
    room = _MS_ROOMS.get(value.lower())
    if room is None and value.isdigit() and int(value) <= 4:
        room = int(value)
    if room is None:
        raise click.BadParameter(f"{value!r} is not a room 0..4 or one of "
                                 f"{', '.join(_MS_ROOMS)}", param_hint="'--ms-room'")
    return room


def _grades(value: str | None) -> tuple[int, ...] | None:
    """One grade 0..15 for all four players, or four comma-separated (by seat)."""
    if value is None:
        return None
    parts = value.split(",")
    if len(parts) not in (1, 4) or not all(p.strip().isdigit() and int(p) <= 15
                                           for p in parts):
        raise click.BadParameter(f"{value!r} is not one grade 0..15 or four separated "
                                 "by commas", param_hint="'--grade'")
    grades = tuple(int(p) for p in parts)
    return grades * 4 if len(grades) == 1 else grades


def _annotation_options(command: F) -> F:
    """The options shared by the commands that write annotations."""
    for option in reversed([
        opt.output_file_option("annotation"),
        click.option("--ms-room", help="Mahjong Soul room feature for every game: 0-4 or "
                     "bronze, silver, gold, jade, throne [default: from the log, else gold]."),
        click.option("--grade", help="Grade feature 0-15: one for all, or four by seat "
                     "[default: from the log (Tenhou dan), else 6, Expert 1]."),
        click.option("--kanachan-exact/--no-kanachan-exact", default=True,
                     show_default=True,
                     help="Write the decision points as kanachan's annotate does (every "
                          "chance a claim pre-empted, as a skip; one line per winner; ...), "
                          "or only the choices the log shows (docs/training.md)."),
        opt.jobs_option("Processes (or Ray CPUs) working at once."),
        click.option("--ray", metavar="ADDRESS",
                     help="Run on Ray: local (a private cluster) or a cluster's address."),
    ]):
        command = option(command)
    return command


def _report_annotation(summary: AnnotateSummary, output: Path, seconds: float,
                       what: str) -> None:
    """The summary line of an annotation command (stderr); exit 1 if a game was skipped."""
    for label, reason in summary.skipped:
        click.echo(f"skipped {reason if reason.startswith(label) else f'{label}: {reason}'}",
                   err=True)
    rate = summary.points / seconds if seconds > 0 else 0.0
    click.echo(f"annotated {summary.games} game{'s' if summary.games != 1 else ''} "
               f"({summary.points} decision points) {what} into {output} in {seconds:.1f} s "
               f"({rate:.0f} points/s)"
               + (f"; {len(summary.skipped)} skipped" if summary.skipped else ""), err=True)
    if summary.skipped:
        raise SystemExit(1)


@click.command("riichi")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...",
                type=click.Path(exists=True, path_type=Path))
@_annotation_options
@_log_rules_options
def annotate_riichi(inputs: tuple[Path, ...], output: Path, ms_room: str | None,
                    grade: str | None, kanachan_exact: bool, jobs: int, ray: str | None,
                    rule_set: str, game_length: str | None) -> None:
    """Annotate Riichi games: one line per decision point, in kanachan's format.

    INPUT files are game logs (our mjai records, Mortal/mjai logs, Tenhou mjlog XML or
    Tenhou JSON, plain or gzip), one game each; folders are searched recursively. Each
    game is replayed through the rules engine first (--room and --game as for `referee
    replay riichi`). A file that is not a whole, valid game is skipped with its reason
    (exit status 1; the other games are written).
    """
    import time

    from referee.games.riichi.kanachan.logs import Overrides, annotate_logs

    overrides = Overrides(room=_ms_room(ms_room), grades=_grades(grade),
                          rules=None if rule_set == "auto" else rule_set,
                          game_length=game_length, kanachan_exact=kanachan_exact)
    start = time.perf_counter()
    try:
        summary = annotate_logs(inputs, output, overrides, jobs=jobs, ray=ray)
    except BaseException as exc:
        support.fail(exc, "no output written")
    files = len(summary.skipped) + summary.games
    _report_annotation(summary, output, time.perf_counter() - start,
                       f"from {files} file{'s' if files != 1 else ''}")


@click.command("riichi")
@click.option("--games", type=opt.Whole(1, opt.MAX_GAMES), required=True,
              help="Games to play.")
@click.option("--seed", type=opt.Whole(0),
              help="Seed of the first game; game i is seeded SEED+i (default: random, "
                   "printed).")
@click.option("--players", default="greedy,greedy,greedy,greedy", show_default=True,
              help="Four built-in bots by seat: greedy, tsumogiri.")
@click.option("--room", type=RuleSet(auto=False), default="tenhou", show_default=True,
              help="The rules played: tenhou, mahjong_soul, mjai_app or a rules file.")
@click.option("--game", "game_length", type=click.Choice(["east", "south"]),
              help="The game length [default: the rules', south for the rule sets].")
@click.option("--records", type=click.Path(file_okay=False, path_type=Path),
              help="Also keep each game's mjai log in this folder.")
@_annotation_options
def selfplay_riichi(games: int, seed: int | None, players: str, room: str,
                    game_length: str | None, records: Path | None, output: Path,
                    ms_room: str | None, grade: str | None, kanachan_exact: bool, jobs: int,
                    ray: str | None) -> None:
    """Play Riichi games of built-in bots and annotate them (kanachan's format).

    The same --seed, players and rules give the same games and lines, whatever --jobs.
    """
    import time

    from referee.games.riichi.kanachan.logs import Overrides, context_for
    from referee.games.riichi.kanachan.selfplay import selfplay

    first = support.seed_or_random(seed)
    context = context_for(Overrides(room=_ms_room(ms_room), grades=_grades(grade),
                                    kanachan_exact=kanachan_exact))
    start = time.perf_counter()
    try:
        summary = selfplay(games, output, seed=first,
                           players=[p.strip() for p in players.split(",")], room=room,
                           length=game_length, records=records, context=context, jobs=jobs,
                           ray=ray)
    except BaseException as exc:
        support.fail(exc, "no output written")
    _report_annotation(summary, output, time.perf_counter() - start,
                       f"of self-play (seeds {first}..{first + games - 1})")


@click.command("annotate4rl")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...",
                type=click.Path(exists=True, dir_okay=False, allow_dash=True, path_type=Path))
@opt.output_file_option("offline-RL")
@click.option("--filter-by-room", type=click.Choice(["bronze", "silver", "gold", "jade",
                                                     "throne"]),
              default="gold", show_default=True,
              help="Keep the points of this Mahjong Soul room or above (kanachan's filter).")
@click.option("--filter-by-grade", type=click.Choice(["expert1", "expert2", "expert3",
                                                      "master1", "master2", "master3",
                                                      "saint1", "saint2", "saint3",
                                                      "celestial"]),
              help="Keep the points of players of this grade or above [default: all].")
@click.option("--td-aware", is_flag=True,
              help="Each player's lines of a game from its last point to its first, those "
                   "chunks in a random order (kanachan's --td-aware).")
@click.option("--curriculum", is_flag=True,
              help="Lead each line with how many lines of its player's chunk follow it.")
@click.option("--seed", type=opt.Whole(0),
              help="Seed of the --td-aware order (default: random).")
@click.option("--temp-dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Folder for --td-aware's temporary files [default: the output's].")
def annotate4rl_riichi(inputs: tuple[Path, ...], output: Path, filter_by_room: str,
                        filter_by_grade: str | None, td_aware: bool, curriculum: bool,
                        seed: int | None, temp_dir: Path | None) -> None:
    """Turn Riichi annotations into offline-RL lines.

    The lines are (s, a, s') and (s, a, o).

    INPUT files are `referee annotate riichi` output, not shuffled (the lines of a game
    together, in order). Each decision point with a later one of the same player in the
    game gives a 9-field line; each player's last point in a game a 7-field line with its
    final rank and points. As kanachan's annotate4rl does, only the points of the Gold
    room and above are kept unless --filter-by-room says otherwise. Shuffle the result
    (`referee shuffle`) before training.
    """
    from referee.core.errors import ConfigError
    from referee.games.riichi.kanachan.annotate4rl import GRADE_FILTERS, ROOM_FILTERS, annotate4rl

    try:
        try:
            result = annotate4rl(
                inputs, output, min_room=ROOM_FILTERS[filter_by_room],
                min_grade=GRADE_FILTERS[filter_by_grade] if filter_by_grade else 0,
                td_aware=td_aware, curriculum=curriculum, seed=seed, temp_dir=temp_dir)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    except BaseException as exc:
        support.fail(exc, "no output written")
    left_out = (f"; {result.filtered} below the room or grade filter left out"
                if result.filtered else "")
    click.echo(f"{result.games} games, {result.points} decision points: "
               f"{result.transitions} (s, a, s') and {result.terminals} (s, a, o) lines "
               f"into {output}{left_out}", err=True)


@click.command("riichi")
@opt.policy_options
@click.option("--room", type=click.Choice(["tenhou", "mahjong_soul", "mjai_app"]),
              default="tenhou", show_default=True,
              help="The rules when start_game does not tell them (the referee's does).")
@click.option("--game", "game_length", type=click.Choice(["east", "south"]),
              default="south", show_default=True,
              help="The game length when start_game does not tell it.")
def bot_riichi(policy: str, paths: tuple[Path, ...], name: str | None, room: str,
               game_length: str) -> None:
    """Run a Python policy as an mjai bot on standard input and output (needs the envs
    extra: pip install 'referee[envs]').

    The policy is called with what the Riichi environment observes
    (referee.envs.make("riichi"): a dict of "observation" and "action_mask") whenever the
    seat has a decision, and returns an action number (0..546). Put it in a match as any
    bot (a player's command that starts with referee runs this referee, on PATH or not):

    \b
      referee match riichi "referee bot riichi --policy my_agent:policy --path ." \\
        tsumogiri greedy greedy
    """

    def play(loaded: Policy) -> int:
        from referee.games.riichi.policy_bot import run
        from referee.games.riichi.rulesets import preset_rules

        return run(loaded, preset_rules(room, game_length))

    run_policy_bot("riichi", policy, paths, play)

COMMANDS: dict[str, click.Command] = {"match": match_riichi, "replay": replay_riichi,
                                      "annotate": annotate_riichi,
                                      "selfplay": selfplay_riichi,
                                      "annotate4rl": annotate4rl_riichi,
                                      "bot": bot_riichi,
                                      "dataset": dataset_command("riichi"),
                                      "connect": connect_command("riichi")}
"""Riichi's commands by verb (``annotate4rl``: ``referee annotate4rl``, a step of the
training pipeline with no game to name, see the registry's ``top_level``)."""
