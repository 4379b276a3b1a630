"""A table's chat: who may send a line, what a line may be, at most one line a second per
user, the lines stored (``chat_lines``) and handed to every page of the table, and the
last ones a page is sent when it connects.

The database is only touched in the thread pool (``run_in_threadpool``), never on the
event loop; the rate limit is kept in the server's memory (a restart forgets it). A line
reaches the pages as ``{"type": "chat", "lines": [LINE]}`` through the hub's small
messages; the recent lines as ``{"type": "chat", "recent": true, "lines": [...]}``. Each
``LINE`` is ``{"id", "name", "text", "at"}`` (``at`` in ISO 8601, UTC); a page shows a
line's name and text as text, never as markup.
"""

from __future__ import annotations

import asyncio
import json
import logging
import unicodedata
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from referee.web.live import Hub
from referee.web.models import ChatLine, User

log = logging.getLogger(__name__)

__all__ = ["INTERVAL", "MAX_LENGTH", "RECENT", "Chat", "ChatRefused", "check_line",
           "refusal_for"]

MAX_LENGTH = 300
"""The most characters of a line (once trimmed)."""
RECENT = 50
"""How many of a table's last lines a page is sent when it connects."""
INTERVAL = 1.0
"""Seconds a user waits between two lines (any table, any page)."""
FORGET_AFTER = 1024
"""How many users' last lines are remembered before the old ones are forgotten."""


class ChatRefused(ValueError):
    """A line not sent; the message says why to the person."""


def refusal_for(user: User | None) -> str | None:
    """Why ``user`` may not chat (``None``: they may): a page logged out, or a guest."""
    if user is None:
        return "log in to chat"
    if user.is_guest:
        return "guests cannot chat: sign up to chat"
    return None


def _plain(char: str) -> str:
    """``char`` as a line keeps it: control characters and line breaks become spaces, a
    lone surrogate (which no database can store) the replacement character."""
    category = unicodedata.category(char)
    if category in ("Cc", "Zl", "Zp"):
        return " "
    if category == "Cs":
        return "\ufffd"
    return char


def check_line(text: object) -> str:
    """``text`` as a line is stored and shown (one line, trimmed), or ``ChatRefused``:
    not text, empty, or longer than ``MAX_LENGTH``."""
    if not isinstance(text, str):
        raise ChatRefused("a chat line is text")
    line = "".join(_plain(char) for char in text).strip()
    if not line:
        raise ChatRefused("an empty line is not sent")
    if len(line) > MAX_LENGTH:
        raise ChatRefused(f"a line has at most {MAX_LENGTH} characters (this one has "
                          f"{len(line)})")
    return line


def _line(line: ChatLine, name: str) -> dict[str, Any]:
    """A stored line as the pages receive it."""
    return {"id": line.id, "name": name, "text": line.text,
            "at": line.created_at.isoformat()}


class Chat:
    """The chat of the server's tables: the lines said, through ``sessions``, to the
    pages of ``hub``; each user's last line's time, for the rate limit."""

    def __init__(self, sessions: sessionmaker[Session], hub: Hub,
                 interval: float = INTERVAL) -> None:
        self.sessions = sessions
        self.hub = hub
        self.interval = interval
        self.last: dict[int, float] = {}
        """When each user's last line was taken (the event loop's clock)."""

    async def say(self, table_id: str, user: User | None, text: object) -> str | None:
        """``user``'s line ``text`` at the table: stored, then sent to every page of the
        table; the reason if it is refused (nothing is stored then)."""
        refused = refusal_for(user)
        if refused is not None:
            return refused
        assert user is not None
        try:
            line = check_line(text)
        except ChatRefused as exc:
            return str(exc)
        loop = asyncio.get_running_loop()
        now = loop.time()
        before = self.last.get(user.id)
        if before is not None and now - before < self.interval:
            return f"too fast: one line every {self.interval:g} s at most"
        self.last[user.id] = now  # (before the store: another page of theirs waits too)
        self._forget(now)
        try:
            message = await run_in_threadpool(self.store, table_id, user, line)
        except IntegrityError:
            self._undo(user.id, now, before)
            return "the table is gone"
        except SQLAlchemyError as exc:
            self._undo(user.id, now, before)
            log.warning("table %s: a chat line of %s was not stored: %s", table_id,
                        user.name, exc)
            return "the line could not be stored: try again"
        self.last[user.id] = loop.time()
        self.hub.note(table_id, None, message)
        return None

    def _undo(self, user_id: int, now: float, before: float | None) -> None:
        """Forget a line that was not stored (unless another came meanwhile)."""
        if self.last.get(user_id) == now:
            if before is None:
                del self.last[user_id]
            else:
                self.last[user_id] = before

    def _forget(self, now: float) -> None:
        """Drop the times that no longer hold anyone back, once there are many."""
        if len(self.last) > FORGET_AFTER:
            self.last = {user: at for user, at in self.last.items()
                         if now - at < self.interval}

    def store(self, table_id: str, user: User, text: str) -> str:
        """Store ``user``'s line at the table (in a thread of the pool): the message that
        carries it to the pages."""
        with self.sessions.begin() as session:
            line = ChatLine(table_id=table_id, user_id=user.id, text=text)
            session.add(line)
            session.flush()
            return json.dumps({"type": "chat", "lines": [_line(line, user.name)]})

    def recent(self, table_id: str, count: int = RECENT) -> list[dict[str, Any]]:
        """The table's last ``count`` lines, oldest first (in a thread of the pool)."""
        query = (select(ChatLine, User.name).join(User, ChatLine.user_id == User.id)
                 .where(ChatLine.table_id == table_id)
                 .order_by(ChatLine.id.desc()).limit(count))
        with self.sessions() as session:
            rows = session.execute(query).all()
        return [_line(line, name) for line, name in reversed(rows)]

    async def history(self, table_id: str) -> str | None:
        """The message of the table's recent lines for a page that connects (``None`` if
        the database cannot be read now: the page gets the new lines only)."""
        try:
            lines = await run_in_threadpool(self.recent, table_id)
        except SQLAlchemyError as exc:
            log.warning("table %s: the chat's lines could not be read: %s", table_id, exc)
            return None
        return json.dumps({"type": "chat", "recent": True, "lines": lines})
