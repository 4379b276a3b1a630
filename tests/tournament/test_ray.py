"""Tournament games on Ray: the real CLI with ``--ray local``, and ``RayPlayer`` itself.

Skipped without the ``ray`` extra. One local cluster (127.0.0.1 only) serves the unit
tests; the CLI test starts its own in the subprocess, as a user's run would.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

ray = pytest.importorskip("ray")

from referee.core.adapter import GameTask  # noqa: E402
from referee.core.errors import ConfigError, RefereeError  # noqa: E402
from referee.games.registry import game_adapters  # noqa: E402
from referee.tournament.config import Tournament, load_tournament  # noqa: E402
from referee.tournament.ray_runner import RayPlayer, init_local_ray  # noqa: E402
from referee.tournament.report.downloads import game_logs  # noqa: E402
from referee.tournament.store import Store  # noqa: E402

TOURNAMENT = """\
name = "raytest"
game = "gomoku"
seed = 7

[schedule]
kind = "round-robin"
rounds = 1

[settings]
size = 9
timeout_turn = 5000

[[players]]
name = "alpha"
builtin = "random"

[[players]]
name = "beta"
builtin = "random"
"""


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """One local Ray cluster (2 CPUs, no dashboard, loopback only) for the module."""
    started = not ray.is_initialized()
    if started:
        init_local_ray(num_cpus=2)
    yield
    if started:
        ray.shutdown()


def write_tournament(folder: Path) -> Path:
    path = folder / "raytest.toml"
    path.write_text(TOURNAMENT, encoding="utf-8")
    return path


def load(folder: Path) -> Tournament:
    return load_tournament(write_tournament(folder), game_adapters())


def run_cli(file: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", "tournament", str(file), "--out", str(out),
         *extra],
        capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def results(out: Path) -> dict[str, tuple[tuple[str, ...], tuple[float, ...] | None]]:
    store = Store.open_existing(out)
    try:
        rows = store.games()
        assert rows and all(row.status == "done" for row in rows), rows
        return {row.key: (row.seats, row.scores) for row in rows}
    finally:
        store.close()


@pytest.mark.slow
def test_cli_tournament_on_ray_matches_local_run(tmp_path: Path) -> None:
    file = write_tournament(tmp_path)
    on_ray = run_cli(file, tmp_path / "ray", "--ray", "local", "-j", "2")
    assert on_ray.returncode == 0, on_ray.stdout + on_ray.stderr
    assert "on Ray (local)" in " ".join(on_ray.stdout.split())  # Rich may wrap the line
    local = run_cli(file, tmp_path / "local", "-j", "1")
    assert local.returncode == 0, local.stdout + local.stderr
    ray_results = results(tmp_path / "ray")
    assert len(ray_results) == 2  # one pair, both colours
    assert {seats for seats, _ in ray_results.values()} == {("alpha", "beta"),
                                                           ("beta", "alpha")}
    assert ray_results == results(tmp_path / "local")
    store = Store.open_existing(tmp_path / "ray")
    try:  # each game's part of the stderr logs the worker wrote, relative to the store
        for record in store.records():
            assert all(p.stderr is not None and p.stderr.path.startswith("slots/")
                       for p in record.players)
            assert [log.seat for log in game_logs(tmp_path / "ray", record)] == [0, 1]
    finally:
        store.close()


def test_player_plays_one_game(cluster: None, tmp_path: Path) -> None:
    tournament = load(tmp_path)
    player = RayPlayer(tournament, "local", 2)
    try:
        assert not player.owns_ray  # the module's cluster is reused, not restarted
        record = player(GameTask("r1:alpha:beta:o-:a", tournament.players, seed=11, round=1))
    finally:
        player.close()
    assert record.finished and record.scores is not None and sum(record.scores) == 1.0
    assert [p.name for p in record.players] == ["alpha", "beta"]
    assert record.seed == 11 and record.round == 1
    assert [p.stderr.path if p.stderr else None for p in record.players] == [
        "logs/alpha.stderr.log", "logs/beta.stderr.log"]  # in its slot's folder
    assert record.settings["game_key"] == "r1:alpha:beta:o-:a"
    assert ray.is_initialized()  # close() leaves a cluster it did not start


def test_worker_exception_is_a_referee_error(cluster: None, tmp_path: Path) -> None:
    tournament = load(tmp_path)
    player = RayPlayer(tournament, "local", 1)
    try:
        # No openings in the settings: opening 7 fails inside the worker.
        task = GameTask("bad", tournament.players, seed=1, opening=7)
        with pytest.raises(RefereeError, match="game bad: IndexError: list index out of "
                                               "range"):
            player(task)
    finally:
        player.close()
    with pytest.raises(RefereeError, match="closed"):
        player(task)


def sleepers(tag: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline"]):
        if proc.info["cmdline"] == ["/bin/sleep", tag]:
            found.append(proc)
    return found


def test_close_releases_waiting_games_and_kills_their_bots(cluster: None,
                                                           tmp_path: Path) -> None:
    tag = str(600 + os.getpid() % 1000)  # a bot that never answers, found by its argument
    file = tmp_path / "hang.toml"
    file.write_text(TOURNAMENT.replace('name = "beta"\nbuiltin = "random"',
                                       f'name = "beta"\ncommand = ["/bin/sleep", "{tag}"]')
                    .replace("timeout_turn = 5000", "startup = 3000"), encoding="utf-8")
    tournament = load_tournament(file, game_adapters())
    player = RayPlayer(tournament, "local", 1)
    failure: list[BaseException] = []

    def play() -> None:
        try:
            player(GameTask("hang", tournament.players, seed=1))
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=play, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not sleepers(tag) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert sleepers(tag), "the game did not start its bot"
    player.close()
    thread.join(5)
    assert not thread.is_alive()
    assert failure and isinstance(failure[0], RefereeError)
    assert "cancelled" in str(failure[0])
    deadline = time.monotonic() + 10  # the worker stops within one bot wait (3 s here)
    while sleepers(tag) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not sleepers(tag), "a bot outlived its cancelled game"


def test_unreachable_address_is_a_config_error(cluster: None, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"--ray 127\.0\.0\.1:1: cannot reach"):
        RayPlayer(load(tmp_path), "127.0.0.1:1", 1)
    with pytest.raises(ConfigError, match="not a Ray address"):
        RayPlayer(load(tmp_path), "nowhere", 1)


def test_missing_ray_is_a_config_error(tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(ConfigError, match=r"pip install 'referee\[ray\]'"):
        RayPlayer(load(tmp_path), "local", 1)
