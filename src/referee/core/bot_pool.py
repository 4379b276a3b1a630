"""Bots kept alive between the games of a tournament (``keep_bots = true``).

Starting a program for every game costs the referee a process start and a kill (more in
a sandbox), and costs a program that loads a large book or network its whole start-up
again. Where a game's protocol can begin a new game with a running program (Gomocup's
``RESTART``), a tournament may keep each program alive between games: each game slot has
a :class:`BotPool` of the idle programs it played, and the next game of the same player
in that slot takes its program from the pool instead of starting one.

The pool knows no game: it holds what a game gives it (a game's wrapper of the process,
such as a Gomocup brain), with the process and a way to end it. A program is kept only
if the game returns it, so a program that faulted (crash, timeout, illegal answer,
memory) is never kept; one that died while idle is dropped when it is asked for. Idle
programs are suspended (they use no CPU while they wait); at most ``capacity`` of them
are kept per slot, the one idle longest ended first. A program pinned to other CPUs than
its next game's seat (``affinity`` with a CPU per player) is moved to the seat's CPUs,
every thread of every process of it, while it is suspended (it cannot start one then).
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TypeVar

from referee.core.limits import REFEREE_CPUS
from referee.core.players import PlayerSpec
from referee.core.process import BotProcess

log = logging.getLogger(__name__)

T = TypeVar("T")
_Key = tuple[str, tuple[str, ...]]
"""A player's name and command."""

__all__ = ["BotPool"]


@dataclass
class _Kept:
    bot: object
    process: BotProcess
    stop: Callable[[], None]
    cpus: tuple[int, ...]
    """The CPUs it runs on (none: any)."""


def _key(player: PlayerSpec) -> _Key:
    """What makes two players' programs interchangeable: the name and the command (the
    CPUs are changed if they differ: :func:`_move`)."""
    return player.name, tuple(player.command)


class BotPool:
    """The idle programs of one game slot, by player (see the module)."""

    def __init__(self, capacity: int) -> None:
        """An empty pool that keeps at most ``capacity`` idle programs."""
        self.capacity = max(0, capacity)
        self._idle: OrderedDict[_Key, _Kept] = OrderedDict()
        self._lock = threading.Lock()
        self.taken = 0
        """How many programs games took from the pool (reused instead of started)."""

    def take(self, player: PlayerSpec, kind: type[T]) -> T | None:
        """``player``'s idle program if the pool has one that still runs (a ``kind``),
        taken out of the pool; ``None`` otherwise (the game starts one)."""
        with self._lock:
            kept = self._idle.pop(_key(player), None)
        if kept is None:
            return None
        if not kept.process.running or not isinstance(kept.bot, kind):
            log.info("%s: its kept program is gone (%s), starting another",
                     player.name, kept.process.returncode)
            kept.process.kill()  # (its resources)
            return None
        if kept.cpus != player.cpus and not _move(kept, player.cpus):
            _end(kept)
            return None
        self.taken += 1
        return kept.bot

    def keep(self, player: PlayerSpec, bot: object, process: BotProcess,
             stop: Callable[[], None]) -> None:
        """Keep ``bot`` (``player``'s program, whose process is ``process``) for the
        next game; ``stop`` ends it (when the pool is full or closed). A process that no
        longer runs is not kept."""
        if not process.running or self.capacity == 0:
            stop()
            return
        process.suspend()
        process.end_game()
        with self._lock:
            old = self._idle.pop(_key(player), None)
            self._idle[_key(player)] = _Kept(bot, process, stop, player.cpus)
            evicted = [old] if old is not None else []
            while len(self._idle) > self.capacity:
                evicted.append(self._idle.popitem(last=False)[1])
        for kept in evicted:
            _end(kept)

    def holding(self, players: Collection[PlayerSpec]) -> int:
        """How many of ``players`` have an idle program here (by name)."""
        with self._lock:
            names = {key[0] for key in self._idle}
        return sum(p.name in names for p in players)

    def processes(self) -> list[BotProcess]:
        """The idle programs' processes."""
        with self._lock:
            return [kept.process for kept in self._idle.values()]

    def close(self) -> None:
        """End every idle program (their ``stop``); the pool is empty afterwards."""
        with self._lock:
            idle = list(self._idle.values())
            self._idle.clear()
        for kept in idle:
            _end(kept)


def _move(kept: _Kept, cpus: tuple[int, ...]) -> bool:
    """Run every thread of the kept program's processes on ``cpus`` (none: on the CPUs
    the referee may use); whether it could be done (if not, a program is started
    instead)."""
    if REFEREE_CPUS is None:  # (the system cannot pin: nothing was)
        kept.cpus = kept.process.cpus = cpus
        return True
    allowed = set(cpus) if cpus else REFEREE_CPUS
    try:
        for pid in kept.process.alive_processes():
            try:
                tasks = os.listdir(f"/proc/{pid}/task")
            except FileNotFoundError:
                continue  # (ended meanwhile)
            for task in tasks:
                try:
                    os.sched_setaffinity(int(task), allowed)
                except ProcessLookupError:
                    continue
    except OSError as exc:
        log.warning("%s: cannot move its kept program to CPUs %s (%s): starting another",
                    kept.process.name, sorted(allowed), exc)
        return False
    kept.cpus = kept.process.cpus = cpus
    return True


def _end(kept: _Kept) -> None:
    """End a kept program; if that fails, kill it (the others must still be ended)."""
    try:
        kept.stop()
    except Exception:
        log.exception("ending a kept program failed: killing it")
        kept.process.kill()
