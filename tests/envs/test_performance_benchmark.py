"""PettingZoo's own ``performance_benchmark`` on every environment, as the issue asks of
the test suite: random legal play through resets, with no error, and the turns it counts.
It plays for five seconds of its clock; here that clock runs five times as fast, so each
run is one second of play (two games or more, each ended and reset; its five seconds took
20 s of the suite's CPU). The speed targets are measured by benchmarks/bench_envs.py."""

from __future__ import annotations

import contextlib
import importlib
import io
import re
import time
from typing import Any

import pytest
from pettingzoo.test import performance_benchmark

from referee.envs import GAMES, make

OPTIONS: dict[str, dict[str, Any]] = {"gomoku": {"size": 9}, "riichi": {"game": "east"}}
BENCHMARK = importlib.import_module("pettingzoo.test.performance_benchmark")
"""The benchmark's module (``pettingzoo.test``'s name of the same name is the function)."""
SPEED_UP = 5.0
"""How much faster than real time the benchmark's clock runs."""


class _FastClock:
    """``time`` as the benchmark's module sees it: ``time()`` runs ``SPEED_UP`` times as
    fast from the moment the clock is made."""

    def __init__(self) -> None:
        self.origin = time.time()

    def time(self) -> float:
        """Seconds, sped up."""
        return self.origin + (time.time() - self.origin) * SPEED_UP


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_performance_benchmark_runs(game: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    env = make(game, **OPTIONS.get(game, {}))
    monkeypatch.setattr(BENCHMARK, "time", _FastClock())
    resets = 0
    reset = env.reset

    def counted_reset(*args: Any, **kwargs: Any) -> Any:
        nonlocal resets
        resets += 1
        return reset(*args, **kwargs)

    monkeypatch.setattr(env, "reset", counted_reset)
    printed = io.StringIO()
    began = time.monotonic()
    with contextlib.redirect_stdout(printed):
        performance_benchmark(env)
    assert time.monotonic() - began < 5 * 0.8  # (the clock used is the sped-up one)
    found = re.search(r"([0-9.]+) turns per second", printed.getvalue())
    assert found, printed.getvalue()
    assert float(found.group(1)) > 0
    assert "Finished performance benchmark" in printed.getvalue()
    assert resets >= 3, resets  # (its first, and after each of two games or more)
