"""What the tile games' table tests share (ICGA Mahjong's, Riichi's): their boards' files
as the server serves them, a state showing a seat's own hand only to it, and the tiles a
page draws of a seat's concealed hand."""

from __future__ import annotations

from typing import Any

from table_server import Person


def board_files_served(person: Person, game: str) -> None:
    """The game's board is served and draws with the tile boards' shared module, which
    draws with the results site's tile pictures; every file they need is served."""
    board = person.client.get(f"/games/{game}/board.js")
    assert board.status_code == 200 and "javascript" in board.headers["content-type"]
    assert 'from "/static/tileboard.js"' in board.text
    shared = person.client.get("/static/tileboard.js")
    assert shared.status_code == 200 and "javascript" in shared.headers["content-type"]
    assert 'import "/static/report/tiles.js"' in shared.text
    tiles = person.client.get("/static/report/tiles.js")
    assert tiles.status_code == 200 and "javascript" in tiles.headers["content-type"]
    for sheet in (f"/games/{game}/board.css", "/static/tileboard.css",
                  "/static/report/tiles.css"):
        answer = person.client.get(sheet)
        assert answer.status_code == 200 and answer.text.strip(), sheet


def own_hand_only(state: dict[str, Any], raw: str) -> None:
    """A seat's own hand (with its drawn tile: every tile it holds) only in its own state
    (received as ``raw``), legal answers only for the seat asked; none for a spectator."""
    view, you = state["view"], state["you"]
    if you is None:
        assert '"hand"' not in raw and '"legal"' not in raw and '"drawn"' not in raw
    else:
        assert len(view["hand"]) + (view["drawn"] is not None) == view["held"][you]
    if "legal" in view:
        assert state["table"]["asking"] == you or state["table"]["to_play"] == you


def hand_tiles(page: Any, seat: int) -> int:
    """How many tiles of ``seat``'s concealed hand (and drawn tile) the page draws."""
    return int(page.locator(f"g.tt-seat[data-seat='{seat}'] .tt-hand g.tile, "
                            f"g.tt-seat[data-seat='{seat}'] .tt-drawn g.tile").count())
