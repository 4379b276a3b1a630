"""ICGA Mahjong's training data (``referee dataset mahjong``): records replayed through
the environment's engine (``env.py``), one row per answer to a question.

The walls follow from the record's seed and rules, as ``referee replay mahjong`` makes
them again. A match never forfeits a Mahjong seat: a faulty AI's answer (an illegal one,
recorded so, or none: a crash, a timeout) hands the seat to the dummy AI for the rest of
the hand, or of the game (``takeover`` game, or a client gone). The illegal answer has
no row, and neither have the dummy's: they are not the player's decisions. ICGA Mahjong
has no foreign format.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

from referee.core.checking import record_seed
from referee.core.decisions import Decision, Position, position_at
from referee.core.errors import BotFault
from referee.core.record import GameRecord
from referee.games.mahjong.adapter import record_rules
from referee.games.mahjong.engine import Rules
from referee.games.mahjong.env import ACTIONS, ROWS, EnvMahjongGame, MahjongEnvGame
from referee.games.mahjong.protocol import parse_action
from referee.games.mahjong.tiles import KINDS

__all__ = ["DATA", "MahjongData", "variant"]

_WHOLE_GAME = -1
"""A takeover's hand number when it lasts to the end of the game."""
_PENDING = -2
"""A takeover's hand number before the dummy's first answer (which tells the hand)."""


def variant(rules: Rules) -> str:
    """The rules in words: the tai table and the hands (``icga 16 hands``), then what is
    not the referee's default: the reserve, the stakes, kongs on the previous player's
    discard."""
    text = f"{rules.table.name} {rules.hands} hands"
    if rules.reserve != 16:
        text += f", reserve {rules.reserve}"
    if (rules.stakes.base, rules.stakes.per_tai) != (100, 20):
        text += f", stakes {rules.stakes.base}+{rules.stakes.per_tai}/tai"
    if rules.kong_from_previous:
        text += ", kong from previous"
    return text


def _whole_game(record: GameRecord, seat: int, ply: int) -> bool:
    """Whether the takeover of ``seat``'s fault at ``ply`` lasted to the end of the game
    (the record's ``takeover`` setting, or its note saying so)."""
    if record.settings.get("takeover") == "game":
        return True
    return any(note.seat == seat and note.ply == ply and note.kind == "takeover-at"
               and "end of the game" in note.text for note in record.notes)


class MahjongData:
    """ICGA Mahjong for ``training.dataset``."""

    name = "mahjong"

    def layout(self, record: GameRecord) -> tuple[tuple[int, ...], int, float, str]:
        """The environment's layout (the same for every rule) and the record's rules."""
        rules = record_rules(record.settings)
        return (ROWS, KINDS), ACTIONS, 4.0, variant(rules)

    def decisions(self, record: GameRecord) -> Iterator[Decision]:
        """Each answer as the environment saw it, but for those of a seat the dummy AI
        played (see the module); an answer the engine finds illegal but the record does
        not is a ``ValueError``."""
        rules = record_rules(record.settings)
        for decision, _, _ in self._steps(record, MahjongEnvGame(rules)):
            yield decision

    def position(self, record: GameRecord, ply: int) -> Position:
        """Where decision ``ply`` was taken: the record's walls, every answer before it
        played (the dummy AI's too)."""
        game = MahjongEnvGame(record_rules(record.settings))
        return position_at(self._steps(record, game), game, ply, game.copy_engine)

    def _steps(self, record: GameRecord, game: MahjongEnvGame
               ) -> Iterator[tuple[Decision, EnvMahjongGame, int]]:
        """Each decision, with the engine it is taken on (before its answer) and the
        answers played before it."""
        rules = game.rules
        engine = EnvMahjongGame(record_seed(record), rules)
        played = 0
        faults = sorted((f.ply, f.seat) for f in record.faults)
        survived = set(faults)
        dummy: dict[int, int] = {}
        """Seat -> the hand the dummy AI plays in it (or ``_WHOLE_GAME``)."""
        for k, move in enumerate(record.moves, start=1):
            seat = engine.to_play()
            if seat is None or move.seat != seat:
                raise ValueError(f"move {k} ({move.move}) is not the seat to play's")
            while faults and faults[0][0] < k:  # a fault before this move: the dummy on
                ply, faulty = faults.pop(0)
                dummy[faulty] = _WHOLE_GAME if _whole_game(record, faulty, ply) \
                    else _PENDING
            question = engine.hand.question
            assert question is not None  # (to_play said so)
            try:
                action = parse_action(move.move, question.ask)
            except BotFault as fault:
                raise ValueError(f"move {k}: {fault.reason}") from None
            if move.info.get("illegal"):
                if (k, seat) not in survived:
                    return  # the game ended there (not in a match of the referee's)
                continue  # no row; the dummy AI answers the question
            if dummy.get(seat) == _PENDING:
                dummy[seat] = engine.number  # the hand of the fault
            why = engine.illegal_reason(seat, action)
            if why is not None:
                raise ValueError(f"move {k} ({move.move}) is illegal: {why}")
            mine = dummy.get(seat) not in (_WHOLE_GAME, engine.number)
            if mine:
                mask = game.legal_mask(engine, seat)
                index = game.index(engine, seat, action)
                if not mask[index]:
                    raise ValueError(f"move {k} ({move.move}): action number {index} is "
                                     "not in the environment's mask")
                yield Decision(seat, game.observe(engine, seat).astype(np.uint8), mask,
                               index), engine, played
            engine.apply(seat, action)
            played += 1

    def foreign_records(self, path: Path) -> None:
        """None: ICGA Mahjong has records only."""
        return None


DATA = MahjongData()
"""ICGA Mahjong's dataset maker (the registry's ``data`` entry)."""
