"""Players named on a command line: relative paths made absolute without following
symbolic links (a virtualenv's interpreter is a link to the base one), names after the
script an interpreter runs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from referee.core.errors import ConfigError
from referee.core.players import check_runnable, resolve_player


def test_a_symlinked_interpreter_given_relatively_stays_the_link(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "base").mkdir()
    real = tmp_path / "base" / "python3.11"
    real.write_text("#!/bin/sh\n")
    real.chmod(0o755)
    (tmp_path / "venv" / "bin").mkdir(parents=True)
    (tmp_path / "venv" / "bin" / "python").symlink_to(real)
    (tmp_path / "my_bot.py").write_text("")
    monkeypatch.chdir(tmp_path)
    player = resolve_player("venv/bin/python my_bot.py --fast", {})
    assert player.command == [str(tmp_path / "venv" / "bin" / "python"),
                              str(tmp_path / "my_bot.py"), "--fast"]
    assert os.path.islink(player.command[0])
    assert player.name == "my_bot"


@pytest.mark.parametrize(("command", "problem"), [
    ("./folder", "folder is a folder, not a program"),
    ("./plain.txt", "plain.txt is not executable"),
    ("./nope", "nope does not exist"),
    ("python3 /no/such/bot.py", "the script /no/such/bot.py does not exist"),
    ("python3 folder", "folder is a folder, not a script"),
    ("node missing.js", "the script missing.js does not exist"),
    ("no-such-program-anywhere --fast", "'no-such-program-anywhere' is not a built-in bot"),
])
def test_a_program_that_cannot_run_is_refused_before_any_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, problem: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "plain.txt").write_text("not a program\n")
    monkeypatch.setenv("PATH", os.pathsep.join([os.environ["PATH"], str(tmp_path / "bin")]))
    (tmp_path / "bin").mkdir()
    for name in ("node",):  # an interpreter on PATH, whatever the machine has
        fake = tmp_path / "bin" / name
        fake.write_text("#!/bin/sh\n")
        fake.chmod(0o755)
    with pytest.raises(ConfigError) as error:
        check_runnable(resolve_player(command, {}))
    assert problem in str(error.value)


@pytest.mark.parametrize("command", ["python3 -c pass", "python3 -m referee.cli",
                                     "sh -c true", "python3 package"])
def test_interpreters_told_what_to_run_otherwise_are_accepted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "package").mkdir()
    (tmp_path / "package" / "__main__.py").write_text("print('ok')\n")
    check_runnable(resolve_player(command, {}))


def test_a_command_of_the_referee_runs_the_referee_being_run(tmp_path: Path) -> None:
    """``referee ...`` as a player is this interpreter's referee, on PATH or not; a policy
    bot is named by --name, else --policy, its relative --path made absolute (issue 37,
    item 11)."""
    (tmp_path / "agents").mkdir()
    spec = resolve_player("referee bot gomoku --policy a:act --path agents --name mine", {},
                          tmp_path)
    assert spec.name == "mine"
    assert spec.command == [sys.executable, "-m", "referee", "bot", "gomoku", "--policy",
                            "a:act", "--path", str(tmp_path / "agents"), "--name", "mine"]
    check_runnable(spec)
    spec = resolve_player("referee bot riichi --policy=a:act --path=agents --path=/x", {},
                          tmp_path)
    assert spec.name == "a:act"
    assert spec.command[-2:] == [f"--path={tmp_path / 'agents'}", "--path=/x"]
    assert resolve_player("referee play gohr rules.txt", {}, tmp_path).name == "referee"
    assert resolve_player("./referee", {}, tmp_path).command == [str(tmp_path / "referee")]
