"""Who is asking and whether to believe the request: the session (a signed cookie), the
CSRF token of every state-changing request, the Origin check of WebSocket handshakes,
the logged-in user, the login rate limit and the security headers of every answer."""

from __future__ import annotations

import base64
import hmac
import json
import secrets
import time
import urllib.parse
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import itsdangerous
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.middleware.sessions import Session as CookieSession
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from referee.web.models import User

__all__ = ["CSRF_FIELD", "CSRF_HEADER", "CsrfMiddleware", "LoginLimiter", "LoginRequired",
           "SecurityHeadersMiddleware", "SessionMiddleware", "csrf_token", "current_user",
           "log_in", "log_out", "require_user", "same_origin"]

SESSION_COOKIE = "referee_session"
"""The session cookie's name."""

SESSION_MAX_AGE = 14 * 24 * 3600
"""How long a session lasts without a new request (seconds)."""

CSRF_FIELD = "csrf_token"
"""The hidden field of every form that carries the session's CSRF token."""

CSRF_HEADER = "x-csrf-token"
"""The header that carries it for ``fetch()`` requests."""

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
"""The methods that may change something: each must carry the CSRF token."""

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
"""The bodies a form sends, in which the CSRF field is looked for."""


class SessionMiddleware:
    """The session as ``request.session``: a JSON dict in a cookie signed with the server's
    key (itsdangerous, timestamped), HttpOnly, SameSite=Lax, and Secure when the request
    came over https (directly, or through a trusted proxy). Nothing is stored on the
    server: logging out forgets the cookie in the browser."""

    def __init__(self, app: ASGIApp, secret_key: bytes) -> None:
        self.app = app
        self.signer = itsdangerous.TimestampSigner(secret_key, salt="referee-web-session")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        connection = HTTPConnection(scope)
        session = CookieSession(self.read(connection.cookies.get(SESSION_COOKIE)))
        had_cookie = bool(session)
        scope["session"] = session
        secure = scope.get("scheme") in ("https", "wss")

        async def send_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and session.modified:
                headers = MutableHeaders(scope=message)
                flags = "; HttpOnly; SameSite=Lax" + ("; Secure" if secure else "")
                if session:
                    value = self.signer.sign(
                        base64.urlsafe_b64encode(json.dumps(dict(session)).encode())).decode()
                    headers.append("Set-Cookie", f"{SESSION_COOKIE}={value}; Path=/; "
                                                 f"Max-Age={SESSION_MAX_AGE}{flags}")
                elif had_cookie:
                    headers.append("Set-Cookie", f"{SESSION_COOKIE}=; Path=/; Max-Age=0{flags}")
                headers.add_vary_header("Cookie")
            await send(message)

        await self.app(scope, receive, send_cookie)

    def read(self, cookie: str | None) -> dict[str, Any]:
        """The session in ``cookie``, or an empty one when it is missing, forged, expired
        or not a JSON object."""
        if not cookie:
            return {}
        try:
            data = json.loads(base64.urlsafe_b64decode(
                self.signer.unsign(cookie.encode(), max_age=SESSION_MAX_AGE)))
        except (itsdangerous.BadData, ValueError):
            return {}
        return data if isinstance(data, dict) else {}


def csrf_token(request: HTTPConnection) -> str:
    """The session's CSRF token (made on first use): the value of every form's
    ``csrf_token`` field and of ``fetch()``'s ``X-CSRF-Token`` header."""
    token = request.session.get("csrf")
    if not isinstance(token, str) or not token:
        token = secrets.token_urlsafe(32)
        request.session["csrf"] = token
    return token


Reject = Callable[[Request, str], Awaitable[Response]]
"""Makes the page of a refused request (the request and why)."""


class CsrfMiddleware:
    """Refuses (403, with a page saying why) every POST, PUT, PATCH or DELETE whose
    ``X-CSRF-Token`` header or ``csrf_token`` form field is not the session's token. The
    routes behind it need do nothing: a form's body is read here and handed on whole."""

    def __init__(self, app: ASGIApp, reject: Reject) -> None:
        self.app = app
        self.reject = reject

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in UNSAFE_METHODS:
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        expected = request.session.get("csrf")
        given = request.headers.get(CSRF_HEADER)
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if given is None and content_type in FORM_TYPES:
            body = await _read_body(receive)
            receive = _replay(body)
            try:
                form = await Request(scope, _replay(body)).form()
            except (HTTPException, MultiPartException):  # a malformed multipart body
                response = await self.reject(request, "the form cannot be read")
                await response(scope, receive, send)
                return
            field = form.get(CSRF_FIELD)
            given = field if isinstance(field, str) else None
            await form.close()
        if not isinstance(expected, str) or not expected or given is None \
                or not hmac.compare_digest(given.encode(), expected.encode()):
            why = ("the request carries no security token (csrf_token)" if given is None else
                   "the request's security token (csrf_token) is not this session's")
            response = await self.reject(request, why)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


async def _read_body(receive: Receive) -> bytes:
    """The whole request body (its size bounded by the body limit outside)."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes) -> Receive:
    """A ``receive`` that gives ``body`` once, then waits for the disconnect."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return {"type": "http.disconnect"}

    return receive


def same_origin(websocket: WebSocket, *, allow_missing: bool = False) -> bool:
    """Whether a WebSocket handshake comes from a page of this server: its ``Origin`` is
    this server's scheme, host and port (the scheme and client as a trusted proxy says).
    Browsers always send ``Origin``; a handshake without one is a program's, taken only
    with ``allow_missing`` (such a client must prove itself otherwise, e.g. by a token)."""
    origin = websocket.headers.get("origin")
    host = websocket.headers.get("host")
    if origin is None:
        return allow_missing
    if host is None or origin == "null":
        return False
    scheme = "https" if websocket.url.scheme in ("wss", "https") else "http"
    return _origin_key(origin) == _origin_key(f"{scheme}://{host}")


def _origin_key(origin: str) -> tuple[str, str, int] | None:
    """``origin`` as (scheme, host, port), the default port filled in; None if malformed."""
    try:
        parts = urllib.parse.urlsplit(origin.strip())
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower(), 0)
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return parts.scheme.lower(), parts.hostname.lower(), port


_UNREAD = object()
"""``request.state.user`` before the session's user is read."""


def current_user(request: HTTPConnection) -> User | None:
    """The user logged in on this request's session, or None (read once per request)."""
    cached = getattr(request.state, "user", _UNREAD)
    if cached is not _UNREAD:
        assert cached is None or isinstance(cached, User)
        return cached
    uid = request.session.get("uid")
    user = None
    if isinstance(uid, int):
        with request.app.state.sessions() as session:
            user = session.get(User, uid)
    request.state.user = user
    return user


class LoginRequired(Exception):
    """Raised by :func:`require_user`: the app answers with a redirect to the login page."""

    def __init__(self, next_path: str) -> None:
        super().__init__(next_path)
        self.next_path = next_path


def require_user(request: HTTPConnection) -> User:
    """The user logged in, or :class:`LoginRequired` (a redirect to ``/login?next=...``
    back to this page)."""
    user = current_user(request)
    if user is None:
        path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        raise LoginRequired(path)
    return user


def log_in(request: HTTPConnection, user: User) -> None:
    """Start a new session for ``user`` (a new CSRF token with it)."""
    request.session.clear()
    request.session["uid"] = user.id
    request.state.user = user
    csrf_token(request)


def log_out(request: HTTPConnection) -> None:
    """End the session: the browser is told to forget its cookie."""
    request.session.clear()
    request.state.user = None


class LoginLimiter:
    """The login rate limit, kept in memory (a restart forgets it; one server process):
    after ``per_name`` failed log-ins for one account name, or ``per_address`` from one
    client address, within ``window`` seconds, log-ins for it are refused, even with the
    right password, until the oldest of those failures is ``window`` seconds old. Other
    names are not affected by one name's failures (unless the address's limit is met)."""

    def __init__(self, per_name: int = 10, per_address: int = 50, window: float = 300.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_name = per_name
        self.per_address = per_address
        self.window = window
        self.clock = clock
        self.failures: dict[tuple[str, str], deque[float]] = {}

    def _recent(self, key: tuple[str, str]) -> deque[float]:
        """The failures of ``key`` still in the window (older ones forgotten)."""
        times = self.failures.get(key)
        if times is None:
            return deque()
        cutoff = self.clock() - self.window
        while times and times[0] <= cutoff:
            times.popleft()
        if not times:
            del self.failures[key]
        return times

    def retry_after(self, address: str, name: str) -> float:
        """Seconds until a log-in of ``name`` from ``address`` may be tried (0: now)."""
        wait = 0.0
        for key, limit in ((("name", name.casefold()), self.per_name),
                           (("address", address), self.per_address)):
            times = self._recent(key)
            if len(times) >= limit:
                wait = max(wait, times[-limit] + self.window - self.clock())
        return wait

    def failed(self, address: str, name: str) -> None:
        """Count a failed log-in of ``name`` from ``address``."""
        now = self.clock()
        for key in (("name", name.casefold()), ("address", address)):
            self._recent(key)
            self.failures.setdefault(key, deque()).append(now)

    def succeeded(self, name: str) -> None:
        """Forget the failures of ``name`` after its right password."""
        self.failures.pop(("name", name.casefold()), None)


CONTENT_SECURITY_POLICY = ("default-src 'self'; img-src 'self' data:; base-uri 'none'; "
                           "form-action 'self'; frame-ancestors 'none'; object-src 'none'")
"""What a page may load: only the server's own files (no inline script or style)."""


class SecurityHeadersMiddleware:
    """Adds the security headers to every HTTP answer: the content security policy,
    ``X-Content-Type-Options: nosniff``, no framing, and the referrer kept to this site."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("X-Frame-Options", "DENY")
                headers.setdefault("Referrer-Policy", "same-origin")
            await send(message)

        await self.app(scope, receive, send_headers)
