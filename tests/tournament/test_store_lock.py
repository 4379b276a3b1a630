"""One referee at a time on a tournament's store: a second run is refused with one line
naming the first, a crashed run leaves no lock behind, and two runs started at once on
one store play every game exactly once."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from referee.core.errors import ConfigError
from referee.tournament.store import Store
from referee.tournament.store_lock import StoreLock

INSTANT = Path(__file__).resolve().parents[1] / "brains" / "instant.py"


def test_a_second_claim_names_the_first_and_succeeds_once_it_is_released(
        tmp_path: Path) -> None:
    first, second = StoreLock(tmp_path / "out"), StoreLock(tmp_path / "out")
    first.acquire()
    with pytest.raises(ConfigError) as refused:
        second.acquire()
    text = str(refused.value)
    assert "another referee is running this tournament" in text
    assert f"pid {os.getpid()} on " in text and "since 20" in text
    first.release()
    second.acquire()
    assert second.held
    second.release()


def test_a_run_killed_with_sigkill_leaves_no_lock(tmp_path: Path) -> None:
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from referee.tournament.store_lock import StoreLock
        StoreLock(Path({str(tmp_path / "out")!r})).acquire()
        print("held", flush=True)
        time.sleep(60)
    """)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    with pytest.raises(ConfigError, match=f"pid {holder.pid} on "):
        StoreLock(tmp_path / "out").acquire()
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    after = StoreLock(tmp_path / "out")
    after.acquire()  # no --force, no stale file to remove
    after.release()


def test_an_output_folder_that_cannot_be_made_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(ConfigError) as refused:
        StoreLock(tmp_path / "file" / "out").acquire()
    assert "cannot write the output folder" in str(refused.value)
    assert "--out" in str(refused.value)


def test_a_store_claimed_is_released_by_closing_it(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.claim()
    with pytest.raises(ConfigError):
        Store(tmp_path).claim()
    store.close()
    again = Store(tmp_path)
    again.claim()
    again.close()


def test_two_tournaments_started_at_once_on_one_store_play_every_game_once(
        tmp_path: Path) -> None:
    slow = tmp_path / "slow.py"  # the instant brain, a little slow to start
    slow.write_text("import runpy, sys, time\ntime.sleep(0.3)\n"
                    "runpy.run_path(sys.argv[1], run_name='__main__')\n")
    players = "".join(f'[[players]]\nname = "p{i}"\n'
                      f'command = "{sys.executable} {slow} {INSTANT}"\n' for i in range(3))
    path = tmp_path / "t.toml"
    path.write_text(f'name = "locked"\ngame = "gomoku"\nconcurrency = 1\noutput = "out"\n'
                    f'[settings]\nsize = 10\n{players}')
    command = [sys.executable, "-m", "referee.cli", "tournament", str(path)]
    runs = [subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [run.communicate(timeout=300) for run in runs]
    codes = sorted(run.returncode for run in runs)
    assert codes == [0, 2], results
    refused = next(err for run, (_, err) in zip(runs, results, strict=True)
                   if run.returncode == 2)
    *before, line = refused.strip().splitlines()
    # (on a loaded machine the file's reading can pass half a second, and is said)
    assert before in ([], [f"referee: reading {path}"]), refused
    assert line.startswith(f"referee: error: {tmp_path / 'out'}: another referee is "
                           "running this tournament (pid ")
    store = Store.open_existing(tmp_path / "out")
    try:
        games = store.games()
        assert len(games) == 6 and {g.status for g in games} == {"done"}
        assert len({g.key for g in games}) == 6
    finally:
        store.close()
    records = (tmp_path / "out" / "records.jsonl").read_text().splitlines()
    assert len(records) == 6


def test_a_lock_left_to_the_last_bots_of_a_dead_run_is_waited_for(tmp_path: Path) -> None:
    """``kill -9`` of a run as it starts a bot: the bot holds the lock (the run's open
    file, inherited between fork and exec) a moment after the run is gone. The next run
    waits for it, instead of blaming a process that no longer exists."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a pid that has ended
    made = StoreLock(tmp_path / "out")
    made.acquire()  # makes the folder and the file
    made.release()

    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import fcntl, os, sys, time
        fd = os.open({str(tmp_path / "out" / "tournament.lock")!r}, os.O_RDWR)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.pwrite(fd, b"pid {dead.pid} on {socket.gethostname()}, since then\\n", 0)
        print("held", flush=True)
        time.sleep(1.5)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "held\n"
        lock = StoreLock(tmp_path / "out")
        lock.acquire()  # waits for the child to end
        assert lock.held and child.poll() is not None
        lock.release()
    finally:
        child.kill()
        child.wait()


def test_a_live_holder_is_not_waited_for(tmp_path: Path) -> None:
    first = StoreLock(tmp_path / "out")
    first.acquire()
    try:
        with pytest.raises(ConfigError, match="another referee is running"):
            StoreLock(tmp_path / "out").acquire()
    finally:
        first.release()
