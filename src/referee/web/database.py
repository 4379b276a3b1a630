"""The server's database: an engine for its URL (SQLite by default, PostgreSQL through
psycopg 3), its sessions, and the Alembic migrations run from the package at start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError
from sqlalchemy.orm import Session, sessionmaker

from referee.core.errors import ConfigError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
"""The Alembic scripts (``env.py``, ``versions/``) shipped in the package."""

BUSY_TIMEOUT_MS = 10_000
"""How long a SQLite connection waits for another's write before it gives up."""

CONNECT_TIMEOUT_S = 5
"""How long a connection to a database server may take before it is given up."""

URL_HELP = "sqlite:///PATH or postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
"""The URLs ``--db`` takes, as said when it is given another."""


def engine_for(url: str) -> Engine:
    """An engine for ``url``: SQLite with a write-ahead log, foreign keys checked and a
    busy timeout; ``postgresql://`` (or ``postgres://``) through psycopg 3. Any other URL
    is a ``ConfigError`` that says which URLs are taken."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ConfigError(f"--db: {url!r} is not a database URL; give {URL_HELP}") from None
    backend = parsed.get_backend_name()
    if backend in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
        if parsed.database in (None, ""):
            raise ConfigError(f"--db: {shown(url)} names no database; give {URL_HELP}")
        connect_args: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT_S}
    elif backend == "sqlite":
        if parsed.drivername != "sqlite" or parsed.database in (None, "", ":memory:"):
            raise ConfigError(f"--db: {shown(url)} names no database file; give {URL_HELP}")
        connect_args = {"timeout": BUSY_TIMEOUT_MS / 1000}
    else:
        raise ConfigError(f"--db: {shown(url)} is not a database this server can use; "
                          f"give {URL_HELP}")
    try:
        engine = sa.create_engine(parsed, connect_args=connect_args, pool_pre_ping=True)
    except (ArgumentError, NoSuchModuleError, ImportError) as exc:
        raise ConfigError(f"--db: {shown(url)}: {exc}") from None
    if backend == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(connection: Any, record: Any) -> None:
    """Each new SQLite connection: write-ahead log, foreign keys, busy timeout."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    cursor.close()


def shown(url: str | sa.URL) -> str:
    """``url`` as it may be said or logged: its password hidden."""
    try:
        parsed = make_url(url) if isinstance(url, str) else url
    except ArgumentError:
        return repr(url)
    return parsed.render_as_string(hide_password=True)


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions on ``engine`` whose objects stay readable after their commit."""
    return sessionmaker(engine, expire_on_commit=False)


def check_connection(engine: Engine) -> None:
    """Connect once: a server that cannot be reached, or refuses the account, is a
    ``ConfigError`` naming the URL (its password hidden) and the server's reason."""
    try:
        with engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))
    except DBAPIError as exc:
        raise ConfigError(f"--db: cannot use the database {shown(engine.url)}: "
                          f"{reason(exc)}") from None


def reason(exc: DBAPIError) -> str:
    """The database's own words for ``exc`` on one line."""
    words = " ".join(str(exc.orig).split()) if exc.orig is not None else str(exc)
    return words or type(exc.orig).__name__


def alembic_config(engine: Engine) -> Any:
    """The Alembic configuration of the package's migrations, on ``engine`` (no
    ``alembic.ini`` needed)."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url",
                           engine.url.render_as_string(hide_password=False).replace("%", "%%"))
    config.attributes["engine"] = engine
    return config


def upgrade(target: Engine | str, revision: str = "head") -> Engine:
    """Bring the database to ``revision`` (the newest by default) and return its engine;
    a database that cannot be reached is a ``ConfigError``."""
    from alembic import command

    engine = engine_for(target) if isinstance(target, str) else target
    check_connection(engine)
    try:
        command.upgrade(alembic_config(engine), revision)
    except DBAPIError as exc:
        raise ConfigError(f"--db: the database {shown(engine.url)} cannot be brought up to "
                          f"date: {reason(exc)}") from None
    return engine


def downgrade(target: Engine | str, revision: str = "base") -> Engine:
    """Take the database back to ``revision`` (by default: empty of the server's tables)."""
    from alembic import command

    engine = engine_for(target) if isinstance(target, str) else target
    command.downgrade(alembic_config(engine), revision)
    return engine
