"""The limits an ICGA Mahjong AI gets unless a match or a tournament says otherwise (light:
the command line reads them for its help)."""

from __future__ import annotations

__all__ = ["MEMORY_MB"]

MEMORY_MB = 1024
"""The memory of an AI's whole process tree (0: no limit): the framework sets none; a
16-tile Mahjong AI needs far less, and a limit must be there for the sandbox to hold."""
