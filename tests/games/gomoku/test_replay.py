"""The Gomoku replay view: one step per move, stones where and of the colour they were
played, opening stones in the background, last move and winning line marked."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from referee.core.outcome import Outcome
from referee.core.record import GameRecord, PlayerInfo
from referee.core.replay import ReplayView
from referee.games.gomoku.replay import CELL, MARGIN, gomoku_replay
from referee.games.registry import game_adapters

Stone = tuple[int, int, str, str | None]
"""(x, y, colour, number shown or None)."""


def parse(fragment: str) -> ET.Element:
    return ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{fragment}</svg>')


def point(element: ET.Element, x: str = "cx", y: str = "cy") -> tuple[int, int]:
    px, py = int(float(element.get(x, "0"))), int(float(element.get(y, "0")))
    assert (px - MARGIN) % CELL == 0 and (py - MARGIN) % CELL == 0
    return (px - MARGIN) // CELL, (py - MARGIN) // CELL


def stones(fragment: str) -> list[Stone]:
    """The stones of a fragment with their colour and their number (if any)."""
    root = parse(fragment)
    numbers = {point(t, "x", "y"): t.text for t in root.iter() if t.tag.endswith("text")
               and "gk-n" in t.get("class", "")}
    found = []
    for circle in root.iter():
        classes = circle.get("class", "").split()
        if circle.tag.endswith("circle") and "stone" in classes:
            colour = "black" if "gk-b" in classes else "white" if "gk-w" in classes else "?"
            where = point(circle)
            found.append((*where, colour, numbers.get(where)))
    return found


def record(moves: list[tuple[int, str]], opening: list[list[int]] | None = None,
           **settings: object) -> GameRecord:
    r = GameRecord("gomoku", [PlayerInfo("alice"), PlayerInfo("bob")],
                   settings={"width": 9, "height": 9, "black": 0, **settings},
                   opening=opening or [])
    for seat, move in moves:
        r.add_move(seat, move, 0.01)
    return r


def test_one_step_per_move_with_numbered_stones_and_colours() -> None:
    moves = [(0, "4,4"), (1, "3,3"), (0, "5,4"), (1, "3,4"), (0, "6,4"), (1, "3,5"),
             (0, "7,4"), (1, "3,6"), (0, "8,4")]
    r = record(moves, win_line=[[4, 4], [5, 4], [6, 4], [7, 4], [8, 4]],
               colors=["black", "white"])
    view = gomoku_replay(r)
    assert isinstance(view, ReplayView)
    assert len(view.steps) == len(r.moves)
    assert view.roles == ("black", "white")
    assert [s.seat for s in view.steps] == [m.seat for m in r.moves]
    assert [s.text for s in view.steps] == ["e5", "d4", "f5", "d5", "g5", "d6", "h5", "d7",
                                            "i5"]  # letters, then numbers from 1
    assert view.width == view.height == 2 * MARGIN + 8 * CELL
    placed = [stones(s.svg) for s in view.steps]
    assert placed == [[(4, 4, "black", "1")], [(3, 3, "white", "2")], [(5, 4, "black", "3")],
                      [(3, 4, "white", "4")], [(6, 4, "black", "5")], [(3, 5, "white", "6")],
                      [(7, 4, "black", "7")], [(3, 6, "white", "8")], [(8, 4, "black", "9")]]
    assert stones(view.background) == [] and stones(view.base) == []
    # the mark of each step rings its own stone; the last one also draws the winning line
    for step, move in zip(view.steps, r.moves, strict=True):
        rings = [point(c) for c in parse(step.mark).iter()
                 if "gk-last" in c.get("class", "")]
        assert rings == [tuple(int(v) for v in move.move.split(","))]
    win = [e for e in parse(view.steps[-1].mark).iter() if "gk-win" in e.get("class", "")]
    assert len(win) == 1
    assert {point(win[0], "x1", "y1"), point(win[0], "x2", "y2")} == {(4, 4), (8, 4)}
    assert all("gk-win" not in s.mark for s in view.steps[:-1])
    # frames: base + background + steps 1..k + the mark of step k
    assert len(stones(view.frame(0))) == 0
    assert len(stones(view.frame(3))) == 3
    assert "gk-win" in view.frame(9) and "gk-win" not in view.frame(8)
    assert view.svg().startswith("<svg") and "<style>" in view.svg()


def test_opening_stones_are_in_the_background_and_colours_continue_after_them() -> None:
    r = record([(0, "0,0"), (1, "8,8")], opening=[[4, 4], [4, 5], [5, 5]])
    view = gomoku_replay(r)
    assert sorted(stones(view.background)) == [(4, 4, "black", None), (4, 5, "white", None),
                                               (5, 5, "black", None)]
    # three opening stones: the first move is white's, numbered 1
    assert stones(view.steps[0].svg) == [(0, 0, "white", "1")]
    assert stones(view.steps[1].svg) == [(8, 8, "black", "2")]
    assert view.steps[0].text == "a1" and view.steps[1].text == "i9"


def test_swap2_stones_swap_and_an_illegal_move() -> None:
    r = record([(0, "4,4 5,5 4,5"), (1, "SWAP"), (0, "6,6"), (1, "4,4")],
               black=None, swap2_first=0, swap2=True, colors=["white", "black"])
    r.moves[-1].info["illegal"] = True  # as the referee loop records it: on a stone
    view = gomoku_replay(r)
    assert len(view.steps) == 4
    assert stones(view.steps[0].svg) == [(4, 4, "black", "1"), (5, 5, "white", "2"),
                                         (4, 5, "black", "3")]
    assert view.steps[1].svg == "" and view.steps[1].note == "swap"
    assert [s.text for s in view.steps] == ["e5 f6 e6", "SWAP", "g7", "e5"]
    assert stones(view.steps[2].svg) == [(6, 6, "white", "4")]
    illegal = view.steps[3]
    assert illegal.note == "illegal" and stones(illegal.svg) == []
    cross = [e for e in parse(illegal.svg).iter() if "gk-x" in e.get("class", "")]
    assert len(cross) == 1
    assert view.roles == ("white", "black")


def test_rectangular_board_coordinates_are_labelled() -> None:
    r = record([(0, "11,2")], width=12, height=7)
    view = gomoku_replay(r)
    assert (view.width, view.height) == (2 * MARGIN + 11 * CELL, 2 * MARGIN + 6 * CELL)
    labels = [t.text for t in parse(view.base).iter() if "gk-lbl" in t.get("class", "")]
    assert labels == list("abcdefghijkl") + [str(y) for y in range(1, 8)]
    assert stones(view.steps[0].svg) == [(11, 2, "black", "1")]


def test_the_base_is_the_board_alone_the_same_for_every_game_of_its_size() -> None:
    """What the site keeps once for all pages (static/shared/): no stone, no game's text."""
    a = gomoku_replay(record([(0, "4,4"), (1, "3,3")], opening=[[1, 1]]))
    b = gomoku_replay(record([(0, "0,0")], win_line=[[0, 0]], rule="renju"))
    assert a.base == b.base and a.style == b.style
    assert "gk-board" in a.base and "gk-grid" in a.base and stones(a.base) == []
    assert a.base != gomoku_replay(record([], width=11, height=11)).base
    assert a.frame(0).startswith(a.base) and stones(a.frame(0)) == [(1, 1, "black", None)]


def test_the_adapter_offers_the_replay_and_refuses_other_games() -> None:
    adapter = game_adapters()["gomoku"]
    view = adapter.replay(record([(0, "4,4")]))
    assert len(view.steps) == 1
    other = GameRecord("chess", [PlayerInfo("a"), PlayerInfo("b")])
    with pytest.raises(ValueError, match="not a gomoku record"):
        adapter.replay(other)


def test_a_game_lost_before_the_first_move_has_no_steps() -> None:
    r = record([])
    r.finish([0.0, 1.0], Outcome.CRASH, "alice: crashed", 0)
    view = gomoku_replay(r)
    assert view.steps == () and view.frame(5) == view.base + view.background


def test_columns_past_z_and_point_names() -> None:
    from referee.games.gomoku.board import column, point_name

    assert [column(x) for x in (0, 7, 25, 26, 31)] == ["a", "h", "z", "aa", "af"]
    assert point_name(7, 7) == "h8" and point_name(0, 0) == "a1"
    assert point_name(19, 19) == "t20"


def forbidden_marks(fragment: str) -> tuple[set[tuple[int, int]], str]:
    """The points crossed as forbidden for black in a step's mark, and their hover text."""
    crossed: set[tuple[int, int]] = set()
    title = ""
    for path in parse(fragment).iter():
        if path.tag.endswith("path") and path.get("class") == "gk-forbid":
            for start in path.get("d", "").split("M")[1:]:
                x, y = (int(v) for v in start.split("l")[0].split(","))
                d = CELL // 5
                crossed.add(((x + d - MARGIN) // CELL, (y + d - MARGIN) // CELL))
            title = "".join(t.text or "" for t in path if t.tag.endswith("title"))
    return crossed, title


@pytest.mark.parametrize("judge", ["rif", "gomocup"])
def test_renju_forbidden_points_are_crossed_when_black_is_to_move(judge: str) -> None:
    from referee.games.gomoku.board import Board, Rule
    from referee.games.gomoku.renju import RenjuJudge, forbidden

    # black builds two twos that cross at 7,7 (a double three), then an overline threat
    moves = ["8,7", "0,0", "9,7", "14,0", "7,8", "0,14", "7,9", "14,14", "2,3", "1,0",
             "3,3", "2,0", "4,3", "5,14", "6,3", "13,0", "7,3", "12,0"]
    game = record([(k % 2, m) for k, m in enumerate(moves)], width=15, height=15,
                  rule="renju", renju_judge=judge)
    view = gomoku_replay(game)
    board = Board(15, 15, Rule.RENJU)
    seen = 0
    for k, (move, step) in enumerate(zip(moves, view.steps, strict=True)):
        x, y = (int(v) for v in move.split(","))
        board.place(x, y)
        crossed, title = forbidden_marks(step.mark)
        if k % 2 == 0:  # black just played: white to move, nothing crossed
            assert crossed == set()
            continue
        expected = {(px, py): why for px, py in board.empty_points()
                    if (why := forbidden(board, px, py, RenjuJudge.parse(judge))) is not None}
        assert crossed == set(expected)
        for (px, py), why in expected.items():
            assert f"{'abcdefghijklmno'[px]}{py + 1} ({why.value})" in title
        seen += len(expected)
    assert (7, 7) in forbidden_marks(view.steps[7].mark)[0]  # the double three
    assert "h8 (double-three)" in forbidden_marks(view.steps[7].mark)[1]
    assert (5, 3) in forbidden_marks(view.steps[-1].mark)[0]  # f4 would make six: overline
    assert seen >= 3
    freestyle = gomoku_replay(record([(k % 2, m) for k, m in enumerate(moves)], width=15,
                                     height=15, rule="freestyle"))
    assert all("gk-forbid" not in step.mark for step in freestyle.steps)
