"""One run of ``referee tournament FILE``: check everything, play, show standings, rate.

Every check that can fail (the file, the players' programs, the store) runs before the
first game starts, and nothing is written to a store that belongs to another tournament.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from referee.core.errors import ConfigError
from referee.core.players import check_runnable
from referee.games.registry import game_adapters
from referee.output import GameProgress
from referee.tournament.config import Tournament, load_tournament
from referee.tournament.results import (
    rate_store,
    ratings_table,
    standings_table,
    write_results_pgn,
)
from referee.tournament.runner import Progress, TournamentRunner
from referee.tournament.store import Store

log = logging.getLogger(__name__)


def prepare(file: Path, out_dir: Path | None = None) -> tuple[Tournament, Store]:
    """Load and check the tournament and open its store (no game is played)."""
    tournament = load_tournament(file, game_adapters())
    if out_dir is not None:
        from dataclasses import replace

        tournament = replace(tournament, output=out_dir.resolve())
    problems = []
    for player in tournament.players:
        try:
            check_runnable(player)
        except ConfigError as exc:
            problems.append(f"{file}: {exc}")
    if problems:
        raise ConfigError("\n".join(problems))
    store = Store(tournament.output, gzip_records=tournament.spec.records_gzip)
    store.open(tournament.fingerprint(), tournament.name)
    return tournament, store


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
        "ratings": dataclasses.asdict(tournament.spec.ratings.params()),
    }


def run_tournament(file: Path, console: Console, *, concurrency: int | None = None,
                   out_dir: Path | None = None, ray_address: str | None = None) -> None:
    """Run or resume a tournament, printing progress and the final standings."""
    tournament, store = prepare(file, out_dir)
    try:
        workers = tournament.concurrency(concurrency)
        play = None
        if ray_address is not None:
            from referee.tournament.ray_runner import RayPlayer

            play = RayPlayer(tournament, ray_address, workers)
        every = tournament.spec.standings_every
        runner = TournamentRunner(tournament, store, workers, play=play)
        total = runner.total_games()
        store.set_meta("tournament", json.dumps(describe(tournament, total), default=str))
        done = len(store.games(status="done"))
        console.print(
            f"Tournament {tournament.name}: {tournament.spec.game}, "
            f"{len(tournament.players)} players, {tournament.spec.schedule.kind}, "
            f"{total} games ({done} already played), {workers} at once"
            + (f" on Ray ({ray_address})" if ray_address else "")
        )
        console.print(f"Store: {store.path}", markup=False)
        started = time.monotonic()

        bar = GameProgress(console, total, done)

        def report(progress: Progress) -> None:
            bar.game_done(progress.record)
            if progress.done % every == 0 or progress.done == progress.total:
                console.print(standings_table(progress.standings, title=(
                    f"Standings after {progress.done}/{progress.total} games "
                    f"({time.monotonic() - started:.0f} s)")))
            if progress.sprt:
                console.print(f"SPRT: {progress.sprt}")

        runner.on_progress = report
        with bar:
            runner.run()
        if runner.sprt_verdict:
            console.print(f"SPRT verdict: {runner.sprt_verdict}")
        ratings = rate_store(store, tournament.spec.ratings.params())
        if ratings is not None:
            console.print(ratings_table(ratings))
        pgn = write_results_pgn(store, tournament.output / "results.pgn", tournament.name)
        console.print(f"Results (PGN): {pgn}", markup=False)
    finally:
        store.close()

