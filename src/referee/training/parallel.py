"""Run independent tasks on many cores or on a Ray cluster, results in order.

:func:`ordered_map` applies a picklable top-level function to items and yields the
results in the items' order, with a bounded number of tasks in flight (so memory stays
flat however many items there are): in this process (``jobs`` 1), in ``jobs`` worker
processes, or as Ray tasks (``ray``: ``local`` starts a private cluster of ``jobs`` CPUs
on 127.0.0.1; ``HOST:PORT``, ``ray://HOST:PORT`` or ``auto`` joins one, see
:mod:`referee.tournament.ray_runner`). Task functions should catch their own expected
errors and return them as data: an exception escaping a task stops the map.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

__all__ = ["ordered_map"]

T = TypeVar("T")
R = TypeVar("R")

WINDOW_PER_JOB = 4
"""Tasks in flight per worker: enough to keep each busy, few enough to bound memory."""


def ordered_map(function: Callable[[T], R], items: Iterable[T], jobs: int = 1,
                ray: str | None = None) -> Iterator[R]:
    """``function(item)`` for each item, in order, run as the module notes say."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    if ray is not None:
        yield from _ray_map(function, items, jobs, ray)
    elif jobs == 1:
        yield from map(function, items)
    else:
        context = multiprocessing.get_context("forkserver")
        with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context) as pool:
            try:
                yield from _windowed((lambda item: pool.submit(function, item)),
                                     lambda future: future.result(), items, jobs,
                                     collections.deque())
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise


def _windowed(submit: Callable[[Any], Any], result: Callable[[Any], Any],
              items: Iterable[Any], jobs: int, flight: collections.deque[Any]
              ) -> Iterator[Any]:
    """Submit items keeping at most ``jobs * WINDOW_PER_JOB`` in flight (in ``flight``,
    for the caller to cancel on errors); results in order."""
    limit = jobs * WINDOW_PER_JOB
    for item in items:
        flight.append(submit(item))
        if len(flight) >= limit:
            yield result(flight.popleft())
    while flight:
        yield result(flight.popleft())


def _ray_map(function: Callable[[T], R], items: Iterable[T], jobs: int,
             address: str) -> Iterator[R]:
    from referee.tournament.ray_runner import import_ray, start_ray

    ray = import_ray()
    owns = start_ray(address, jobs)
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(function)
        flight: collections.deque[Any] = collections.deque()
        try:
            yield from _windowed(remote.remote, ray.get, items, jobs, flight)
        except BaseException:
            for ref in flight:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
            raise
    finally:
        if owns:
            ray.shutdown()

