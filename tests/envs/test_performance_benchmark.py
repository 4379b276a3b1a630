"""PettingZoo's own ``performance_benchmark`` on every environment, as the issue asks of
the test suite: five seconds of random legal play through resets, with no error, and the
turns it counts. (The speed targets are measured by benchmarks/bench_envs.py, not here.)"""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from pettingzoo.test import performance_benchmark

from referee.envs import GAMES, make

OPTIONS = {"gomoku": {"size": 9}, "riichi": {"game": "east"}}


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_performance_benchmark_runs(game: str) -> None:
    env = make(game, **OPTIONS.get(game, {}))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        performance_benchmark(env)
    found = re.search(r"([0-9.]+) turns per second", printed.getvalue())
    assert found, printed.getvalue()
    assert float(found.group(1)) > 0
    assert "Finished performance benchmark" in printed.getvalue()
