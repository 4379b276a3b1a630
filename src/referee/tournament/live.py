"""The games a tournament is playing, as its live view shows them: who plays, since when,
how many moves and the last one, written to ``OUTPUT/live.json`` (whole, renamed into
place) at most every ``every`` seconds while moves come, and at once when a game starts
or ends. ``referee report --serve`` sends it to the open pages.

The file: ``{"updated": unix time, "total": games scheduled, "done": finished, "games":
[{"key", "round", "players": [...], "started": unix time, "moves": n, "last": {"seat",
"move"} or null}]}``; a game played elsewhere (Ray) shows no moves.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.core.files import write_text_atomic
from referee.core.record import GameRecord

log = logging.getLogger(__name__)

__all__ = ["LIVE_FILE", "LiveBoard"]

LIVE_FILE = "live.json"
"""The live view's file, in the tournament's output folder."""


@dataclass
class _Game:
    key: str
    round: int
    players: list[str]
    started: float
    record: GameRecord | None = None
    """Its record as the game thread fills it (read when the file is written)."""

    def to_dict(self) -> dict[str, Any]:
        """The game's entry in the file: its moves so far and the last one."""
        moves = self.record.moves if self.record is not None else []
        count = len(moves)  # (the game's thread only appends to them)
        last = moves[count - 1] if count else None
        return {"key": self.key, "round": self.round, "players": self.players,
                "started": round(self.started, 3), "moves": count,
                "last": None if last is None else {"seat": last.seat, "move": last.move[:200]}}


@dataclass
class LiveBoard:
    """The games in progress, shared by the runner's game threads (every method is
    thread-safe and cheap: a move costs a look-up and a clock read unless it is time to
    write)."""

    path: Path
    total: int = 0
    done: int = 0
    every: float = 0.5
    """Seconds between two writes while only moves come."""
    games: dict[str, _Game] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _written: float = 0.0
    _broken: bool = False

    def start(self, key: str, round_: int, players: list[str]) -> None:
        """A game begins."""
        with self._lock:
            self.games[key] = _Game(key, round_, players, time.time())
        self.write()

    def moved(self, key: str, record: GameRecord) -> None:
        """A move of game ``key`` (its record so far, which the file reads when it is next
        written, from whichever thread writes it: a move costs a look-up and a clock
        read)."""
        game = self.games.get(key)  # (one dictionary read: atomic, as the writes are)
        if game is None:
            return
        game.record = record
        if time.monotonic() - self._written >= self.every:
            self.write()

    def finish(self, key: str, done: int) -> None:
        """A game ended (``done`` games finished in all)."""
        with self._lock:
            self.games.pop(key, None)
            self.done = done
        self.write()

    def clear(self, done: int) -> None:
        """No game is being played any more (the run stopped; ``done`` finished)."""
        with self._lock:
            self.games.clear()
            self.done = done
        self.write()

    def write(self) -> None:
        """Write the file now (a disk that refuses is said once in the log; the
        tournament goes on)."""
        with self._lock:
            self._written = time.monotonic()
            data = {"updated": round(time.time(), 3), "total": self.total,
                    "done": self.done,
                    "games": [game.to_dict() for game in self.games.values()]}
            try:
                write_text_atomic(self.path, json.dumps(data, ensure_ascii=False) + "\n")
            except OSError as exc:
                if not self._broken:
                    log.warning("the live view's file %s cannot be written: %s", self.path,
                                exc)
                self._broken = True
