"""Bad input that used to end in a traceback: not-a-number, infinities and out-of-range
numbers, a full disk, a file that is not UTF-8: each is one clear error line (exit
status 2), with no file left half written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from referee.core.errors import ConfigError
from referee.games.registry import game_adapters
from referee.tournament.config import load_tournament


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


@pytest.fixture(scope="module")
def pgn(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Results to rate: a won every game against b (infinite without a prior)."""
    path = tmp_path_factory.mktemp("pgn") / "r.pgn"
    path.write_text("".join(f'[White "{w}"]\n[Black "{b}"]\n[Result "1-0"]\n\n1-0\n\n'
                            for w, b in (("a", "b"), ("b", "a"), ("a", "c"))))
    return path


@pytest.mark.parametrize(("args", "complaint"), [
    (["--advantage", "nan"], "'--advantage': must be a finite number, got 'nan'"),
    (["--drawelo", "inf"], "'--drawelo': must be a finite number, got 'inf'"),
    (["--offset", "1e400"], "'--offset': must be a finite number, got '1e400'"),
    (["--prior", "-inf"], "'--prior': must be a finite number, got '-inf'"),
    (["--confidence", "NaN"], "'--confidence': must be a finite number, got 'NaN'"),
    (["--offset", "ten"], "'--offset': must be a number, got 'ten'"),
    (["--prior", "0"], "use prior > 0"),
])
def test_rating_numbers(pgn: Path, tmp_path: Path, args: list[str], complaint: str) -> None:
    run = referee("ratings", str(pgn), *args, cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    assert complaint in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1"])
def test_riichi_decision_time(tmp_path: Path, value: str) -> None:
    run = referee("match", "riichi", "tsumogiri", "tsumogiri", "tsumogiri", "tsumogiri",
                  "--decision-time", value, cwd=tmp_path)
    assert run.returncode == 2, run.stderr
    assert "Invalid value for '--decision-time'" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_floats_in_a_tournament_file_must_be_finite(tmp_path: Path, value: str) -> None:
    path = tmp_path / "t.toml"
    path.write_text(f'game = "gomoku"\n[sprt]\nelo0 = {value}\nelo1 = 5.0\n'
                    '[[players]]\nname = "a"\nbuiltin = "random"\n'
                    '[[players]]\nname = "b"\nbuiltin = "random"\n')
    with pytest.raises(ConfigError) as error:
        load_tournament(path, game_adapters())
    assert "sprt.elo0: must be a finite number, got " + value in str(error.value)


def _limited(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``referee ARGS`` under a file size limit of 1 KB (``ulimit -f 1``: a full disk)."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd, preexec_fn=limit)


def test_a_full_disk_is_one_error_line_and_leaves_no_half_written_record(
        tmp_path: Path) -> None:
    out = tmp_path / "out"
    run = _limited(["match", "gomoku", "random", "random", "--games", "1", "--size", "9",
                    "--out", str(out)], tmp_path)
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines()[-1] == (
        f"referee: error: {out / 'game-001.json'}: File too large; the file size limit "
        "(ulimit -f) is too small for the output")
    assert not list(out.glob("game-001.json*"))


def test_a_full_disk_under_a_tournament_store_is_one_error_line(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text('game = "gomoku"\n[[players]]\nname = "a"\nbuiltin = "random"\n'
                    '[[players]]\nname = "b"\nbuiltin = "random"\n')
    run = _limited(["tournament", str(path), "--out", str(tmp_path / "out")], tmp_path)
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines()[-1].startswith(
        f"referee: error: {tmp_path / 'out' / 'tournament.sqlite'}: the tournament store "
        "cannot be written: ")


def test_a_rules_file_that_is_not_utf8_is_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "rules.txt").write_bytes(b"(*,*,*,*,[0,1,2,3]) \xff\xfe\n")
    run = subprocess.run([sys.executable, "-m", "referee.cli", "play", "gohr", "rules.txt",
                          "5"], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                         input="")
    assert run.returncode == 2
    assert run.stderr.strip() == "referee: error: rules.txt:0:0: the rule file is not UTF-8 text"


@pytest.mark.parametrize(("game", "extra", "complaint"), [
    ("gomoku", "[settings]\ntimeout_turn = 99999999999999999999999",
     "settings: move time 1e+20 s is longer than 31 days"),
    ("gomoku", "[settings]\ntolerance = 99999999999999999999999",
     "settings: tolerance 1e+20 s is longer than 31 days"),
    ("gomoku", "[settings]\ntimeout_match = 1e300", "settings.timeout_match: is too large"),
    ("planowanie", "[settings]\ntime = 99999999999999999999999",
     "settings: game time 1e+20 s is longer than 31 days"),
    ("gomoku", "[sandbox]\nmax_file_size = 99999999999999999999",
     "sandbox.max_file_size: '99999999999999999999' is too large (at most 1024T)"),
    ("gomoku", '[sandbox]\nmax_folder = "9999999T"',
     "sandbox.max_folder: '9999999T' is too large (at most 1024T)"),
])
def test_huge_numbers_in_a_tournament_file_are_named(tmp_path: Path, game: str, extra: str,
                                                    complaint: str) -> None:
    path = tmp_path / "t.toml"
    schedule = '[schedule]\nkind = "itpw"\n' if game == "planowanie" else ""
    path.write_text(f'game = "{game}"\n{schedule}[[players]]\nname = "a"\nbuiltin = "random"\n'
                    f'[[players]]\nname = "b"\nbuiltin = "random"\n{extra}\n')
    with pytest.raises(ConfigError) as error:
        load_tournament(path, game_adapters()).confined()
    assert complaint in str(error.value)


@pytest.mark.parametrize(("args", "complaint"), [
    (["--memory", "99999999999999999T"], "'99999999999999999T' is too large (at most 1024T)"),
    (["--move-time", "99999999999999s"], "move time 1e+14 s is longer than 31 days"),
    (["--games", "-2"], "'--games': must be at least 1, got '-2'"),
    (["--games", "two"], "'--games': must be a whole number, got 'two'"),
])
def test_bad_numbers_on_the_command_line_are_one_line(tmp_path: Path, args: list[str],
                                                      complaint: str) -> None:
    run = referee("match", "gomoku", "random", "random", *args, cwd=tmp_path)
    assert run.returncode == 2 and complaint in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and not (tmp_path / "referee-out").exists()


HUGE = "1" + "0" * 23


@pytest.mark.parametrize(("args", "complaint"), [
    (["match", "gomoku", "random", "random", "--games", HUGE],
     f"'--games': must be at most 100000000, got '{HUGE}'"),
    (["match", "gomoku", "random", "random", "--games", "1e23"],
     "'--games': must be a whole number, got '1e23'"),
    (["match", "gomoku", "random", "random", "--games", "2.5"],
     "'--games': must be a whole number, got '2.5'"),
    (["match", "planowanie", "random", "random", "--games", HUGE],
     "'--games': must be at most 100000000"),
    (["selfplay", "riichi", "--games", HUGE, "-o", "out.txt"],
     "'--games': must be at most 100000000"),
    (["match", "mahjong", *["random"] * 4, "--hands", "65"],
     "'--hands': must be at most 64, got '65'"),
    (["tournament", "t.toml", "-j", HUGE], f"'--jobs': must be at most 1024, got '{HUGE}'"),
    (["tournament", "t.toml", "--concurrency", HUGE], "'--concurrency': must be at most 1024"),
    (["annotate", "riichi", str(Path(__file__).parent / "data" / "riichi" / "kan4.mjlog"),
      "-o", "out.txt", "-j", HUGE], "'--jobs': must be at most 1024"),
    (["serve", "gohr", "--port", "0", "--workers", "99999"],
     "'--workers': must be at most 1024, got '99999'"),
    (["match", "gomoku", "random", "random", "--max-processes", HUGE],
     "'--max-processes': must be at most 4194304"),
    (["match", "gomoku", "random", "random", "--memory", "1K"],
     "'--memory': '1K' is too small (at least 1 MB)"),
])
def test_counts_refuse_huge_and_fractional_values(tmp_path: Path, args: list[str],
                                                  complaint: str) -> None:
    (tmp_path / "t.toml").write_text('game = "gomoku"\n[[players]]\nname = "a"\nbuiltin = '
                                     '"random"\n[[players]]\nname = "b"\nbuiltin = "random"\n')
    run = referee(*args, cwd=tmp_path)
    assert run.returncode == 2 and complaint in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and len(run.stderr.splitlines()) == 1, run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.toml"]  # nothing started


def test_the_sandbox_line_says_the_file_size_bots_really_get_under_ulimit(
        tmp_path: Path) -> None:
    import resource

    def limit() -> None:  # ulimit -f 10240: the referee itself may not write more
        resource.setrlimit(resource.RLIMIT_FSIZE, (10 << 20, 10 << 20))

    run = subprocess.run([sys.executable, "-m", "referee.cli", "match", "gomoku", "random",
                          "random", "--games", "1", "--size", "9"], capture_output=True,
                         text=True, timeout=120, cwd=tmp_path, preexec_fn=limit)
    assert run.returncode == 0, run.stderr
    line = next(line for line in run.stdout.splitlines() if line.startswith("sandbox: "))
    assert "10 MB files" in line and "64 MB files" not in line, line
