"""A tournament plays its games at once whatever the referee's soft limit on open files:
it raises the limit for them (each running bot holds about 20 descriptors of the
referee's), says when even the hard limit is too low, and never lets a bot lose a game
because the referee's machine could not start it."""

from __future__ import annotations

import resource
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.core.open_files import FILES_PER_BOT
from referee.tournament.store import Store

INSTANT = Path(__file__).resolve().parents[1] / "brains" / "instant.py"


def limited(soft: int, hard: int | None = None) -> Callable[[], None]:
    """What the child runs before the referee: its limit on open files (``hard``: its
    hard one too, which it cannot raise again)."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (
            soft, resource.getrlimit(resource.RLIMIT_NOFILE)[1] if hard is None else hard))
    return limit


def write_tournament(tmp_path: Path, concurrency: int, players: int = 4,
                     brain: Path = INSTANT) -> Path:
    """``tmp_path/t.toml``: a double round robin of ``players`` copies of ``brain`` (the
    instant brain) on a 9x9 board, played into ``tmp_path/out``."""
    path = tmp_path / "t.toml"
    path.write_text(f'name = "many"\ngame = "gomoku"\nconcurrency = {concurrency}\n'
                    'output = "out"\n[schedule]\nkind = "round-robin"\nrounds = 2\n'
                    '[settings]\nsize = 9\n' + "".join(
                        f'[[players]]\nname = "p{i}"\ncommand = "{sys.executable} '
                        f'{brain}"\n' for i in range(players)))
    return path


def tournament(tmp_path: Path, concurrency: int, players: int = 4,
               before: Callable[[], None] | None = None) -> subprocess.CompletedProcess[str]:
    """``referee tournament`` of :func:`write_tournament`'s file, with ``before`` run
    first in the child."""
    path = write_tournament(tmp_path, concurrency, players)
    return subprocess.run([sys.executable, "-m", "referee.cli", "tournament", str(path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          preexec_fn=before)


def assert_every_game_played_normally(tmp_path: Path, count: int) -> None:
    store = Store.open_existing(tmp_path / "out")
    try:
        games = store.games()
        assert len(games) == count and {g.status for g in games} == {"done"}
        assert {g.outcome for g in games} <= {"normal"}, [g.reason for g in games]
    finally:
        store.close()


def test_a_low_soft_limit_is_raised_for_the_games_at_once(tmp_path: Path) -> None:
    """Eight games at once with a soft limit of 120 descriptors: with the limit as it
    was, bots could not start (``Too many open files``)."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 1024:
        pytest.skip(f"a hard limit of {hard} open files here")
    run = tournament(tmp_path, 8, before=limited(120))
    assert run.returncode == 0, run.stderr[-3000:]
    assert "the limit on open files" not in run.stderr
    assert_every_game_played_normally(tmp_path, 24)


def test_a_hard_limit_too_low_is_said_with_what_to_do(tmp_path: Path) -> None:
    """The soft limit goes up to the hard one at most; the bots it holds are counted."""
    script = textwrap.dedent("""
        import resource
        from referee.core.open_files import make_room_for
        print(make_room_for(3), resource.getrlimit(resource.RLIMIT_NOFILE)[0])
        print(make_room_for(100), resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=60, preexec_fn=limited(100, 400))
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[:2] == [
        f"None {256 + 3 * FILES_PER_BOT}", f"{(400 - 256) // FILES_PER_BOT} 400"]

    run = tournament(tmp_path, 20, players=2, before=limited(400, 400))
    assert run.returncode == 0, run.stderr[-3000:]
    warning = [line for line in run.stderr.splitlines() if "open files" in line]
    assert len(warning) == 1 and "holds about 6 bots at once, not the 40 of 20 games" in \
        warning[0] and "raise the limit (ulimit -Hn" in warning[0], run.stderr


@pytest.mark.parametrize("keep", [False, True])
def test_the_room_made_counts_the_programs_kept_between_games(tmp_path: Path,
                                                             keep: bool) -> None:
    """With ``keep_bots`` each slot also keeps idle programs (two per seat), which hold
    the referee's descriptors too: the soft limit is raised for them as well."""
    path = write_tournament(tmp_path, 8)
    if keep:
        path.write_text("keep_bots = true\n" + path.read_text())
    script = textwrap.dedent(f"""
        import resource
        from referee.tournament.session import prepare
        tournament, store = prepare(__import__("pathlib").Path({str(path)!r}))
        store.close()
        print(resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120, preexec_fn=limited(100))
    assert run.returncode == 0, run.stderr[-3000:]
    bots = 8 * 2 * (3 if keep else 1)  # 8 games of 2 players (and 2 kept per seat)
    assert int(run.stdout.split()[-1]) == 256 + bots * FILES_PER_BOT, run.stdout


def test_a_bot_that_cannot_start_for_the_referee_s_limit_does_not_lose_for_it(
        tmp_path: Path) -> None:
    """Too many games at once for a hard limit of 200 open files: a bot that cannot
    start for it does not lose its game. The run stops with one line saying what to do,
    and the same command, with room, plays the games left; none is lost for it."""
    short = tournament(tmp_path, 12, before=limited(200, 200))
    assert short.returncode == 2, short.stderr[-3000:]
    last = short.stderr.strip().splitlines()[-1]
    assert last.startswith("referee: error: ") and "Too many open files" in last
    assert "raise its limits (ulimit -n" in last and "Traceback" not in short.stderr
    again = tournament(tmp_path, 12)
    assert again.returncode == 0, again.stderr[-3000:]
    assert_every_game_played_normally(tmp_path, 24)


def test_a_referee_that_cannot_start_a_thread_stops_in_one_line(tmp_path: Path) -> None:
    """No thread to be had (``ulimit -u`` reached: a thread counts as a process) when a
    bot has just started: the bot is killed, the run stops with one line saying what to
    do, and the same command plays every game; none is lost by a bot."""
    brain = tmp_path / "brain.py"  # (its own path: no process may be left running it)
    brain.write_text(INSTANT.read_text())
    (tmp_path / "run.py").write_text(textwrap.dedent(f"""
        import sys, threading
        start, started = threading.Thread.start, []
        def failing(thread):
            if thread.name.startswith("stderr-"):
                started.append(thread.name)
                if len(started) > 6:
                    raise RuntimeError("can't start new thread")
            start(thread)
        threading.Thread.start = failing
        sys.argv = ["referee", "tournament", {str(tmp_path / "t.toml")!r}]
        from referee.cli import main
        main()
    """))
    path = write_tournament(tmp_path, 4, brain=brain)
    run = subprocess.run([sys.executable, str(tmp_path / "run.py")], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 2, run.stderr[-3000:]
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("referee: error: ") and "can't start new thread" in last
    assert "raise its limits (ulimit -n, ulimit -u)" in last and "Traceback" not in run.stderr
    left = subprocess.run(["pgrep", "-f", str(brain)], capture_output=True, text=True)
    assert left.stdout == "", left.stdout
    again = subprocess.run([sys.executable, "-m", "referee.cli", "tournament", str(path)],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    assert_every_game_played_normally(tmp_path, 24)
