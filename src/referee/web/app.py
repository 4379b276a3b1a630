"""The web application: ``create_app(config)`` brings the database up to date and
assembles the middleware, the pages, the static files and every route."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from referee.web import auth_routes, table_routes
from referee.web.accounts import dummy_hash
from referee.web.config import WebConfig, prepare_folder
from referee.web.database import session_factory, upgrade
from referee.web.pages import (
    csrf_refused,
    http_error,
    login_required,
    make_templates,
    server_error,
)
from referee.web.security import (
    CsrfMiddleware,
    LoginLimiter,
    LoginRequired,
    SecurityHeadersMiddleware,
    SessionMiddleware,
)

__all__ = ["REPORT_STATIC", "STATIC", "create_app"]

STATIC = Path(__file__).resolve().parent / "static"
"""The package's static files (served at ``/static``)."""
REPORT_STATIC = Path(__file__).resolve().parent.parent / "tournament" / "report" / "static"
"""The results site's own files, served at ``/static/report``: its tile pictures
(``tiles.js``, ``tiles.css``), which the tile games' boards draw with as its replays do."""


def create_app(config: WebConfig) -> Starlette:
    """The server's application for ``config``: its folder made if missing, its database
    migrated to the newest schema (a ``ConfigError`` if it cannot be), and on
    ``app.state``: ``config``, ``engine``, ``sessions`` (a sessionmaker), ``templates``
    and ``login_limiter``.

    Middleware, outermost first: the body limit (413), the trusted proxy's headers (only
    when ``config.forwarded_allow_ips`` names proxies), the security headers, the signed
    session cookie, the CSRF check of every state-changing request."""
    prepare_folder(config.data)
    secret = config.secret_key()
    engine = upgrade(config.database_url)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        table_routes.tables_of(app)  # (the tables a stopped server was playing: at once)
        dummy_hash()  # (before the first log-in, which it would make slower)
        yield
        tables = getattr(app.state, "tables", None)
        if tables is not None:
            tables.close()  # (its worker processes)
        engine.dispose()

    middleware = [Middleware(SecurityHeadersMiddleware),
                  Middleware(SessionMiddleware, secret_key=secret),
                  Middleware(CsrfMiddleware, reject=csrf_refused)]
    if config.proxy:
        middleware.insert(0, Middleware(ProxyHeadersMiddleware,
                                        trusted_hosts=list(config.forwarded_allow_ips)))
    app = Starlette(
        routes=[*auth_routes.routes, *table_routes.routes,
                Mount("/static/report", StaticFiles(directory=REPORT_STATIC), name="report"),
                Mount("/static", StaticFiles(directory=STATIC), name="static")],
        middleware=middleware,
        exception_handlers={HTTPException: http_error, LoginRequired: login_required,
                            Exception: server_error},
        lifespan=lifespan,
        max_body_size=config.max_body,
    )
    app.state.config = config
    app.state.engine = engine
    app.state.sessions = session_factory(engine)
    app.state.templates = make_templates()
    app.state.login_limiter = LoginLimiter()
    return app
