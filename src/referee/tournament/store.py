"""The results store: one SQLite file holding every scheduled game and its result.

Records go to a JSONL file beside it (``records.jsonl``, or ``records.jsonl.gz`` where each
record is a gzip member of its own). A game is finished in two steps: its record is
appended to the JSONL file and flushed to disk, then one SQLite transaction marks the game
done and moves the committed length of the JSONL file past it. On opening, the JSONL file
is cut back to the committed length and games left ``running`` go back to ``pending``: a
crash at any point (even ``kill -9``) loses no finished game and counts none twice.

The store remembers the tournament's fingerprint; opening it for another tournament is an
error before anything is written.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import operator
import os
import sqlite3
import threading
import urllib.parse
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from referee.core.errors import ConfigError
from referee.core.json_read import json_value
from referee.core.record import GameRecord
from referee.tournament.schedule import ScheduledGame
from referee.tournament.store_lock import StoreLock

SCHEMA_VERSION = "1"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    key TEXT PRIMARY KEY,
    seq INTEGER NOT NULL UNIQUE,
    round INTEGER NOT NULL,
    seats TEXT NOT NULL,
    seed INTEGER NOT NULL,
    opening INTEGER,
    pair TEXT,
    status TEXT NOT NULL DEFAULT 'pending',
    scores TEXT,
    outcome TEXT,
    reason TEXT,
    offender INTEGER,
    plies INTEGER,
    finished_seq INTEGER,
    record_offset INTEGER,
    record_length INTEGER,
    faults TEXT
);
CREATE INDEX IF NOT EXISTS games_status ON games(status, seq);
CREATE INDEX IF NOT EXISTS games_finished ON games(finished_seq);
CREATE TABLE IF NOT EXISTS byes (round INTEGER NOT NULL, player TEXT NOT NULL,
                                 PRIMARY KEY (round, player));
CREATE TABLE IF NOT EXISTS processes (pid INTEGER NOT NULL, started REAL NOT NULL,
                                      game TEXT NOT NULL, token TEXT,
                                      PRIMARY KEY (pid, started));
"""


@dataclass(frozen=True)
class GameRow:
    """One game as stored: the schedule's facts and, once played, its result."""

    key: str
    seq: int
    round: int
    seats: tuple[str, ...]
    seed: int
    opening: int | None
    pair: str | None
    status: str
    scores: tuple[float, ...] | None
    outcome: str | None
    reason: str | None
    offender: int | None
    plies: int | None
    finished_seq: int | None
    faults: tuple[tuple[int, str], ...] = ()
    """Faults a replacement survived: ``(seat, outcome)``."""

    def scheduled(self) -> ScheduledGame:
        """The schedule's view of this game."""
        return ScheduledGame(self.key, self.round, self.seats, self.seed, self.opening,
                             self.pair)

    def values(self) -> tuple[Any, ...]:
        """Its fields in order: ``GameRow(*row.values())`` is ``row`` again. (A list of
        these pickles three times faster than the rows, for the site's workers.)"""
        return _ROW_VALUES(self)


_ROW_VALUES = operator.attrgetter(*(f.name for f in fields(GameRow)))


class Store:
    """One tournament's SQLite store and its JSONL records (thread-safe)."""

    def __init__(self, folder: Path | str, gzip_records: bool = False) -> None:
        self.folder = Path(folder)
        self.path = self.folder / "tournament.sqlite"
        self.records_path = self.folder / ("records.jsonl.gz" if gzip_records else
                                           "records.jsonl")
        self.gzip = gzip_records
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._reader: int | None = None
        """The records file open for reading (``record_json``), once a record is read."""
        self._claim = StoreLock(self.folder)

    def claim(self) -> None:
        """Become the one referee that writes this store until :meth:`close`
        (``ConfigError`` naming the run that holds it otherwise; see ``store_lock``)."""
        self._claim.acquire()

    # -- opening ------------------------------------------------------------------------
    def open(self, fingerprint: str, name: str) -> Store:
        """Open (or create) the store for the tournament with this fingerprint.

        Raises ``ConfigError`` if the store belongs to another tournament (nothing is
        written to it then). Recovers from an earlier crash (see the module docstring).
        """
        self.check(fingerprint)
        self.folder.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        # NORMAL: in WAL mode a commit survives a crash of the referee (kill -9) at once and
        # may only be lost with the machine's power; then the committed length of the
        # records falls back with it, the record is cut away on opening and the game is
        # played again. Either way no game is lost or counted twice, with a disk sync per
        # finished game (the record's) instead of one per store update.
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(_SCHEMA)
        columns = {row[1] for row in db.execute("PRAGMA table_info(games)")}
        if "faults" not in columns:  # a store made before the column: add it, empty
            db.execute("ALTER TABLE games ADD COLUMN faults TEXT")
        if "token" not in {row[1] for row in db.execute("PRAGMA table_info(processes)")}:
            db.execute("ALTER TABLE processes ADD COLUMN token TEXT")
        self._db = db
        with self._transaction():
            self._put_default("schema", SCHEMA_VERSION)
            self._put_default("fingerprint", fingerprint)
            self._put_default("name", name)
            self._put_default("committed", "0")
            self._put_default("gzip", "1" if self.gzip else "0")
        if self.meta("gzip") != ("1" if self.gzip else "0"):
            raise ConfigError(f"{self.path}: records were written "
                              f"{'with' if self.meta('gzip') == '1' else 'without'} gzip; "
                              "keep records_gzip as it was")
        self._recover()
        return self

    @staticmethod
    def peek_done(folder: Path | str) -> int:
        """Finished games in the store in ``folder``, read without disturbing a referee
        writing to it (0 if there is no readable store yet): for progress watchers."""
        path = Path(folder) / "tournament.sqlite"
        if not path.exists():
            return 0
        try:
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
            try:
                return int(db.execute("SELECT COUNT(*) FROM games WHERE status='done'")
                           .fetchone()[0])
            finally:
                db.close()
        except sqlite3.Error:
            return 0

    @classmethod
    def open_existing(cls, folder_or_file: Path | str) -> Store:
        """Open a store for reading, whatever tournament it holds: read-only (``_read_only``),
        so that a store on a read-only disk, or one the user may only read, is read too."""
        path = Path(folder_or_file)
        folder = path.parent if path.suffix == ".sqlite" else path
        if not (folder / "tournament.sqlite").exists():
            raise ConfigError(f"{path}: no tournament store (tournament.sqlite) here")
        db = _read_only(folder / "tournament.sqlite")
        try:
            row = db.execute("SELECT value FROM meta WHERE key='gzip'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise ConfigError(f"{folder / 'tournament.sqlite'}: not a tournament store: "
                              f"{exc}") from None
        finally:
            db.close()
        store = cls(folder, gzip_records=bool(row and row[0] == "1"))
        store._db = _read_only(store.path)
        return store

    def check(self, fingerprint: str) -> None:
        """Raise ``ConfigError`` if a store exists here for another tournament, and
        ``PermissionError`` if it is one this user may only read (before a program is
        started for it, and before SQLite leaves its -wal and -shm files beside it and
        fails at the first write); nothing is written."""
        if not self.path.exists():
            return
        try:
            db = _read_only(self.path)
            try:
                rows = dict(db.execute("SELECT key, value FROM meta").fetchall())
            finally:
                db.close()
        except sqlite3.DatabaseError as exc:
            raise ConfigError(f"{self.path}: not a tournament store: {exc}") from None
        if rows.get("fingerprint") != fingerprint:
            other = rows.get("name", "?")
            raise ConfigError(
                f"{self.path}: this store belongs to another tournament ({other!r}, or the "
                f"same file with other players, settings, schedule or seed); nothing was "
                "written. Use another output folder, or the original tournament file."
            )
        os.close(os.open(self.path, os.O_RDWR | os.O_CLOEXEC))

    def close(self) -> None:
        """Close the database (and let another run claim the store)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
            if self._reader is not None:
                os.close(self._reader)
                self._reader = None
            self._claim.release()

    @property
    def db(self) -> sqlite3.Connection:
        """The open connection."""
        if self._db is None:
            raise RuntimeError("store is not open")
        return self._db

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            db = self.db
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _put_default(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def meta(self, key: str) -> str | None:
        """A value of the meta table."""
        with self._lock:
            row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        """Set a value of the meta table."""
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def _recover(self) -> None:
        committed = int(self.meta("committed") or 0)
        if self.records_path.exists() and self.records_path.stat().st_size != committed:
            with open(self.records_path, "r+b") as handle:
                handle.truncate(committed)
        with self._transaction() as db:
            db.execute("UPDATE games SET status='pending' WHERE status='running'")

    # -- schedule -----------------------------------------------------------------------
    def add_games(self, games: Sequence[ScheduledGame]) -> int:
        """Insert scheduled games not yet in the store; returns how many were new."""
        with self._transaction() as db:
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) FROM games").fetchone()[0]
            added = 0
            for game in games:
                cursor = db.execute(
                    "INSERT OR IGNORE INTO games(key, seq, round, seats, seed, opening, pair) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (game.key, seq + 1, game.round, json.dumps(list(game.seats)), game.seed,
                     game.opening, game.pair),
                )
                if cursor.rowcount:
                    seq += 1
                    added += 1
        return added

    def add_bye(self, round_number: int, player: str) -> None:
        """Note that ``player`` sits out ``round_number``."""
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO byes(round, player) VALUES (?, ?)",
                       (round_number, player))

    def byes(self) -> dict[str, int]:
        """How many rounds each player sat out."""
        with self._lock:
            rows = self.db.execute("SELECT player, COUNT(*) FROM byes GROUP BY player")
            return {str(p): int(n) for p, n in rows.fetchall()}

    def games(self, status: str | None = None, round_number: int | None = None,
              by_finish: bool = False) -> list[GameRow]:
        """Games in schedule order (or the order they finished), optionally filtered."""
        query = "SELECT * FROM games"
        where: list[str] = []
        args: list[str | int] = []
        if status is not None:
            where.append("status=?")
            args.append(status)
        if round_number is not None:
            where.append("round=?")
            args.append(round_number)
        if where:
            query += " WHERE " + " AND ".join(where)
        query += " ORDER BY finished_seq, seq" if by_finish else " ORDER BY seq"
        with self._lock:
            cursor = self.db.execute(query, args)
            names = [d[0] for d in cursor.description]
            rows = cursor.fetchall()
        return [_row(dict(zip(names, r, strict=True))) for r in rows]

    def count(self, status: str | None = None) -> int:
        """How many games (with ``status``, if given) the store holds."""
        query = "SELECT COUNT(*) FROM games" + (" WHERE status=?" if status else "")
        with self._lock:
            return int(self.db.execute(query, (status,) if status else ()).fetchone()[0])

    def pending(self, batch: int = 256) -> Iterator[GameRow]:
        """Pending games in schedule order, fetched a batch at a time (memory stays flat).

        Games that become pending again later (none do while a run goes on) are not seen.
        """
        after = 0
        while True:
            with self._lock:
                cursor = self.db.execute(
                    "SELECT * FROM games WHERE status='pending' AND seq>? ORDER BY seq LIMIT ?",
                    (after, batch))
                names = [d[0] for d in cursor.description]
                rows = [_row(dict(zip(names, r, strict=True))) for r in cursor.fetchall()]
            if not rows:
                return
            yield from rows
            after = rows[-1].seq

    def mark_running(self, key: str) -> None:
        """Note that a game has started."""
        with self._transaction() as db:
            db.execute("UPDATE games SET status='running' WHERE key=? AND status='pending'",
                       (key,))

    def cancel_pending(self) -> int:
        """Mark every game not yet played as cancelled (e.g. after an SPRT verdict)."""
        with self._transaction() as db:
            return db.execute("UPDATE games SET status='cancelled' "
                              "WHERE status IN ('pending', 'running')").rowcount

    # -- results ------------------------------------------------------------------------
    def commit(self, key: str, record: GameRecord,
               kept: tuple[str, Collection[int]] | None = None) -> None:
        """Append the record, then mark the game done in one transaction (see module doc),
        in which its bot processes are forgotten too: all of them, or with ``kept`` (a
        name and pids) those kept alive for later games are noted under that name
        instead, where they are the only ones noted (the name's others were ended)."""
        line = (record.to_compact_json() + "\n").encode()
        data = gzip.compress(line, mtime=0) if self.gzip else line
        with self._lock:
            row = self.db.execute("SELECT status FROM games WHERE key=?", (key,)).fetchone()
            if row is None:
                raise KeyError(f"game {key!r} is not in the store")
            if row[0] == "done":  # already counted: never twice
                with self._transaction() as db:
                    _settle(db, key, *(kept or ("", ())))
                return
            committed = int(self.meta("committed") or 0)
            try:  # bytes past ``committed`` are never read, and cut by the next commit
                with open(self.records_path, "ab") as handle:
                    handle.truncate(committed)
                    handle.seek(committed)
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
            except OSError as exc:  # a full disk: the error names the file
                raise OSError(exc.errno, exc.strerror, str(self.records_path)) from None
            done = self.db.execute("SELECT COALESCE(MAX(finished_seq), 0) FROM games"
                                   ).fetchone()[0]
            with self._transaction() as db:
                db.execute(
                    "UPDATE games SET status='done', scores=?, outcome=?, reason=?, offender=?,"
                    " plies=?, finished_seq=?, record_offset=?, record_length=?, faults=?"
                    " WHERE key=?",
                    (json.dumps(record.scores), record.outcome.value if record.outcome else None,
                     record.reason, record.offender, len(record.moves), done + 1, committed,
                     len(data),
                     json.dumps([[f.seat, f.outcome] for f in record.faults])
                     if record.faults else None, key),
                )
                db.execute("UPDATE meta SET value=? WHERE key='committed'",
                           (str(committed + len(data)),))
                _settle(db, key, *(kept or ("", ())))

    def record(self, key: str) -> GameRecord:
        """The record of a finished game."""
        return self.record_and_json(key)[0]

    def record_and_json(self, key: str) -> tuple[GameRecord, bytes]:
        """The record of a finished game, and its JSON as stored (``record_json``)."""
        data = self.record_json(key)
        return GameRecord.from_dict(json_value(data), f"{self.records_path}:{key}"), data

    def record_json(self, key: str) -> bytes:
        """The record of a finished game as stored: one line of compact JSON."""
        with self._lock:
            row = self.db.execute("SELECT record_offset, record_length FROM games WHERE key=?",
                                  (key,)).fetchone()
            if row is None or row[0] is None:
                raise KeyError(f"game {key!r} has no record")
            if self._reader is None:  # kept open: a site reads 20,000 records in a row
                self._reader = os.open(self.records_path, os.O_RDONLY | os.O_CLOEXEC)
            data = os.pread(self._reader, row[1], row[0])
        return gzip.decompress(data) if self.gzip else data

    def records(self) -> Iterator[GameRecord]:
        """Every committed record, in the order they finished."""
        for row in self.games(status="done", by_finish=True):
            yield self.record(row.key)

    # -- leftover processes -------------------------------------------------------------
    def note_process(self, pid: int, started: float, game: str, token: str = "") -> None:
        """Remember a bot process (and the mark in its processes' environment), so that a
        crashed referee's orphans can be killed."""
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO processes(pid, started, game, token) "
                       "VALUES (?, ?, ?, ?)", (pid, started, game, token or None))

    def forget_processes(self, game: str) -> None:
        """Forget the processes noted under ``game`` (a finished game's, or the name the
        kept bots of a slot are noted under, once they are ended)."""
        with self._transaction() as db:
            db.execute("DELETE FROM processes WHERE game=?", (game,))

    def noted_processes(self) -> list[tuple[int, float]]:
        """Processes noted and not forgotten (left by a crash)."""
        return [(pid, started) for pid, started, _ in self.noted_bots()]

    def noted_bots(self) -> list[tuple[int, float, str]]:
        """Processes noted and not forgotten, with their marks (\"\" if none)."""
        with self._lock:
            rows = self.db.execute("SELECT pid, started, token FROM processes").fetchall()
        return [(int(p), float(s), t or "") for p, s, t in rows]

    def clear_processes(self) -> None:
        """Forget every noted process."""
        with self._transaction() as db:
            db.execute("DELETE FROM processes")


def _settle(db: sqlite3.Connection, game: str, kept: str, pids: Collection[int]) -> None:
    """Forget the processes noted under ``game`` but ``pids``, noted under ``kept``
    instead; of what ``kept`` held, only ``pids`` stay."""
    marks = ",".join("?" * len(pids))
    if pids:
        db.execute(f"UPDATE processes SET game=? WHERE game=? AND pid IN ({marks})",
                   (kept, game, *pids))
    db.execute(f"DELETE FROM processes WHERE game=? OR (game=? AND pid NOT IN ({marks}))",
               (game, kept, *pids))


def store_error_text(exc: sqlite3.Error) -> str:
    """What failed and what to do, for an error of a tournament store's SQLite file: a
    store that may not be written (a read-only disk or file: reading it needs no
    writing), one that is full (the disk, ``ulimit -f``), damaged or not a store, or held
    by another program."""
    code = getattr(exc, "sqlite_errorcode", None)  # (extended: the low byte is the code)
    code = code & 0xFF if isinstance(code, int) else None
    if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN):
        return (f"the tournament store cannot be written: {exc}; its file or folder is "
                "read-only for this user, and a tournament writes its store: run it on a "
                "copy, or where this user may write (ratings and report only read it)")
    if code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return (f"the tournament store cannot be read: {exc}; the file is damaged or not a "
                "tournament store")
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return (f"the tournament store is busy: {exc}; another program is writing it: run "
                "the same command again once it is done")
    return (f"the tournament store cannot be written: {exc}; check the disk's free space "
            "and the file size limit (ulimit -f), then run the same command again")


def _read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection that leaves no file behind.

    A cleanly closed store has no write-ahead log, and is opened as immutable (SQLite
    then creates no ``-shm`` file either); one with a log left by a crash is opened
    read-only the normal way, so that what is in the log is seen.
    """
    wal = path.with_name(path.name + "-wal")
    flags = "mode=ro" if wal.exists() else "mode=ro&immutable=1"
    uri = f"file:{urllib.parse.quote(str(path.absolute()))}?{flags}"
    return sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)


def _row(data: dict[str, Any]) -> GameRow:
    scores = data["scores"]
    faults = data.get("faults")
    return GameRow(
        key=data["key"], seq=data["seq"], round=data["round"],
        seats=tuple(json_value(data["seats"])), seed=data["seed"], opening=data["opening"],
        pair=data["pair"], status=data["status"],
        scores=tuple(json_value(scores)) if scores else None, outcome=data["outcome"],
        reason=data["reason"], offender=data["offender"], plies=data["plies"],
        finished_seq=data["finished_seq"],
        faults=tuple((int(seat), str(kind)) for seat, kind in json_value(faults))
        if faults else (),
    )
