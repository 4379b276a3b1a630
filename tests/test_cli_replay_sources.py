"""``referee replay GAME`` takes what the commands that read games take: a match's
folder, a tournament's folder or store, its records.jsonl (plain or gzip), besides
files; one verdict per game, each game once (a record's own export, a store's records
file and logs are the same games)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

GAMES = {
    "tour": ["tournament", "t.toml"],
    "gomoku": ["match", "gomoku", "random", "random", "--games", "2", "--size", "9"],
    "planowanie": ["match", "planowanie", "random", "random", "--games", "1", "--values",
                   "9TJQKA", "--suits", "SH", "--deals", "3 1 0 2 1 3 0"],
    "mahjong": ["match", "mahjong", *["random"] * 4, "--hands", "1"],
    "riichi": ["match", "riichi", *["tsumogiri"] * 4, "--game", "east"],
}
"""What is played, into the folder of each name: a Gomoku tournament of 2 games and a
match of 2, a game of each other game."""


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``referee ARGS`` as a program, in ``cwd``."""
    command = [sys.executable, "-m", "referee.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=cwd)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder holding what :data:`GAMES` plays."""
    root = tmp_path_factory.mktemp("played")
    (root / "t.toml").write_text('game = "gomoku"\n[settings]\nsize = 9\n'
                                 '[[players]]\nname = "a"\nbuiltin = "random"\n'
                                 '[[players]]\nname = "b"\nbuiltin = "random"\n')
    for folder, args in GAMES.items():
        done = referee(*args, "--out", folder, cwd=root)
        assert done.returncode == 0, done.stderr
    return root


def lines(run: subprocess.CompletedProcess[str]) -> list[str]:
    """The verdicts, each cut after its label (and its format)."""
    return [line.split(": ")[0] for line in run.stdout.splitlines()]


def test_a_match_folder_is_its_games_each_once(played: Path) -> None:
    run = referee("replay", "gomoku", "gomoku", "gomoku/game-002.psq", cwd=played)
    assert run.returncode == 0, run.stdout + run.stderr
    assert lines(run) == ["OK gomoku/game-001.json (record)",
                          "OK gomoku/game-002.json (record)"]  # the .psq: the same games
    alone = referee("replay", "gomoku", "gomoku/game-002.psq", cwd=played)
    assert lines(alone) == ["OK gomoku/game-002.psq (psq)"]  # without its record: read


def test_a_tournament_is_its_store_s_games_each_once(played: Path) -> None:
    store = referee("replay", "gomoku", "tour", "tour/tournament.sqlite",
                    "tour/records.jsonl", cwd=played)
    assert store.returncode == 0, store.stdout + store.stderr
    keys = [line.split()[1] for line in store.stdout.splitlines()]
    assert len(keys) == 2 and all(key.startswith("tour#r1:") for key in keys), store.stdout
    assert all(line.startswith("OK ") and "(tournament record)" in line
               for line in store.stdout.splitlines())
    records = referee("replay", "gomoku", "tour/records.jsonl", cwd=played)
    assert lines(records) == ["OK tour/records.jsonl#1 (tournament record)",
                              "OK tour/records.jsonl#2 (tournament record)"]
    assert [line.split(": ", 1)[1] for line in records.stdout.splitlines()] == [
        line.split(": ", 1)[1] for line in store.stdout.splitlines()]  # the same games


def test_a_bad_record_in_a_records_file_is_one_fail_among_its_games(
        played: Path, tmp_path: Path) -> None:
    records = (played / "tour" / "records.jsonl").read_bytes().splitlines()
    first = json.loads(records[0])
    first["moves"] = first["moves"][:-1]  # the winning move gone
    with gzip.open(tmp_path / "records.jsonl.gz", "wb") as out:
        out.write(json.dumps(first).encode() + b"\n" + records[1] + b"\nnot json\n")
    run = referee("replay", "gomoku", "records.jsonl.gz", cwd=tmp_path)
    assert run.returncode == 1 and not run.stderr, run.stderr
    verdicts = run.stdout.splitlines()
    assert verdicts[0].startswith("FAIL records.jsonl.gz#1: the record ends normally")
    assert verdicts[1].startswith("OK records.jsonl.gz#2 (tournament record): ")
    assert verdicts[2].startswith("FAIL records.jsonl.gz#3: not JSON: ")
    assert len(verdicts) == 3


@pytest.mark.parametrize("game", ["planowanie", "mahjong", "riichi"])
def test_every_game_takes_a_match_folder_and_a_records_file(
        played: Path, tmp_path: Path, game: str) -> None:
    folder = referee("replay", game, str(played / game), cwd=tmp_path)
    assert folder.returncode == 0, folder.stdout + folder.stderr
    assert [line.split(" (")[0] for line in folder.stdout.splitlines()] == [
        f"OK {played / game / 'game-001.json'}"]
    record = json.loads((played / game / "game-001.json").read_text())
    (tmp_path / "records.jsonl").write_text(json.dumps(record) + "\n")
    jsonl = referee("replay", game, "records.jsonl", cwd=tmp_path)
    assert lines(jsonl) == ["OK records.jsonl#1 (tournament record)"], jsonl.stdout
    record["moves"] = record["moves"][:3]
    (tmp_path / "records.jsonl").write_text(json.dumps(record) + "\n")
    cut = referee("replay", game, "records.jsonl", cwd=tmp_path)
    assert cut.returncode == 1 and cut.stdout.startswith("FAIL records.jsonl#1: ")


def test_a_folder_without_games_is_one_fail(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("no game here\n")
    run = referee("replay", "gomoku", "empty", cwd=tmp_path)
    assert run.returncode == 1 and run.stdout.startswith("FAIL empty: the folder holds no "
                                                         "game"), run.stdout
