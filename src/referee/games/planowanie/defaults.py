"""The limits a Planowanie player gets unless a match or a tournament says otherwise
(light: the command line reads them for its help)."""

from __future__ import annotations

__all__ = ["MEMORY_MB"]

MEMORY_MB = 400
"""The memory of a player's whole process tree (0: no limit)."""
