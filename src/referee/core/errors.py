"""Typed exceptions of the referee, each with a message meant for a person."""

from __future__ import annotations

from referee.core.outcome import Outcome


class RefereeError(Exception):
    """Base of every error the referee raises on purpose."""


class ConfigError(RefereeError):
    """A bad command-line option, file or setting; the message names what and where."""


class MatchAborted(RefereeError):
    """A match cannot go on (for example a bot refuses the board size)."""


class BotFault(RefereeError):
    """A bot broke the rules of engagement: it loses the game with this outcome and reason."""

    def __init__(self, outcome: Outcome, reason: str) -> None:
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason

    def __repr__(self) -> str:
        return f"BotFault({self.outcome.value}, {self.reason!r})"


class JournalMismatch(RefereeError):
    """A game's journal holds an action its engine does not take (the journal is not this
    game's, or the rules changed since): the game cannot be resumed from it."""
