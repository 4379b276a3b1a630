"""CPU pinning of concurrent games (``affinity = true``, as fastchess's ``-use-affinity``).

Each game slot gets CPUs of its own, so that two games played at once never share a core
and a player's speed does not depend on what the other games do. With enough cores every
player of every slot has a CPU of its own; with fewer, the players of one slot share the
slot's CPU; with fewer cores than slots nothing is pinned. A player whose ``cpus`` the file
names keeps them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence

from referee.core.adapter import GameTask

__all__ = ["SlotCpus", "available_cpus", "describe_plan", "pin_task", "slot_cpus"]

SlotCpus = dict[int, tuple[tuple[int, ...], ...]]
"""For each game slot (1, 2, ...), the CPUs of each seat."""


def available_cpus() -> list[int]:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


def slot_cpus(cpus: Sequence[int], slots: int, seats: int) -> SlotCpus | None:
    """Which CPUs each seat of each slot runs on: one per seat when ``slots * seats``
    CPUs are there, else one per slot shared by its seats, else ``None`` (too few)."""
    if slots * seats <= len(cpus):
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


def describe_plan(plan: SlotCpus | None, cpus: Sequence[int], slots: int) -> str:
    """One line saying how the games are pinned."""
    if plan is None:
        return (f"affinity: off ({slots} games at once, {len(cpus)} CPUs: fewer CPUs than "
                "games)")
    shared = any(len(set(seats)) < len(seats) for seats in plan.values())
    return ("affinity: each game on a CPU of its own, shared by its players" if shared
            else "affinity: each player of each game on a CPU of its own")
