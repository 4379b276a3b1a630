"""Test helper: dataset rows taken back to their game's environment with
``referee.envs.at_decision``, and compared with what that environment shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from referee.envs import at_decision


def check_positions(game: str, rows: list[dict[str, Any]], root: Path, *, every: int = 1,
                    whole: bool = False) -> int:
    """For every ``every``-th row: the environment at its decision selects the row's
    agent and shows it the row's observation and mask; with ``whole`` (games whose every
    action is a row), its action stepped there gives the next row of the same game.
    Returns the rows checked."""
    checked = 0
    for k in range(0, len(rows), every):
        row = rows[k]
        env = at_decision(game, row, root=root)
        agent = env.agent_selection
        assert agent == f"player_{row['agent']}", (row["game"], row["ply"], agent)
        assert same(env, agent, row), (row["game"], row["ply"])
        following = rows[k + 1] if k + 1 < len(rows) else None
        if whole and following is not None and following["game"] == row["game"]:
            env.step(row["action"])
            assert following["ply"] == row["ply"] + 1
            assert env.agent_selection == f"player_{following['agent']}"
            assert same(env, env.agent_selection, following)
        checked += 1
    return checked


def same(env: Any, agent: str, row: dict[str, Any]) -> bool:
    """Whether ``agent`` sees in ``env`` the row's observation and mask."""
    seen = env.observe(agent)
    observation = np.frombuffer(row["observation"], np.uint8)
    return (np.array_equal(seen["observation"].reshape(-1), observation.astype(np.float32))
            and np.array_equal(seen["action_mask"], np.frombuffer(row["action_mask"], np.int8)))
