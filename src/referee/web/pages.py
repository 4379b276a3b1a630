"""The site's pages: the Jinja2 templates (autoescaped) with what every page shows (the
user, the CSRF token), and the error pages in the site's layout."""

from __future__ import annotations

import http
import logging
import urllib.parse
from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection, Request
from starlette.responses import RedirectResponse, Response
from starlette.templating import Jinja2Templates

from referee.web.security import LoginRequired, csrf_token, current_user

__all__ = ["TEMPLATES", "error_page", "make_templates", "render"]

log = logging.getLogger(__name__)

TEMPLATES = Path(__file__).resolve().parent / "templates"
"""The package's templates (``base.html`` is every page's layout)."""


def _page_context(request: Request) -> dict[str, Any]:
    """What every template may use: ``user`` (or None), ``csrf_token`` and ``guests``
    (whether guests may play)."""
    return {"user": current_user(request), "csrf_token": csrf_token(request),
            "guests": request.app.state.config.guests}


def make_templates() -> Jinja2Templates:
    """The site's templates, autoescaped, each given the user and the CSRF token."""
    templates = Jinja2Templates(directory=TEMPLATES, context_processors=[_page_context])
    templates.env.autoescape = True
    return templates


def render(request: Request, name: str, context: dict[str, Any] | None = None,
           status_code: int = 200, headers: dict[str, str] | None = None) -> Response:
    """The page ``name`` (a template of ``web/templates``) for ``request``."""
    templates: Jinja2Templates = request.app.state.templates
    return templates.TemplateResponse(request, name, context or {}, status_code=status_code,
                                      headers=headers)


def error_page(request: Request, status_code: int, why: str = "",
               headers: dict[str, str] | None = None) -> Response:
    """The error page of ``status_code`` in the site's layout, saying ``why``."""
    try:
        title = http.HTTPStatus(status_code).phrase
    except ValueError:
        title = "Error"
    return render(request, "error.html", {"status": status_code, "title": title, "why": why},
                  status_code=status_code, headers=headers)


async def http_error(request: Request, exc: Exception) -> Response:
    """An ``HTTPException`` (404, 405...) as a page; its detail said when it is not only
    the status's phrase."""
    assert isinstance(exc, HTTPException)
    detail = exc.detail if exc.detail != http.HTTPStatus(exc.status_code).phrase else ""
    if exc.status_code == 404 and not detail:
        detail = "There is no page at this address."
    return error_page(request, exc.status_code, detail, headers=dict(exc.headers or {}))


async def server_error(request: Request, exc: Exception) -> Response:
    """An error of the server: logged with its traceback, shown as a page without one."""
    log.error("error while answering %s %s", request.method, request.url.path, exc_info=exc)
    try:
        return error_page(request, 500, "Something went wrong on the server; it is logged.")
    except Exception:  # the page itself cannot be made: plain words
        return Response("500 Internal Server Error: something went wrong on the server.",
                        status_code=500, media_type="text/plain")


async def login_required(request: Request, exc: Exception) -> Response:
    """:class:`LoginRequired` as a redirect to the login page, back here after it."""
    assert isinstance(exc, LoginRequired)
    return RedirectResponse("/login?" + urllib.parse.urlencode({"next": exc.next_path}),
                            status_code=303)


async def csrf_refused(request: Request, why: str) -> Response:
    """The page of a request refused for its CSRF token (403)."""
    return error_page(request, 403, f"Refused: {why}. Reload the page and send it again.")


def local_path(target: str | None, default: str = "/lobby") -> str:
    """``target`` if it is a path on this site (``/...``, not ``//host`` nor a URL with a
    scheme), else ``default``: where to go after logging in."""
    if not target or not target.startswith("/") or target.startswith(("//", "/\\")) \
            or any(c in target for c in "\r\n\\") or any(ord(c) < 32 for c in target):
        return default
    return target


def client_address(request: HTTPConnection) -> str:
    """The client's address (as a trusted proxy says, else the connection's)."""
    return request.client.host if request.client else "unknown"
