"""``referee tournament --ray HOST:PORT`` against a real cluster started the usual way,
``ray start --head`` on 127.0.0.1, with Ray's token authentication on (Ray 2.60 turns it
on when the head node has a token, as any earlier ``ray.init()`` leaves one in
``~/.ray/auth_token``). Skipped without the ``ray`` extra.
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("ray")

from referee.tournament.store import Store

RAY = Path(sys.executable).with_name("ray")
AUTH_VARIABLES = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_ADDRESS")


TOURNAMENT = """\
name = "raycluster"
game = "gomoku"
[settings]
size = 9
[[players]]
name = "alpha"
builtin = "random"
[[players]]
name = "beta"
builtin = "random"
"""


def games_done(out: Path) -> int:
    """Finished games in the store under ``out`` (0 without a store)."""
    if not (out / "tournament.sqlite").exists():
        return 0
    store = Store.open_existing(out)
    try:
        return sum(row.status == "done" for row in store.games())
    finally:
        store.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def environment(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a user whose home is ``home`` and who set no Ray variable."""
    env = {k: v for k, v in os.environ.items() if k not in AUTH_VARIABLES}
    return {**env, "HOME": str(home), "RAY_USAGE_STATS_ENABLED": "0", **extra}


def home_with(token: str | None) -> Path:
    home = Path(tempfile.mkdtemp(prefix="rayhome"))
    if token is not None:
        (home / ".ray").mkdir()
        (home / ".ray" / "auth_token").write_text(token)
    return home


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[str, str]]:
    """A head node on 127.0.0.1 whose token is in its user's ~/.ray/auth_token; yields its
    address and token. ``--block``: the cluster ends with this ``ray start`` process."""
    if not RAY.exists():
        pytest.skip("the ray command is not installed beside this Python")
    token = secrets.token_hex(32)
    home = home_with(token)
    temp = Path(tempfile.mkdtemp(prefix="rt", dir="/tmp"))  # short: Ray's socket paths
    port = free_port()
    head = subprocess.Popen(
        [str(RAY), "start", "--head", "--block", "--port", str(port), "--node-ip-address",
         "127.0.0.1", "--num-cpus", "2", "--include-dashboard", "false",
         "--disable-usage-stats", "--temp-dir", str(temp)],
        env=environment(home), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90
        while not (temp / "session_latest").exists() or not _listening(port):
            if head.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"ray start --head did not start: {head.stderr.read()[-2000:]}"
                            if head.poll() is not None else "ray start --head: no port")
            time.sleep(0.2)
        yield f"127.0.0.1:{port}", token
    finally:
        head.terminate()
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(temp, ignore_errors=True)


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def tournament(tmp_path: Path, address: str, env: dict[str, str]
               ) -> subprocess.CompletedProcess[str]:
    file = tmp_path / "t.toml"
    file.write_text(TOURNAMENT)
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", "tournament", str(file), "--out",
         str(tmp_path / "out"), "--ray", address, "-j", "2"],
        capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL, env=env,
        cwd=tmp_path)


def test_the_token_in_the_users_home_is_used_as_rays_cli_uses_it(
        cluster: tuple[str, str], tmp_path: Path) -> None:
    address, token = cluster
    run = tournament(tmp_path, address, environment(home_with(token)))
    assert run.returncode == 0, run.stdout + run.stderr
    assert games_done(tmp_path / "out") == 2


def test_the_token_in_ray_auth_token_is_used(cluster: tuple[str, str],
                                             tmp_path: Path) -> None:
    address, token = cluster
    run = tournament(tmp_path, address, environment(home_with(None), RAY_AUTH_TOKEN=token))
    assert run.returncode == 0, run.stdout + run.stderr
    assert games_done(tmp_path / "out") == 2


@pytest.mark.parametrize(("token", "says"), [
    (None, "and this machine has none"),
    ("not-the-clusters", "is not the cluster's"),
])
def test_a_missing_or_wrong_token_is_one_line_saying_what_to_do(
        cluster: tuple[str, str], tmp_path: Path, token: str | None, says: str) -> None:
    address, _ = cluster
    run = tournament(tmp_path, address, environment(home_with(token)))
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr.count("\n") == 1, run.stderr
    assert run.stderr.startswith(f"referee: error: --ray {address}: the Ray cluster asks for "
                                 "its authentication token ")
    assert says in run.stderr and "ray get-auth-token" in run.stderr
    assert games_done(tmp_path / "out") == 0
