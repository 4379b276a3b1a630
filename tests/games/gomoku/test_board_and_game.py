"""The pure Gomoku engine: winning rules per variant, the game flow, swap2 colours."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.gomoku.board import BLACK, EMPTY, PAD, WHITE, Board, Rule
from referee.games.gomoku.game import GomokuGame, Move, Phase, Stones, Swap


def line_board(rule: Rule, row: str, color: int = BLACK) -> Board:
    """A 15x15 board with ``row`` (X own colour, O other, . empty) on line 7 from x=0."""
    board = Board(15, rule=rule)
    other = WHITE if color == BLACK else BLACK
    for x, ch in enumerate(row):
        if ch == "X":
            board.place(x, 7, color)
        elif ch == "O":
            board.place(x, 7, other)
    return board


@pytest.mark.parametrize(
    ("rule", "row", "point", "color", "wins"),
    [
        (Rule.FREESTYLE, ".XXXX.", 5, BLACK, True),
        (Rule.FREESTYLE, "XXXXX.", 5, BLACK, True),  # overline wins in freestyle
        (Rule.EXACT5, "XXXXX.", 5, BLACK, False),  # overline does not win
        (Rule.EXACT5, "XXXXX.", 5, WHITE, False),
        (Rule.EXACT5, ".XXXX..", 5, WHITE, True),
        (Rule.RENJU, "XXXXX.", 5, BLACK, False),  # black overline is no win
        (Rule.RENJU, "XXXXX.", 5, WHITE, True),  # white overline wins
        (Rule.RENJU, ".XXXX.", 5, BLACK, True),
        (Rule.CARO, "OXXXX.O", 5, BLACK, False),  # blocked at both ends
        (Rule.CARO, "OXXXX..", 5, BLACK, True),  # blocked at one end only
        (Rule.CARO, ".XXXX.", 5, BLACK, True),  # open at both ends
        (Rule.CARO, "XXXX.O", 4, BLACK, False),  # the edge blocks, as in GomocupJudge
        (Rule.CARO, "XXXX..", 4, BLACK, True),  # the edge alone is one block
        (Rule.CARO, "XXXXX.", 5, BLACK, True),  # rule 8: an overline wins
        (Rule.CARO, "OXXXXX.O", 6, BLACK, True),  # even closed at both ends
        (Rule.CARO5, "XXXXX.", 5, BLACK, False),  # rule 9: exactly five
        (Rule.CARO5, "OXXXX..", 5, WHITE, True),
        (Rule.CARO5, "OXXXX.O", 5, WHITE, False),
        (Rule.CARO5, "XXXX.O", 4, WHITE, False),
        (Rule.FREESTYLE, "XXX.X", 3, BLACK, True),
        (Rule.FREESTYLE, "XXO.X", 3, BLACK, False),
    ],
)
def test_winning_lines(rule: Rule, row: str, point: int, color: int, wins: bool) -> None:
    board = line_board(rule, row, color)
    assert board.makes_win(point, 7, color) is wins


def test_diagonal_win_and_win_line() -> None:
    board = Board(9)
    for k in range(4):
        board.place(k, k, BLACK)
    assert board.makes_win(4, 4, BLACK)
    board.place(4, 4, BLACK)
    assert board.winner_line(2, 2) == [(k, k) for k in range(5)]


def test_anti_diagonal_at_the_edge_does_not_wrap() -> None:
    board = Board(6)
    for x, y in ((5, 1), (4, 2), (3, 3), (2, 4)):
        board.place(x, y, BLACK)
    assert board.makes_win(1, 5, BLACK)
    assert not board.makes_win(0, 0, BLACK)  # (0,0) is no neighbour across the edge
    board.place(0, 0, BLACK)
    assert board.winner_line(0, 0) == []


def test_rectangular_board_geometry() -> None:
    board = Board(30, 6)
    assert board.center == (15, 3)
    assert board.on_board(29, 5) and not board.on_board(30, 0) and not board.on_board(0, 6)
    for x in range(25, 29):
        board.place(x, 5, WHITE)
    assert board.makes_win(29, 5, WHITE)
    assert len(list(board.empty_points())) == 30 * 6 - 4


@pytest.mark.parametrize("size", [4, 33])
def test_board_size_limits(size: int) -> None:
    with pytest.raises(ValueError, match="outside 5..32"):
        Board(size)


def test_rule_parse_accepts_names_and_bitmasks() -> None:
    assert Rule.parse("renju") is Rule.RENJU
    assert Rule.parse("4") is Rule.RENJU
    assert Rule.parse("exact-five") is Rule.EXACT5
    assert Rule.parse("8") is Rule.CARO
    assert Rule.parse("9") is Rule.CARO5
    assert Rule.parse("caro5") is Rule.CARO5
    assert [rule.bitmask for rule in Rule] == [0, 1, 4, 8, 9]
    with pytest.raises(ValueError, match="unknown rule"):
        Rule.parse("chess")


def test_game_flow_win_and_scores() -> None:
    game = GomokuGame(9, black_seat=1)
    assert game.to_play() == 1
    moves = [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1), (3, 0), (3, 1), (4, 0)]
    for x, y in moves:
        seat = game.to_play()
        assert seat is not None
        assert game.illegal_reason(seat, Move(x, y)) is None
        game.apply(seat, Move(x, y))
    assert game.over and game.winner == 1 and game.scores() == [0.0, 1.0]
    assert "black made five" in game.end_reason()


def test_illegal_moves_are_named() -> None:
    game = GomokuGame(9)
    game.apply(0, Move(4, 4))
    assert "occupied" in (game.illegal_reason(1, Move(4, 4)) or "")
    assert "outside" in (game.illegal_reason(1, Move(9, 0)) or "")
    assert "turn" in (game.illegal_reason(0, Move(1, 1)) or "")
    assert game.forfeit_scores(1) == [1.0, 0.0]


def test_full_board_is_a_draw() -> None:
    game = GomokuGame(8)
    # colour classes that never make five: (x + 2y) % 4 < 2 for black
    black = [(x, y) for y in range(8) for x in range(8) if (x + 2 * y) % 4 < 2]
    white = [(x, y) for y in range(8) for x in range(8) if (x + 2 * y) % 4 >= 2]
    for b, w in zip(black, white, strict=True):
        game.apply(0, Move(*b))
        game.apply(1, Move(*w))
    assert game.over and game.winner is None and game.scores() == [0.5, 0.5]
    assert game.end_reason() == "the board is full"


def test_opening_stones_are_placed_alternately() -> None:
    game = GomokuGame(15, opening=[(7, 7), (8, 7), (7, 8)], black_seat=0)
    assert game.board[7, 7] == BLACK and game.board[8, 7] == WHITE
    assert game.to_play() == 1  # white to move, seat 1 is white
    with pytest.raises(ValueError, match="opening stone"):
        GomokuGame(15, opening=[(7, 7), (7, 7)])


SWAP2_CASES = [
    # (answer of the second seat, final answer of the first seat, black seat, next seat)
    (Swap(), None, 1, 0),
    (Move(1, 1), None, 0, 0),
    (Stones(((1, 1), (9, 9))), Swap(), 0, 1),
    (Stones(((1, 1), (9, 9))), Move(12, 12), 1, 1),
]


@pytest.mark.parametrize(("answer", "final", "black", "next_seat"), SWAP2_CASES)
@pytest.mark.parametrize("first", [0, 1])
def test_swap2_colours(answer: object, final: object, black: int, next_seat: int,
                       first: int) -> None:
    game = GomokuGame(15, swap2=True, swap2_first=first)
    second = 1 - first
    assert game.phase is Phase.SWAP2_OPEN and game.to_play() == first
    assert game.illegal_reason(first, Swap()) is not None
    opening = Stones(((7, 7), (8, 7), (7, 8)))
    assert game.illegal_reason(first, opening) is None
    game.apply(first, opening)
    assert game.to_play() == second
    assert game.illegal_reason(second, answer) is None  # type: ignore[arg-type]
    game.apply(second, answer)  # type: ignore[arg-type]
    if final is not None:
        assert game.phase is Phase.SWAP2_FINAL and game.to_play() == first
        assert game.illegal_reason(first, Stones(((2, 2), (3, 3)))) is not None
        game.apply(first, final)  # type: ignore[arg-type]
    relabel = {0: first, 1: second}  # cases are written for first = 0
    assert game.phase is Phase.PLAY
    assert game.seat_of(BLACK) == relabel[black]
    assert game.to_play() == relabel[next_seat]


def test_swap2_rejects_bad_stone_counts_and_points() -> None:
    game = GomokuGame(15, swap2=True)
    assert "3 stone" in (game.illegal_reason(0, Move(7, 7)) or "")
    assert "occupied" in (game.illegal_reason(0, Stones(((7, 7), (7, 7), (8, 8)))) or "")
    assert "outside" in (game.illegal_reason(0, Stones(((7, 7), (8, 7), (15, 8)))) or "")


@settings(max_examples=60)
@given(st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=81),
       st.sampled_from(list(Rule)))
def test_random_games_keep_engine_invariants(points: list[tuple[int, int]], rule: Rule) -> None:
    game = GomokuGame(9, rule=rule)
    for x, y in points:
        seat = game.to_play()
        if seat is None:
            break
        if game.illegal_reason(seat, Move(x, y)) is not None:
            continue
        copy = game.board.copy()
        game.apply(seat, Move(x, y))
        assert copy.moves != game.board.moves  # the copy is independent
        stones = sum(1 for c in game.board.cells if c in (BLACK, WHITE))
        assert stones == len(game.board.moves)
        if game.over and game.winner is not None:
            assert game.board.winner_line(x, y)
            assert game.scores()[game.winner] == 1.0
    if game.over and game.winner is None:
        assert game.board.is_full()


@pytest.mark.parametrize(("width", "height"), [(5, 5), (32, 7), (6, 32), (15, 15)])
def test_scans_up_to_pad_stay_in_the_array_and_meet_walls_off_board(width: int,
                                                                     height: int) -> None:
    board = Board(width, height)
    assert sum(1 for c in board.cells if c == EMPTY) == width * height
    for y in range(height):
        for x in range(width):
            i = board.index(x, y)
            assert board.point(i) == (x, y)
            for step in board.directions:
                for k in range(1, PAD + 1):
                    for j in (i + k * step, i - k * step):
                        assert 0 <= j < len(board.cells)
                        if board.cells[j] == EMPTY:  # an empty cell is the point it should be
                            px, py = board.point(j)
                            assert board.on_board(px, py)
                            assert max(abs(px - x), abs(py - y)) == k


def gomocupjudge_wins(board: Board, x: int, y: int, color: int, rule: int) -> bool:
    """GomocupJudge's own reading of a win (its ai_match.make_move), written out here as an
    independent oracle: count up to five stones each way; a side is blocked by an opponent
    stone or the edge; rule 0/4 five or more, 1 exactly five, 9 exactly five not closed at
    both ends, 8 that or six and more."""
    for dx, dy in ((0, 1), (1, 0), (-1, 1), (1, 1)):
        count, blocked = 1, 0
        for sign in (1, -1):
            for k in range(1, 6):
                px, py = x + sign * k * dx, y + sign * k * dy
                if not board.on_board(px, py):
                    blocked += 1
                    break
                if board[px, py] != color:
                    blocked += board[px, py] != EMPTY
                    break
                count += 1
        if (rule in (0, 4) and count >= 5) or (rule == 1 and count == 5):
            return True
        if rule == 9 and count == 5 and blocked < 2:
            return True
        if rule == 8 and (count > 5 or (count == 5 and blocked < 2)):
            return True
    return False


@settings(max_examples=300)
@given(
    rule=st.sampled_from([Rule.FREESTYLE, Rule.EXACT5, Rule.CARO, Rule.CARO5]),
    cells=st.lists(st.sampled_from([EMPTY, EMPTY, BLACK, WHITE]), min_size=49, max_size=49),
    point=st.tuples(st.integers(0, 6), st.integers(0, 6)),
    color=st.sampled_from([BLACK, WHITE]),
)
def test_wins_agree_with_gomocupjudge(rule: Rule, cells: list[int], point: tuple[int, int],
                                      color: int) -> None:
    board = Board(7, rule=rule)
    for index, cell in enumerate(cells):
        if cell != EMPTY and divmod(index, 7)[::-1] != point:
            board.place(index % 7, index // 7, cell)
    assert board.makes_win(*point, color) is gomocupjudge_wins(board, *point, color,
                                                               rule.bitmask)
