"""PettingZoo's AEC environment over the very rules engine that referees the contest.

The core's ``Engine`` (``core.match``: ``to_play``, ``illegal_reason``, ``apply``,
``scores``, ``forfeit_scores``) is most of what an agent-environment-cycle environment
needs. ``EngineEnv`` supplies the rest once for every game; a game gives only an
``EnvGame``: how to make a seeded engine, what a seat may see (``observe``), which action
numbers are legal (``legal_mask``) and what each number means (``action``; ``index`` is
the way back, for datasets and bots).

Conventions, as PettingZoo's classic games have them:

* agents ``player_0`` ... ``player_{n-1}``: seat numbers of the engine;
* each observation is a dict ``{"observation": array, "action_mask": int8 array}``, and
  ``action_space`` is ``Discrete(game.actions)``;
* rewards come once, when the game ends: each seat's score as the game scores it
  (``Engine.scores``); an illegal action ends the game with ``Engine.forfeit_scores`` of
  its seat and the reason in that agent's ``info["illegal"]``;
* ``max_moves`` (if given) truncates a game after that many actions;
* ``reset(seed=N)`` deals (walls, decks, openings) from ``N``, so the same seed and
  actions give the same game; ``render_mode="ansi"``: ``render()`` returns the game as
  text; ``"human"``: it prints that text, after every ``reset`` and ``step`` too (as
  PettingZoo's classic games do), and returns None.

For search and for going back: ``state()`` is a snapshot of the environment (a copy of
the engine, the whole game hidden parts included, and the cycle's bookkeeping) that
``restore`` brings back as often as asked, and ``clone()`` an independent copy of the
environment; neither shares anything that a ``step`` changes. ``set_engine`` puts the
environment at a game in progress (a dataset row's position: ``referee.envs``).

Only games whose seats decide one at a time fit as they are; a game where several seats
answer the same event (calls on a discard) serialises them in its ``EnvGame``.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from referee.core.match import Engine

__all__ = ["CopiesEngines", "EngineEnv", "EnvGame", "EnvState", "KnowsLegalActions",
           "agent_name"]

EngineT = TypeVar("EngineT", bound=Engine)
EngineIn = TypeVar("EngineIn", bound=Engine, contravariant=True)


class EnvGame(Protocol[EngineT]):
    """What a game supplies to ``EngineEnv`` (its ``games/<game>/env.py``)."""

    name: str
    """The game's name (``gomoku``...)."""
    seats: int
    """How many agents play."""
    actions: int
    """Size of the ``Discrete`` action space."""
    observation_shape: tuple[int, ...]
    """Shape of the ``observation`` array (values 0..``observation_high``)."""
    observation_high: float
    """The largest value an ``observation`` cell takes."""

    def new_engine(self, seed: int) -> EngineT:
        """A new game dealt from ``seed``."""

    def observe(self, engine: EngineT, seat: int) -> np.ndarray[Any, Any]:
        """What ``seat`` may see now (``observation_shape``, float32 or int8)."""

    def legal_mask(self, engine: EngineT, seat: int) -> np.ndarray[Any, Any]:
        """1 for each action number ``seat`` may play now, else 0 (int8): all 0 when
        ``seat`` is not to play (a fresh array the caller may change)."""

    def action(self, engine: EngineT, seat: int, index: int) -> Any:
        """The engine's action for action number ``index``."""

    def index(self, engine: EngineT, seat: int, action: Any) -> int:
        """The action number of the engine's ``action`` (the inverse of ``action``)."""

    def render(self, engine: EngineT) -> str:
        """The game as text, for people."""


class KnowsLegalActions(Protocol[EngineIn]):
    """What an ``EnvGame`` may add: the legal action of a number straight from what its
    ``legal_mask`` found at this position, so that ``step`` need not ask the engine
    again (for games whose engine's check costs as much as the move itself)."""

    def legal_action(self, engine: EngineIn, seat: int, index: int) -> Any:
        """The engine's action numbered ``index`` when ``seat`` may play it now as far as
        the game knows without asking the engine; ``None`` otherwise (not legal, or not
        known: ``step`` then decodes it and asks the engine's ``illegal_reason``)."""


class CopiesEngines(Protocol[EngineT]):
    """What an ``EnvGame`` may add: its own copy of an engine, cheaper than
    ``copy.deepcopy`` (which ``state`` and ``clone`` use without it), or safer where the
    engine shares what must not be copied."""

    def copy_engine(self, engine: EngineT) -> EngineT:
        """An independent copy of ``engine``: playing on either leaves the other as it
        was."""


@dataclass(frozen=True)
class EnvState(Generic[EngineT]):
    """A snapshot of an ``EngineEnv`` (``state()``), for ``restore``: nothing in it changes
    when the environment plays on."""

    engine: EngineT
    """A copy of the game's engine: the whole game, what no seat sees included (the
    wall, every hand), for search. Read it; to play on it, restore it into an
    environment (each ``restore`` copies it again)."""
    moves: int
    agent_selection: str
    agents: tuple[str, ...]
    rewards: dict[str, float]
    cumulative_rewards: dict[str, float]
    terminations: dict[str, bool]
    truncations: dict[str, bool]
    infos: dict[str, dict[str, Any]]
    skip_agent_selection: str | None = None
    """The agent PettingZoo's removal of finished agents goes back to once they are all
    removed (its ``_skip_agent_selection``; ``None`` while none is being removed)."""


RENDER_MODES = ("human", "ansi")
"""``human``: ``render()`` prints the game as text; ``ansi``: it returns that text."""


def agent_name(seat: int) -> str:
    """The agent of a seat: ``player_0``..."""
    return f"player_{seat}"


class EngineEnv(AECEnv, Generic[EngineT]):  # type: ignore[misc]  # pettingzoo is untyped
    """An AEC environment playing ``game`` with its own rules engine (see the module)."""

    def __init__(self, game: EnvGame[EngineT], render_mode: str | None = None,
                 max_moves: int | None = None) -> None:
        super().__init__()
        if render_mode not in (None, *RENDER_MODES):
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', got "
                             f"{render_mode!r}")
        if max_moves is not None and max_moves < 1:
            raise ValueError(f"max_moves must be at least 1, got {max_moves}")
        self.game = game
        self.render_mode = render_mode
        self.max_moves = max_moves
        self.metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES),
                                         "is_parallelizable": False,
                                         "name": f"referee_{game.name}_v0"}
        self.possible_agents = [agent_name(s) for s in range(game.seats)]
        self._seat = {agent: s for s, agent in enumerate(self.possible_agents)}
        mask = spaces.Box(0, 1, (game.actions,), dtype=np.int8)
        observed = spaces.Box(0, game.observation_high, game.observation_shape,
                              dtype=np.float32)
        self._observation_spaces = {a: spaces.Dict({"observation": observed,
                                                    "action_mask": mask})
                                    for a in self.possible_agents}
        self._action_spaces = {a: spaces.Discrete(game.actions) for a in self.possible_agents}
        self._seeds = random.Random()
        self._legal_action = getattr(game, "legal_action", None)
        self._copy_engine = getattr(game, "copy_engine", None) or copy.deepcopy
        self.engine: EngineT | None = None
        self.moves = 0

    # -- spaces --------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        """``{"observation": Box, "action_mask": Box of 0/1}`` (the same object each call)."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        """``Discrete(game.actions)`` (the same object each call, so it can be seeded)."""
        return self._action_spaces[agent]

    # -- the cycle ---------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: dealt from ``seed`` (a fresh random one without)."""
        if seed is not None:
            self._seeds.seed(seed)
        self.set_engine(self.game.new_engine(self._seeds.randrange(2**31)))

    def set_engine(self, engine: EngineT, moves: int = 0) -> None:
        """Play on from ``engine``, a game in progress (the environment's own from now
        on), after ``moves`` actions (counted towards ``max_moves``): every agent in
        play, no reward yet, the seat to play selected (a game already over ends at
        once, with its scores)."""
        self.engine = engine
        self.moves = moves
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        seat = engine.to_play()
        self.agent_selection = agent_name(seat if seat is not None else 0)
        if seat is None:
            self._end(engine.scores())
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # -- state, for search ---------------------------------------------------------------
    def state(self) -> EnvState[EngineT]:
        """A snapshot of the environment now (see ``EnvState``): a copy, unchanged by
        whatever the environment does next. (Not PettingZoo's global observation array:
        these environments have no ``state_space``.)"""
        engine = self._engine()
        return EnvState(self._copy_engine(engine), self.moves, self.agent_selection,
                        tuple(self.agents), dict(self.rewards),
                        dict(self._cumulative_rewards), dict(self.terminations),
                        dict(self.truncations), copy.deepcopy(self.infos),
                        getattr(self, "_skip_agent_selection", None))

    def restore(self, state: EnvState[EngineT]) -> None:
        """Back to ``state`` (taken from an environment of the same game); ``state`` stays
        as it was, to be restored again."""
        self._load(state, self._copy_engine(state.engine))

    def _load(self, state: EnvState[EngineT], engine: EngineT) -> None:
        """``state``'s bookkeeping (copied), with ``engine`` as the game."""
        self.engine = engine
        self.moves = state.moves
        self.agent_selection = state.agent_selection
        self.agents = list(state.agents)
        self.rewards = dict(state.rewards)
        self._cumulative_rewards = dict(state.cumulative_rewards)
        self.terminations = dict(state.terminations)
        self.truncations = dict(state.truncations)
        self.infos = copy.deepcopy(state.infos)
        self._skip_agent_selection = state.skip_agent_selection

    def clone(self) -> EngineEnv[EngineT]:
        """An independent copy of the environment, at the same point of the same game
        (its seeds too: the same ``reset()`` deals the same next game); a step of either
        leaves the other as it was."""
        other = EngineEnv(self.game, render_mode=self.render_mode, max_moves=self.max_moves)
        other._seeds.setstate(self._seeds.getstate())
        if self.engine is not None:
            state = self.state()
            other._load(state, state.engine)  # (the state's copy is the clone's own)
        return other

    def _engine(self) -> EngineT:
        engine = self.engine
        if engine is None:
            raise RuntimeError("call reset() before using the environment")
        return engine

    def observe(self, agent: str) -> dict[str, np.ndarray[Any, Any]]:
        """What ``agent`` sees, with the actions it may play now (none off turn)."""
        engine = self.engine
        if engine is None:
            raise RuntimeError("call reset() before using the environment")
        seat = self._seat[agent]
        game = self.game
        observation = game.observe(engine, seat)
        if observation.dtype != np.float32:
            observation = observation.astype(np.float32)
        return {"observation": observation, "action_mask": game.legal_mask(engine, seat)}

    def step(self, action: int | None) -> None:
        """Play action number ``action`` for the selected agent."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        engine = self.engine
        if engine is None:
            raise RuntimeError("call reset() before using the environment")
        seat = self._seat[agent]
        game = self.game
        self._cumulative_rewards[agent] = 0.0  # (the others stay 0 until the game ends)
        index = -1 if action is None else int(action)
        if not 0 <= index < game.actions:
            self._forfeit(engine, seat, f"action {action!r} is not a number from 0 to "
                                        f"{game.actions - 1}")
            return
        known = self._legal_action
        decoded = None if known is None else known(engine, seat, index)
        if decoded is None:  # the engine judges, as the referee asks it (where the game
            decoded = game.action(engine, seat, index)  # knows, its mask says the same:
            reason = engine.illegal_reason(seat, decoded)  # the tests hold them to it)
            if reason is not None:
                self._forfeit(engine, seat, f"action {action} "
                                            f"({engine.notation(decoded)}): {reason}")
                return
        engine.apply(seat, decoded)
        self.moves += 1
        following = engine.to_play()
        if following is None:
            self._end(engine.scores())
            self._accumulate_rewards()
        elif self.max_moves is not None and self.moves >= self.max_moves:
            self.truncations = {a: True for a in self.agents}
        else:  # no reward before the end: nothing to clear or add up
            self.agent_selection = self.possible_agents[following]
        if self.render_mode == "human":
            self.render()

    def _forfeit(self, engine: EngineT, seat: int, problem: str) -> None:
        """An illegal action: the game ends with ``seat``'s forfeit scores."""
        self._end(engine.forfeit_scores(seat))
        self.infos[self.possible_agents[seat]] = {"illegal": problem}
        self._accumulate_rewards()

    def _end(self, scores: list[float]) -> None:
        for agent, seat in self._seat.items():
            self.rewards[agent] = float(scores[seat])
        self.terminations = {a: True for a in self.agents}

    def render(self) -> str | None:
        """The game as text with ``render_mode="ansi"``; printed with ``"human"`` (then
        None); nothing without a render mode."""
        if self.render_mode is None or self.engine is None:
            return None
        text = self.game.render(self.engine)
        if self.render_mode == "human":
            print(text, flush=True)
            return None
        return text

    def close(self) -> None:
        """Nothing to release (the engine is plain Python)."""
