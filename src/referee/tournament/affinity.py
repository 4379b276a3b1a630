"""CPU pinning of concurrent games (``affinity = true``, as fastchess's ``-use-affinity``).

Each game slot gets CPUs of its own, so that two games played at once never share a core
and a player's speed does not depend on what the other games do. With enough cores every
player of every slot has a CPU of its own; with fewer, the players of one slot share the
slot's CPU; with fewer cores than slots nothing is pinned. Players suspended off turn run
one at a time, so their game needs one CPU: they share their slot's. A player whose
``cpus`` the file names keeps them.

The thread that plays a game (its referee: the pipes' writes and reads, the rules) runs
on its players' CPUs while it plays (:func:`pinned_thread`). A bot woken on the CPU of the
thread that woke it costs both a fraction of a wake-up on another CPU (on a virtual
machine, where waking another CPU exits to the hypervisor, most of a move's cost).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
from collections.abc import Iterator, Sequence

from referee.core.adapter import GameTask

log = logging.getLogger(__name__)

__all__ = ["SlotCpus", "available_cpus", "describe_plan", "pin_task", "pinned_thread",
           "slot_cpus", "thread_cpus"]

SlotCpus = dict[int, tuple[tuple[int, ...], ...]]
"""For each game slot (1, 2, ...), the CPUs of each seat."""


def available_cpus() -> list[int]:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


def slot_cpus(cpus: Sequence[int], slots: int, seats: int,
              turns: bool = False) -> SlotCpus | None:
    """Which CPUs each seat of each slot runs on: one per seat when ``slots * seats``
    CPUs are there, else one per slot shared by its seats, else ``None`` (too few).
    ``turns``: the players are suspended off turn (one runs at a time), so one CPU per
    slot, shared by its seats, whatever the number of CPUs."""
    if slots * seats <= len(cpus) and not turns:
        return {slot: tuple((cpus[(slot - 1) * seats + seat],) for seat in range(seats))
                for slot in range(1, slots + 1)}
    if slots <= len(cpus):
        return {slot: ((cpus[slot - 1],),) * seats for slot in range(1, slots + 1)}
    return None


def pin_task(task: GameTask, plan: SlotCpus | None) -> GameTask:
    """``task`` with each seat's player pinned to its slot's CPUs (unless the player
    names its own)."""
    if plan is None or task.slot not in plan:
        return task
    cpus = plan[task.slot]
    seats = tuple(player if player.cpus else dataclasses.replace(player, cpus=cpus[seat])
                  for seat, player in enumerate(task.seats) if seat < len(cpus))
    return dataclasses.replace(task, seats=seats + task.seats[len(seats):])


def thread_cpus(task: GameTask, plan: SlotCpus | None) -> set[int] | None:
    """The CPUs the thread playing ``task`` (pinned by :func:`pin_task`) runs on: those of
    its players, a player's own ``cpus`` included (``None``: not pinned, as when a
    player is not)."""
    if plan is None or not task.seats or not all(p.cpus for p in task.seats):
        return None
    return {cpu for player in task.seats for cpu in player.cpus}


@contextlib.contextmanager
def pinned_thread(cpus: set[int] | None) -> Iterator[None]:
    """Run the calling thread on ``cpus`` for the block (nothing if ``None``), then on
    the CPUs it had (a pool's thread plays games of other slots after). What it starts
    meanwhile (its bots, their pipes' threads) starts on ``cpus``."""
    if cpus is None or not hasattr(os, "sched_setaffinity"):
        yield
        return
    before = os.sched_getaffinity(0)  # (0: the calling thread)
    try:
        os.sched_setaffinity(0, cpus)
    except OSError as exc:  # (a CPU taken offline since the plan): the game is played
        log.warning("cannot run on CPUs %s (%s): this game is not pinned",
                    sorted(cpus), exc)
        yield
        return
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def describe_plan(plan: SlotCpus | None, cpus: Sequence[int], slots: int,
                  turns: bool = False) -> str:
    """One line saying how the games are pinned (``turns``: as :func:`slot_cpus`)."""
    if plan is None:
        return (f"affinity: off ({slots} games at once, {len(cpus)} CPUs: fewer CPUs than "
                "games)")
    if not any(len(set(seats)) < len(seats) for seats in plan.values()):
        return "affinity: each player of each game on a CPU of its own"
    turns_text = " (suspended off turn: one runs at a time)" if turns else ""
    return f"affinity: each game on a CPU of its own, shared by its players{turns_text} " \
        "and its referee"
