"""What the table tests share: a real ``referee web`` process on a free port of
127.0.0.1 with a folder of its own, people signed up over real HTTP, and their pages'
WebSockets (the ``websockets`` library, as a browser would connect: its session cookie
and the site's Origin)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import websockets

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def free_port() -> int:
    """A port of 127.0.0.1 nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    """A running server: its URL, its folder, its log."""

    def __init__(self, process: subprocess.Popen[str], url: str, data: Path,
                 log: Path, db_options: tuple[str, ...] = ()) -> None:
        self.process = process
        self.url = url
        self.data = data
        self.log_path = log
        self.db_options = db_options
        """``--db URL`` when the server is on another database than its own SQLite file
        (for the commands that change its database beside it)."""

    def log(self) -> str:
        """What the server wrote so far."""
        return self.log_path.read_text(errors="replace")

    def person(self, name: str, password: str = "a-long-secret") -> Person:
        """``name`` signed up (and logged in) with a client of their own."""
        person = Person(self, name)
        person.sign_up(password)
        return person


@contextlib.contextmanager
def running_server(data: Path, *options: str) -> Iterator[Server]:
    """``referee web --data DATA --port FREE OPTIONS`` until the block ends."""
    port = free_port()
    log = data.parent / f"{data.name}.log"
    with log.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "referee.cli", "web", "--data", str(data), "--port",
             str(port), *options], stdout=sink, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(url + "/", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the server did not start:\n{log.read_text()}")
            time.sleep(0.1)
        db = tuple(options[options.index("--db"):options.index("--db") + 2]) \
            if "--db" in options else ()
        yield Server(process, url, data, log, db)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class Person:
    """Someone with a browser's cookies: forms with their CSRF field, and sockets."""

    def __init__(self, server: Server, name: str) -> None:
        self.server = server
        self.name = name
        self.client = httpx.Client(base_url=server.url, timeout=20)

    def token(self, path: str) -> str:
        """The CSRF field of the form at ``path``."""
        page = self.client.get(path)
        found = CSRF.search(page.text)
        assert found, f"no csrf_token on {path}: {page.status_code} {page.text[:300]}"
        return found.group(1)

    def post(self, path: str, form: dict[str, str], page: str = "/lobby") -> httpx.Response:
        """Submit ``form`` to ``path`` with the CSRF token of ``page``."""
        return self.client.post(path, data={"csrf_token": self.token(page), **form})

    def sign_up(self, password: str) -> None:
        """Make the account (logged in after)."""
        answer = self.post("/signup", {"name": self.name, "password": password,
                                       "password2": password}, "/signup")
        assert answer.status_code == 303, answer.text[:500]

    def open_table(self, game: str, **form: str) -> str:
        """A new table of ``game`` from ``form``: its id."""
        answer = self.post("/tables", {"game": game, **form}, f"/tables/new?game={game}")
        assert answer.status_code == 303, answer.text[:1500]
        return answer.headers["location"].rsplit("/", 1)[1]

    def socket(self, table: str, origin: str | None = None) -> Any:
        """A connection to ``table``'s live socket, as its page opens it."""
        cookie = "; ".join(f"{key}={value}" for key, value in self.client.cookies.items())
        address = self.server.url.replace("http://", "ws://") + f"/tables/{table}/live"
        return websockets.connect(address, additional_headers={
            "Cookie": cookie, "Origin": origin or self.server.url}, max_size=2**24)


async def next_state(ws: Any, timeout: float = 20) -> dict[str, Any]:
    """The next ``state`` message (others are skipped)."""
    deadline = time.monotonic() + timeout
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
        if message["type"] == "state":
            return message  # type: ignore[no-any-return]


async def next_message(ws: Any, kind: str, timeout: float = 20) -> dict[str, Any]:
    """The next message of type ``kind``."""
    deadline = time.monotonic() + timeout
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
        if message["type"] == kind:
            return message  # type: ignore[no-any-return]


def sign_up_in_browser(tab: Any, url: str, name: str) -> None:
    """Sign up through the site's form in a browser tab (``browsing.Tab``)."""
    page = tab.page
    page.goto(url + "/")
    page.get_by_role("link", name="Sign up").first.click()
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", "a-long-secret")
    page.fill("input[name=password2]", "a-long-secret")
    page.locator("form.account button[type=submit]").click()
    page.wait_for_url("**/lobby")
