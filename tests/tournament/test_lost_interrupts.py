"""An interrupt whose ``KeyboardInterrupt`` lands in a finalizer is lost to Python (reported
as "Exception ignored"), not to the referee: the command's handler keeps it, and the loops
that wait long (the players' check, the games of a run) end on it all the same. (A run went on
checking 20,000 players after SIGTERM, its raise swallowed in a weak set's callback.)"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from referee.cli.support import sigterm_interrupts
from referee.core import interrupts
from referee.core.adapter import GameTask
from referee.core.record import GameRecord
from referee.tournament.session import check_players


@pytest.fixture(autouse=True)
def no_interrupt_left() -> Iterator[None]:
    """Each test starts, and leaves the next one, with no interrupt noted."""
    interrupts.clear()
    yield
    interrupts.clear()


def test_a_sigterm_raised_in_a_finalizer_is_lost_to_python_but_kept() -> None:
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers are set in the main thread only")
    reported: list[object] = []

    class Dying:
        def __init__(self, fault: type[BaseException] | None = None) -> None:
            self.fault = fault

        def __del__(self) -> None:
            if self.fault is not None:
                raise self.fault
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0)  # (the handler runs here, in the finalizer)

    def recording(unraisable: Any) -> None:
        reported.append(unraisable.exc_type)

    hook = sys.unraisablehook
    sys.unraisablehook = recording
    try:
        with sigterm_interrupts():
            assert not interrupts.asked()
            dying = Dying()
            del dying  # the raise is lost: this line goes on
            assert interrupts.asked()
            assert reported == []  # kept, so not reported ("Exception ignored in ...")
            with pytest.raises(KeyboardInterrupt):
                interrupts.raise_if_asked()
            other = Dying(ValueError)
            del other
            assert reported == [ValueError]  # any other lost exception is reported
        assert not interrupts.asked()  # left with the block, as its handlers are
        assert sys.unraisablehook is recording  # put back by the block
    finally:
        sys.unraisablehook = hook
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    interrupts.raise_if_asked()  # (nothing to raise)


def test_the_players_check_ends_on_an_interrupt_whose_raise_was_lost(
        tmp_path: Path) -> None:
    started: list[str] = []

    def check_player(settings: object, player: SimpleNamespace, folder: Path) -> None:
        started.append(player.name)
        if len(started) == 10:
            interrupts.note()  # as the handler does, its raise then swallowed
        time.sleep(0.02)

    tournament = SimpleNamespace(
        output=tmp_path, settings=None, source="t.toml",
        adapter=SimpleNamespace(check_player=check_player),
        players=[SimpleNamespace(name=f"p{i}") for i in range(2000)])
    began = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        check_players(cast(Any, tournament), 2)
    assert time.monotonic() - began < 5, len(started)  # all 2,000 would take 20 s
    assert len(started) < 100, len(started)


class Stalling:
    """Games that never end until cancelled; the first notes an interrupt (its raise lost)."""

    def __init__(self) -> None:
        self.started = 0
        self.cancelled = threading.Event()

    def __call__(self, task: GameTask) -> GameRecord:
        self.started += 1
        interrupts.note()
        self.cancelled.wait(60)
        raise RuntimeError("cancelled")

    def cancel(self) -> None:
        self.cancelled.set()


def test_a_run_ends_on_an_interrupt_whose_raise_was_lost(tmp_path: Path) -> None:
    from referee.tournament.runner import TournamentRunner
    from referee.tournament.session import prepare

    lines = ['game = "gomoku"', "[settings]", "size = 9"]
    for name in "abc":
        lines += ["[[players]]", f'name = "{name}"', 'builtin = "random"']
    (tmp_path / "t.toml").write_text("\n".join(lines) + "\n")
    tournament, store = prepare(tmp_path / "t.toml", tmp_path / "out", 2, None)
    play = Stalling()
    try:
        began = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            TournamentRunner(tournament, store, concurrency=2, play=play).run()
        assert time.monotonic() - began < 10  # not the games' 60 s
        assert play.cancelled.is_set() and play.started in (1, 2)
        assert store.count("done") == 0
    finally:
        store.close()


def test_a_dataset_ends_on_an_interrupt_whose_raise_was_lost(tmp_path: Path) -> None:
    """``referee dataset`` over endless sources stops on it, nothing written."""
    from referee.games.registry import game_data
    from referee.training.dataset import write_dataset

    def sources() -> Iterator[tuple[str, GameRecord | Exception]]:
        for number in range(1_000_000):
            if number == 10:
                interrupts.note()
            yield f"bad-{number}", ValueError("not a record")

    with pytest.raises(KeyboardInterrupt):
        write_dataset(game_data("gomoku"), sources(), tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_shuffle_ends_on_an_interrupt_whose_raise_was_lost(tmp_path: Path) -> None:
    """``referee shuffle`` stops on it as it reads, no output and no temporary left."""
    from referee.training.shuffle import shuffle_lines

    source = tmp_path / "lines.txt"
    source.write_bytes(b"".join(b"line %d\n" % n for n in range(200_000)))
    interrupts.note()
    with pytest.raises(KeyboardInterrupt):
        shuffle_lines([source], tmp_path / "out.txt", memory=1 << 20)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lines.txt"]
