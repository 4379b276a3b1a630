"""What every game's ``referee bot GAME`` shares: the envs extra checked first (without it,
one line naming it and exit status 2, not a traceback), the policy loaded (one that cannot
be: one line, exit status 2), the bot played, and a fault of the policy during a game as
one line on standard error and exit status 1 (the referee records the crash)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import click

from referee.cli.support import fail
from referee.core.errors import ConfigError

__all__ = ["ENVS_EXTRA", "run_policy_bot"]

ENVS_EXTRA = "pip install 'referee[envs]'"
"""What installs the environments' libraries (PettingZoo, Gymnasium)."""


def run_policy_bot(game: str, policy: str, paths: Sequence[Path],
                   play: Callable[[Any], int]) -> NoReturn:
    """Load ``policy`` (``module:callable``, its module searched in ``paths`` first) and
    exit with what ``play(policy)`` returns: the game's bot speaking its protocol on
    standard input and output (``play`` imports the game's modules)."""
    try:
        import referee.core.aec  # noqa: F401  (PettingZoo and Gymnasium: the envs extra)
    except ImportError as exc:
        fail(ConfigError(f"referee bot {game} needs the envs extra: {ENVS_EXTRA} ({exc})"))
    from referee.core.policy import PolicyError, load_policy

    try:
        loaded = load_policy(policy, [str(p) for p in paths])
    except PolicyError as exc:
        fail(exc)
    try:
        code = play(loaded)
    except PolicyError as exc:  # the policy's fault during a game: one line, exit 1
        click.echo(f"referee bot {game}: {exc}", err=True)
        raise SystemExit(1) from None
    raise SystemExit(code)
