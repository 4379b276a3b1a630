"""Replaying recorded Planowanie games through the engine (``referee replay planowanie``):
the deals from the record's seed and settings, every declaration and card checked, the
result the engine's (``core.checking.replay_record``)."""

from __future__ import annotations

from referee.core.checking import record_checker, record_seed, replay_record
from referee.core.record import GameRecord
from referee.games.planowanie.replay import parse_move, record_rules
from referee.games.planowanie.rules import Action, PlanowanieGame

__all__ = ["check_file", "check_record"]


def check_record(record: GameRecord) -> str:
    """Replay a Planowanie record: a summary, or ``ValueError`` naming the first move (or
    the result) the engine disagrees with."""
    if record.game != "planowanie":
        raise ValueError(f"a {record.game} record, not a planowanie one")
    rules = record_rules(record.settings)
    seed = record_seed(record)

    def parse(text: str) -> Action:
        action = parse_move(text, rules.deck)
        if action is None:
            raise ValueError(f"{text!r} is neither 'declare N' nor a card of the deck")
        return action

    return replay_record(PlanowanieGame(rules, seed), record, parse)


check_file = record_checker(check_record)
"""Check a record file: its format and a summary, or ``ValueError``."""
