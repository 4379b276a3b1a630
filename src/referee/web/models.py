"""The server's tables as SQLAlchemy 2 typed models: users, the programs registered on the
server, game tables, their seats and their chat lines. Times are aware datetimes in UTC on
every database."""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

__all__ = ["Base", "ChatLine", "GameTable", "Program", "TableSeat", "UTCDateTime", "User",
           "new_table_id", "utcnow"]


def utcnow() -> dt.datetime:
    """Now, in UTC (aware)."""
    return dt.datetime.now(dt.UTC)


def new_table_id() -> str:
    """A new table's id: 16 random url-safe characters."""
    return secrets.token_urlsafe(12)


class UTCDateTime(sa.TypeDecorator[dt.datetime]):
    """A point in time, stored in UTC and read back aware (SQLite keeps no time zone)."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None,
                           dialect: Dialect) -> dt.datetime | None:
        """A naive time is refused; an aware one is stored in UTC."""
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("a naive datetime cannot be stored: give its time zone")
        return value.astimezone(dt.UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> dt.datetime | None:
        """The stored time, aware, in UTC."""
        if value is None:
            return None
        assert isinstance(value, dt.datetime)
        if value.tzinfo is None:
            return value.replace(tzinfo=dt.UTC)
        return value.astimezone(dt.UTC)


class Base(DeclarativeBase):
    """The base of the server's models (their metadata is what the migrations build)."""

    type_annotation_map: ClassVar[dict[Any, Any]] = {dt.datetime: UTCDateTime()}


class User(Base):
    """An account: a person (or a guest) who plays, or the server's admin."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(40), unique=True)
    """The name as typed at sign-up, shown."""
    key: Mapped[str] = mapped_column(sa.String(40), unique=True)
    """``name.casefold()``: names are looked up (and taken) whatever their case."""
    password_hash: Mapped[str] = mapped_column(sa.String(255))
    is_admin: Mapped[bool] = mapped_column(default=False)
    is_guest: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class Program(Base):
    """A program registered on the server by its admin: it can take a seat at a table."""

    __tablename__ = "programs"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(80), unique=True)
    game: Mapped[str] = mapped_column(sa.String(40))
    command: Mapped[list[str]] = mapped_column(sa.JSON)
    owner_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


class GameTable(Base):
    """A table of one game: its settings, clocks and seats, and how its game went."""

    __tablename__ = "game_tables"

    id: Mapped[str] = mapped_column(sa.String(16), primary_key=True, default=new_table_id)
    game: Mapped[str] = mapped_column(sa.String(40))
    settings: Mapped[dict[str, Any]] = mapped_column(sa.JSON, default=dict)
    clocks: Mapped[dict[str, Any]] = mapped_column(sa.JSON, default=dict)
    status: Mapped[str] = mapped_column(sa.String(16), default="open")
    """'open', 'playing', 'finished' or 'aborted'."""
    pinch_hit: Mapped[bool] = mapped_column(default=False)
    reveal: Mapped[str] = mapped_column(sa.String(16), default="after")
    """'after' (spectators see the hidden parts once the game is over) or 'never'."""
    created_by: Mapped[int | None] = mapped_column(sa.ForeignKey("users.id"))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    started_at: Mapped[dt.datetime | None]
    finished_at: Mapped[dt.datetime | None]
    result: Mapped[str | None] = mapped_column(sa.Text)
    """The result in words."""
    record: Mapped[str | None] = mapped_column(sa.String(1024))
    """The record file's path, relative to the server's folder."""

    seats: Mapped[list[TableSeat]] = relationship(
        back_populates="table", order_by="TableSeat.index", cascade="all, delete-orphan")


class TableSeat(Base):
    """One seat of a table: open, a person, a built-in bot, a program, or a remote one."""

    __tablename__ = "table_seats"

    table_id: Mapped[str] = mapped_column(sa.ForeignKey("game_tables.id", ondelete="CASCADE"),
                                          primary_key=True)
    index: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(sa.String(16), default="open")
    """'open', 'person', 'bot', 'program' or 'remote'."""
    user_id: Mapped[int | None] = mapped_column(sa.ForeignKey("users.id"))
    bot: Mapped[str | None] = mapped_column(sa.String(80))
    """The built-in bot's or the registered program's name."""
    token: Mapped[str | None] = mapped_column(sa.String(64))
    """The invitation's or the remote program's secret."""
    name: Mapped[str | None] = mapped_column(sa.String(80))
    """The seat's name as shown."""

    table: Mapped[GameTable] = relationship(back_populates="seats")


class ChatLine(Base):
    """One line of a table's chat: who said it, when (the schema's second revision)."""

    __tablename__ = "chat_lines"
    __table_args__ = (sa.Index("ix_chat_lines_table_id", "table_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[str] = mapped_column(
        sa.ForeignKey("game_tables.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(sa.ForeignKey("users.id"))
    text: Mapped[str] = mapped_column(sa.String(300))
    """The line as shown: plain text, trimmed, one line."""
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
