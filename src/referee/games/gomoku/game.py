"""The Gomoku game engine: seats, colours, an optional opening or swap2, moves and result.

Pure: no I/O, no clocks. Two seats (0 and 1). Without swap2, ``black_seat`` plays black;
the opening stones (if any) are on the board before the first decision. With swap2,
seat ``swap2_first`` places three stones, the other seat answers (swap, one stone, or
two stones), and in the last case the first seat chooses; colours follow from the
choices as in the Gomocup protocol's SWAP2BOARD examples.
"""

from __future__ import annotations

import copy
import enum
from collections.abc import Sequence
from dataclasses import dataclass

from referee.games.gomoku.board import BLACK, WHITE, Board, Rule, point_name
from referee.games.gomoku.renju import RenjuJudge, forbidden

Point = tuple[int, int]


class Phase(enum.Enum):
    """What kind of decision is asked next."""

    SWAP2_OPEN = "swap2-open"  # first seat places three stones
    SWAP2_ANSWER = "swap2-answer"  # second seat: swap, one stone, or two stones
    SWAP2_FINAL = "swap2-final"  # first seat: swap or one stone
    PLAY = "play"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Move:
    """One stone at ``(x, y)``."""

    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Stones:
    """Several stones placed at once in swap2 (colours alternate from the next to move)."""

    points: tuple[Point, ...]


@dataclass(frozen=True, slots=True)
class Swap:
    """The swap2 choice to take the other colour."""


Action = Move | Stones | Swap


class GomokuGame:
    """A game of Gomoku under one rule between seats 0 and 1."""

    def __init__(
        self,
        width: int,
        height: int | None = None,
        rule: Rule = Rule.FREESTYLE,
        *,
        black_seat: int = 0,
        opening: Sequence[Point] = (),
        swap2: bool = False,
        swap2_first: int = 0,
        renju_judge: RenjuJudge = RenjuJudge.RIF,
        draw_at_empty: int = 0,
    ) -> None:
        self.board = Board(width, height, rule)
        self.rule = rule
        self.renju_judge = renju_judge
        self.draw_at_empty = draw_at_empty
        """The game is a draw once only this many empty points remain (0: a full board),
        as GomocupJudge ends renju games with 25."""
        self.seat_color = [BLACK, WHITE] if black_seat == 0 else [WHITE, BLACK]
        self.winner: int | None = None
        self.reason = ""
        self.swap2_first = swap2_first
        self.win_line: list[Point] = []
        for x, y in opening:
            if not self.board.is_empty(x, y):
                raise ValueError(f"opening stone {x},{y} is off the board or on a stone")
            self.board.place(x, y)
        self.phase = Phase.SWAP2_OPEN if swap2 else Phase.PLAY
        if swap2:
            self.seat_color = [BLACK, WHITE] if swap2_first == 0 else [WHITE, BLACK]
        self.opening_length = len(opening)
        if self.phase is Phase.PLAY:
            self._check_draw()

    # -- questions ----------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.phase is Phase.OVER

    def copy(self) -> GomokuGame:
        """An independent copy (for search: the environment's ``state`` and ``clone``)."""
        other = copy.copy(self)
        other.board = self.board.copy()
        other.seat_color = list(self.seat_color)
        other.win_line = list(self.win_line)
        return other

    def color_of(self, seat: int) -> int:
        """The colour the seat plays (tentative during swap2)."""
        return self.seat_color[seat]

    def seat_of(self, color: int) -> int:
        """The seat playing ``color``."""
        return 0 if self.seat_color[0] == color else 1

    def to_play(self) -> int | None:
        """The seat to decide next, ``None`` once the game is over."""
        phase = self.phase
        if phase is Phase.PLAY:
            return self.seat_of(self.board.to_move)
        if phase is Phase.OVER:
            return None
        first = self.swap2_first
        return 1 - first if phase is Phase.SWAP2_ANSWER else first

    def illegal_reason(self, seat: int, action: Action) -> str | None:
        """Why ``action`` is not allowed for ``seat`` now (``None`` if it is)."""
        if seat != self.to_play():
            return "not this seat's turn"
        phase = self.phase
        if phase is Phase.PLAY:
            if not isinstance(action, Move):
                return "expected one move"
            return self._stone_problem(self.board, action.x, action.y)
        if isinstance(action, Swap):
            return "swap is not allowed now" if phase is Phase.SWAP2_OPEN else None
        points = (action.x, action.y) if isinstance(action, Move) else None
        stones = (points,) if points else action.points if isinstance(action, Stones) else ()
        allowed = {Phase.SWAP2_OPEN: (3,), Phase.SWAP2_ANSWER: (1, 2), Phase.SWAP2_FINAL: (1,)}
        if len(stones) not in allowed[phase]:
            wanted = " or ".join(str(n) for n in allowed[phase])
            return f"expected {wanted} stone(s), got {len(stones)}"
        trial = self.board.copy()
        for x, y in stones:
            problem = self._stone_problem(trial, x, y)
            if problem is not None:
                return problem
            if trial.makes_win(x, y, trial.to_move):
                return f"opening stone {x},{y} would complete a line"
            trial.place(x, y)
        return None

    def _stone_problem(self, board: Board, x: int, y: int) -> str | None:
        if not board.on_board(x, y):
            return f"{x},{y} is outside the {board.width}x{board.height} board"
        if not board.is_empty(x, y):
            return f"{x},{y} is already occupied"
        if self.rule is Rule.RENJU and board.to_move == BLACK:
            why = forbidden(board, x, y, self.renju_judge)
            if why is not None:
                return f"{x},{y} is a forbidden point for black ({why.value})"
        return None

    # -- playing ------------------------------------------------------------------------
    def apply(self, seat: int, action: Action) -> None:
        """Play a legal action of ``seat``."""
        phase = self.phase
        board = self.board
        if phase is Phase.PLAY:
            assert isinstance(action, Move)
            color = board.to_move
            wins = board.makes_win(action.x, action.y, color)
            board.place(action.x, action.y)
            if wins:
                self.winner = seat
                self.win_line = board.winner_line(action.x, action.y)
                name = "black" if color == BLACK else "white"
                self._end(f"{name} made five in a row ending at "
                          f"{point_name(action.x, action.y)} ({action.x},{action.y})")
            else:
                self._check_draw()
            return
        first, second = self.swap2_first, 1 - self.swap2_first
        if isinstance(action, Swap):
            # answer phase: the second seat takes black; final phase: the first seat does
            black = second if phase is Phase.SWAP2_ANSWER else first
            self._assign(black)
            self.phase = Phase.PLAY
            self._check_draw()
            return
        stones = ((action.x, action.y),) if isinstance(action, Move) else action.points
        for x, y in stones:
            board.place(x, y)
        if phase is Phase.SWAP2_OPEN:
            self.phase = Phase.SWAP2_ANSWER
        elif phase is Phase.SWAP2_ANSWER and len(stones) == 1:
            self._assign(black=first)  # the second seat placed white's 4th stone
            self.phase = Phase.PLAY
        elif phase is Phase.SWAP2_ANSWER:
            self._assign(black=second)  # tentative: the second seat placed black's 5th stone
            self.phase = Phase.SWAP2_FINAL
        else:
            self._assign(black=second)  # the first seat placed white's 6th stone
            self.phase = Phase.PLAY
        if self.phase is Phase.PLAY:
            self._check_draw()

    def _check_draw(self) -> None:
        """End the game as a draw on a full board, or with ``draw_at_empty`` points left."""
        board = self.board
        empty = board.width * board.height - len(board.moves)
        if empty == 0:
            self._end("the board is full")
        elif empty <= self.draw_at_empty:
            self._end(f"only {empty} empty points remain (draw at {self.draw_at_empty})")

    def _assign(self, black: int) -> None:
        self.seat_color = [BLACK, WHITE] if black == 0 else [WHITE, BLACK]

    def _end(self, reason: str) -> None:
        self.phase = Phase.OVER
        self.reason = reason

    def notation(self, action: Action) -> str:
        """The action as written in records: ``x,y``, ``x,y x,y ...`` or ``SWAP``."""
        if isinstance(action, Move):
            return f"{action.x},{action.y}"
        if isinstance(action, Stones):
            return " ".join(f"{x},{y}" for x, y in action.points)
        return "SWAP"

    def scores(self) -> list[float]:
        """1 for the winner, 0 for the loser, 0.5 each for a draw."""
        if self.winner is None:
            return [0.5, 0.5]
        return [1.0 if seat == self.winner else 0.0 for seat in (0, 1)]

    def end_reason(self) -> str:
        """Why the game ended."""
        return self.reason

    def forfeit_scores(self, seat: int) -> list[float]:
        """The offender loses, the other seat wins."""
        return [0.0 if s == seat else 1.0 for s in (0, 1)]
