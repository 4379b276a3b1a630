"""How a game ended: the named outcomes every record carries."""

from __future__ import annotations

import enum


class Outcome(enum.Enum):
    """Why a game ended.

    ``NORMAL`` means the rules ended it (a win or a draw); every other value names the
    fault of the seat that lost by it.
    """

    NORMAL = "normal"
    TIMEOUT = "timeout"
    CRASH = "crash"
    ILLEGAL_MOVE = "illegal-move"
    PROTOCOL_ERROR = "protocol-error"
    MEMORY_LIMIT = "memory-limit"
    PROCESS_LIMIT = "process-limit"
    FOLDER_LIMIT = "folder-limit"
    RESIGNED = "resigned"
    """A person gave the game up (a web table's resign button)."""
    LEFT = "left"
    """A person left the table and did not come back in time, with no pinch-hitter."""
    ABORTED = "aborted"

    @property
    def is_fault(self) -> bool:
        """Whether this outcome is a bot's fault (it loses the game by it)."""
        return self not in (Outcome.NORMAL, Outcome.ABORTED)
