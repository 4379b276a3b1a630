"""The AI side of the ICGA protocol, for the reference AIs: read the referee's lines on
standard input, keep the hand, answer each ``/ask`` with a policy on standard output.

``python -m referee.games.mahjong.bots.random_ai`` and ``...greedy_ai`` run it; a new AI
in Python can reuse ``AIState`` and write only its policy.
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Iterable
from typing import TextIO

from referee.core.botseed import SEED_ENV
from referee.games.mahjong.bots.policies import Policy
from referee.games.mahjong.melds import Meld, MeldKind
from referee.games.mahjong.rules import (
    Action,
    Ask,
    SeatView,
    notation,
)
from referee.games.mahjong.tiles import kind_of

__all__ = ["AIState", "run_ai"]


class AIState:
    """What an AI knows, kept from the referee's lines."""

    def __init__(self) -> None:
        self.seat = 0
        self.hand: list[int] = []
        self.melds: list[Meld] = []
        self.drawn: int | None = None
        self.discard: int | None = None
        self.scores: list[int] | None = None

    def view(self, ask: Ask) -> SeatView:
        """The view a policy decides from."""
        return SeatView(self.seat, tuple(sorted(self.hand)), tuple(self.melds), self.drawn,
                        self.discard if ask in (Ask.EAT, Ask.PONG) or
                        (ask in (Ask.GONG, Ask.HU) and self.discard is not None) else None,
                        ask)

    def hear(self, line: str) -> Ask | None:
        """Update the state from one referee line; the question if it is an ``/ask``."""
        words = line.split()
        if not words:
            return None
        command, args = words[0], words[1:]
        numbers = [int(a) for a in args if a.lstrip("-").isdecimal()]
        if command == "/start" and len(args) >= 2:
            self.seat = int(args[1]) - 1
        elif command == "/initCard":
            self.hand = numbers
        elif command == "/mo" and numbers:
            self.hand.append(numbers[0])
            self.drawn = numbers[0]
            self.discard = None
        elif command == "/ask" and args:
            return Ask(args[0])
        elif command == "/throw" and len(numbers) == 2:
            who, tile = numbers[0] - 1, numbers[1]
            if who == self.seat:
                self.hand.remove(tile)
                self.drawn = None
                self.discard = None
            else:
                self.discard = tile
        elif command in ("/eat", "/pong") and len(numbers) == 4:
            self._meld(numbers[0] - 1, MeldKind.CHOW if command == "/eat" else MeldKind.PUNG,
                       numbers[1:])
        elif command == "/gong" and len(numbers) >= 2:
            self._gong(numbers[0] - 1, numbers[1], numbers[2:])
        elif command == "/exit":
            self.scores = numbers
        return None

    def _meld(self, who: int, kind: MeldKind, tiles: list[int]) -> None:
        if who == self.seat:
            claimed = self.discard
            for t in tiles:
                if t != claimed and t in self.hand:
                    self.hand.remove(t)
            self.melds.append(Meld(kind, tuple(sorted(tiles)), claimed))
        self.discard = None

    def _gong(self, who: int, kong: int, tiles: list[int]) -> None:
        if who != self.seat:
            self.discard = None
            return
        if kong == 1 and tiles:
            tile = tiles[0]
            if tile in self.hand:
                self.hand.remove(tile)
            self.melds = [Meld(MeldKind.PROMOTED_KONG, tuple(sorted([*m.tiles, tile])))
                          if m.kind is MeldKind.PUNG and m.base == kind_of(tile) else m
                          for m in self.melds]
        elif tiles:
            for t in tiles:
                if t in self.hand:
                    self.hand.remove(t)
            self.melds.append(Meld(MeldKind.CONCEALED_KONG if kong == 0 else MeldKind.KONG,
                                   tuple(sorted(tiles))))
        self.discard = None


def run_ai(policy: Policy, lines: Iterable[str] = sys.stdin, out: TextIO = sys.stdout) -> int:
    """Play one session (one hand) until ``/exit``: every ``/ask`` answered by ``policy``."""
    rng = random.Random(int(os.environ.get(SEED_ENV, "0")))
    state = AIState()
    for line in lines:
        if line.split()[:1] == ["/exit"]:
            state.hear(line)
            break
        ask = state.hear(line)
        if ask is None:
            continue
        action: Action = policy(state.view(ask), rng)
        out.write(notation(action) + "\n")
        out.flush()
    return 0
