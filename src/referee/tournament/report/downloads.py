"""The files a results site offers besides its pages: every result as CSV, each game's
record as JSON and in its game's own format (Gomoku ``.psq``, Riichi's mjai log), and the
bots' stderr logs (their last ``LOG_TAIL`` bytes): per player and slot, and per game (the
part of each seat's log its record points to: :func:`game_logs`). A game's small files are
embedded in its page as ``data:`` URLs (``game_download``).

Every file is written whole or not at all (``referee.core.files``). Paths returned are
relative to the site's root, ``/``-separated.
"""

from __future__ import annotations

import base64
import csv
import io
import logging
import os
import re
import urllib.parse
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from markupsafe import Markup

from referee.core.files import write_bytes_atomic, write_text_atomic
from referee.core.players import folder_name
from referee.core.record import GameRecord, result_text
from referee.tournament.store import GameRow

log = logging.getLogger(__name__)

LOG_TAIL = 64 * 1024
"""Bytes kept of each stderr log (its end: where a crash shows)."""
CSV_HEAD = ("game", "round", "status", "result", "outcome", "fault_by", "reason", "moves",
            "duration_s", "key")
"""Columns of ``results.csv`` after which come ``player_1..N`` and ``score_1..N``."""


EMBED_LIMIT = 64 * 1024
"""A game's downloads up to this size are embedded in its page (see ``game_download``)."""
MEDIA_TYPES = {".json": "application/json", ".gz": "application/gzip"}
"""Media types of embedded downloads by suffix (any other: plain text)."""


@dataclass(frozen=True)
class Download:
    """A file of the site to link: its path from the site's root (or a ``data:`` URL, the
    file itself), a label, a note, and for a ``data:`` URL the name it is saved as."""

    path: str
    label: str
    note: str = ""
    name: str = ""

    def href(self, root: str) -> str:
        """The link from a page ``root`` away from the site's root."""
        return self.path if self.path.startswith("data:") else root + self.path


def game_download(out: Path, path: str, data: bytes, label: str, note: str = "") -> Download:
    """A file of one game's page: up to ``EMBED_LIMIT`` bytes it is embedded in the page as
    a base64 ``data:`` URL (saved as ``path``'s file name), so that a site of 20,000 games
    is 20,000 files rather than 60,000 (creating a file costs more than its bytes); a
    larger one is written to ``out/path``."""
    if len(data) > EMBED_LIMIT:
        write_bytes_atomic(out / path, data)
        return Download(path, label, note)
    name = path.rsplit("/", 1)[-1]
    media = MEDIA_TYPES.get(Path(name).suffix, "text/plain;charset=utf-8")
    # Markup: base64 and the media types hold nothing to escape, so pages need not scan it
    url = Markup(f"data:{media};base64,{base64.b64encode(data).decode('ascii')}")
    return Download(url, label, note, name)


def download_bytes(site: Path, page: str, href: str) -> bytes:
    """What a link of the site's page ``page`` (from the site's root) downloads: the
    bytes of a ``data:`` URL, or of the file it points to."""
    if href.startswith("data:"):
        head, _, body = href.partition(",")
        if head.endswith(";base64"):
            return base64.b64decode(body)
        return urllib.parse.unquote_to_bytes(body)
    return (site / page).parent.joinpath(urllib.parse.unquote(href)).resolve().read_bytes()


def results_csv(rows: Sequence[GameRow], durations: Mapping[str, str], path: Path) -> Path:
    """One line per scheduled game (finished or not): its number, round, status, result,
    outcome, who was at fault, reason, moves, duration in seconds and store key, then the
    players and their scores in seat order (``player_1``, ``score_1``...)."""
    seats = max((len(row.seats) for row in rows), default=2)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*CSV_HEAD, *(f"player_{k}" for k in range(1, seats + 1)),
                     *(f"score_{k}" for k in range(1, seats + 1))])
    for row in rows:
        done = row.status == "done"
        offender = (row.seats[row.offender] if done and row.offender is not None
                    and 0 <= row.offender < len(row.seats) else "")
        scores = [f"{s:g}" for s in row.scores] if done and row.scores else []
        writer.writerow([
            row.seq, row.round, row.status, result_text(row.scores) if done else "",
            row.outcome or "", offender, row.reason or "",
            row.plies if row.plies is not None else "", durations.get(row.key, ""), row.key,
            *row.seats, *[""] * (seats - len(row.seats)),
            *scores, *[""] * (seats - len(scores)),
        ])
    return write_text_atomic(path, out.getvalue())


def copy_tail(source: Path, target: Path, limit: int = LOG_TAIL,
              transform: Callable[[bytes], bytes] | None = None) -> bool:
    """Copy the last ``limit`` bytes of ``source`` to ``target`` (through ``transform``,
    if given), with a first line saying how much was left out when it was cut. Returns
    whether it was cut."""
    size = source.stat().st_size
    with open(source, "rb") as handle:
        if size > limit:
            handle.seek(size - limit)
        data = handle.read(limit)
    note = cut_note(size, len(data))
    write_bytes_atomic(target, note + (transform(data) if transform is not None else data))
    return size > limit


def with_cut_note(data: bytes, size: int) -> bytes:
    """The last bytes of a log of ``size`` bytes, after a first line saying how much was
    left out when that is not all of it."""
    return cut_note(size, len(data)) + data


def cut_note(size: int, kept: int) -> bytes:
    """The first line of the last ``kept`` bytes of a log of ``size`` bytes: how much is
    left out (nothing when that is all of it)."""
    if size <= kept:
        return b""
    return (f"[referee: the first {size - kept} of {size} bytes are cut; "
            f"the last {kept} follow]\n").encode()


def stderr_logs(store_folder: Path, players: Iterable[str]) -> dict[str, list[Path]]:
    """Each player's stderr logs kept in the tournament's game slots
    (``slots/<slot>/logs/[<tag>]<name>.stderr.log``), by player name."""
    slots = store_folder / "slots"
    found: dict[str, list[Path]] = {}
    if not slots.is_dir():
        return found
    files = sorted(slots.glob("*/logs/*.stderr.log"))
    for name in players:
        pattern = re.compile(r"(?:[A-Za-z]*\d*-)?" + re.escape(folder_name(name)))
        mine = [f for f in files if pattern.fullmatch(f.name.removesuffix(".stderr.log"))]
        if mine:
            found[name] = mine
    return found


def mjai_logs(store_folder: Path) -> dict[str, Path]:
    """The mjai logs a Riichi tournament kept (``slots/<slot>/mjai/<key>.mjson.gz``), by
    file name (as a record's ``mjai_log`` setting names it)."""
    slots = store_folder / "slots"
    if not slots.is_dir():
        return {}
    return {path.name: path for path in sorted(slots.glob("*/mjai/*.mjson.gz"))}


def native_file(record: GameRecord, mjai: Mapping[str, Path], adapter: object = None
                ) -> tuple[str, bytes, str] | None:
    """The record in its game's own format: ``(suffix, data, label)``, ``None`` if there is
    none. A game adapter with a ``native_file(record)`` method makes it (Gomoku's .psq);
    else a Riichi game gets the mjai log its tournament kept (``mjai`` by file name)."""
    export = getattr(adapter, "native_file", None)
    if callable(export):
        try:
            made: tuple[str, bytes, str] | None = export(record)
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("no file of its own format for %s: %s",
                        record.settings.get("game_key"), exc)
            return None
        return made
    name = record.settings.get("mjai_log")
    if isinstance(name, str) and name in mjai:
        return ".mjson.gz", mjai[name].read_bytes(), "mjai log (gzip)"
    return None


@dataclass(frozen=True)
class GameLog:
    """What one seat's bot wrote on stderr during one game: the last ``LOG_TAIL`` bytes of
    it in ``data`` (``cut``: there were more, ``size`` in all), from the log ``path``
    (relative to the store's folder)."""

    seat: int
    name: str
    data: bytes
    cut: bool
    size: int
    path: str


def game_logs(store_folder: Path, record: GameRecord, limit: int = LOG_TAIL) -> list[GameLog]:
    """The stderr each seat's bot wrote during the game of ``record``, in seat order, for
    the seats whose record says where (``PlayerInfo.stderr``: records of earlier releases
    do not), each cut to its last ``limit`` bytes. A log that is missing, unreadable,
    shorter than the record says (replaced since) or not inside ``store_folder`` gives a
    warning in the log and no entry, never an exception."""
    found = []
    for seat, player in enumerate(record.players):
        span = player.stderr
        if span is None:
            continue
        where = f"game {record.settings.get('game_key', record.index)}, seat {seat} " \
                f"({player.name}): stderr log {span.path}"
        relative = PurePosixPath(span.path)
        if relative.is_absolute() or ".." in relative.parts or span.start > span.end:
            log.warning("%s: not a log of the store (%d..%d)", where, span.start, span.end)
            continue
        size = span.end - span.start
        try:
            with open(store_folder / relative, "rb") as handle:
                if os.fstat(handle.fileno()).st_size < span.end:
                    log.warning("%s: shorter than the %d bytes the record says it had",
                                where, span.end)
                    continue
                handle.seek(max(span.start, span.end - limit))
                data = handle.read(min(size, limit))
        except OSError as exc:
            log.warning("%s: cannot read it: %s", where, exc.strerror or exc)
            continue
        found.append(GameLog(seat, player.name, data, size > limit, size, span.path))
    return found


__all__ = ["EMBED_LIMIT", "LOG_TAIL", "Download", "GameLog", "copy_tail", "cut_note",
           "download_bytes",
           "game_download", "game_logs", "mjai_logs", "native_file", "results_csv",
           "stderr_logs", "with_cut_note"]
