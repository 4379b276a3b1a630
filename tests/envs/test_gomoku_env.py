"""Gomoku's PettingZoo environment: PettingZoo's own checks, and the rules of the engine
that referees matches (renju's forbidden points masked, openings, rewards)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test

from referee.envs import GAMES, make
from referee.games.gomoku.renju import forbidden


@pytest.mark.parametrize("rule", ["freestyle", "exact5", "renju", "caro"])
def test_pettingzoo_api_and_seed_tests_pass(rule: str) -> None:
    api_test(make("gomoku", size=9, rule=rule), num_cycles=120)
    seed_test(lambda: make("gomoku", size=9, rule=rule), num_cycles=60)


def test_max_moves_truncates_the_game() -> None:
    """(PettingZoo's max_cycles_test needs a parallel environment; a turn-based game has
    none, so truncation is checked here.)"""
    env = make("gomoku", size=15, max_moves=6)
    env.reset(seed=1)
    seen = []
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        seen.append((agent, terminated, truncated))
        env.step(None if terminated or truncated else 112 + env.moves)
    assert env.moves == 6 and not env.agents
    assert seen[6:] == [("player_1", False, True), ("player_0", False, True)]
    assert "gomoku" in GAMES


def play(env: object, actions: list[int]) -> None:
    for action in actions:
        env.step(action)  # type: ignore[attr-defined]


def test_observation_is_the_seats_view_and_the_mask_the_empty_points() -> None:
    env = make("gomoku", size=9)
    env.reset(seed=0)
    play(env, [40, 41])  # black (player_0) at 4,4; white at 5,4
    black = env.observe("player_0")
    white = env.observe("player_1")
    assert black["observation"][4, 4, 0] == 1 and black["observation"][4, 5, 1] == 1
    assert white["observation"][4, 5, 0] == 1 and white["observation"][4, 4, 1] == 1
    assert black["observation"][:, :, 2].all() and not white["observation"][:, :, 2].any()
    assert black["action_mask"].sum() == 81 - 2 and black["action_mask"][40] == 0
    assert white["action_mask"].sum() == 0  # not its turn


def test_renju_masks_blacks_forbidden_points_as_the_referee_judges_them() -> None:
    env = make("gomoku", size=15, rule="renju")
    env.reset(seed=0)
    # black builds two open threes crossing at 7,7 (a double three): 5,7 6,7 / 7,5 7,6
    play(env, [7 * 15 + 5, 0, 7 * 15 + 6, 14, 5 * 15 + 7, 14 * 15, 6 * 15 + 7, 14 * 15 + 14])
    mask = env.observe("player_0")["action_mask"]
    board = env.engine.board
    assert forbidden(board, 7, 7) is not None
    assert mask[7 * 15 + 7] == 0  # masked for black
    masked = {int(i) for i in np.flatnonzero(mask == 0)}
    expected = {y * 15 + x for y in range(15) for x in range(15)
                if not board.is_empty(x, y) or forbidden(board, x, y) is not None}
    assert masked == expected


def test_five_in_a_row_ends_the_game_with_the_match_scores() -> None:
    env = make("gomoku", size=9)
    env.reset(seed=0)
    play(env, [0, 9, 1, 10, 2, 11, 3, 12])
    env.step(4)  # black's fifth stone in row 0
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": 0.0}


def test_an_illegal_action_loses_with_its_reason() -> None:
    env = make("gomoku", size=9)
    env.reset(seed=0)
    env.step(40)
    env.step(40)  # white on black's stone
    assert env.rewards == {"player_0": 1.0, "player_1": 0.0}
    assert "already occupied" in env.infos["player_1"]["illegal"]


def test_openings_are_drawn_from_the_seed() -> None:
    openings = [[(0, 0)], [(1, 1), (0, 0)], [(-1, 2)]]
    boards = []
    for seed in (1, 1, 2, 3, 4, 5):
        env = make("gomoku", size=9, openings=openings)
        env.reset(seed=seed)
        boards.append(env.observe(env.agent_selection)["observation"].copy())
    assert np.array_equal(boards[0], boards[1])
    assert len({b.tobytes() for b in boards}) > 1
    assert all(b[:, :, :2].sum() in (1, 2) for b in boards)


def test_render_ansi_and_bad_options() -> None:
    env = make("gomoku", size=9, render_mode="ansi")
    env.reset(seed=0)
    env.step(40)
    assert "X" in env.render()
    with pytest.raises(ValueError, match="outside 5..32"):
        make("gomoku", size=40)
    with pytest.raises(ValueError, match="no environment for 'chess'"):
        make("chess")
