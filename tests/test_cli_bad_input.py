"""Every command that reads or writes files, run as a real program with each kind of bad
input a user can give it: an empty, binary, huge or missing file, a folder where a file
should be, a loop of symbolic links, a read-only output folder, a full disk (a file size
limit, as ``ulimit -f`` sets). Each must end with exit status 1 or 2, say what is wrong
in a line that names the file, print no traceback and leave no half-written file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"
TENHOU_LOG = DATA / "riichi" / "tenhou6" / "chankan.json"
TOURNAMENT = ('game = "gomoku"\n[settings]\nsize = 9\n[[players]]\nname = "a"\n'
              'builtin = "random"\n[[players]]\nname = "b"\nbuiltin = "random"\n')


def referee(args: list[str], cwd: Path, read_only: Path | None = None,
            full: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``referee ARGS`` as a program; with the folder ``read_only`` made unwritable (for
    root, who ignores permissions, a read-only bind mount by bubblewrap), or with ``full``
    on a full disk (a tmpfs of bubblewrap's, filled before the command starts; what the
    command left on it is listed in the file ``full.listing`` beside it, size and path on
    each line)."""
    command = [sys.executable, "-m", "referee.cli", *args]
    if full is not None or (read_only is not None and os.geteuid() == 0):
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            pytest.skip("this needs bubblewrap (.ci/run installs it)")
        if full is not None:
            listing = full.with_name(full.name + ".listing")
            command = [bwrap, "--dev-bind", "/", "/", "--size", "4096", "--tmpfs", str(full),
                       "--", "sh", "-c", 'head -c 4096 /dev/zero > "$0/.filler"; rc=0; "$@" '
                       '|| rc=$?; find "$0" -type f ! -name .filler -printf '
                       "'%s %p\\n' > \"$0.listing\"; exit $rc", str(full), *command]
            assert not listing.exists()
        else:
            command = [bwrap, "--dev-bind", "/", "/", "--ro-bind", str(read_only),
                       str(read_only), "--", *command]
    elif read_only is not None:
        read_only.chmod(0o555)
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=cwd,
                              stdin=subprocess.DEVNULL)
    finally:
        if read_only is not None and os.geteuid() != 0:
            read_only.chmod(0o755)


def assert_clean_failure(run: subprocess.CompletedProcess[str], names: str,
                         folder: Path) -> None:
    """Exit status 1 or 2, a line naming ``names``, no traceback, no partial file."""
    assert run.returncode in (1, 2), (run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr + run.stdout, run.stderr
    said = [line for line in (run.stderr + run.stdout).splitlines() if names in line]
    assert said, (names, run.stdout, run.stderr)
    if run.returncode == 2:
        errors = [line for line in run.stderr.splitlines() if line.strip() and not (
            line.startswith("referee: ") and not line.startswith("referee: error: "))]
        # (before it: warnings, and what the referee said it was doing)
        assert errors[0].startswith("referee: error: "), run.stderr  # (a file's every
        assert run.stderr.count("referee: error: ") == 1, run.stderr  # mistake follows)
    partial = [p for p in folder.rglob("*") if p.name.endswith(".tmp") and p.is_file()]
    assert not partial, partial


# -- bad input files -------------------------------------------------------------------

BAD_FILES: dict[str, Callable[[Path], None]] = {
    "empty": lambda p: p.write_bytes(b""),
    "binary": lambda p: p.write_bytes(bytes(range(256)) * 16),
    "missing": lambda p: None,
    "folder": lambda p: p.mkdir(),
    "symlink-loop": lambda p: (p.with_name("other").symlink_to(p),
                               p.symlink_to(p.with_name("other"))),
    "text": lambda p: p.write_text("hello, referee\nnot what was asked for\n"),
}


@dataclass(frozen=True)
class Reader:
    """A command given one input file (``{in}``) and, if it writes, an output (``{out}``)."""

    args: tuple[str, ...]

    def argv(self, source: Path, out: Path) -> list[str]:
        return [a.replace("{in}", str(source)).replace("{out}", str(out)) for a in self.args]


READERS = {
    "tournament": Reader(("tournament", "{in}", "--out", "{out}")),
    "ratings": Reader(("ratings", "{in}")),
    "report": Reader(("report", "{in}", "-o", "{out}")),
    "replay-gomoku": Reader(("replay", "gomoku", "{in}")),
    "replay-planowanie": Reader(("replay", "planowanie", "{in}")),
    "replay-mahjong": Reader(("replay", "mahjong", "{in}")),
    "replay-riichi": Reader(("replay", "riichi", "{in}")),
    "export-gomoku": Reader(("export", "gomoku", "{in}", "-o", "{out}")),
    "annotate-riichi": Reader(("annotate", "riichi", "{in}", "-o", "{out}")),
    "annotate4rl": Reader(("annotate4rl", "{in}", "-o", "{out}")),
    "shuffle": Reader(("shuffle", "{in}", "-o", "{out}")),
    "play-gohr": Reader(("play", "gohr", "{in}", "5")),
    "match-openings": Reader(("match", "gomoku", "random", "random", "--openings", "{in}",
                              "--out", "{out}")),
}
"""What a user may point at a bad file. (``report`` and ``ratings`` take a store's folder
or a PGN file.)"""


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
@pytest.mark.parametrize("command", sorted(READERS))
def test_a_bad_input_file_is_a_clean_failure(tmp_path: Path, command: str, kind: str) -> None:
    source = tmp_path / "input.txt"
    BAD_FILES[kind](source)
    out = tmp_path / "out"
    if command in ("annotate-riichi", "annotate4rl", "shuffle"):
        out = tmp_path / "out.txt.gz"
    run = referee(READERS[command].argv(source, out), tmp_path)
    if (command == "shuffle" and kind in ("text", "binary", "empty")) or (
            command == "annotate4rl" and kind == "empty"):  # lines of anything, or none
        assert run.returncode == 0, run.stderr
        return
    assert_clean_failure(run, "input.txt", tmp_path)
    if run.returncode == 2 and out.suffix == ".gz":
        assert not out.exists()  # no output from a failed command


def test_a_huge_file_is_read_in_bounded_memory_and_refused_cleanly(tmp_path: Path) -> None:
    source = tmp_path / "input.txt"
    with source.open("wb") as handle:  # 64 MB on one line: no newline to stop at
        for _ in range(64):
            handle.write(b"x" * (1 << 20))
    for command in ("replay-gomoku", "tournament", "annotate-riichi", "export-gomoku"):
        run = referee(READERS[command].argv(source, tmp_path / "out.gz"), tmp_path)
        assert_clean_failure(run, "input.txt", tmp_path)


# -- files nested too deep ----------------------------------------------------------------

DEEP_JSON = "[" * 2000 + "]" * 2000
DEEP_TOML = "a = " + "[" * 2000 + "]" * 2000 + "\n"
TOO_DEEP = "nested deeper than 1024 levels"


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A real game of each game ``replay`` checks: its record (Riichi: its mjai log)."""
    root = tmp_path_factory.mktemp("games")
    for args in (["gomoku", "random", "random", "--games", "1", "--size", "9"],
                 ["planowanie", "random", "random", "random", "random", "--games", "1"],
                 ["mahjong", *["random"] * 4, "--hands", "1", "--rotations", "1"],
                 ["riichi", *["tsumogiri"] * 4, "--game", "east"]):
        run = referee(["match", *args, "--out", args[0]], root)
        assert run.returncode == 0, run.stderr
    return {game: root / game / ("game-001.mjson.gz" if game == "riichi" else "game-001.json")
            for game in ("gomoku", "planowanie", "mahjong", "riichi")}


@pytest.mark.parametrize("game", ["gomoku", "planowanie", "mahjong", "riichi"])
def test_a_file_nested_too_deep_is_one_verdict_and_the_batch_goes_on(
        tmp_path: Path, games: dict[str, Path], game: str) -> None:
    (tmp_path / "deep.json").write_text(DEEP_JSON)
    run = referee(["replay", game, "deep.json", str(games[game])], tmp_path)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    failed, checked = run.stdout.splitlines()
    assert failed.startswith("FAIL deep.json: ") and TOO_DEEP in failed, failed
    assert checked.startswith(f"OK {games[game]} "), run.stdout


def test_annotate_writes_the_good_games_beside_a_file_nested_too_deep(
        tmp_path: Path, games: dict[str, Path]) -> None:
    (tmp_path / "deep.json").write_text(DEEP_JSON)
    alone = referee(["annotate", "riichi", str(games["riichi"]), "-o", "alone.txt"], tmp_path)
    assert alone.returncode == 0, alone.stderr
    run = referee(["annotate", "riichi", str(games["riichi"]), "deep.json", "-o", "out.txt"],
                  tmp_path)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.startswith("skipped deep.json, line 1: ") and TOO_DEEP in run.stderr
    assert "annotated 1 game " in run.stderr and "; 1 skipped" in run.stderr, run.stderr
    written = (tmp_path / "out.txt").read_text()
    assert written and written == (tmp_path / "alone.txt").read_text()


@pytest.mark.parametrize(("args", "file", "text"), [
    (["export", "gomoku", "deep.json", "{gomoku}", "-o", "psq"], "deep.json", DEEP_JSON),
    (["play", "gohr", str(DATA / "gohr" / "rules" / "1.txt"), "deep.json"],
     "deep.json", DEEP_JSON),
    (["tournament", "deep.toml", "--out", "t"], "deep.toml", DEEP_TOML),
    (["replay", "riichi", "{riichi}", "--room", "deep.toml"], "deep.toml", DEEP_TOML),
    (["replay", "riichi", "{riichi}", "--room", "deep.json"], "deep.json", DEEP_JSON),
])
def test_a_file_nested_too_deep_stops_a_command_with_one_line(
        tmp_path: Path, games: dict[str, Path], args: list[str], file: str,
        text: str) -> None:
    (tmp_path / file).write_text(text)
    (tmp_path / "psq").mkdir()
    run = referee([a.format(**{g: str(p) for g, p in games.items()}) for a in args], tmp_path)
    assert_clean_failure(run, file, tmp_path)
    assert run.returncode == 2 and TOO_DEEP in run.stderr, run.stderr
    assert not list((tmp_path / "psq").iterdir()) and not (tmp_path / "t").exists()


# -- outputs that cannot be written ------------------------------------------------------

@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Files to read from: a finished tournament (store, PGN), a Gomoku match's record,
    a Riichi game's mjai log and 20 KB of text."""
    root = tmp_path_factory.mktemp("played")
    (root / "t.toml").write_text(TOURNAMENT)
    (root / "big.txt").write_text("".join(f"line {i} of some text to shuffle\n"
                                          for i in range(600)))
    for args in (["tournament", "t.toml", "--out", "done"],
                 ["match", "gomoku", "random", "random", "--games", "1", "--size", "9",
                  "--out", "match"],
                 ["match", "riichi", *["tsumogiri"] * 4, "--game", "east", "--out", "riichi"]):
        run = referee(args, root)
        assert run.returncode == 0, run.stderr
    return root


def writers(played: Path, out: Path) -> dict[str, list[str]]:
    """Each command that writes files, writing into ``out``."""
    return {
        "match": ["match", "gomoku", "random", "random", "--games", "2", "--size", "9",
                  "--out", str(out / "m")],
        "tournament": ["tournament", str(played / "t.toml"), "--out", str(out / "t")],
        "report": ["report", str(played / "done"), "-o", str(out / "site")],
        "ratings-pgn": ["ratings", str(played / "done"), "--pgn", str(out / "all.pgn")],
        "export-gomoku": ["export", "gomoku", str(played / "match" / "game-001.json"), "-o",
                          str(out / "g.psq")],
        "annotate-riichi": ["annotate", "riichi", str(played / "riichi" / "game-001.mjson.gz"),
                            "-o", str(out / "a.txt.gz")],
        "shuffle": ["shuffle", str(played / "big.txt"), "-o", str(out / "s.txt")],
        "selfplay-riichi": ["selfplay", "riichi", "--games", "1", "-o", str(out / "sp.txt"),
                            "--records", str(out / "logs")],
    }


WRITERS = ["match", "tournament", "report", "ratings-pgn", "export-gomoku",
           "annotate-riichi", "shuffle", "selfplay-riichi"]


@pytest.mark.parametrize("command", WRITERS)
def test_a_full_disk_is_one_line_and_no_half_written_file(played: Path, tmp_path: Path,
                                                          command: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    run = referee(writers(played, out)[command], tmp_path, full=out)
    assert_clean_failure(run, str(out), tmp_path)
    assert "No space left on device" in run.stderr or "disk is full" in run.stderr, \
        run.stderr
    left = (tmp_path / "out.listing").read_text().splitlines()
    assert not [line for line in left if line.endswith(".tmp")], left
    empty = [line for line in left if line.startswith("0 ")
             and line.endswith((".psq", ".pgn", ".gz", ".txt", ".html", ".json"))]
    assert not empty, left


@pytest.mark.parametrize("command", WRITERS)
def test_a_read_only_output_folder_is_one_line(played: Path, tmp_path: Path,
                                               command: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    run = referee(writers(played, out)[command], tmp_path, read_only=out)
    assert_clean_failure(run, str(out), tmp_path)
    assert "Read-only file system" in run.stderr or "Permission denied" in run.stderr, \
        run.stderr
    assert list(out.iterdir()) == []


def test_a_brain_whose_path_is_not_utf8_plays_and_is_recorded(tmp_path: Path) -> None:
    folder = Path(os.fsdecode(bytes(tmp_path) + b"/bad\xff"))
    folder.mkdir()
    shutil.copy(Path(__file__).resolve().parent / "brains" / "instant.py", folder / "b.py")
    run = referee(["match", "gomoku", f"{sys.executable} {folder / 'b.py'}", "random",
                   "--games", "1", "--size", "9", "--out", "out", "--json"], tmp_path)
    assert run.returncode == 0, run.stderr
    record = (tmp_path / "out" / "game-001.json").read_text(encoding="utf-8")
    assert "bad\\udcff" in record  # the byte, escaped: the record is UTF-8 and whole
    check = referee(["replay", "gomoku", "out/game-001.json"], tmp_path)
    assert check.returncode == 0 and check.stdout.startswith("OK "), check.stdout
    assert not list((tmp_path / "out").glob("*.tmp"))
