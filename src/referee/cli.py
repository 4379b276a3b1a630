"""The command line: ``referee <command> ...`` (thin: parses options, calls the library)."""

from __future__ import annotations

import datetime as dt
import logging
import os
import random
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from referee import __version__
from referee.core.errors import ConfigError, RefereeError
from referee.core.players import PlayerSpec, check_runnable, resolve_players
from referee.core.record import GameRecord
from referee.output import GameProgress, make_console, results_table

if TYPE_CHECKING:
    from referee.training.corpus import AnnotateSummary

log = logging.getLogger("referee")


def fail(exc: BaseException, interrupted: str = "") -> NoReturn:
    """End a command on an exception: a ``RefereeError`` is one clear line and exit
    status 2, Ctrl-C (or SIGTERM) exit status 130; anything else goes on up."""
    if isinstance(exc, RefereeError):
        click.echo(f"referee: error: {exc}", err=True)
        sys.exit(2)
    if isinstance(exc, KeyboardInterrupt):
        click.echo("referee: interrupted" + (f"; {interrupted}" if interrupted else ""),
                   err=True)
        sys.exit(130)
    raise exc


def _default_out(kind: str) -> Path:
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path("referee-out") / f"{kind}-{stamp}"


def _runnable_players(texts: Sequence[str], builtins: Mapping[str, str]) -> list[PlayerSpec]:
    """The players named on the command line, each checked to be a program that can run."""
    specs = resolve_players(texts, builtins)
    for spec in specs:
        check_runnable(spec)
    return specs


def _scores_are_points(game: str) -> bool:
    """Whether ``game``'s scores are its own points (for the match summary's points)."""
    from referee.games.registry import game_adapters

    return game_adapters()[game].scores_are_points


def _seed_or_random(seed: int | None) -> int:
    """The seed given, or a fresh random one (the match records whichever it plays)."""
    return seed if seed is not None else random.SystemRandom().randrange(2**31)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="referee")
@click.option("-v", "--verbose", count=True, help="More log output on stderr (-vv: debug).")
def main(verbose: int) -> None:
    """Run game-playing programs against each other: start them, tell them the game,
    enforce the rules and the clocks, record every game.

    Start with `referee match gomoku threat random`.
    """
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


@main.group()
def match() -> None:
    """Play one match (one or more games) between programs."""


@match.command("gomoku")
@click.argument("players", nargs=2, metavar="BRAIN1 BRAIN2")
@click.option("--rule", default="freestyle", show_default=True,
              help="freestyle, exact5, renju, caro or caro5 (or the Gomocup bitmask "
                   "0, 1, 4, 8, 9).")
@click.option("--renju-judge", type=click.Choice(["rif", "gomocup"]), default="rif",
              show_default=True,
              help="Renju threes: RIF's letter, or as GomocupJudge/Piskvork (a straight-four "
                   "point that also makes a five completes no three).")
@click.option("--draw-at-empty", type=int, default=0, show_default=True,
              help="End a game as a draw when only this many empty points remain "
                   "(GomocupJudge: 25 in renju); 0 = when the board is full.")
@click.option("--size", type=int, default=15, show_default=True, help="Square board size (5..32).")
@click.option("--width", type=int, help="Board width for a rectangular board (5..32).")
@click.option("--height", type=int, help="Board height for a rectangular board (5..32).")
@click.option("--games", type=int,
              help="Games in the match (colours alternate) [default: 2, or with --openings "
                   "two per opening: every opening with both colours].")
@click.option("--openings", "openings_file", type=click.Path(dir_okay=False, path_type=Path),
              help="Openings file: one per line, stones as x,y offsets from the centre; "
                   "each opening is played with both colours, in file order.")
@click.option("--swap2", is_flag=True, help="Open every game with swap2, played by the brains.")
@click.option("--timeout-turn", type=int, default=5000, show_default=True,
              help="Milliseconds per move (INFO timeout_turn).")
@click.option("--timeout-match", type=int, default=0, show_default=True,
              help="Milliseconds per game per brain, 0 = no limit (INFO timeout_match).")
@click.option("--tolerance", type=int, default=500, show_default=True,
              help="Milliseconds of grace before a late brain is forfeited.")
@click.option("--startup", type=int, default=30000, show_default=True,
              help="Milliseconds a brain may take to start (START/RESTART).")
@click.option("--memory", type=int, default=0, show_default=True,
              help="Memory limit per brain in MB (its whole process tree), 0 = none.")
@click.option("--seed", type=int, help="Seed for the match (default: random, recorded).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder for records and logs [default: referee-out/match-<time>].")
@click.option("--folder", type=click.Path(file_okay=False, path_type=Path),
              help="Folder for brains' persistent files (INFO folder).")
@click.option("--no-psq", is_flag=True, help="Do not write Piskvork .psq files.")
def match_gomoku(players: tuple[str, str], rule: str, renju_judge: str, draw_at_empty: int,
                 size: int, width: int | None,
                 height: int | None, games: int | None, openings_file: Path | None, swap2: bool,
                 timeout_turn: int, timeout_match: int, tolerance: int, startup: int,
                 memory: int, seed: int | None, out_dir: Path | None, folder: Path | None,
                 no_psq: bool) -> None:
    """Play a Gomoku match between two Gomocup brains.

    BRAIN1 and BRAIN2 are built-in brains (random, threat) or command lines, e.g.
    "./pbrain-foo" or "python3 my_brain.py". Records (JSON and .psq) and each brain's
    stderr log go to the output folder.
    """
    from referee.games.gomoku.board import Rule
    from referee.games.gomoku.match import BUILTIN_BRAINS, GomokuMatch, GomokuSettings
    from referee.games.gomoku.openings import coverage, read_openings
    from referee.games.gomoku.renju import RenjuJudge

    console = make_console()
    try:
        try:
            parsed_rule = Rule.parse(rule)
        except ValueError as exc:
            raise ConfigError(f"--rule: {exc}") from None
        for name, value in (("--timeout-turn", timeout_turn), ("--timeout-match", timeout_match),
                            ("--tolerance", tolerance), ("--memory", memory),
                            ("--draw-at-empty", draw_at_empty)):
            if value < 0:
                raise ConfigError(f"{name} must not be negative, got {value}")
        if startup <= 0:
            raise ConfigError(f"--startup must be positive, got {startup}")
        specs = _runnable_players(players, BUILTIN_BRAINS)
        openings = read_openings(openings_file) if openings_file else []
        if games is None:
            games = 2 * len(openings) if openings else 2
        settings = GomokuSettings.from_options(
            size=size, width=width, height=height, timeout_turn=timeout_turn,
            timeout_match=timeout_match, tolerance=tolerance, startup=startup, memory=memory,
            rule=parsed_rule, renju_judge=RenjuJudge.parse(renju_judge),
            draw_at_empty=draw_at_empty,
            games=games,
            openings=openings,
            swap2=swap2,
            seed=_seed_or_random(seed),
            folder=folder.resolve() if folder else None,
            psq=not no_psq,
        )
        out = (out_dir or _default_out("match")).resolve()
        console.print(
            f"Gomoku {settings.rule.value} {settings.width}x{settings.height}, "
            f"{games} game(s): {specs[0].name} vs {specs[1].name}, seed {settings.seed}",
            markup=False,
        )
        console.print(f"Judged: {settings.judged()}", markup=False)
        if openings:
            console.print(f"Openings ({openings_file}): {coverage(len(openings), games)}",
                          markup=False)
        with GameProgress(console, games) as progress:
            result = GomokuMatch(specs, settings, out, on_game=progress.game_done).run()
    except BaseException as exc:
        fail(exc, "the finished games are in the output folder")
    console.print(results_table(specs, result.records))
    console.print(f"Records: {out}")


@match.command("planowanie")
@click.argument("players", nargs=-1, required=True, metavar="PLAYER1 PLAYER2 [PLAYER3 [PLAYER4]]")
@click.option("--games", type=int, help="Games to play; seats rotate each game "
              "[default: one per player, every player once in every seat].")
@click.option("--values", default="23456789TJQKA", show_default=True,
              help="Card values, lowest first (set_deck).")
@click.option("--suits", default="CDHS", show_default=True,
              help="Suits; the first is trumps (set_deck).")
@click.option("--deals", help="The deals as set_game's arguments, 'd c1 s1 ... cd sd' "
              "[default: 13 deals of 1..13 cards, the starter moving one seat each deal].")
@click.option("--time", "time_ms", type=int, default=180000, show_default=True,
              help="Milliseconds per player for the whole game (time_left), 0 = no limit.")
@click.option("--tolerance", type=int, default=500, show_default=True,
              help="Milliseconds of grace before a late player is forfeited.")
@click.option("--startup", type=int, default=30000, show_default=True,
              help="Milliseconds a player may take to start and take the configuration.")
@click.option("--memory", type=int, default=400, show_default=True,
              help="Memory limit per player in MB (its whole process tree), 0 = none.")
@click.option("--quit", "quit_at_end", is_flag=True,
              help="End the programs with quit after each game instead of killing them.")
@click.option("--seed", type=int, help="Seed of the deals (default: random, recorded).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder for records and logs [default: referee-out/match-<time>].")
def match_planowanie(players: tuple[str, ...], games: int | None, values: str, suits: str,
                     deals: str | None, time_ms: int, tolerance: int, startup: int,
                     memory: int, quit_at_end: bool, seed: int | None,
                     out_dir: Path | None) -> None:
    """Play Planowanie (the ITPW card game) between 2 to 4 player programs.

    Each PLAYER is a built-in player (random, heuristic) or a command line, e.g.
    "./my-player" or "python3 player.py". Every game starts the programs afresh; the
    seats rotate from game to game, and each full rotation plays the same deals. Records
    (JSON) and each program's stderr log go to the output folder.
    """
    from referee.games.planowanie.match import BUILTIN_PLAYERS, PlanowanieSettings, run_match

    console = make_console()
    try:
        if not 2 <= len(players) <= 4:
            raise ConfigError(f"planowanie needs 2 to 4 players, got {len(players)}")
        for name, value in (("--time", time_ms), ("--tolerance", tolerance),
                            ("--memory", memory)):
            if value < 0:
                raise ConfigError(f"{name} must not be negative, got {value}")
        if startup <= 0:
            raise ConfigError(f"--startup must be positive, got {startup}")
        count = len(players) if games is None else games
        if count < 1:
            raise ConfigError(f"--games must be at least 1, got {count}")
        specs = _runnable_players(players, BUILTIN_PLAYERS)
        try:
            settings = PlanowanieSettings.from_options(
                values=values, suits=suits, players=len(specs), deals=deals, time=time_ms,
                tolerance=tolerance, startup=startup, memory=memory, quit_at_end=quit_at_end)
        except ConfigError as exc:
            raise ConfigError(f"--values/--suits/--deals: {exc}") from None
        chosen = _seed_or_random(seed)
        out = (out_dir or _default_out("match")).resolve()
        console.print(f"Planowanie, {len(settings.rules.deals)} deals, deck "
                      f"{values}/{suits} ({suits[0]} trumps), {count} game(s): "
                      f"{', '.join(s.name for s in specs)}, seed {chosen}")
        with GameProgress(console, count) as progress:
            records = run_match(specs, settings, chosen, count, out, on_game=progress.game_done)
    except BaseException as exc:
        fail(exc, "the finished games are in the output folder")
    console.print(results_table(specs, records, _scores_are_points("planowanie")))
    console.print(f"Records: {out}")


def _mahjong_framework_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options where ICGA Mahjong can leave the framework's letter (both modes)."""
    command = click.option(
        "--takeover", type=click.Choice(["hand", "game"]), default="hand", show_default=True,
        help="How long the dummy AI plays for a faulty AI: the rest of the hand (the "
             "framework) or of the game.")(command)
    return click.option(
        "--kong-from-previous", is_flag=True,
        help="Allow a melded kong on the previous player's discard (the framework forbids "
             "it).")(command)


MAHJONG_SCORINGS = ["icga", "taiwan"]
"""The tai tables by name (``scoring.PRESETS``; a test keeps the two lists equal)."""
MAHJONG_SCORING_HELP = ("The tai table: icga (the referee's own) or taiwan (a common "
                        "Taiwanese table as open_mahjong_unity scores it, with the "
                        "eight-flower wins); docs/mahjong.md compares them.")


@match.command("mahjong")
@click.argument("players", nargs=4, required=True, metavar="AI1 AI2 AI3 AI4")
@click.option("--hands", type=int, default=16, show_default=True,
              help="Hands in a game (16: four wind rounds).")
@click.option("--reserve", type=int, default=16, show_default=True,
              help="Tiles left in the wall when a hand is drawn.")
@click.option("--rotations", type=click.IntRange(1, 4), default=1, show_default=True,
              help="Duplicate play: games on the same walls, seats rotating each game.")
@click.option("--base", type=click.IntRange(min=0), default=100, show_default=True,
              help="Points paid for a win before the tai.")
@click.option("--per-tai", type=click.IntRange(min=0), default=20, show_default=True,
              help="Points paid per tai.")
@click.option("--scoring", type=click.Choice(MAHJONG_SCORINGS), default="icga",
              show_default=True, help=MAHJONG_SCORING_HELP)
@click.option("--move-time", type=float, default=10.0, show_default=True,
              help="Seconds an AI has for each answer.")
@click.option("--seed", type=int, help="Seed of the walls (default: random, recorded).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder for records and logs [default: referee-out/match-<time>].")
@_mahjong_framework_options
@click.option("--start-path", type=click.Choice(["program", "command"]), default="program",
              show_default=True,
              help="What /start names as the AI's path: its program (the framework's "
                   "AIPath) or its whole command line.")
def match_mahjong(players: tuple[str, ...], hands: int, reserve: int, rotations: int,
                  base: int, per_tai: int, scoring: str, move_time: float, seed: int | None,
                  out_dir: Path | None, kong_from_previous: bool, takeover: str,
                  start_path: str) -> None:
    """Play ICGA (Taiwanese 16-tile) Mahjong between four AI programs (local mode).

    Each AI is a built-in one (random, greedy) or a command line. The referee starts the
    four programs for every hand and speaks the ICGA protocol with them on their standard
    input and output. An AI that answers wrongly or late gets /exit and the dummy AI plays
    its seat for the rest of the hand (the record says when, and counts it as a fault).
    """
    from referee.games.mahjong.match import BUILTIN_PLAYERS, MahjongSettings, run_match
    from referee.games.mahjong.rules import Rules
    from referee.games.mahjong.scoring import Stakes, preset

    console = make_console()
    try:
        if move_time <= 0:
            raise ConfigError(f"--move-time must be positive, got {move_time}")
        rules = Rules(hands=hands, reserve=reserve, table=preset(scoring),
                      stakes=Stakes(base, per_tai), kong_from_previous=kong_from_previous)
        specs = _runnable_players(players, BUILTIN_PLAYERS)
        chosen = _seed_or_random(seed)
        settings = MahjongSettings(rules, chosen, move_time, takeover=takeover,
                                   start_path=start_path)
        out = (out_dir or _default_out("match")).resolve()
        console.print(f"ICGA Mahjong, {hands} hand(s), {scoring} tai table, "
                      f"{rotations} seat rotation(s): "
                      f"{', '.join(s.name for s in specs)}, seed {chosen}")
        with GameProgress(console, rotations) as progress:
            records = run_match(specs, settings, rotations, out, on_game=progress.game_done)
    except BaseException as exc:
        fail(exc, "the finished games are in the output folder")
    console.print(results_table(specs, records, _scores_are_points("mahjong")))
    takeovers = [(r.index, n.seat, n.text) for r in records for n in r.notes
                 if n.kind == "takeover-at"]
    for game, seat, text in takeovers:
        console.print(f"game {game}, seat {seat + 1}: {text}")
    console.print(f"Records: {out}")


@match.command("riichi")
@click.argument("players", nargs=4, required=True, metavar="BOT1 BOT2 BOT3 BOT4")
@click.option("--game", "game_length", type=click.Choice(["east", "south"]), default="south",
              show_default=True, help="East-only game (tonpuusen) or east-south (hanchan).")
@click.option("--room", type=click.Choice(["tenhou", "mahjong_soul", "mjai_app"]),
              default="tenhou", show_default=True,
              help="Whose rules: a ranked room's or the mjai.app simulator's (docs/riichi.md).")
@click.option("--seed", type=int, help="Seed of the walls (default: random, recorded).")
@click.option("--rotations", type=click.IntRange(1, 4), default=1, show_default=True,
              help="Duplicate play: games on the same walls, seats rotating each game.")
@click.option("--decision-time", type=float, default=5.0, show_default=True,
              help="Seconds a bot has for each answer.")
@click.option("--max-failures", type=click.IntRange(min=1), default=5, show_default=True,
              help="Failures (bad, illegal or late answers) before a bot forfeits.")
@click.option("--batched", type=click.IntRange(1, 4), multiple=True, metavar="N",
              help="Bot N (1..4, repeatable) speaks the mjai.app batched style.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder for records and logs [default: referee-out/match-<time>].")
def match_riichi(players: tuple[str, ...], game_length: str, room: str, seed: int | None,
                 rotations: int, decision_time: float, max_failures: int,
                 batched: tuple[int, ...], out_dir: Path | None) -> None:
    """Play Riichi mahjong (Tenhou's or Mahjong Soul's rules) between four mjai bots.

    Each BOT is a built-in one (tsumogiri, greedy) or a command line. Every bot runs as
    one process for the game and gets the mjai events (masked for its seat) on its
    standard input. A bad, illegal or late answer is replaced by the safe default and
    counted; after --max-failures, or a crash, the bot forfeits and the safe default
    plays its seat. Records (JSON) and mjai logs (.mjson.gz) go to the output folder.
    """
    from referee.games.riichi.adapter import room_rules
    from referee.games.riichi.match import BUILTIN_PLAYERS, RiichiMatchSettings, run_match

    console = make_console()
    try:
        if decision_time <= 0:
            raise ConfigError(f"--decision-time must be positive, got {decision_time}")
        specs = _runnable_players(players, BUILTIN_PLAYERS)
        chosen = _seed_or_random(seed)
        settings = RiichiMatchSettings(
            room_rules(room, game_length), chosen, decision_time,
            tuple(s + 1 in batched for s in range(4)), max_failures)
        out = (out_dir or _default_out("match")).resolve()
        console.print(f"Riichi mahjong, {room} rules, {game_length} game, "
                      f"{rotations} seat rotation(s): "
                      f"{', '.join(s.name for s in specs)}, seed {chosen}")
        with GameProgress(console, rotations) as progress:
            records = run_match(specs, settings, rotations, out, on_game=progress.game_done)
    except BaseException as exc:
        fail(exc, "the finished games are in the output folder")
    console.print(results_table(specs, records, _scores_are_points("riichi")))
    for record in records:
        for note in record.notes:
            if note.kind in ("failure", "forfeit"):
                console.print(f"game {record.index}, seat {note.seat + 1} "
                              f"({record.players[note.seat].name}): {note.kind}: {note.text}")
    console.print(f"Records: {out}")


@main.group("replay")
def replay_group() -> None:
    """Check recorded games by replaying them through the rules engines."""


class _RuleSet(click.ParamType[str, object]):
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


def _log_rules_options(command: Callable[..., None]) -> Callable[..., None]:
    """``--room`` and ``--game``: the rules Riichi logs were played under."""
    command = click.option(
        "--game", "game_length", type=click.Choice(["east", "south"]),
        help="The game length, replacing that of the rules [default: the rules']."
    )(command)
    return click.option(
        "--room", "rule_set", type=_RuleSet(), default="auto", show_default=True,
        help="The rules the logs were played under: tenhou, mahjong_soul, mjai_app, or a "
             "rules file (.toml or .json); auto: those the log records (our logs, mjlog, "
             "Tenhou JSON), else Tenhou's with the length guessed."
    )(command)


@replay_group.command("riichi")
@click.argument("files", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_log_rules_options
def replay_riichi(files: tuple[Path, ...], rule_set: str, game_length: str | None) -> None:
    """Replay Riichi logs through the rules engine and check them.

    FILES are mjai logs (JSON lines), Tenhou mjlog XML or Tenhou JSON (tenhou.net/6, one
    object or one kyoku a line), plain or gzipped, told apart by their content. Every
    action must be legal when taken and every event, score change, win's value and yaku,
    and final result must be the engine's: one OK or FAIL line per file (a FAIL names the
    event, the log's version and the engine's); the exit status is 1 if any file fails.
    """
    from referee.games.riichi.replay import check_logs
    from referee.games.riichi.rulesets import resolve_rules

    rules = None if rule_set == "auto" else resolve_rules(rule_set)
    lines = check_logs(files, rules, game_length)
    for line in lines:
        click.echo(line)
    if any(line.startswith("FAIL") for line in lines):
        raise SystemExit(1)


@main.group("console")
def console_group() -> None:
    """Talk to one game program by hand: a debug console, like ITPW's testing applet."""


@console_group.command("planowanie")
@click.argument("player", metavar="PLAYER")
@click.option("--values", default="23456789TJQKA", show_default=True,
              help="Card values, lowest first (set_deck).")
@click.option("--suits", default="CDHS", show_default=True,
              help="Suits; the first is trumps (set_deck).")
@click.option("--players", type=int, default=4, show_default=True,
              help="Players at the table, 2..4 (set_players).")
@click.option("--seat", type=int, default=0, show_default=True,
              help="The program's seat, 0-based (set_players).")
@click.option("--deals", help="The deals as set_game's arguments, 'd c1 s1 ... cd sd' "
              "[default: 13 deals of 1..13 cards, the starter moving one seat each deal].")
@click.option("--opponents", type=click.Choice(["random", "heuristic"]), default="random",
              show_default=True, help="The built-in strategy playing the other seats.")
@click.option("--timeout", type=int, default=10000, show_default=True,
              help="Milliseconds to wait for each answer.")
@click.option("--time", "time_ms", type=int, default=180000, show_default=True,
              help="Milliseconds of game time told with time_left (not enforced).")
@click.option("--seed", type=int, help="Seed of the deals and the opponents (default: random).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the program's work folder and stderr log "
                   "[default: referee-out/console-<time>].")
def console_planowanie(player: str, values: str, suits: str, players: int, seat: int,
                       deals: str | None, opponents: str, timeout: int, time_ms: int,
                       seed: int | None, out_dir: Path | None) -> None:
    """Start a Planowanie PLAYER and talk to it (type :help for the commands).

    PLAYER is a built-in player (random, heuristic) or a command line. Any line typed is
    sent to the program and its answer shown; :new, :step and :auto run a game the
    console referees (the other seats played by --opponents), :declare and :play act by
    hand, :state shows the game, :quit sends quit and lets the program exit.
    """
    from referee.games.planowanie.console import ConsoleConfig, ConsoleSession
    from referee.games.planowanie.match import BUILTIN_PLAYERS, PlanowanieSettings

    try:
        spec = _runnable_players([player], BUILTIN_PLAYERS)[0]
        try:
            rules = PlanowanieSettings.from_options(values=values, suits=suits,
                                                    players=players, deals=deals).rules
        except ConfigError as exc:
            raise ConfigError(f"--values/--suits/--players/--deals: {exc}") from None
        try:
            config = ConsoleConfig(
                rules, seat=seat, opponents=opponents, timeout_ms=timeout, time_ms=time_ms,
                seed=_seed_or_random(seed))
        except ConfigError as exc:
            raise ConfigError(f"--seat/--timeout/--time: {exc}") from None
        out = (out_dir or _default_out("console")).resolve()
        session = ConsoleSession(spec, out, config, stdin=sys.stdin, stdout=sys.stdout,
                                 prompt="planowanie> " if sys.stdin.isatty() else "")
        code = session.run()
    except BaseException as exc:
        fail(exc)
    if code:
        sys.exit(code)


@main.command("gohr", context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED, metavar="[key=value...] RULES BOARD...")
def gohr(args: tuple[str, ...]) -> None:
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


@main.command("gohr-server")
@click.option("--port", type=int, required=True,
              help="TCP port to listen on (0: any free port, printed at start).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind (another than 127.0.0.1 opens it to the network).")
@click.option("--data", "data_dir", type=click.Path(file_okay=False, path_type=Path),
              default=".", show_default=True,
              help="Data folder: every file a client names must be inside it.")
@click.option("--idle", type=float, default=600.0, show_default=True,
              help="Seconds of silence before a session is closed.")
@click.option("--max-sessions", type=int, default=64, show_default=True,
              help="Sessions at once, all workers together; more clients are told so and "
                   "closed.")
@click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1,
              show_default="the number of cores",
              help="Worker processes sharing the sessions (1: serve in this process).")
def gohr_server(port: int, host: str, data_dir: Path, idle: float, max_sessions: int,
                workers: int) -> None:
    """The socket-based captive game server: each connection is a session that starts
    with GAME <arguments of referee gohr>. Stop it with Ctrl-C or SIGTERM."""
    from referee.games.gohr.socket_server import CaptiveSocketServer, ServerConfig, serve

    try:
        server = CaptiveSocketServer((host, port), ServerConfig(data_dir, idle, max_sessions))
    except (OSError, RefereeError) as exc:
        fail(ConfigError(f"cannot serve on {host}:{port}: {exc}"))

    def started(pids: list[int]) -> None:
        click.echo(f"GOHR captive server on {host}:{server.server_address[1]}, data "
                   f"{server.config.data}, {len(pids)} worker process"
                   f"{'es' if len(pids) > 1 else ''}", err=True)

    try:
        serve(server, workers, started)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    click.echo("referee: server stopped", err=True)


@main.command("tournament")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-j", "--concurrency", type=int,
              help="Games at once (default: the file's value, else cores - 1, at least 1).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder (default: the file's output, else referee-out/<name>).")
@click.option("--ray", "ray_address",
              help="Run the games on a Ray cluster: an address, or 'local' for a local one "
                   "(needs pip install 'referee[ray]').")
def tournament(file: Path, concurrency: int | None, out_dir: Path | None,
               ray_address: str | None) -> None:
    """Run (or resume) the tournament described by a TOML FILE.

    Every game and result goes to tournament.sqlite in the output folder, records to
    records.jsonl beside it. Interrupted (Ctrl-C, a crash, kill -9)? Run the same command
    again: it continues where it stopped, without losing or repeating a game.
    """
    from referee.tournament.session import run_tournament

    console = make_console()
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        run_tournament(file, console, concurrency=concurrency, out_dir=out_dir,
                       ray_address=ray_address)
    except BaseException as exc:
        fail(exc, "run the same command again to resume")
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM ends a tournament as Ctrl-C does (bots killed, finished games kept)."""
    raise KeyboardInterrupt


@main.command("ratings")
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...",
                type=click.Path(path_type=Path))
@click.option("--preset", type=click.Choice(["gomocup", "bayeselo", "itpw"]),
              help="BayesElo settings: gomocup (advantage 0, drawelo 0.01), bayeselo "
                   "(advantage 32.8, drawelo 97.3, prior 2) or itpw (bayeselo with "
                   "advantage 0) [default: a store's own settings, else bayeselo].")
@click.option("--advantage", type=float, help="Elo advantage of the first player (White).")
@click.option("--drawelo", type=float, help="Draw Elo (> 0).")
@click.option("--prior", type=float, help="Virtual draws of the prior (>= 0).")
@click.option("--offset", type=float, help="Added to every rating.")
@click.option("--confidence", type=float, help="Confidence of the intervals (default 0.95).")
@click.option("--los", "show_los", is_flag=True, help="Also print the LOS matrix.")
@click.option("--los-layout", type=click.Choice(["readable", "bayeselo"]), default="readable",
              show_default=True,
              help="readable: columns headed by rank, cells separated by |; bayeselo: "
                   "exactly as BayesElo 0057's los command prints it.")
@click.option("--min-games", type=int, default=1, show_default=True,
              help="List only players with at least this many games.")
@click.option("--pgn", "pgn_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write every result as PGN to this file (for BayesElo, Ordo...).")
def ratings(sources: tuple[Path, ...], preset: str | None, advantage: float | None,
            drawelo: float | None, prior: float | None, offset: float | None,
            confidence: float | None, show_los: bool, los_layout: str, min_games: int,
            pgn_out: Path | None) -> None:
    """BayesElo ratings of the results in tournament stores and PGN files.

    Each SOURCE is a tournament's output folder (or its tournament.sqlite) or a PGN
    file; results of all of them are rated together. In PGN, White is the player who
    moved first (the side of the advantage). Prints BayesElo's rating list.
    """
    from referee.tournament.pgn import write_pgn_results
    from referee.tournament.ratings import BayesEloParams, ResultTable, rate
    from referee.tournament.sources import ResultSource, all_results

    try:
        found = [ResultSource(path) for path in sources]
        for source in found:
            source.check()
        base = None if preset else next((p for s in found if (p := s.params())), None)
        try:
            params = (base or BayesEloParams.preset(preset or "bayeselo")).changed(
                advantage=advantage, drawelo=drawelo, prior=prior, offset=offset,
                confidence=confidence)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        table = ResultTable.from_results(all_results(found))
        if pgn_out is not None:
            count = write_pgn_results(pgn_out, all_results(found), event="referee ratings")
            click.echo(f"wrote {count} results to {pgn_out}", err=True)
        if len(table.players) < 2:
            raise ConfigError("no results to rate (need games between two players)")
        result = rate(table, params)
    except BaseException as exc:
        fail(exc)
    click.echo(f"{table.games} games, {len(table.players)} players; advantage "
               f"{params.advantage:g}, drawelo {params.drawelo:g}, prior {params.prior:g}, "
               f"offset {params.offset:g}" + ("" if result.connected else
                                              "; WARNING: players fall into separate groups "
                                              "that never met, ratings across them are not "
                                              "comparable"))
    click.echo(result.table(min_games), nl=False)
    if show_los:
        click.echo()
        click.echo(result.los_table(layout=los_layout), nl=False)


@main.command("report")
@click.argument("store", type=click.Path(path_type=Path))
@click.option("-o", "--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the site [default: STORE/report].")
def report(store: Path, out_dir: Path | None) -> None:
    """Write the results site of a tournament store (its folder or tournament.sqlite).

    Static HTML, no server needed: standings with BayesElo ratings, crosstable, a page
    per player and per game (with a board replay), and the rating history.
    """
    from referee.tournament.report import build_site

    folder = store.parent if store.suffix == ".sqlite" else store
    try:
        index = build_site(store, out_dir or folder / "report")
    except BaseException as exc:
        fail(exc)
    click.echo(str(index))


@main.command("psq")
@click.argument("record_file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Where to write (default: beside the record, with .psq).")
def psq(record_file: Path, output: Path | None) -> None:
    """Export a Gomoku game record (JSON) as a Piskvork .psq file."""
    from referee.games.gomoku.psq import write_psq

    try:
        record = GameRecord.read(record_file)
        path = write_psq(record, output or record_file.with_suffix(".psq"))
    except BaseException as exc:
        fail(exc)
    click.echo(str(path))


def _output_option(what: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """``-o/--output``: a data file written whole, compressed as its name says."""
    return click.option("-o", "--output", required=True,
                        type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
                        help=f"The {what} file: gzip if it ends in .gz, bz2 if .bz2, "
                             "- for stdout.")


class _Size(click.ParamType[int, object]):
    """A size in bytes such as 1G, 256M or 500K (units of 1024), at least the shuffle's
    smallest memory budget."""

    name = "size"

    def convert(self, value: object, param: click.Parameter | None,
                ctx: click.Context | None) -> int:
        """The number of bytes, or a usage error naming the option."""
        from referee.training.shuffle import MIN_MEMORY, parse_size

        if isinstance(value, int):
            return value
        try:
            size = parse_size(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
        if size < MIN_MEMORY:
            self.fail(f"{value!r} is too small (at least {MIN_MEMORY // 1024}K)", param, ctx)
        return size


@main.command("shuffle")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...",
                type=click.Path(exists=True, dir_okay=False, allow_dash=True, path_type=Path))
@_output_option("shuffled")
@click.option("--memory", type=_Size(), default="256M", show_default=True,
              help="Memory for lines (K, M, G: units of 1024).")
@click.option("--seed", type=click.IntRange(min=0),
              help="Seed of the order (default: random, printed).")
@click.option("--temp-dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Folder for the temporary files, about the input's size "
                   "[default: the output's folder].")
def shuffle(inputs: tuple[Path, ...], output: Path, memory: int, seed: int | None,
            temp_dir: Path | None) -> None:
    """Shuffle the lines of INPUT files (plain, gzip or bz2; - for stdin) into one OUTPUT,
    even when they are much larger than memory (external shuffle).

    Every order of the lines is equally likely; the same inputs, --seed and --memory give
    the same output. Lines are kept byte for byte. A one-line summary goes to stderr.
    """
    import time

    from referee.training.shuffle import shuffle_lines

    previous = signal.signal(signal.SIGTERM, _interrupt)
    start = time.perf_counter()
    try:
        try:
            result = shuffle_lines(inputs, output, memory=memory, seed=seed,
                                   temp_dir=temp_dir)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    except BaseException as exc:
        fail(exc, "no output written, temporary files removed")
    finally:
        signal.signal(signal.SIGTERM, previous)
    seconds = time.perf_counter() - start
    click.echo(f"shuffled {result.lines} lines ({result.bytes / 1e6:.1f} MB) from "
               f"{len(inputs)} file{'s' if len(inputs) > 1 else ''} into {output} in "
               f"{seconds:.1f} s: {result.buckets} temporary buckets, seed {result.seed}",
               err=True)


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


def _annotation_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options shared by the commands that write annotations."""
    options: list[Callable[[Callable[..., None]], Callable[..., None]]] = [
        _output_option("annotation"),
        click.option("--ms-room", help="Mahjong Soul room feature for every game: 0-4 or "
                     "bronze, silver, gold, jade, throne [default: from the log, else gold]."),
        click.option("--grade", help="Grade feature 0-15: one for all, or four by seat "
                     "[default: from the log (Tenhou dan), else 6, Expert 1]."),
        click.option("--kanachan-exact/--no-kanachan-exact", default=True,
                     show_default=True,
                     help="Write the decision points as kanachan's annotate does (every "
                          "chance a claim pre-empted, as a skip; one line per winner; ...), "
                          "or only the choices the log shows (docs/training.md)."),
        click.option("-j", "--jobs", type=click.IntRange(min=1), default=1,
                     show_default=True, help="Processes (or Ray CPUs) working at once."),
        click.option("--ray", metavar="ADDRESS",
                     help="Run on Ray: local (a private cluster) or a cluster's address."),
    ]
    for option in reversed(options):
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


@main.group("annotate")
def annotate_group() -> None:
    """Turn games into training data: kanachan's behavioral-cloning annotations."""


@annotate_group.command("riichi")
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
        fail(exc, "no output written")
    files = len(summary.skipped) + summary.games
    _report_annotation(summary, output, time.perf_counter() - start,
                       f"from {files} file{'s' if files != 1 else ''}")


@main.command("annotate4rl")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...",
                type=click.Path(exists=True, dir_okay=False, allow_dash=True, path_type=Path))
@_output_option("offline-RL")
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
@click.option("--seed", type=click.IntRange(min=0),
              help="Seed of the --td-aware order (default: random).")
@click.option("--temp-dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Folder for --td-aware's temporary files [default: the output's].")
def annotate4rl_command(inputs: tuple[Path, ...], output: Path, filter_by_room: str,
                        filter_by_grade: str | None, td_aware: bool, curriculum: bool,
                        seed: int | None, temp_dir: Path | None) -> None:
    """Turn annotations into the offline-RL format: (s, a, s') and (s, a, o) lines.

    INPUT files are `referee annotate` output, not shuffled (the lines of a game
    together, in order). Each decision point with a later one of the same player in the
    game gives a 9-field line; each player's last point in a game a 7-field line with its
    final rank and points. As kanachan's annotate4rl does, only the points of the Gold
    room and above are kept unless --filter-by-room says otherwise. Shuffle the result
    (`referee shuffle`) before training.
    """
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
        fail(exc, "no output written")
    left_out = (f"; {result.filtered} below the room or grade filter left out"
                if result.filtered else "")
    click.echo(f"{result.games} games, {result.points} decision points: "
               f"{result.transitions} (s, a, s') and {result.terminals} (s, a, o) lines "
               f"into {output}{left_out}", err=True)


@main.group("selfplay")
def selfplay_group() -> None:
    """Play games of built-in bots and write their training data in one go."""


@selfplay_group.command("riichi")
@click.option("--games", type=click.IntRange(min=1), required=True,
              help="Games to play.")
@click.option("--seed", type=click.IntRange(min=0),
              help="Seed of the first game; game i is seeded SEED+i (default: random, "
                   "printed).")
@click.option("--players", default="greedy,greedy,greedy,greedy", show_default=True,
              help="Four built-in bots by seat: greedy, tsumogiri.")
@click.option("--room", type=_RuleSet(auto=False), default="tenhou", show_default=True,
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

    first = _seed_or_random(seed)
    context = context_for(Overrides(room=_ms_room(ms_room), grades=_grades(grade),
                                    kanachan_exact=kanachan_exact))
    start = time.perf_counter()
    try:
        summary = selfplay(games, output, seed=first,
                           players=[p.strip() for p in players.split(",")], room=room,
                           length=game_length, records=records, context=context, jobs=jobs,
                           ray=ray)
    except BaseException as exc:
        fail(exc, "no output written")
    _report_annotation(summary, output, time.perf_counter() - start,
                       f"of self-play (seeds {first}..{first + games - 1})")


@main.group("mahjong")
def mahjong_group() -> None:
    """ICGA Mahjong in network mode: a referee server, and the wrappers that log in to
    it for a seat each and run an AI program (or let a person play)."""


@mahjong_group.command("serve")
@click.option("--port", type=click.IntRange(0, 65535), required=True,
              help="TCP port to listen on (0: any free port, printed at start).")
@click.option("--seed", type=int, required=True,
              help="Seed of the walls (the same seed deals the same hands).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind (another than 127.0.0.1 opens it to the network).")
@click.option("--hands", type=int, default=16, show_default=True,
              help="Hands in the game (16: four wind rounds).")
@click.option("--reserve", type=int, default=16, show_default=True,
              help="Tiles left in the wall when a hand is drawn.")
@click.option("--scoring", type=click.Choice(MAHJONG_SCORINGS), default="icga",
              show_default=True, help=MAHJONG_SCORING_HELP)
@click.option("--move-time", type=float, default=10.0, show_default=True,
              help="Seconds a client has for each answer (then the dummy AI takes its seat).")
@click.option("--login-time", type=float, default=30.0, show_default=True,
              help="Seconds a connection has to log in before it is dropped.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder for the record [default: referee-out/mahjong-<time>].")
@_mahjong_framework_options
def mahjong_serve(port: int, seed: int, host: str, hands: int, reserve: int, scoring: str,
                  move_time: float, login_time: float, out_dir: Path | None,
                  kong_from_previous: bool, takeover: str) -> None:
    """Run the referee server: wait for four clients to log in (one per seat, with
    `referee mahjong connect`), play the game with them, write the record, stop.

    A client logs in with the line "/login <id> <account>" (id 1..4) and is answered
    /ok or "/refused <reason>". Two clients with the same account or seat are both
    refused. A client that faults or disconnects is replaced by the dummy AI.
    """
    from referee.core.players import PlayerSpec
    from referee.games.mahjong.match import MahjongSettings
    from referee.games.mahjong.rules import Rules
    from referee.games.mahjong.scoring import preset
    from referee.games.mahjong.server import MahjongServer, ServerConfig

    console = make_console()
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        settings = MahjongSettings(
            Rules(hands=hands, reserve=reserve, table=preset(scoring),
                  kong_from_previous=kong_from_previous), seed, move_time, takeover=takeover)
        out = (out_dir or _default_out("mahjong")).resolve()
        server = MahjongServer(ServerConfig(settings, out, host, port, login_time),
                               announce=lambda text: click.echo(f"referee: {text}", err=True))
        bound_host, bound_port = server.address
        click.echo(f"ICGA Mahjong server on {bound_host}:{bound_port}", err=True)
        record, path = server.serve()
    except BaseException as exc:
        fail(exc)
    finally:
        signal.signal(signal.SIGTERM, previous)
    players = [PlayerSpec(p.name, list(p.command)) for p in record.players]
    console.print(results_table(players, [record], _scores_are_points("mahjong")))
    for note in record.notes:
        if note.kind == "takeover-at":
            console.print(f"seat {note.seat + 1}: {note.text}")
    console.print(f"Record: {path}")


@mahjong_group.command("connect", context_settings={"allow_interspersed_args": False})
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The referee server's address.")
@click.option("--port", type=click.IntRange(1, 65535), required=True,
              help="The referee server's port.")
@click.option("--id", "seat", type=click.IntRange(1, 4), required=True,
              help="The client id: the seat at the table, 1..4.")
@click.option("--account",
              help="The account to log in with [default: the AI program's name and the id; "
                   "human-<id> with --human].")
@click.option("--human", is_flag=True,
              help="Play yourself on this console instead of running an AI program (the "
                   "server's --move-time is your time per answer).")
@click.argument("command", nargs=-1, type=click.UNPROCESSED, metavar="-- AI-COMMAND...")
def mahjong_connect(host: str, port: int, seat: int, account: str | None, human: bool,
                    command: tuple[str, ...]) -> None:
    """Log in to a referee server for one seat and play its hands: start AI-COMMAND for
    every hand and relay the server's lines to it and its answers back (the ICGA
    wrapper). AI-COMMAND is a built-in AI (random, greedy) or a command line.

    Ends with status 0 when the server closes the connection, 1 if the login is refused.
    """
    from referee.core.players import resolve_player
    from referee.games.mahjong.human import HumanConsole, HumanLeft
    from referee.games.mahjong.match import BUILTIN_PLAYERS
    from referee.games.mahjong.wrapper import (
        LoginRefused,
        ServerLink,
        Wrapper,
        default_account,
    )

    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        if human and command:
            raise ConfigError("give either --human or an AI command, not both")
        argv: list[str] = []
        console: HumanConsole | None = None
        if human:
            console = HumanConsole(sys.stdin, sys.stdout)
            name = account or f"human-{seat}"
        elif not command:
            raise ConfigError("give the AI's command after -- (or a built-in AI: "
                              f"{', '.join(BUILTIN_PLAYERS)}), or --human")
        elif len(command) == 1:
            spec = resolve_player(command[0], BUILTIN_PLAYERS)
            argv = spec.command
            name = account or (f"{spec.name}-{seat}" if spec.builtin
                               else default_account(argv, seat))
        else:
            argv = list(command)
            name = account or default_account(argv, seat)
        wrapper = Wrapper(ServerLink(host, port), seat, name, argv, console,
                          notify=lambda text: click.echo(f"referee: {text}", err=True))
        wrapper.run()
    except LoginRefused as exc:
        click.echo(f"referee: refused by the server: {exc}", err=True)
        sys.exit(1)
    except HumanLeft:
        click.echo("referee: the input ended: leaving the table", err=True)
    except BaseException as exc:
        fail(exc)
    finally:
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    main()
