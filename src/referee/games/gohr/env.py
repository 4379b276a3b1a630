"""A Gymnasium environment over the GOHR engine, in-process (``pip install 'referee[gym]'``).

One episode of the environment is one episode of the captive server with the same
arguments (``GohrEnv(["rules/farthest.txt", "5", "seed=1"])``):

- observation: for each of the 36 cells (``x + (y-1)*6 - 1``), 1 if occupied, then a
  one-hot color and a one-hot shape (the session's colors and shapes, legacy by default);
- action: ``cell * 4 + bucket`` (cell 0..35, bucket 0..3), as ``MOVE row col`` names a
  piece by its cell;
- reward: 0 for an accepted move, -1 for every failed attempt (the error count the
  leaderboards rank by);
- the episode terminates when the board is cleared or stalemated; ``info`` has the
  server's response code, finish code, attempts, each piece's allowed buckets and
  ``action_mask`` (1 for each action the rules accept now: those buckets by cell).

Importing this module registers it with Gymnasium as ``referee/Gohr-v0``
(``gymnasium.make("referee/Gohr-v0", args=[...])``); ``import referee`` alone does not
import Gymnasium. Gymnasium 1.x reads no plugin entry points, so a program that has not
imported this module names it in the id: ``gymnasium.make("referee.games.gohr.env:
referee/Gohr-v0", args=[...])``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from referee.games.gohr.board import NCELLS, Board, xy_of
from referee.games.gohr.conditions import draw_board
from referee.games.gohr.engine import Code, Episode, Finish
from referee.games.gohr.setup import GameSetup, build_setup

Observation = npt.NDArray[np.int8]
ENV_ID = "referee/Gohr-v0"
"""The environment's Gymnasium id."""


class GohrEnv(gym.Env[Observation, np.int64]):
    """The Game of Hidden Rules as a Gymnasium environment."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012

    def __init__(self, args: Sequence[str] | GameSetup, render_mode: str | None = None) -> None:
        self.setup = args if isinstance(args, GameSetup) else build_setup(args)
        self.colors = self.setup.colors
        self.shapes = self.setup.shapes
        width = 1 + len(self.colors) + len(self.shapes)
        self.shape = (NCELLS, width)
        self.observation_space = spaces.Box(0, 1, self.shape, dtype=np.int8)
        self.action_space = spaces.Discrete(NCELLS * 4)
        self.render_mode = render_mode
        self.episode: Episode | None = None

    def _observe(self, board: Board) -> Observation:
        obs: Observation = np.zeros(self.shape, dtype=np.int8)
        colors = {c: k for k, c in enumerate(self.colors)}
        shapes = {s: k for k, s in enumerate(self.shapes)}
        for piece in board:
            row = obs[piece.cell - 1]
            row[0] = 1
            if piece.color.upper() in colors:
                row[1 + colors[piece.color.upper()]] = 1
            if piece.shape.upper() in shapes:
                row[1 + len(self.colors) + shapes[piece.shape.upper()]] = 1
        return obs

    def _info(self, code: int) -> dict[str, Any]:
        episode = self.episode
        assert episode is not None
        buckets = episode.buckets()
        mask: npt.NDArray[np.int8] = np.zeros(NCELLS * 4, dtype=np.int8)
        for piece in episode.board:
            for bucket in buckets.get(piece.id, ()):
                mask[(piece.cell - 1) * 4 + bucket] = 1
        return {"code": code, "finish": int(episode.finish), "attempts": episode.attempts,
                "buckets": {pid: sorted(b) for pid, b in buckets.items()},
                "action_mask": mask}

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Observation, dict[str, Any]]:
        """A new episode (``seed`` reseeds the board generator)."""
        super().reset(seed=seed)
        if seed is not None:
            self.setup.rng.seed(seed)
        board = draw_board(self.setup)  # the train/test conditions apply here too
        self.episode = Episode(self.setup.rules, board)
        return self._observe(board), self._info(int(Code.NEW_GAME))

    def step(self, action: np.int64 | int
             ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Try to move the piece in cell ``action // 4`` to bucket ``action % 4``."""
        episode = self.episode
        if episode is None:
            raise RuntimeError("call reset() before step()")
        if not self.action_space.contains(action):
            raise ValueError(f"action {action!r} is not in 0..{NCELLS * 4 - 1}")
        x, y = xy_of(int(action) // 4 + 1)
        code = episode.move_at(x, y, int(action) % 4)
        reward = 0.0 if code is Code.ACCEPT else -1.0
        terminated = episode.finish is not Finish.PLAYING
        return self._observe(episode.board), reward, terminated, False, self._info(int(code))

    def render(self) -> str | None:
        """The board as the server's ASCII art (``render_mode="ansi"``)."""
        from referee.games.gohr.board import render_ascii

        if self.episode is None:
            return None
        movable = [pid for pid, b in self.episode.buckets().items() if b]
        return render_ascii(self.episode.board, movable, self.episode.last_cell)


def random_rollout(env: GohrEnv, episodes: int, seed: int = 0) -> list[tuple[int, int, bool]]:
    """Play ``episodes`` with uniformly random actions on occupied cells; per episode
    (attempts, errors, cleared)."""
    rng = random.Random(seed)
    results = []
    for number in range(episodes):
        obs, _ = env.reset(seed=seed + number)
        done = False
        errors = attempts = 0
        while not done:
            cells = [k for k in range(NCELLS) if obs[k, 0]]
            action = rng.choice(cells) * 4 + rng.randrange(4)
            obs, reward, done, _, info = env.step(action)
            attempts = info["attempts"]
            errors += int(reward < 0)
        results.append((attempts, errors, info["finish"] == 1))
    return results


if ENV_ID not in gym.registry:  # registered once, however often the module is reloaded
    gym.register(id=ENV_ID, entry_point="referee.games.gohr.env:GohrEnv")
