"""The security parts on a real uvicorn server (in a thread of the test, on a free port
of 127.0.0.1) with a few routes of the test's own beside the site's: the WebSocket Origin
check, the redirect to the log-in page, guests, the trusted proxy's headers, the page of
a server error; and the login rate limit's window on a clock of the test's."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket
from web_servers import csrf_of
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from referee.web.app import create_app
from referee.web.config import WebConfig
from referee.web.pages import local_path
from referee.web.security import LoginLimiter, require_user, same_origin

PASSWORD = "a-long-enough-secret"


async def probe(websocket: WebSocket) -> None:
    """A WebSocket taken only from this site's pages."""
    if not same_origin(websocket):
        await websocket.close(code=1008)
        return
    await websocket.accept()
    await websocket.send_text("welcome")
    await websocket.close()


async def program_probe(websocket: WebSocket) -> None:
    """A WebSocket taken from this site's pages and from programs (no Origin)."""
    if not same_origin(websocket, allow_missing=True):
        await websocket.close(code=1008)
        return
    await websocket.accept()
    await websocket.send_text("welcome")
    await websocket.close()


async def private(request: Request) -> Response:
    """A page for users only."""
    return PlainTextResponse(f"hello {require_user(request).name}")


async def broken(request: Request) -> Response:
    """A page whose code fails."""
    raise RuntimeError("secret internals of the failure")


async def client_seen(request: Request) -> Response:
    """The client's address and scheme as the app sees them."""
    host = request.client.host if request.client else "?"
    return PlainTextResponse(f"{host} {request.url.scheme}")


@contextlib.contextmanager
def serving(config: WebConfig) -> Iterator[str]:
    """The site of ``config`` with the test's routes, served by uvicorn in a thread."""
    app = create_app(config)
    app.router.routes[:0] = [WebSocketRoute("/probe", probe),
                             WebSocketRoute("/program-probe", program_probe),
                             Route("/private", private), Route("/broken", broken),
                             Route("/seen", client_seen)]
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, ws="websockets-sansio", log_level="critical",
                                           proxy_headers=False, lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(20)
        listener.close()


@pytest.fixture
def site(tmp_path: Path) -> Iterator[str]:
    """The site on SQLite, guests not allowed, no proxy."""
    with serving(WebConfig(data=tmp_path / "data")) as url:
        yield url


def test_a_cross_origin_websocket_handshake_is_refused(site: str) -> None:
    ws_url = site.replace("http://", "ws://")
    with connect(ws_url + "/probe", origin=site) as ws:
        assert ws.recv(timeout=10) == "welcome"
    for origin in ("http://evil.example", "http://127.0.0.1:1", "https://" + site[7:],
                   "null"):
        with pytest.raises(InvalidStatus) as refused:
            connect(ws_url + "/probe", origin=origin)
        assert refused.value.response.status_code == 403, origin
    with pytest.raises(InvalidStatus):
        connect(ws_url + "/probe")  # no Origin: not a page of this site
    with connect(ws_url + "/program-probe") as ws:  # a program's: taken when allowed
        assert ws.recv(timeout=10) == "welcome"
    with pytest.raises(InvalidStatus):
        connect(ws_url + "/program-probe", origin="http://evil.example")


def test_a_page_for_users_sends_others_to_log_in_and_back(site: str) -> None:
    with httpx.Client(base_url=site) as client:
        answer = client.get("/private?a=1")
        assert answer.status_code == 303
        assert answer.headers["location"] == "/login?next=%2Fprivate%3Fa%3D1"
        token = csrf_of(client.get("/signup").text)
        signed = client.post("/signup", data={"csrf_token": token, "name": "uma",
                                              "password": PASSWORD, "password2": PASSWORD,
                                              "next": "/private?a=1"})
        assert signed.headers["location"] == "/private?a=1"
        assert client.get("/private?a=1").text == "hello uma"


def test_a_server_error_is_a_page_without_its_traceback(site: str) -> None:
    answer = httpx.get(site + "/broken")
    assert answer.status_code == 500
    assert "Something went wrong" in answer.text
    assert "secret internals" not in answer.text and "Traceback" not in answer.text
    assert httpx.get(site + "/").status_code == 200  # and the server goes on


def test_guests_play_only_where_the_server_allows_them(tmp_path: Path, site: str) -> None:
    with httpx.Client(base_url=site) as client:
        assert "Play as a guest" not in client.get("/").text
        refused = client.post("/guest", data={"csrf_token": csrf_of(client.get("/login").text)})
        assert refused.status_code == 403 and "Guests may not play" in refused.text
    with serving(WebConfig(data=tmp_path / "guests", guests=True)) as url, \
            httpx.Client(base_url=url) as client:
        page = client.get("/").text
        assert "Play as a guest" in page
        answer = client.post("/guest", data={"csrf_token": csrf_of(page)})
        assert answer.status_code == 303
        assert "(guest)" in client.get("/").text
        assert client.get("/private").text.startswith("hello guest-")


def test_proxy_headers_are_believed_only_from_the_proxies_named(tmp_path: Path,
                                                                site: str) -> None:
    forwarded = {"X-Forwarded-For": "203.0.113.7", "X-Forwarded-Proto": "https"}
    ignored = httpx.get(site + "/seen", headers=forwarded)
    assert ignored.text == "127.0.0.1 http"
    assert "Secure" not in httpx.get(site + "/login", headers=forwarded).headers["set-cookie"]
    behind = WebConfig(data=tmp_path / "proxied", forwarded_allow_ips=("127.0.0.1",))
    with serving(behind) as url:
        assert httpx.get(url + "/seen", headers=forwarded).text == "203.0.113.7 https"
        login = httpx.get(url + "/login", headers=forwarded)
        assert "; Secure" in login.headers["set-cookie"]


def test_the_login_rate_limit_lets_a_name_try_again_once_the_window_passes() -> None:
    now = [1000.0]
    limiter = LoginLimiter(per_name=3, per_address=5, window=60, clock=lambda: now[0])
    for _ in range(3):
        assert limiter.retry_after("10.0.0.1", "Ann") == 0
        limiter.failed("10.0.0.1", "Ann")
        now[0] += 1
    assert limiter.retry_after("10.0.0.9", "ann") == pytest.approx(57)  # any address
    assert limiter.retry_after("10.0.0.1", "bo") == 0  # another name
    now[0] += 57
    assert limiter.retry_after("10.0.0.1", "ann") == 0  # the oldest failure is 60 s old
    for name in ("bo", "cy", "dee"):  # with Ann's last two: five from the address
        limiter.failed("10.0.0.1", name)
    assert limiter.retry_after("10.0.0.1", "eve") == pytest.approx(1)
    assert limiter.retry_after("10.0.0.2", "eve") == 0
    limiter.succeeded("ann")
    assert ("name", "ann") not in limiter.failures


@pytest.mark.parametrize(("target", "landing"), [
    ("/lobby?x=1", "/lobby?x=1"), ("/tables/abc", "/tables/abc"), (None, "/lobby"),
    ("", "/lobby"), ("//evil.example", "/lobby"), ("/\\evil.example", "/lobby"),
    ("http://evil.example/", "/lobby"), ("/a\r\nSet-Cookie: x", "/lobby"),
    ("javascript:alert(1)", "/lobby")])
def test_next_is_only_a_path_of_the_site(target: str | None, landing: str) -> None:
    assert local_path(target) == landing
