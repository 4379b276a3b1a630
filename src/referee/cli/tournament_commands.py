"""The commands about many games of any game: ``referee tournament``, ``referee ratings``
and ``referee report``."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from referee.cli import options as opt
from referee.cli.support import (
    emit_json,
    fail,
    human_console,
    note,
    sigterm_interrupts,
    warn,
)
from referee.core.errors import ConfigError

__all__ = ["ratings", "report", "tournament"]


@click.command("tournament")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@opt.jobs_option("Games at once [default: the file's concurrency, else cores - 1, at least "
                 "1].", default=None)
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Output folder (default: the file's output, else referee-out/<name>).")
@click.option("--ray", "ray_address",
              help="Run the games on a Ray cluster: an address, or 'local' for a local one "
                   "(needs pip install 'referee[ray]').")
@click.option("--sandbox", "sandbox_level", type=click.Choice(["auto", "strict", "off"]),
              help="Confine the players' programs: auto, strict or off (docs/sandbox.md) "
                   "[default: the file's sandbox, else auto].")
@opt.json_option
@opt.renamed("--concurrency", "jobs", "--jobs", type=opt.Whole(1, opt.MAX_JOBS))
def tournament(file: Path, jobs: int | None, out_dir: Path | None, ray_address: str | None,
               sandbox_level: str | None, json_mode: bool) -> None:
    """Run (or resume) the tournament described by a TOML FILE.

    Every game and result goes to tournament.sqlite in the output folder, records to
    records.jsonl beside it. Interrupted (Ctrl-C, a crash, kill -9)? Run the same command
    again: it continues where it stopped, without losing or repeating a game.
    """
    from referee.core.sandbox import SandboxLevel
    from referee.tournament.session import run_tournament

    console = human_console(json_mode)
    try:
        if jobs is not None and jobs < 1:
            raise ConfigError(f"--jobs must be at least 1, got {jobs}")
        with sigterm_interrupts():
            folder = run_tournament(
                file, console, concurrency=jobs, out_dir=out_dir, ray_address=ray_address,
                sandbox=SandboxLevel.parse(sandbox_level) if sandbox_level else None,
                say=note)
    except BaseException as exc:
        fail(exc, "run the same command again to resume")
    if json_mode:
        emit_json(tournament_summary(folder))


def tournament_summary(folder: Path) -> dict[str, Any]:
    """The ``--json`` summary of a tournament's store: games, standings, ratings."""
    from referee.tournament.report.summary import summarize
    from referee.tournament.store import Store

    store = Store.open_existing(folder)
    try:
        summary = summarize(store)
    finally:
        store.close()
    ratings = summary.ratings
    return {
        "tournament": summary.info.name, "game": summary.info.game, "out": str(folder),
        "games": {"done": len(summary.done), "total": summary.info.total_games},
        "standings": [{"player": s.name, "points": s.points, "games": s.games,
                       "won": s.wins, "drawn": s.draws, "lost": s.losses,
                       "faults": s.faults} for s in summary.standings],
        "ratings": [] if ratings is None else rating_rows(ratings),
    }


def rating_rows(ratings: Any) -> list[dict[str, Any]]:
    """A rating list as plain data (Elo scaled and offset, as printed)."""
    return [{"rank": p.rank, "player": p.name, "elo": p.elo, "plus": p.plus,
             "minus": p.minus, "games": p.games, "score": p.score_percent,
             "draws": p.draws_percent, "opponents": p.opponents_elo}
            for p in ratings.players]


@click.command("ratings")
@click.argument("sources", nargs=-1, required=True, metavar="SOURCE...",
                type=click.Path(path_type=Path))
@click.option("--preset", type=click.Choice(["gomocup", "bayeselo", "itpw"]),
              help="BayesElo settings: gomocup (advantage 0, drawelo 0.01), bayeselo "
                   "(advantage 32.8, drawelo 97.3, prior 2) or itpw (bayeselo with "
                   "advantage 0) [default: a store's own settings, else bayeselo].")
@click.option("--advantage", type=opt.Number(),
              help="Elo advantage of the first player (White).")
@click.option("--drawelo", type=opt.Number(), help="Draw Elo (> 0).")
@click.option("--prior", type=opt.Number(), help="Virtual draws of the prior (>= 0).")
@click.option("--offset", type=opt.Number(), help="Added to every rating.")
@click.option("--confidence", type=opt.Number(),
              help="Confidence of the intervals (default 0.95).")
@click.option("--los", "show_los", is_flag=True, help="Also print the LOS matrix.")
@click.option("--los-layout", type=click.Choice(["readable", "bayeselo"]), default="readable",
              show_default=True,
              help="readable: columns headed by rank, cells separated by |; bayeselo: "
                   "exactly as BayesElo 0057's los command prints it.")
@click.option("--min-games", type=opt.Whole(0), default=1, show_default=True,
              help="List only players with at least this many games.")
@click.option("--pgn", "pgn_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write every result as PGN to this file (for BayesElo, Ordo...).")
@opt.json_option
def ratings(sources: tuple[Path, ...], preset: str | None, advantage: float | None,
            drawelo: float | None, prior: float | None, offset: float | None,
            confidence: float | None, show_los: bool, los_layout: str, min_games: int,
            pgn_out: Path | None, json_mode: bool) -> None:
    """BayesElo ratings of the results in tournament stores and PGN files.

    Each SOURCE is a tournament's output folder (or its tournament.sqlite) or a PGN
    file; results of all of them are rated together, each game once (a store's own
    results.pgn is left out beside the store). In PGN, White is the player who moved
    first (the side of the advantage). Prints BayesElo's rating list.
    """
    if "numpy" not in sys.modules:
        # One BLAS thread: starting OpenBLAS's pool costs more (about 50 ms on a loaded
        # machine) than threads gain on the few matrix operations of a rating list.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from referee.tournament.pgn import write_pgn_results
    from referee.tournament.ratings import BayesEloParams, ResultTable, rate
    from referee.tournament.sources import all_results, distinct_sources

    try:
        found, left_out = distinct_sources(sources)
        for line in left_out:
            warn(line)
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
            named = ", ".join(str(path) for path in sources[:3]) + (
                f" and {len(sources) - 3} more" if len(sources) > 3 else "")
            raise ConfigError(f"no results to rate in {named} (need games between two "
                              "players: a tournament's folder or store, or PGN files)")
        try:
            result = rate(table, params)
        except ValueError as exc:  # e.g. infinite ratings without a prior
            raise ConfigError(str(exc)) from None
    except BaseException as exc:
        fail(exc)
    click.echo(f"{table.games} games, {len(table.players)} players; advantage "
               f"{params.advantage:g}, drawelo {params.drawelo:g}, prior {params.prior:g}, "
               f"offset {params.offset:g}" + ("" if result.connected else
                                              "; WARNING: players fall into separate groups "
                                              "that never met, ratings across them are not "
                                              "comparable"), err=json_mode)
    click.echo(result.table(min_games), nl=False, err=json_mode)
    if show_los:
        click.echo(err=json_mode)
        click.echo(result.los_table(layout=los_layout), nl=False, err=json_mode)
    if json_mode:
        emit_json({"games": table.games, "connected": result.connected,
                   "advantage": params.advantage, "drawelo": params.drawelo,
                   "prior": params.prior, "offset": params.offset,
                   "players": rating_rows(result)})


@click.command("report")
@click.argument("store", type=click.Path(path_type=Path))
@click.option("-o", "--output", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the site [default: STORE/report].")
@click.option("--serve", is_flag=True,
              help="Then serve it on http://127.0.0.1:PORT/ and keep it up to date as the "
                   "store changes (a tournament running), pages updating without a "
                   "reload; Ctrl-C stops.")
@click.option("--port", type=opt.Whole(0, 65535), default=8000, show_default=True,
              help="Port of --serve (0: any free one).")
def report(store: Path, out_dir: Path | None, serve: bool, port: int) -> None:
    """Write the results site of a tournament store (its folder or tournament.sqlite).

    Static HTML, no server needed: standings with BayesElo ratings, crosstable, a page
    per player and per game (with a board replay), and the rating history. With
    --serve, a live view of a tournament while it runs (in another terminal).
    """
    from referee.tournament.report import build_site

    folder = store.parent if store.suffix == ".sqlite" else store
    site = out_dir or folder / "report"
    try:
        index = build_site(store, site)
    except BaseException as exc:
        fail(exc)
    click.echo(str(index))
    if not serve:
        return
    from referee.tournament.report.serve import serve_site

    def started(address: str) -> None:
        click.echo(f"Serving {address} (the site, kept up to date; Ctrl-C stops)")

    try:
        with sigterm_interrupts():  # (SIGTERM stops it as Ctrl-C does)
            # built again in one process: a tournament running beside keeps the CPUs
            serve_site(folder, site, port, lambda: build_site(store, site, workers=1),
                       started)
    except KeyboardInterrupt:
        click.echo("stopped")
    except OSError as exc:
        fail(ConfigError(f"cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}; "
                         "choose another --port (0: any free one)"))
