"""The pages of accounts: the front page, sign-up, log-in, log-out and the guests' door.
A refused form is shown again with what was wrong (400); passwords are never logged."""

from __future__ import annotations

import logging
import math

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from referee.web.accounts import AccountError, add_user, authenticate, create_guest
from referee.web.models import User
from referee.web.pages import client_address, error_page, local_path, render
from referee.web.security import LoginLimiter, current_user, log_in, log_out

__all__ = ["routes"]

log = logging.getLogger(__name__)


def _field(form: FormData, name: str, longest: int = 2048) -> str:
    """The text field ``name`` of ``form`` ('' if missing or a file), cut at ``longest``."""
    value = form.get(name)
    return value[:longest] if isinstance(value, str) else ""


def _after(request: Request, target: str | None) -> RedirectResponse:
    """The redirect after logging in: to ``target`` if it is a path of this site."""
    return RedirectResponse(local_path(target), status_code=303)


async def home(request: Request) -> Response:
    """The front page: links to sign up, log in and the lobby."""
    return render(request, "index.html")


async def signup(request: Request) -> Response:
    """The sign-up form, and the account it makes (then logged in)."""
    next_path = local_path(request.query_params.get("next"))
    if request.method == "GET":
        return render(request, "signup.html", {"name": "", "next": next_path})
    form = await request.form()
    name, password = _field(form, "name", 100).strip(), _field(form, "password")
    next_path = local_path(_field(form, "next"))

    def again(error: str) -> Response:
        return render(request, "signup.html", {"name": name, "next": next_path,
                                               "error": error}, status_code=400)

    if password != _field(form, "password2"):
        return again("The two passwords differ.")

    def create() -> User:
        with request.app.state.sessions() as session:
            return add_user(session, name, password)

    try:
        user = await run_in_threadpool(create)
    except AccountError as exc:
        return again(f"Not signed up: {exc}.")
    log.info("signed up: %s (from %s)", user.name, client_address(request))
    log_in(request, user)
    return _after(request, next_path)


async def login(request: Request) -> Response:
    """The log-in form, and the session it starts; too many failures are refused (429)."""
    next_path = local_path(request.query_params.get("next"))
    if request.method == "GET":
        return render(request, "login.html", {"name": "", "next": next_path})
    form = await request.form()
    name, password = _field(form, "name", 100).strip(), _field(form, "password")
    next_path = local_path(_field(form, "next"))
    address = client_address(request)
    limiter: LoginLimiter = request.app.state.login_limiter
    wait = limiter.retry_after(address, name)
    if wait > 0:
        log.warning("log-in refused (too many failures): %r from %s", name, address)
        seconds = math.ceil(wait)
        return render(request, "login.html",
                      {"name": name, "next": next_path,
                       "error": f"Too many failed log-ins: try again in {seconds} s."},
                      status_code=429, headers={"Retry-After": str(seconds)})

    def check() -> User | None:
        with request.app.state.sessions() as session:
            return authenticate(session, name, password)

    user = await run_in_threadpool(check) if name and password else None
    if user is None:
        limiter.failed(address, name)
        log.info("log-in failed: %r from %s", name, address)
        return render(request, "login.html",
                      {"name": name, "next": next_path,
                       "error": "That name and password do not match an account."},
                      status_code=400)
    limiter.succeeded(name)
    log.info("logged in: %s (from %s)", user.name, address)
    log_in(request, user)
    return _after(request, next_path)


async def logout(request: Request) -> Response:
    """End the session (a POST with the CSRF token) and go to the front page."""
    user = current_user(request)
    if user is not None:
        log.info("logged out: %s", user.name)
    log_out(request)
    return RedirectResponse("/", status_code=303)


async def guest(request: Request) -> Response:
    """Play as a new guest, when the server allows guests."""
    if not request.app.state.config.guests:
        return error_page(request, 403, "Guests may not play on this server: sign up.")
    form = await request.form()

    def create() -> User:
        with request.app.state.sessions() as session:
            return create_guest(session)

    try:
        user = await run_in_threadpool(create)
    except AccountError as exc:
        return error_page(request, 503, f"{exc}.")
    log.info("guest: %s (from %s)", user.name, client_address(request))
    log_in(request, user)
    return _after(request, _field(form, "next"))


routes: list[BaseRoute] = [
    Route("/", home, name="home"),
    Route("/signup", signup, methods=["GET", "POST"], name="signup"),
    Route("/login", login, methods=["GET", "POST"], name="login"),
    Route("/logout", logout, methods=["POST"], name="logout"),
    Route("/guest", guest, methods=["POST"], name="guest"),
]
"""The routes of accounts, for ``web.app``."""
