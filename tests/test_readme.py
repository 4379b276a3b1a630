"""The README's usage block, run as a person would run it: with the virtual environment
active (its ``bin`` first on ``PATH``), from a folder holding the project's ``examples``.
Every path the commands read exists; every command ends well (the servers are started,
reached and stopped; the console gets a few lines)."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def usage_commands() -> list[str]:
    """The commands of the README's usage block (continued lines joined, no comments)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## Usage", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    joined = block.replace("\\\n", " ")
    commands = []
    for line in joined.splitlines():
        line = line.split("  #", 1)[0].strip()  # (a comment after the command)
        if line and not line.startswith("#"):
            commands.append(" ".join(line.split()))
    return commands


COMMANDS = usage_commands()


def test_the_readme_starts_with_the_two_commands_and_every_path_exists() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    first = lines[lines.index("```sh") + 1:lines.index("```sh") + 3]
    assert first[0].startswith("python3 -m venv .venv && .venv/bin/pip install -q -e . && "
                               ".venv/bin/referee tournament examples/")
    assert first[1] == ("python3 -m venv .venv && .venv/bin/pip install -q -e '.[test,ray]' "
                        "&& .venv/bin/pytest")
    read = [word for command in COMMANDS for word in shlex.split(command)
            if word.startswith("examples/") or " examples/" in f" {word}"]
    paths = {w.split()[-1] for w in read}
    assert paths >= {"examples/bots/gomoku_center.py", "examples/openings.txt",
                     "examples/gohr/farthest.txt", "examples/demo.toml"}
    for path in paths:
        assert (ROOT / path).exists(), path
    assert all(c.startswith("referee ") for c in COMMANDS)


def shell(command: str) -> list[str]:
    """The command as bash runs it (globs expanded), bash replaced by it (signals reach
    it)."""
    return ["bash", "-c", f"exec {command}"]


def run(command: str, cwd: Path, env: dict[str, str], stdin: str | None = None,
        timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(shell(command), cwd=cwd, env=env, input=stdin, text=True,
                          capture_output=True, timeout=timeout)


def wait_for_port(port: int, process: subprocess.Popen[str], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on {port}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def group_of(command: str) -> str:
    """The commands that must run in one folder, one after the other: those that read
    what an earlier one wrote (a match's records, a tournament's results, the server's
    admin), a server and its clients; every other command is a group of its own."""
    words = shlex.split(command)
    if "referee-out/renju" in command:
        return "renju"
    if "demo" in command:
        return "demo"
    if words[1] == "web":
        return "web"
    if words[1] in ("serve", "connect") and words[2] == "mahjong":
        return "icga"
    return f"{COMMANDS.index(command):02d} {' '.join(words[1:3])}"


GROUPS: dict[str, list[str]] = {}
for _command in COMMANDS:
    GROUPS.setdefault(group_of(_command), []).append(_command)


def test_the_groups_keep_the_readme_s_order() -> None:
    assert sorted(c for group in GROUPS.values() for c in group) == sorted(COMMANDS)
    for commands in GROUPS.values():
        indexes = [COMMANDS.index(c) for c in commands]
        assert indexes == sorted(indexes)
    assert len(GROUPS["demo"]) >= 5 and len(GROUPS["renju"]) == 3 and len(GROUPS["icga"]) == 2


@pytest.mark.timeout(900)
@pytest.mark.parametrize("group", [
    group if all("--help" in c for c in commands) else pytest.param(group, marks=pytest.mark.slow)
    for group, commands in GROUPS.items()])
def test_every_usage_command_runs(group: str, tmp_path: Path) -> None:
    """The commands of ``group`` run in a folder of their own, in the README's order
    (the groups run side by side)."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "VIRTUAL_ENV": str(BIN.parent)}
    env.pop("PYTHONPATH", None)
    pending = list(GROUPS[group])
    while pending:
        run_command(pending.pop(0), pending, tmp_path, env)
    if group == "demo":
        assert (tmp_path / "site" / "index.html").is_file()
    if group == "renju":
        assert re.search(r"\.psq$", " ".join(
            p.name for p in (tmp_path / "referee-out" / "renju").iterdir()), re.M)


@contextlib.contextmanager
def served(command: str, port_given: str, cwd: Path, env: dict[str, str],
           seconds: float) -> Iterator[int]:
    """A server the README starts, on a free port in place of ``port_given`` (the README's
    may be taken on a shared machine), listening within ``seconds``; stopped by SIGTERM
    at the end of the block, and it must end well."""
    port = free_port()
    server = subprocess.Popen(shell(command.replace(port_given, str(port))), cwd=cwd,
                              env=env, text=True, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        wait_for_port(port, server, seconds)
        yield port
    finally:
        server.send_signal(signal.SIGTERM)
        _, err = server.communicate(timeout=60)
    assert server.returncode == 0, err


def run_command(command: str, pending: list[str], tmp_path: Path, env: dict[str, str]) -> None:
    """Run one command of the README as its kind asks (a server is started, reached and
    stopped; a server's clients, the next commands, are taken from ``pending``)."""
    words = shlex.split(command)
    if words[1:3] == ["serve", "gohr"]:
        with served(command, "8765", tmp_path, env, 30) as port, \
                socket.create_connection(("127.0.0.1", port), timeout=10) as client:
            client.sendall(b"GAME farthest.txt 5 1:3 3:4\n")  # (answered or refused:
            assert client.recv(4096)  # either way a line comes back)
    elif words[1] == "report" and "--serve" in words:
        with served(command, "8000", tmp_path, env, 120) as port, \
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as page:
            assert b"/_live/live.js" in page.read()
    elif words[1] == "web" and words[2].startswith("--"):  # the game server
        with served(command, "8000", tmp_path, env, 60) as port, \
                urllib.request.urlopen(f"http://127.0.0.1:{port}/lobby", timeout=30) as page:
            assert b"gomoku" in page.read()
    elif words[1:3] == ["serve", "mahjong"]:
        connect = pending.pop(0)
        assert connect.startswith("referee connect mahjong ")
        port = free_port()
        server = subprocess.Popen(shell(command.replace("7000", str(port))),
                                  cwd=tmp_path, env=env, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        clients = []
        try:
            wait_for_port(port, server)
            for seat in range(1, 5):  # the README's client, and one for each other seat
                line = connect.replace("7000", str(port)).replace("--id 1", f"--id {seat}")
                clients.append(subprocess.Popen(
                    shell(line.replace(" -- ", f" --out c{seat} -- ")), cwd=tmp_path, env=env,
                    text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
            for joined in clients:
                _, err = joined.communicate(timeout=300)
                assert joined.returncode == 0, err
            _, err = server.communicate(timeout=120)
            assert server.returncode == 0, err
        finally:
            for process in (server, *clients):
                if process.poll() is None:
                    process.kill()
    elif words[1:3] == ["console", "planowanie"]:
        done = run(command, tmp_path, env, stdin=":new\n:step 2\n:auto\n:quit\n")
        assert done.returncode == 0, done.stderr
        assert "final points seat 0:" in done.stdout
    else:
        done = run(command, tmp_path, env)
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        if "--help" in words:
            assert "Usage: referee" in done.stdout
