"""What the table tests share: a real ``referee web`` process on a free port of
127.0.0.1 with a folder of its own, people signed up over real HTTP, and their pages'
WebSockets (the ``websockets`` library, as a browser would connect: its session cookie
and the site's Origin); a game played over them with every state checked; a program
joining a seat with ``referee connect``; the records and ``referee replay``; a table's
form refusing bad settings."""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import re
import socket
import subprocess
import sys
import time
import weakref
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
import websockets

from referee.core.record import GameRecord
from referee.web.table_routes import MESSAGES_PER_SECOND

T = TypeVar("T")
U = TypeVar("U")

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


def module_server(folder: str, *options: str) -> Any:
    """A module's fixture (named as the module names it: ``server = module_server(...)``):
    ``referee web OPTIONS`` in a folder of its own (named ``folder``) for the module's
    tests."""

    @pytest.fixture(scope="module")
    def fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
        with running_server(tmp_path_factory.mktemp(folder) / "data", *options) as running:
            yield running

    return fixture


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


def asked(state: dict[str, Any]) -> bool:
    """Whether the page the state was sent to is asked now: its seat, with its choices."""
    return bool(state["table"]["asking"] == state["you"] and "legal" in state["view"])


async def raw_states(ws: Any, into: list[str], me: int | None,
                     answer: Callable[[dict[str, Any]], dict[str, Any]] | None,
                     timeout: float = 30) -> dict[str, Any]:
    """Every state the socket receives until the game is over, as received, into
    ``into``; whenever seat ``me`` is asked, ``answer(view)`` sent as its move (none
    without ``answer``). The last state."""
    while True:
        raw = await asyncio.wait_for(ws.recv(), timeout)
        message = json.loads(raw)
        if message["type"] != "state":
            continue
        into.append(raw)
        table = message["table"]
        if table["status"] != "playing":
            return message  # type: ignore[no-any-return]
        if answer is not None and table["asking"] == me and "legal" in message["view"]:
            await ws.send(json.dumps({"type": "move", "move": answer(message["view"])}))


def records(server: Server, game: str) -> Path:
    """The folder of the server's records of ``game``."""
    return server.data / "records" / game


def record_file(server: Server, game: str, table: str) -> Path:
    """Where the server writes the record of ``table``."""
    return records(server, game) / f"game-{table}.json"


def wait_record(server: Server, game: str, table: str, timeout: float = 30) -> GameRecord:
    """The record of ``table`` once the server has written it (read even if it has not
    within ``timeout`` seconds: the read fails, saying so)."""
    path = record_file(server, game, table)
    deadline = time.monotonic() + timeout
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    return GameRecord.read(path)


def replay_ok(game: str, *paths: Path, timeout: float = 120) -> str:
    """``referee replay GAME PATH`` says OK, and no FAIL, for each path; what it said
    of the last."""
    said = ""
    for path in paths:
        done = subprocess.run([sys.executable, "-m", "referee.cli", "replay", game,
                               str(path)], capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0 and "OK" in done.stdout and "FAIL" not in done.stdout, \
            done.stdout + done.stderr
        said = done.stdout
    return said


def join_url(person: Person, game: str, table: str, seat: int) -> str:
    """The URL the table's page gives a program to join ``seat`` (counted from 1) with
    ``referee connect GAME URL --seat SEAT -- COMMAND``."""
    page = person.client.get(f"/tables/{table}").text
    found = re.search(rf"referee connect {game} (\S+) --seat {seat} -- COMMAND", page)
    assert found, page
    return html.unescape(found.group(1))


def connect(game: str, url: str, seat: int, command: Sequence[str],
            *options: str) -> subprocess.Popen[str]:
    """``referee connect GAME URL --seat SEAT OPTIONS -- COMMAND`` started, its output
    and errors piped."""
    return subprocess.Popen([sys.executable, "-m", "referee.cli", "connect", game, url,
                             "--seat", str(seat), *options, "--", *command],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def beside(joined: subprocess.Popen[str], run: Callable[[], T],
           timeout: float = 60) -> tuple[T, str]:
    """``run()`` while the joined program plays: its result and what the program wrote
    on its standard error once it ended (within ``timeout`` seconds; it is killed at the
    end in any case)."""
    try:
        result = run()
        _out, err = joined.communicate(timeout=timeout)
    finally:
        joined.kill()
    return result, err


class PagePace:
    """A page's messages kept within the budget the server gives a page (a burst of
    ``MESSAGES_PER_SECOND`` for five seconds, refilled at that rate: more is a flood it
    disconnects): a burst of most of it, then a little under its rate."""

    BURST = MESSAGES_PER_SECOND * 5 * 0.8
    RATE = MESSAGES_PER_SECOND * 0.9

    def __init__(self) -> None:
        self.tokens = self.BURST
        self.last = time.monotonic()

    async def wait(self) -> None:
        """Wait until the next message may go."""
        now = time.monotonic()
        self.tokens = min(self.BURST, self.tokens + (now - self.last) * self.RATE)
        self.last = now
        if self.tokens < 1:
            await asyncio.sleep((1 - self.tokens) / self.RATE)
            self.tokens, self.last = 1.0, time.monotonic()
        self.tokens -= 1


class Play:
    """How a test's pages play ``game`` over their sockets: every state they receive is
    checked (``check(state, raw)``: nothing shown that the page may not see) and kept;
    a seat asked answers ``answer(view)``, each socket's moves paced (``paced``: a
    game that asks a person hundreds of times) as the server allows a page
    (:class:`PagePace`). With the game's records, their replay and programs joining
    its tables."""

    def __init__(self, game: str, check: Callable[[dict[str, Any], str], None],
                 answer: Callable[[dict[str, Any]], dict[str, Any]],
                 paced: bool = False) -> None:
        self.game = game
        self.check = check
        self.answer = answer
        self.paced = paced
        self.paces: weakref.WeakKeyDictionary[Any, PagePace] = weakref.WeakKeyDictionary()

    async def state(self, ws: Any, seen: list[dict[str, Any]],
                    timeout: float = 60) -> dict[str, Any]:
        """The next state, checked and kept in ``seen``."""
        while True:
            raw = await asyncio.wait_for(ws.recv(), timeout)
            message = json.loads(raw)
            if message["type"] == "state":
                self.check(message, raw)
                seen.append(message)
                return message  # type: ignore[no-any-return]

    async def send(self, ws: Any, move: dict[str, Any]) -> None:
        """Send a move as a person's page does (paced, if this play is)."""
        if self.paced:
            await self.paces.setdefault(ws, PagePace()).wait()
        await ws.send(json.dumps({"type": "move", "move": move}))

    async def play_out(self, ws: Any, seen: list[dict[str, Any]]) -> dict[str, Any]:
        """Answer every question of this page's seat until the game ends; its last
        state."""
        while True:
            state = await self.state(ws, seen)
            if state["table"]["status"] != "playing":
                return state
            if asked(state):
                await self.send(ws, self.answer(state["view"]))

    async def watch_out(self, ws: Any, seen: list[dict[str, Any]]) -> dict[str, Any]:
        """Every state a spectator gets until the game ends; the last."""
        while True:
            state = await self.state(ws, seen)
            if state["table"]["status"] != "playing":
                return state

    def records(self, server: Server) -> Path:
        """The folder of the server's records of the game."""
        return records(server, self.game)

    def record_file(self, server: Server, table: str) -> Path:
        """Where the server writes the record of ``table``."""
        return record_file(server, self.game, table)

    def record(self, server: Server, table: str) -> GameRecord:
        """The record of ``table`` once written (``wait_record``)."""
        return wait_record(server, self.game, table)

    def replay_ok(self, *paths: Path) -> str:
        """``referee replay`` says OK of each path (``replay_ok``)."""
        return replay_ok(self.game, *paths)

    def join_url(self, person: Person, table: str, seat: int) -> str:
        """The URL a program joins ``seat`` of ``table`` with (``join_url``)."""
        return join_url(person, self.game, table, seat)

    def connect(self, url: str, seat: int, command: Sequence[str],
                *options: str) -> subprocess.Popen[str]:
        """``referee connect`` started for the game (``connect``)."""
        return connect(self.game, url, seat, command, *options)


def together(player: Person, watcher: Person, table: str,
             play: Callable[[Any], Awaitable[T]],
             watch: Callable[[Any], Awaitable[U]]) -> tuple[T, U]:
    """``play(socket)`` on the player's socket to ``table`` and ``watch(socket)`` on the
    watcher's, at once, until both end: what each returned."""

    async def both() -> tuple[T, U]:
        async with player.socket(table) as mine, watcher.socket(table) as theirs:
            return await asyncio.gather(play(mine), watch(theirs))

    return asyncio.run(both())


def sit_invited(owner: Person, guest: Person, table: str, seat: int) -> None:
    """``guest`` sits down at ``seat`` (counted from 0) of ``table`` with the invitation
    the table's page shows its ``owner`` (the first open seat's)."""
    page = owner.client.get(f"/tables/{table}").text
    invite = re.search(r"invite=([\w-]+)", page)
    assert invite, page
    sat = guest.post(f"/tables/{table}/sit", {"seat": str(seat), "invite": invite.group(1)},
                     f"/tables/{table}")
    assert sat.status_code == 303, sat.text[:500]


def settings_refused(person: Person, game: str,
                     cases: Sequence[tuple[Mapping[str, str], str]],
                     seats: Mapping[str, str]) -> None:
    """Each form of ``cases`` (with the ``seats``) is refused from the page of a new
    table of ``game``: answered 400, the page saying the words paired with it."""
    for form, words in cases:
        answer = person.post("/tables", {"game": game, **seats, **form},
                             f"/tables/new?game={game}")
        assert answer.status_code == 400 and words in html.unescape(answer.text), \
            (form, answer.text[-3000:])


def form_offers(person: Person, game: str, names: Sequence[str]) -> str:
    """The page of a new table of ``game`` has a field of each name; its text."""
    form = person.client.get(f"/tables/new?game={game}").text
    for name in names:
        assert f'name="{name}"' in form, name
    return form


def open_from_lobby(page: Any, game: str, choose: Mapping[str, str],
                    fill: Mapping[str, str]) -> str:
    """Open a table of ``game`` from the lobby in a browser page: each select of
    ``choose`` set, each field of ``fill`` filled, then the form sent; the table's id."""
    page.locator(f"#games li[data-game={game}] a").click()
    for name, value in choose.items():
        page.select_option(f"select[name={name}]", value)
    for name, value in fill.items():
        page.fill(f"input[name={name}]", value)
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*")
    return str(page.url.rsplit("/", 1)[1])


def game_over(page: Any) -> bool:
    """Whether a table's page says its game is over."""
    return page.locator("#board").get_attribute("data-status") == "finished" or \
        (page.locator("#status").text_content() or "").startswith("Game over")


def my_turns(page: Any, board: str, most: int) -> Iterator[int]:
    """Each turn (counted from 0, at most ``most``) at which the page's person is asked
    (its board, the selector ``board``, says ``data-mine=true``) until the game is over
    or the others end it; after each, the next state is waited for (the caller answers
    in between)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for turn in range(most):
        if game_over(page):
            return
        try:
            page.wait_for_selector(f"{board}[data-mine=true]", timeout=15_000)
        except PlaywrightTimeout:
            return  # the game ended on the others' moves
        seq = int(page.locator("#board").get_attribute("data-seq") or "0")
        yield turn
        page.wait_for_function(
            "n => Number(document.querySelector('#board').dataset.seq) > n", arg=seq)


def wait_game_over(*pages: Any, timeout: float = 30_000) -> None:
    """Each page says its game is over (within ``timeout`` ms)."""
    for page in pages:
        page.wait_for_function(
            "() => document.querySelector('#status').textContent.startsWith('Game over')",
            timeout=timeout)


def finished_table(page: Any, server: Server, game: str, table: str) -> dict[str, Any]:
    """The record of a finished table as its page (reloaded) downloads it, once the
    lobby lists the table among the finished ones and the game's store has the record."""
    from referee.tournament.store import Store

    page.reload()
    with page.expect_download() as waiting:
        page.get_by_role("link", name="The game's record").click()
    record: dict[str, Any] = json.loads(Path(waiting.value.path()).read_text())
    page.goto(f"{server.url}/lobby")
    assert page.locator(f"#finished a[href='/tables/{table}']").count() == 1
    store = Store.open_existing(server.data / "stores" / game)
    try:
        assert store.count("done") == 1 and store.record(table).moves
    finally:
        store.close()
    return record
