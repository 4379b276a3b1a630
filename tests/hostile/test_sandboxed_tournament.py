"""Tournaments with the sandbox on, through the real ``referee tournament`` command: a
referee killed with SIGKILL mid-run leaves no bot process behind (isolated, not even the
daemon a bot started; with the limits only, the resumed run kills what is left) and the
resumed tournament loses and repeats nothing; the
``[sandbox]`` table of the file, the ``--sandbox`` override and ``affinity = true``
reach every game (the sandbox line in the store, the records, the results site; a pinned
player notes its CPUs in its working folder)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from rich.console import Console

from proctags import TAG, kill_tagged, tagged
from referee.core.sandbox import SandboxLevel, sandbox_support
from referee.tournament.affinity import available_cpus
from referee.tournament.session import run_tournament
from referee.tournament.store import Store

INSTANT = Path(__file__).resolve().parents[1] / "brains" / "instant.py"
SUPPORT = sandbox_support()
needs_isolation = pytest.mark.skipif(
    not SUPPORT.usable, reason=f"needs the sandbox's isolation (bubblewrap): {SUPPORT.problem}")

FORKER = """
    # leaves a daemon (out of its session, its parent gone), then plays as instant.py
    import os, sys
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for fd in (0, 1, 2):
                os.close(fd)
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)",
                                      "forker-daemon"])
        os._exit(0)
    os.wait()
    os.execv(sys.executable, [sys.executable, sys.argv[1]])
"""
PINNED = """
    # notes the CPUs it may run on in its working folder, then plays as instant.py
    import os, sys
    with open("cpus.txt", "a") as notes:
        notes.write(" ".join(map(str, sorted(os.sched_getaffinity(0)))) + "\\n")
    os.execv(sys.executable, [sys.executable, sys.argv[1]])
"""


def program(folder: Path, name: str, text: str) -> str:
    """A player's command line: the Python script ``text`` in ``folder``, given
    instant.py to become."""
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    return f"{sys.executable} {path} {INSTANT}"


def tournament_file(folder: Path, head: str, players: dict[str, str], rounds: int = 1) -> Path:
    """A Gomoku round robin on a 9x9 board: ``head`` (top-level keys and tables before
    the schedule), ``players`` name -> a built-in name or a command line."""
    lines = ['name = "sandboxed"', 'game = "gomoku"', "seed = 5", textwrap.dedent(head),
             "[schedule]", 'kind = "round-robin"', f"rounds = {rounds}",
             "[settings]", "size = 9", "timeout_turn = 5000"]
    for name, player in players.items():
        key = "builtin" if " " not in player else "command"
        lines += ["[[players]]", f'name = "{name}"', f"{key} = {json.dumps(player)}"]
    path = folder / "sandboxed.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def referee(*args: str, cwd: Path, tag: str,
            env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """``referee ARGS`` as a program of its own; what it starts carries ``tag``;
    ``env``: more environment (``PATH`` without ``bwrap``: as on a machine without it)."""
    return subprocess.Popen([sys.executable, "-m", "referee.cli", *args], cwd=cwd,
                            env=dict(os.environ, **{TAG: tag}, **(env or {})),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def played(out: Path) -> dict[str, tuple[list[str], list[float], str, str]]:
    """Every finished game: key -> (moves, scores, outcome, sandbox line)."""
    store = Store.open_existing(out)
    try:
        return {r.settings["game_key"]: ([m.move for m in r.moves], r.scores or [],
                                         r.outcome.value if r.outcome else "", r.sandbox)
                for r in store.records()}
    finally:
        store.close()


def gone(tag: str, seconds: float = 3.0) -> list[int]:
    """The processes carrying ``tag`` still alive after up to ``seconds`` (the kernel
    takes a moment to end a killed namespace)."""
    deadline = time.monotonic() + seconds
    while (left := tagged(tag)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [p.pid for p in left]


@pytest.fixture
def tag(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A tag for this test's processes (also those started in this process); any left at
    the end are killed."""
    value = f"sandboxed-tournament-{time.time_ns()}"
    monkeypatch.setenv(TAG, value)
    yield value
    kill_tagged(value)


def daemon_running(tag: str) -> bool:
    """Whether a daemon left by the forker lives."""
    for proc in tagged(tag):
        with contextlib.suppress(psutil.Error):  # it may end while we look
            if "forker-daemon" in proc.cmdline():
                return True
    return False


@pytest.mark.slow
@pytest.mark.parametrize("sandbox", [pytest.param("isolated", marks=needs_isolation),
                                     "limits-only"])
def test_kill_9_of_a_sandboxed_tournament_leaves_no_bot_and_the_resume_loses_nothing(
        tmp_path: Path, tag: str, sandbox: str) -> None:
    players = {"r1": "random", "r2": "random",
               "forker": program(tmp_path, "forker", FORKER)}
    path = tournament_file(tmp_path, 'sandbox = "auto"', players, rounds=2)
    reference = tmp_path / "reference"
    run_tournament(path, Console(file=io.StringIO()), concurrency=2, out_dir=reference)
    games = {key: game[:3] for key, game in played(reference).items()}
    assert len(games) == 12
    assert not gone(tag)

    env = {"PATH": str(Path(sys.executable).parent)} if sandbox == "limits-only" else {}
    out = tmp_path / "out"
    proc = referee("tournament", str(path), "--out", str(out), "-j", "2",
                   cwd=tmp_path, tag=tag, env=env)
    limit = time.monotonic() + 60
    while Store.peek_done(out) < 4 or not daemon_running(tag):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < limit, "no game finished in time"
        time.sleep(0.005)
    proc.kill()  # SIGKILL: the referee cleans nothing up
    proc.communicate()
    killed_at = Store.peek_done(out)
    assert 4 <= killed_at < 12
    # Isolated, the bots of the games in progress die with the referee
    # (test_referee_killed.py checks it for a bot at any point of its game), except one
    # whose sandbox was being set up at that very instant: bubblewrap had not yet asked to
    # die with its parent. With the limits only, a daemon out of its session outlives it.
    # Either way the resume kills what is left by the marks the store noted before each
    # bot started.

    resumed = referee("tournament", str(path), "--out", str(out), "-j", "2",
                      cwd=tmp_path, tag=tag, env=env)
    stdout, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    assert f"({killed_at} already played)" in stdout
    again = played(out)
    # nothing lost, nothing played twice, move for move; all of it in the sandbox
    assert {key: game[:3] for key, game in again.items()} == games
    expected = SUPPORT.version if sandbox == "isolated" else "limits only"
    assert all(expected in game[3] for game in again.values())
    assert len((out / "records.jsonl").read_text().splitlines()) == 12
    assert not gone(tag)
    store = Store.open_existing(out)
    try:
        assert store.count("done") == 12 and store.count() == 12
        assert store.noted_processes() == []
    finally:
        store.close()


def test_the_sandbox_table_the_override_and_affinity_reach_every_game(
        tmp_path: Path, tag: str) -> None:
    cpus = available_cpus()
    if len(cpus) < 2:
        pytest.skip("one CPU: pinned and unpinned players look the same")
    head = """
        affinity = true
        concurrency = 1
        [sandbox]
        level = "off"
        max_processes = 32
        max_file_size = "8M"
        max_folder = "5M"
        suspend = false
    """
    players = {"r1": "random", "pinned": program(tmp_path, "pinned", PINNED)}
    path = tournament_file(tmp_path, head, players)
    out = tmp_path / "out"
    level = "auto" if SUPPORT.usable else "off"  # the file's "off" overridden, or kept
    proc = referee("tournament", str(path), "--out", str(out), "--sandbox", level,
                   cwd=tmp_path, tag=tag)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    if SUPPORT.usable:
        own = "own user id, " if os.geteuid() == 0 else ""
        line = (f"sandbox: {SUPPORT.version} — network off, private filesystem, "
                f"pid namespace, no user namespaces, {own}32 processes, 8 MB files, "
                "1024 open files, 5 MB folder, no core dumps")
    else:
        line = "sandbox: off" + (" — as root" if os.geteuid() == 0 else "")
    assert line in stdout
    assert "affinity: each player of each game on a CPU of its own" in stdout
    store = Store.open_existing(out)
    try:
        meta = json.loads(store.meta("tournament") or "{}")
    finally:
        store.close()
    assert meta["sandbox"] == line
    games = played(out)
    assert len(games) == 2 and {g[3] for g in games.values()} == {line}
    site = (out / "report" / "index.html").read_text()
    assert line.removeprefix("sandbox: ") in site
    # the games' slot pins each seat to a CPU of its own (the check before the tournament,
    # in a folder of its own, is not a game)
    noted = (out / "slots" / "1" / "work" / "pinned" / "cpus.txt").read_text().split("\n")[:-1]
    assert sorted(noted) == sorted(str(c) for c in cpus[:2]), noted
    assert not gone(tag)


def test_the_file_sandbox_alone_and_the_command_line_override() -> None:
    from referee.games.registry import game_adapters
    from referee.tournament.config import parse_tournament

    raw = {"game": "gomoku", "sandbox": "strict",
           "players": [{"name": "a", "builtin": "random"}, {"name": "b", "builtin": "random"}]}
    tournament = parse_tournament(raw, Path("t.toml"), game_adapters())
    assert tournament.sandbox.level is SandboxLevel.STRICT
    confined = tournament.confined(SandboxLevel.OFF)
    assert confined.sandbox.level is SandboxLevel.OFF
    assert confined.sandbox.hidden == (tournament.output,)
    assert confined.settings.sandbox == confined.sandbox  # what the games are given
