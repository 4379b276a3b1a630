"""The web server's database on SQLite and on a real PostgreSQL server: the migrations
from empty (up to the newest, down to nothing, up again), the models matching them,
times kept in UTC, foreign keys enforced, SQLite's write-ahead log."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.exc import IntegrityError, StatementError
from sqlalchemy.orm import Session

from referee.core.errors import ConfigError
from referee.web.accounts import add_user, authenticate, create_guest
from referee.web.database import downgrade, engine_for, session_factory, upgrade
from referee.web.models import Base, GameTable, TableSeat, User, new_table_id

TABLES = {"users", "programs", "game_tables", "table_seats"}


@pytest.fixture
def url(tmp_path: Path, db_url: str | None) -> str:
    """An empty database on each backend."""
    return db_url or f"sqlite:///{tmp_path / 'web.sqlite'}"


def test_migrations_from_empty_up_down_and_up_again(url: str) -> None:
    engine = upgrade(url)
    try:
        assert set(sa.inspect(engine).get_table_names()) >= TABLES
        with engine.connect() as connection:
            assert compare_metadata(MigrationContext.configure(connection),
                                    Base.metadata) == []
        downgrade(engine)
        assert not TABLES & set(sa.inspect(engine).get_table_names())
        upgrade(engine)
        upgrade(engine)  # at the newest already: nothing to do
        assert set(sa.inspect(engine).get_table_names()) >= TABLES
    finally:
        engine.dispose()


def test_times_are_kept_in_utc_and_foreign_keys_are_enforced(url: str) -> None:
    engine = upgrade(url)
    try:
        sessions = session_factory(engine)
        east = dt.datetime(2026, 3, 1, 12, 30, tzinfo=dt.timezone(dt.timedelta(hours=2)))
        with sessions() as session:
            user = add_user(session, "Zoe", "a-long-secret", admin=True)
            table = GameTable(game="gomoku", settings={"size": 15}, created_by=user.id,
                              started_at=east)
            table.seats = [TableSeat(index=0, kind="person", user_id=user.id, name="Zoe"),
                           TableSeat(index=1, kind="bot", bot="random")]
            session.add(table)
            session.commit()
            table_id = table.id
        assert len(table_id) == 16 and table_id != new_table_id()
        with sessions() as session:
            stored = session.get(GameTable, table_id)
            assert stored is not None
            assert stored.started_at == east
            assert stored.started_at.utcoffset() == dt.timedelta(0)
            assert stored.created_at.tzinfo is not None
            assert [seat.kind for seat in stored.seats] == ["person", "bot"]
            assert stored.status == "open" and stored.reveal == "after"
            assert stored.settings == {"size": 15}
            found = session.scalar(sa.select(User).where(User.key == "zoe"))
            assert found is not None and found.is_admin and not found.is_guest
        with sessions() as session, pytest.raises(IntegrityError):
            session.add(TableSeat(table_id="no-such-table", index=0, kind="open"))
            session.commit()
        with sessions() as session, pytest.raises(StatementError, match="naive"):
            session.add(GameTable(game="gomoku", started_at=dt.datetime(2026, 1, 1)))
            session.commit()
    finally:
        engine.dispose()


def test_guests_have_no_password_and_hashes_are_argon2id(url: str) -> None:
    engine = upgrade(url)
    try:
        with Session(engine) as session:
            guest = create_guest(session)
            assert guest.is_guest and guest.name.startswith("guest-")
            assert authenticate(session, guest.name, "") is None
            assert authenticate(session, guest.name, "!") is None
            add_user(session, "yann", "a-long-secret")
            user = authenticate(session, "YANN", "a-long-secret")
            assert user is not None and user.password_hash.startswith("$argon2id$")
            assert authenticate(session, "yann", "a-long-secreT") is None
            assert authenticate(session, "nobody-here", "a-long-secret") is None
    finally:
        engine.dispose()


def test_sqlite_runs_with_a_write_ahead_log_and_foreign_keys(tmp_path: Path) -> None:
    engine = upgrade(f"sqlite:///{tmp_path / 'web.sqlite'}")
    try:
        with engine.connect() as connection:
            assert connection.execute(sa.text("PRAGMA journal_mode")).scalar() == "wal"
            assert connection.execute(sa.text("PRAGMA foreign_keys")).scalar() == 1
            assert connection.execute(sa.text("PRAGMA busy_timeout")).scalar() == 10_000
    finally:
        engine.dispose()


@pytest.mark.parametrize("url", ["", "nonsense", "oracle://x@y/z", "sqlite:///:memory:",
                                 "postgresql://127.0.0.1/"])
def test_urls_the_server_cannot_use_are_config_errors(url: str) -> None:
    with pytest.raises(ConfigError, match="--db: .*give sqlite:///PATH or postgresql://"):
        engine_for(url)
