"""What every game's PettingZoo environment does alike: PettingZoo's own render_test, the
human render mode printing the ansi frame."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import render_test

from referee.envs import GAMES, make

OPTIONS: dict[str, dict[str, Any]] = {
    "gomoku": {"size": 9}, "planowanie": {"players": 3, "values": "9TJQKA", "suits": "SHD"},
    "mahjong": {"hands": 2}, "riichi": {"game": "east"}}
"""Each game's environment, small."""


def factory(game: str) -> Callable[..., Any]:
    def make_env(render_mode: str | None = None) -> Any:
        return make(game, render_mode=render_mode, **OPTIONS[game])
    return make_env


def test_every_game_with_an_environment_is_here() -> None:
    assert set(GAMES) == set(OPTIONS)


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_pettingzoos_render_test_runs_as_it_is(game: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    render_test(factory(game))
    printed = capsys.readouterr().out
    assert printed.strip(), "the human mode printed nothing"


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_human_mode_prints_the_ansi_frame_at_reset_each_step_and_render(
        game: str, capsys: pytest.CaptureFixture[str]) -> None:
    human, ansi = factory(game)("human"), factory(game)("ansi")
    assert human.metadata["render_modes"] == ["human", "ansi"]
    frames = []
    for env in (human, ansi):
        env.reset(seed=3)
    capsys.readouterr()
    rng = np.random.default_rng(0)
    human.reset(seed=3)
    frames.append(ansi.render())
    for _ in range(5):
        mask = ansi.observe(ansi.agent_selection)["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        human.step(action)
        ansi.step(action)
        frames.append(ansi.render())
    assert human.render() is None
    frames.append(ansi.render())
    assert capsys.readouterr().out == "".join(f"{frame}\n" for frame in frames)
    with pytest.raises(ValueError, match="render_mode must be None, 'human' or 'ansi'"):
        factory(game)("rgb_array")
