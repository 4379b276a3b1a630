"""Conversations through the pipe server where the Java CGS 8.060 was found to answer
differently (issue 19): each asserts the reference's exact answers."""

from __future__ import annotations

from pathlib import Path

from test_captive import Server


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
