"""The limits a Gomoku brain gets unless a match or a tournament says otherwise (light:
the command line reads them for its help)."""

from __future__ import annotations

__all__ = ["MEMORY_MB", "TOLERANCE_MS"]

TOLERANCE_MS = 1000
"""The grace past a time limit before a brain is forfeited, as GomocupJudge gives: a real
brain's first move on a busy machine (Rapfi clears a 350 MB hash table) needs it."""
MEMORY_MB = 350
"""The memory of a brain's whole process tree, as the Gomocup gives it (0: no limit)."""
