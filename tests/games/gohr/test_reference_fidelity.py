"""Conversations through the pipe server where the Java CGS 8.060 was found to answer
differently (issue 19): each asserts the reference's exact answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gohr_data import DATA as GOHR_DATA
from test_captive import Server

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
    if labels:
        assert [(p["id"], p["label"]) for p in pieces] == [
            (1, "A"), (6, "B"), (31, "C"), (36, "D")]
        assert list(pieces[0]) == ["id", "label", "color", "shape", "x", "y", "buckets"]
    else:
        assert all("label" not in p for p in pieces)
    server.send("MOVE 99 1\nMOVE 1 9\nMOVE 6 2\nVERSION\n")
    answers = _raw_lines(server, 8)
    assert answers[0] == f"{unknown} 0 0" and answers[1] == "# no piece 99 on the board"
    assert answers[3] == "-2 0 0"  # a bucket outside 0..3 is INVALID_ARGUMENTS in both
    assert answers[6] == "0 0 1"
    left = json.loads(answers[7])["value"]
    assert [p["id"] for p in left] == [1, 31, 36]
    if labels:  # a piece keeps its label when others leave
        assert [p["label"] for p in left] == ["A", "C", "D"]
    assert _raw_lines(server, 1) == [f"# {shown}"]
    assert server.close() == 0
