"""The tables' routes: the lobby, opening a table, sitting down, a table's page and its
WebSocket, a finished game's replay, and each game's board module.

Every decision is the server's: who may sit where, whose click goes to which seat (the
session's user, never a seat number the page claims), what a page may see (its seat's
view, or the spectators'). Games are known only through the registry.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from pathlib import Path
from typing import Any

from sqlalchemy import or_, select
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from referee.core.errors import ConfigError
from referee.games.registry import table_driver, table_games
from referee.web.chat import Chat, refusal_for
from referee.web.live import Connection, Hub
from referee.web.models import GameTable, Program, TableSeat, User
from referee.web.pages import client_address, render
from referee.web.program_link import ProgramLink
from referee.web.security import current_user, require_user, same_origin
from referee.web.socket_limits import SocketLimits
from referee.web.tables import PACE, Tables, message_of

log = logging.getLogger(__name__)

__all__ = ["MAX_MESSAGE", "chat_of", "routes", "tables_of"]

MAX_MESSAGE = 4096
"""The longest WebSocket message a page may send (characters); longer: disconnected."""
MIN_DELAY, DEFAULT_DELAY, MAX_DELAY = 1.0, 300.0, 3600.0
"""The spectators' delay a table may choose (seconds): they see every hidden part so late."""
MESSAGES_PER_SECOND = 20
"""How many messages a page may send per second on average before it is disconnected."""


def tables_of(app: Any) -> Tables:
    """The server's tables (made at the first use, on the event loop's thread)."""
    tables: Tables | None = getattr(app.state, "tables", None)
    if tables is None:
        hub = Hub()
        with contextlib.suppress(RuntimeError):
            hub.bind(asyncio.get_running_loop())
        config = app.state.config
        tables = Tables(app.state.sessions, Path(config.data), hub,
                        leave_grace=config.leave_grace, workers=config.table_workers)
        tables.recover()
        app.state.tables = tables
    return tables


def chat_of(app: Any) -> Chat:
    """The server's tables' chat (on the tables' hub)."""
    chat: Chat | None = getattr(app.state, "chat", None)
    if chat is None:
        chat = Chat(app.state.sessions, tables_of(app).hub)
        app.state.chat = chat
    return chat


def limits_of(app: Any) -> SocketLimits:
    """The server's WebSocket limits (its config's)."""
    limits: SocketLimits | None = getattr(app.state, "socket_limits", None)
    if limits is None:
        config = app.state.config
        limits = SocketLimits(config.max_sockets, config.max_sockets_per_address)
        app.state.socket_limits = limits
    return limits


def _drivers() -> dict[str, Any]:
    return {name: table_driver(name) for name in table_games()}


def _text(form: FormData, name: str, longest: int = 200) -> str:
    value = form.get(name)
    return value[:longest].strip() if isinstance(value, str) else ""


# -- the lobby ---------------------------------------------------------------------------
async def lobby(request: Request) -> Response:
    """The games one can open a table for, the tables open, in progress and finished,
    and the user's own games."""
    tables_of(request.app)
    user = await run_in_threadpool(current_user, request)  # (the database: not on the loop)

    def rows() -> dict[str, list[dict[str, Any]]]:
        with request.app.state.sessions() as session:
            found: dict[str, list[dict[str, Any]]] = {"open": [], "playing": [],
                                                      "finished": [], "mine": []}
            for status, limit in (("open", 100), ("playing", 100), ("finished", 50)):
                query = (select(GameTable).where(GameTable.status == status)
                         .order_by(GameTable.created_at.desc()).limit(limit))
                found[status] = [_row(table) for table in session.scalars(query)]
            if user is not None:
                seated = select(TableSeat.table_id).where(TableSeat.user_id == user.id)
                mine = (select(GameTable)  # (no DISTINCT: PostgreSQL compares no JSON)
                        .where(or_(GameTable.id.in_(seated), GameTable.created_by == user.id))
                        .order_by(GameTable.created_at.desc()).limit(50))
                found["mine"] = [_row(table) for table in session.scalars(mine)]
            return found

    found = await run_in_threadpool(rows)
    games = [(name, driver.title) for name, driver in _drivers().items()]
    return render(request, "lobby.html", {"games": games, **found})


def _row(table: GameTable) -> dict[str, Any]:
    """A table as the lobby lists it."""
    return {"id": table.id, "game": table.game, "status": table.status,
            "result": table.result or "",
            "seats": [seat.name or ("(open)" if seat.kind == "open" else seat.kind)
                      for seat in table.seats],
            "created": table.created_at.strftime("%Y-%m-%d %H:%M")}


# -- opening a table ---------------------------------------------------------------------
async def new_table(request: Request) -> Response:
    """The form of a new table of one game: its settings, its seats, its clocks."""
    user = require_user(request)
    game = request.query_params.get("game", "")
    if game not in table_games():
        raise HTTPException(404, f"no game {game[:40]!r} to open a table for")
    return render(request, "new_table.html", await _form_context(request, game, user))


async def _form_context(request: Request, game: str, user: User,
                        error: str = "") -> dict[str, Any]:
    driver = table_driver(game)

    def programs() -> list[str]:
        with request.app.state.sessions() as session:
            return list(session.scalars(select(Program.name).where(Program.game == game)))

    names = driver.seat_names(driver.settings({}))
    return {"game": game, "driver": driver, "seat_names": names, "builtins": list(driver.builtins),
            "programs": await run_in_threadpool(programs), "error": error, "pace": PACE,
            "form": dict(await request.form()) if request.method == "POST" else {}}


async def create_table(request: Request) -> Response:
    """Open a table from the form; it starts at once if no seat waits for a person."""
    user = require_user(request)
    form = await request.form()
    game = _text(form, "game", 40)
    if game not in table_games():
        raise HTTPException(404, "no such game")
    driver = table_driver(game)
    try:
        settings = driver.settings({key: value for key, value in form.items()
                                    if isinstance(value, str)})
        count = driver.seat_count(settings)
        clocks = _clocks(form)
        reveal = _reveal(form)
        seats = [_seat_choice(_text(form, f"seat{index}", 100), driver, user)
                 for index in range(count)]
        if sum(1 for kind, _, _ in seats if kind == "person") > 1:
            raise ConfigError("Seats: you can take one seat of a table")
    except ConfigError as exc:
        context = await _form_context(request, game, user, str(exc))
        return render(request, "new_table.html", context, status_code=400)

    def create() -> tuple[str, bool]:
        with request.app.state.sessions.begin() as session:
            if any(kind == "program" for kind, _, _ in seats):
                known = set(session.scalars(select(Program.name)
                                            .where(Program.game == game)))
                missing = [bot for kind, bot, _ in seats if kind == "program"
                           and bot not in known]
                if missing:
                    raise ConfigError(f"Seats: no program {missing[0]!r} for {game}")
            table = GameTable(game=game, settings=settings, clocks=clocks,
                              pinch_hit=form.get("pinch_hit") == "on",
                              reveal=reveal,
                              created_by=user.id)
            session.add(table)
            session.flush()
            for index, (kind, bot, name) in enumerate(seats):
                session.add(TableSeat(table_id=table.id, index=index, kind=kind,
                                      user_id=user.id if kind == "person" else None,
                                      bot=bot, name=name,
                                      token=secrets.token_urlsafe(16)
                                      if kind in ("open", "remote") else None))
            return table.id, all(kind not in ("open", "remote") for kind, _, _ in seats)

    try:
        table_id, full = await run_in_threadpool(create)
    except ConfigError as exc:
        context = await _form_context(request, game, user, str(exc))
        return render(request, "new_table.html", context, status_code=400)
    log.info("table %s opened for %s by %s", table_id, game, user.name)
    if full:
        try:
            await _start(request, table_id)
        except ConfigError as exc:
            raise HTTPException(409, str(exc)) from None
    return RedirectResponse(f"/tables/{table_id}", status_code=303)


def _seat_choice(value: str, driver: Any, user: User) -> tuple[str, str | None, str]:
    """A seat's choice on the form: ``me``, ``open``, ``bot:NAME``, ``program:NAME``
    as (kind, bot, shown name)."""
    if value in ("", "open"):
        return "open", None, ""
    if value == "me":
        return "person", None, user.name
    kind, _, name = value.partition(":")
    if kind == "bot" and name in driver.builtins:
        return "bot", name, name
    if kind == "program" and name:
        return "program", name, name
    if value == "remote":
        return "remote", None, "a program over the network"
    raise ConfigError(f"Seats: {value[:40]!r} is not a choice")


def _clocks(form: FormData) -> dict[str, Any]:
    """The table's clocks from the form (seconds, as people give them)."""
    def seconds(name: str, default: float, high: float) -> int:
        text = _text(form, name, 20)
        try:
            value = float(text) if text else default
        except ValueError:
            raise ConfigError(f"Clocks: {text!r} is not a number of seconds") from None
        if not 0 <= value <= high:
            raise ConfigError(f"Clocks: {value:g} s is outside 0..{high:g}")
        return round(value * 1000)
    return {"person": {"turn_ms": seconds("person_turn", 120, 86400),
                       "game_ms": seconds("person_game", 0, 31 * 86400)},
            "program": {"turn_ms": seconds("program_turn", 5, 3600) or 5000,
                        "game_ms": seconds("program_game", 0, 31 * 86400)},
            "pace_ms": seconds("pace", PACE, 60)}


def _reveal(form: FormData) -> str:
    """What the spectators see of the hidden parts: ``after`` the game, ``never``, or
    everything ``delay:SECONDS`` late."""
    choice = _text(form, "reveal", 10)
    if choice != "delay":
        return "never" if choice == "never" else "after"
    text = _text(form, "reveal_delay", 20)
    try:
        delay = float(text) if text else DEFAULT_DELAY
    except ValueError:
        raise ConfigError(f"Spectators: {text!r} is not a number of seconds") from None
    if not MIN_DELAY <= delay <= MAX_DELAY:
        raise ConfigError(f"Spectators: a delay of {delay:g} s is outside "
                          f"{MIN_DELAY:g}..{MAX_DELAY:g}")
    return f"delay:{delay:g}"


async def _start(request: Request, table_id: str) -> None:
    """Start the table's game; the pages already open on it count as present."""
    tables = tables_of(request.app)
    table = await run_in_threadpool(tables.start, table_id)
    for connection in tables.hub.rooms.get(table_id, ()):
        table.arrive(connection.seat)


# -- a table -----------------------------------------------------------------------------
def _load(request: Request, table_id: str) -> dict[str, Any]:
    """The table's row as its page shows it; 404 if there is none."""
    with request.app.state.sessions() as session:
        table = session.get(GameTable, table_id)
        if table is None:
            raise HTTPException(404, "no such table")
        return {"id": table.id, "game": table.game, "status": table.status,
                "result": table.result or "", "settings": table.settings,
                "created_by": table.created_by, "pinch_hit": table.pinch_hit,
                "reveal": table.reveal,
                "record": table.record,
                "seats": [{"index": seat.index, "kind": seat.kind, "name": seat.name,
                           "user_id": seat.user_id, "token": seat.token}
                          for seat in table.seats]}


async def table_page(request: Request) -> Response:
    """A table: its board (the seat's view for a person sitting at it, else the
    spectators'), its seats with the open ones to take, its result."""
    table_id = request.path_params["table"]
    table = await run_in_threadpool(_load, request, table_id)
    user = await run_in_threadpool(current_user, request)  # (the database: not on the loop)
    driver = table_driver(table["game"])
    mine = next((seat["index"] for seat in table["seats"]
                 if user is not None and seat["user_id"] == user.id), None)
    invite = request.query_params.get("invite", "")
    owner = user is not None and user.id == table["created_by"]
    base = str(request.base_url).rstrip("/")
    for seat in table["seats"]:  # an invitation is shown to the table's owner only
        seat["invite"] = seat["token"] if owner and seat["kind"] == "open" else None
        seat["connect"] = (f"referee connect {table['game']} {base}/tables/{table_id}"
                           f"?join={seat['token']} --seat {seat['index'] + 1} -- COMMAND"
                           if owner and seat["kind"] == "remote" and seat["token"] else None)
        del seat["token"]
    def programs() -> list[str]:
        if user is None:
            return []
        with request.app.state.sessions() as session:
            return list(session.scalars(select(Program.name).where(
                Program.game == table["game"], Program.owner_id == user.id)))

    return render(request, "table.html", {
        "my_programs": await run_in_threadpool(programs),
        "table": table, "driver": driver, "names": driver.seat_names(table["settings"]),
        "mine": mine, "invite": invite[:64], "owner": owner,
        "chat_refusal": refusal_for(user),
        "board": f"/games/{table['game']}/{driver.board_module}"})


async def sit(request: Request) -> Response:
    """Take an open seat (any open one, or the one an invitation names); the table
    starts once no seat is open."""
    user = require_user(request)
    table_id = request.path_params["table"]
    form = await request.form()
    wanted = _text(form, "seat", 4)
    token = _text(form, "invite", 64)

    def take() -> None:
        with request.app.state.sessions.begin() as session:
            table = session.get(GameTable, table_id, with_for_update=True)
            if table is None:
                raise HTTPException(404, "no such table")
            if table.status != "open":
                raise ConfigError("the game has begun: the seats are taken")
            if any(seat.user_id == user.id for seat in table.seats):
                raise ConfigError("you already sit at this table")
            open_seats = [seat for seat in table.seats if seat.kind == "open"]
            if token:
                open_seats = [seat for seat in open_seats if seat.token is not None
                              and secrets.compare_digest(seat.token, token)]
            elif wanted.isdigit():
                open_seats = [seat for seat in open_seats if seat.index == int(wanted)]
            if not open_seats:
                raise ConfigError("that seat is not open")
            seat = open_seats[0]
            seat.kind, seat.user_id, seat.name, seat.token = "person", user.id, user.name, None

    try:
        await run_in_threadpool(take)
    except ConfigError as exc:
        raise HTTPException(409, str(exc)) from None
    if await run_in_threadpool(tables_of(request.app).ready, table_id):
        with contextlib.suppress(ConfigError):  # (a program joining now started it first)
            await _start(request, table_id)  # (a program's seat waits for its program)
    return RedirectResponse(f"/tables/{table_id}", status_code=303)


async def start(request: Request) -> Response:
    """The owner starts the table: the pinch-hitter takes the seats still open."""
    user = require_user(request)
    table_id = request.path_params["table"]
    table = await run_in_threadpool(_load, request, table_id)
    if table["created_by"] != user.id:
        raise HTTPException(403, "only the table's owner starts it")
    try:
        await _start(request, table_id)
    except ConfigError as exc:
        raise HTTPException(409, str(exc)) from None
    return RedirectResponse(f"/tables/{table_id}", status_code=303)


async def live(websocket: WebSocket) -> None:
    """A table's page's socket: its states as they change; its person's moves in."""
    if not same_origin(websocket):
        await websocket.close(1008, "cross-site connection refused")
        return
    table_id = websocket.path_params["table"]
    user = await run_in_threadpool(current_user, websocket)
    tables = tables_of(websocket.app)

    def seat_of() -> tuple[bool, int | None]:
        with websocket.app.state.sessions() as session:
            table = session.get(GameTable, table_id)
            if table is None:
                return False, None
            seat = next((s.index for s in table.seats
                         if user is not None and s.user_id == user.id), None)
            return True, seat

    exists, seat = await run_in_threadpool(seat_of)
    if not exists:
        await websocket.close(1008, "no such table")
        return
    address = client_address(websocket)
    await websocket.accept()
    with limits_of(websocket.app).holding(address) as refused:
        if refused is not None:
            await websocket.close(1013, refused)
            return
        await _live(websocket, tables, table_id, seat, user)


async def _live(websocket: WebSocket, tables: Tables, table_id: str, seat: int | None,
                user: User | None) -> None:
    """The accepted socket of a table's page, until it closes."""
    connection = Connection(websocket, table_id, seat, user.id if user else None)
    tables.hub.join(connection)
    live_table = tables.get(table_id)
    if live_table is not None:
        live_table.arrive(seat)
        connection.state = live_table.state_for(seat)  # (None: its first state is coming)
        if seat is None and tables.hub.delayed(table_id):  # (the newest one due, if any)
            connection.state = tables.hub.delayed_state(table_id)
    else:  # not begun (its start will reach this page) or over
        connection.state = json.dumps({"type": "closed"})
    connection.ready.set()
    pump = asyncio.create_task(connection.pump())
    chat = chat_of(websocket.app)
    try:
        recent = await chat.history(table_id)  # (joined first: no line falls between)
        if recent is not None:
            connection.tell(recent)
        await _read(websocket, connection, tables, chat, user)
    finally:
        tables.hub.leave(connection)
        pump.cancel()
        live_table = tables.get(table_id)
        if live_table is not None:
            live_table.depart(seat, asyncio.get_running_loop())


async def _read(websocket: WebSocket, connection: Connection, tables: Tables, chat: Chat,
                user: User | None) -> None:
    """The page's messages until it goes: each a seat's message or a chat line, or
    refused; a huge or flooding page is disconnected with the reason."""
    budget = float(MESSAGES_PER_SECOND * 5)
    last = asyncio.get_running_loop().time()
    while True:
        try:
            text = await websocket.receive_text()
        except (WebSocketDisconnect, RuntimeError, KeyError):
            return
        if connection.acknowledge(text):
            continue  # (a page's word that it showed a state: not a message to budget)
        now = asyncio.get_running_loop().time()
        budget = min(MESSAGES_PER_SECOND * 5, budget + (now - last) * MESSAGES_PER_SECOND) - 1
        last = now
        if budget < 0:
            log.info("table %s: a page sent too many messages: disconnected", connection.table)
            await connection.close(1008, "too many messages")
            return
        if len(text) > MAX_MESSAGE:
            log.info("table %s: a page sent a message of %d characters: disconnected",
                     connection.table, len(text))
            await connection.close(1009, "message too big")
            return
        try:
            data = json.loads(text)
        except ValueError:
            data = _NOT_JSON
        if isinstance(data, dict) and data.get("type") == "chat":
            reason = await chat.say(connection.table, user, data.get("text"))
            if reason is not None:
                connection.tell(json.dumps({"type": "chat-refused", "reason": reason}))
            continue
        reason = _handle(data, connection, tables)
        if reason is not None:
            connection.tell(json.dumps({"type": "refused", "reason": reason}))


_NOT_JSON = object()
"""A page's message that is not JSON."""


def _handle(data: Any, connection: Connection, tables: Tables) -> str | None:
    """Pass one message to the connection's seat; the reason if it is refused."""
    if data is _NOT_JSON:
        return "not a JSON message"
    message = message_of(data)
    if message is None:
        return "not a message this table knows"
    if connection.seat is None:
        return "you do not sit at this table"
    table = tables.get(connection.table)
    if table is None:
        return "the game is not being played"
    return table.submit(connection.seat, message)


async def program(websocket: WebSocket) -> None:
    """A program joining its seat over the network (``referee connect``): the seat's
    secret in ``join``, its number (from 1) in ``seat``; then its protocol's lines."""
    if not same_origin(websocket, allow_missing=True):
        await websocket.close(1008, "cross-site connection refused")
        return
    table_id = websocket.path_params["table"]
    tables = tables_of(websocket.app)
    params = websocket.query_params
    token, seat_text = params.get("join", "")[:64], params.get("seat", "")[:4]
    name = params.get("name", "")[:80].strip() or "program"
    seat = int(seat_text) - 1 if seat_text.isdigit() else -1

    def check() -> str | None:
        with websocket.app.state.sessions() as session:
            row = session.get(GameTable, table_id)
            if row is None:
                return "no such table"
            if row.status != "open":
                return "the table's game has begun or ended"
            found = next((s for s in row.seats if s.index == seat), None)
            if found is None or found.kind != "remote" or not found.token or \
                    not secrets.compare_digest(found.token, token):
                return "that seat does not wait for this program (its seat number or join " \
                    "secret is wrong)"
            return None

    refused = await run_in_threadpool(check)
    joined = tables.links.get((table_id, seat))
    if refused is None and joined is not None and joined.link.running:
        refused = "a program already plays that seat"
    await websocket.accept()
    if refused is not None:
        log.info("table %s: a program was refused: %s", table_id, refused)
        await websocket.close(1008, refused[:120])
        return
    with limits_of(websocket.app).holding(client_address(websocket)) as busy:
        if busy is not None:
            await websocket.close(1013, busy)
            return
        await _program(websocket, tables, table_id, seat, name)


async def _program(websocket: WebSocket, tables: Tables, table_id: str, seat: int,
                   name: str) -> None:
    """The accepted socket of a program at its seat, until it closes."""
    link = ProgramLink(websocket, table_id, seat, name, asyncio.get_running_loop())
    tables.links[(table_id, seat)] = link
    log.info("table %s: %s joined seat %d over the network", table_id, name, seat + 1)
    try:
        if await run_in_threadpool(tables.ready, table_id):
            with contextlib.suppress(ConfigError):
                table = await run_in_threadpool(tables.start, table_id)
                for connection in tables.hub.rooms.get(table_id, ()):
                    table.arrive(connection.seat)
        await link.run()
    finally:
        if tables.links.get((table_id, seat)) is link:
            del tables.links[(table_id, seat)]


async def replay(request: Request) -> Response:
    """A finished game's record (JSON) for its replay: only once it is over."""
    table = await run_in_threadpool(_load, request, request.path_params["table"])
    if table["status"] != "finished" or not table["record"]:
        raise HTTPException(404, "the game has no record yet")
    user = await run_in_threadpool(current_user, request)  # (the database: not on the loop)
    seated = user is not None and (user.is_admin or any(
        seat["user_id"] == user.id for seat in table["seats"]))
    if table["reveal"] == "never" and not seated:  # the record shows every hidden part
        raise HTTPException(403, "this table shows its record only to its players")
    path = Path(request.app.state.config.data) / table["record"]
    return FileResponse(path, media_type="application/json",
                        filename=f"{table['game']}-{table['id']}.json")


async def board_module(request: Request) -> Response:
    """A game's browser board (from its folder's ``web/``)."""
    game = request.path_params["game"]
    name = request.path_params["file"]
    if game not in table_games() or "/" in name or name.startswith("."):
        raise HTTPException(404, "no such file")
    module = table_driver(game).__class__.__module__
    folder = Path(__import__(module, fromlist=["_"]).__file__ or "").parent / "web"
    path = folder / name
    if not path.is_file():
        raise HTTPException(404, "no such file")
    media = "text/javascript" if name.endswith(".js") else None
    return FileResponse(path, media_type=media)


routes: list[BaseRoute] = [
    Route("/lobby", lobby),
    Route("/tables/new", new_table),
    Route("/tables", create_table, methods=["POST"]),
    Route("/tables/{table}", table_page),
    Route("/tables/{table}/sit", sit, methods=["POST"]),
    Route("/tables/{table}/start", start, methods=["POST"]),
    Route("/tables/{table}/record", replay),
    WebSocketRoute("/tables/{table}/live", live),
    WebSocketRoute("/tables/{table}/program", program),
    Route("/games/{game}/{file}", board_module),
]
"""Every route of the tables, for ``web.app``."""
