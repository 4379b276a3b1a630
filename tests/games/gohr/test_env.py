"""The Gymnasium environment and the sample random player."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gohr_data import DATA

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from referee.games.gohr.env import GohrEnv, random_rollout  # noqa: E402

RULE = DATA / "rules" / "Rule-001.txt"


def test_the_environment_passes_gymnasium_s_checker() -> None:
    env = GohrEnv([str(RULE), "5", "seed=1"])
    check_env(env, skip_render_check=True)


def test_observations_actions_and_rewards_follow_the_engine() -> None:
    env = GohrEnv([str(RULE), "4", "seed=3"], render_mode="ansi")
    obs, info = env.reset(seed=11)
    assert obs.shape == (36, 9) and int(obs[:, 0].sum()) == 4
    again, _ = env.reset(seed=11)
    assert np.array_equal(obs, again)  # the seed decides the board
    movable = {pid: b for pid, b in info["buckets"].items() if b}
    episode = env.episode
    assert episode is not None
    piece = episode.board.by_id(next(iter(movable)))
    assert piece is not None
    bucket = movable[piece.id][0]
    wrong = next(b for b in range(4) if b not in movable[piece.id])
    _, reward, done, _, info = env.step((piece.cell - 1) * 4 + wrong)
    assert reward == -1.0 and info["code"] in (4, 7) and not done
    obs, reward, done, _, info = env.step((piece.cell - 1) * 4 + bucket)
    assert reward == 0.0 and info["code"] == 0 and obs[piece.cell - 1, 0] == 0
    assert "#---+" in (env.render() or "")
    with pytest.raises(ValueError):
        env.step(36 * 4)


def test_random_rollouts_clear_boards_and_count_errors() -> None:
    env = GohrEnv([str(RULE), "5", "seed=2"])
    results = random_rollout(env, episodes=5, seed=4)
    assert all(cleared for _, _, cleared in results)
    assert all(attempts >= 5 and attempts - errors == 5 for attempts, errors, _ in results)


def test_the_sample_random_player_leaves_a_results_file(tmp_path: Path) -> None:
    log = tmp_path / "results.csv"
    run = subprocess.run([sys.executable, "-m", "referee.games.gohr.random_player",
                          "--episodes", "3", "--seed", "1", str(RULE), "5", "seed=9",
                          f"log={log}", "log.format=compact", "log.nickname=Random"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("cleared") == 3
    lines = log.read_text().splitlines()
    assert lines[:3] == ["#.nickname,rule_name,trial_id",
                         "#number_of_moves,number_of_errors,if_clear", ".Random,Rule-001,0"]
    assert len(lines) == 6 and all(line.endswith(",1") for line in lines[3:])


def test_the_train_conditions_shape_the_boards(tmp_path: Path) -> None:
    cond = tmp_path / "outside-top-left.txt"
    cond.write_text("(pos:[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,22,23,24,28,29,30,"
                    "34,35,36])\n")
    env = GohrEnv([str(RULE), "9", f"condTrain={cond}", "seed=2"])
    for seed in range(5):
        obs, _ = env.reset(seed=seed)
        occupied = {int(k) + 1 for k in np.flatnonzero(obs[:, 0])}
        assert occupied == {19, 20, 21, 25, 26, 27, 31, 32, 33}  # the top-left quarter


def test_the_action_mask_is_what_the_rules_accept_now() -> None:
    env = GohrEnv([str(RULE), "6", "seed=5"])
    _, info = env.reset(seed=2)
    for _ in range(6):
        mask = info["action_mask"]
        assert mask.shape == (36 * 4,) and mask.dtype == np.int8
        episode = env.episode
        assert episode is not None
        expected = {(p.cell - 1) * 4 + b for p in episode.board
                    for b in info["buckets"][p.id]}
        assert set(np.flatnonzero(mask)) == expected and expected
        refused = next(a for a in range(36 * 4) if not mask[a])
        _, reward, _, _, after = env.step(refused)
        assert reward == -1.0 and after["code"] in (3, 4, 7)
        _, reward, done, _, info = env.step(int(np.flatnonzero(after["action_mask"])[0]))
        assert reward == 0.0 and info["code"] == 0
    assert done and not info["action_mask"].any()


def _fresh(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` run by a new interpreter (nothing imported beforehand)."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)


def test_gymnasium_make_builds_it_by_its_id_in_a_fresh_interpreter() -> None:
    check = (f"env = gymnasium.make('{{id}}', args=[{str(RULE)!r}, '5', 'seed=1'])\n"
             "from gymnasium.utils.env_checker import check_env\n"
             "check_env(env.unwrapped)\n"
             "obs, info = env.reset(seed=3)\n"
             "assert env.spec.id == 'referee/Gohr-v0' and obs.shape == (36, 9)\n"
             "assert int(info['action_mask'].sum()) > 0\n"
             "print(type(env.unwrapped).__name__)\n")
    by_module = _fresh("import gymnasium\n"
                       + check.format(id="referee.games.gohr.env:referee/Gohr-v0"))
    assert by_module.returncode == 0, by_module.stderr
    assert by_module.stdout == "GohrEnv\n"
    imported = _fresh("import gymnasium, referee.games.gohr.env\n"
                      "import importlib; importlib.reload(referee.games.gohr.env)\n"
                      + check.format(id="referee/Gohr-v0"))
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout == "GohrEnv\n" and "Overriding" not in imported.stderr


def test_importing_referee_does_not_import_gymnasium() -> None:
    run = _fresh("import sys, referee, referee.cli, referee.games.registry, referee.envs\n"
                 "import referee.games.gohr.captive, referee.games.gohr.socket_server\n"
                 "print('gymnasium' in sys.modules)")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "False\n"
