"""The web server's migrations on SQLite and on a real PostgreSQL server: from empty to the
newest schema; from the previous schema (0001, the first) with rows in it, written through
SQL on its tables as 0001 made them, up to the newest (the rows kept, a chat line stored),
down to 0001 and up again; and a server started on a database left at 0001, which brings
it up to date and lists its tables in the lobby."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine
from table_server import Person, next_message, running_server

from referee.web.accounts import hasher
from referee.web.chat import Chat
from referee.web.database import alembic_config, downgrade, engine_for, session_factory, upgrade
from referee.web.live import Hub
from referee.web.models import Base, GameTable, Program, User

FIRST = {"users", "programs", "game_tables", "table_seats"}
"""The tables of the first schema (0001)."""
PASSWORD = "an-old-secret"
WHEN = dt.datetime(2026, 2, 3, 4, 5, 6, tzinfo=dt.UTC)


@pytest.fixture
def url(tmp_path: Path, db_url: str | None) -> str:
    """An empty database on each backend."""
    return db_url or f"sqlite:///{tmp_path / 'web.sqlite'}"


@pytest.fixture
def engine(url: str) -> Iterator[Engine]:
    """The database's engine (disposed at the end)."""
    made = engine_for(url)
    try:
        yield made
    finally:
        made.dispose()


def revision(engine: Engine) -> str | None:
    """The database's revision, as Alembic's table says."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def tables(engine: Engine) -> set[str]:
    """The tables in the database (the server's, and Alembic's own)."""
    return set(sa.inspect(engine).get_table_names())


def old_rows(engine: Engine) -> dict[str, Any]:
    """Rows of every table of the first schema, inserted through SQL on the tables as the
    database has them (reflected: not the models of today): an account, a program, an open
    table with a person's and an open seat, a finished one with a program's and a bot's."""
    schema = sa.MetaData()
    schema.reflect(engine, only=sorted(FIRST))
    users, programs = schema.tables["users"], schema.tables["programs"]
    game_tables, seats = schema.tables["game_tables"], schema.tables["table_seats"]
    with engine.begin() as connection:
        user_id = connection.execute(users.insert().values(
            name="Olga", key="olga", password_hash=hasher.hash(PASSWORD), is_admin=False,
            is_guest=False, created_at=WHEN).returning(users.c.id)).scalar_one()
        connection.execute(programs.insert().values(
            name="old-bot", game="gomoku", command=["./pbrain-old", "--fast"],
            owner_id=user_id, created_at=WHEN))
        common = {"game": "gomoku", "clocks": {"person": {"turn_ms": 60000, "game_ms": 0}},
                  "pinch_hit": False, "reveal": "after", "created_by": user_id,
                  "created_at": WHEN}
        connection.execute(game_tables.insert().values(
            id="old-open-table-1", settings={"size": 9, "rule": "freestyle"},
            status="open", **common))
        connection.execute(game_tables.insert().values(
            id="old-done-table-1", settings={"size": 15}, status="finished",
            started_at=WHEN, finished_at=WHEN + dt.timedelta(minutes=5),
            result="old-bot won by five in a row", **common))
        for table_id, index, kind, user, bot, token, name in (
                ("old-open-table-1", 0, "person", user_id, None, None, "Olga"),
                ("old-open-table-1", 1, "open", None, None, "an-invitation", None),
                ("old-done-table-1", 0, "program", None, "old-bot", None, "old-bot"),
                ("old-done-table-1", 1, "bot", None, "random", None, "random")):
            connection.execute(seats.insert().values(
                table_id=table_id, index=index, kind=kind, user_id=user, bot=bot,
                token=token, name=name))
    return {"user": user_id}


def check_old_rows(engine: Engine, user_id: int) -> None:
    """The rows of ``old_rows`` as the models of today read them."""
    with session_factory(engine)() as session:
        user = session.get(User, user_id)
        assert user is not None and user.name == "Olga" and not user.is_guest
        assert user.created_at == WHEN and user.created_at.utcoffset() == dt.timedelta(0)
        program = session.scalar(sa.select(Program).where(Program.name == "old-bot"))
        assert program is not None and program.command == ["./pbrain-old", "--fast"]
        assert program.owner_id == user_id
        open_table = session.get(GameTable, "old-open-table-1")
        assert open_table is not None and open_table.status == "open"
        assert open_table.settings == {"size": 9, "rule": "freestyle"}
        assert [(s.index, s.kind, s.user_id, s.token) for s in open_table.seats] == [
            (0, "person", user_id, None), (1, "open", None, "an-invitation")]
        done = session.get(GameTable, "old-done-table-1")
        assert done is not None and done.result == "old-bot won by five in a row"
        assert done.finished_at == WHEN + dt.timedelta(minutes=5)
        assert [s.name for s in done.seats] == ["old-bot", "random"]


def test_the_newest_revision_is_the_chat_lines(engine: Engine) -> None:
    script = ScriptDirectory.from_config(alembic_config(engine))
    assert script.get_current_head() == "0002"
    assert [(r.revision, r.down_revision) for r in script.walk_revisions()] == [
        ("0002", "0001"), ("0001", None)]


def test_from_empty_to_the_newest_and_back(engine: Engine) -> None:
    assert revision(engine) is None and not tables(engine) & (FIRST | {"chat_lines"})
    upgrade(engine)
    assert revision(engine) == "0002"
    assert tables(engine) >= FIRST | {"chat_lines"}
    with engine.connect() as connection:  # the models are what the migrations build
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    columns = {c["name"]: c for c in sa.inspect(engine).get_columns("chat_lines")}
    assert set(columns) == {"id", "table_id", "user_id", "text", "created_at"}
    assert not any(c["nullable"] for c in columns.values())
    keys = {(k["referred_table"], tuple(k["constrained_columns"]),
             (k.get("options") or {}).get("ondelete"))
            for k in sa.inspect(engine).get_foreign_keys("chat_lines")}
    assert keys == {("game_tables", ("table_id",), "CASCADE"), ("users", ("user_id",), None)}
    downgrade(engine, "0001")
    assert revision(engine) == "0001" and "chat_lines" not in tables(engine)
    assert tables(engine) >= FIRST
    downgrade(engine)
    assert revision(engine) is None and not tables(engine) & (FIRST | {"chat_lines"})
    upgrade(engine)
    assert revision(engine) == "0002" and "chat_lines" in tables(engine)


def test_from_the_previous_schema_its_rows_are_kept(engine: Engine) -> None:
    upgrade(engine, "0001")
    assert revision(engine) == "0001" and "chat_lines" not in tables(engine)
    user_id = old_rows(engine)["user"]
    upgrade(engine)
    assert revision(engine) == "0002"
    check_old_rows(engine, user_id)
    sessions = session_factory(engine)
    chat = Chat(sessions, Hub())
    with sessions() as session:
        olga = session.get(User, user_id)
    assert olga is not None
    chat.store("old-open-table-1", olga, "still here")
    lines = chat.recent("old-open-table-1")
    assert [(line["name"], line["text"]) for line in lines] == [("Olga", "still here")]
    assert dt.datetime.fromisoformat(lines[0]["at"]).utcoffset() == dt.timedelta(0)
    assert chat.recent("old-done-table-1") == []

    downgrade(engine, "0001")  # the chat goes; the first schema's rows stay
    assert revision(engine) == "0001" and "chat_lines" not in tables(engine)
    check_old_rows(engine, user_id)
    upgrade(engine)
    assert revision(engine) == "0002"
    check_old_rows(engine, user_id)
    assert chat.recent("old-open-table-1") == []
    chat.store("old-open-table-1", olga, "back again")
    chat.store("old-done-table-1", olga, "good game")
    with engine.begin() as connection:  # a table's lines go with it
        connection.execute(sa.text("DELETE FROM game_tables WHERE id = 'old-open-table-1'"))
    assert chat.recent("old-open-table-1") == []
    assert [line["text"] for line in chat.recent("old-done-table-1")] == ["good game"]
    with engine.connect() as connection:
        assert connection.execute(sa.text(
            "SELECT count(*) FROM table_seats WHERE table_id = 'old-open-table-1'")).scalar() == 0


def test_a_server_started_on_the_previous_schema_brings_it_up_to_date(
        tmp_path: Path, db_url: str | None) -> None:
    data = tmp_path / "data"
    data.mkdir()
    engine = engine_for(db_url or f"sqlite:///{data / 'web.sqlite'}")  # (SQLite: its own)
    try:
        server_on_old_schema(data, engine, db_url)
    finally:
        engine.dispose()


def server_on_old_schema(data: Path, engine: Engine, db_url: str | None) -> None:
    """A database made at 0001 with rows in it, then a server started on it."""
    options = ("--db", db_url) if db_url else ()
    upgrade(engine, "0001")
    user_id = old_rows(engine)["user"]
    assert revision(engine) == "0001"
    with running_server(data, *options) as server:
        assert revision(engine) == "0002"
        olga = Person(server, "Olga")
        lobby = olga.client.get("/lobby").text
        opened, finished = lobby.split('id="open"')[1], lobby.split('id="finished"')[1]
        assert "/tables/old-open-table-1" in opened.split('id="playing"')[0]
        assert "/tables/old-done-table-1" in finished
        answer = olga.post("/login", {"name": "olga", "password": PASSWORD}, "/login")
        assert answer.status_code == 303, answer.text[:500]
        page = olga.client.get("/tables/old-open-table-1")
        assert page.status_code == 200 and 'id="chat-form"' in page.text

        async def talk() -> tuple[dict[str, Any], dict[str, Any]]:
            async with olga.socket("old-open-table-1") as ws:
                recent = await next_message(ws, "chat")
                await ws.send('{"type": "chat", "text": "the old table talks"}')
                return recent, await next_message(ws, "chat")

        recent, said = asyncio.run(talk())
        assert recent == {"type": "chat", "recent": True, "lines": []}
        assert [(line["name"], line["text"]) for line in said["lines"]] == [
            ("Olga", "the old table talks")]
    check_old_rows(engine, user_id)
    with session_factory(engine)() as session:
        assert session.get(User, user_id) is not None
    assert Chat(session_factory(engine), Hub()).recent("old-open-table-1")[0]["text"] == \
        "the old table talks"
