"""Runs a tournament's games, several at once, into the store; resumes where it stopped.

Games run in worker threads (the referee's work per move is small and waits on pipes, so
threads scale to many games at once), or as Ray tasks (``ray_runner``). Results are
committed to the store by the main thread only, in the order they finish; the schedule,
the seeds and the store keys do not depend on that order, so the results are the same
whatever the concurrency.

An interrupt (Ctrl-C) kills every bot process at once and commits nothing more: the games
that were running are played again on resume. After a ``kill -9`` of the referee, the bot
processes it had started are found through the store and killed on resume.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from referee.core.adapter import GameTask
from referee.core.errors import RefereeError
from referee.core.limits import ProcessTree
from referee.core.players import PlayerSpec
from referee.core.process import BotProcess, kill_all_processes, spawn_listener
from referee.core.record import GameRecord
from referee.tournament.config import Tournament
from referee.tournament.schedule import Schedule, ScheduledGame, Swiss, make_schedule
from referee.tournament.stats import SPRT
from referee.tournament.store import Store

log = logging.getLogger(__name__)

PlayGame = Callable[[GameTask], GameRecord]


@dataclass
class Progress:
    """What the runner reports after each finished game."""

    done: int
    total: int
    record: GameRecord
    started: float
    standings: dict[str, float] = field(default_factory=dict)
    sprt: str | None = None


class TournamentRunner:
    """Plays the games of one tournament into its store."""

    def __init__(self, tournament: Tournament, store: Store, concurrency: int = 1,
                 on_progress: Callable[[Progress], None] | None = None,
                 play: PlayGame | None = None) -> None:
        self.tournament = tournament
        self.store = store
        self.concurrency = max(1, concurrency)
        self.on_progress = on_progress
        self.players = {p.name: p for p in tournament.players}
        self._play = play or self._play_locally
        self.sprt_verdict: str | None = None
        spec = tournament.spec
        self.schedule: Schedule = make_schedule(
            spec.schedule.kind, [p.name for p in tournament.players], spec.schedule.rounds,
            spec.seed, tournament.adapter.opening_count(tournament.settings),
            spec.schedule.gauntlet,
        )

    # -- running ------------------------------------------------------------------------
    def run(self) -> int:
        """Play every game not played yet; returns how many were played now."""
        self._kill_orphans()
        if self.schedule.static:
            for number in range(1, self.schedule.rounds + 1):
                self.store.add_games(self.schedule.round_games(number, {}, {}))
        self.sprt_verdict = self.store.meta("sprt_verdict")
        if self.sprt_verdict:
            return 0
        played = 0
        number = 1 if not self.schedule.static else self.schedule.rounds
        while True:
            if not self.schedule.static:
                self._schedule_swiss_round(number)
            pending = self.store.games(status="pending")
            if pending:
                played += self._run_games([g.scheduled() for g in pending])
            if self.sprt_verdict or self.schedule.static or number >= self.schedule.rounds:
                break
            number += 1
        return played

    def _schedule_swiss_round(self, number: int) -> None:
        if self.store.games(round_number=number):
            return  # already paired (resume): keep the same pairings
        assert isinstance(self.schedule, Swiss)
        games = self.schedule.round_games(number, self.points(), self._met())
        self.store.add_games(games)
        for player in self.schedule.sitting_out(games):
            self.store.add_bye(number, player)

    def _met(self) -> dict[frozenset[str], int]:
        met: dict[frozenset[str], int] = {}
        for row in self.store.games():
            pair = frozenset(row.seats)
            met[pair] = met.get(pair, 0) + 1
        for player, count in self.store.byes().items():
            met[frozenset((player,))] = count
        return met

    def points(self) -> dict[str, float]:
        """Points per player over the finished games."""
        totals = {name: 0.0 for name in self.players}
        for row in self.store.games(status="done"):
            for name, score in zip(row.seats, row.scores or (), strict=False):
                totals[name] += score
        return totals

    def total_games(self) -> int:
        """Games in the whole schedule."""
        return self.schedule.total_games()

    def _run_games(self, games: list[ScheduledGame]) -> int:
        total = self.total_games()
        done = len(self.store.games(status="done"))
        started = time.monotonic()
        played = 0
        pool = cf.ThreadPoolExecutor(max_workers=self.concurrency,
                                     thread_name_prefix="referee-game")
        queue = iter(games)
        running: dict[cf.Future[GameRecord], ScheduledGame] = {}
        try:
            self._fill(pool, queue, running)
            while running:
                finished, _ = cf.wait(running, return_when=cf.FIRST_COMPLETED)
                for future in finished:
                    game = running.pop(future)
                    record = future.result()
                    self.store.commit(game.key, record)
                    self.store.forget_processes(game.key)
                    done += 1
                    played += 1
                    self._check_sprt()
                    if self.on_progress is not None:
                        self.on_progress(Progress(done, total, record, started,
                                                  self.points(), self.sprt_verdict))
                if self.sprt_verdict:
                    self.store.cancel_pending()
                    for future in running:
                        future.cancel()
                    kill_all_processes()
                    continue
                self._fill(pool, queue, running)
        except BaseException:
            for future in running:
                future.cancel()
            kill_all_processes()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        return played

    def _fill(self, pool: cf.ThreadPoolExecutor, queue: Iterable[ScheduledGame],
              running: dict[cf.Future[GameRecord], ScheduledGame]) -> None:
        iterator = iter(queue)
        while len(running) < self.concurrency:
            game = next(iterator, None)
            if game is None:
                return
            self.store.mark_running(game.key)
            running[pool.submit(self._play, self.task(game))] = game

    def task(self, game: ScheduledGame) -> GameTask:
        """The adapter's view of a scheduled game."""
        seats = tuple(self.players[name] for name in game.seats)
        return GameTask(game.key, seats, game.seed, game.opening, game.round)

    def _play_locally(self, task: GameTask) -> GameRecord:
        work = self.tournament.output / "work"

        def note(process: BotProcess) -> None:
            if process.pid is not None:
                try:
                    started = psutil.Process(process.pid).create_time()
                except psutil.Error:
                    return
                self.store.note_process(process.pid, started, task.key)

        with spawn_listener(note):
            record = self.tournament.adapter.play(self.tournament.settings, task, work)
        record.round = task.round
        return record

    # -- SPRT and leftovers ---------------------------------------------------------------
    def _check_sprt(self) -> None:
        sprt = self.tournament.spec.sprt
        if sprt is None or self.sprt_verdict:
            return
        test = SPRT(sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta)
        first = self.tournament.players[0].name
        verdict = test.verdict_from_games(
            [(row.seats, row.scores, row.pair) for row in self.store.games(status="done")
             if row.scores is not None], first)
        if verdict is not None:
            self.sprt_verdict = verdict
            self.store.set_meta("sprt_verdict", verdict)

    def _kill_orphans(self) -> None:
        for pid, started in self.store.noted_processes():
            try:
                proc = psutil.Process(pid)
                if abs(proc.create_time() - started) > 0.01:
                    continue
            except psutil.Error:
                continue
            log.warning("killing bot process %d left by an earlier run", pid)
            ProcessTree(pid).kill()
        self.store.clear_processes()


def check_players(players: Iterable[PlayerSpec]) -> None:
    """Every player's program exists and is executable (``ConfigError`` otherwise)."""
    from referee.core.players import check_runnable

    for player in players:
        check_runnable(player)


def output_is_free(path: Path) -> bool:
    """Whether a folder holds no tournament store yet."""
    return not (path / "tournament.sqlite").exists()


__all__ = ["Progress", "RefereeError", "TournamentRunner", "check_players", "output_is_free"]
