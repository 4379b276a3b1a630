"""A game's journal: every action applied to its engines, written as it is applied, so that
a game its process stopped in the middle of (a crash, a kill) is played on from where it
was: its engines are rebuilt by the same actions from the same seed, and its programs
take their seats at the position reached.

The game loop (``core.match.play_game``) keeps the journal that is active in its thread
(:func:`Journal.active`): each call of the loop is one engine (a game, a deal, a hand),
numbered in order. A journal that was read back holds the actions of a game stopped
earlier: the loop applies them without asking anyone (timed as they were first played)
and, once the last is applied, hands the seats to the journal's ``caught_up`` (whoever
resumes the game starts its programs there). A line torn by the crash is left out.

Actions are kept pickled: a journal is the referee's own file (never a bot's), read back
by the process that wrote it or the next one on the same data. Nothing here knows a game.
"""

from __future__ import annotations

import base64
import collections
import contextlib
import contextvars
import logging
import os
import pickle
from collections.abc import Callable, Iterator, MutableSequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from referee.core.errors import JournalMismatch
from referee.core.players import PlayerSpec

log = logging.getLogger(__name__)

__all__ = ["CaughtUp", "GameReplay", "Journal", "JournalMove"]

_ACTIVE: contextvars.ContextVar[Journal | None] = contextvars.ContextVar(
    "referee_journal", default=None)

CaughtUp = Callable[[Any, MutableSequence[Any]], list[tuple[int, Any]]]
"""Told the engine and the seats once the journal's actions are applied; gives back the
seats that could not take up the game there, with their ``BotFault``."""


@dataclass(frozen=True)
class JournalMove:
    """One applied action as the journal keeps it."""

    seat: int
    action: Any
    seconds: float
    cpu: float | None = None


@dataclass
class GameReplay:
    """The actions of one engine still to be applied again."""

    moves: collections.deque[JournalMove] = field(default_factory=collections.deque)

    def next_for(self, seat: int, accept: Callable[[Any], Any | None], number: int
                 ) -> tuple[JournalMove, Any]:
        """The next action to apply again, the game's move ``number``, which must be seat
        ``seat``'s and which ``accept`` takes (it returns the game's own form of the action,
        ``None`` if the action is illegal there); ``JournalMismatch`` if it is not the
        game's."""
        move = self.moves.popleft()
        action = accept(move.action) if move.seat == seat else None
        if action is None:
            raise JournalMismatch(f"the journal's move {number} ({move.seat}: "
                                  f"{move.action!r}) is not seat {seat + 1}'s in this game")
        return move, action


class Journal:
    """The journal file of one game (``path``), appended to as the game is played."""

    def __init__(self, path: Path, seed: int, games: list[list[JournalMove]] | None = None,
                 notes: list[tuple[int, str]] | None = None,
                 players: dict[int, PlayerSpec] | None = None,
                 for_good: set[int] | None = None) -> None:
        self.path = path
        self.seed = seed
        self.earlier = games or []
        """The actions of each engine of a game stopped earlier (empty: a new game)."""
        self.notes = notes or []
        """The notes the stopped game had made (``seat``, text)."""
        self.players = players or {}
        """The programs that had taken seats over in the stopped game, by seat."""
        self.for_good = for_good or set()
        """The seats of :attr:`players` taken over for the rest of the game (their own
        player gave up), not only until their owner takes them back."""
        self.resuming = any(self.earlier)
        """Whether actions of a stopped game are still to be applied again."""
        self.caught_up: CaughtUp | None = None
        self.games = 0
        self._file: Any = None

    # -- files ----------------------------------------------------------------------------
    @classmethod
    def create(cls, path: Path, seed: int) -> Journal:
        """A new journal of a game played with ``seed`` (a journal there is replaced)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        journal = cls(path, seed)
        journal._file = open(path, "wb", buffering=0)  # noqa: SIM115 (closed by close)
        journal._write({"k": "seed", "seed": seed})
        return journal

    @classmethod
    def read(cls, path: Path) -> Journal | None:
        """The journal at ``path`` read back and opened to go on; ``None`` if there is
        none or it does not say its seed."""
        try:
            lines = path.read_bytes().split(b"\n")
        except OSError:
            return None
        entries = []
        for line in lines:
            try:
                entries.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                continue  # (the torn last line)
        if not entries or entries[0].get("k") != "seed":
            return None
        games: list[list[JournalMove]] = []
        notes: list[tuple[int, str]] = []
        players: dict[int, PlayerSpec] = {}
        for_good: set[int] = set()
        try:
            for entry in entries[1:]:
                if entry["k"] == "move":
                    while len(games) <= entry["g"]:
                        games.append([])
                    action = pickle.loads(base64.b64decode(entry["a"]))
                    games[entry["g"]].append(JournalMove(entry["s"], action, entry["t"],
                                                         entry.get("c")))
                elif entry["k"] == "note":
                    notes.append((entry["s"], entry["text"]))
                elif entry["k"] == "seat":
                    players[int(entry["s"])] = PlayerSpec(
                        str(entry["name"]), [str(word) for word in entry["command"]],
                        builtin=bool(entry["builtin"]))
                    if entry.get("for_good"):
                        for_good.add(int(entry["s"]))
                elif entry["k"] == "released":
                    players.pop(int(entry["s"]), None)
                    for_good.discard(int(entry["s"]))
        except (KeyError, TypeError, ValueError, pickle.UnpicklingError, AttributeError,
                ImportError, EOFError) as exc:
            log.warning("%s: not a journal this referee can read (%s)", path, exc)
            return None
        journal = cls(path, int(entries[0]["seed"]), games, notes, players, for_good)
        journal._file = open(path, "ab", buffering=0)  # noqa: SIM115 (closed by close)
        return journal

    def _write(self, entry: dict[str, Any]) -> None:
        if self._file is None:
            return
        try:  # one write per line: a crash tears at most the last
            self._file.write(orjson.dumps(entry) + b"\n")
        except OSError as exc:
            log.warning("%s: the journal is not written (%s): the game cannot be resumed "
                        "after a crash", self.path, exc)
            self.close()

    def close(self) -> None:
        """Stop writing (the file stays)."""
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None

    def remove(self) -> None:
        """The game is over: its journal goes."""
        self.close()
        with contextlib.suppress(OSError):
            os.unlink(self.path)

    # -- the game loop ------------------------------------------------------------------
    @contextlib.contextmanager
    def activated(self) -> Iterator[Journal]:
        """The game loops run in this block (this thread) keep this journal."""
        token = _ACTIVE.set(self)
        try:
            yield self
        finally:
            _ACTIVE.reset(token)

    @staticmethod
    def active() -> Journal | None:
        """The journal of the game this thread plays, if it keeps one."""
        return _ACTIVE.get()

    def next_game(self) -> GameReplay:
        """A game loop begins its engine: the actions it had applied before, if any."""
        index = self.games
        self.games += 1
        earlier = self.earlier[index] if index < len(self.earlier) else []
        return GameReplay(collections.deque(earlier))

    def moved(self, seat: int, action: Any, seconds: float, cpu: float | None) -> None:
        """``seat``'s ``action`` was applied to the current engine."""
        if self._file is None:
            return
        try:
            kept = base64.b64encode(pickle.dumps(action)).decode()
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            log.warning("%s: an action cannot be kept (%s): the game cannot be resumed "
                        "after a crash", self.path, exc)
            self.remove()
            return
        entry: dict[str, Any] = {"k": "move", "g": self.games - 1, "s": seat,
                                 "t": round(seconds, 6), "a": kept}
        if cpu is not None:
            entry["c"] = cpu
        self._write(entry)

    def noted(self, seat: int, text: str) -> None:
        """A note of the game's (who plays which seat) to be made again on resuming."""
        self._write({"k": "note", "s": seat, "text": text})

    def took(self, seat: int, player: PlayerSpec, for_good: bool = False) -> None:
        """``player``'s program took ``seat`` over (it takes it again on resuming), for the
        rest of the game if ``for_good`` (else until :meth:`released`)."""
        entry: dict[str, Any] = {"k": "seat", "s": seat, "name": player.name,
                                 "command": list(player.command), "builtin": player.builtin}
        if for_good:
            entry["for_good"] = True
        self._write(entry)

    def released(self, seat: int) -> None:
        """The program that took ``seat`` over gave it back to its own player."""
        self._write({"k": "released", "s": seat})

    def applied(self) -> int:
        """How many actions the stopped game had applied, all engines together."""
        return sum(len(game) for game in self.earlier)
