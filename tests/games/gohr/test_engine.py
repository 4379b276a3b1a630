"""The GOHR episode engine: control flow, acceptance, codes, variables, orders, sample rules."""

from __future__ import annotations

import random
from typing import Any

import pytest
from gohr_data import DATA as GOHR_DATA
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.games.gohr.board import LEGACY_COLORS, LEGACY_SHAPES, Board, Piece, xy_of
from referee.games.gohr.engine import Code, Episode, Finish, matches_condition
from referee.games.gohr.ruleset import RuleSet, parse_ruleset, read_ruleset

RULES_DIR = GOHR_DATA / "rules"
needs_rules = pytest.mark.skipif(not RULES_DIR.is_dir(), reason=f"{RULES_DIR} is absent")


def rules(text: str) -> RuleSet:
    return parse_ruleset(text, "test.txt")


def piece(pid: int, color: str, shape: str, x: int, y: int, **props: Any) -> Piece:
    """A shape-and-color piece, or with ``props`` an image piece with those properties
    (its color and shape among them)."""
    if not props:
        return Piece(pid, color.upper(), shape.upper(), x, y)
    return Piece(pid, "", "", x, y, {"color": color, "shape": shape, **props},
                 image=f"test/{pid}.png")


def board(*pieces: Piece) -> Board:
    return Board(tuple(pieces))


def sample(name: str) -> RuleSet:
    return read_ruleset(RULES_DIR / name)


# ------------------------------------------------------------------------------ control flow


def test_counters_and_row_advance() -> None:
    ep = Episode(rules("(2,*,*,*,[0])\n(*,*,*,*,[1])"), board(
        piece(0, "red", "square", 1, 1), piece(1, "red", "star", 2, 1),
        piece(2, "blue", "circle", 3, 1)))
    assert ep.row == 0
    assert ep.buckets() == {0: {0}, 1: {0}, 2: {0}}
    assert ep.move(0, 0) == Code.ACCEPT
    assert ep.row == 0
    assert ep.move(1, 0) == Code.ACCEPT
    assert ep.row == 1  # atom counter exhausted -> next row, at once
    assert ep.buckets() == {2: {1}}
    assert ep.move(2, 0) == Code.DENY
    assert ep.move(2, 1) == Code.ACCEPT
    assert ep.finish == Finish.CLEARED
    assert (ep.attempts, ep.accepted) == (4, 3)
    assert ep.move(2, 1) == Code.NO_GAME
    assert ep.move_at(1, 1, 0) == Code.NO_GAME
    assert ep.attempts == 4


def test_cyclic_wrap_resets_counters() -> None:
    ep = Episode(rules("1 (*,*,*,*,[0])\n1 (*,*,*,*,[1])"),
                 board(*(piece(i, "red", "square", i + 1, 1) for i in range(4))))
    rows = []
    for pid, bucket in ((0, 0), (1, 1), (2, 0), (3, 1)):
        rows.append(ep.row)
        assert ep.move(pid, bucket) == Code.ACCEPT
    assert rows == [0, 1, 0, 1]
    assert ep.finish == Finish.CLEARED


def test_sample_rule_004_alternates() -> None:
    ep = Episode(rules("(1,*,*,*,[0])\n(2,*,*,*,[2])"),
                 board(*(piece(i, "red", "square", i + 1, 2) for i in range(6))))
    wanted = [0, 2, 2, 0, 2, 2]
    for pid, bucket in enumerate(wanted):
        assert ep.move(pid, (bucket + 1) % 4) == Code.DENY
        assert ep.move(pid, bucket) == Code.ACCEPT
    assert ep.finish == Finish.CLEARED


def test_global_count_zero_is_exhausted_at_once() -> None:
    ep = Episode(rules("0 (*,*,*,*,[0])\n(*,*,*,*,[1])"), board(piece(0, "red", "star", 1, 1)))
    assert ep.row == 1
    assert ep.buckets() == {0: {1}}


def test_global_counter_limits_row() -> None:
    ep = Episode(rules("2 (*,*,*,*,[0]) (*,*,*,*,[1])\n(*,*,*,*,[2])"),
                 board(*(piece(i, "red", "star", i + 1, 1) for i in range(3))))
    assert ep.move(0, 0) == Code.ACCEPT
    assert ep.move(1, 1) == Code.ACCEPT
    assert ep.row == 1
    assert ep.buckets() == {2: {2}}


def test_every_atom_metered_exhaustion() -> None:
    ep = Episode(rules("(1,square,*,*,[0]) (1,circle,*,*,[1])\n(*,*,*,*,[2])"), board(
        piece(0, "red", "square", 1, 1), piece(1, "red", "square", 2, 1),
        piece(2, "red", "circle", 3, 1)))
    assert ep.move(0, 0) == Code.ACCEPT
    assert ep.row == 0  # the circle atom still has count
    assert ep.buckets() == {1: frozenset(), 2: {1}}
    assert ep.move(1, 0) == Code.IMMOVABLE
    assert ep.move(2, 1) == Code.ACCEPT
    assert ep.row == 1
    assert ep.buckets() == {1: {2}}


def test_unmetered_atom_keeps_row() -> None:
    ep = Episode(rules("(1,*,*,*,[0]) (*,*,*,*,[1])\n(*,*,*,*,[2])"),
                 board(*(piece(i, "red", "star", i + 1, 1) for i in range(3))))
    assert ep.buckets()[0] == {0, 1}
    assert ep.move(0, 0) == Code.ACCEPT
    assert ep.row == 0
    assert ep.buckets() == {1: {1}, 2: {1}}


def test_accept_decrements_every_accepting_atom() -> None:
    ep = Episode(rules("(1,*,*,*,[0]) (1,*,*,*,[0,1]) (*,square,*,*,[3])\n(*,*,*,*,[2])"),
                 board(piece(0, "red", "star", 1, 1), piece(1, "red", "star", 2, 1)))
    assert ep.move(0, 0) == Code.ACCEPT  # both metered atoms accepted: both at 0
    assert ep.row == 1


def test_row_that_cannot_move_passes_control() -> None:
    ep = Episode(rules("(*,square,*,*,*)\n(*,circle,*,*,[3])"),
                 board(piece(0, "red", "circle", 1, 1), piece(1, "red", "square", 2, 1)))
    assert ep.row == 0
    assert ep.move(0, 3) == Code.IMMOVABLE
    assert ep.move(1, 2) == Code.ACCEPT
    assert ep.row == 1
    assert ep.move(0, 3) == Code.ACCEPT
    assert ep.finish == Finish.CLEARED


def test_single_metered_row_restarts() -> None:
    ep = Episode(rules("1 (*,*,*,*,[0])"), board(piece(0, "red", "star", 1, 1),
                                                piece(1, "red", "star", 2, 1)))
    assert ep.move(0, 0) == Code.ACCEPT
    assert ep.finish is Finish.PLAYING
    assert ep.move(1, 0) == Code.ACCEPT
    assert ep.accepted == 2 and not ep.board.pieces  # cleared


def test_stalemate_at_start() -> None:
    ep = Episode(rules("(*,*,*,[1,6,31,36],[Nearby])"), board(piece(0, "red", "star", 2, 2)))
    assert ep.finish == Finish.STALEMATE
    assert ep.buckets() == {0: frozenset()}
    assert ep.move(0, 3) == Code.NO_GAME  # the reference: no game is on (not counted)
    assert ep.move_at(2, 2, 3) == Code.NO_GAME
    assert ep.attempts == 0


def test_stalemate_after_move() -> None:
    ep = Episode(rules("(*,star,*,T,*)\n(*,square,*,B,*)"), board(
        piece(0, "red", "star", 1, 1), piece(1, "red", "square", 1, 6),
        piece(2, "red", "star", 2, 3)))
    # row 0: stars from the top occupied row -> none (square on top); row 1: squares from the
    # bottom row -> none (star at the bottom): stalemate from the start
    assert ep.finish == Finish.STALEMATE
    ep2 = Episode(rules("(*,star,*,T,*)\n(*,square,*,B,*)"), board(
        piece(0, "red", "star", 1, 6), piece(1, "red", "square", 1, 1),
        piece(2, "red", "star", 1, 2)))
    assert ep2.move(0, 0) == Code.ACCEPT  # now the star at y=2 is the topmost piece
    assert ep2.finish == Finish.PLAYING
    assert ep2.buckets() == {1: frozenset(), 2: {0, 1, 2, 3}}


# ------------------------------------------------------------------------------ codes


def test_deny_immovable_empty_cell_and_errors() -> None:
    ep = Episode(rules("(*,star,*,*,[1])"),
                 board(piece(0, "red", "star", 1, 1), piece(1, "red", "square", 2, 1)))
    assert ep.move(0, 0) == Code.DENY
    assert ep.last_cell == 1
    assert ep.move(1, 1) == Code.IMMOVABLE
    assert ep.last_cell == 2  # refused: the piece is still there
    assert ep.attempts == 2
    assert ep.move_at(3, 3, 1) == Code.EMPTY_CELL  # not counted, as in the reference
    assert ep.attempts == 2 and ep.last_cell == 15
    assert ep.move(7, 1) == Code.INVALID_ARGUMENTS
    assert ep.move(0, 4) == Code.INVALID_ARGUMENTS
    assert ep.move(0, -1) == Code.INVALID_ARGUMENTS
    assert ep.move_at(0, 3, 1) == Code.INVALID_ARGUMENTS
    assert ep.move_at(1, 7, 1) == Code.INVALID_ARGUMENTS
    assert ep.move_at(1, 1, 4) == Code.INVALID_ARGUMENTS
    assert ep.attempts == 2 and ep.last_cell == 15  # errors are neither counted nor marked
    assert ep.accepted == 0
    assert ep.move_at(1, 1, 1) == Code.ACCEPT
    assert ep.last_cell == 1 and ep.board.at(1, 1) is None
    assert ep.finish == Finish.STALEMATE  # only the square is left
    assert ep.move(1, 1) == Code.NO_GAME
    assert ep.attempts == 3
    ep = Episode(rules("(*,star,*,*,[1])"),
                 board(piece(0, "red", "star", 1, 1), piece(1, "red", "star", 2, 1)))
    assert ep.move(0, 1) == Code.ACCEPT
    assert ep.move(0, 1) == Code.INVALID_ARGUMENTS  # already removed
    assert ep.attempts == 1


# ------------------------------------------------------------------------------ variables


def test_p_after_moves() -> None:
    ep = Episode(rules("1 ()\n(*,*,*,*,[p])"),
                 board(*(piece(i, "red", "star", i + 1, 1) for i in range(3))))
    assert ep.buckets()[0] == {0, 1, 2, 3}
    assert ep.move(0, 2) == Code.ACCEPT
    assert ep.buckets() == {1: {2}, 2: {2}}


def test_p_plus_one_clockwise() -> None:
    ep = Episode(rules("1 ()\n(*,*,*,*,[(p+1)%4])"),
                 board(*(piece(i, "red", "star", i + 1, 1) for i in range(4))))
    assert ep.move(0, 3) == Code.ACCEPT
    for pid, bucket in ((1, 0), (2, 1), (3, 2)):
        assert ep.move(pid, bucket) == Code.ACCEPT


def test_pc_ps() -> None:
    ep = Episode(rules("2 ()\n(*,*,*,*,[pc]) (*,*,*,*,[ps+2])"), board(
        piece(0, "red", "star", 1, 1), piece(1, "blue", "square", 2, 1),
        piece(2, "red", "circle", 3, 1), piece(3, "blue", "star", 4, 1),
        piece(4, "yellow", "triangle", 5, 1)))
    assert ep.move(0, 1) == Code.ACCEPT
    assert ep.move(1, 2) == Code.ACCEPT
    assert ep.row == 1
    assert ep.buckets() == {2: {1}, 3: {2, 3}, 4: frozenset()}
    assert ep.move(4, 0) == Code.IMMOVABLE


def test_undefined_variable_gives_nothing() -> None:
    ep = Episode(rules("(*,*,*,*,[p]) (*,square,*,*,[0])"),
                 board(piece(0, "red", "star", 1, 1), piece(1, "red", "square", 2, 1)))
    assert ep.buckets() == {0: frozenset(), 1: {0}}
    assert ep.move(1, 0) == Code.ACCEPT
    assert ep.buckets() == {0: {0}}


def test_nearby_remotest() -> None:
    ep = Episode(rules("(*,*,*,*,[Nearby])"), board(
        piece(0, "red", "star", 1, 6), piece(1, "red", "star", 6, 6),
        piece(2, "red", "star", 6, 1), piece(3, "red", "star", 1, 1),
        piece(4, "red", "star", 3, 4)))
    assert ep.buckets() == {0: {0}, 1: {1}, 2: {2}, 3: {3}, 4: {0}}
    ep = Episode(rules("(*,*,*,*,[Remotest])"), board(
        piece(0, "red", "star", 1, 6), piece(1, "red", "star", 4, 3)))
    assert ep.buckets() == {0: {2}, 1: {0}}


# ------------------------------------------------------------------------------ orders


def test_order_l1() -> None:
    ep = Episode(rules("(*,*,*,L1,*)"), board(
        piece(0, "red", "star", 5, 2), piece(1, "red", "star", 3, 5),
        piece(2, "red", "star", 4, 5)))
    assert ep.buckets() == {0: frozenset(), 1: {0, 1, 2, 3}, 2: frozenset()}
    assert ep.move(2, 0) == Code.IMMOVABLE
    assert ep.move(1, 0) == Code.ACCEPT
    assert ep.buckets()[2] == {0, 1, 2, 3}


def test_order_nearest_object_ties() -> None:
    ep = Episode(rules("(*,*,*,NearestObject,*)"), board(
        piece(0, "red", "star", 1, 1), piece(1, "red", "star", 6, 6),
        piece(2, "red", "star", 3, 3)))
    movable = {pid for pid, bs in ep.buckets().items() if bs}
    assert movable == {0, 1}


def test_custom_order_with_ties_and_literal_cells() -> None:
    text = "Order Mine=[[8,9],1]\n(*,*,*,[Mine,36],*)"
    ep = Episode(rules(text), board(
        piece(0, "red", "star", 1, 1),  # cell 1
        piece(1, "red", "star", 2, 2),  # cell 8
        piece(2, "red", "star", 3, 2),  # cell 9
        piece(3, "red", "star", 6, 6),  # cell 36 (literal)
        piece(4, "red", "star", 5, 5)))  # cell 29 (implicit last group)
    movable = {pid for pid, bs in ep.buckets().items() if bs}
    assert movable == {1, 2, 3}
    ep.move(1, 0)
    ep.move(2, 0)
    assert {pid for pid, bs in ep.buckets().items() if bs} == {0, 3}


def test_all_position_clauses_must_allow() -> None:
    ep = Episode(rules("(pos:T, pos:L)"), board(
        piece(0, "red", "star", 1, 6), piece(1, "red", "star", 2, 6),
        piece(2, "red", "star", 1, 1)))
    assert {pid for pid, bs in ep.buckets().items() if bs} == {0}


def test_postpos_versus_pos() -> None:
    b = board(piece(0, "black", "star", 1, 6), piece(1, "red", "star", 2, 4),
              piece(2, "red", "star", 3, 2))
    pos = Episode(rules("(pos:T, color:red)\n(color:black)"), b)
    assert pos.row == 1  # no red piece is in the top occupied row
    post = Episode(rules("(postpos:T, color:red)"), b)
    assert post.row == 0
    assert {pid for pid, bs in post.buckets().items() if bs} == {1}


# ------------------------------------------------------------------------------ properties


def test_property_clauses_do_not_restrict_shape_and_color_pieces() -> None:
    # the reference judges a shape-and-color piece on its shape and color only
    text = "(color:red, bucket:[0]) (foo:bar, bucket:[1])"
    ep = Episode(rules(text), board(piece(1, "blue", "square", 1, 1)))
    assert ep.finish == Finish.PLAYING and ep.buckets() == {1: {1}}
    assert ep.move(1, 1) == Code.ACCEPT and ep.finish == Finish.CLEARED
    for clause in ("species:cat", "position:3", "foo:[bar,baz]", "size:[1..2]"):
        assert Episode(rules(f"({clause}, bucket:[2])"), board(
            piece(0, "red", "star", 2, 2))).buckets() == {0: {2}}, clause
    # the extra keys of a board file are no properties either
    extra = Piece(0, "RED", "STAR", 2, 2, {"species": "dog"})
    assert Episode(rules("(species:cat, bucket:[3])"), board(extra)).buckets() == {0: {3}}
    # shape and color clauses still apply
    assert Episode(rules("(color:blue, foo:bar)\n(shape:star, bucket:[2])"), board(
        piece(0, "red", "star", 2, 2))).buckets() == {0: {2}}


def test_image_pieces_need_the_properties_a_clause_names() -> None:
    cat = piece(0, "red", "cat", 1, 1, species="cat", size=2)
    bare = Piece(1, "", "", 2, 1, {"species": "dog"}, image="test/dog.png")
    ep = Episode(rules("(species:cat, bucket:[0]) (color:red, bucket:[1]) (size:[2..3], "
                       "bucket:[2])"), board(cat, bare))
    assert ep.buckets() == {0: {0, 1, 2}, 1: frozenset()}  # the dog has no color or size
    wild = Piece(0, "", "", 1, 1, {"species": "*"}, image="test/any.png")
    assert Episode(rules("(species:cat, bucket:[3])"), board(wild)).buckets() == {0: {3}}


def test_conditions_follow_the_same_matching() -> None:
    square = piece(0, "blue", "square", 1, 1)
    row = rules("(foo:bar)").rows[0]
    assert matches_condition(row, square, board(square))  # no restriction for it
    cat = piece(0, "red", "cat", 1, 1, species="cat")
    assert not matches_condition(row, cat, board(cat))  # the cat has no 'foo'


# ------------------------------------------------------------------------------ GS5


def test_properties_and_ranges() -> None:
    ep = Episode(rules("(seq:[0..1], bucket:seq)\n()"), board(
        piece(0, "red", "star", 1, 1, seq=0), piece(1, "red", "star", 2, 1, seq=3)))
    assert ep.row == 1  # 'seq' is an undefined variable in a bucket field: row 0 moves nothing
    ep = Episode(rules("(seq:[0..1], bucket:this.seq)"), board(
        piece(0, "red", "star", 1, 1, seq=0), piece(1, "red", "star", 2, 1, seq=3)))
    assert ep.buckets() == {0: {0}, 1: frozenset()}


def test_jigsaw_example() -> None:
    text = "1 ()\n(seq:(last.seq+1)%4, bucket:p) (seq:(last.seq+3)%4, bucket:p)"
    ep = Episode(rules(text), board(*(piece(i, "red", "star", i + 1, 1, seq=i)
                                      for i in range(4))))
    assert ep.move(1, 2) == Code.ACCEPT
    assert ep.buckets() == {0: {2}, 2: {2}, 3: frozenset()}
    assert ep.move(3, 2) == Code.IMMOVABLE


def test_code_field_and_last() -> None:
    ep = Episode(rules("(code:!last) (code:this.pos==last.pos+1)"), board(
        piece(0, "red", "star", 1, 1), piece(1, "red", "star", 2, 1),
        piece(2, "red", "star", 4, 1)))
    assert all(ep.buckets().values())
    assert ep.move(0, 0) == Code.ACCEPT
    assert ep.buckets() == {1: {0, 1, 2, 3}, 2: frozenset()}


def test_last_color_and_bucket() -> None:
    ep = Episode(rules("1 ()\n(color:last.color, bucket:last.bucket)"), board(
        piece(0, "red", "star", 1, 1), piece(1, "red", "square", 2, 1),
        piece(2, "blue", "star", 3, 1)))
    assert ep.move(0, 3) == Code.ACCEPT
    assert ep.buckets() == {1: {3}, 2: frozenset()}


def test_q_bucket_per_bucket() -> None:
    # a bucket accepts a color only if it is empty or its last piece had that color
    text = "(code:!q.bucket) (color:q.bucket.color)"
    ep = Episode(rules(text), board(
        piece(0, "red", "star", 1, 1), piece(1, "red", "square", 2, 1),
        piece(2, "blue", "star", 3, 1)))
    assert ep.move(0, 0) == Code.ACCEPT
    assert ep.buckets() == {1: {0, 1, 2, 3}, 2: {1, 2, 3}}
    assert ep.move(2, 0) == Code.DENY


def test_p_prop_and_q_prop() -> None:
    ep = Episode(rules("2 ()\n(bucket:p.color) (code:!q.shape, bucket:0)"), board(
        piece(0, "red", "star", 1, 1), piece(1, "blue", "square", 2, 1),
        piece(2, "red", "circle", 3, 1), piece(3, "yellow", "star", 4, 1)))
    assert ep.move(0, 2) == Code.ACCEPT
    assert ep.move(1, 1) == Code.ACCEPT
    assert ep.buckets() == {2: {2, 0}, 3: frozenset()}


# ------------------------------------------------------------------------------ conditions


def test_matches_condition() -> None:
    cond = rules("(*,star,*,*,[0]) (*,*,red,*,[0,1])\n(*,*,*,L1,*)")
    b = board(piece(0, "red", "star", 1, 1), piece(1, "blue", "star", 2, 2),
              piece(2, "red", "square", 3, 6))
    row0, row1 = cond.rows
    assert matches_condition(row0, b.pieces[0], b, cond.orders)
    assert not matches_condition(row0, b.pieces[1], b, cond.orders)
    assert not matches_condition(row0, b.pieces[2], b, cond.orders)
    assert matches_condition(row1, b.pieces[2], b, cond.orders)
    assert not matches_condition(row1, b.pieces[0], b)
    disjoint = rules("(*,star,*,*,[0]) (*,star,*,*,[1])").rows[0]
    assert not matches_condition(disjoint, b.pieces[0], b)


# ------------------------------------------------------------------------------ copy


def test_copy_is_independent() -> None:
    ep = Episode(rules("(2,*,*,*,[0])\n(*,*,*,*,[1])"),
                 board(*(piece(i, "red", "star", i + 1, 1) for i in range(4))))
    assert ep.move(0, 0) == Code.ACCEPT
    snap = ep.copy()
    assert ep.move(1, 0) == Code.ACCEPT
    assert ep.row == 1
    assert (snap.row, snap.accepted, len(snap.board)) == (0, 1, 3)
    assert snap.buckets() == {1: {0}, 2: {0}, 3: {0}}
    assert snap.move(1, 1) == Code.DENY
    assert ep.attempts == 2 and snap.attempts == 2


# ------------------------------------------------------------------------------ sample rules


@needs_rules
def test_sample_shape_to_bucket() -> None:
    ep = Episode(sample("Rule-001.txt"), board(
        piece(0, "red", "star", 1, 1), piece(1, "red", "triangle", 2, 1),
        piece(2, "red", "square", 3, 1), piece(3, "red", "circle", 4, 1)))
    assert ep.buckets() == {0: {0}, 1: {1}, 2: {2}, 3: {3}}


@needs_rules
def test_sample_color_to_bucket() -> None:
    ep = Episode(sample("Rule-002.txt"), board(
        piece(0, "red", "star", 1, 1), piece(1, "blue", "star", 2, 1),
        piece(2, "black", "star", 3, 1), piece(3, "yellow", "star", 4, 1)))
    assert ep.buckets() == {0: {0}, 1: {1}, 2: {2}, 3: {3}}
    for pid in range(4):
        assert ep.move(pid, pid) == Code.ACCEPT
    assert ep.finish == Finish.CLEARED


@needs_rules
def test_sample_farthest_and_nearby() -> None:
    b = board(piece(0, "red", "star", 1, 1), piece(1, "red", "star", 3, 3),
              piece(2, "red", "star", 4, 4), piece(3, "red", "star", 2, 5))
    ep = Episode(sample("farthest.txt"), b)
    assert {pid for pid, bs in ep.buckets().items() if bs} == {1, 2}
    ep = Episode(sample("nearby.txt"), b)
    assert ep.buckets() == {0: {3}, 1: {3}, 2: {1}, 3: {0}}


@needs_rules
def test_sample_corners_stalemate() -> None:
    b = board(piece(0, "red", "star", 1, 1), piece(1, "red", "star", 3, 3))
    ep = Episode(sample("rules-04.txt"), b)
    assert ep.buckets() == {0: {3}, 1: frozenset()}
    assert ep.move(0, 3) == Code.ACCEPT
    assert ep.finish == Finish.STALEMATE


@needs_rules
def test_sample_custom_order_td01() -> None:
    ep = Episode(sample("TD-01.txt"), board(
        piece(0, "red", "star", 1, 1), piece(1, "red", "star", 6, 6),
        piece(2, "red", "star", 2, 6)))
    assert {pid for pid, bs in ep.buckets().items() if bs} == {1}
    assert ep.move(1, 2) == Code.ACCEPT
    assert ep.buckets() == {0: frozenset(), 2: {1}}  # (p+3)%4 after bucket 2


@needs_rules
def test_all_sample_rules_clear_or_stalemate() -> None:
    b = board(*(piece(i, LEGACY_COLORS[i % 4], LEGACY_SHAPES[i // 4 % 4], *xy_of(3 * i + 2))
                for i in range(10)))
    for path in sorted(RULES_DIR.glob("*.txt")):
        ep = Episode(read_ruleset(path), b)
        for _ in range(200):
            if ep.finish != Finish.PLAYING:
                break
            pid, bs = next((pid, bs) for pid, bs in ep.buckets().items() if bs)
            assert ep.move(pid, min(bs)) == Code.ACCEPT
        assert ep.finish != Finish.PLAYING, path.name


@needs_rules
def test_reusing_tables_matches_scratch_on_every_sample_rule_set() -> None:
    """Random play on every sample rule file (MLC ones included), step by step against an
    episode that computes every board from scratch."""
    from referee.games.gohr.board import GenParams, generate_board

    rng = random.Random(11)
    for path in sorted(RULES_DIR.rglob("*.txt")):
        rules_ = read_ruleset(path)
        for _ in range(3):
            b = generate_board(GenParams(4, 12, 0, 0, 0, 0), rng)
            fast, slow = Episode(rules_, b), Episode(rules_, b, reuse=False)
            for _ in range(80):
                if fast.finish != Finish.PLAYING:
                    break
                assert fast.buckets() == slow.buckets(), path.name
                piece = rng.choice(fast.board.pieces)
                bucket = rng.randrange(4)
                assert fast.move(piece.id, bucket) == slow.move(piece.id, bucket), path.name
            assert (fast.finish, fast.row, fast.board) == (slow.finish, slow.row, slow.board)


# ------------------------------------------------------------------------------ property


RULE_TEXTS = (
    "(*,*,*,*,*)",
    "(2,*,*,*,[0])\n(*,*,*,*,[1])",
    "1 ()\n(*,*,*,*,[(p+1)%4])",
    "(1,square,*,*,[0]) (1,circle,*,*,[1])\n(*,*,red,T,[2,3])",
    "(*,*,*,[1,6,31,36],[Nearby])",
    "(*,*,*,*,[pc,ps])",
    "(postpos:L1, color:[red,blue]) (shape:star, bucket:Remotest)",
    "(*,star,*,T,*)\n(*,square,*,B,*)\n(*,*,*,NearestObject,[Nearby])",
    "(code:!q.bucket) (color:q.bucket.color)",
    "(*,*,*,L1,[(p+1)%4,(p+2)%4])\n2 (*,*,*,NearestObject,*) (*,*,*,Farthest,[p])",
    "(pos:T, bucket:[last.x, last.y])\n(postpos:B, bucket:[p, 3])",
)


@st.composite
def random_boards(draw: st.DrawFn) -> Board:
    cells = draw(st.lists(st.integers(1, 36), min_size=1, max_size=12, unique=True))
    pieces = []
    for i, cell in enumerate(cells):
        x, y = xy_of(cell)
        pieces.append(Piece(i, draw(st.sampled_from(LEGACY_COLORS)),
                            draw(st.sampled_from(LEGACY_SHAPES)), x, y))
    return Board(tuple(pieces))


@settings(max_examples=150)
@given(
    text=st.sampled_from(RULE_TEXTS),
    b=random_boards(),
    moves=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 3)), max_size=60),
)
def test_random_play_invariants(text: str, b: Board, moves: list[tuple[int, int]]) -> None:
    ep = Episode(rules(text), b)
    scratch = Episode(rules(text), b, reuse=False)
    n_start = len(b)
    tried = 0
    for pid, bucket in moves:
        if ep.finish != Finish.PLAYING:
            code = ep.move(pid, bucket)
            assert code == Code.NO_GAME
            continue
        before = ep.buckets()
        snap = ep.copy()
        code = ep.move(pid, bucket)
        # reusing the tables of earlier boards changes nothing: the same code, the same state
        assert scratch.buckets() == before
        assert scratch.move(pid, bucket) == code
        assert scratch.finish == ep.finish and scratch.row == ep.row
        if pid not in before:
            assert code == Code.INVALID_ARGUMENTS
            continue
        tried += 1
        if code == Code.ACCEPT:
            assert bucket in before[pid]
        else:
            assert bucket not in before[pid]
            assert code == (Code.DENY if before[pid] else Code.IMMOVABLE)
        # the copy taken before the move is unaffected by it
        assert snap.buckets() == before

        assert snap.attempts == ep.attempts - 1
        assert len(snap.board) == len(ep.board) + (code == Code.ACCEPT)
    assert ep.attempts == tried
    assert ep.accepted == n_start - len(ep.board)
    assert (ep.finish, ep.row, ep.board) == (scratch.finish, scratch.row, scratch.board)
    assert (ep.finish == Finish.CLEARED) == (len(ep.board) == 0)
    if ep.finish == Finish.PLAYING:
        assert any(ep.buckets().values())
