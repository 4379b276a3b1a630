"""The sandbox on the command line, run as a real program: the options of every command
that starts programs, the line that says which protections are active, ``strict`` on a
machine without bubblewrap, bad values."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.core.sandbox import sandbox_support

BRAINS = Path(__file__).resolve().parent / "brains"
INSTANT = f"{sys.executable} {BRAINS / 'instant.py'}"
SUPPORT = sandbox_support()
needs_bwrap = pytest.mark.skipif(not SUPPORT.usable, reason=f"no isolation: {SUPPORT.problem}")


def referee(*args: str, cwd: Path, path: str | None = None
            ) -> subprocess.CompletedProcess[str]:
    """``referee ARGS`` in ``cwd`` (``path``: another PATH, e.g. one without bubblewrap)."""
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd, env=env)


def no_bwrap_path(tmp_path: Path) -> str:
    """A PATH with the basic tools but no ``bwrap``."""
    tools = tmp_path / "tools"
    tools.mkdir()
    for name in ("sh", "env", "cat"):
        found = subprocess.run(["which", name], capture_output=True, text=True).stdout.strip()
        if found:
            (tools / name).symlink_to(found)
    return str(tools)


def records(out: Path) -> list[dict[str, object]]:
    """The JSON records of a match's output folder."""
    return [json.loads(p.read_text()) for p in sorted(out.rglob("game-*.json"))]


@pytest.mark.parametrize("command", [
    ["match", "gomoku"], ["match", "planowanie"], ["match", "mahjong"], ["match", "riichi"],
    ["console", "planowanie"], ["tournament"]])
def test_every_command_that_runs_programs_has_the_sandbox_options(command: list[str],
                                                                  tmp_path: Path) -> None:
    shown = referee(*command, "--help", cwd=tmp_path).stdout
    assert "--sandbox [auto|strict|off]" in shown
    if command[0] == "match":
        for option in ("--max-processes", "--max-file-size", "--max-folder",
                       "--sandbox-read", "--suspend / --no-suspend"):
            assert option in shown, option
    if command == ["console", "planowanie"]:  # a person drives it: never suspended
        assert "--suspend" not in shown


@needs_bwrap
def test_a_match_header_and_records_say_which_protections_were_active(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run = referee("match", "gomoku", INSTANT, "random", "--games", "1", "--size", "10",
                  "--max-folder", "5M", "--out", str(out), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    line = next(s for s in run.stdout.splitlines() if s.startswith("sandbox: "))
    for part in ("bubblewrap", "network off", "private filesystem", "pid namespace",
                 "64 processes", "5 MB folder", "suspended off-turn"):
        assert part in line, (part, line)
    (record,) = records(out)
    assert record["sandbox"] == line
    moves = record["moves"]
    assert isinstance(moves, list) and moves
    assert all(isinstance(m["info"]["cpu_ms"], float) for m in moves)  # each move's CPU


def test_no_suspend_and_off_are_said_too(tmp_path: Path) -> None:
    run = referee("match", "gomoku", INSTANT, "random", "--games", "1", "--size", "10",
                  "--no-suspend", "--sandbox", "off", "--out", str(tmp_path / "o"),
                  cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "sandbox: off" in run.stdout
    assert "suspended" not in run.stdout


def test_strict_without_bubblewrap_stops_before_any_game_with_one_line(
        tmp_path: Path) -> None:
    out = tmp_path / "out"
    run = referee("match", "planowanie", "random", "random", "--sandbox", "strict",
                  "--out", str(out), cwd=tmp_path, path=no_bwrap_path(tmp_path))
    assert run.returncode == 2, run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith("referee: error: --sandbox strict: bubblewrap is not installed")
    assert "network off" in line  # names what is missing
    assert not records(out)


def test_auto_without_bubblewrap_plays_with_the_limits_and_one_warning(tmp_path: Path) -> None:
    out = tmp_path / "out"
    run = referee("match", "planowanie", "random", "random", "--games", "1",
                  "--out", str(out), cwd=tmp_path, path=no_bwrap_path(tmp_path))
    assert run.returncode == 0, run.stderr
    warnings = [s for s in run.stderr.splitlines() if "bubblewrap is not installed" in s]
    assert len(warnings) == 1, run.stderr
    line = next(s for s in run.stdout.splitlines() if s.startswith("sandbox: "))
    assert "missing: network off, private filesystem, pid namespace" in line
    assert "64 MB files" in line and "20 MB folder" in line
    (record,) = records(out)
    assert record["sandbox"] == line


@pytest.mark.parametrize(("args", "complaint"), [
    (["--sandbox", "loose"], "'loose' is not one of"),
    (["--max-processes", "2"], "must be at least 4, got '2'"),
    (["--max-folder", "0"], "too small"),
    (["--max-file-size", "lots"], "is not a size"),
    (["--sandbox-read", "/no/such/path"], "readable path /no/such/path does not exist"),
])
def test_bad_sandbox_options_are_usage_errors(args: list[str], complaint: str,
                                              tmp_path: Path) -> None:
    run = referee("match", "gomoku", "random", "random", *args, cwd=tmp_path)
    assert run.returncode == 2
    assert complaint in run.stderr
    assert "Traceback" not in run.stderr


@needs_bwrap
def test_sandbox_read_lets_every_program_read_a_path(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "book.txt").write_text("opening book\n")
    (tmp_path / "bot").mkdir()  # its program's folder is readable anyway: not the book's
    reader = tmp_path / "bot" / "reader.py"  # the instant brain, after reading the book
    reader.write_text(
        "import sys, runpy\n"
        "try:\n"
        f"    sys.stderr.write('book: ' + open({str(shared / 'book.txt')!r}).read())\n"
        "except OSError as exc:\n"
        "    sys.stderr.write(f'book: none ({exc.strerror})\\n')\n"
        "sys.stderr.flush()\n"
        "runpy.run_path(sys.argv[1], run_name='__main__')\n")
    command = f"{sys.executable} {reader} {BRAINS / 'instant.py'}"
    for name, extra in (("without", []), ("with", ["--sandbox-read", str(shared)])):
        out = tmp_path / name
        run = referee("match", "gomoku", command, "random", "--games", "1", "--size", "10",
                      "--out", str(out), *extra, cwd=tmp_path)
        assert run.returncode == 0, run.stderr
        logs = "".join(p.read_text() for p in out.rglob("*.stderr.log"))
        assert ("book: opening book" in logs) == (name == "with"), logs


@needs_bwrap
def test_a_version_managers_shim_runs_in_the_sandbox(tmp_path: Path) -> None:
    """``python3`` that is a pyenv (rbenv, asdf) shim: a script that runs the tool, which
    runs an interpreter of its own folder. The tool's whole folder is readable."""
    tool = tmp_path / "tool"
    (tool / "shims").mkdir(parents=True)
    (tool / "versions").mkdir()
    (tool / "versions" / "python3").symlink_to(sys.executable)
    shim = tool / "shims" / "python3"
    shim.write_text('#!/bin/sh\nexec "$(dirname "$0")/../versions/python3" "$@"\n')
    shim.chmod(0o755)
    run = referee("match", "gomoku", f"{shim} {BRAINS / 'instant.py'}", "random", "--games",
                  "1", "--size", "9", "--out", str(tmp_path / "out"), "--json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    game = json.loads(run.stdout)["games"][0]
    assert game["outcome"] not in ("crash", "timeout"), game
