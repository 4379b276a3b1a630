"""The games the referee knows, by name, as tournament adapters."""

from __future__ import annotations

from referee.core.adapter import GameAdapter


def game_adapters() -> dict[str, GameAdapter]:
    """Every game by name (imported on demand)."""
    from referee.games.gomoku.adapter import GomokuAdapter
    from referee.games.mahjong.adapter import MahjongAdapter
    from referee.games.planowanie.adapter import PlanowanieAdapter
    from referee.games.riichi.adapter import RiichiAdapter

    return {"gomoku": GomokuAdapter(), "mahjong": MahjongAdapter(),
            "planowanie": PlanowanieAdapter(), "riichi": RiichiAdapter()}
