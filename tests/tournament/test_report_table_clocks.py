"""A web game's clocks on the results site: the web server's store (``web.game_stores``,
as ``referee web`` commits a table's game) holds a record whose ``settings.table_clocks``
says each seat's limits in milliseconds; ``build_site`` writes its page with a line per
seat in the site's words and units, and nothing of the kind for a record without them
(as a tournament's are)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from referee.core.outcome import Outcome
from referee.core.record import GameRecord, PlayerInfo
from referee.tournament.report import build_site
from referee.web.game_stores import GameStores

CLOCKS = [{"turn_ms": 60_000, "game_ms": None, "tolerance_ms": 1000},  # a person's 60 s
          {"turn_ms": 5000, "game_ms": 150_000, "tolerance_ms": 1000}]  # a program's
"""Two seats' clocks as the web server writes them (``LiveTable.clocks``)."""


def gomoku_record(players: tuple[str, str], **settings: Any) -> GameRecord:
    """A short Gomoku game on a 9x9 board, which white resigns."""
    record = GameRecord("gomoku", [PlayerInfo(name, ["bot"]) for name in players],
                        settings={"width": 9, "height": 9, "rule": "freestyle",
                                  "black": 0, "colors": ["black", "white"], **settings})
    for ply, move in enumerate(["4,4", "3,3", "5,5"]):
        record.add_move(ply % 2, move, 0.25)
    record.finish([1.0, 0.0], Outcome.RESIGNED, "white resigned", 1)
    return record


def settings_of(page: str) -> dict[str, list[str] | str]:
    """The Settings section of a game page: each label with its text or its items."""
    section = page.split('<h2 id="settings">', 1)[1]
    found: dict[str, list[str] | str] = {}
    for label, value in re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", section, re.S):
        items = re.findall(r"<li>(.*?)</li>", value, re.S)
        found[label] = items if items else value
    return found


def test_a_web_games_page_shows_each_seats_clock(tmp_path: Path) -> None:
    data = tmp_path / "server"
    stores = GameStores(data)
    try:
        stores.commit("gomoku", "web1", gomoku_record(("alice", "random"),
                                                      table_clocks=CLOCKS))
        stores.commit("gomoku", "web2", gomoku_record(("bob", "random")))
    finally:
        stores.close()
    index = build_site(data / "stores" / "gomoku", tmp_path / "site")
    pages = {}
    for path in sorted((index.parent / "games").glob("*.html")):
        text = path.read_text(encoding="utf-8")
        title = re.search(r"<h1>(.*?)</h1>", text)
        assert title, path
        pages[title.group(1).split(": ", 1)[1]] = text
    assert set(pages) == {"alice vs random", "bob vs random"}
    web = settings_of(pages["alice vs random"])
    assert web["Clocks by seat"] == [
        "Seat 1: time per move 60 s, time per game none, time tolerance 1 s",
        "Seat 2: time per move 5 s, time per game 2 min 30 s, time tolerance 1 s"], web
    assert web["Board width"] == "9"  # the game's own settings, as before
    ordinary = settings_of(pages["bob vs random"])
    assert ordinary["Board width"] == "9" and not any(
        "clock" in label.lower() for label in ordinary), ordinary
    assert "60000" not in pages["alice vs random"]  # never the raw milliseconds
