"""``referee bot gomoku --policy module:callable``: a Python policy, fed the environment's
observation, plays real matches over the Gomocup protocol; its faults are the referee's
to judge, as any bot's."""

from __future__ import annotations

import json
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
