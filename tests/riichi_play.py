"""What the Riichi environment tests share to steer a game toward every kind of decision:
the discards that lower the shanten the most."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.games.riichi.shape import shanten
from referee.games.riichi.tiles import parse_mjai


def best_discards(env_game: Any, engine: Any, seat: int, discards: Sequence[int]) -> list[int]:
    """Of the discard action numbers ``discards`` of ``seat``, those after which its hand
    is the nearest to ready (the lowest shanten)."""
    kyoku = engine.game.kyoku
    assert kyoku is not None
    counts, melds = kyoku.counts[seat], len(kyoku.melds[seat])

    def after(number: int) -> int:
        kind = parse_mjai(str(env_game.action(engine, seat, number).pai))[0]
        counts[kind] -= 1
        try:
            return shanten(counts, melds)
        finally:
            counts[kind] += 1

    levels = {n: after(n) for n in discards}
    best = min(levels.values())
    return [n for n, level in levels.items() if level == best]
