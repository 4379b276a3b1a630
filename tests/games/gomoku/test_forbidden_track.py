"""Tests of the incremental tracker of renju forbidden points
(``referee.games.gomoku.forbidden_track``): after every stone it must give exactly what
``renju.forbidden`` gives over every empty point of the same board."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.games.gomoku.board import BLACK, WHITE, Board, Rule
from referee.games.gomoku.forbidden_track import ForbiddenTracker
from referee.games.gomoku.renju import Forbidden, RenjuJudge, forbidden

Point = tuple[int, int]
Stone = tuple[int, int, int]


def full_scan(board: Board, judge: RenjuJudge) -> dict[Point, Forbidden]:
    """The forbidden points of ``board``: ``forbidden()`` on every empty point."""
    found = {}
    for x, y in board.empty_points():
        verdict = forbidden(board, x, y, judge)
        if verdict is not None:
            found[x, y] = verdict
    return found


def replay(width: int, height: int, stones: list[Stone], judge: RenjuJudge
           ) -> list[dict[Point, Forbidden]]:
    """Place ``stones`` one by one on a tracker and on a board; assert after each that the
    tracker agrees with a full scan. The forbidden points after each stone."""
    tracker = ForbiddenTracker(width, height, judge)
    board = Board(width, height, rule=Rule.RENJU)
    steps = []
    for x, y, color in stones:
        tracker.place(x, y, color)
        board.place(x, y, color)
        expected = full_scan(board, judge)
        assert tracker.points() == expected, (len(steps), (x, y), board.render())
        steps.append(expected)
    return steps


def far_changes(before: dict[Point, Forbidden], after: dict[Point, Forbidden],
                stone: Stone) -> int:
    """How many verdicts changed with ``stone`` at points off its four lines or more
    than five steps away on them: the changes that only the recursive double-three
    check can make."""
    x, y, _ = stone
    count = 0
    for px, py in set(before) | set(after):
        dx, dy = px - x, py - y
        near = (dx == 0 or dy == 0 or abs(dx) == abs(dy)) and max(abs(dx), abs(dy)) <= 5
        if (px, py) != (x, y) and not near and before.get((px, py)) != after.get((px, py)):
            count += 1
    return count


# -- generated games ---------------------------------------------------------------------------

MIXES = [(BLACK, WHITE), (BLACK, BLACK, WHITE), (BLACK, BLACK, BLACK, WHITE)]
"""Colour mixes of the stones: alternating, or black-heavy so that threes, fours and
overlines (and so every kind of forbidden point) are common."""


@st.composite
def clusters(draw: st.DrawFn, width: int, height: int, side: int) -> list[Stone]:
    """Stones packed in a window of 5 to ``side`` cells a side somewhere on the board (so
    often at an edge), filling two fifths to two thirds of it, in random order."""
    w = draw(st.integers(5, min(width, side)))
    h = draw(st.integers(5, min(height, side)))
    x0 = draw(st.integers(0, width - w))
    y0 = draw(st.integers(0, height - h))
    count = draw(st.integers(w * h * 2 // 5, w * h * 2 // 3))
    mix = draw(st.sampled_from(MIXES))
    points = st.tuples(st.integers(x0, x0 + w - 1), st.integers(y0, y0 + h - 1))
    placed = draw(st.lists(st.tuples(points, st.sampled_from(mix)), min_size=count,
                           max_size=count, unique_by=lambda s: s[0]))
    return [(x, y, color) for (x, y), color in placed]


@st.composite
def games(draw: st.DrawFn, width: int, height: int, side: int, most: int) -> list[Stone]:
    """Stones in order on a ``width`` x ``height`` board: one to ``most`` clusters (see
    ``clusters``), their stones interleaved (a point in two clusters keeps its first)."""
    parts = draw(st.lists(clusters(width, height, side), min_size=1, max_size=most))
    stones = list({(x, y): (x, y, c) for part in reversed(parts) for x, y, c in part}.values())
    return draw(st.permutations(stones))


SIZES = [
    pytest.param(15, 15, 9, 1, settings(max_examples=120, deadline=10_000),
                 id="15x15-one-cluster"),
    pytest.param(15, 15, 6, 3, settings(max_examples=60, deadline=10_000),
                 id="15x15-clusters"),
    pytest.param(7, 9, 9, 1, settings(max_examples=100, deadline=10_000),
                 id="7x9"),
    pytest.param(19, 19, 6, 3, settings(max_examples=40, deadline=10_000),
                 id="19x19-sparse-clusters"),
]


@pytest.mark.parametrize("judge", list(RenjuJudge))
@pytest.mark.parametrize(("width", "height", "side", "most", "bounds"), SIZES)
def test_tracker_equals_a_full_scan_after_every_stone(
        width: int, height: int, side: int, most: int, bounds: settings, judge: RenjuJudge
) -> None:
    seen: Counter[object] = Counter()

    @settings(bounds, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(games(width, height, side, most))
    def check(stones: list[Stone]) -> None:
        steps = replay(width, height, stones, judge)
        seen["games"] += 1
        kinds = {verdict for step in steps for verdict in step.values()}
        seen["with forbidden points"] += bool(kinds)
        seen.update(kinds)
        seen["changed far away"] += sum(
            far_changes(before, after, stone)
            for before, after, stone in zip(steps, steps[1:], stones[1:], strict=False))

    check()
    # The generated games must exercise the tracker: a fair share of them meet forbidden
    # points (from about half on 7x9 to most on the larger boards), of every kind, and on
    # the larger boards verdicts change away from the lines of the last stone (tens of
    # times a run; on 7x9 few points are that far, and it may happen only once or twice).
    assert seen["with forbidden points"] >= seen["games"] // 4, seen
    assert all(seen[kind] for kind in Forbidden), seen
    if width >= 15:
        assert seen["changed far away"], seen


# -- hand-made positions -----------------------------------------------------------------------


def picture(text: str, at: Point = (4, 4)) -> tuple[list[Stone], dict[str, Point]]:
    """The stones of an ASCII picture (``X`` black, ``O`` white, ``.`` empty, spaces
    ignored) with its top-left corner at ``at``, row by row; lower-case letters mark
    empty points, returned by letter."""
    stones: list[Stone] = []
    marks: dict[str, Point] = {}
    for dy, row in enumerate(text.strip("\n").replace(" ", "").splitlines()):
        for dx, char in enumerate(row):
            point = (at[0] + dx, at[1] + dy)
            if char in "XO":
                stones.append((*point, BLACK if char == "X" else WHITE))
            elif char.islower():
                marks[char] = point
            elif char != ".":
                raise ValueError(f"bad character {char!r} in a picture")
    return stones, marks


def final(text: str, judge: RenjuJudge = RenjuJudge.RIF, size: int = 15
          ) -> tuple[dict[Point, Forbidden], dict[str, Point]]:
    """The forbidden points once the stones of a picture are placed (checked against a
    full scan after every stone), and the picture's marks."""
    stones, marks = picture(text)
    return replay(size, size, stones, judge)[-1], marks


DOUBLE_THREE = """
    .......
    ...X...
    ...X...
    .XXp...
    .......
    """


def test_double_three() -> None:
    points, marks = final(DOUBLE_THREE)
    assert points[marks["p"]] is Forbidden.DOUBLE_THREE


def test_double_four() -> None:
    points, marks = final("""
        ...O...
        ...X...
        ...X...
        OXXpX..
        ...X...
        .......
        """)
    assert points[marks["p"]] is Forbidden.DOUBLE_FOUR


def test_double_four_in_one_line() -> None:
    points, marks = final("X.XpX.X")
    assert points[marks["p"]] is Forbidden.DOUBLE_FOUR


def test_overline_and_exact_five() -> None:
    # p would make six in a row; q only an exact five (O blocks the far side).
    points, marks = final("""
        XXpXXX
        ......
        OXXXXq
        """)
    assert points[marks["p"]] is Forbidden.OVERLINE
    assert marks["q"] not in points


RECURSIVE = """
    ...a...
    .X.X...
    .X.X...
    .pX.X..
    ...X...
    ...X...
    """
"""Across, ``.XX.X.`` through p is a three only through the gap q below a; down column 1,
``.XX p.`` is a three. Black at q makes an exact five down column 3 while a is empty, so
q can be played and p is a double three; a black stone at a, on none of p's lines, turns
q into an overline point: the three across is no three and p is allowed."""


def test_a_stone_off_the_lines_of_a_point_changes_its_verdict() -> None:
    stones, marks = picture(RECURSIVE)
    tracker = ForbiddenTracker(15, 15)
    for stone in stones:
        tracker.place(*stone)
    p, a = marks["p"], marks["a"]
    q = (a[0], p[1])
    assert tracker.points()[p] is Forbidden.DOUBLE_THREE
    assert q not in tracker.points()
    tracker.place(*a, BLACK)
    assert tracker.points()[q] is Forbidden.OVERLINE
    assert p not in tracker.points()
    # A white stone there instead: q stays an exact five, p stays a double three.
    steps = replay(15, 15, [*stones, (*a, WHITE)], RenjuJudge.RIF)
    assert steps[-1][p] is Forbidden.DOUBLE_THREE


def test_the_gomocup_judge_does_not_complete_a_three_with_a_five() -> None:
    # The same position before a: q completes the three across but makes a five too.
    stones, marks = picture(RECURSIVE)
    assert replay(15, 15, stones, RenjuJudge.RIF)[-1][marks["p"]] is Forbidden.DOUBLE_THREE
    assert marks["p"] not in replay(15, 15, stones, RenjuJudge.GOMOCUP)[-1]


# -- the rest of the interface -----------------------------------------------------------------


def test_copy_is_independent() -> None:
    stones, marks = picture(RECURSIVE)
    tracker = ForbiddenTracker(15, 15)
    for stone in stones:
        tracker.place(*stone)
    other = tracker.copy()
    assert (other.width, other.height, other.judge) == (15, 15, RenjuJudge.RIF)
    # Each goes on its own way: a black stone at a on the copy, a white one on the
    # original, then the same stones on both next to p.
    board, board_other = Board(15, rule=Rule.RENJU), Board(15, rule=Rule.RENJU)
    for stone in stones:
        board.place(*stone)
        board_other.place(*stone)
    p = marks["p"]
    more = [(p[0], p[1] + 1, BLACK), (p[0] - 1, p[1] + 2, WHITE), (p[0], p[1] + 3, BLACK)]
    tracker.place(*marks["a"], WHITE)
    board.place(*marks["a"], WHITE)
    other.place(*marks["a"], BLACK)
    board_other.place(*marks["a"], BLACK)
    assert tracker.points() != other.points()
    for stone in more:
        for t, b in (tracker, board), (other, board_other):
            t.place(*stone)
            b.place(*stone)
            assert t.points() == full_scan(b, RenjuJudge.RIF)


def test_points_is_a_new_dict() -> None:
    stones, marks = picture(DOUBLE_THREE)
    tracker = ForbiddenTracker(15, 15)
    for stone in stones:
        tracker.place(*stone)
    tracker.points().clear()
    assert tracker.points() == {marks["p"]: Forbidden.DOUBLE_THREE}


def test_bad_stones_are_refused_and_change_nothing() -> None:
    tracker = ForbiddenTracker(7, 9, RenjuJudge.GOMOCUP)
    tracker.place(3, 3, BLACK)
    for x, y, color in [(3, 3, WHITE), (7, 0, BLACK), (0, 9, WHITE), (-1, 0, BLACK),
                        (0, 0, 0), (0, 0, 3)]:
        with pytest.raises(ValueError):
            tracker.place(x, y, color)
    # Still the position with one stone: a full game plays on normally.
    stones = [(3, 3, BLACK), (2, 3, BLACK), (3, 4, BLACK), (3, 5, BLACK), (1, 3, BLACK)]
    for stone in stones[1:]:
        tracker.place(*stone)
    board = Board(7, 9, rule=Rule.RENJU)
    for stone in stones:
        board.place(*stone)
    assert tracker.points() == full_scan(board, RenjuJudge.GOMOCUP)
    with pytest.raises(ValueError, match="board"):
        ForbiddenTracker(4, 9)
