"""``referee dataset gomoku``: the decisions of real games (a tournament store, a match
folder, record files, .psq files) as Parquet rows that give the environment's observation,
mask and action back; filters; bad sources skipped and counted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pytest.importorskip("pettingzoo")

import pyarrow.dataset as ds  # noqa: E402

from dataset_rows import check_positions  # noqa: E402
from referee.core.record import GameRecord  # noqa: E402
from referee.envs import at_decision, make  # noqa: E402
from referee.games.gomoku.board import BLACK  # noqa: E402
from referee.games.gomoku.check import parse_action, record_engine  # noqa: E402
from referee.games.gomoku.data import DATA, psq_record  # noqa: E402
from referee.games.gomoku.game import Move  # noqa: E402
from referee.games.gomoku.psq import record_to_psq  # noqa: E402
from referee.training.dataset_sources import dataset_records, find_game  # noqa: E402

TOURNAMENT = ('game = "gomoku"\n[schedule]\nrounds = 2\n[settings]\nsize = 9\nrule = "renju"\n'
              '[[players]]\nname = "a"\nbuiltin = "random"\n'
              '[[players]]\nname = "b"\nbuiltin = "threat"\n')


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("played")
    (root / "t.toml").write_text(TOURNAMENT)
    run = referee("tournament", "t.toml", "--out", "tour", cwd=root)
    assert run.returncode == 0, run.stderr
    run = referee("match", "gomoku", "random", "random", "--games", "2", "--size", "9",
                  "--out", "match", cwd=root)
    assert run.returncode == 0, run.stderr
    return root


def rows_of(folder: Path) -> Any:
    return ds.dataset(folder, format="parquet").to_table()


def test_every_decision_gives_the_environments_view_back(played: Path,
                                                         tmp_path: Path) -> None:
    run = referee("dataset", "gomoku", str(played / "tour"), str(played / "match"),
                  "-o", str(tmp_path / "ds"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    table = rows_of(tmp_path / "ds")
    meta = json.loads(table.schema.metadata[b"referee"])
    assert meta["game"] == "gomoku" and meta["observation_shape"] == [9, 9, 3]
    assert set(table.column("variant").to_pylist()) == {"renju 9x9", "freestyle 9x9"}
    records = {str(path): GameRecord.read(path)
               for path in sorted((played / "match").glob("game-*.json"))}
    rows = [r for r in table.to_pylist() if r["game"] in records]
    assert len(rows) == sum(len(r.moves) for r in records.values())  # a row per move
    env = make("gomoku", size=9)
    switched = 0
    for label, record in records.items():  # each row: the env's view before the move
        engine = record_engine(record)
        env.set_engine(engine)
        mine = [r for r in rows if r["game"] == label]
        assert record.scores is not None
        for row, move in zip(mine, record.moves, strict=True):
            seen = env.observe(env.possible_agents[move.seat])
            observation = np.frombuffer(row["observation"], np.uint8).reshape(9, 9, 3)
            assert np.array_equal(observation, seen["observation"])
            assert np.array_equal(np.frombuffer(row["action_mask"], np.uint8),
                                  seen["action_mask"])
            action = parse_action(move.move)
            assert isinstance(action, Move) and row["action"] == action.y * 9 + action.x
            assert row["seat"] == move.seat and row["result"] == record.scores[move.seat]
            black = engine.color_of(move.seat) == BLACK  # the env's player_0 is black
            assert row["agent"] == (0 if black else 1)
            assert observation[:, :, 2].all() == black
            switched += row["agent"] != row["seat"]
            engine.apply(move.seat, action)
    assert switched  # a game where the record's seat 0 played white


def test_a_record_and_its_own_export_are_one_game(played: Path, tmp_path: Path) -> None:
    """A match folder holds each game twice, as its record and as its .psq: the dataset
    has it once, from the record (issue 37, item 7: 2 games gave "of 4 games")."""
    match = played / "match"
    records = sorted(str(p) for p in match.glob("game-*.json"))
    exports = sorted(str(p) for p in match.glob("game-*.psq"))
    assert len(records) == len(exports) == 2
    run = referee("dataset", "gomoku", str(match), "-o", str(tmp_path / "ds"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    rows = rows_of(tmp_path / "ds").to_pylist()
    assert sorted({r["game"] for r in rows}) == records
    moves = sum(len(GameRecord.read(Path(p)).moves) for p in records)
    assert len(rows) == moves and f"{moves} decisions of 2 games" in run.stderr
    # the folder, its records and their exports named too: still each game once
    run = referee("dataset", "gomoku", str(match), *exports, records[0], str(match),
                  "-o", str(tmp_path / "again"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert rows_of(tmp_path / "again").to_pylist() == rows
    # an export without its record is the game's only copy: read
    run = referee("dataset", "gomoku", exports[0], records[1], "-o", str(tmp_path / "psq"),
                  cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert sorted({r["game"] for r in rows_of(tmp_path / "psq").to_pylist()}) == [
        f"{exports[0]}#1", records[1]]
    # a folder above the tournament and the match: the games of both, once each
    above = dict(dataset_records([played], DATA))
    assert above.keys() == dict(dataset_records([played / "tour", match], DATA)).keys()
    assert len(above) == 4 + 2 and set(records) <= above.keys()


def test_a_rows_environment_is_its_game_at_that_decision(played: Path,
                                                         tmp_path: Path) -> None:
    """referee.envs.at_decision(game, row): the environment where the row's decision was
    taken, read back from the row's label (a store's game, a record, a .psq), the row's
    agent to play, seeing the row's observation and mask; its action played there gives
    the next row (issue 37, item 9)."""
    (played / "psq").mkdir(exist_ok=True)
    (played / "psq" / "one.psq").write_text(
        record_to_psq(GameRecord.read(played / "match" / "game-002.json")))
    run = referee("dataset", "gomoku", "tour", "match", "psq/one.psq", "-o",
                  str(tmp_path / "ds"), cwd=played)  # (the labels: relative to played)
    assert run.returncode == 0, run.stderr
    rows = rows_of(tmp_path / "ds").to_pylist()
    labels = {r["game"] for r in rows}
    assert "psq/one.psq#1" in labels and "match/game-001.json" in labels
    assert any(label.startswith("tour#") for label in labels)
    assert check_positions("gomoku", rows, played, whole=True) == len(rows)
    row = rows[-1]
    env = at_decision("gomoku", row["game"], row["ply"], root=played)
    engine = env.state().engine  # the game itself: the stones on the board
    record = find_game(row["game"], DATA, played)
    assert len(engine.board.moves) == len(record.opening) + row["ply"] - 1
    env.step(row["action"])
    assert env.terminations["player_0"] and sum(env.rewards.values()) == 1.0
    with pytest.raises(ValueError, match="no decision 999: the game has"):
        at_decision("gomoku", row["game"], 999, root=played)
    with pytest.raises(ValueError, match="nothing.json: no such file or folder"):
        at_decision("gomoku", {"game": "nothing.json", "ply": 1}, root=played)
    with pytest.raises(ValueError, match="a gomoku game, not a planowanie one"):
        at_decision("planowanie", "match/game-001.json", 1, root=played)


def test_filters_keep_the_decisions_asked_for(played: Path, tmp_path: Path) -> None:
    run = referee("dataset", "gomoku", str(played / "tour"), "-o", str(tmp_path / "ds"),
                  "--player", "b", "--result", "win", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    rows = rows_of(tmp_path / "ds").to_pylist()
    assert rows and all(r["player"] == "b" and r["result"] == 1.0 for r in rows)
    run = referee("dataset", "gomoku", str(played / "tour"), str(played / "match"),
                  "-o", str(tmp_path / "ds2"), "--variant", "freestyle 9x9",
                  "--rows-per-shard", "50", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert len(list((tmp_path / "ds2").glob("part-*.parquet"))) > 1
    assert set(rows_of(tmp_path / "ds2").column("variant").to_pylist()) == {"freestyle 9x9"}


def test_psq_files_and_bad_sources(played: Path, tmp_path: Path) -> None:
    record = GameRecord.read(played / "match" / "game-001.json")
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "one.psq").write_text(record_to_psq(record))
    (tmp_path / "in" / "game-002.json").write_text("{not json")
    cut = record_to_psq(record).splitlines()[:4]
    (tmp_path / "in" / "cut.psq").write_text("\n".join(cut) + "\n")
    run = referee("dataset", "gomoku", str(tmp_path / "in"), "-o", str(tmp_path / "ds"),
                  cwd=tmp_path)
    assert run.returncode == 1, run.stderr  # something was skipped: the status says so
    assert "game-002.json: " in run.stderr
    assert "cut.psq: the game has no result" in run.stderr
    assert rows_of(tmp_path / "ds").num_rows == len(record.moves)
    assert psq_record(record_to_psq(record)).scores == record.scores


def test_nothing_is_written_when_the_output_exists_or_a_source_is_missing(
        played: Path, tmp_path: Path) -> None:
    (tmp_path / "ds").mkdir()
    run = referee("dataset", "gomoku", str(played / "match"), "-o", str(tmp_path / "ds"),
                  cwd=tmp_path)
    assert run.returncode == 2 and "already exists" in run.stderr
    run = referee("dataset", "gomoku", str(tmp_path / "nope"), "-o", str(tmp_path / "x"),
                  cwd=tmp_path)
    assert run.returncode == 2 and "nope: no such file or folder" in run.stderr
    assert not (tmp_path / "x").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_writing_a_dataset_imports_no_pandas(played: Path, tmp_path: Path) -> None:
    """pyarrow.array() imports pandas when it is installed, a second or more of every run
    (issue 37, item 12): the writer makes its arrays from their buffers instead."""
    pytest.importorskip("pandas")  # (installed: pyarrow would import it)
    check = ("import sys\nfrom referee.cli import main\n"
             "try:\n    main(sys.argv[1:])\nexcept SystemExit as end:\n    code = end.code\n"
             "print('pandas' in sys.modules, 'pyarrow' in sys.modules, code, file=sys.stderr)\n")
    run = subprocess.run([sys.executable, "-c", check, "dataset", "gomoku",
                          str(played / "match"), "-o", str(tmp_path / "ds")],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.stderr.splitlines()[-1] == "False True 0", run.stderr
    table = rows_of(tmp_path / "ds")
    assert table.num_rows > 0 and table.schema.field("game").type == pa.string()
    assert table.column("player").to_pylist()[0] == "random#1"


def test_pandas_reads_the_dataset_folder_as_one_table(played: Path, tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    run = referee("dataset", "gomoku", str(played / "tour"), "-o", str(tmp_path / "ds"),
                  "--rows-per-shard", "40", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    frame = pd.read_parquet(tmp_path / "ds")
    assert len(frame) == rows_of(tmp_path / "ds").num_rows > 40  # every shard
    assert list(frame.columns) == ["game", "ply", "seat", "agent", "player", "observation",
                                   "action_mask", "action", "result", "variant"]
    first = frame.iloc[0]
    assert np.frombuffer(first["observation"], np.uint8).shape == (9 * 9 * 3,)


def test_hugging_face_datasets_load_the_folder(played: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """``datasets.load_dataset("parquet", ...)`` reads every shard, offline, as rows the
    same as pyarrow's (its cache in the test's folder)."""
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import datasets

    run = referee("dataset", "gomoku", str(played / "tour"), "-o", str(tmp_path / "ds"),
                  "--rows-per-shard", "40", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    shards = sorted(str(p) for p in (tmp_path / "ds").glob("*.parquet"))
    assert len(shards) > 1
    loaded = datasets.load_dataset("parquet", data_files=shards, split="train",
                                   cache_dir=str(tmp_path / "cache"))
    table = rows_of(tmp_path / "ds")
    assert loaded.num_rows == table.num_rows
    assert loaded.column_names == table.column_names
    assert loaded[:]["observation"] == table.column("observation").to_pylist()
    first = loaded.with_format("numpy")[0]
    assert np.frombuffer(first["observation"], np.uint8).shape == (9 * 9 * 3,)
    assert int(first["action"]) == table.column("action")[0].as_py()
