"""The GOHR engine's acceptance counters: the moves that must NOT consume a counter.

An accepted move decrements the counter of every atom that accepts that piece into that
bucket, and the row's global counter once. Each test here makes a move that one counter must
ignore (another bucket, another piece, a refused move, an exhausted atom, a copy of the
episode) and checks the row's later behaviour, which a wrongly consumed counter changes.
"""

from __future__ import annotations

from referee.games.gohr.board import Board, Piece
from referee.games.gohr.engine import Code, Episode, Finish
from referee.games.gohr.ruleset import parse_ruleset


def episode(text: str, *pieces: Piece) -> Episode:
    """An episode of the rule set ``text`` on a board of ``pieces``."""
    return Episode(parse_ruleset(text, "counters.txt"), Board(tuple(pieces)))


def stars(n: int) -> list[Piece]:
    """``n`` red stars on the top row, ids 0..n-1."""
    return [Piece(i, "RED", "STAR", i + 1, 1) for i in range(n)]


def test_other_bucket_leaves_a_metered_atom() -> None:
    # a star into bucket 1 is accepted by the second atom only: the first keeps its count
    ep = episode("(1,*,*,*,[0]) (1,*,*,*,[1])\n(*,*,*,*,[2])", *stars(3))
    assert ep.move(0, 1) == Code.ACCEPT
    assert ep.row == 0
    assert ep.buckets() == {1: {0}, 2: {0}}
    assert ep.move(1, 0) == Code.ACCEPT
    assert ep.row == 1
    assert ep.buckets() == {2: {2}}


def test_other_bucket_leaves_a_metered_atom_beside_an_unmetered_one() -> None:
    ep = episode("(1,*,*,*,[0]) (*,*,*,*,[1])\n(*,*,*,*,[2])", *stars(3))
    for pid in (0, 1):
        assert ep.move(pid, 1) == Code.ACCEPT
        assert ep.row == 0
    assert ep.buckets() == {2: {0, 1}}  # the metered atom still takes bucket 0


def test_overlapping_buckets_consume_only_the_atoms_that_take_that_bucket() -> None:
    ep = episode("(1,*,*,*,[0,1]) (1,*,*,*,[1,2])\n(*,*,*,*,[3])", *stars(4))
    assert ep.buckets()[0] == {0, 1, 2}
    assert ep.move(0, 0) == Code.ACCEPT  # the first atom only
    assert ep.buckets() == {1: {1, 2}, 2: {1, 2}, 3: {1, 2}}
    assert ep.move(1, 2) == Code.ACCEPT  # the second atom only
    assert ep.row == 1
    ep = episode("(1,*,*,*,[0,1]) (1,*,*,*,[1,2])\n(*,*,*,*,[3])", *stars(4))
    assert ep.move(0, 1) == Code.ACCEPT  # both atoms take bucket 1: both exhausted
    assert ep.row == 1


def test_other_piece_leaves_a_metered_atom() -> None:
    # both atoms take bucket 0, for different shapes: a square consumes the square atom only
    ep = episode("(1,square,*,*,[0]) (1,circle,*,*,[0])\n(*,*,*,*,[3])",
                 Piece(0, "RED", "SQUARE", 1, 1), Piece(1, "RED", "SQUARE", 2, 1),
                 Piece(2, "RED", "CIRCLE", 3, 1))
    assert ep.move(0, 0) == Code.ACCEPT
    assert ep.row == 0
    assert ep.buckets() == {1: frozenset(), 2: {0}}
    assert ep.move(2, 0) == Code.ACCEPT
    assert ep.row == 1


def test_other_position_leaves_a_metered_atom() -> None:
    # the first atom takes only the piece on cell 1 (top left); the second any piece
    ep = episode("(1,*,*,[1],[0]) (1,*,*,*,[0])\n(*,*,*,*,[3])", *stars(3))
    assert ep.move(1, 0) == Code.ACCEPT  # cell 2: the second atom only
    assert ep.row == 0
    assert ep.buckets() == {0: {0}, 2: frozenset()}
    assert ep.move(0, 0) == Code.ACCEPT
    assert ep.row == 1


def test_exhausted_atom_accepts_nothing_more() -> None:
    ep = episode("(1,*,*,*,[0]) (2,*,*,*,[1])\n(*,*,*,*,[2])", *stars(4))
    assert ep.move(0, 0) == Code.ACCEPT
    assert ep.move(1, 0) == Code.DENY  # the first atom is spent
    assert ep.buckets() == {1: {1}, 2: {1}, 3: {1}}
    assert ep.move(1, 1) == Code.ACCEPT
    assert ep.row == 0  # the second atom has one left
    assert ep.move(2, 1) == Code.ACCEPT
    assert ep.row == 1
    assert ep.buckets() == {3: {2}}


def test_refused_moves_consume_no_atom_counter() -> None:
    ep = episode("(2,star,*,*,[0])\n(*,*,*,*,[1])",
                 *stars(3), Piece(3, "RED", "SQUARE", 4, 1))
    assert ep.move(0, 1) == Code.DENY
    assert ep.move(3, 0) == Code.IMMOVABLE
    assert ep.move_at(6, 6, 0) == Code.EMPTY_CELL
    assert ep.move(9, 0) == Code.INVALID_ARGUMENTS
    assert ep.move(0, 0) == Code.ACCEPT
    assert ep.row == 0  # one of two used
    assert ep.buckets() == {1: {0}, 2: {0}, 3: frozenset()}
    assert ep.move(1, 0) == Code.ACCEPT
    assert ep.row == 1


def test_refused_moves_consume_no_global_counter() -> None:
    ep = episode("2 (*,star,*,*,[0])\n(*,*,*,*,[1])",
                 *stars(3), Piece(3, "RED", "SQUARE", 4, 1))
    assert ep.move(0, 1) == Code.DENY
    assert ep.move(3, 0) == Code.IMMOVABLE
    assert ep.move(0, 0) == Code.ACCEPT
    assert ep.row == 0  # one of two used
    assert ep.move(1, 0) == Code.ACCEPT
    assert ep.row == 1
    assert ep.buckets() == {2: {1}, 3: {1}}


def test_global_counter_counts_moves_not_accepting_atoms() -> None:
    # every move below is accepted by both atoms; the global counter drops by one a move
    ep = episode("3 (*,*,*,*,[0]) (*,*,*,*,[0,1])\n(*,*,*,*,[2])", *stars(4))
    for pid in (0, 1):
        assert ep.move(pid, 0) == Code.ACCEPT
        assert ep.row == 0
    assert ep.move(2, 0) == Code.ACCEPT
    assert ep.row == 1
    assert ep.buckets() == {3: {2}}


def test_global_counter_of_another_row_is_untouched() -> None:
    # row 1 allows two moves each time it becomes active, whatever row 0 did before
    ep = episode("1 (*,*,*,*,[0])\n2 (*,*,*,*,[1])", *stars(6))
    rows = []
    for pid, bucket in enumerate((0, 1, 1, 0, 1, 1)):
        rows.append(ep.row)
        assert ep.move(pid, bucket) == Code.ACCEPT
    assert rows == [0, 1, 1, 0, 1, 1]
    assert ep.finish is Finish.CLEARED


def test_copy_has_its_own_counters() -> None:
    ep = episode("(2,*,*,*,[0])\n(*,*,*,*,[1])", *stars(4))
    snap = ep.copy()
    assert ep.move(0, 0) == Code.ACCEPT  # the original's counter: 1 left
    assert ep.row == 0
    assert snap.move(0, 0) == Code.ACCEPT  # the copy's counter: 1 left too
    assert snap.row == 0
    assert snap.move(1, 0) == Code.ACCEPT
    assert snap.row == 1
    assert ep.row == 0 and ep.buckets() == {1: {0}, 2: {0}, 3: {0}}
