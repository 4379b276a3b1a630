"""The command line, run as a real program: help everywhere, matches, clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BRAINS = Path(__file__).resolve().parent / "brains"
INSTANT = f"{sys.executable} {BRAINS / 'instant.py'}"


def referee(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


@pytest.mark.parametrize("command", [[], ["match"], ["match", "gomoku"], ["psq"],
                                     ["tournament"], ["ratings"], ["report"],
                                     ["match", "planowanie"], ["console"],
                                     ["console", "planowanie"], ["gohr"], ["gohr-server"],
                                     ["match", "riichi"], ["replay"], ["replay", "riichi"],
                                     ["shuffle"], ["annotate"], ["annotate", "riichi"],
                                     ["annotate4rl"], ["selfplay"], ["selfplay", "riichi"]])
def test_every_command_has_help(command: list[str]) -> None:
    run = referee(*command, "--help")
    assert run.returncode == 0, run.stderr
    assert "Usage:" in run.stdout


def test_help_lists_the_commands() -> None:
    out = referee("--help").stdout
    for command in ("match", "psq", "tournament", "ratings", "report", "console", "gohr",
                    "replay", "shuffle", "annotate", "annotate4rl", "selfplay"):
        assert command in out
    out = referee("match", "gomoku", "--help").stdout
    for option in ("--rule", "--size", "--width", "--openings", "--swap2", "--timeout-turn",
                   "--timeout-match", "--tolerance", "--memory", "--seed", "--out"):
        assert option in out


def test_match_of_builtin_brains_writes_records(tmp_path: Path) -> None:
    run = referee("match", "gomoku", "threat", "random", "--games", "2", "--seed", "7",
                  "--out", str(tmp_path / "out"), "--rule", "renju", "--size", "12")
    assert run.returncode == 0, run.stderr
    assert "game 2/2" in run.stdout and "Match result" in run.stdout
    assert "\x1b[" not in run.stdout  # plain text when piped
    for n in (1, 2):
        record = json.loads((tmp_path / "out" / f"game-00{n}.json").read_text())
        assert record["settings"]["rule"] == "renju" and record["settings"]["width"] == 12
        assert record["seed"] == 7 and record["outcome"] == "normal"
        assert [p["name"] for p in record["players"]] == ["threat", "random"]
        assert record["players"][0]["about"]["name"] == "pbrain-threat"
        assert all(m["ms"] >= 0 for m in record["moves"])
        psq = (tmp_path / "out" / f"game-00{n}.psq").read_text().splitlines()
        assert psq[0] == "Piskvorky 12x12, 11:11, 0"


def test_rectangular_match_with_command_line_brains(tmp_path: Path) -> None:
    run = referee("match", "gomoku", INSTANT, f"{INSTANT} --order reverse", "--width", "20",
                  "--height", "8", "--games", "1", "--out", str(tmp_path))
    assert run.returncode == 0, run.stderr
    record = json.loads((tmp_path / "game-001.json").read_text())
    assert (record["settings"]["width"], record["settings"]["height"]) == (20, 8)
    assert record["players"][0]["name"] == "instant#1"


def test_psq_command_converts_a_record(tmp_path: Path) -> None:
    referee("match", "gomoku", "random", "random", "--games", "1", "--no-psq",
            "--out", str(tmp_path))
    assert not (tmp_path / "game-001.psq").exists()
    run = referee("psq", str(tmp_path / "game-001.json"), "-o", str(tmp_path / "x.psq"))
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "x.psq").read_text().startswith("Piskvorky 15x15")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rule", "chess"], "--rule: unknown rule 'chess'"),
        (["--size", "40"], "board width 40 is outside 5..32"),
        (["--games", "0"], "games must be at least 1"),
        (["--timeout-turn", "-5"], "--timeout-turn must not be negative"),
        (["--openings", "/nonexistent/op.txt"], "cannot read openings"),
        (["--swap2", "--openings", "OPENINGS"], "either openings or swap2"),
        (["--draw-at-empty", "-1"], "--draw-at-empty must not be negative"),
        (["--draw-at-empty", "225"], "draw at empty must be 0..224"),
    ],
)
def test_bad_options_give_one_clear_error(tmp_path: Path, args: list[str], message: str) -> None:
    openings = tmp_path / "op.txt"
    openings.write_text("0,0\n")
    args = [str(openings) if a == "OPENINGS" else a for a in args]
    run = referee("match", "gomoku", "random", "random", *args, "--out", str(tmp_path / "o"))
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr


def test_unknown_program_is_a_clear_error(tmp_path: Path) -> None:
    run = referee("match", "gomoku", "random", "./no-such-brain", "--out", str(tmp_path))
    assert run.returncode == 2
    assert "no-such-brain does not exist" in run.stderr
    run = referee("match", "gomoku", "random", "nosuchprogram-xyz", "--out", str(tmp_path))
    assert "not a built-in bot and is not found on PATH" in run.stderr


def test_brain_refusing_the_size_ends_the_match_clearly(tmp_path: Path) -> None:
    run = referee("match", "gomoku", "random", f"{INSTANT} --refuse 9", "--size", "9",
                  "--out", str(tmp_path))
    assert run.returncode == 2
    assert "refuses the 9x9 board (START 9): ERROR unsupported size 9" in run.stderr


def test_psq_of_a_bad_record_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text("[]")
    run = referee("psq", str(bad))
    assert run.returncode == 2 and "x.json: not a valid game record" in run.stderr


def test_planowanie_match_rotates_seats_and_writes_records(tmp_path: Path) -> None:
    run = referee("match", "planowanie", "heuristic", "random", "random", "--seed", "3",
                  "--out", str(tmp_path / "out"))
    assert run.returncode == 0, run.stderr
    assert "game 3/3" in run.stdout and "Match result" in run.stdout
    seatings = []
    for n in (1, 2, 3):
        record = json.loads((tmp_path / "out" / f"game-00{n}.json").read_text())
        assert record["game"] == "planowanie" and record["outcome"] == "normal"
        assert record["seed"] == 3 and record["settings"]["players"] == 3
        assert record["scores"] == [float(p) for p in record["settings"]["points"]]
        seatings.append([p["name"] for p in record["players"]])
    assert seatings == [["heuristic", "random#1", "random#2"],
                        ["random#1", "random#2", "heuristic"],
                        ["random#2", "heuristic", "random#1"]]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["random"], "planowanie needs 2 to 4 players, got 1"),
        (["random", "random", "--deals", "1 30 0"], "deal 1: 30 cards for 2 players need 60"),
        (["random", "random", "--values", "22"], "deck values '22' repeat a character"),
        (["random", "random", "--time", "-1"], "--time must not be negative"),
        (["random", "random", "--games", "0"], "--games must be at least 1"),
        (["random", "./no-such-player"], "no-such-player does not exist"),
    ],
)
def test_bad_planowanie_options_give_one_clear_error(tmp_path: Path, args: list[str],
                                                     message: str) -> None:
    run = referee("match", "planowanie", *args, "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr
