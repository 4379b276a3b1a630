"""One run of ``referee tournament FILE``: check everything, play, show standings, rate.

Every check that can fail (the file, the players' programs, the store) runs before the
first game starts, and nothing is written to a store that belongs to another tournament.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import json
import logging
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from referee.core.errors import ConfigError
from referee.core.interrupts import raise_if_asked
from referee.core.open_files import make_room_for
from referee.core.players import PlayerSpec, check_runnable
from referee.core.sandbox import SandboxLevel, plan_sandbox
from referee.core.standings import Units, meanings, ratings_legend, standings_legend
from referee.games.registry import game_adapters
from referee.output import GameProgress
from referee.tournament.config import Tournament, load_tournament
from referee.tournament.report import build_site
from referee.tournament.report.refresh import site_refresher
from referee.tournament.results import (
    final_table,
    pairwise,
    rate_results,
    ratings_table,
    standings,
    standings_table,
    write_results_pgn,
)
from referee.tournament.runner import Progress, TournamentRunner, bots_at_once
from referee.tournament.slow_steps import Say, quiet, slow_step
from referee.tournament.store import Store, store_error_text

if TYPE_CHECKING:
    from referee.tournament.ray_runner import RayPlayer

log = logging.getLogger(__name__)


def prepare(file: Path, out_dir: Path | None = None, workers: int | None = None,
            sandbox: SandboxLevel | None = None, say: Say = quiet) -> tuple[Tournament, Store]:
    """Load and check the tournament and open its store (no game is played).

    In order: the file, the players' programs (and the referee's limit on open files,
    raised for the games it plays at once), the store (one of another tournament is
    refused before anything is written, one another referee runs is refused: a store
    has one writer at a time), then every player is started once and set up as for a
    game. Each step reports every problem it finds in one ``ConfigError``.
    ``sandbox`` overrides the file's sandbox level (``--sandbox strict`` on a machine
    without isolation stops here). A step that takes long is said through ``say``
    (``slow_steps``).
    """
    with slow_step(say, f"reading {file}", first=0.5):
        tournament = load_tournament(file, game_adapters())
    if out_dir is not None:
        tournament = dataclasses.replace(tournament, output=out_dir.resolve())
    tournament = tournament.confined(sandbox)
    plan_sandbox(tournament.sandbox)
    games_at_once = tournament.concurrency(workers)
    _make_room(tournament, games_at_once)
    problems = []
    with slow_step(say, f"finding the programs of the {len(tournament.players):,} players",
                   len(tournament.players)) as step:
        for player in tournament.players:
            try:
                check_runnable(player)
            except ConfigError as exc:
                problems.append(f"{file}: {exc}")
            step.done_one()
    if problems:
        raise ConfigError("\n".join(problems))
    store = Store(tournament.output, gzip_records=tournament.spec.records_gzip)
    try:
        store.check(tournament.fingerprint())
        store.claim()  # before any bot starts in its folders: one run at a time
        check_players(tournament, games_at_once, say)
        with slow_step(say, f"opening the store {store.path}"):
            store.open(tournament.fingerprint(), tournament.name)
    except sqlite3.Error as exc:
        store.close()
        raise store_error(store.path, exc) from None
    except BaseException:
        store.close()
        raise
    return tournament, store


def _make_room(tournament: Tournament, games: int) -> None:
    """Let the referee hold the descriptors of ``games`` games' bots at once, the ones
    kept between games included (its soft limit on open files raised); a warning if
    even its hard limit falls short."""
    bots = bots_at_once(tournament, games)
    room = make_room_for(bots)
    if room is not None:
        log.warning("the limit on open files (ulimit -n) holds about %d bots at once, not "
                    "the %d of %d games at once: the run will stop when a bot cannot "
                    "start; raise the limit (ulimit -Hn, or LimitNOFILE for a service) or "
                    "lower the concurrency", room, bots, games)


def store_error(path: Path, exc: sqlite3.Error) -> ConfigError:
    """The store at ``path`` failed (the disk, most often): what to do, naming it."""
    return ConfigError(f"{path}: {store_error_text(exc)}")


def check_players(tournament: Tournament, workers: int, say: Say = quiet) -> None:
    """Start every player once (several at a time) and set it up as for a game."""
    folder = tournament.output / "slots" / "check"
    at_once = max(1, workers)

    def check(player: PlayerSpec) -> str | None:
        try:
            tournament.adapter.check_player(tournament.settings, player, folder)
        except ConfigError as exc:
            return f"{tournament.source}: {exc}"
        finally:
            step.done_one()
        return None

    players = len(tournament.players)
    with slow_step(say, f"starting each of the {players:,} players once to check it, "
                        f"{at_once} at a time", players) as step:
        pool = cf.ThreadPoolExecutor(max_workers=at_once)
        try:
            problems = []
            for problem in pool.map(check, tournament.players):
                raise_if_asked()  # (an interrupt whose raise a finalizer swallowed)
                if problem:
                    problems.append(problem)
        finally:
            # An interrupt (Ctrl-C, SIGTERM) ends the checks running and starts none of
            # those queued. (map's own cancelling misses an interrupt that lands outside
            # its generator, which the traceback then keeps alive: shutting the pool down
            # as its ``with`` does then started each of the 20,000 players.)
            pool.shutdown(wait=True, cancel_futures=True)
    if problems:
        raise ConfigError("\n".join(problems))


def describe(tournament: Tournament, total: int) -> dict[str, Any]:
    """What a report needs to know of the tournament (kept in the store's meta table)."""
    return {
        "name": tournament.name,
        "game": tournament.spec.game,
        "players": [p.name for p in tournament.players],
        "schedule": tournament.spec.schedule.kind,
        "rounds": tournament.spec.schedule.rounds,
        "total_games": total,
        "seed": tournament.spec.seed,
        "settings": tournament.adapter.describe(tournament.settings),
        "ratings": dataclasses.asdict(tournament.rating_params()),
        "sandbox": sandbox_line(tournament),
        "folder": str(Path(tournament.source).parent.resolve()),
        "sprt": tournament.spec.sprt.model_dump() if tournament.spec.sprt else None,
    }


def sandbox_line(tournament: Tournament) -> str:
    """Which protections its programs run with (``sandbox: bubblewrap 0.8.0 — ...``)."""
    return plan_sandbox(tournament.sandbox).describe(tournament.suspends_off_turn)


def run_tournament(file: Path, console: Console, *, concurrency: int | None = None,
                   out_dir: Path | None = None, ray_address: str | None = None,
                   sandbox: SandboxLevel | None = None, say: Say = quiet) -> Path:
    """Run or resume a tournament, printing progress and the final standings
    (``sandbox``: the level overriding the file's; ``say``: where the steps of its start
    that take long are said, ``slow_steps``).

    Returns the output folder.
    """
    tournament, store = prepare(file, out_dir, concurrency, sandbox, say)
    play: RayPlayer | None = None
    try:
        workers = tournament.concurrency(concurrency)
        if ray_address is not None:
            from referee.tournament.ray_runner import RayPlayer

            play = RayPlayer(tournament, ray_address, workers)
        with slow_step(say, "scheduling the games"):
            runner = TournamentRunner(tournament, store, workers, play=play)
            total = runner.total_games()
        store.set_meta("tournament", json.dumps(describe(tournament, total), default=str))
        try:  # the file as it was run, offered by the results site
            store.set_meta("toml", file.read_text(encoding="utf-8", errors="replace"))
        except OSError as exc:
            log.warning("the tournament file %s is not kept in the store: %s", file, exc)
        done = store.count("done")
        console.print(
            f"Tournament {tournament.name}: {tournament.spec.game}, "
            f"{len(tournament.players)} players, {tournament.spec.schedule.kind}, "
            f"{total} games ({done} already played), {workers} at once"
            + (f" on Ray ({ray_address})" if ray_address else "")
        )
        console.print(f"Store: {store.path}", markup=False)
        console.print(sandbox_line(tournament) + (" (on each Ray worker: what it allows)"
                                                  if ray_address else ""), markup=False)
        for line in (runner.affinity_text(), runner.keeping_text()):
            if line:
                console.print(line, markup=False)
        openings = runner.schedule.openings
        if openings:
            used = runner.schedule.openings_used()
            more = (f"; the file has more: {tournament.spec.schedule.kind} plays opening k "
                    f"in round k, so rounds = {openings} plays them all"
                    if used < openings else "")
            console.print(f"Openings: {used} of {openings}{more}", markup=False)
        bar = GameProgress(console, total, done)
        refresher = site_refresher(tournament.output, tournament.output / "report")
        show = _reporter(console, bar, runner, tournament.spec.standings_every,
                         units(tournament))

        def progress(progress: Progress) -> None:
            show(progress)
            refresher.poke()  # (the site, built again in the background)

        runner.on_progress = progress
        try:
            with bar:
                runner.run()
        finally:
            refresher.close()
        _summary(console, tournament, store, runner)
    except sqlite3.Error as exc:
        raise store_error(store.path, exc) from None
    finally:
        if play is not None:
            play.close()
        store.close()
    return tournament.output


def units(tournament: Tournament) -> Units:
    """How the tournament's results are counted (for the tables' captions)."""
    adapter = tournament.adapter
    return Units(adapter.seat_count(tournament.settings), adapter.points_unit,
                 adapter.scores_are_points)


def _reporter(console: Console, bar: GameProgress, runner: TournamentRunner,
              every: int, counted: Units) -> Callable[[Progress], None]:
    """What is shown after each game: its line, and every ``every`` games the standings."""

    def report(progress: Progress) -> None:
        bar.game_done(progress.record)
        if (progress.done % every or progress.done == progress.total) and not progress.sprt:
            return
        elapsed = time.monotonic() - progress.started
        console.print(standings_table(progress.standings, title=(
            f"Standings after {progress.done}/{progress.total} games ({elapsed:.0f} s)")))
        console.print(f"points: {meanings(counted)['Points']}", markup=False)
        _head_to_head(console, runner)

    return report


def _head_to_head(console: Console, runner: TournamentRunner) -> None:
    """Elo / LOS (and the SPRT's LLR) of a two-player tournament, as fastchess shows it."""
    match = runner.tally.head_to_head
    if match is None or not match.games:
        return
    console.print(match.summary(), markup=False)
    if runner.sprt is not None:
        llr = match.llr(runner.sprt)
        if llr is not None:
            console.print("SPRT " + runner.sprt.describe(llr), markup=False)


def _summary(console: Console, tournament: Tournament, store: Store,
             runner: TournamentRunner) -> None:
    """The end of a run: final standings, head-to-head, ratings, PGN."""
    rows = store.games(status="done", by_finish=True)
    names = [p.name for p in tournament.players]
    counted = units(tournament)
    console.print(final_table(standings(rows, names, tournament.adapter.scores_are_points)))
    console.print(standings_legend(counted), markup=False)
    _head_to_head(console, runner)
    if runner.sprt_verdict:
        console.print(f"SPRT verdict: {runner.sprt_verdict} "
                      f"(the {store.count('cancelled')} games left were cancelled)")
    ratings = rate_results(pairwise(rows), tournament.rating_params())
    if ratings is not None:
        console.print(ratings_table(ratings, units=counted))
        if ratings_legend(counted):
            console.print(ratings_legend(counted), markup=False)
    pgn = write_results_pgn(rows, tournament.output / "results.pgn", tournament.name)
    console.print(f"Results (PGN): {pgn}", markup=False)
    site = build_site(tournament.output, tournament.output / "report")
    console.print(f"Results site: {site}", markup=False)
