"""``referee bot gomoku --policy module:callable``: a Python policy, fed the environment's
observation, plays real matches over the Gomocup protocol; its faults are the referee's
to judge, as any bot's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.core.policy import PolicyError, ask, load_policy

POLICIES = Path(__file__).resolve().parents[1] / "policies"


def bot(policy: str) -> str:
    return (f"{sys.executable} -m referee.cli bot gomoku --policy first_legal:{policy} "
            f"--path {POLICIES}")


def match(tmp_path: Path, *players: str, options: tuple[str, ...] = ()) -> dict[str, Any]:
    run = subprocess.run([sys.executable, "-m", "referee.cli", "match", "gomoku", *players,
                          "--games", "2", "--size", "9", "--move-time", "10s",
                          "--out", str(tmp_path / "out"), "--json", *options],
                         capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    return dict(json.loads(run.stdout))


def test_a_policy_plays_a_real_match_as_the_environment_sees_it(tmp_path: Path) -> None:
    result = match(tmp_path, bot("policy"), "random")
    for game in result["games"]:
        assert game["outcome"] == "normal", game
    record = json.loads((tmp_path / "out" / "game-001.json").read_text())
    policy_moves = [m["move"] for m in record["moves"] if m["seat"] == 0]
    board = set()  # the policy plays the first legal point, row by row: the env's numbering
    for move in record["moves"]:
        if move["seat"] == 0:
            x, y = map(int, move["move"].split(","))
            expected = min(i for i in range(81) if (i % 9, i // 9) not in board)
            assert (x, y) == (expected % 9, expected // 9)
        board.add(tuple(map(int, move["move"].split(","))))
    assert policy_moves


@pytest.mark.parametrize(("policy", "outcome", "said"), [
    ("raises", "crash", "the policy failed: ZeroDivisionError: my bug"),
    ("not_a_number", "crash", "the policy returned 'e5', not an action number"),
    ("illegal", "illegal-move", "is already occupied"),
])
def test_a_faulty_policy_is_a_faulty_bot(tmp_path: Path, policy: str, outcome: str,
                                         said: str) -> None:
    result = match(tmp_path, "random", bot(policy))
    faulted = [g for g in result["games"] if g["outcome"] != "normal"]
    assert faulted, result["games"]
    assert all(g["outcome"] == outcome and said in g["reason"] for g in faulted), faulted


def test_a_policy_that_cannot_be_loaded_is_one_line(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "referee.cli", "bot", "gomoku", "--policy",
                          "no_such_module:policy"], capture_output=True, text=True,
                         timeout=60, stdin=subprocess.DEVNULL, cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr == ("referee: error: --policy no_such_module:policy: cannot import "
                          "no_such_module: ModuleNotFoundError: No module named "
                          "'no_such_module'\n")


def test_load_and_ask_check_what_they_are_given() -> None:
    assert load_policy("first_legal:policy", [str(POLICIES)]).__name__ == "policy"
    with pytest.raises(PolicyError, match="expected module:callable"):
        load_policy("first_legal")
    with pytest.raises(PolicyError, match="has no nothing"):
        load_policy("first_legal:nothing", [str(POLICIES)])
    with pytest.raises(PolicyError, match="not an action number from 0 to 8"):
        ask(lambda observation: 9, {}, 9)
    with pytest.raises(PolicyError, match="not an action number"):
        ask(lambda observation: 1.5, {}, 9)
    assert ask(lambda observation: 3.0, {}, 9) == 3


NO_VENV = "/usr/local/bin:/usr/bin:/bin"
"""A PATH without the virtual environment's bin: a venv that is not activated."""


def no_venv(tmp_path: Path) -> dict[str, str]:
    """The environment of a shell where the venv is not activated, the policy's module
    copied to ``tmp_path/agents``."""
    assert shutil.which("referee", path=NO_VENV) is None
    (tmp_path / "agents").mkdir()
    shutil.copy(POLICIES / "first_legal.py", tmp_path / "agents")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    return env | {"PATH": NO_VENV}


def test_the_docs_match_runs_without_an_activated_venv(tmp_path: Path) -> None:
    """`.venv/bin/referee match gomoku "referee bot gomoku ..."` where `referee` is not on
    PATH: the player's `referee` is the referee being run, its relative --path is the
    match's folder, and --name names it (issue 37, item 11: 'referee' was not found)."""
    script = Path(sys.executable).parent / "referee"
    run = subprocess.run(
        [str(script), "match", "gomoku",
         "referee bot gomoku --policy first_legal:policy --path agents --name my-agent",
         "referee bot gomoku --policy first_legal:policy --path agents", "--games", "2",
         "--size", "9", "--move-time", "10s", "--out", "out", "--json"],
        capture_output=True, text=True, timeout=180, cwd=tmp_path, env=no_venv(tmp_path))
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert result["players"] == ["my-agent", "first_legal:policy"]
    assert all(g["outcome"] == "normal" for g in result["games"]), result["games"]
    record = json.loads((tmp_path / "out" / "game-001.json").read_text())
    first = record["players"][0]
    assert first["name"] == "my-agent" and first["about"]["name"] == "my-agent"
    assert first["command"][:3] == [sys.executable, "-m", "referee"]
    assert str(tmp_path / "agents") in first["command"]
    assert record["players"][1]["about"]["name"] == "first_legal:policy"


def test_a_tournament_file_may_name_a_referee_bot_command(tmp_path: Path) -> None:
    """The same in a tournament file, its relative --path the file's folder."""
    env = no_venv(tmp_path)
    (tmp_path / "t.toml").write_text(
        'game = "gomoku"\n[settings]\nsize = 9\n'
        '[[players]]\nname = "mine"\n'
        'command = "referee bot gomoku --policy first_legal:policy --path agents"\n'
        '[[players]]\nname = "r"\nbuiltin = "random"\n')
    run = subprocess.run([str(Path(sys.executable).parent / "referee"), "tournament",
                          "t.toml", "--out", "tour", "--json"], capture_output=True,
                         text=True, timeout=300, cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert summary["games"] == {"done": 2, "total": 2}
    assert {row["player"] for row in summary["standings"]} == {"mine", "r"}


def test_without_the_envs_extra_the_bot_says_which_to_install(tmp_path: Path) -> None:
    """On the base install (no Gymnasium), one line naming the extra and exit status 2,
    not a ModuleNotFoundError traceback (issue 37, item 30)."""
    for missing in ("gymnasium", "pettingzoo"):
        (tmp_path / missing).mkdir()
        (tmp_path / missing / "__init__.py").write_text(
            f"raise ModuleNotFoundError(\"No module named '{missing}'\", name='{missing}')\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    for game in ("gomoku", "planowanie", "mahjong", "riichi"):
        run = subprocess.run([sys.executable, "-m", "referee.cli", "bot", game, "--policy",
                              "first_legal:policy", "--path", str(POLICIES)],
                             capture_output=True, text=True, timeout=60, env=env,
                             stdin=subprocess.DEVNULL)
        assert run.returncode == 2, run.stderr
        assert run.stderr == (f"referee: error: referee bot {game} needs the envs extra: pip "
                              "install 'referee[envs]' (No module named 'gymnasium')\n")
        helped = subprocess.run([sys.executable, "-m", "referee.cli", "bot", game, "--help"],
                                capture_output=True, text=True, timeout=60, env=env)
        assert helped.returncode == 0
        assert "pip install 'referee[envs]'" in " ".join(helped.stdout.split())
    run = subprocess.run([sys.executable, "-m", "referee.cli", "dataset", "gomoku",
                          str(tmp_path), "-o", str(tmp_path / "ds")], capture_output=True,
                         text=True, timeout=60, env=env)
    assert run.returncode == 2 and run.stderr.startswith(
        "referee: error: datasets need the data extra: pip install 'referee[data]'")
    assert "Traceback" not in run.stderr
