"""The games a tournament is playing, as its live view shows them: who plays, since when,
how many moves and the last one, written to ``OUTPUT/live.json`` (whole, renamed into
place) at most every ``every`` seconds while moves come, and at once when a game starts
or ends; and each game's moves so far, appended to ``OUTPUT/live/<key>.jsonl`` at the
same writes, from which ``referee report --serve`` replays the game on a live board. The
tournament says what was played; the server works out what to draw, through the game's
replay, in another process.

The file: ``{"updated": unix time, "total": games scheduled, "done": finished, "games":
[{"key", "round", "players": [...], "started": unix time, "moves": n, "last": {"seat",
"move"} or null, "last_at": unix time of the last move or null, "file": the moves file
(relative to the output folder) or null}]}``; a game played elsewhere (Ray) shows no moves
and has no moves file. A moves file's first line is the game as its record begins it
(``{"game", "players": [names], "settings", "seed", "opening", "round", "key"}``), each
other line one move (``{"seat", "move", "ms"}``, and ``"info"`` when it has one); it is
removed when its game ends (its record is then in the store), and every one is removed
when a run starts or stops.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.core.files import write_text_atomic
from referee.core.record import GameRecord

log = logging.getLogger(__name__)

__all__ = ["LIVE_FILE", "LIVE_MOVES", "LiveBoard", "moves_file"]

LIVE_FILE = "live.json"
"""The live view's file, in the tournament's output folder."""


LIVE_MOVES = "live"
"""The folder of the games' moves files, in the tournament's output folder."""


def moves_file(key: str) -> str:
    """Where a game's moves go, relative to the output folder (its key made safe as a
    file name, and told apart from any other key that would read the same)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in key)
    return f"{LIVE_MOVES}/{safe}-{zlib.crc32(key.encode()):08x}.jsonl"


@dataclass
class _Game:
    key: str
    round: int
    players: list[str]
    started: float
    record: GameRecord | None = None
    """Its record as the game thread fills it (read when the file is written)."""
    last_at: float | None = None
    """When its last move came (unix time; read by the writer)."""
    written: int = -1
    """How many of its moves its moves file holds (-1: no file yet)."""

    def to_dict(self, count: int) -> dict[str, Any]:
        """The game's entry in the file, with its first ``count`` moves and the last of
        them."""
        moves = self.record.moves if self.record is not None else []
        last = moves[count - 1] if count else None
        return {"key": self.key, "round": self.round, "players": self.players,
                "started": round(self.started, 3), "moves": count,
                "last": None if last is None else {"seat": last.seat, "move": last.move[:200]},
                "last_at": None if self.last_at is None else round(self.last_at, 3),
                "file": moves_file(self.key) if self.written >= 0 else None}

    def append_moves(self, folder: Path, count: int) -> None:
        """Add the moves up to ``count`` its file lacks (the file begun with the game's
        head if it has none yet); ``OSError`` if the disk refuses."""
        record = self.record
        if record is None:
            return
        path = folder / moves_file(self.key)
        lines = []
        if self.written < 0:
            path.parent.mkdir(parents=True, exist_ok=True)
            lines.append(json.dumps({
                "game": record.game, "players": [p.name for p in record.players],
                "settings": record.settings, "seed": record.seed, "opening": record.opening,
                "round": self.round, "key": self.key}, ensure_ascii=False, default=str))
            self.written = 0
        for move in record.moves[self.written:count]:
            data: dict[str, Any] = {"seat": move.seat, "move": move.move, "ms": move.ms}
            if move.info:
                data["info"] = move.info
            lines.append(json.dumps(data, ensure_ascii=False, default=str))
        if lines:
            with open(path, "a", encoding="utf-8") as handle:
                handle.write("\n".join(lines) + "\n")
        self.written = max(self.written, count)


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
    _clock: float = field(default_factory=lambda: time.monotonic() - time.time())
    """The monotonic clock's offset from unix time (a move's time costs one clock read)."""

    def __post_init__(self) -> None:
        self._remove_moves()  # (a run that ended without its clear left some)

    def start(self, key: str, round_: int, players: list[str]) -> None:
        """A game begins."""
        with self._lock:
            self.games[key] = _Game(key, round_, players, time.time())
        self.write()

    def moved(self, key: str, record: GameRecord) -> None:
        """A move of game ``key`` (its record so far, which the files read when they are
        next written, from whichever thread writes them: a move costs a look-up and a
        clock read)."""
        game = self.games.get(key)  # (one dictionary read: atomic, as the writes are)
        if game is None:
            return
        game.record = record
        now = time.monotonic()
        game.last_at = now - self._clock
        if now - self._written >= self.every:
            self.write()

    def finish(self, key: str, done: int) -> None:
        """A game ended (``done`` games finished in all)."""
        with self._lock:
            game = self.games.pop(key, None)
            self.done = done
        if game is not None and game.written >= 0:
            with contextlib.suppress(OSError):
                (self.path.parent / moves_file(key)).unlink()
        self.write()

    def clear(self, done: int) -> None:
        """No game is being played any more (the run stopped; ``done`` finished)."""
        with self._lock:
            self.games.clear()
            self.done = done
        self._remove_moves()
        self.write()

    def _remove_moves(self) -> None:
        """Remove every game's moves file (and their folder)."""
        folder = self.path.parent / LIVE_MOVES
        with contextlib.suppress(OSError):
            for path in folder.glob("*.jsonl"):
                path.unlink(missing_ok=True)
            folder.rmdir()

    def write(self) -> None:
        """Write the files now: each game's new moves, then the list of games (a disk
        that refuses is said once in the log; the tournament goes on)."""
        with self._lock:
            self._written = time.monotonic()
            entries = []
            try:
                for game in self.games.values():
                    count = len(game.record.moves) if game.record is not None else 0
                    # (the game's thread only appends to them: the first ``count`` are set)
                    game.append_moves(self.path.parent, count)
                    entries.append(game.to_dict(count))
                data = {"updated": round(time.time(), 3), "total": self.total,
                        "done": self.done, "games": entries}
                write_text_atomic(self.path, json.dumps(data, ensure_ascii=False) + "\n")
            except OSError as exc:
                if not self._broken:
                    log.warning("the live view's file %s cannot be written: %s", self.path,
                                exc)
                self._broken = True
