"""Tests of the renju forbidden-point check (``referee.games.gomoku.renju``)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.games.gomoku.board import BLACK, EMPTY, WHITE, Board, Rule
from referee.games.gomoku.renju import Forbidden, RenjuJudge, forbidden, is_forbidden

Point = tuple[int, int]

# -- building positions ---------------------------------------------------------------------


def diagram(picture: str, size: int = 15, at: Point = (4, 4)) -> tuple[Board, Point]:
    """A renju board from an ASCII picture, and the point marked ``*`` in it.

    ``X`` is black, ``O`` white, ``.`` (or ``*``) empty; spaces are ignored. The picture's
    top-left corner goes at point ``at``; the rest of the board is empty.
    """
    board = Board(size, rule=Rule.RENJU)
    marked: list[Point] = []
    rows = [row.replace(" ", "") for row in picture.strip("\n").splitlines()]
    for dy, row in enumerate(rows):
        for dx, char in enumerate(row):
            x, y = at[0] + dx, at[1] + dy
            if char == "X":
                board.place(x, y, BLACK)
            elif char == "O":
                board.place(x, y, WHITE)
            elif char == "*":
                marked.append((x, y))
            elif char != ".":
                raise ValueError(f"bad character {char!r} in diagram")
    assert len(marked) == 1, "a diagram marks exactly one point with *"
    return board, marked[0]


def from_stones(width: int, height: int, stones: dict[Point, int]) -> Board:
    """A renju board of ``width`` x ``height`` with the given stones."""
    board = Board(width, height, rule=Rule.RENJU)
    for (x, y), color in stones.items():
        board.place(x, y, color)
    return board


# -- a deliberately simple reference ---------------------------------------------------------
# Written from the rules with (x, y) points and whole-board copies, sharing nothing with the
# implementation under test beyond Board.place/undo and reading stones.

DIRECTIONS: tuple[Point, ...] = ((1, 0), (0, 1), (1, 1), (1, -1))


def black_run(board: Board, p: Point, d: Point) -> frozenset[Point]:
    """The points of the black run through black point ``p`` along ``d``."""
    points = {p}
    for sign in (1, -1):
        x, y = p
        while True:
            x, y = x + sign * d[0], y + sign * d[1]
            if not board.on_board(x, y) or board[x, y] != BLACK:
                break
            points.add((x, y))
    return frozenset(points)


def line_empties(board: Board, p: Point, d: Point, reach: int) -> list[Point]:
    """Empty points of the board on the line through ``p`` along ``d``, within ``reach``."""
    out = []
    for k in range(-reach, reach + 1):
        q = (p[0] + k * d[0], p[1] + k * d[1])
        if k and board.is_empty(*q):
            out.append(q)
    return out


def five_groups(
    board: Board, p: Point, d: Point, must: Iterable[Point] = ()
) -> dict[frozenset[Point], set[Point]]:
    """Fours through ``p`` (and ``must``) along ``d``: four stones -> points making five."""
    groups: dict[frozenset[Point], set[Point]] = {}
    for r in line_empties(board, p, d, 4):
        board.place(*r, BLACK)
        run = black_run(board, p, d)
        board.undo()
        if len(run) == 5 and r in run and all(m in run for m in must):
            groups.setdefault(run - {r}, set()).add(r)
    return groups


def reference(board: Board, x: int, y: int, judge: RenjuJudge = RenjuJudge.RIF
              ) -> Forbidden | None:
    """The renju verdict for black at empty ``(x, y)``, by brute force. With the Gomocup
    judge a straight-four point that makes an exact five cannot complete a three."""
    p = (x, y)
    b = board.copy()
    b.place(x, y, BLACK)
    runs = [len(black_run(b, p, d)) for d in DIRECTIONS]
    if 5 in runs:
        return None
    if max(runs) > 5:
        return Forbidden.OVERLINE
    if sum(len(five_groups(b, p, d)) for d in DIRECTIONS) >= 2:
        return Forbidden.DOUBLE_FOUR
    threes = 0
    for d in DIRECTIONS:
        for q in line_empties(b, p, d, 5):
            b.place(*q, BLACK)
            straight = any(len(r) >= 2 for r in five_groups(b, p, d, must=[q]).values())
            five = any(len(black_run(b, q, e)) == 5 for e in DIRECTIONS)
            b.undo()
            if judge is RenjuJudge.GOMOCUP and five:
                continue
            if straight and reference(b, *q, judge) is None:
                threes += 1
                break
    return Forbidden.DOUBLE_THREE if threes >= 2 else None


def naive_threes(board: Board, x: int, y: int) -> int:
    """Directions with a three through ``(x, y)`` if straight-four points were never
    forbidden (to tell positions where the recursion matters)."""
    p = (x, y)
    b = board.copy()
    b.place(x, y, BLACK)
    count = 0
    for d in DIRECTIONS:
        for q in line_empties(b, p, d, 5):
            b.place(*q, BLACK)
            straight = any(len(r) >= 2 for r in five_groups(b, p, d, must=[q]).values())
            b.undo()
            if straight:
                count += 1
                break
    return count


def check(picture: str, expected: Forbidden | None, at: Point = (4, 4),
          judge: RenjuJudge = RenjuJudge.RIF) -> None:
    """Assert the verdict of the marked point of ``picture``, and that the reference agrees."""
    board, (x, y) = diagram(picture, at=at)
    assert forbidden(board, x, y, judge) is expected, "\n" + board.render()
    assert reference(board, x, y, judge) is expected, "reference disagrees\n" + board.render()
    assert is_forbidden(board, x, y, judge) is (expected is not None)


# -- hand-built positions --------------------------------------------------------------------


def test_simple_double_three() -> None:
    check(
        """
        .......
        ...X...
        ...X...
        .XX*...
        .......
        """,
        Forbidden.DOUBLE_THREE,
    )


def test_double_three_with_one_three_blocked_by_white_is_allowed() -> None:
    check(
        """
        .......
        ...X...
        ...X...
        OXX*...
        .......
        """,
        None,
    )


def test_split_threes() -> None:
    # .X.XX. across and down: both are threes (the gap makes a straight four).
    check(
        """
        .......
        ...X...
        .......
        .X.*X..
        ...X...
        .......
        """,
        Forbidden.DOUBLE_THREE,
    )


def test_split_three_blocked_is_not_a_three() -> None:
    # OX.XX. : filling the gap gives OXXXX. , a four but not a straight one.
    check(
        """
        .......
        ...X...
        ...X...
        OX.*X..
        .......
        """,
        None,
    )


def test_double_four_in_two_lines() -> None:
    check(
        """
        ...O...
        ...X...
        ...X...
        OXX*X..
        ...X...
        .......
        """,
        Forbidden.DOUBLE_FOUR,
    )


@pytest.mark.parametrize("row", ["X.X*X.X", "XX.*X.XX", "XX.X*.XX", "XXX.*.XXX"])
def test_double_four_in_one_line(row: str) -> None:
    # Each gap completes an exact five with different stones: two fours in one line.
    check(row, Forbidden.DOUBLE_FOUR)


@pytest.mark.parametrize("row", [".XXX*.", "OXX*X.", "X.X*X.O", "X.X*X..X"])
def test_single_four_in_one_line_is_allowed(row: str) -> None:
    # .XXXX. is one (straight) four though two points complete it; in X.XXX.O and
    # X.XXX..X only one gap gives an exact five.
    check(row, None)


def test_overline() -> None:
    check("XX*XXX", Forbidden.OVERLINE)
    check("XXXXX*", Forbidden.OVERLINE)


def test_exact_five_beats_overline_in_another_line() -> None:
    check(
        """
        ..X....
        ..X....
        XX*XXX.
        ..X....
        ..X....
        ..O....
        """,
        None,
    )


def test_exact_five_beats_double_four() -> None:
    five_and_fours = """
        .........
        .X..X....
        ..X.X....
        ...XX....
        XXXX*....
        .........
        """
    check(five_and_fours, None)
    # The same fours without the five: forbidden.
    check(five_and_fours.replace("XXXX*", "OXXX*"), Forbidden.DOUBLE_FOUR)


def test_four_three_is_allowed() -> None:
    check(
        """
        .........
        ....X....
        ....X....
        OXXX*....
        .........
        """,
        None,
    )


def test_four_three_three_is_a_double_three() -> None:
    check(
        """
        .........
        ....X.X..
        ....XX...
        OXXX*....
        .........
        """,
        Forbidden.DOUBLE_THREE,
    )


def test_three_blocked_by_the_edge() -> None:
    picture = """
        .....
        ..X..
        ..X..
        XX*..
        .....
        """
    # |XXX.. is not a three (the edge blocks it like a white stone)...
    check(picture, None, at=(0, 4))
    # ...but |.XXX.. is one: the straight four .XXXX. has room on both sides.
    check(picture, Forbidden.DOUBLE_THREE, at=(1, 4))


def test_three_whose_straight_four_would_be_an_overline_is_not_a_three() -> None:
    picture = """
        .........
        ....X....
        ....X....
        X..X*X..X
        .........
        """
    check(picture, None)
    check(picture.replace("X..X*X..X", "...X*X..."), Forbidden.DOUBLE_THREE)


def test_recursive_straight_four_point_is_an_overline() -> None:
    # Across, .XX.X. is a three only through the gap q = (3, 3); but black at q makes an
    # overline down the column, so q is forbidden and that three is not a real one.
    check(
        """
        ...X...
        .X.X...
        .X.X...
        .*X.X..
        ...X...
        ...X...
        .......
        """,
        None,
    )
    check(
        """
        .......
        .X.....
        .X.....
        .*X.X..
        .......
        .......
        .......
        """,
        Forbidden.DOUBLE_THREE,
    )


def test_recursive_straight_four_point_is_a_double_four() -> None:
    check(
        """
        ...O...
        ...X...
        .X.X...
        .X.X...
        .*X.X..
        ....X..
        .....X.
        ......X
        .......
        """,
        None,
    )


def test_recursive_straight_four_point_is_a_double_three() -> None:
    # q = (3, 4) would make a straight four plus two threes (4-3-3): forbidden.
    check(
        """
        .......
        .......
        .X.X...
        .X.X...
        .*X.X..
        ....X..
        .....X.
        .......
        """,
        None,
    )


def test_recursive_straight_four_point_is_fine() -> None:
    # q = (3, 4) makes a straight four and one three (4-3): allowed, so both threes count.
    check(
        """
        .......
        .......
        .X.X...
        .X.X...
        .*X.X..
        ....X..
        .......
        .......
        """,
        Forbidden.DOUBLE_THREE,
    )


def test_three_counts_when_one_of_its_two_points_is_allowed() -> None:
    # Across, ..XXX.. has two straight-four points: (1, 3) is an overline point for black,
    # (5, 3) is fine, so it is a three; with (5, 3) blocked by white it is not.
    picture = """
        .X.......
        .X..X....
        .X..X....
        ..XX*....
        .X.......
        .X.......
        .........
        """
    check(picture, Forbidden.DOUBLE_THREE)
    check(picture.replace("..XX*....", "..XX*.O.."), None)


# -- the Gomocup judge: a straight-four point that makes a five completes no three ---------

OUTER = """
    .........
    ....X....
    ....X....
    O.XX*....
    .....X...
    .....X...
    .....X...
    .....X...
    .........
    """
"""Across, O.XX*.. is a three only through q = (5, 3), where black also makes an exact five
down the column: a three for RIF (q is not forbidden), none for the Gomocup judge. With
the three above * in the column, * is a double three for RIF only."""

NESTED = """
    ..........
    ..........
    ....XX.XX.
    ....XXX.X.
    O.XX*...X.
    ........X.
    ...O......
    """
"""One level down: across, O.XX*... is a three only through q = (5, 4). At q black would
make a straight four, a three down column 5 and a three on the rising diagonal whose only
straight-four point r = (8, 1) makes a five down column 8. RIF counts that last three, so
q is a double three (forbidden), the three through q is no three, and * is allowed; the
Gomocup judge does not count it, so q is fine and * is a double three."""


def test_gomocup_judge_outer_three_completed_by_a_five() -> None:
    check(OUTER, Forbidden.DOUBLE_THREE, judge=RenjuJudge.RIF)
    check(OUTER, None, judge=RenjuJudge.GOMOCUP)


def test_gomocup_judge_nested_three_completed_by_a_five() -> None:
    check(NESTED, None, at=(3, 3), judge=RenjuJudge.RIF)
    check(NESTED, Forbidden.DOUBLE_THREE, at=(3, 3), judge=RenjuJudge.GOMOCUP)


def test_renju_judge_names() -> None:
    assert RenjuJudge.parse(" GomoCup ") is RenjuJudge.GOMOCUP
    assert RenjuJudge.parse("rif") is RenjuJudge.RIF
    with pytest.raises(ValueError, match="expected rif or gomocup"):
        RenjuJudge.parse("piskvork")


def test_bad_points_are_rejected() -> None:
    board, (x, y) = diagram("X*")
    with pytest.raises(ValueError):
        forbidden(board, x - 1, y)
    with pytest.raises(ValueError):
        forbidden(board, -1, 0)
    with pytest.raises(ValueError):
        forbidden(board, 15, 0)


# -- properties ------------------------------------------------------------------------------


@st.composite
def positions(draw: st.DrawFn, square: bool = False, max_size: int = 13) -> Board:
    """A board with a fair number of stones, often mostly black, so that threes and fours
    (and forbidden points of every kind) are common."""
    width = draw(st.integers(5, max_size))
    height = width if square else draw(st.integers(5, max_size))
    count = draw(st.integers(width * height // 8, width * height // 2))
    mix = draw(st.sampled_from([(BLACK, WHITE), (BLACK, BLACK, WHITE), (BLACK,) * 3 + (WHITE,)]))
    points = st.tuples(st.integers(0, width - 1), st.integers(0, height - 1))
    stones = draw(st.lists(st.tuples(points, st.sampled_from(mix)), min_size=count, max_size=count))
    return from_stones(width, height, dict(stones))


def empties(board: Board) -> list[Point]:
    return list(board.empty_points())


FAST = settings(max_examples=150, deadline=10_000, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(positions())
def test_forbidden_does_not_change_the_board(board: Board) -> None:
    cells, moves = bytes(board.cells), list(board.moves)
    for x, y in empties(board):
        forbidden(board, x, y)
    assert bytes(board.cells) == cells
    assert board.moves == moves


@settings(max_examples=200, deadline=10_000, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_agrees_with_the_reference(board: Board) -> None:
    for x, y in empties(board):
        assert forbidden(board, x, y) is reference(board, x, y), (x, y, board.render())


@FAST
@given(positions())
def test_gomocup_judge_agrees_with_the_reference(board: Board) -> None:
    judge = RenjuJudge.GOMOCUP
    for x, y in empties(board):
        assert forbidden(board, x, y, judge) is reference(board, x, y, judge), (
            x, y, board.render())


SYMMETRIES: tuple[Callable[[int, int, int], Point], ...] = (
    lambda n, x, y: (x, y),
    lambda n, x, y: (n - 1 - x, y),
    lambda n, x, y: (x, n - 1 - y),
    lambda n, x, y: (n - 1 - x, n - 1 - y),
    lambda n, x, y: (y, x),
    lambda n, x, y: (n - 1 - y, x),
    lambda n, x, y: (y, n - 1 - x),
    lambda n, x, y: (n - 1 - y, n - 1 - x),
)


@FAST
@given(positions(square=True, max_size=12))
def test_verdict_is_invariant_under_the_board_symmetries(board: Board) -> None:
    n = board.width
    stones = {(x, y): board[x, y] for x, y, _ in board.stones()}
    verdicts = {p: forbidden(board, *p) for p in empties(board)}
    for symmetry in SYMMETRIES[1:]:
        image = from_stones(n, n, {symmetry(n, x, y): c for (x, y), c in stones.items()})
        for (x, y), verdict in verdicts.items():
            assert forbidden(image, *symmetry(n, x, y)) is verdict


@FAST
@given(positions(square=True, max_size=12), st.data())
def test_an_exact_five_is_never_forbidden(board: Board, data: st.DataObject) -> None:
    # Force a five through a chosen point: four black stones on one line, and two white
    # stones just past its ends (or the edge) so that it is exactly five.
    n = board.width
    dx, dy = data.draw(st.sampled_from(DIRECTIONS))
    stones = {(x, y): board[x, y] for x, y, _ in board.stones()}
    starts = [(x, y) for x in range(n) for y in range(n) if board.on_board(x + 4 * dx, y + 4 * dy)]
    x0, y0 = data.draw(st.sampled_from(starts))
    line = [(x0 + k * dx, y0 + k * dy) for k in range(5)]
    p = data.draw(st.sampled_from(line))
    for q in line:
        stones.pop(q, None)
        if q != p:
            stones[q] = BLACK
    for k in (-1, 5):
        end = (x0 + k * dx, y0 + k * dy)
        if board.on_board(*end):
            stones[end] = WHITE
    five = from_stones(n, n, stones)
    assert five.makes_win(*p, BLACK)
    assert forbidden(five, *p) is None


def test_agrees_with_the_reference_on_mid_game_positions() -> None:
    # Seeded 15x15 positions, stones gathered round the centre as in real games; every
    # empty point next to a stone is checked. The sweep must meet every kind of verdict,
    # and threes that the recursion turns down.
    rng = random.Random(20240611)
    seen: dict[object, int] = {}
    for _ in range(40):
        stones: dict[Point, int] = {}
        for k in range(rng.randint(30, 80)):
            x = min(14, max(0, round(rng.gauss(7, 3))))
            y = min(14, max(0, round(rng.gauss(7, 3))))
            stones[x, y] = BLACK if k % 2 == 0 else WHITE
        board = from_stones(15, 15, stones)
        for x, y in empties(board):
            near = any(
                board.on_board(x + i, y + j) and board[x + i, y + j] != EMPTY
                for i in (-1, 0, 1)
                for j in (-1, 0, 1)
            )
            if not near:
                continue
            verdict = forbidden(board, x, y)
            assert verdict is reference(board, x, y), (x, y, board.render())
            seen[verdict] = seen.get(verdict, 0) + 1
            if verdict is None and naive_threes(board, x, y) >= 2:
                seen["saved by recursion"] = seen.get("saved by recursion", 0) + 1
    assert set(seen) == {None, *Forbidden, "saved by recursion"}, seen


def test_no_line_is_both_a_four_and_a_three() -> None:
    # renju.py relies on it: a line through the point is a four, a three, or neither.
    from itertools import product

    from referee.games.gomoku.renju import _analyse

    for cells in product((EMPTY, BLACK, WHITE), repeat=10):
        _, fours, three_points = _analyse(bytes((*cells[:5], EMPTY, *cells[5:])))
        assert not (fours and three_points), cells
