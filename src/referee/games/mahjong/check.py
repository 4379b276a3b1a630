"""Replaying recorded ICGA Mahjong games through the engine (``referee replay mahjong``):
the walls from the record's seed, every answer checked against the question asked (the
dummy AI's answers after a takeover included), each hand's winner and payments and the
totals the engine's."""

from __future__ import annotations

from typing import Any

from referee.core.checking import record_checker, record_seed, replay_record
from referee.core.errors import BotFault
from referee.core.record import GameRecord
from referee.games.mahjong.adapter import record_rules
from referee.games.mahjong.protocol import parse_action
from referee.games.mahjong.rules import Action, MahjongGame

__all__ = ["check_file", "check_record"]


def check_record(record: GameRecord) -> str:
    """Replay a Mahjong record: a summary, or ``ValueError`` naming the first answer, hand
    or total the engine disagrees with."""
    if record.game != "mahjong":
        raise ValueError(f"a {record.game} record, not a mahjong one")
    seed = record_seed(record)
    game = MahjongGame(seed, record_rules(record.settings))

    def parse(text: str) -> Action:
        question = game.hand.question
        if question is None:
            raise ValueError(f"{text!r} answers no question")
        try:
            return parse_action(text, question.ask)
        except BotFault as fault:
            raise ValueError(fault.reason) from None

    summary = replay_record(game, record, parse)
    _compare_hands(record.settings.get("hands_played"), game)
    return summary


def _compare_hands(recorded: Any, game: MahjongGame) -> None:
    """Each hand's winner, discarder and payments as the record has them."""
    if not isinstance(recorded, list):
        raise ValueError("the record lists no hands played")
    if len(recorded) != len(game.results):
        raise ValueError(f"the record lists {len(recorded)} hands, the engine played "
                         f"{len(game.results)}")
    for number, (hand, result) in enumerate(zip(recorded, game.results, strict=True), 1):
        mine = {"winner": result.winner, "discarder": result.discarder,
                "payments": list(result.payments)}
        theirs = {key: hand.get(key) if isinstance(hand, dict) else None for key in mine}
        if theirs != mine:
            raise ValueError(f"hand {number}: the record has {theirs}, the engine {mine}")


check_file = record_checker(check_record)
"""Check a record file: its format and a summary, or ``ValueError``."""
