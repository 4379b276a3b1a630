"""A tournament's start says what it is doing when a step takes long (a file of 20,000
players: minutes of starting each once), and nothing when it does not."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from referee.tournament.session import check_players
from referee.tournament.slow_steps import SlowStep, slow_step


def test_a_quick_step_says_nothing_and_a_slow_one_says_what_and_how_far() -> None:
    said: list[str] = []
    with slow_step(said.append, "quick", 3):
        pass
    assert said == []
    step = SlowStep(said.append, "counting the things", 3, first=0.05, every=0.1)
    step.start()
    time.sleep(0.1)
    for _ in range(2):
        step.done_one()
    time.sleep(0.15)
    step.stop()
    assert said[0] == "counting the things"
    assert said[1:] and set(said[1:]) == {"counting the things: 2 of 3 done"}, said
    count = len(said)
    time.sleep(0.15)
    assert len(said) == count  # nothing after the step's end


def test_a_file_of_20000_players_is_said_within_a_second_or_so(tmp_path: Path) -> None:
    lines = ['game = "gomoku"', "[schedule]", 'kind = "gauntlet"', "[settings]", "size = 9"]
    for i in range(20_000):
        lines += ["[[players]]", f'name = "p{i}"', 'builtin = "random"']
    (tmp_path / "big.toml").write_text("\n".join(lines) + "\n")
    started = time.monotonic()
    run = subprocess.Popen([sys.executable, "-m", "referee.cli", "tournament", "big.toml",
                            "-j", "2"], cwd=tmp_path, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    said: list[tuple[float, str]] = []

    def read() -> None:
        assert run.stderr is not None
        for line in run.stderr:
            said.append((time.monotonic() - started, line.rstrip("\n")))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(
                "to check it" in text for _, text in said):
            time.sleep(0.05)
    finally:
        run.send_signal(signal.SIGTERM)  # as Ctrl-C: the run stops, to be resumed
        run.wait(timeout=60)
        reader.join()
    assert said, "nothing said"
    first_at, first = said[0]
    check_line = "referee: starting each of the 20,000 players once to check it, 2 at a time"
    # half a second into reading it, or (a fast machine: the file read within that half
    # second, so the reading is not said) the next step's words
    assert first in ("referee: reading big.toml", check_line), said
    assert first_at < 4, said  # (start-up, a loaded machine)
    checking = [at for at, text in said if text == check_line]
    assert checking and checking[0] < 8, said  # the file read in a second or two (its
    # names were checked for repeats in quadratic time: 7 s more)
    assert run.returncode == 130 and said[-1][1].startswith("referee: interrupted"), said


def test_an_interrupt_while_the_players_are_checked_starts_no_more_of_them(
        tmp_path: Path) -> None:
    """Ctrl-C (or SIGTERM) during the check of thousands of players ends it at once: the
    checks queued are cancelled, not each run before the command stops. (The interrupt
    lands as the checks are queued, where the pool's own cancelling never sees it.)"""
    started: list[str] = []

    def check_player(settings: object, player: SimpleNamespace, folder: Path) -> None:
        started.append(player.name)
        time.sleep(0.05)

    class Interrupted(list[SimpleNamespace]):
        """2,000 players, and Ctrl-C as the last is queued."""

        def __iter__(self) -> Iterator[SimpleNamespace]:
            yield from super().__iter__()
            raise KeyboardInterrupt

    tournament = SimpleNamespace(
        output=tmp_path, settings=None, source="t.toml",
        adapter=SimpleNamespace(check_player=check_player),
        players=Interrupted(SimpleNamespace(name=f"p{i}") for i in range(2000)))
    began = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        check_players(cast(Any, tournament), 2)
    assert time.monotonic() - began < 5, len(started)  # all 2,000 would take 50 s
    assert len(started) < 100, len(started)
