"""The game record: who played, under which settings, every move with its time, the result.

A record holds everything needed to replay a game exactly. It is plain data, written as
one JSON document per game (``GameRecord.write``) and read back with ``GameRecord.read``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from referee import __version__
from referee.core.errors import ConfigError
from referee.core.files import write_text_atomic
from referee.core.json_read import JsonTooDeep, json_value
from referee.core.outcome import Outcome
from referee.core.scoped import scoped_value
from referee.core.text import clip

FORMAT = "referee-game/1"
MAX_NOTES = 2000
"""Bot messages kept per game; more are counted, not stored (a flooding bot stays bounded)."""


@dataclass
class StderrLog:
    """Where one seat's bot wrote its stderr during a game: the log file and the byte
    range ``[start, end)`` of it the game's bot processes wrote (all of them: a game that
    starts a seat's program again, as Mahjong does each hand, appends to the same file).

    ``path`` is ``/``-separated and relative: to the folder the game was played in, and
    in a tournament's store to the store's folder (``slots/<slot>/logs/...``), so that a
    moved store still finds its logs."""

    path: str
    start: int
    end: int

    @classmethod
    def from_dict(cls, data: Any) -> StderrLog:
        """Read one back; ``ValueError`` unless it is a relative path and a range."""
        if not isinstance(data, dict) or set(data) != {"path", "start", "end"}:
            raise ValueError(f"stderr: expected path, start and end, got {data!r}")
        path, start, end = data["path"], data["start"], data["end"]
        if not isinstance(path, str) or not path:
            raise ValueError(f"stderr: path {path!r} is not a file name")
        if not (type(start) is int and type(end) is int and 0 <= start <= end):
            raise ValueError(f"stderr: {start!r}..{end!r} is not a byte range")
        return cls(path, start, end)


@dataclass
class PlayerInfo:
    """One seat's player: its name, the command that ran it, what it said about itself,
    and (``stderr``) the part of its stderr log the game made, where it is known."""

    name: str
    command: list[str] = field(default_factory=list)
    about: dict[str, str] = field(default_factory=dict)
    stderr: StderrLog | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary (without ``stderr`` when it is not known, as records
        of earlier releases were written)."""
        data = asdict(self)
        if self.stderr is None:
            del data["stderr"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlayerInfo:
        """Read one back (``TypeError``/``ValueError`` if it is malformed)."""
        fields = dict(data)
        stderr = fields.pop("stderr", None)
        return cls(**fields, stderr=None if stderr is None else StderrLog.from_dict(stderr))


@dataclass
class MoveRecord:
    """One decision of one seat: the move in the game's own notation and the time it took."""

    seat: int
    move: str
    ms: float
    info: dict[str, Any] = field(default_factory=dict)


@dataclass
class Note:
    """Something a bot said that is not a move (MESSAGE, DEBUG...), with the move it came at."""

    seat: int
    ply: int
    kind: str
    text: str


@dataclass
class Fault:
    """A fault that did not end the game: a replacement took the seat over (ICGA Mahjong's
    dummy AI), with the move it came at. The standings count it as the seat's fault."""

    seat: int
    ply: int
    outcome: str
    reason: str


def _move_dict(move: MoveRecord) -> dict[str, Any]:
    data: dict[str, Any] = {"seat": move.seat, "move": move.move, "ms": move.ms}
    if move.info:
        data["info"] = move.info
    return data


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


_LOCAL = threading.local()


def is_record_file(path: str | Path) -> bool:
    """Whether ``path`` looks like a referee's game record (a ``.json`` file, as
    ``GameRecord.write`` makes it, with players and moves near its start, or one line of
    compact JSON as a tournament keeps it and its site offers it, starting with its
    format), told from its first 4 KB; a file that cannot be read is not one."""
    path = Path(path)
    if path.suffix != ".json":
        return False
    try:
        with open(path, "rb") as stream:
            head = stream.read(1 << 12)
    except OSError:
        return False
    return ((head.startswith(b"{\n") and b'"players"' in head and b'"moves"' in head)
            or head.startswith(b'{"format":"' + FORMAT.encode() + b'"'))


def move_listener(listener: Callable[[GameRecord], None]
                  ) -> contextlib.AbstractContextManager[None]:
    """Call ``listener`` with the record after each move a record gets in this thread,
    inside the block (a tournament's live view of the games in progress). It must be
    quick and must not raise."""
    return scoped_value(_LOCAL, "listener", listener)


@dataclass
class GameRecord:
    """A complete game: players (in seat order), settings, seed, moves, result and reason.

    ``scores`` has one entry per seat (1 win, 0.5 draw, 0 loss) once the game is over.
    ``offender`` is the seat whose fault ended the game (``None`` for a normal end);
    ``faults`` are the faults a replacement survived (see ``Fault``). A move's ``info``
    holds ``cpu_ms``, the CPU time its bot used for it, where it was measured.
    """

    game: str
    players: list[PlayerInfo]
    settings: dict[str, Any] = field(default_factory=dict)
    seed: int | None = None
    opening: list[Any] = field(default_factory=list)
    moves: list[MoveRecord] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    notes_dropped: int = 0
    faults: list[Fault] = field(default_factory=list)
    scores: list[float] | None = None
    outcome: Outcome | None = None
    reason: str = ""
    offender: int | None = None
    round: int = 0
    index: int = 0
    started_at: str = field(default_factory=_now)
    finished_at: str = ""
    referee_version: str = __version__
    sandbox: str = ""
    """Which protections were active (``SandboxPlan.describe``); empty in records of
    earlier releases (and then left out of the file)."""

    # -- building -----------------------------------------------------------------------
    def add_move(self, seat: int, move: str, seconds: float, **info: Any) -> None:
        """Append one move and the time it took (and tell this thread's move listener,
        if there is one: ``move_listener``)."""
        self.moves.append(MoveRecord(seat, move, round(seconds * 1000.0, 3), info))
        listener = getattr(_LOCAL, "listener", None)
        if listener is not None:
            listener(self)

    def add_note(self, seat: int, kind: str, text: str) -> None:
        """Keep something a bot said (bounded: past ``MAX_NOTES`` only counted)."""
        if len(self.notes) < MAX_NOTES:
            self.notes.append(Note(seat, len(self.moves), kind, text[:2000]))
        else:
            self.notes_dropped += 1

    def add_fault(self, seat: int, outcome: Outcome, reason: str) -> None:
        """Count a fault of ``seat`` that did not end the game (a replacement plays on)."""
        self.faults.append(Fault(seat, len(self.moves), outcome.value, reason[:2000]))

    def finish(
        self,
        scores: list[float],
        outcome: Outcome,
        reason: str,
        offender: int | None = None,
    ) -> None:
        """Close the record with the result."""
        self.scores = list(scores)
        self.outcome = outcome
        self.reason = reason
        self.offender = offender
        self.finished_at = _now()

    @property
    def finished(self) -> bool:
        """Whether the game has a result."""
        return self.scores is not None

    @property
    def winner(self) -> int | None:
        """The winning seat, or ``None`` for a draw or an unfinished game."""
        if not self.scores:
            return None
        best = max(self.scores)
        leaders = [i for i, s in enumerate(self.scores) if s == best]
        return leaders[0] if len(leaders) == 1 else None

    def result_text(self) -> str:
        """The result as ``result_text`` writes it (``*`` while unfinished)."""
        return result_text(self.scores)

    # -- files --------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        data: dict[str, Any] = {"format": FORMAT}
        for name in self.__dataclass_fields__:
            data[name] = getattr(self, name)
        data["players"] = [p.to_dict() for p in self.players]
        data["moves"] = [_move_dict(m) for m in self.moves]
        data["notes"] = [asdict(n) for n in self.notes]
        data["faults"] = [asdict(f) for f in self.faults]
        data["outcome"] = self.outcome.value if self.outcome else None
        if not self.sandbox:
            del data["sandbox"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "record") -> GameRecord:
        """Rebuild a record; raises ``ConfigError`` naming ``source`` if it is malformed."""
        try:
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                found = data.get("format") if isinstance(data, dict) else None
                raise ValueError(f"format is {found!r}, expected {FORMAT!r}")
            fields = _keywords(cls, {k: v for k, v in data.items() if k != "format"}, "")
            fields["players"] = [PlayerInfo.from_dict(_keywords(PlayerInfo, p, f"players[{i}]"))
                                 for i, p in enumerate(_items(data["players"], "players"))]
            for key, kind in (("moves", MoveRecord), ("notes", Note), ("faults", Fault)):
                fields[key] = [kind(**_keywords(kind, item, f"{key}[{i}]"))
                               for i, item in enumerate(_items(data.get(key, []), key))]
            outcome = data.get("outcome")
            if outcome and outcome not in Outcome._value2member_map_:
                raise ValueError(f"unknown outcome {outcome!r}")
            fields["outcome"] = Outcome(outcome) if outcome else None
            return cls(**fields)
        except (KeyError, TypeError, ValueError) as exc:
            raise ConfigError(f"{source}: not a valid game record: {exc}") from exc

    def to_json(self) -> str:
        """The record as one JSON document: one line per key, per move and per note."""
        parts = []
        for key, value in self.to_dict().items():
            if key in ("moves", "notes", "players") and value:
                body = ",\n  ".join(json.dumps(item, ensure_ascii=False) for item in value)
                text = f"[\n  {body}\n ]"
            else:
                text = json.dumps(value, ensure_ascii=False)
            parts.append(f" {json.dumps(key)}: {text}")
        return "{\n" + ",\n".join(parts) + "\n}"

    def to_compact_json(self) -> str:
        """The record as one line of JSON (for JSONL files)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    def write(self, path: Path | str) -> Path:
        """Write the record to ``path`` whole or not at all (``core.files``)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        return write_text_atomic(path, self.to_json() + "\n")

    @classmethod
    def read(cls, path: Path | str) -> GameRecord:
        """Read a record file; raises ``ConfigError`` naming the file if it is not one."""
        path = Path(path)
        try:
            data = json_value(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc
        except JsonTooDeep as exc:
            raise ConfigError(f"{path}: {exc}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: not JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: not a valid game record: expected a JSON object")
        return cls.from_dict(data, str(path))


def _keywords(kind: type, data: object, where: str) -> dict[str, Any]:
    """``data`` as the keyword arguments of the dataclass ``kind``; ``ValueError`` naming
    ``where`` (the record itself if empty) unless it is an object with every key ``kind``
    needs and no other."""
    at = f"{where}: " if where else ""
    if not isinstance(data, dict):
        raise ValueError(f"{at}expected an object, got {clip(repr(data), 40)}")
    known = {f.name: f for f in dataclasses.fields(kind)}
    unknown = sorted(str(key) for key in data if key not in known)
    if unknown:
        raise ValueError(f"{at}unknown key {unknown[0]!r}")
    missing = [name for name, f in known.items() if name not in data
               and f.default is dataclasses.MISSING
               and f.default_factory is dataclasses.MISSING]
    if missing:
        raise ValueError(f"{at}missing key {missing[0]!r}")
    return dict(data)


def _items(value: object, key: str) -> list[Any]:
    """A record's list ``key``; ``ValueError`` if it is not a list."""
    if not isinstance(value, list):
        raise ValueError(f"{key}: expected a list, got {clip(repr(value), 40)}")
    return value


def result_text(scores: Sequence[float] | None) -> str:
    """A game's result: ``1-0``, ``0-1``, ``1/2-1/2`` (two seats scored as a win, a loss or
    a draw), or the scores joined by ``-`` (points, as a two-player Planowanie game has; by
    `` / `` when one is negative, as Mahjong point totals can be); ``*`` without scores."""
    if scores is None:
        return "*"
    if len(scores) == 2 and sorted(scores) in ([0.0, 1.0], [0.5, 0.5]):
        a, b = scores
        if a == b:
            return "1/2-1/2"
        return "1-0" if a > b else "0-1"
    joiner = " / " if any(s < 0 for s in scores) else "-"
    return joiner.join(f"{s:g}" for s in scores)
