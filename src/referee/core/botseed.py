"""The seed a referee hands to a bot it starts (light: built-in bots import it at start-up)."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

log = logging.getLogger(__name__)

SEED_ENV = "REFEREE_BRAIN_SEED"
"""Environment variable telling a built-in bot the seed of its random choices."""


def seed_from(arg: int | None, environ: Mapping[str, str] | None = None) -> int | None:
    """The seed: the ``--seed`` argument first, then ``SEED_ENV``, else ``None`` (random)."""
    if arg is not None:
        return arg
    text = (os.environ if environ is None else environ).get(SEED_ENV, "").strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        log.warning("ignoring %s=%r: not an integer", SEED_ENV, text)
        return None
