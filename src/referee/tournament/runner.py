"""Runs a tournament's games, several at once, into the store; resumes where it stopped.

Games run in worker threads (the referee's work per move is small and waits on pipes, so
threads scale to many games at once), or as Ray tasks (``ray_runner``). Results are
committed to the store by the main thread only, in the order they finish; the schedule,
the seeds and the store keys do not depend on that order, so the results are the same
whatever the concurrency.

Each game runs in a numbered slot (1..concurrency): the slot's folder holds the working
folders and stderr logs of the bots playing in it, so two instances of one program never
share a folder. The games played in a slot append to the same logs; each record says
which log each seat's bot wrote and which bytes of it during that game
(``PlayerInfo.stderr``, the path relative to the store's folder: ``slots/<slot>/logs/...``).

With ``keep_bots = true`` (for games whose protocol can begin a new game with a running
program), each slot keeps the programs of its last games alive (``core.bot_pool``) and a
game is given the free slot that holds most of its players' programs; the kept processes
stay noted in the store (under ``kept:<slot>``) until they end.

An interrupt (Ctrl-C) kills every bot process at once, starts no new one and commits
nothing more: the games that were running are played again on resume. After a ``kill
-9`` of the referee, the bot processes it had started are found through the store and
killed on resume.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import dataclasses
import itertools
import logging
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from referee.core.adapter import GameAdapter, GameTask
from referee.core.bot_pool import BotPool
from referee.core.interrupts import raise_if_asked
from referee.core.limits import ProcessTree, marked_any
from referee.core.live_bots import allow_processes, spawn_listener, stop_all_processes
from referee.core.process import BotProcess
from referee.core.record import GameRecord, move_listener
from referee.core.seat_logs import rebase_stderr_logs, seat_logs
from referee.core.standings import counted_points
from referee.tournament.affinity import (
    available_cpus,
    describe_plan,
    pin_task,
    pinned_thread,
    slot_cpus,
    thread_cpus,
)
from referee.tournament.config import Tournament
from referee.tournament.live import LIVE_FILE, LiveBoard
from referee.tournament.results import pairwise
from referee.tournament.schedule import Schedule, ScheduledGame, Swiss, make_schedule
from referee.tournament.stats import SPRT, HeadToHead
from referee.tournament.store import GameRow, Store

log = logging.getLogger(__name__)

PlayGame = Callable[[GameTask], GameRecord]

KEPT_PER_SEAT = 2
"""With ``keep_bots``: idle programs each slot keeps, per seat of a game."""

WAKE_EVERY = 0.5
"""Seconds the run waits for a game to end before it looks for an interrupt again."""


def bots_at_once(tournament: Tournament, games: int) -> int:
    """The most programs running at once with ``games`` games at once: their players,
    and with ``keep_bots`` the idle programs each slot keeps (which hold the referee's
    descriptors all the same)."""
    seats = tournament.adapter.seat_count(tournament.settings)
    kept = KEPT_PER_SEAT if tournament.spec.keep_bots and tournament.adapter.keeps_bots else 0
    return games * seats * (1 + kept)


@dataclass
class Progress:
    """What the runner reports after each finished game."""

    done: int
    total: int
    record: GameRecord
    started: float
    standings: dict[str, float] = field(default_factory=dict)
    sprt: str | None = None
    head_to_head: HeadToHead | None = None


class Tally:
    """Running totals of the finished games: points per player, and the head-to-head
    counts of the first player when exactly two play (for the SPRT and Elo report)."""

    def __init__(self, players: list[str], points_game: bool = False) -> None:
        """Empty totals for ``players`` (in the file's order); ``points_game``: scores are
        the game's own points (see ``core.standings.counted_points``)."""
        self.points = {name: 0.0 for name in players}
        self.points_game = points_game
        self.head_to_head = HeadToHead(players[0]) if len(players) == 2 else None

    def add(self, seats: tuple[str, ...], scores: Iterable[float], pair: str | None,
            offender: int | None = None) -> None:
        """Count one finished game."""
        values = list(scores)
        counted = counted_points(values, offender, self.points_game)
        for name, score in zip(seats, counted, strict=False):
            self.points[name] = self.points.get(name, 0.0) + score
        if self.head_to_head is not None:
            self.head_to_head.add(seats, values, pair)

    def add_row(self, row: GameRow) -> None:
        """Count a finished game read from the store."""
        if row.scores is not None:
            self.add(row.seats, row.scores, row.pair, row.offender)


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
        self.sprt = SPRT(spec.sprt.elo0, spec.sprt.elo1, spec.sprt.alpha, spec.sprt.beta,
                         spec.sprt.model) if spec.sprt else None
        self.schedule: Schedule = make_schedule(
            spec.schedule.kind, [p.name for p in tournament.players], spec.schedule.rounds,
            spec.seed, tournament.adapter.opening_count(tournament.settings),
            spec.schedule.gauntlet, seats=tournament.adapter.seat_count(tournament.settings),
            random_rounds=spec.schedule.random_rounds, params=tournament.rating_params(),
        )
        self.tally = Tally([p.name for p in tournament.players],
                           tournament.adapter.scores_are_points)
        self.done = 0
        self.live = LiveBoard(tournament.output / LIVE_FILE)
        """The games in progress, for the live view (``OUTPUT/live.json``)."""
        self._cpus = available_cpus()
        seats = tournament.adapter.seat_count(tournament.settings)
        self._pinning = (slot_cpus(self._cpus, self.concurrency, seats,
                                   tournament.suspends_off_turn)
                         if spec.affinity and play is None else None)
        self.pools: dict[int, BotPool] = {
            slot: BotPool(KEPT_PER_SEAT * seats) for slot in range(1, self.concurrency + 1)
        } if spec.keep_bots and play is None and tournament.adapter.keeps_bots else {}
        """Each slot's programs kept alive between games (``keep_bots``), by slot."""

    def affinity_text(self) -> str:
        """How games are pinned to CPUs (``affinity = true``), or "" if they are not
        asked to be."""
        if not self.tournament.spec.affinity:
            return ""
        if self._play != self._play_locally:
            return "affinity: not on Ray workers (each worker's CPUs are its own)"
        return describe_plan(self._pinning, self._cpus, self.concurrency,
                             self.tournament.suspends_off_turn)

    def keeping_text(self) -> str:
        """Whether programs are kept running between games (``keep_bots = true``), or ""
        if they are not asked to be."""
        if not self.tournament.spec.keep_bots:
            return ""
        if not self.pools:
            return "keep_bots: not on Ray workers (each game starts its programs)"
        capacity = next(iter(self.pools.values())).capacity
        return (f"keep_bots: programs kept running between games, up to {capacity} per "
                "game slot")

    # -- running ------------------------------------------------------------------------
    def run(self) -> int:
        """Play every game not played yet; returns how many were played now."""
        allow_processes()
        kill_orphans(self.store)
        # One set of game threads for the whole run: a sandboxed bot dies with the thread
        # that started it (bubblewrap's parent-death signal), and a kept bot must outlive
        # its first game's round
        executor = cf.ThreadPoolExecutor(max_workers=self.concurrency,
                                         thread_name_prefix="referee-game")
        try:
            return self._run(executor)
        finally:
            self._end_kept()
            executor.shutdown(wait=True, cancel_futures=True)

    def _end_kept(self) -> None:
        """End the programs kept alive for later games, and forget them (a store that
        cannot be written leaves their notes to the next run, which finds them gone)."""
        for slot, pool in self.pools.items():
            pool.close()
            try:
                self.store.forget_processes(_kept_key(slot))
            except Exception as exc:  # (on the way out of a failed run: not to hide why)
                log.warning("the kept programs of slot %d stay noted in the store: %s",
                            slot, exc)

    def _run(self, executor: cf.ThreadPoolExecutor) -> int:
        if self.schedule.static:
            for number in range(1, self.schedule.rounds + 1):
                self.store.add_games(self.schedule.round_games(number, {}, {}))
        self.tally = Tally([p.name for p in self.tournament.players])
        for row in self.store.games(status="done", by_finish=True):
            self.tally.add_row(row)
        self.done = self.store.count("done")
        self.live.total, self.live.done = self.total_games(), self.done
        self.sprt_verdict = self.store.meta("sprt_verdict")
        if self.sprt_verdict:
            return 0
        played = 0
        number = self.schedule.rounds if self.schedule.static else 1
        while True:
            if not self.schedule.static:
                self._schedule_round(number)
            played += self._run_games(executor, (row.scheduled()
                                                 for row in self.store.pending()))
            if self.sprt_verdict or number >= self.schedule.rounds:
                break
            number += 1
        return played

    def _schedule_round(self, number: int) -> None:
        """Pair (Swiss) or group (ITPW) round ``number`` from the results so far."""
        if self.store.games(round_number=number):
            return  # already scheduled (resume): keep the same games
        results = list(pairwise(self.store.games(status="done"))) \
            if self.schedule.uses_results else []
        games = self.schedule.round_games(number, self.points(), self._met(), results)
        self.store.add_games(games)
        if isinstance(self.schedule, Swiss):
            for player in self.schedule.sitting_out(games):
                self.store.add_bye(number, player)

    def _met(self) -> dict[frozenset[str], int]:
        """How many games each pair of players has played together (and byes per player)."""
        met: dict[frozenset[str], int] = {}
        for row in self.store.games():
            for a, b in itertools.combinations(row.seats, 2):
                pair = frozenset((a, b))
                met[pair] = met.get(pair, 0) + 1
        for player, count in self.store.byes().items():
            met[frozenset((player,))] = count
        return met

    def points(self) -> dict[str, float]:
        """Points per player over the finished games."""
        return dict(self.tally.points)

    def total_games(self) -> int:
        """Games in the whole schedule."""
        return self.schedule.total_games()

    def _run_games(self, pool: cf.ThreadPoolExecutor, games: Iterator[ScheduledGame]) -> int:
        total = self.total_games()
        started = time.monotonic()
        played = 0
        running: dict[cf.Future[GameRecord], tuple[ScheduledGame, int]] = {}
        stopped: list[cf.Future[GameRecord]] = []
        try:
            self._fill(pool, games, running)
            while running:
                finished, _ = cf.wait(running, WAKE_EVERY, cf.FIRST_COMPLETED)
                raise_if_asked()  # (an interrupt whose raise a finalizer swallowed)
                for future in finished:
                    game, slot = running.pop(future)
                    record = future.result()  # (raised: _stop clears the live board)
                    rebase_stderr_logs(record, self._slot_prefix(slot))
                    self.store.commit(game.key, record, self._kept(slot))
                    self.tally.add(game.seats, record.scores or (), game.pair,
                                   record.offender)
                    self.done += 1
                    self.live.finish(game.key, self.done)
                    played += 1
                    self._check_sprt()
                    if self.on_progress is not None:
                        self.on_progress(Progress(self.done, total, record, started,
                                                  self.points(), self.sprt_verdict,
                                                  self.tally.head_to_head))
                if self.sprt_verdict:
                    self.store.cancel_pending()
                    stopped = self._stop(running)
                    break
                self._fill(pool, games, running)
        except BaseException:
            stopped = self._stop(running)
            raise
        finally:
            cf.wait(stopped)  # (their threads end before bots may start again)
            allow_processes()
        return played

    def _kept(self, slot: int) -> tuple[str, list[int]] | None:
        """The processes ``slot`` keeps alive (``keep_bots``), as the store notes them
        when a game of the slot is committed (``None``: none kept)."""
        pool = self.pools.get(slot)
        if pool is None:
            return None
        return _kept_key(slot), [p.pid for p in pool.processes() if p.pid is not None]

    def _stop(self, running: dict[cf.Future[GameRecord], tuple[ScheduledGame, int]]
              ) -> list[cf.Future[GameRecord]]:
        """Stop the games in flight: their bots are killed and no new bot starts; returns
        their futures."""
        stopped = list(running)
        for future in stopped:
            future.cancel()
        running.clear()
        self.live.clear(self.done)
        stop_all_processes()
        cancel = getattr(self._play, "cancel", None)
        if callable(cancel):
            cancel()
        return stopped

    def _fill(self, pool: cf.ThreadPoolExecutor, games: Iterator[ScheduledGame],
              running: dict[cf.Future[GameRecord], tuple[ScheduledGame, int]]) -> None:
        while len(running) < self.concurrency:
            game = next(games, None)
            if game is None:
                return
            slot = self.slot_for(game, {slot for _, slot in running.values()})
            self.store.mark_running(game.key)
            self.live.start(game.key, game.round, list(game.seats))
            running[pool.submit(self._play, self.task(game, slot))] = (game, slot)

    def slot_for(self, game: ScheduledGame, busy: set[int]) -> int:
        """The free slot to play ``game`` in: the first, or with ``keep_bots`` the first
        of those where most of its players' programs wait."""
        free = sorted(set(range(1, self.concurrency + 1)) - busy)
        if not self.pools:
            return free[0]
        players = [self.players[name] for name in game.seats]
        return max(free, key=lambda s: self.pools[s].holding(players))

    def _slot_prefix(self, slot: int) -> str:
        """Game slot ``slot``'s folder relative to the store's, ``/``-separated."""
        folder = os.path.relpath(slot_folder(self.tournament.output, slot), self.store.folder)
        return Path(folder).as_posix()

    def task(self, game: ScheduledGame, slot: int = 1) -> GameTask:
        """The adapter's view of a scheduled game, played in game slot ``slot``."""
        seats = tuple(self.players[name] for name in game.seats)
        return GameTask(game.key, seats, game.seed, game.opening, game.round, slot)

    def _play_locally(self, task: GameTask) -> GameRecord:
        work = slot_folder(self.tournament.output, task.slot)
        task = pin_task(task, self._pinning)
        if task.slot in self.pools:
            task = dataclasses.replace(task, pool=self.pools[task.slot])

        def note(process: BotProcess) -> None:
            if process.games > 1:  # kept from an earlier game: noted since its first
                return  # (under its slot's kept name, see ``commit``)
            if process.pid is None:  # about to start: its mark first, so that a crash of
                # the referee at any instant leaves a trace the next run can kill it by
                self.store.note_process(0, time.time(), task.key, process.token)
            else:
                try:
                    started = psutil.Process(process.pid).create_time()
                except psutil.Error:
                    return
                self.store.note_process(process.pid, started, task.key, process.token)

        def moved(record: GameRecord) -> None:
            self.live.moved(task.key, record)

        with (spawn_listener(note), move_listener(moved),
              pinned_thread(thread_cpus(task, self._pinning))):
            return play_task(self.tournament.adapter, self.tournament.settings, task, work)

    # -- SPRT and leftovers ---------------------------------------------------------------
    def _check_sprt(self) -> None:
        if self.sprt is None or self.sprt_verdict or self.tally.head_to_head is None:
            return
        verdict = self.tally.head_to_head.verdict(self.sprt)
        if verdict is not None:
            self.sprt_verdict = verdict
            self.store.set_meta("sprt_verdict", verdict)


def play_task(adapter: GameAdapter, settings: object, task: GameTask,
              work: Path) -> GameRecord:
    """Play ``task`` with ``adapter`` in the folder ``work`` (a game slot's): its record,
    with its round and each seat's part of its stderr log (``PlayerInfo.stderr``, the path
    relative to ``work``; the runner makes it relative to the store's folder)."""
    with seat_logs() as logs:
        record = adapter.play(settings, task, work)
    logs.note(record, work)  # adapters return once every bot of the game is stopped
    record.round = task.round
    return record


def kill_orphans(store: Store) -> None:
    """Kill the bot processes a crashed run left (noted in ``store``), then forget them:
    each noted process tree, and every process carrying a noted mark in its environment
    (what outlived its first process, as a sandboxed bot whose sandbox was killed)."""
    noted = store.noted_bots()
    for pid, started, _ in noted:
        if pid <= 0:  # noted before it started: found by its mark below
            continue
        try:
            proc = psutil.Process(pid)
            if abs(proc.create_time() - started) > 0.01:
                continue
        except psutil.Error:
            continue
        log.warning("killing bot process %d left by an earlier run", pid)
        ProcessTree(pid).kill()
    tokens = {token for _, _, token in noted if token}
    for pid in marked_any(tokens) if tokens else ():
        log.warning("killing bot process %d left by an earlier run", pid)
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    store.clear_processes()


def _kept_key(slot: int) -> str:
    """What the store notes slot ``slot``'s kept programs under, between games."""
    return f"kept:{slot}"


def slot_folder(output: Path, slot: int) -> Path:
    """The folder of game slot ``slot``: its bots' working folders and stderr logs.

    Games that run at the same time have different slots, so two instances of one program
    never share a working folder or a log.
    """
    return output / "slots" / str(slot)


__all__ = ["Progress", "Tally", "TournamentRunner", "kill_orphans", "play_task", "slot_folder"]
