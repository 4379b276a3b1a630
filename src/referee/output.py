"""Terminal output: rich tables and colours on a terminal, plain lines when piped."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from referee.core.players import PlayerSpec
from referee.core.record import GameRecord
from referee.core.standings import Standing, count_game


def make_console(stderr: bool = False) -> Console:
    """A console that styles only when writing to a terminal; written to a file or a pipe
    it is as wide as its tables need (rich would assume 80 columns and cut names)."""
    stream = sys.stderr if stderr else sys.stdout
    wide = None if stream.isatty() else 400
    return Console(file=stream, highlight=False, soft_wrap=True, width=wide)


def game_line(record: GameRecord, total: int, number: int | None = None) -> str:
    """One line about a finished game: players, colours, result and why."""
    colors = record.settings.get("colors") or [""] * len(record.players)
    names = [
        f"{p.name} ({c})" if c else p.name
        for p, c in zip(record.players, colors, strict=False)
    ]
    outcome = record.outcome.value if record.outcome else "?"
    plies = len(record.moves)
    return (
        f"game {record.index if number is None else number}/{total}: "
        f"{' vs '.join(names)}: "
        f"{record.result_text()} [{outcome}] {record.reason} ({plies} moves)"
    )


def results_table(players: Sequence[PlayerSpec], records: Sequence[GameRecord],
                  points_game: bool = False) -> Table:
    """Points, wins, draws, losses and faults per player (found by name in each game, so
    players may change seats between games). ``points_game``: the scores are the game's
    own points, so a game that a fault ended adds none (see ``counted_points``)."""
    lines = {p.name: Standing(p.name) for p in players}
    for record in records:
        if record.scores:
            outcome = record.outcome.value if record.outcome else None
            count_game(lines, [p.name for p in record.players], record.scores,
                       record.offender, outcome, points_game,
                       [(f.seat, f.outcome) for f in record.faults])
    table = Table(title="Match result")
    for column in ("player", "points", "won", "drawn", "lost", "faults"):
        table.add_column(column, justify="left" if column == "player" else "right",
                         overflow="fold")
    for player in players:
        line = lines[player.name]
        fault_text = ", ".join(f"{k} {v}" for k, v in sorted(line.faults.items())) or "-"
        table.add_row(player.name, f"{line.points:g}", str(line.wins), str(line.draws),
                      str(line.losses), fault_text)
    return table


class GameProgress:
    """A line per finished game; on a terminal also a live bar with games done and ETA."""

    def __init__(self, console: Console, total: int, completed: int = 0) -> None:
        self.console = console
        self.total = total
        self.completed = completed
        self._progress: Progress | None = None
        self._task = TaskID(0)

    def __enter__(self) -> GameProgress:
        if self.console.is_terminal:
            self._progress = Progress(
                TextColumn("games"), BarColumn(), MofNCompleteColumn(),
                TextColumn("ETA"), TimeRemainingColumn(), console=self.console,
                transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task("games", total=self.total,
                                                 completed=self.completed)
        return self

    def game_done(self, record: GameRecord) -> None:
        """Report one finished game."""
        self.completed += 1
        self.console.print(game_line(record, self.total, self.completed), markup=False)
        if self._progress is not None:
            self._progress.advance(self._task)

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._progress is not None:
            self._progress.stop()
