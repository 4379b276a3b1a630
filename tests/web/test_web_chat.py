"""A table's chat line on a real server (SQLite and a real PostgreSQL), over its pages'
WebSockets: a line reaches every page of the table, players' and spectators', with its
sender's name; lines too long, empty, too soon, a guest's or a logged-out page's are
refused with the reason and stored nowhere; a page that connects gets the table's last 50
lines; and in a real browser a line with markup in it is shown as the text it is."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from table_server import Person, Server, next_message, running_server, sign_up_in_browser

from browsing import Tab
from referee.web.database import engine_for, session_factory
from referee.web.models import ChatLine, User

GAME = {"size": "9", "rule": "freestyle", "renju_judge": "rif", "person_turn": "600",
        "program_turn": "5"}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def chat_server(request: pytest.FixtureRequest,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server (guests allowed) for the module's tests, on each database."""
    options = ["--guests"]
    if request.param == "postgresql":
        options += ["--db", request.getfixturevalue("postgres").new_database()]
    with running_server(tmp_path_factory.mktemp("chat") / "data", *options) as running:
        yield running


@pytest.fixture
def browser() -> Iterator[Any]:
    """Debian's Chromium through Playwright for the one browser test only (Playwright's
    event loop, while it lives, would keep the other tests' ``asyncio.run`` from running)."""
    from browsing import chromium, playwright_api

    with chromium(playwright_api()) as running:
        yield running


def database_url(server: Server) -> str:
    """The URL of the server's database."""
    return server.db_options[1] if server.db_options else \
        f"sqlite:///{server.data / 'web.sqlite'}"


def stored(server: Server, table: str) -> list[tuple[str, str]]:
    """The table's lines in the server's database: (name, text), oldest first."""
    engine = engine_for(database_url(server))
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                sa.select(User.name, ChatLine.text).join(User, ChatLine.user_id == User.id)
                .where(ChatLine.table_id == table).order_by(ChatLine.id)).all()
        return [(name, text) for name, text in rows]
    finally:
        engine.dispose()


def a_table(server: Server, owner: str, guest: str) -> tuple[Person, Person, str]:
    """``owner``'s Gomoku table, ``guest`` sitting at its second seat (being played)."""
    first, second = server.person(owner), server.person(guest)
    table = first.open_table("gomoku", seat0="me", seat1="open", **GAME)
    assert second.post(f"/tables/{table}/sit", {"seat": "1"}, f"/tables/{table}"
                       ).status_code == 303
    return first, second, table


async def say(ws: Any, text: object) -> None:
    """Send a chat line."""
    await ws.send(json.dumps({"type": "chat", "text": text}))


async def lines_of(ws: Any) -> list[tuple[str, str]]:
    """The lines of the next chat message: (name, text)."""
    message = await next_message(ws, "chat")
    assert "recent" not in message, message
    return [(line["name"], line["text"]) for line in message["lines"]]


async def recent(ws: Any) -> list[tuple[str, str]]:
    """The recent lines a page is sent when it connects (its first chat message)."""
    message = await next_message(ws, "chat")
    assert message.get("recent") is True, message
    return [(line["name"], line["text"]) for line in message["lines"]]


async def refusal(ws: Any) -> str:
    """The reason of the next refused line."""
    return str((await next_message(ws, "chat-refused"))["reason"])


def test_a_line_reaches_the_players_and_the_spectators_with_its_name(
        chat_server: Server) -> None:
    ann, ben, table = a_table(chat_server, "ann", "ben")
    cid = chat_server.person("cid")  # a spectator, signed in
    page = cid.client.get(f"/tables/{table}").text
    assert 'id="chat-form"' in page and 'data-me="cid"' in page

    async def talk() -> list[list[tuple[str, str]]]:
        async with ann.socket(table) as a, ben.socket(table) as b, cid.socket(table) as c:
            pages = (a, b, c)
            for ws in pages:
                assert await recent(ws) == []
            heard = []
            for ws, text in ((a, "good luck, ben"), (b, "  you too\tann \n"),
                             (c, "<script>alert(1)</script> & \"quotes\"")):
                await say(ws, text)
                for other in pages:
                    heard.append(await lines_of(other))
            return heard

    heard = asyncio.run(talk())
    assert heard == [[("ann", "good luck, ben")]] * 3 + [[("ben", "you too ann")]] * 3 + \
        [[("cid", "<script>alert(1)</script> & \"quotes\"")]] * 3
    assert stored(chat_server, table) == [
        ("ann", "good luck, ben"), ("ben", "you too ann"),
        ("cid", "<script>alert(1)</script> & \"quotes\"")]


def test_lines_too_long_empty_too_soon_or_not_text_are_refused_and_not_stored(
        chat_server: Server) -> None:
    dan, eve, table = a_table(chat_server, "dan", "eve")

    async def talk() -> list[str]:
        reasons = []
        async with dan.socket(table) as d, dan.socket(table) as d2, eve.socket(table) as e:
            for ws in (d, d2, e):
                await recent(ws)
            for bad in ("x" * 301, "   \n\t ", "", 12, None, ["a list"]):
                await say(d, bad)
                reasons.append(await refusal(d))
            await d.send(json.dumps({"type": "chat"}))
            reasons.append(await refusal(d))
            await say(d, "y" * 300)  # the longest line
            assert await lines_of(d) == [("dan", "y" * 300)]
            await say(d, "too soon")
            reasons.append(await refusal(d))
            await say(d2, "too soon from another page")  # (the limit is the user's)
            reasons.append(await refusal(d2))
            await say(e, "eve is not held back by dan")
            assert await lines_of(d) == [("eve", "eve is not held back by dan")]
            await asyncio.sleep(1.1)  # (the limit is one line a second: a second passes)
            await say(d, "a second later")
            assert [await lines_of(e) for _ in range(3)] == [
                [("dan", "y" * 300)], [("eve", "eve is not held back by dan")],
                [("dan", "a second later")]]  # (eve's page heard nothing refused)
        return reasons

    reasons = asyncio.run(talk())
    assert reasons[0] == "a line has at most 300 characters (this one has 301)"
    assert reasons[1:3] == ["an empty line is not sent"] * 2
    assert reasons[3:7] == ["a chat line is text"] * 4
    assert reasons[7:] == ["too fast: one line every 1 s at most"] * 2
    assert stored(chat_server, table) == [("dan", "y" * 300),
                                          ("eve", "eve is not held back by dan"),
                                          ("dan", "a second later")]


def test_guests_and_logged_out_pages_see_the_chat_but_cannot_send(chat_server: Server) -> None:
    fay, _, table = a_table(chat_server, "fay", "gil")
    guest = Person(chat_server, "a guest")
    assert guest.post("/guest", {}, "/").status_code == 303
    assert "(guest)" in guest.client.get("/").text
    nobody = Person(chat_server, "nobody")  # not logged in
    guest_page = guest.client.get(f"/tables/{table}").text
    assert 'id="chat-form"' not in guest_page and "Guests cannot chat" in guest_page
    nobody_page = nobody.client.get(f"/tables/{table}").text
    assert 'id="chat-form"' not in nobody_page and "to chat." in nobody_page
    assert 'id="chat-lines"' in guest_page and 'id="chat-lines"' in nobody_page

    async def talk() -> list[Any]:
        async with guest.socket(table) as g, nobody.socket(table) as n, \
                fay.socket(table) as f:
            for ws in (g, n, f):
                await recent(ws)
            await say(g, "hello from a guest")
            await say(n, "hello from nobody")
            reasons = [await refusal(g), await refusal(n)]
            await say(f, "they hear me")
            return [*reasons, await lines_of(g), await lines_of(n)]

    guest_reason, nobody_reason, *heard = asyncio.run(talk())
    assert guest_reason == "guests cannot chat: sign up to chat"
    assert nobody_reason == "log in to chat"
    assert heard == [[("fay", "they hear me")]] * 2
    assert stored(chat_server, table) == [("fay", "they hear me")]


def test_a_page_that_connects_gets_the_last_50_lines(chat_server: Server) -> None:
    hal, ivy, table = a_table(chat_server, "hal", "ivy")
    _, _, other = a_table(chat_server, "jon", "kim")

    async def first() -> None:
        async with hal.socket(table) as h, ivy.socket(table) as i:
            await recent(h)
            await recent(i)
            await say(h, "first")
            assert await lines_of(i) == [("hal", "first")]
            await say(i, "second")
            assert [await lines_of(h), await lines_of(h)] == [[("hal", "first")],
                                                             [("ivy", "second")]]

    async def again(person: Person, where: str) -> list[tuple[str, str]]:
        async with person.socket(where) as ws:
            return await recent(ws)

    asyncio.run(first())
    assert asyncio.run(again(hal, table)) == [("hal", "first"), ("ivy", "second")]
    assert asyncio.run(again(ivy, other)) == []  # (another table's lines are its own)
    engine = engine_for(database_url(chat_server))  # 60 more lines, as if said
    try:
        with session_factory(engine).begin() as session:
            ivy_id = session.scalar(sa.select(User.id).where(User.name == "ivy"))
            assert ivy_id is not None
            session.add_all(ChatLine(table_id=table, user_id=ivy_id, text=f"line {n}")
                            for n in range(60))
    finally:
        engine.dispose()
    last = asyncio.run(again(ivy, table))
    assert last == [("ivy", f"line {n}") for n in range(10, 60)]
    watcher = Person(chat_server, "watcher")  # not logged in: reads them all the same
    assert asyncio.run(again(watcher, table)) == last


@pytest.mark.slow
def test_a_line_with_markup_is_shown_as_text_in_the_browser(browser: Any,
                                                             server: Server) -> None:
    writer, reader = Tab(browser), Tab(browser)  # two browser contexts: two people
    sign_up_in_browser(writer, server.url, "liv")
    page = writer.page
    page.goto(f"{server.url}/tables/new?game=gomoku")
    page.fill("input[name=size]", "9")
    page.select_option("select[name=seat0]", "me")
    page.select_option("select[name=seat1]", "open")
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*")
    table = page.url.rsplit("/", 1)[1]
    reader.page.goto(f"{server.url}/tables/{table}")  # logged out: reads, cannot send
    assert reader.page.locator("#chat-text").count() == 0
    assert "Log in to chat." in (reader.page.locator("#chat-closed").text_content() or "")
    page.wait_for_function("() => document.querySelector('#chat').dataset.lines === '0'")
    reader.page.wait_for_function(
        "() => document.querySelector('#chat').dataset.lines === '0'")
    typed = "<b>x</b> & <img src=x onerror=alert(1)>"
    page.fill("#chat-text", typed)
    page.press("#chat-text", "Enter")
    for tab in (writer, reader):
        line = tab.page.locator("#chat-lines li")
        line.first.wait_for()
        assert line.count() == 1
        assert line.locator(".chat-name").text_content() == "liv"
        assert line.locator(".chat-text").text_content() == typed
        assert tab.page.locator("#chat-lines b, #chat-lines img").count() == 0
    page.wait_for_function("() => document.querySelector('#chat-text').value === ''")
    reader.page.reload()  # the recent lines, after a reload
    reader.page.wait_for_function(
        "() => document.querySelector('#chat').dataset.lines === '1'")
    assert reader.page.locator("#chat-lines .chat-text").text_content() == typed
    assert reader.page.locator("#chat-lines b, #chat-lines img").count() == 0
    writer.shot("web-chat-writer.png")
    reader.shot("web-chat-reader.png")
    assert not writer.errors and not reader.errors, writer.errors + reader.errors
