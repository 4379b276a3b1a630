"""The web server's fixtures: ``web_server``, a real ``referee web`` process on 127.0.0.1 on
each database (SQLite, and PostgreSQL: a real server this file starts once per test
session, a fresh database per test). The servers' helpers are in ``web_servers``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from table_server import Server, running_server
from web_servers import Postgres, WebServer, postgres_bin


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """A PostgreSQL server for the session; the tests that need it are skipped, saying
    why, when PostgreSQL is not installed."""
    bin_dir = postgres_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL is not installed (Debian's postgresql package: .ci/run)")
    server = Postgres(bin_dir)
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest) -> str | None:
    """Each database in turn: None (the server's own SQLite file), then a fresh
    PostgreSQL database."""
    if request.param == "sqlite":
        return None
    server: Postgres = request.getfixturevalue("postgres")
    return server.new_database()


@pytest.fixture
def web_server(tmp_path: Path, db_url: str | None) -> Iterator[WebServer]:
    """A ``referee web`` process on a free port of 127.0.0.1, on each database; stopped
    at the end of the test."""
    server = WebServer(tmp_path / "data", db_url)
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def web_site(request: pytest.FixtureRequest,
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """One ``referee web`` process for a whole test module, on each database (for tests
    that each use accounts of their own names): quicker than a server per test."""
    db_url = None
    if request.param == "postgresql":
        db_url = request.getfixturevalue("postgres").new_database()
    folder = tmp_path_factory.mktemp("site")
    server = WebServer(folder / "data", db_url)
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium through Playwright for a module's browser tests (skipped, saying
    why, without them)."""
    from browsing import chromium, playwright_api

    with chromium(playwright_api()) as running:
        yield running


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[Server]:
    """A ``referee web`` process of the test's own (its SQLite file), for the browser
    tests (a module's own ``server`` fixture takes its place)."""
    with running_server(tmp_path / "data") as running:
        yield running
