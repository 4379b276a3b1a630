"""The pipe-based captive server as a real program: the conversation, codes, modes, the
results file, and bad input that never crashes it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from gohr_data import DATA as GOHR_DATA

DATA = GOHR_DATA
RULE = DATA / "rules" / "Rule-001.txt"
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"sample data {DATA} is absent")


class Server:
    """``referee gohr ARGS`` over real pipes, answered command by command."""

    def __init__(self, *args: str, cwd: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "play", "gohr", *args],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, cwd=cwd)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout

    def lines(self, count: int) -> list[str]:
        """The next ``count`` lines that are not comments (comments are skipped)."""
        out: list[str] = []
        while len(out) < count:
            line = self.stdout.readline().decode()
            assert line, "the server closed its output"
            if not line.startswith("#"):
                out.append(line.rstrip("\n"))
        return out

    def comment(self) -> str:
        """The next line, which must be a comment."""
        line = self.stdout.readline().decode().rstrip("\n")
        assert line.startswith("#"), line
        return line

    def send(self, data: bytes | str) -> None:
        """Write a command (or raw bytes)."""
        self.stdin.write(data.encode() if isinstance(data, str) else data)
        self.stdin.flush()

    def close(self) -> int:
        """Wait for the end; the exit code."""
        self.stdin.close()
        return self.proc.wait(timeout=30)


def status(line: str) -> tuple[int, int, int]:
    """A status line as numbers."""
    code, finish, attempts = (int(x) for x in line.split())
    return code, finish, attempts


def test_a_whole_session_over_pipes_with_its_results_file(tmp_path: Path) -> None:
    results = tmp_path / "results.csv"
    server = Server(str(RULE), "4", "seed=5", f"log={results}", "log.nickname=Tester",
                    cwd=tmp_path)
    first, board = server.lines(2)
    assert status(first) == (6, 0, 0)
    pieces = json.loads(board)["value"]
    assert len(pieces) == 4 and all(p["buckets"] for p in pieces)
    attempts = 0
    for piece in pieces:  # a wrong bucket first, then the one offered
        wrong = next(b for b in range(4) if b not in piece["buckets"])
        server.send(f"MOVE {piece['id']} {wrong}\n")
        line, _ = server.lines(2)
        attempts += 1
        assert status(line) == (4, 0, attempts)  # DENY
        server.send(f"MOVE {piece['id']} {piece['buckets'][0]}\n")
        line, shown = server.lines(2)
        attempts += 1
        code, finish, count = status(line)
        assert code == 0 and count == attempts
        assert piece["id"] not in [p["id"] for p in json.loads(shown)["value"]]
    assert finish == 1  # cleared
    server.send("MOVE 0 0\n")
    line, shown = server.lines(2)  # the board still follows, as in the reference
    assert status(line) == (-4, 1, attempts)  # no game any more, not counted
    assert json.loads(shown)["value"] == []
    server.send("NEW\n")
    assert status(server.lines(2)[0]) == (6, 0, 0)
    server.send("EXIT\n")
    assert status(server.lines(1)[0])[0] == 5
    assert server.comment() == "# Goodbye"
    assert server.close() == 0
    assert results.read_text().splitlines() == [
        "#nickname,rule_name,trial_id,board_id,number_of_pieces,number_of_moves,move_acc,"
        "if_clear",
        "Tester,Rule-001,0,0,4,8,0.5,1",
        "Tester,Rule-001,0,1,4,0,0.0,0",
    ]


def test_modes_and_the_other_commands(tmp_path: Path) -> None:
    server = Server(str(RULE), str(DATA / "boards" / "four-corners.json"), "output=full",
                    cwd=tmp_path)
    server.lines(2)
    ascii_board = [server.comment() for _ in range(9)]
    assert ascii_board[0] == "#---+------------------------------"
    server.send("MODE brief\n")
    assert server.comment() == "# OK, mode=BRIEF"
    server.send("MOVE 1 1 0 0\n")  # legacy form: the piece at row 1 col 1, bucket (0,0)
    assert len(server.lines(1)) == 1
    server.send("FEATURES\n")
    assert json.loads(server.lines(1)[0]) == {
        "shape": ["SQUARE", "STAR", "CIRCLE", "TRIANGLE"],
        "color": ["RED", "BLACK", "BLUE", "YELLOW"]}
    server.send("COND test\n")
    assert server.comment() == "# OK, cond=test"
    server.send("DISPLAYFULL\n")
    assert json.loads(server.lines(1)[0])["value"]
    assert server.comment().startswith("#---+")
    server.send("EXIT\n")
    assert server.close() == 0


@pytest.mark.parametrize(("command", "code", "board_follows"), [
    (b"JUMP\n", -1, False), (b"MOVE\n", -2, False), (b"MOVE a b\n", -2, False),
    (b"MOVE 1 2 3\n", -2, False), (b"MOVE 0 9\n", -2, True), (b"MOVE 0 -1\n", -2, False),
    (b"MOVE +0 1\n", -2, False), (b"MOVE 0 1a\n", -2, False), (b"# only a comment\n", -1, False),
    (b"MOVE 7 7 3 3\n", -2, True), (b"MOVE 1 1 7 5\n", -2, True), (b"MOVE 99 0\n", -2, True),
    (b"\xff\xfe\x00garbage\n", -1, False), (b"MOVE " + b"9" * 200_000 + b"\n", -1, False),
    (b"MODE loud\n", -2, False), (b"COND maybe\n", -2, False),
])
def test_bad_commands_get_their_code_and_the_session_goes_on(
        tmp_path: Path, command: bytes, code: int, board_follows: bool) -> None:
    server = Server(str(RULE), "3", "seed=1", "output=standard", cwd=tmp_path)
    server.lines(2)
    server.send(command)
    assert status(server.lines(1)[0]) == (code, 0, 0)  # nothing counted
    assert server.comment()  # the reason
    if board_follows:  # a MOVE that was understood shows the board, as the reference does
        assert len(json.loads(server.lines(1)[0])["value"]) == 3
    server.send("DISPLAY\n")
    assert server.lines(1)[0].startswith('{"id":0,"value":[')
    server.send("EXIT\n")
    assert status(server.lines(1)[0]) == (5, 0, 0)
    assert server.close() == 0


def test_an_overlong_line_is_refused_with_the_limit_and_the_pipe_session_goes_on(
        tmp_path: Path) -> None:
    server = Server(str(RULE), "3", "seed=1", "output=standard", cwd=tmp_path)
    server.lines(2)
    server.send(b"MOVE 0 1" + b" " * 200_000 + b"MOVE 0 1\nDISPLAY\n")  # split in 64 KiB reads
    assert status(server.lines(1)[0]) == (-1, 0, 0)
    assert server.comment() == "# the line is longer than 65536 bytes: ignored"
    assert server.lines(1)[0].startswith('{"id":0,"value":[')  # the next line, whole
    server.send("EXIT\n")
    assert status(server.lines(1)[0]) == (5, 0, 0)
    assert server.close() == 0


GOLDEN_RULES = "(*,star,*,*,[1])\n"
GOLDEN_BOARD = ('{"id":7,"name":"gold","value":['
                '{"id":0,"color":"RED","shape":"STAR","x":1,"y":1},'
                '{"id":1,"color":"BLUE","shape":"SQUARE","x":2,"y":1},'
                '{"id":2,"color":"YELLOW","shape":"STAR","x":6,"y":6}]}')
B3 = ('{"id":7,"value":[{"id":0,"color":"RED","shape":"STAR","x":1,"y":1,"buckets":[1]},'
      '{"id":1,"color":"BLUE","shape":"SQUARE","x":2,"y":1,"buckets":[]},'
      '{"id":2,"color":"YELLOW","shape":"STAR","x":6,"y":6,"buckets":[1]}]}')
B2 = ('{"id":7,"value":[{"id":1,"color":"BLUE","shape":"SQUARE","x":2,"y":1,"buckets":[]},'
      '{"id":2,"color":"YELLOW","shape":"STAR","x":6,"y":6,"buckets":[1]}]}')
B1 = '{"id":7,"value":[{"id":1,"color":"BLUE","shape":"SQUARE","x":2,"y":1,"buckets":[]}]}'
ASCII_AFTER = [
    "#---+------------------------------",
    "# 6 |   .    .    .    .    .  [ .]",
    *[f"# {y} |   .    .    .    .    .    . " for y in (5, 4, 3, 2)],
    "# 1 |   .   g#    .    .    .    . ",
    "#---+------------------------------",
    "#   |   1    2    3    4    5    6 ",
]
HELLO = "# Hello. This is Captive Game Server ver. 7.007-referee. Starting a new episode (no. {})"
GOLDEN = [  # (command, the exact answer lines)
    (None, ["6 0 0", HELLO.format(1), B3]),
    ("MOVE 0 0", ["4 0 1", B3]),                      # DENY: a star goes to bucket 1 only
    ("MOVE 1 1", ["7 0 2", B3]),                      # IMMOVABLE: squares go nowhere
    ("MOVE 3 3 7 7", ["3 0 2", B3]),                  # EMPTY_CELL, not counted
    ("MOVE 1 1 7 7", ["0 0 3", B2]),                  # row 1 col 1 to bucket (7,7) = 1
    ("MOVE 9 1", ["-2 0 3", "# no piece 9 on the board", B2]),
    ("MOVE 0 4", ["-2 0 3", "# buckets are 0..3", B2]),
    ("MOVE 1 2 3 3", ["-2 0 3", "# cells are row 1..6 col 1..6; buckets at (0|7, 0|7)", B2]),
    ("MODE full", ["# OK, mode=FULL"]),
    ("MOVE 6 6 7 7", ["0 2 4",
                      "# Stalemate - no piece can be moved any more. Apology for these rules!",
                      B1, *ASCII_AFTER]),
    ("MOVE 1 1", ["-4 2 4", "# No game is on right now (stalemate). Use NEW to start a new game",
                  B1, *ASCII_AFTER]),
    ("DISPLAYFULL", [B1, *ASCII_AFTER]),
    ("VERSION", ["# 7.007-referee"]),
    ("MODE brief", ["# OK, mode=BRIEF"]),
    ("MOVE 1 1", ["-4 2 4",
                  "# No game is on right now (stalemate). Use NEW to start a new game"]),
    ("", []),
    ("NEW", ["6 0 0", HELLO.format(2), B3]),
    ("MOVE 0 1", ["0 0 1"]),
    ("MOVE 2 1", ["0 2 2"]),                         # stalemate again; brief: no comment
    ("MODE standard", ["# OK, mode=STANDARD"]),
    ("COND", ["# OK, cond=train"]),
    ("EXIT", ["5 2 2", "# Goodbye"]),
]


def test_golden_transcript_line_for_line(tmp_path: Path) -> None:
    (tmp_path / "rules.txt").write_text(GOLDEN_RULES)
    (tmp_path / "board.json").write_text(GOLDEN_BOARD)
    commands = "".join(f"{c}\n" for c, _ in GOLDEN if c is not None)
    run = subprocess.run([sys.executable, "-m", "referee.cli", "play", "gohr", "rules.txt",
                          "board.json", "output=standard"], input=commands.encode(),
                         capture_output=True, timeout=60, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    expected = [line for _, answer in GOLDEN for line in answer]
    assert run.stdout.decode().splitlines() == expected


def test_a_board_stalemated_from_the_start_opens_with_code_2(tmp_path: Path) -> None:
    (tmp_path / "rules.txt").write_text("(*,circle,*,*,*)\n")
    (tmp_path / "board.json").write_text(GOLDEN_BOARD)  # no circle on it
    run = subprocess.run([sys.executable, "-m", "referee.cli", "play", "gohr", "rules.txt",
                          "board.json", "output=brief"], input=b"MOVE 0 1\nEXIT\n",
                         capture_output=True, timeout=60, cwd=tmp_path)
    lines = run.stdout.decode().splitlines()
    assert lines[0] == "2 2 0"
    assert lines[1] == HELLO.format(1) + " -- immediate stalemate. Our apologies!"
    assert lines[3] == "-4 2 0"


def test_the_default_output_mode_is_full_as_in_the_reference(tmp_path: Path) -> None:
    (tmp_path / "rules.txt").write_text(GOLDEN_RULES)
    (tmp_path / "board.json").write_text(GOLDEN_BOARD)
    run = subprocess.run([sys.executable, "-m", "referee.cli", "play", "gohr", "rules.txt",
                          "board.json"], input=b"EXIT\n", capture_output=True, timeout=60,
                         cwd=tmp_path)
    lines = run.stdout.decode().splitlines()
    assert lines[2] == B3
    assert lines[3] == "#---+------------------------------"
    assert lines[5] == "# 5 |   .    .    .    .    .    . "
    assert lines[12:] == ["5 0 0", "# Goodbye"]


def test_conditions_that_cannot_be_met_end_with_a_clear_error(tmp_path: Path) -> None:
    cond = tmp_path / "everything.txt"
    cond.write_text("()\n")  # every piece matches: no training board exists
    run = subprocess.run([sys.executable, "-m", "referee.cli", "play", "gohr", f"condTrain={cond}",
                          str(RULE), "3"], input=b"EXIT\n", capture_output=True, timeout=60,
                         cwd=tmp_path)
    assert run.returncode == 2
    assert b"no board meeting the train conditions" in run.stderr
    assert b"Traceback" not in run.stderr


def test_test_mode_boards_always_match_a_condition(tmp_path: Path) -> None:
    cond = tmp_path / "red.txt"
    cond.write_text("(color:red)\n")
    server = Server(f"condTest={cond}", str(RULE), "4", "seed=3", cwd=tmp_path)
    for _ in range(10):
        _, board = server.lines(2)
        assert any(p["color"] == "RED" for p in json.loads(board)["value"])
        server.send("NEW\n")
    server.lines(2)
    server.send("COND train\n")
    server.comment()
    for _ in range(10):
        server.send("NEW\n")
        _, board = server.lines(2)
        assert all(p["color"] != "RED" for p in json.loads(board)["value"])
    server.send("EXIT\n")
    assert server.close() == 0


def test_a_person_plays_from_a_terminal(tmp_path: Path) -> None:
    """The server on a real pseudo-terminal, typed at as a person would (lower case, Enter
    as CR): the full-mode board is shown and the game answers each line at once."""
    import os
    import pty
    import select

    (tmp_path / "rules.txt").write_text(GOLDEN_RULES)
    (tmp_path / "board.json").write_text(GOLDEN_BOARD)
    controller, terminal = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "play", "gohr", "rules.txt",
                             "board.json"], stdin=terminal, stdout=terminal, stderr=terminal,
                            cwd=tmp_path, close_fds=True)
    os.close(terminal)
    seen = b""

    def read_until(marker: bytes) -> bytes:
        nonlocal seen
        while marker not in seen:
            ready, _, _ = select.select([controller], [], [], 30)
            assert ready, f"no answer on the terminal; so far: {seen[-400:]!r}"
            seen += os.read(controller, 4096)
        out, _, seen = seen.partition(marker)
        return out + marker

    try:
        opening = read_until(b"6 |")
        assert b"6 0 0" in opening and b"Hello" in opening
        read_until(b"#   |   1    2    3    4    5    6")
        os.write(controller, b"move 1 1 7 7\r")  # row 1, column 1 to the top-right bucket
        answer = read_until(b"#   |   1    2    3    4    5    6")
        assert b"0 0 1" in answer
        assert b"# 1 | [ .]  g#" in answer  # the emptied cell marked, the square left
        os.write(controller, b"help\r")
        assert b"MOVE id bucket" in read_until(b"EXIT")
        os.write(controller, b"exit\r")
        assert b"# Goodbye" in read_until(b"# Goodbye")
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(controller)


def test_bad_input_and_a_client_vanishing_mid_line_leave_a_consistent_results_file(
        tmp_path: Path) -> None:
    (tmp_path / "rules.txt").write_text(GOLDEN_RULES)
    (tmp_path / "board.json").write_text(GOLDEN_BOARD)
    conversation = (
        b"MOVE 0 0\n"                 # denied: 1 attempt, 1 error
        b"\xff\xfe garbage\n"         # -1, not counted
        b"MOVE 3 3 7 7\n"             # empty cell, not counted
        b"MOVE 0 1\nMOVE 2 1\n"       # accepted twice: stalemate (only the square is left)
        b"MOVE 1 1\n"                 # no game any more, not counted
        b"NEW\n"
        b"MOVE 1 1\nMOVE 99 1\n"      # immovable (counted), unknown piece (not counted)
        b"MOVE 0 "                    # half a line, then the client is gone
    )
    run = subprocess.run([sys.executable, "-m", "referee.cli", "play", "gohr", "rules.txt",
                          "board.json", "output=brief", "log=results.csv",
                          "log.format=compact", "log.nickname=Tester", "log.run=3"],
                         input=conversation, capture_output=True, timeout=60, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    statuses = [line for line in run.stdout.decode().splitlines()
                if line and not line.startswith(("#", "{"))]
    assert statuses == ["6 0 0", "4 0 1", "-1 0 1", "3 0 1", "0 0 2", "0 2 3", "-4 2 3",
                        "6 0 0", "7 0 1", "-2 0 1", "-2 0 1"]
    assert (tmp_path / "results.csv").read_text() == (
        "#.nickname,rule_name,trial_id\n"
        "#number_of_moves,number_of_errors,if_clear\n"
        ".Tester,rules,3\n"
        "3,1,0\n"
        "1,1,0\n")
