"""The games in progress as the live view shows them (``referee report --serve``): who
plays, the move number, the last move in the game's notation, the clocks, and for each
game a live board, the replay page's own board fed by the moves played so far.

A tournament writes what it plays (``tournament.live``: ``live.json`` and a moves file per
game); this module, in the server's process, reads them as they grow (each moves file
from where it was read last) and asks the game what to show through the registry: the
last move's notation (``GameAdapter.move_text``) and the board (``GameAdapter.replay`` of
the record so far, drawn by ``replay_markup`` as on a game page). The pages only draw what
they are sent: no rule of any game is in their scripts. A board is replayed once for each
new move count a page asks for, whoever asks.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee import __version__
from referee.core.adapter import GameAdapter
from referee.core.json_read import json_value
from referee.core.record import GameRecord, MoveRecord, PlayerInfo
from referee.core.text import seat_name
from referee.games.registry import game_adapter
from referee.tournament.live import LIVE_FILE
from referee.tournament.report.frames_markup import RENDERERS
from referee.tournament.report.replay_markup import move_list, replay_section
from referee.tournament.report.rows import Links, game_page
from referee.tournament.store import Store

log = logging.getLogger(__name__)

__all__ = ["BOARDS", "LiveGames", "board_path"]

BOARDS = "/_live/game/"
"""Where the live boards are served: ``BOARDS`` + the game's key, quoted."""
ROOT = "../../"
"""The way from a live board's page to the site's root."""
SCRIPTS = ["static/replay.js", *(f"static/{script}" for script, _ in RENDERERS.values()),
           "_live/live.js"]
"""A live board's scripts: the replay's and every viewer's (a board taken in place later
brings no script that runs), then the live view's."""


def board_path(key: str) -> str:
    """The address of game ``key``'s live board."""
    return BOARDS + urllib.parse.quote(key, safe="")


@dataclass
class _Running:
    """One game in progress as this process has read it: its moves file's head and moves
    (read up to ``offset``), and the last board made of them."""

    key: str
    offset: int = 0
    rest: bytes = b""
    record: GameRecord | None = None
    board: tuple[int, str] | None = None
    """The move count and the page of the last board made."""
    entry: dict[str, Any] = field(default_factory=dict)
    """Its entry of ``live.json``."""


class LiveGames:
    """The games in progress of the store in ``folder`` (see the module docstring); every
    method is thread-safe (the watcher refreshes, page requests read)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._name = ""
        self.games: dict[str, _Running] = {}
        self.total = self.done = 0
        self._lock = threading.RLock()
        self._adapters: dict[str, GameAdapter | None] = {}

    # -- reading ---------------------------------------------------------------------------
    def refresh(self) -> str:
        """Read ``live.json`` and the moves files again; the games in progress as one
        line of JSON (the ``progress`` event's data)."""
        try:
            data = json_value((self.folder / LIVE_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        if not isinstance(data, dict):
            data = {}
        entries = [e for e in data.get("games") or () if isinstance(e, dict)
                   and isinstance(e.get("key"), str)]
        with self._lock:
            self.total = int(data.get("total") or 0)
            self.done = int(data.get("done") or 0)
            running = {}
            for entry in entries:
                game = self.games.get(entry["key"])
                if game is None or game.entry.get("started") != entry.get("started"):
                    game = _Running(entry["key"])  # (a game played again: a new file)
                game.entry = entry
                self._read_moves(game)
                running[game.key] = game
            self.games = running
            return json.dumps(self._payload(), ensure_ascii=False, separators=(",", ":"))

    def _read_moves(self, game: _Running) -> None:
        """Read what the game's moves file gained since the last read."""
        name = game.entry.get("file")
        if not isinstance(name, str) or ".." in Path(name).parts or Path(name).is_absolute():
            return
        try:
            with open(self.folder / name, "rb") as handle:
                handle.seek(game.offset)
                data = handle.read()
        except OSError:
            return
        game.offset += len(data)
        lines = (game.rest + data).split(b"\n")
        game.rest = lines.pop()  # (a line being written: read again next time)
        for line in lines:
            try:
                item = json_value(line)
            except ValueError:
                continue
            if not isinstance(item, dict):
                continue
            if game.record is None:
                game.record = _head(item)
            else:
                with contextlib.suppress(TypeError, ValueError, KeyError):
                    game.record.moves.append(MoveRecord(int(item["seat"]), str(item["move"]),
                                                        float(item["ms"]),
                                                        dict(item.get("info") or {})))

    def adapter(self, game: str) -> GameAdapter | None:
        """The game's adapter (``None`` for a game the referee does not know)."""
        if game not in self._adapters:
            self._adapters[game] = game_adapter(game)
        return self._adapters[game]

    def _last(self, game: _Running) -> dict[str, Any] | None:
        """The last move: who (seat and name), the wire's text and the game's notation."""
        record = game.record
        players = [str(p) for p in game.entry.get("players") or ()]
        if record is not None and record.moves:
            ply = len(record.moves) - 1
        else:  # a game played elsewhere (Ray): the last move alone, if the file says it
            last = game.entry.get("last")
            if not isinstance(last, dict) or not isinstance(last.get("seat"), int):
                return None
            record = GameRecord(self._game_name(), [PlayerInfo(p) for p in players])
            record.moves.append(MoveRecord(last["seat"], str(last.get("move", "")), 0.0))
            ply = 0
        move = record.moves[ply]
        adapter = self.adapter(record.game)
        text = move.move
        if adapter is not None:
            try:
                text = adapter.move_text(record, ply)
            except (IndexError, KeyError, TypeError, ValueError) as exc:
                log.debug("no notation for %s: %s", game.key, exc)
        names = [p.name for p in record.players]
        return {"seat": move.seat, "who": names[move.seat] if 0 <= move.seat < len(names)
                else seat_name(move.seat), "move": move.move[:200], "text": text[:200]}

    def _game_name(self) -> str:
        """The tournament's game (from any game in progress that says it)."""
        return next((g.record.game for g in self.games.values() if g.record is not None), "")

    def _payload(self) -> dict[str, Any]:
        games = []
        for game in self.games.values():
            entry = game.entry
            record = game.record
            moves = len(record.moves) if record is not None else int(entry.get("moves") or 0)
            games.append({"key": game.key, "round": entry.get("round"),
                          "players": [str(p) for p in entry.get("players") or ()],
                          "started": entry.get("started"), "last_at": entry.get("last_at"),
                          "moves": moves, "last": self._last(game),
                          "board": board_path(game.key)})
        return {"total": self.total, "done": self.done, "games": games}

    # -- the boards ------------------------------------------------------------------------
    def page(self, key: str) -> tuple[int, str]:
        """The live board of game ``key`` as an HTML page, with its status: 200 while it
        is played and once it has finished (then the page says where its result is), 404
        for a game the tournament is not playing and has not played."""
        with self._lock:
            game = self.games.get(key)
        if game is None:
            page = self._finished_page(key)
            return (200 if page is not None else 404), self._gone(key, page)
        with self._lock:
            record = game.record
            entry = dict(game.entry)
            if record is None:  # no move yet (a moves file begins with the first)
                players = [PlayerInfo(str(p)) for p in entry.get("players") or ()]
                waiting = GameRecord(self._game_name(), players)
            else:
                count = len(record.moves)
                if game.board is not None and game.board[0] == count:
                    return 200, game.board[1]
                snapshot = GameRecord(record.game, record.players, dict(record.settings),
                                      record.seed, list(record.opening),
                                      record.moves[:count], round=record.round)
        if record is None:
            return 200, self._board_page(key, waiting, entry, board=False)
        made = self._board_page(key, snapshot, entry)
        with self._lock:
            if key in self.games:
                self.games[key].board = (count, made)
        return 200, made

    def _board_page(self, key: str, record: GameRecord, entry: dict[str, Any],
                    board: bool = True) -> str:
        """The page of a game's live board (the site's templates, the game's replay of
        ``record``; without ``board``, the record is only its players: no move yet)."""
        from referee.tournament.report.site import template_environment

        links = Links({})
        adapter = self.adapter(record.game)
        view = None
        if adapter is not None and board:
            try:
                view = adapter.replay(record)
            except (IndexError, KeyError, TypeError, ValueError) as exc:
                log.info("no live board for %s: %s", key, exc)
        shown = (replay_section(record, view, links.esc, None, ROOT) if view is not None
                 else move_list(record, links.esc))
        roles = view.roles if view is not None else ()
        seats = [(seat_name(k), p.name, roles[k] if k < len(roles) else "")
                 for k, p in enumerate(record.players)]
        last = None
        if record.moves:
            with self._lock:
                running = self.games.get(key)
                last = self._last(running) if running is not None else None
        env = template_environment()
        env.globals.update(links.globals())
        return env.get_template("live_game.html").render(
            root=ROOT, site_name=self.site_name, generated="", version=__version__,
            scripts=SCRIPTS,
            title=f"Live: {' vs '.join(p.name for p in record.players)}", key=key,
            entry=entry, seats=seats, moves=len(record.moves), last=last, board=shown,
            gone=False, page=None)

    @property
    def site_name(self) -> str:
        """The tournament's name, as the site's pages head them."""
        if not self._name:
            with contextlib.suppress(Exception):  # (no store yet: the folder's name)
                store = Store.open_existing(self.folder)
                try:
                    meta = json_value(store.meta("tournament") or "{}")
                    self._name = str(meta.get("name") or store.meta("name") or "")
                finally:
                    store.close()
        return self._name or self.folder.name

    def _finished_page(self, key: str) -> str | None:
        """The site's page of game ``key`` if the store has it finished (``None``: not)."""
        with contextlib.suppress(Exception):  # no store (yet): nothing to link
            store = Store.open_existing(self.folder)
            try:
                row = next((r for r in store.games(status="done") if r.key == key), None)
                return game_page(row) if row is not None else None
            finally:
                store.close()
        return None

    def _gone(self, key: str, page: str | None) -> str:
        """The page of a game that is not being played: finished (``page``: its page), or
        not known."""
        from referee.tournament.report.site import template_environment

        env = template_environment()
        env.globals.update(Links({}).globals())
        return env.get_template("live_game.html").render(
            root=ROOT, site_name=self.site_name, generated="", version=__version__,
            scripts=["_live/live.js"], title="Live: no game in progress", key=key,
            entry={}, seats=[], moves=0, last=None, board="", gone=True, page=page)


def _head(item: dict[str, Any]) -> GameRecord:
    """The record a moves file's first line begins (no moves yet)."""
    players = [PlayerInfo(str(name)) for name in item.get("players") or ()]
    settings = item.get("settings")
    seed = item.get("seed")
    opening = item.get("opening")
    return GameRecord(str(item.get("game") or ""), players,
                      settings if isinstance(settings, dict) else {},
                      seed if isinstance(seed, int) else None,
                      opening if isinstance(opening, list) else [],
                      round=int(item.get("round") or 0))
