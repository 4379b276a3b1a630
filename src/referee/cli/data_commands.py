"""The command on training data of any game: ``referee shuffle`` (lines far larger than
memory, in a uniformly random order)."""

from __future__ import annotations

import time
from pathlib import Path

import click

from referee.cli import options as opt
from referee.cli.support import fail, sigterm_interrupts
from referee.core.errors import ConfigError

__all__ = ["shuffle"]


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
