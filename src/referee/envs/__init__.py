"""PettingZoo environments over the engines that referee the games: one entry point.

``make(game, **options)`` returns the AEC environment of a game in ``GAMES``; the options
are its ``make_env``'s (docs/envs.md lists them with each observation layout). Needs the
``envs`` extra (``pip install 'referee[envs]'``: PettingZoo and NumPy).

>>> env = make("gomoku", size=9, rule="renju")
>>> env.reset(seed=1)

``at_decision(game, row)`` gives the environment as it stood at a dataset row's decision
(``referee dataset``): its engine (``env.state().engine``, the whole game) and what the
deciding agent saw (``env.observe(env.agent_selection)``, the row's observation and mask).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from referee.games.registry import GAMES as _ALL_GAMES
from referee.games.registry import env_factory, game_data

__all__ = ["GAMES", "at_decision", "make"]

GAMES: tuple[str, ...] = tuple(g.name for g in _ALL_GAMES if g.env is not None)
"""The games that have an environment."""


def make(game: str, /, **options: Any) -> Any:
    """The PettingZoo AEC environment of ``game`` with ``options`` (see docs/envs.md).
    ``ValueError`` names the games there are for an unknown one. (``game`` is
    positional only: Riichi's environment takes an option named ``game``, its length.)"""
    return _loaded(game, env_factory)(**options)


def _loaded(game: str, load: Callable[[str], Any]) -> Any:
    """``load(game)``, the game's environment or data imported now; ``ValueError`` for a
    game without an environment, ``ImportError`` naming the envs extra without it."""
    if game not in GAMES:
        raise ValueError(f"no environment for {game!r} (there are: {', '.join(GAMES)})")
    try:
        return load(game)
    except ImportError as exc:
        raise ImportError(f"the environments need the envs extra: pip install "
                          f"'referee[envs]' ({exc})") from exc


def at_decision(game: str, row: Mapping[str, Any] | str, /, ply: int | None = None, *,
                root: str | Path | None = None, render_mode: str | None = None,
                max_moves: int | None = None) -> Any:
    """The AEC environment of ``game`` at the decision of a dataset row: ``row`` is the
    row (a mapping with its ``game`` and ``ply``: pyarrow's ``to_pylist()``, a pandas
    row, a Hugging Face ``datasets`` row), or its ``game`` label with ``ply``. The game is
    read again from where the label says (relative labels from ``root``, default the
    current folder, as the dataset's sources were given) and replayed up to the
    decision: the environment's ``agent_selection`` is the agent that decided (the row's
    ``agent``), its observation and mask are the row's, and ``step(row["action"])`` plays
    on as the game went. ``ValueError`` if the game or the decision is not there."""
    if isinstance(row, str):
        label = row
        if ply is None:
            raise ValueError("at_decision: a label needs its ply")
    else:
        label, ply = str(row["game"]), int(row["ply"]) if ply is None else ply
    data = _loaded(game, game_data)
    from referee.core.aec import EngineEnv  # (imported with the game's data)
    from referee.training.dataset_sources import find_game

    position = data.position(find_game(label, data, None if root is None else Path(root)),
                             ply)
    env = EngineEnv(position.game, render_mode=render_mode, max_moves=max_moves)
    env.set_engine(position.engine, position.moves)
    return env
