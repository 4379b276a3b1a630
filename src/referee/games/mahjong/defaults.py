"""The limits an ICGA Mahjong AI gets unless a match or a tournament says otherwise (light:
the command line reads them for its help)."""

from __future__ import annotations

__all__ = ["MAX_HANDS", "MEMORY_MB"]

MAX_HANDS = 64
"""The most hands a game may have (a match's ``--hands``, a tournament's ``hands``)."""

MEMORY_MB = 1024
"""The memory of an AI's whole process tree (0: no limit): the framework sets none; a
16-tile Mahjong AI needs far less, and a limit must be there for the sandbox to hold."""
