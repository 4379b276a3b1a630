"""The limits a Riichi bot gets unless a match or a tournament says otherwise (light: the
command line reads them for its help)."""

from __future__ import annotations

__all__ = ["MEMORY_MB"]

MEMORY_MB = 2048
"""The memory of a bot's whole process tree (0: no limit): room for a neural network on
the CPU (Mortal with PyTorch takes about 1 GB), a bound for the sandbox to hold."""
