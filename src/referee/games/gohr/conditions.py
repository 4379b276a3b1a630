"""Train/test conditions on initial boards (``condTrain=``/``condTest=``, or the columns of
a trial list): drawing boards that meet them.

A training board has no piece that matches a condition line; a test board has at least
one. Boards are drawn until one meets them (``MAX_TRIES`` boards, as the reference gives
up after). Since CGS 7.008 the reference places the pieces of random shape-and-color boards
directly in the allowed cells when the condition file is only about positions (one line
of one atom with no shape or color clause): so does ``draw_board``, and then checks the
whole conditions as before.
"""

from __future__ import annotations

from collections.abc import Callable

from referee.games.gohr.board import (
    NCELLS,
    Board,
    BoardGenerationError,
    generate_board,
    generate_until,
)
from referee.games.gohr.engine import matches_condition
from referee.games.gohr.ruleset import RuleSet
from referee.games.gohr.setup import GameSetup

MAX_TRIES = 1000
"""Boards drawn to meet the conditions before giving up (as the reference does)."""


def position_mask(conditions: RuleSet, test_mode: bool) -> frozenset[int] | None:
    """The cells a position-only condition file allows (None if it is not one): in
    training the cells it does not accept, in testing those it accepts. As the reference,
    a cell is accepted by the literal cells of every ``pos`` clause (orders never count)."""
    if len(conditions.rows) != 1 or len(conditions.rows[0].atoms) != 1:
        return None
    atom = conditions.rows[0].atoms[0]
    if atom.shapes is not None or atom.colors is not None:
        return None
    accepted = frozenset(cell for cell in range(1, NCELLS + 1)
                         if all(cell in ps.cells for ps in atom.positions))
    return accepted if test_mode else frozenset(range(1, NCELLS + 1)) - accepted


def board_meets(conditions: RuleSet, board: Board, test_mode: bool) -> bool:
    """Whether ``board`` is a legal training board (``test_mode`` False: no piece matches
    a condition line) or test board (some piece does)."""
    matched = any(matches_condition(row, piece, board, conditions.orders)
                  for row in conditions.rows for piece in board)
    return matched == test_mode


def draw_board(setup: GameSetup) -> Board:
    """The initial board of the next episode, meeting the session's conditions if any."""
    conditions = setup.conditions
    if conditions is None:
        return setup.next_board()
    test_mode = setup.test_mode
    source: Callable[[], Board] = setup.next_board
    params = setup.params
    mask = position_mask(conditions, test_mode) if params is not None else None
    if params is not None and mask is not None:
        def source() -> Board:
            return generate_board(params, setup.rng, mask, at_least_one=test_mode)
    what = f"the {'test' if test_mode else 'train'} conditions of {conditions.name}"
    try:
        return generate_until(source, lambda board: board_meets(conditions, board, test_mode),
                              MAX_TRIES, what)
    except BoardGenerationError as exc:
        if str(exc).startswith("no board meeting"):
            raise
        raise BoardGenerationError(f"no board meeting {what}: {exc}") from None
