"""The commands on training data of any game: ``referee shuffle`` (lines far larger than
memory) and ``referee annotate4rl`` (annotations into offline-RL transitions)."""

from __future__ import annotations

import time
from pathlib import Path

import click

from referee.cli import options as opt
from referee.cli.support import fail, sigterm_interrupts
from referee.core.errors import ConfigError

__all__ = ["annotate4rl_command", "shuffle"]


@click.command("shuffle")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...",
                type=click.Path(exists=True, dir_okay=False, allow_dash=True, path_type=Path))
@opt.output_file_option("shuffled")
@click.option("--memory", type=opt.Size(minimum=64 * 1024, zero=False, legacy_bytes=True),
              default="256M", show_default=True,
              help="Memory for lines (256M, 1G, 512K: units of 1024).")
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
