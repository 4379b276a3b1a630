"""Tests of GOHR boards: cells, buckets, board files, ASCII art, generation and trial lists."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from gohr_data import DATA as GOHR_DATA
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.core.errors import ConfigError
from referee.games.gohr.board import (
    BUCKET_POS,
    LEGACY_COLORS,
    LEGACY_SHAPES,
    Board,
    BoardGenerationError,
    GenParams,
    Piece,
    bucket_at,
    cell_of,
    generate_board,
    generate_until,
    java_label,
    java_value,
    nearby,
    parse_board,
    parse_board_spec,
    parse_name_list,
    read_board,
    remotest,
    render_ascii,
    render_ascii_8,
    write_board,
    xy_of,
)
from referee.games.gohr.trials import (
    PredefinedBoards,
    board_source_from_row,
    params_from_row,
    read_trial_list,
)

DATA = GOHR_DATA
BOARDS = DATA / "boards"
needs_data = pytest.mark.skipif(not BOARDS.is_dir(), reason=f"sample data absent: {BOARDS}")


# --------------------------------------------------------------------------- cells and buckets


def test_cell_numbering_corners() -> None:
    assert cell_of(1, 1) == 1
    assert cell_of(6, 1) == 6
    assert cell_of(1, 6) == 31
    assert cell_of(6, 6) == 36


def test_cell_round_trip_all() -> None:
    seen = set()
    for x in range(1, 7):
        for y in range(1, 7):
            c = cell_of(x, y)
            assert c == x + (y - 1) * 6
            assert xy_of(c) == (x, y)
            seen.add(c)
    assert seen == set(range(1, 37))


@pytest.mark.parametrize("xy", [(0, 1), (7, 1), (1, 0), (1, 7)])
def test_cell_off_board(xy: tuple[int, int]) -> None:
    with pytest.raises(ValueError, match="off the 6x6 board"):
        cell_of(*xy)


@pytest.mark.parametrize("cell", [0, 37, -1])
def test_xy_bad_cell(cell: int) -> None:
    with pytest.raises(ValueError):
        xy_of(cell)


def test_buckets() -> None:
    assert dict(BUCKET_POS) == {0: (7, 0), 1: (7, 7), 2: (0, 7), 3: (0, 0)}
    for b, (row, col) in BUCKET_POS.items():
        assert bucket_at(row, col) == b
    assert bucket_at(0, 1) is None
    assert bucket_at(7, 3) is None


def _plain_nearby(x: int, y: int) -> int:
    top = y >= 4
    right = x >= 4
    if top:
        return 1 if right else 0
    return 2 if right else 3


def test_nearby_and_remotest_all_cells() -> None:
    for x in range(1, 7):
        for y in range(1, 7):
            assert nearby(x, y) == _plain_nearby(x, y)
            assert remotest(x, y) == _plain_nearby(7 - x, 7 - y)
            # the remotest bucket is the diagonally opposite one
            assert remotest(x, y) == (nearby(x, y) + 2) % 4


def test_nearby_corners() -> None:
    assert nearby(1, 6) == 0
    assert nearby(6, 6) == 1
    assert nearby(6, 1) == 2
    assert nearby(1, 1) == 3
    assert remotest(1, 1) == 1


# --------------------------------------------------------------------------- files


@needs_data
def test_read_every_sample_board() -> None:
    files = sorted(BOARDS.rglob("*.json"))
    assert files
    for path in files:
        board = read_board(path)
        assert len(board) > 0
        assert len({p.cell for p in board}) == len(board)
        assert parse_board(board.to_file_text(), "again") == board


@needs_data
def test_four_corners_contents() -> None:
    board = read_board(BOARDS / "four-corners.json")
    assert board.id == "Cvu0lwRnl"
    assert board.name == "Four squares in corners"
    assert [(p.id, p.color, p.shape, p.cell) for p in board] == [
        (1, "YELLOW", "SQUARE", 1),
        (6, "BLACK", "SQUARE", 6),
        (31, "RED", "SQUARE", 31),
        (36, "BLUE", "SQUARE", 36),
    ]


def _sample_board() -> Board:
    return Board(
        (
            Piece(0, "RED", "CIRCLE", 1, 6),
            Piece(1, "BLUE", "SQUARE", 3, 5),
            Piece(2, "YELLOW", "STAR", 6, 1),
            Piece(3, "BLACK", "TRIANGLE", 4, 3),
        ),
        id=0,
    )


def test_json_line_format() -> None:
    board = Board((Piece(0, "RED", "CIRCLE", 4, 3), Piece(1, "BLUE", "SQUARE", 3, 5)))
    assert board.to_json_line() == (
        '{"id":0,"value":[{"id":0,"color":"RED","shape":"CIRCLE","x":4,"y":3},'
        '{"id":1,"color":"BLUE","shape":"SQUARE","x":3,"y":5}]}'
    )
    assert board.to_json_line({0: {3, 0}}) == (
        '{"id":0,"value":[{"id":0,"color":"RED","shape":"CIRCLE","x":4,"y":3,"buckets":[0,3]},'
        '{"id":1,"color":"BLUE","shape":"SQUARE","x":3,"y":5,"buckets":[]}]}'
    )


def test_parse_server_line_ignores_buckets() -> None:
    line = (
        '{"id":0,"value":[{"id":0,"color":"BLUE","shape":"CIRCLE","x":4,"y":1,"buckets":[]},'
        '{"id":1,"color":"RED","shape":"CIRCLE","x":4,"y":3,"buckets":[0]}]}'
    )
    board = parse_board(line)
    assert board.to_json_line({1: [0]}) == line
    assert board.at(4, 3) == Piece(1, "RED", "CIRCLE", 4, 3)
    assert board.at(1, 1) is None


def test_file_round_trip(tmp_path: Path) -> None:
    board = Board(_sample_board().pieces, id="abc", name="A sample")
    path = tmp_path / "b.json"
    write_board(board, path)
    assert read_board(path) == board
    data = json.loads(path.read_text())
    assert set(data) == {"id", "value", "name"}


def test_extra_properties_round_trip() -> None:
    text = json.dumps(
        {
            "id": 1,
            "value": [
                {
                    "id": 0,
                    "color": "red",
                    "shape": "animals/Cat",
                    "x": 2,
                    "y": 2,
                    "brightness": "dark",
                },
                {"id": 1, "image": "animals/cat.png", "x": 3, "y": 3},
            ],
        }
    )
    board = parse_board(text)
    piece, cat = board.pieces
    assert piece.color == "RED"
    assert piece.shape == "animals/Cat"  # custom shapes keep their case
    assert piece.props == {"brightness": "dark"} and piece.image is None
    assert cat.image == "animals/cat.png" and (cat.color, cat.shape) == ("", "")
    assert parse_board(board.to_file_text()) == board
    assert json.loads(board.to_json_line())["value"][1] == {
        "id": 1, "image": "animals/cat.png", "x": 3, "y": 3}


def test_an_image_piece_shows_every_property_as_the_reference_spells_it() -> None:
    # Piece.getExtraFields: the properties after the fields, an integer as a number, no
    # empty value, no 'version' (JsonReflect leaves it out)
    props = {"species": "cat", "angle": "60", "b": "333", "color": "red", "tilt": "-5",
             "code": "007", "big": "2147483648", "ratio": "1.5", "version": "2"}
    cat = Piece(4, "", "", 2, 3, props, "animals/cat.png")
    shown = json.loads(Board((cat,)).to_json_line({4: [1]}))["value"][0]
    assert shown == {"id": 4, "color": "red", "x": 2, "y": 3, "image": "animals/cat.png",
                     "buckets": [1], "species": "cat", "angle": 60, "b": 333, "tilt": -5,
                     "code": 7, "big": "2147483648", "ratio": "1.5"}
    assert list(shown)[:6] == ["id", "color", "x", "y", "image", "buckets"]
    plain = Piece(0, "RED", "SQUARE", 1, 1, {"brightness": "9"})  # board-file keys, as is
    assert json.loads(Board((plain,)).to_json_line())["value"][0]["brightness"] == "9"


@given(st.integers(-(2**40), 2**40), st.sampled_from(["", "+", "0", "00"]))
def test_java_value_reads_what_integer_parseint_reads(number: int, prefix: str) -> None:
    text = (f"-{prefix.lstrip('+')}{-number}" if number < 0 and prefix != "+"
            else f"{prefix}{number}")
    fits = -(2**31) <= number < 2**31 and not (number < 0 and prefix == "+")
    assert java_value(text) == (number if fits else text)
    assert java_value(text + "x") == text + "x"


def test_labels_are_those_cgs_8_gives_board_file_pieces() -> None:
    board = parse_board('{"value":[{"id":1,"color":"red","shape":"star","x":1,"y":1},'
                        '{"id":2,"color":"red","shape":"star","x":2,"y":1},'
                        '{"id":3,"color":"red","shape":"star","x":3,"y":1},'
                        '{"id":7,"color":"red","shape":"star","x":6,"y":1},'
                        '{"color":"red","shape":"star","x":4,"y":1},'
                        '{"id":-2,"color":"red","shape":"star","x":5,"y":1}]}')
    assert [p.id for p in board] == [1, 2, 3, 7, 4, -2]  # no id: its place in the file
    assert [p.label for p in board] == ["B", "C", "D", "H", None, None]  # 'A' + id
    assert json.loads(board.to_json_line(labels=True))["value"][0] == {
        "id": 1, "color": "RED", "shape": "STAR", "x": 1, "y": 1, "label": "B"}
    assert "label" not in json.loads(board.to_json_line())["value"][0]
    assert (java_label(0), java_label(25), java_label(26), java_label(65471)) == (
        "A", "Z", "[", "\x00")  # char arithmetic: 16 bits
    drawn = generate_board(GenParams(5, 5), random.Random(1))
    assert all(p.label is None for p in drawn)  # 8.060 drops the labels of random boards


def test_a_piece_needs_a_color_and_a_shape_or_an_image() -> None:
    with pytest.raises(ConfigError, match="piece #1: needs a color and a shape, or an image"):
        parse_board('{"value":[{"id":0,"color":"red","x":1,"y":1,"seq":3}]}', "b.json")


def test_without_and_lookups() -> None:
    board = _sample_board()
    assert board.by_id(2) == Piece(2, "YELLOW", "STAR", 6, 1)
    assert board.at_cell(31) == Piece(0, "RED", "CIRCLE", 1, 6)
    smaller = board.without(2)
    assert len(smaller) == 3
    assert smaller.by_id(2) is None


def test_board_constructor_checks() -> None:
    with pytest.raises(ValueError, match="both on cell 1"):
        Board((Piece(0, "RED", "STAR", 1, 1), Piece(1, "RED", "STAR", 1, 1)))


def _piece(**kw: object) -> dict[str, object]:
    base: dict[str, object] = {"id": 0, "color": "RED", "shape": "STAR", "x": 1, "y": 1}
    base.update(kw)
    return base


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "bad.json: not valid JSON"),
        ("[1, 2]", "bad.json: a board must be a JSON object"),
        ('{"id": 1}', "bad.json: a board needs a 'value' list"),
        (json.dumps({"value": [_piece(x=7)]}), "bad.json: piece 0 is at x=7, y=1, off the"),
        (json.dumps({"value": [_piece(y=0)]}), "off the 6x6 board"),
        (
            json.dumps({"value": [_piece(), _piece(id=1)]}),
            "bad.json: pieces 0 and 1 are both on cell 1",
        ),
        (json.dumps({"value": [_piece(), _piece(x=2)]}), "bad.json: two pieces have id 0"),
        (json.dumps({"value": [_piece(x="left")]}), "piece #1: 'x' must be an integer"),
        (json.dumps({"value": [{"id": 0, "color": "RED", "x": 1}]}), "piece #1: missing 'y'"),
        (json.dumps({"value": [3]}), "piece #1 is not a JSON object"),
        (json.dumps({"value": [], "name": 5}), "'name' must be a string"),
    ],
)
def test_bad_board_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        read_board(path)
    assert str(path) in str(info.value)


def test_missing_board_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read board file"):
        read_board(tmp_path / "nope.json")


# --------------------------------------------------------------------------- ASCII


GOLDEN = "\n".join(
    [
        "#---+------------------------------",
        "# 6 |  rO    .    .    .    .    . ",
        "# 5 |   .    .  (g#)   .    .    . ",
        "# 4 |   .    .    .    .    .    . ",
        "# 3 |   .    .    .   bT    .    . ",
        "# 2 |   .    .    .    .    .  [ .]",
        "# 1 |   .    .    .    .    .  (y*)",
        "#---+------------------------------",
        "#   |   1    2    3    4    5    6 ",
    ]
)

SPEC_SAMPLE = "\n".join([
    '#---+------------------------------',
    '# 6 |   .    .    .    .    .    . ',
    '# 5 | (g#) (rO)   .    .    .    . ',
    '# 4 | (b#) (rO) (y#)   .    .    . ',
    '# 3 |   .    .    .    .    .    . ',
    '# 2 |   .    .    .    .    .    . ',
    '# 1 |   .    .    .    .    .    . ',
    '#---+------------------------------',
    '#   |   1    2    3    4    5    6 ',
])
"""The ASCII board of the manual's full-mode session (specs/gohr/captive.txt), byte for byte."""


def test_ascii_board_matches_the_manuals_sample_byte_for_byte() -> None:
    pieces = (Piece(0, "BLACK", "SQUARE", 1, 4), Piece(1, "RED", "CIRCLE", 2, 4),
              Piece(2, "YELLOW", "SQUARE", 3, 4), Piece(3, "BLUE", "SQUARE", 1, 5),
              Piece(4, "RED", "CIRCLE", 2, 5))
    assert render_ascii(Board(pieces), movable=range(5)) == SPEC_SAMPLE


def test_ascii_golden() -> None:
    assert render_ascii(_sample_board(), movable={1, 2}, last_cell=cell_of(6, 2)) == GOLDEN


def test_ascii_last_move_rejected_piece_in_brackets() -> None:
    text = render_ascii(_sample_board(), movable={0}, last_cell=31)
    assert text.splitlines()[1] == "# 6 | [rO]   .    .    .    .    . "


def test_the_ascii_board_of_cgs_8_marks_the_last_move() -> None:
    # 8.060 marks no movable piece: [..] the last-moved piece, ( .) the cell a move emptied
    lines = render_ascii_8(_sample_board(), last_piece=0, emptied=cell_of(3, 1)).splitlines()
    assert lines[0] == "#---+------------------------------"
    assert lines[1] == "# 6 | [rO]   .    .    .    .    . "
    assert lines[6] == "# 1 |   .    .  ( .)   .    .   y* "
    assert lines[8] == "#   |   1    2    3    4    5    6   "
    plain = render_ascii_8(_sample_board()).splitlines()
    assert "(" not in "".join(plain) and "[" not in "".join(plain)
    assert [line.replace("[", " ").replace("]", " ") for line in lines[1:6]] == plain[1:6]


def test_ascii_empty_board() -> None:
    lines = render_ascii(Board(())).splitlines()
    assert len(lines) == 9
    assert all(line.startswith("#") for line in lines)
    assert lines[3] == "# 4 |" + "   . " * 6


# --------------------------------------------------------------------------- generation


@st.composite
def gen_params(draw: st.DrawFn) -> GenParams:
    lo = draw(st.integers(1, 8))
    hi = draw(st.integers(lo, 12))
    cap = min(lo, 4)
    s_lo = draw(st.integers(0, cap))
    s_hi = draw(st.integers(s_lo, cap))
    c_lo = draw(st.integers(0, cap))
    c_hi = draw(st.integers(c_lo, cap))
    return GenParams(lo, hi, s_lo, s_hi, c_lo, c_hi)


@settings(max_examples=150)
@given(gen_params(), st.integers(0, 2**32))
def test_generation_properties(params: GenParams, seed: int) -> None:
    board = generate_board(params, random.Random(seed))
    n = len(board)
    assert params.min_objects <= n <= params.max_objects
    assert [p.id for p in board] == list(range(n))
    assert len({p.cell for p in board}) == n
    shapes = {p.shape for p in board}
    colors = {p.color for p in board}
    assert shapes <= set(LEGACY_SHAPES)
    assert colors <= set(LEGACY_COLORS)
    if params.min_shapes > 0:
        assert params.min_shapes <= len(shapes) <= params.max_shapes
    if params.min_colors > 0:
        assert params.min_colors <= len(colors) <= params.max_colors
    assert generate_board(params, random.Random(seed)) == board


@settings(max_examples=60)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(4, 10), st.integers(0, 2**32))
def test_exact_distinct_counts(k_shapes: int, k_colors: int, n: int, seed: int) -> None:
    params = parse_board_spec([str(n), str(k_shapes), str(k_colors)])
    board = generate_board(params, random.Random(seed))
    assert len(board) == n
    assert len({p.shape for p in board}) == k_shapes
    assert len({p.color for p in board}) == k_colors


def test_custom_lists() -> None:
    params = parse_board_spec(
        ["3", "2", "2"],
        colors=parse_name_list("red;pink"),
        shapes=parse_name_list("arrows/up; arrows/down ;"),
    )
    assert params.colors == ("RED", "PINK")
    assert params.shapes == ("arrows/up", "arrows/down")
    board = generate_board(params, random.Random(5))
    assert {p.color for p in board} == {"RED", "PINK"}
    assert {p.shape for p in board} == {"arrows/up", "arrows/down"}


def test_different_seeds_differ() -> None:
    # 20 seeds, 20 different boards: different cells, shapes and colors, each on its own
    params = parse_board_spec(["8"])
    boards = [generate_board(params, random.Random(s)) for s in range(20)]
    assert all(len(board) == 8 for board in boards)
    assert len({board.to_json_line() for board in boards}) == 20
    assert len({frozenset(p.cell for p in board) for board in boards}) == 20
    assert len({tuple(p.shape for p in board) for board in boards}) == 20
    assert len({tuple(p.color for p in board) for board in boards}) == 20


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["3"], (3, 3, 0, 0, 0, 0)),
        (["2:4"], (2, 4, 0, 0, 0, 0)),
        (["5", "2", "3"], (5, 5, 2, 2, 3, 3)),
        (["5", "1:3", "3:4"], (5, 5, 1, 3, 3, 4)),
        (["4:6", "4", "3:4"], (4, 6, 4, 4, 3, 4)),
    ],
)
def test_spec_parser_good(args: list[str], expected: tuple[int, ...]) -> None:
    p = parse_board_spec(args)
    assert (
        p.min_objects,
        p.max_objects,
        p.min_shapes,
        p.max_shapes,
        p.min_colors,
        p.max_colors,
    ) == expected
    assert p.colors == LEGACY_COLORS
    assert p.shapes == LEGACY_SHAPES


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "expected 1 argument"),
        (["3", "2"], "expected 1 argument"),
        (["x"], "bad number of objects 'x'"),
        (["1:2:3"], "bad number of objects"),
        (["4:2"], "1 <= min <= max"),
        (["0"], "1 <= min <= max"),
        (["37"], "<= 36"),
        (["5", "a", "2"], "bad number of shapes"),
        (["5", "2", "3:x"], "bad number of colors"),
        (["5", "0", "2"], "must be >= 1"),
        (["5", "5", "2"], "only 4 available"),
        (["2", "3", "1"], "must not exceed the minimum number of objects"),
        (["2:5", "1", "3"], "must not exceed the minimum number of objects"),
    ],
)
def test_spec_parser_bad(args: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_board_spec(args)


def test_spec_with_bad_custom_lists() -> None:
    with pytest.raises(ConfigError, match="list of colors is empty"):
        parse_board_spec(["3"], colors=[])
    with pytest.raises(ConfigError, match="duplicates"):
        parse_board_spec(["3"], colors=["red", "RED"])


def test_generate_until_success() -> None:
    # the first board of the source that meets the condition, after as many tries as it took
    params = parse_board_spec(["3"])
    replay = random.Random(1)
    drawn = [generate_board(params, replay) for _ in range(30)]
    first = next(i for i, b in enumerate(drawn) if b.at_cell(1) is not None)
    assert first > 0  # the loop is exercised (with seed 1: the 9th board)
    rng = random.Random(1)
    tried: list[Board] = []

    def has_cell_1(board: Board) -> bool:
        tried.append(board)
        return board.at_cell(1) is not None

    board = generate_until(lambda: generate_board(params, rng), has_cell_1)
    assert board == drawn[first]
    assert tried == drawn[:first + 1]
    assert generate_board(params, rng) == drawn[first + 1]  # nothing drawn beyond it


def test_generate_until_gives_up() -> None:
    params = parse_board_spec(["3"])
    calls = 0

    def never(_: Board) -> bool:
        nonlocal calls
        calls += 1
        return False

    rng = random.Random(1)
    with pytest.raises(BoardGenerationError, match="in 1000 tries") as info:
        generate_until(lambda: generate_board(params, rng), never)
    assert calls == 1000
    assert isinstance(info.value, ConfigError)
    with pytest.raises(BoardGenerationError, match="in 7 tries"):
        generate_until(lambda: generate_board(params, rng), never, tries=7)


# --------------------------------------------------------------------------- trial lists


@needs_data
def test_predefined_orders() -> None:
    folder = BOARDS / "vertical-bars"
    alpha = PredefinedBoards(folder, "alpha", random.Random(0))
    names = [f"vb-{i}.json" for i in range(1, 7)]
    assert alpha.names == tuple(names)
    seq = [alpha.next_board() for _ in range(7)]
    assert seq[0] == read_board(folder / "vb-1.json")
    assert seq[6] == seq[0]
    rev = PredefinedBoards(folder, "reverse.csv", random.Random(0))
    assert rev.names == tuple(reversed(names))
    rnd = PredefinedBoards(folder, "random", random.Random(3))
    first_pass = [rnd.next_board() for _ in range(6)]
    assert sorted(map(str, (b.id for b in first_pass))) == sorted(
        str(read_board(folder / n).id) for n in names
    )


def test_predefined_bad(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        PredefinedBoards(tmp_path / "none", "alpha", random.Random(0))
    with pytest.raises(ConfigError, match="no board files"):
        PredefinedBoards(tmp_path, "alpha", random.Random(0))
    with pytest.raises(ConfigError, match="expected 'random', 'alpha'"):
        PredefinedBoards(tmp_path, "sideways", random.Random(0))


@needs_data
def test_trial_lists() -> None:
    rows = read_trial_list(DATA / "trial-lists" / "default" / "trial_1.csv")
    params = params_from_row(rows[0], "trial_1.csv row 1")
    assert (
        params.min_objects,
        params.max_objects,
        params.min_shapes,
        params.max_shapes,
        params.min_colors,
        params.max_colors,
    ) == (4, 6, 4, 4, 3, 4)
    source = board_source_from_row(rows[0], BOARDS, random.Random(2))
    assert 4 <= len(source()) <= 6
    rows = read_trial_list(DATA / "trial-lists" / "vm20201015" / "trial_1.csv")
    predefined = [r for r in rows if r.get("initial_boards")]
    assert predefined
    for row in predefined:
        board = board_source_from_row(row, BOARDS, random.Random(2))()
        assert len(board) > 0


def test_params_from_row_errors() -> None:
    with pytest.raises(ConfigError, match="row 2: missing min_objects"):
        params_from_row({}, "row 2")
    row = {
        "min_objects": "3",
        "max_objects": "4",
        "min_shapes": "1",
        "max_shapes": "x",
        "min_colors": "1",
        "max_colors": "2",
    }
    with pytest.raises(ConfigError, match="max_shapes must be an integer"):
        params_from_row(row, "row 2")
    row["max_shapes"] = "2"
    row["colors"] = "red;pink"
    assert params_from_row(row).colors == ("RED", "PINK")
