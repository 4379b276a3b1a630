"""Policies for the tests of ``referee bot``: each takes the environment's observation."""

from __future__ import annotations

from typing import Any

import numpy as np


def policy(observation: dict[str, Any]) -> int:
    """The first legal action."""
    return int(np.flatnonzero(observation["action_mask"])[0])


def raises(observation: dict[str, Any]) -> int:
    """A policy with a bug."""
    raise ZeroDivisionError("my bug")


def illegal(observation: dict[str, Any]) -> int:
    """Always the first action, legal or not."""
    return 0


def not_a_number(observation: dict[str, Any]) -> str:
    """Answers text."""
    return "e5"


_asked = [0]


def illegal_later(observation: dict[str, Any]) -> int:
    """The first legal action five times (in one run of the program), then the first
    action the mask forbids."""
    _asked[0] += 1
    mask = observation["action_mask"]
    return int(np.flatnonzero(mask if _asked[0] <= 5 else mask == 0)[0])
