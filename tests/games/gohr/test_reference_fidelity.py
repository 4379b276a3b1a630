"""Conversations through the pipe server where the Java CGS 8.060 was found to answer
differently (issues 19 and 37): each asserts the reference's exact answers."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from gohr_data import DATA as GOHR_DATA
from hypothesis import given, settings
from hypothesis import strategies as st
from image_data import make_image_data
from test_captive import Server

from referee.games.gohr.captive import CaptiveSession
from referee.games.gohr.setup import build_setup
from referee.games.gohr.socket_server import CaptiveSocketServer, ServerConfig

needs_data = pytest.mark.skipif(not GOHR_DATA.is_dir(), reason=f"{GOHR_DATA} is absent")


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _raw_lines(server: Server, count: int) -> list[str]:
    """The next ``count`` lines, comments included."""
    return [server.stdout.readline().decode().rstrip("\n") for _ in range(count)]


def test_a_property_clause_is_no_restriction_for_a_shape_and_color_piece(
        tmp_path: Path) -> None:
    rules = _write(tmp_path / "rules.txt", "(color:red, bucket:[0]) (foo:bar, bucket:[1])\n")
    board = _write(tmp_path / "board.json",
                   '{"id":0,"value":[{"id":1,"color":"blue","shape":"square","x":1,"y":1}]}')
    server = Server(str(rules), str(board), "output=standard", cwd=tmp_path)
    opening = _raw_lines(server, 3)
    assert opening[0] == "6 0 0"
    assert opening[2] == ('{"id":0,"value":[{"id":1,"color":"BLUE","shape":"SQUARE",'
                          '"x":1,"y":1,"buckets":[1]}]}')
    server.send("MOVE 1 1\n")
    assert _raw_lines(server, 3) == ["0 1 1", "# Game finished - the board is clear",
                                     '{"id":0,"value":[]}']
    assert server.close() == 0


def test_a_signed_move_argument_is_two_tokens_and_gets_no_board(tmp_path: Path) -> None:
    # Java's tokenizer reads "-1" as '-' and '1': three arguments, -2 and no board line
    rules = _write(tmp_path / "rules.txt", "(*,*,*,*,[1])\n")
    board = _write(tmp_path / "board.json",
                   '{"id":0,"value":[{"id":1,"color":"blue","shape":"square","x":1,"y":1}]}')
    server = Server(str(rules), str(board), "output=standard", cwd=tmp_path)
    _raw_lines(server, 3)
    server.send("MOVE 1 -1\nMOVE -1 1\nDISPLAY\n")
    answers = _raw_lines(server, 5)
    assert [answers[0], answers[2]] == ["-2 0 0", "-2 0 0"]
    assert answers[1].startswith("# ") and answers[3].startswith("# ")
    assert answers[4].startswith('{"id":0,"value":[{"id":1,')  # DISPLAY: no board line before
    server.send("MOVE 1 1 # a comment ends the line\n")
    assert _raw_lines(server, 3) == ["0 1 1", "# Game finished - the board is clear",
                                     '{"id":0,"value":[]}']
    assert server.close() == 0


FOUR = GOHR_DATA / "boards" / "four-corners.json"  # ids 1, 6, 31, 36; board id "Cvu0lwRnl"


@needs_data
@pytest.mark.parametrize(("version", "unknown", "board_id", "labels", "shown"), [
    ((), -2, '"Cvu0lwRnl"', False, "7.007-referee"),       # 7.x, the default
    (("version=7",), -2, '"Cvu0lwRnl"', False, "7.007-referee"),
    (("version=8",), -10, "0", True, "8.060-referee"),     # INVALID_OBJECT_ID, id 0, labels
])
def test_version_8_gives_the_codes_and_the_board_display_of_cgs_8(
        tmp_path: Path, version: tuple[str, ...], unknown: int, board_id: str, labels: bool,
        shown: str) -> None:
    rules = _write(tmp_path / "rules.txt", "(*,*,*,*,[1,2])\n")
    server = Server(str(rules), str(FOUR), "output=standard", *version, cwd=tmp_path)
    opening = _raw_lines(server, 3)
    assert opening[0] == "6 0 0" and f"ver. {shown}." in opening[1]
    assert opening[2].startswith(f'{{"id":{board_id},"value":[')
    pieces = json.loads(opening[2])["value"]
    if labels:  # 'A' + id, as Piece.setId of 8.060 sets them, before the buckets
        assert [(p["id"], p["label"]) for p in pieces] == [
            (1, "B"), (6, "G"), (31, "`"), (36, "e")]
        assert list(pieces[0]) == ["id", "color", "shape", "x", "y", "label", "buckets"]
    else:
        assert all("label" not in p for p in pieces)
    server.send("MOVE 99 1\nMOVE 1 9\nMOVE 6 2\nVERSION\n")
    answers = _raw_lines(server, 9 if labels else 8)
    assert answers[0] == f"{unknown} 0 0" and answers[1] == "# no piece 99 on the board"
    assert answers[3] == "-2 0 0"  # a bucket outside 0..3 is INVALID_ARGUMENTS in both
    assert answers[6] == "0 0 1"
    if labels:  # 8.060 prints the accepted move's missing message
        assert answers.pop(7) == "# null"
    left = json.loads(answers[7])["value"]
    assert [p["id"] for p in left] == [1, 31, 36]
    if labels:  # a piece keeps its label when others leave
        assert [p["label"] for p in left] == ["B", "`", "e"]
    assert _raw_lines(server, 1) == [f"# {shown}"]
    assert server.close() == 0


THREE = ('{"id":"three","value":[{"id":1,"color":"red","shape":"circle","x":1,"y":1},'
         '{"id":2,"color":"blue","shape":"star","x":2,"y":1},'
         '{"id":3,"color":"blue","shape":"star","x":3,"y":6}]}')
"""Pieces 1, 2, 3 (labels B, C, D in 8.060)."""


def test_version_8_answers_every_move_with_a_comment_and_resets_the_mode_at_new(
        tmp_path: Path) -> None:
    rules = _write(tmp_path / "rules.txt", "(*,*,*,*,[0])\n")
    board = _write(tmp_path / "board.json", THREE)
    server = Server(str(rules), str(board), "output=standard", "version=8", cwd=tmp_path)
    opening = _raw_lines(server, 3)
    assert [p["label"] for p in json.loads(opening[2])["value"]] == ["B", "C", "D"]
    server.send("MOVE 1 1\nMOVE 1 0\nMODE brief\nMOVE 2 3\nMOVE 2 0\nMOVE 3 0\n")
    assert _raw_lines(server, 2) == ["4 0 1", "# null"]  # Episode.playGame: '# ' + null
    assert json.loads(_raw_lines(server, 1)[0])["value"][0]["label"] == "B"
    assert _raw_lines(server, 2) == ["0 0 2", "# null"]
    _raw_lines(server, 1)
    assert _raw_lines(server, 5) == ["# OK, mode=BRIEF", "4 0 3", "# null", "0 0 4", "# null"]
    assert _raw_lines(server, 2) == ["0 1 5", "# null"]  # brief: no message, even here
    server.send("NEW\nMOVE 1 0\nMOVE 2 0\nMOVE 3 0\n")  # standard again after NEW
    assert _raw_lines(server, 3)[0] == "6 0 0"
    assert _raw_lines(server, 6)[::3] == ["0 0 1", "0 0 2"]
    assert _raw_lines(server, 3)[:2] == ["0 1 3", "# Game cleared - the board is clear"]
    assert server.close() == 0


def test_version_7_keeps_its_move_answers(tmp_path: Path) -> None:
    rules = _write(tmp_path / "rules.txt", "(*,*,*,*,[0])\n")
    board = _write(tmp_path / "board.json", THREE)
    server = Server(str(rules), str(board), "output=standard", cwd=tmp_path)
    opening = _raw_lines(server, 3)
    assert all("label" not in p for p in json.loads(opening[2])["value"])
    server.send("MODE brief\nMOVE 1 1\nNEW\nMOVE 1 1\n")  # the mode outlives NEW
    assert _raw_lines(server, 2) == ["# OK, mode=BRIEF", "4 0 1"]
    assert _raw_lines(server, 3)[0] == "6 0 0"
    assert _raw_lines(server, 1) == ["4 0 1"]
    assert server.close() == 0


def test_version_8_ascii_board_marks_the_last_move_as_8060_does(tmp_path: Path) -> None:
    rules = _write(tmp_path / "rules.txt", "(*,*,*,*,[0])\n")
    board = _write(tmp_path / "board.json", THREE)
    server = Server(str(rules), str(board), "output=full", "version=8", cwd=tmp_path)
    art = _raw_lines(server, 12)[3:]
    assert art[1] == "# 6 |   .    .   g*    .    .    . "  # no mark on the movable
    assert art[6] == "# 1 |  rO   g*    .    .    .    . "
    assert art[8] == "#   |   1    2    3    4    5    6   "
    server.send("MOVE 2 1\n")  # refused: the piece in brackets
    assert _raw_lines(server, 12)[3:][6] == "# 1 |  rO  [g*]   .    .    .    . "
    server.send("MOVE 1 1 7 0\n")  # accepted by its cell: the emptied cell in parentheses
    lines = _raw_lines(server, 12)
    assert lines[:2] == ["0 0 2", "# null"]
    assert lines[3:][6] == "# 1 | ( .)  g*    .    .    .    . "
    server.send("MOVE 4 4 7 0\n")  # an empty cell: no mark left
    lines = _raw_lines(server, 12)
    assert lines[0] == "3 0 2" and "(" not in "".join(lines[3:]) and "[" not in "".join(lines[3:])
    assert server.close() == 0


@pytest.mark.parametrize(("command", "answer"), [
    ('"MOVE" 1 0', ["-1 0 0", "# Invalid input: a command is a word (HELP lists them)"]),
    ('MOVE "1" 0', ["-2 0 0", "# MOVE takes: piece_id bucket_id, or row col bucket_row "
                              "bucket_col (unsigned numbers)"]),
    ('MODE "brief"', ["-2 0 0", "# MODE brief|standard|full"]),
    ('COND "test"', ["-2 0 0", "# COND [train|test]"]),
    ("MOVE 1 0 ;", ["-1 0 0", "# Invalid input - cannot parse"]),
    ("MOVE 1 0 ?", ["-1 0 0", "# Invalid input - cannot parse"]),
    ("MOVE \u00b2 0", ["-1 0 0", "# Invalid input - cannot parse"]),  # '²' is no digit
    ("MOVE 1\u00a00", ["-1 0 0", "# Invalid input - cannot parse"]),  # nor NBSP a space
    ("MOVE 99999999999 0", ["-2 0 0", "# MOVE: 99999999999 is too large (at most 2147483647)"]),
    ("MOVE 0 " + "9" * 5000, ["-2 0 0", f"# MOVE: {'9' * 20} is too large (at most "
                                        "2147483647)"]),  # past int()'s 4,300 digits
])
def test_the_command_line_is_read_as_the_reference_tokenizer_reads_it(
        tmp_path: Path, command: str, answer: list[str]) -> None:
    rules = _write(tmp_path / "rules.txt", "(*,*,*,*,[0])\n")
    board = _write(tmp_path / "board.json", THREE)
    server = Server(str(rules), str(board), "output=standard", cwd=tmp_path)
    _raw_lines(server, 3)
    server.send(f"{command}\nMOVE \u0661 0 # Arabic-Indic one: a digit\n")
    assert _raw_lines(server, 2) == answer
    assert _raw_lines(server, 1) == ["0 0 1"]
    assert server.close() == 0


PIECES = ["MOVE", "MODE", "COND", "NEW", "DISPLAYFULL", "FEATURES", " ", "0", "1", "7",
          "99999999999", "\u00b2", "\u0661", "\u00a0", '"', "#", "-", ";", "==", "..", "brief",
          "full", "\t", "\x00", "\ufffd", "\U0001d400"]
"""Bits of command lines the tokenizer treats apart."""


@settings(max_examples=400, deadline=5000)
@given(st.one_of(st.text(max_size=40), st.lists(st.sampled_from(PIECES), max_size=8).map(
    "".join)))
def test_no_command_line_breaks_the_session(line: str) -> None:
    session = CaptiveSession(build_setup([str(GOHR_DATA / "rules" / "Rule-001.txt"), "3",
                                          "seed=1", "output=full", "version=8"]))
    session.new_episode()
    for text in (line, f"MOVE {line}", f"MODE {line}", f"MOVE 0 {line}"):
        answer, done = session.handle(text + "\n")
        assert all(isinstance(out, str) and "\n" not in out for out in answer)
        assert done or not answer or answer[0].startswith(("#", "{")) or \
            answer[0].split()[0].lstrip("-").isdigit()


# ------------------------------------------------------------------------ image objects (8b)


def test_a_trial_list_of_image_objects_is_played(tmp_path: Path) -> None:
    make_image_data(tmp_path)
    server = Server("trial-lists/zoo.csv", "1", "seed=3", "output=standard", cwd=tmp_path)
    opening = _raw_lines(server, 3)
    assert opening[0] == "6 0 0"
    pieces = json.loads(opening[2])["value"]
    assert len(pieces) == 3
    expected = {"animals/cat.png": [0], "animals/dog.png": [1], "animals/owl.png": [2]}
    for piece in pieces:
        assert piece["buckets"] == expected[piece["image"]]  # color_indices:1, species:dog, ...
        assert ("color" in piece) == (piece["image"] != "animals/owl.png")
    server.send("FEATURES\n")
    assert _raw_lines(server, 1) == ['{"name":["cat","dog","owl"],"species":["cat","dog","owl"],'
                                     '"color":["blue","red"],"color_indices":[1,2,3]}']
    for k, piece in enumerate(pieces, start=1):
        server.send(f"MOVE {piece['id']} {piece['buckets'][0]}\n")
        status = _raw_lines(server, 1)[0]
        assert status == (f"0 1 {k}" if k == 3 else f"0 0 {k}")
        _raw_lines(server, 2 if k == 3 else 1)
    assert server.close() == 0


def test_predefined_image_boards_show_their_pieces(tmp_path: Path) -> None:
    make_image_data(tmp_path)
    server = Server("trial-lists/zoo.csv", "2", "output=full", cwd=tmp_path)
    opening = _raw_lines(server, 3)
    assert opening[2] == ('{"id":"zoo-1","value":[{"id":0,"color":"red","x":1,"y":1,'
                          '"image":"animals/cat.png","buckets":[0],"name":"cat",'
                          '"species":"cat","color_indices":1},{"id":1,"x":6,"y":6,'
                          '"image":"animals/owl.png","buckets":[2],"name":"owl",'
                          '"species":"owl","color_indices":3}]}')
    art = _raw_lines(server, 9)
    assert art[1] == "# 6 |   .    .    .    .    .  ( o)"
    assert art[6] == "# 1 | (rc)   .    .    .    .    . "
    server.send("MOVE 1 0\n")
    assert _raw_lines(server, 1) == ["4 0 1"]  # the owl goes to bucket 2 only
    assert server.close() == 0


def test_composite_objects_take_their_properties_from_their_names(tmp_path: Path) -> None:
    make_image_data(tmp_path)
    server = Server("trial-lists/zoo.csv", "3", "seed=5", "output=standard", cwd=tmp_path)
    pieces = json.loads(_raw_lines(server, 3)[2])["value"]
    assert len(pieces) == 4
    for piece in pieces:
        sizes = piece["image"].split("/d=")[1][:3] if "/d=" in piece["image"] else "333"
        growing = list(sizes) == sorted(sizes) and len(set(sizes)) > 1
        assert piece["buckets"] == ([1] if growing else [3]), piece["image"]
        assert piece["image"].startswith("/composite/h3/") and piece["image"].endswith(
            "/gq/rq/bq")
    server.send("FEATURES\n")
    features = json.loads(_raw_lines(server, 1)[0])
    assert features["d_order"] == [-1, 0, 1, 2] and features["c"] == ["grb"]
    assert len(features["name"]) == 27
    assert server.close() == 0


def test_a_board_file_of_image_pieces_from_the_command_line(tmp_path: Path) -> None:
    make_image_data(tmp_path)
    server = Server("rules/animals.txt", "boards/zoo/one.json", "output=standard",
                    cwd=tmp_path)
    assert json.loads(_raw_lines(server, 3)[2])["value"][1]["buckets"] == [2]
    assert server.close() == 0


def test_image_objects_over_the_socket(tmp_path: Path) -> None:
    make_image_data(tmp_path)
    srv = CaptiveSocketServer(("127.0.0.1", 0), ServerConfig(tmp_path))
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        with socket.create_connection(srv.server_address[:2], timeout=10) as sock:
            stream = sock.makefile("rwb")
            stream.write(b"GAME trial-lists/zoo.csv 2\n")
            stream.flush()
            lines = [stream.readline().decode().rstrip("\n") for _ in range(3)]
            assert lines[0] == "6 0 0"
            assert json.loads(lines[2])["value"][0]["image"] == "animals/cat.png"
            stream.write(b"MOVE 0 0\n")
            stream.flush()
            assert stream.readline().decode().rstrip("\n") == "0 0 1"
    finally:
        srv.shutdown()
        srv.server_close()


# ------------------------------------------------------------------- conditions (8c, 8d)


def test_a_trial_lists_condition_column_is_honoured(tmp_path: Path) -> None:
    make_image_data(tmp_path)
    server = Server("trial-lists/zoo.csv", "5", "seed=1", "output=standard", cwd=tmp_path)
    for _ in range(20):  # training: all 9 pieces in the top-left quarter, every board
        pieces = json.loads(server.lines(2)[1])["value"]
        assert len(pieces) == 9 and all(p["x"] <= 3 and p["y"] >= 4 for p in pieces)
        server.send("NEW\n")
    server.lines(2)
    server.send("COND test\n")
    assert server.comment() == "# OK, cond=test"
    for _ in range(20):
        server.send("NEW\n")
        pieces = json.loads(server.lines(2)[1])["value"]
        assert any(p["x"] > 3 or p["y"] < 4 for p in pieces)
    assert server.close() == 0


def test_a_missing_condition_file_of_a_trial_list_stops_the_server(tmp_path: Path) -> None:
    make_image_data(tmp_path)
    run = subprocess.run([sys.executable, "-m", "referee.cli", "play", "gohr",
                          "trial-lists/zoo.csv", "6"], input=b"EXIT\n", capture_output=True,
                         timeout=60, cwd=tmp_path)
    assert run.returncode == 2 and run.stdout == b""
    assert run.stderr.decode() == (f"referee: error: {tmp_path}/cond/no-such-condition.txt: "
                                   "no such condition file (condTest of trial-lists/zoo.csv "
                                   "row 6)\n")


def test_dense_position_only_conditions_place_the_pieces_directly(tmp_path: Path) -> None:
    make_image_data(tmp_path)
    rules = _write(tmp_path / "bottom_then_top.txt", "(*,*,*,B,*)\n(*,*,*,T,*)\n")
    server = Server(f"condTrain={tmp_path / 'cond' / 'top-left-quarter.txt'}", str(rules),
                    "9", "4", "4", "seed=2", "output=standard", cwd=tmp_path)
    for _ in range(10):  # the quarter has 9 cells: every one holds a piece
        pieces = json.loads(server.lines(2)[1])["value"]
        assert sorted((p["x"], p["y"]) for p in pieces) == [
            (x, y) for x in (1, 2, 3) for y in (4, 5, 6)]
        assert len({p["shape"] for p in pieces}) == 4 == len({p["color"] for p in pieces})
        server.send("NEW\n")
    assert server.close() == 0
