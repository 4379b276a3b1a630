"""Every game's programs have a memory limit by default (Gomoku the Gomocup's 350 MB, ICGA
Mahjong 1 GB, Riichi 2 GB, Planowanie 400 MB; 0 lifts it), Gomoku's time tolerance is
GomocupJudge's 1 s, and a tournament file takes the command line's units (``"5s"``,
``"400M"``) besides its own bare numbers, which mean what they always did. Real matches,
real programs, real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.core.errors import ConfigError
from referee.games.registry import game_adapters
from referee.tournament.config import load_tournament

MB = 1 << 20


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


def record(folder: Path) -> dict[str, object]:
    found = sorted(folder.glob("game-*.json"))
    assert found, list(folder.iterdir())
    data = json.loads(found[0].read_text())
    assert isinstance(data, dict)
    return data


@pytest.mark.parametrize(("game", "args", "memory"), [
    ("gomoku", ["random", "random", "--games", "1", "--size", "9"], 350),
    ("planowanie", ["random"] * 4 + ["--games", "1", "--deals", "1 1 0"], 400),
    ("mahjong", ["random"] * 4 + ["--hands", "1"], 1024),
    ("riichi", ["tsumogiri"] * 4 + ["--game", "east"], 2048),
])
def test_every_game_limits_its_programs_memory_by_default(
        tmp_path: Path, game: str, args: list[str], memory: int) -> None:
    run = referee("match", game, *args, "--seed", "1", "--out", str(tmp_path / "out"),
                  cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    settings = record(tmp_path / "out")["settings"]
    assert isinstance(settings, dict)
    assert settings["max_memory"] == memory * MB
    if game == "gomoku":
        assert settings["tolerance_ms"] == 1000  # GomocupJudge's
    lifted = referee("match", game, *args, "--seed", "1", "--memory", "0", "--out",
                     str(tmp_path / "free"), cwd=tmp_path)
    assert lifted.returncode == 0, lifted.stderr
    free = record(tmp_path / "free")["settings"]
    assert isinstance(free, dict) and free["max_memory"] is None


GREEDY_RIICHI = "referee.games.riichi.bots.tsumogiri"
GREEDY_MAHJONG = "referee.games.mahjong.bots.random_ai"
HOG = """\
import runpy, sys
hog = bytearray({size})  # touched: resident, as a program's tables are
for at in range(0, len(hog), 4096):
    hog[at] = 1
sys.argv = sys.argv[:1]
runpy.run_module({module!r}, run_name="__main__")
"""


@pytest.mark.parametrize(("game", "module", "extra"), [
    ("mahjong", GREEDY_MAHJONG, ["--hands", "1"]),
    ("riichi", GREEDY_RIICHI, ["--game", "east"]),
])
def test_a_program_over_the_memory_limit_is_stopped_and_recorded(
        tmp_path: Path, game: str, module: str, extra: list[str]) -> None:
    """ICGA Mahjong and Riichi had no --memory: a 3 GB bot played a normal game."""
    hog = tmp_path / "hog.py"
    hog.write_text(HOG.format(size=200 * MB, module=module))
    builtin = "random" if game == "mahjong" else "tsumogiri"
    run = referee("match", game, f"{sys.executable} {hog}", builtin, builtin, builtin,
                  *extra, "--seed", "1", "--memory", "100M", "--out", str(tmp_path / "out"),
                  cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    data = record(tmp_path / "out")
    faults = [f for f in data["faults"] if f["seat"] == 0]  # type: ignore[union-attr]
    notes = json.dumps(data["notes"])
    assert faults or "memory-limit" in notes, (data["faults"], notes)
    assert "memory-limit" in json.dumps(data), "the fault names the memory limit"
    assert "over the limit of 100.0 MB" in json.dumps(data)


TOURNAMENT = """
name = "units"
game = "{game}"
seed = 3

[schedule]
kind = "{kind}"

[settings]
{settings}
""" + "".join(f"""
[[players]]
name = "{name}"
builtin = "{{builtin}}"
""" for name in "abcd")


def tournament(game: str, builtin: str, settings: str) -> str:
    """A tournament file of four built-in players (two play Gomoku)."""
    kind = "round-robin" if game == "gomoku" else "itpw"
    return TOURNAMENT.format(game=game, builtin=builtin, settings=settings, kind=kind)


UNITS = [
    ("gomoku", "random", 'timeout_turn = 2500\ntolerance = 800\nmemory = 256',
     'timeout_turn = "2.5s"\ntolerance = "800ms"\nmemory = "256M"'),
    ("planowanie", "random", 'time = 60000\nstartup = 20000\nmemory = 1024',
     'time = "1m"\nstartup = "20s"\nmemory = "1G"'),
    ("mahjong", "random", 'move_time = 2.5\nmemory = 512', 'move_time = "2500ms"\nmemory = "512M"'),
    ("riichi", "tsumogiri", 'decision_time = 3.0\nstartup_time = 60.0\nmemory = 4096',
     'decision_time = "3s"\nstartup_time = "1m"\nmemory = "4G"'),
]


@pytest.mark.parametrize(("game", "builtin", "bare", "written"), UNITS)
def test_a_tournament_file_takes_the_command_lines_units(
        tmp_path: Path, game: str, builtin: str, bare: str, written: str) -> None:
    """The same settings written with their units are the same tournament (the same
    fingerprint: a store begun with one is resumed with the other)."""
    paths = []
    for name, settings in (("bare", bare), ("written", written)):
        path = tmp_path / f"{name}.toml"
        path.write_text(tournament(game, builtin, settings))
        paths.append(path)
    first, second = (load_tournament(p, game_adapters()) for p in paths)
    assert first.adapter.describe(first.settings) == second.adapter.describe(second.settings)
    assert first.fingerprint() == second.fingerprint()


@pytest.mark.parametrize(("setting", "words"), [
    ('timeout_turn = "5 parsecs"', "not a duration such as 5s"),
    ('timeout_turn = "-5s"', "not a duration such as 5s"),
    ('memory = "1.5K"', "must be whole megabytes (400M, 1G), got '1.5K'"),
    ('memory = "lots"', "must be a size such as 400M or 1G, got 'lots'"),
    ("tolerance = -1", "must be at least 0"),
])
def test_a_bad_unit_in_a_tournament_file_is_one_clear_line(
        tmp_path: Path, setting: str, words: str) -> None:
    path = tmp_path / "t.toml"
    path.write_text(tournament("gomoku", "random", setting))
    with pytest.raises(ConfigError) as error:
        load_tournament(path, game_adapters())
    key = setting.split(" = ")[0]
    assert f"settings.{key}: " in str(error.value) and words in str(error.value), error.value


def test_the_fingerprint_of_a_file_without_memory_keeps_its_old_value_for_mahjong(
        tmp_path: Path) -> None:
    """A new setting enters a tournament's fingerprint only when set to other than its
    default, so a tournament begun before it was there is resumed (ICGA Mahjong's and
    Riichi's memory)."""
    for game, builtin in (("mahjong", "random"), ("riichi", "tsumogiri")):
        path = tmp_path / f"{game}.toml"
        path.write_text(tournament(game, builtin, ""))
        loaded = load_tournament(path, game_adapters())
        assert "max_memory" not in loaded.adapter.describe(loaded.settings)
        path.write_text(tournament(game, builtin, "memory = 0"))
        free = load_tournament(path, game_adapters())
        assert free.adapter.describe(free.settings)["max_memory"] is None


def test_the_help_says_each_default(tmp_path: Path) -> None:
    shown = {game: referee("match", game, "--help", cwd=tmp_path).stdout
             for game in ("gomoku", "planowanie", "mahjong", "riichi")}
    assert "[default: 350M]" in shown["gomoku"] and "[default: 1000ms]" in shown["gomoku"]
    assert "[default: 400M]" in shown["planowanie"]
    assert "[default: 1024M]" in shown["mahjong"]
    assert "[default: 2048M]" in shown["riichi"]
