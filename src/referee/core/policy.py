"""A trained policy as a bot: load ``module:callable`` and ask it for actions.

A policy is any Python callable taking what a seat observes, exactly as the game's
PettingZoo environment gives it (``{"observation": array, "action_mask": int8 array}``),
and returning an action number of the environment's ``Discrete`` space. Each game's
``referee bot GAME --policy module:callable`` runs one as a bot process speaking the
game's wire protocol, so it can play in ``referee match`` and tournaments with no glue
code.

A policy that raises, returns something that is not an action number, or takes too long
is a faulty bot like any other: the bot process reports it on standard error and exits,
or sends what the policy chose, and the referee records the outcome (a crash, an illegal
move, a timeout).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from referee.core.errors import RefereeError

__all__ = ["Policy", "PolicyError", "ask", "load_policy"]

Policy = Callable[[Mapping[str, Any]], Any]
"""observation -> action number."""


class PolicyError(RefereeError):
    """The policy cannot be loaded, fails, or answers something that is not an action."""


def load_policy(spec: str, paths: Sequence[str] = ()) -> Policy:
    """The callable named by ``module:callable`` (``module.sub:object.method`` works too),
    with ``paths`` searched first for the module."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise PolicyError(f"--policy {spec!r}: expected module:callable, e.g. "
                          "my_agent:policy")
    for path in reversed(paths):
        if path not in sys.path:
            sys.path.insert(0, path)
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as exc:  # the user's module: any error it raises on import
        raise PolicyError(f"--policy {spec}: cannot import {module_name}: "
                          f"{type(exc).__name__}: {exc}") from exc
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise PolicyError(f"--policy {spec}: {module_name} has no {attribute}") from None
    if not callable(target):
        raise PolicyError(f"--policy {spec}: {attribute} is not callable")
    policy: Policy = target
    return policy


def ask(policy: Policy, observation: Mapping[str, Any], actions: int) -> int:
    """The policy's action number for ``observation`` (0 to ``actions`` - 1); a policy
    that raises or answers anything else is a ``PolicyError`` saying so. (An action the
    mask forbids is returned: the referee judges it, as it judges any bot's move.)"""
    try:
        answer = policy(observation)
    except Exception as exc:  # the user's code: whatever it raises is its fault
        raise PolicyError(f"the policy failed: {type(exc).__name__}: {exc}") from exc
    try:
        number = int(answer)
    except (TypeError, ValueError):
        raise PolicyError(f"the policy returned {answer!r}, not an action number") from None
    if number != answer or not 0 <= number < actions:
        raise PolicyError(f"the policy returned {answer!r}, not an action number from 0 "
                          f"to {actions - 1}")
    return number
