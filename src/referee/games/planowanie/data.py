"""Planowanie's training data (``referee dataset planowanie``): records replayed through
the environment's engine (``env.py``), one row per declaration and per card.

The deals are not in a record: they follow from its seed and settings (deck, players,
deals), as ``referee replay planowanie`` makes them again. A move recorded as illegal lost
the game: it has no action the mask allows, and it ends the game's rows. Planowanie has no
foreign format.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from referee.core.checking import record_seed
from referee.core.decisions import Decision, Position, replayed_position
from referee.core.record import GameRecord
from referee.games.planowanie.env import EnvPlanowanieGame, PlanowanieEnvGame
from referee.games.planowanie.replay import parse_move, record_rules
from referee.games.planowanie.rules import Rules, tournament_deals

__all__ = ["DATA", "PlanowanieData", "variant"]


def variant(rules: Rules) -> str:
    """The rules in words: ``4 players 23456789TJQKA/CDHS``, then the deals as
    ``set_game`` gives them unless they are the tournament's (deal i has i cards, as
    many deals as the deck allows up to 13)."""
    deck, players = rules.deck, rules.players
    text = f"{players} players {deck.values}/{deck.suits}"
    if rules.deals != tournament_deals(players, max(1, min(13, deck.size // players))):
        text += f" deals {rules.set_game_args()}"
    return text


class PlanowanieData:
    """Planowanie for ``training.dataset``."""

    name = "planowanie"

    def __init__(self) -> None:
        self._games: dict[Rules, PlanowanieEnvGame] = {}

    def _env_game(self, record: GameRecord) -> PlanowanieEnvGame:
        rules = record_rules(record.settings)
        game = self._games.get(rules)
        if game is None:
            game = self._games[rules] = PlanowanieEnvGame(rules)
        return game

    def layout(self, record: GameRecord) -> tuple[tuple[int, ...], int, float, str]:
        """The environment's layout for the record's deck, players and deals."""
        game = self._env_game(record)
        return (game.observation_shape, game.actions, game.observation_high,
                variant(game.rules))

    def decisions(self, record: GameRecord) -> Iterator[Decision]:
        """Each declaration and card as the environment saw it (a move recorded as
        illegal ends the rows); a move the engine finds illegal but the record does not
        is a ``ValueError``."""
        game = self._env_game(record)
        engine = EnvPlanowanieGame(game.layout, record_seed(record))
        deck = game.rules.deck
        for k, move in enumerate(record.moves, start=1):
            seat = engine.to_play()
            if seat is None or move.seat != seat:
                raise ValueError(f"move {k} ({move.move}) is not the seat to play's")
            if move.info.get("illegal"):
                return  # the move that lost the game: no row
            action = parse_move(move.move, deck)
            if action is None:
                raise ValueError(f"move {k}: {move.move!r} is neither 'declare N' nor a "
                                 "card of the deck")
            mask = game.legal_mask(engine, seat)
            try:
                index = game.index(engine, seat, action)
            except ValueError:
                index = -1
            if index < 0 or not mask[index]:
                raise ValueError(f"move {k} ({move.move}) is not legal: "
                                 f"{engine.illegal_reason(seat, action)}")
            yield Decision(seat, engine.views[seat].astype(np.uint8), mask, index)
            engine.apply(seat, action)

    def position(self, record: GameRecord, ply: int) -> Position:
        """Where decision ``ply`` was taken: the record's deals, played up to it."""
        game = self._env_game(record)
        engine = EnvPlanowanieGame(game.layout, record_seed(record))
        return replayed_position(game, engine, self.decisions(record), ply)

    def foreign_records(self, path: Path) -> None:
        """None: Planowanie has records only."""
        return None


DATA = PlanowanieData()
"""Planowanie's dataset maker (the registry's ``data`` entry)."""
