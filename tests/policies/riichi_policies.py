"""A policy for the tests of ``referee bot riichi``: takes the environment's observation."""

from __future__ import annotations

from typing import Any

import numpy as np


def policy(observation: dict[str, Any]) -> int:
    """The last legal action: in Riichi's numbering riichi, wins, calls and kans come
    before any discard or pass, so this bot claims whatever it is offered."""
    return int(np.flatnonzero(observation["action_mask"])[-1])
