"""``referee report STORE --serve``: the results site on http://127.0.0.1:PORT/, kept up to
date while a tournament runs (in this process or another one) and shown live.

The server is the standard library's ``http.server`` (``ThreadingHTTPServer``): the site is
static files, one person or a few look at it on their own machine, and what live updates
need is one server-sent-events stream (``/_live/events``) that a thread per client can
hold; a web framework would add a dependency and nothing the pages use. It binds
127.0.0.1 only.

A watcher thread looks at the store's files (the SQLite file, its write-ahead log, the
records) twice a second; when they change it builds the site again (every page written
whole, so a browser never loads half of one) and tells every open page. Each HTML page is
served with one more script, ``/_live/live.js``, which listens and puts the new content of
its page in place without a reload (a replay page keeps its position and shows a note
instead). The games in progress come from the tournament's ``live.json`` and moves files
(``tournament.live``), read by ``live_games``, as ``progress`` events (players, move
number, the last move in the game's notation, when it started and when it last moved),
which the script lists at the top of the page, each game linked to its live board
(``/_live/game/<key>``: the game's replay of its moves so far, which the script takes in
place as moves come). The files on disk stay free of it: opened from disk, the site is as
``referee report`` builds it.
"""

from __future__ import annotations

import logging
import threading
import time
import urllib.parse
from collections.abc import Callable
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any

from referee.core.json_read import json_value
from referee.tournament.live import LIVE_FILE
from referee.tournament.report.live_games import BOARDS, LiveGames

log = logging.getLogger(__name__)

__all__ = ["LiveSite", "SiteServer", "serve_site"]

LIVE = "/_live/"
"""Where the live view's own addresses start (never a file of the site)."""
KEEPALIVE = 15.0
"""Seconds between the comments that keep an idle event stream open."""
POLL = 0.5
"""Seconds between two looks at the store's files."""


class LiveSite:
    """The site's version: a number that grows each time the site is built again; the
    games in progress (the tournament's ``live.json``) and their version; a condition to
    wait for the next change."""

    def __init__(self, games: LiveGames | None = None) -> None:
        self.games = games
        """The games in progress and their boards (``None``: none are shown)."""
        self.version = 0
        self.progress = "{}"
        self.progress_version = 0
        self.changed = threading.Condition()
        self.stopping = False
        self.last_error: str | None = None

    def bump(self) -> None:
        """The site was built again: wake every waiting stream."""
        with self.changed:
            self.version += 1
            self.changed.notify_all()

    def moved(self, progress: str) -> None:
        """The games in progress changed (``progress``: the live file's JSON)."""
        with self.changed:
            self.progress = progress
            self.progress_version += 1
            self.changed.notify_all()

    def stop(self) -> None:
        """End every stream (the server is stopping)."""
        with self.changed:
            self.stopping = True
            self.changed.notify_all()

    def wait(self, seen: tuple[int, int], timeout: float) -> tuple[int, int]:
        """The versions (site, progress) once they differ from ``seen`` (or ``timeout``
        passed)."""
        with self.changed:
            self.changed.wait_for(lambda: (self.version, self.progress_version) != seen
                                  or self.stopping, timeout)
            return self.version, self.progress_version


class _Handler(SimpleHTTPRequestHandler):
    """The site's files, HTML with the live script added, and the live addresses."""

    live: LiveSite

    def __init__(self, *args: Any, live: LiveSite, **kwargs: Any) -> None:
        self.live = live
        super().__init__(*args, **kwargs)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        """A file of the site, the live script, or the event stream."""
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if path == LIVE + "events":
            self._events()
        elif path == LIVE + "progress.json":
            self._send(self.live.progress.encode(), "application/json; charset=utf-8")
        elif path == LIVE + "live.js":
            script = resources.files("referee.tournament.report").joinpath(
                "static/live.js").read_bytes()
            self._send(script, "text/javascript; charset=utf-8")
        elif path.startswith(BOARDS) and self.live.games is not None:
            status, page = self.live.games.page(urllib.parse.unquote(path[len(BOARDS):]))
            self._send(page.encode(), "text/html; charset=utf-8", status)
        elif path.endswith((".html", "/")):
            self._page()
        else:
            super().do_GET()

    def _send(self, body: bytes, kind: str, status: int = 200) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _page(self) -> None:
        """An HTML page of the site, with the live script before ``</body>``."""
        local = Path(self.translate_path(self.path))
        if local.is_dir():
            local = local / "index.html"
        try:
            text = local.read_bytes()
        except OSError:
            self.send_error(404, "no such page (yet)")
            return
        tag = f'<script src="{LIVE}live.js"></script>'.encode()
        cut = text.rfind(b"</body>")
        text = text[:cut] + tag + text[cut:] if cut >= 0 else text + tag
        self._send(text, "text/html; charset=utf-8")

    def _events(self) -> None:
        """Server-sent events: ``site`` with the version each time the site is rebuilt,
        ``progress`` with the games in progress (one line of JSON) as they change, each
        after a ``clock`` with the server's time (unix seconds: the pages' clocks count
        from it)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        live = self.live
        seen = (live.version, live.progress_version)
        try:
            self.wfile.write(f"retry: 2000\nevent: hello\ndata: {seen[0]}\n\n".encode())
            self.wfile.write(f"{_clock()}event: progress\ndata: {live.progress}\n\n".encode())
            self.wfile.flush()
            while not live.stopping:
                now = live.wait(seen, KEEPALIVE)
                if live.stopping:
                    break
                if now == seen:
                    self.wfile.write(b": still here\n\n")
                if now[0] != seen[0]:
                    self.wfile.write(f"event: site\ndata: {now[0]}\n\n".encode())
                if now[1] != seen[1]:
                    self.wfile.write(
                        f"{_clock()}event: progress\ndata: {live.progress}\n\n".encode())
                seen = now
                self.wfile.flush()
        except OSError:  # the page was closed
            return


def _clock() -> str:
    """The ``clock`` event: the server's time now."""
    return f"event: clock\ndata: {time.time():.3f}\n\n"


class SiteServer(ThreadingHTTPServer):
    """The HTTP server of one site folder (threads are daemons: streams never hold the
    process at exit)."""

    daemon_threads = True

    def __init__(self, site: Path, port: int, live: LiveSite) -> None:
        handler = partial(_Handler, directory=str(site), live=live)
        super().__init__(("127.0.0.1", port), handler)
        self.live = live


def _signature(files: list[Path]) -> tuple[tuple[int, int], ...]:
    """What changes when the store does: each file's size and modification time."""
    out = []
    for file in files:
        try:
            info = file.stat()
        except OSError:
            out.append((-1, -1))
        else:
            out.append((info.st_size, info.st_mtime_ns))
    return tuple(out)


def watch_store(store: Path, build: Callable[[], object], live: LiveSite,
                stop: threading.Event, poll: float = POLL) -> None:
    """Build the site again each time the store's files change, and pass on the games in
    progress each time the live file does (read by ``live.games`` when there are, else as
    the file says them), until ``stop``."""
    files = [store / "tournament.sqlite", store / "tournament.sqlite-wal",
             store / "records.jsonl", store / "records.jsonl.gz"]
    seen = _signature(files)
    progress = store / LIVE_FILE
    shown: tuple[tuple[int, int], ...] = ()
    while not stop.wait(poll):
        state = _signature([progress])
        if state != shown:
            shown = state
            if live.games is not None:
                text = live.games.refresh()
            else:
                try:
                    text = progress.read_text(encoding="utf-8")
                    json_value(text)
                except (OSError, ValueError):
                    text = "{}"
            live.moved(" ".join(text.split("\n")))
        now = _signature(files)
        if now == seen:
            continue
        seen = now
        try:
            build()
        except Exception as exc:  # the server outlives a build that fails
            live.last_error = str(exc)
            log.warning("the site could not be built again: %s", exc)
            continue
        live.bump()
        seen = _signature(files)  # (building reads the store: no rebuild for that)


def serve_site(store: Path, site: Path, port: int, build: Callable[[], object],
               ready: Callable[[str], None] | None = None,
               stop: threading.Event | None = None) -> None:
    """Serve ``site`` on 127.0.0.1:``port`` and rebuild it (``build``) as ``store``
    changes, until Ctrl-C or ``stop``. ``ready`` gets the address once it listens.
    ``OSError`` if the port cannot be had."""
    live = LiveSite(LiveGames(store))
    server = SiteServer(site, port, live)
    stopped = stop or threading.Event()
    watcher = threading.Thread(target=watch_store, args=(store, build, live, stopped),
                               name="site-watcher", daemon=True)
    watcher.start()
    host, bound = server.server_address[:2]
    if ready is not None:
        ready(f"http://{host!s}:{bound}/")
    serving = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                               name="site-server", daemon=True)
    serving.start()
    try:
        while not stopped.wait(0.5):
            pass
    finally:
        stopped.set()
        live.stop()
        server.shutdown()
        server.server_close()
        watcher.join(timeout=5)
        time.sleep(0)  # (let the streams see the stop)
