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
    moves: int = 0
    last: dict[str, Any] | None = None


@dataclass
class LiveBoard:
    """The games in progress, shared by the runner's game threads (every method is
    thread-safe and cheap: a move costs a lock and a clock read unless it is time to
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
        """A move of game ``key`` (its record so far)."""
        now = time.monotonic()
        with self._lock:
            game = self.games.get(key)
            if game is None or not record.moves:
                return
            game.moves = len(record.moves)
            last = record.moves[-1]
            game.last = {"seat": last.seat, "move": last.move[:200]}
            due = now - self._written >= self.every
        if due:
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
                    "games": [{"key": g.key, "round": g.round, "players": g.players,
                               "started": round(g.started, 3), "moves": g.moves,
                               "last": g.last} for g in self.games.values()]}
            try:
                write_text_atomic(self.path, json.dumps(data, ensure_ascii=False) + "\n")
            except OSError as exc:
                if not self._broken:
                    log.warning("the live view's file %s cannot be written: %s", self.path,
                                exc)
                self._broken = True
