"""Checks every environment's tests share: the mask against the engine's own answers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def assert_mask_is_the_engines(game: Any, engine: Any, seat: int, legal: Sequence[Any]) -> None:
    """``game``'s mask for ``seat`` holds exactly the numbers of the engine's ``legal``
    actions; ``action`` undoes ``index`` on them, and every other number decodes to an
    action the engine refuses; no other seat may act."""
    mask = game.legal_mask(engine, seat)
    numbers = {int(i) for i in np.flatnonzero(mask)}
    assert numbers == {game.index(engine, seat, a) for a in legal}
    for number in range(game.actions):
        action = game.action(engine, seat, number)
        if number in numbers:
            assert action in legal and game.index(engine, seat, action) == number
        else:
            assert engine.illegal_reason(seat, action) is not None
    for other in range(game.seats):
        if other != seat:
            assert not game.legal_mask(engine, other).any()
    known = getattr(game, "legal_action", None)  # the environment's step trusts it
    if known is not None:
        game.legal_mask(engine, seat)
        for number in range(-1, game.actions + 1):
            found = known(engine, seat, number)
            assert (found is not None) == (number in numbers)
            assert found is None or found == game.action(engine, seat, number)
            assert all(known(engine, other, number) is None
                       for other in range(game.seats) if other != seat)
