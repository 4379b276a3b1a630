"""A corpus whatever the game: the files under the paths given, in name order without hidden
ones, and games' lines written in order to one output that appears whole or not at all."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.core.errors import ConfigError
from referee.training.corpus import AnnotateSummary, GameLines, input_files, write_games
from textfiles import read


def test_files_and_folders_in_name_order_without_hidden_ones_each_once(
        tmp_path: Path) -> None:
    for name in ("b/2.log", "b/10.log", "b/a/x.log", "b/.hidden", "b/.git/y.log", "c.log"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    found = input_files([tmp_path / "c.log", tmp_path / "b", str(tmp_path / "c.log"),
                         tmp_path / "b" / "a" / "x.log", tmp_path / "b" / "a"])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == \
        ["c.log", "b/10.log", "b/2.log", "b/a/x.log"]  # (a game read twice is two)


def test_a_match_folder_gives_its_game_logs_not_its_records_or_stderr_logs(
        tmp_path: Path) -> None:
    for name in ("m/game-001.json", "m/game-001.mjson.gz", "m/game-1/logs/seat1-a.stderr.log",
                 "m/game-1/work/seat1-a/notes.txt", "m/game-001.json.bak"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    found = input_files([tmp_path / "m", tmp_path / "m" / "game-001.json"])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == [
        "m/game-001.json.bak", "m/game-001.mjson.gz", "m/game-1/work/seat1-a/notes.txt",
        "m/game-001.json"]  # a file given by name is read whatever it is


def test_a_missing_path_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="nothing.log: no such file or folder"):
        input_files([tmp_path / "nothing.log"])


def test_games_are_written_in_order_and_skipped_ones_counted(tmp_path: Path) -> None:
    games = [GameLines("g1", ["a", "b"]), GameLines("bad", error="no end"),
             GameLines("g2", []), GameLines("g3", ["c"])]
    summary = write_games(iter(games), tmp_path / "out.txt.gz")
    assert summary == AnnotateSummary(games=3, points=3, skipped=[("bad", "no end")])
    assert read(tmp_path / "out.txt.gz") == ["a", "b", "c"]


def test_an_output_appears_whole_or_not_at_all(tmp_path: Path) -> None:
    output = tmp_path / "out.txt"
    output.write_text("before\n")

    def failing() -> Iterator[GameLines]:
        yield GameLines("g1", ["a"])
        raise OSError("the disk went away")

    with pytest.raises(OSError, match="disk"):
        write_games(failing(), output)
    assert output.read_text() == "before\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
