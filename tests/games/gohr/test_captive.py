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
        self.proc = subprocess.Popen([sys.executable, "-m", "referee.cli", "gohr", *args],
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
    assert status(server.lines(1)[0]) == (-4, 1, attempts)  # no game any more
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
    assert server.comment() == "# OK, mode=brief"
    server.send("MOVE 1 1 0 0\n")  # legacy form: the piece at row 1 col 1, bucket (0,0)
    assert len(server.lines(1)) == 1
    server.send("FEATURES\n")
    assert json.loads(server.lines(1)[0]) == {
        "shape": ["SQUARE", "STAR", "CIRCLE", "TRIANGLE"],
        "color": ["RED", "BLACK", "BLUE", "YELLOW"]}
    server.send("COND test\n")
    assert server.comment() == "# OK, cond=test"
    server.send("DISPLAYFULL\n")
    assert server.comment().startswith("#---+")
    server.send("EXIT\n")
    assert server.close() == 0


@pytest.mark.parametrize(("command", "code"), [
    (b"JUMP\n", -1), (b"MOVE\n", -2), (b"MOVE a b\n", -2), (b"MOVE 0 9\n", -3),
    (b"MOVE 7 7 3 3\n", -3), (b"MOVE 99 0\n", -2), (b"\xff\xfe\x00garbage\n", -1),
    (b"MOVE " + b"9" * 200_000 + b"\n", -1), (b"MODE loud\n", -2), (b"COND maybe\n", -2),
])
def test_bad_commands_get_their_code_and_the_session_goes_on(tmp_path: Path, command: bytes,
                                                            code: int) -> None:
    server = Server(str(RULE), "3", "seed=1", cwd=tmp_path)
    server.lines(2)
    server.send(command)
    assert status(server.lines(1)[0])[0] == code
    server.send("DISPLAY\n")
    assert json.loads(server.lines(1)[0])["value"]
    server.send("EXIT\n")
    assert server.close() == 0


def test_conditions_that_cannot_be_met_end_with_a_clear_error(tmp_path: Path) -> None:
    cond = tmp_path / "everything.txt"
    cond.write_text("()\n")  # every piece matches: no training board exists
    run = subprocess.run([sys.executable, "-m", "referee.cli", "gohr", f"condTrain={cond}",
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
