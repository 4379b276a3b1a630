"""PettingZoo environments over the engines that referee the games: one entry point.

``make(game, **options)`` returns the AEC environment of a game in ``GAMES``; the options
are its ``make_env``'s (docs/envs.md lists them with each observation layout). Needs the
``envs`` extra (``pip install 'referee[envs]'``: PettingZoo and NumPy).

>>> env = make("gomoku", size=9, rule="renju")
>>> env.reset(seed=1)
"""

from __future__ import annotations

from typing import Any

from referee.games.registry import GAMES as _ALL_GAMES
from referee.games.registry import env_factory

__all__ = ["GAMES", "make"]

GAMES: tuple[str, ...] = tuple(g.name for g in _ALL_GAMES if g.env is not None)
"""The games that have an environment."""


def make(game: str, /, **options: Any) -> Any:
    """The PettingZoo AEC environment of ``game`` with ``options`` (see docs/envs.md).
    ``ValueError`` names the games there are for an unknown one. (``game`` is
    positional only: Riichi's environment takes an option named ``game``, its length.)"""
    if game not in GAMES:
        raise ValueError(f"no environment for {game!r} (there are: {', '.join(GAMES)})")
    try:
        factory = env_factory(game)
    except ImportError as exc:
        raise ImportError(f"the environments need the envs extra: pip install "
                          f"'referee[envs]' ({exc})") from exc
    return factory(**options)
