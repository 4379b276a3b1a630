"""The commands on training data of any game: ``referee shuffle`` (lines far larger than
memory, in a uniformly random order) and each game's ``referee dataset GAME``."""

from __future__ import annotations

import time
from pathlib import Path

import click

from referee.cli import options as opt
from referee.cli.support import fail, sigterm_interrupts
from referee.core.errors import ConfigError

__all__ = ["dataset_command", "shuffle"]


@click.command("shuffle")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...",
                type=click.Path(exists=True, dir_okay=False, allow_dash=True, path_type=Path))
@opt.output_file_option("shuffled")
@click.option("--memory", type=opt.Size(minimum=64 * 1024, zero=False, legacy_bytes=True),
              default="256M", show_default=True,
              help="Memory for lines (256M, 1G, 512K: units of 1024).")
@click.option("--seed", type=opt.Whole(0),
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
    from referee.training.shuffle import shuffle_lines

    start = time.perf_counter()
    try:
        with sigterm_interrupts():
            try:
                result = shuffle_lines(inputs, output, memory=memory, seed=seed,
                                       temp_dir=temp_dir)
            except ValueError as exc:
                raise ConfigError(str(exc)) from None
    except BaseException as exc:
        fail(exc, "no output written, temporary files removed")
    seconds = time.perf_counter() - start
    click.echo(f"shuffled {result.lines} lines ({result.bytes / 1e6:.1f} MB) from "
               f"{len(inputs)} file{'s' if len(inputs) > 1 else ''} into {output} in "
               f"{seconds:.1f} s: {result.buckets} temporary buckets, seed {result.seed}",
               err=True)


def dataset_command(game: str) -> click.Command:
    """``referee dataset GAME SOURCES -o OUT``: training shards of ``game``'s decisions."""

    @click.command(game)
    @click.argument("sources", nargs=-1, required=True, metavar="SOURCE...",
                    type=click.Path(path_type=Path))
    @click.option("-o", "--output", required=True, type=click.Path(path_type=Path),
                  help="The dataset's folder (Parquet shards part-NNNNN.parquet).")
    @click.option("--player", "players", multiple=True,
                  help="Keep only this player's decisions (repeatable).")
    @click.option("--result", "results", multiple=True,
                  type=click.Choice(["win", "draw", "loss"]),
                  help="Keep only decisions of seats that ended with this result "
                       "(repeatable).")
    @click.option("--variant", "variants", multiple=True,
                  help="Keep only games under these rules, as the variant column writes "
                       "them (e.g. 'renju 15x15'; repeatable).")
    @click.option("--rows-per-shard", type=opt.Whole(1, 1 << 31), default=1_000_000,
                  show_default=True, help="Rows in each Parquet file at most.")
    @click.option("--overwrite", is_flag=True, help="Replace an existing output folder.")
    def command(sources: tuple[Path, ...], output: Path, players: tuple[str, ...],
                results: tuple[str, ...], variants: tuple[str, ...], rows_per_shard: int,
                overwrite: bool) -> None:
        """Turn games into training data: one row per decision (the seat's observation as
        the game's environment gives it, the legal actions, the action taken, the final
        result), written as Apache Parquet shards (needs the data extra: pip install
        'referee[data]').

        SOURCE: a tournament's folder (or its tournament.sqlite), a match folder, record
        files (game-NNN.json) or files of the game's own formats; each game is read
        once (a record's own export beside it is its game). A game that cannot be
        replayed is skipped, with its reason; then the exit status is 1. Columns and
        layouts: docs/envs.md.
        """
        from referee.games.registry import game_data
        from referee.training.dataset import Filters, write_dataset
        from referee.training.dataset_sources import dataset_records

        start = time.perf_counter()
        try:
            with sigterm_interrupts():
                data = game_data(game)
                summary = write_dataset(
                    data, dataset_records(sources, data), output,
                    filters=Filters(frozenset(players), frozenset(results),
                                    frozenset(variants)),
                    rows_per_shard=rows_per_shard, overwrite=overwrite)
        except ImportError as exc:
            fail(ConfigError(f"datasets need the data extra: pip install 'referee[data]' "
                             f"({exc})"))
        except BaseException as exc:
            fail(exc, "nothing was written")
        for label, reason in summary.skipped:
            click.echo(f"skipped {label}: {reason}", err=True)
        seconds = time.perf_counter() - start
        click.echo(f"{summary.rows} decisions of {summary.games} games into {output} "
                   f"({summary.shards} file{'s' if summary.shards != 1 else ''}) in "
                   f"{seconds:.1f} s ({summary.rows / max(seconds, 1e-9):,.0f} decisions/s)"
                   + (f"; {len(summary.skipped)} skipped" if summary.skipped else ""),
                   err=True)
        if summary.skipped:
            raise SystemExit(1)

    return command
