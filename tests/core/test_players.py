"""Players named on a command line: relative paths made absolute without following
symbolic links (a virtualenv's interpreter is a link to the base one), names after the
script an interpreter runs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee.core.players import resolve_player


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
