"""``referee dataset riichi``: the decisions of real games (a tournament store, a match
folder, mjai logs, Tenhou mjlog and JSON logs) as Parquet rows that give the environment's
observation, mask and action back; filters; bad sources skipped and counted."""

from __future__ import annotations

import gzip
import json
import shutil
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
from referee.envs import at_decision  # noqa: E402
from referee.games.riichi.adapter import record_rules  # noqa: E402
from referee.games.riichi.data import DATA  # noqa: E402
from referee.games.riichi.env import (  # noqa: E402
    CONTEXT,
    HIGH,
    NUMERIC,
    OBSERVATION_SIZE,
    RIICHI,
    RiichiEnvEngine,
    RiichiEnvGame,
)
from referee.games.riichi.kanachan.annotate import Context, annotate_game  # noqa: E402
from referee.games.riichi.kanachan.encoding import O_CHI, O_PON, O_RON, O_SKIP  # noqa: E402
from referee.games.riichi.replay import chosen_rules, load_log  # noqa: E402
from referee.games.riichi.rules import RiichiGame  # noqa: E402
from referee.training.dataset_sources import dataset_records  # noqa: E402

LOGS = Path(__file__).resolve().parents[1] / "data" / "riichi"
TOURNAMENT = ('name = "rd"\ngame = "riichi"\nseed = 4\n[schedule]\nkind = "itpw"\nrounds = 1\n'
              'random_rounds = 1\n[settings]\ngame = "east"\nroom = "mahjong_soul"\n'
              + "".join(f'[[players]]\nname = "{name}"\nbuiltin = "{builtin}"\n'
                        for name, builtin in (("g1", "greedy"), ("g2", "greedy"),
                                              ("t1", "tsumogiri"), ("t2", "tsumogiri"))))


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("played")
    (root / "t.toml").write_text(TOURNAMENT)
    run = referee("tournament", "t.toml", "--out", "tour", "-j", "2", cwd=root)
    assert run.returncode == 0, run.stderr
    run = referee("match", "riichi", "greedy", "tsumogiri", "greedy", "greedy", "--game",
                  "east", "--seed", "38", "--out", "match", cwd=root)  # a chi outranked
    assert run.returncode == 0, run.stderr
    return root


def rows_of(folder: Path) -> list[dict[str, Any]]:
    return list(ds.dataset(folder, format="parquet").to_table().to_pylist())


def dataset(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return referee("dataset", "riichi", *args, cwd=cwd)


def replayed(rows: list[dict[str, Any]], record: GameRecord) -> None:
    """Step the environment's engine through the rows' actions: each row is the view of
    the seat the environment asks, and the rows are every decision of the game."""
    rules = record_rules(record)
    env_game = RiichiEnvGame(rules)
    assert isinstance(record.seed, int)
    engine = RiichiEnvEngine(RiichiGame(rules, seed=record.seed))
    for row in rows:
        seat = engine.to_play()
        assert row["seat"] == row["agent"] == seat
        observation = np.frombuffer(row["observation"], np.uint8)
        assert np.array_equal(observation.astype(np.float32), env_game.observe(engine, seat))
        assert np.array_equal(np.frombuffer(row["action_mask"], np.uint8),
                              env_game.legal_mask(engine, seat))
        assert row["result"] == pytest.approx(record.scores[seat])  # type: ignore[index]
        assert row["player"] == record.players[seat].name
        engine.apply(seat, env_game.action(engine, seat, row["action"]))
    assert engine.to_play() is None and engine.scores() == record.scores


def test_every_decision_gives_the_environments_view_back(played: Path,
                                                         tmp_path: Path) -> None:
    run = dataset(str(played / "tour"), str(played / "match"), "-o", str(tmp_path / "ds"),
                  cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    table = ds.dataset(tmp_path / "ds", format="parquet").to_table()
    meta = json.loads(table.schema.metadata[b"referee"])
    assert meta["game"] == "riichi" and meta["observation_shape"] == [OBSERVATION_SIZE]
    assert meta["actions"] == RIICHI + 1 and meta["observation_high"] == HIGH == 255
    rows = table.to_pylist()
    assert {r["variant"] for r in rows} == {"mahjong_soul east", "tenhou east"}
    records = dict(dataset_records([played / "tour", played / "match"], DATA))
    assert len(records) == 5  # 4 games of the tournament's group, the match's (not its log)
    # their parent folder: the same games (the logs beside records or in the store skipped)
    assert dict(dataset_records([played], DATA)).keys() == records.keys()
    kinds = set()
    for label, record in records.items():
        assert isinstance(record, GameRecord)
        mine = [r for r in rows if r["game"] == label]
        assert [r["ply"] for r in mine] == list(range(1, len(mine) + 1))
        replayed(mine, record)
        kinds.update(r["action"] // 1 for r in mine if r["action"] != O_SKIP
                     and O_CHI <= r["action"] < RIICHI)
    assert kinds, "no call in five games"
    assert f"{len(rows)} decisions of 5 games" in run.stderr


def test_a_rows_environment_is_its_game_at_that_decision(played: Path,
                                                         tmp_path: Path) -> None:
    """referee.envs.at_decision(game, row) for records (a store's, a match's) and logs
    (a tournament's, named without its store): the row's agent to decide, its
    observation and mask; a log's answers to a discard are taken in the environment's
    order, lowest seat first (issue 37, item 9)."""
    run = dataset("tour", "match", "-o", str(tmp_path / "records"), cwd=played)
    assert run.returncode == 0, run.stderr
    rows = rows_of(tmp_path / "records")
    assert check_positions("riichi", rows, played, every=9) == len(rows[::9]) > 150
    run = dataset("tour/slots", "-o", str(tmp_path / "logs"), cwd=played)
    assert run.returncode == 0, run.stderr
    logs = rows_of(tmp_path / "logs")
    answers = [r for r in logs if r["observation"][CONTEXT + 3] or r["observation"][CONTEXT + 4]]
    assert check_positions("riichi", answers, played, every=4) == len(answers[::4]) > 30
    assert check_positions("riichi", logs, played, every=29) == len(logs[::29]) > 20
    row = answers[len(answers) // 2]
    env = at_decision("riichi", row, root=played)
    kyoku = env.state().engine.game.kyoku  # the whole game: every hand, the wall
    assert kyoku.phase in ("respond", "chankan") and sum(map(len, kyoku.hands)) > 13 * 3
    env.step(row["action"])  # the game goes on from there
    assert env.moves == at_decision("riichi", row, root=played).moves + 1


def test_a_log_is_left_out_only_when_its_record_or_store_is_read(played: Path) -> None:
    """A tournament's mjai logs and a match's log are the games of its store and its
    record: left out beside them, read when named without them (they were skipped even
    then, giving no game)."""
    logs = sorted((played / "tour" / "slots").rglob("*.mjson*"))
    assert len(logs) == 4
    alone = dict(dataset_records(logs, DATA))
    assert list(alone) == [f"{log}#1" for log in logs]
    assert all(isinstance(game, GameRecord) for game in alone.values())
    beside = dict(dataset_records([played / "tour", *logs], DATA))
    assert len(beside) == 4 and all("#" in label and "slots" not in label
                                    for label in beside)
    log = played / "match" / "game-001.mjson.gz"
    assert list(dict(dataset_records([log], DATA))) == [f"{log}#1"]
    assert list(dict(dataset_records([log, played / "match"], DATA))) == [
        str(played / "match" / "game-001.json")]


def test_a_match_log_alone_gives_the_rows_it_can_tell(played: Path, tmp_path: Path) -> None:
    """The log shows the claims that stood, not the answers they outranked: those rows
    are left out; every other row is the record's."""
    alone = tmp_path / "logs"
    alone.mkdir()
    shutil.copy(played / "match" / "game-001.mjson.gz", alone / "g.mjson.gz")
    run = dataset(str(alone), "-o", str(tmp_path / "ds"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    from_log = rows_of(tmp_path / "ds")
    record = GameRecord.read(played / "match" / "game-001.json")
    from_record = list(DATA.decisions(record))
    assert record.scores is not None
    assert {r["seat"]: r["result"] for r in from_log} == pytest.approx(
        dict(enumerate(record.scores)))
    told = iter(from_log)
    row = next(told)
    left_out = []
    for decision in from_record:
        same = (row is not None and row["seat"] == decision.seat
                and row["action"] == decision.action
                and row["observation"] == decision.observation.tobytes()
                and row["action_mask"] == decision.action_mask.astype(np.uint8).tobytes())
        if same:
            row = next(told, None)
            continue
        assert decision.action_mask[O_CHI:O_RON].any(), decision  # a call outranked, or not
        left_out.append(decision.action)
    assert row is None  # every row of the log is one of the record's, in order
    assert len(from_log) + len(left_out) == len(from_record)
    assert any(O_CHI <= a < O_PON for a in left_out)  # the log shows a pass for that chi


def test_a_tenhou_log_gives_kanachans_features(tmp_path: Path) -> None:
    """A Tenhou mjlog: the rows' sparse features are those kanachan's annotator gives the
    same decisions (the seat's own turns), the results the log's."""
    path = LOGS / "2010091009gm-00a9-0000-83af2648.mjlog"
    run = dataset(str(path), "-o", str(tmp_path / "ds"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    rows = rows_of(tmp_path / "ds")
    loaded = load_log(path)
    assert loaded.final_results is not None
    assert {r["seat"]: r["result"] for r in rows} == pytest.approx(
        dict(enumerate(loaded.final_results)))
    ours = []
    for row in rows:
        mask = np.frombuffer(row["action_mask"], np.uint8)
        numbers = {int(n) for n in np.flatnonzero(mask)}
        assert row["action"] in numbers
        observation = np.frombuffer(row["observation"], np.uint8)
        own_turn = observation[CONTEXT] or observation[CONTEXT + 2]  # after a draw, a call
        if own_turn and (len(numbers) >= 2 or RIICHI in numbers):
            ours.append([int(i) for i in np.flatnonzero(observation[:NUMERIC])])
    rules = chosen_rules(loaded)
    lines = annotate_game([e.to_dict() for e in loaded.events], "g",
                          Context(kanachan_exact=False), rules)
    theirs = [sorted(map(int, line.split("\t")[1].split(","))) for line in lines
              if str(O_SKIP) not in line.split("\t")[4].split(",")]
    assert len(ours) == len(theirs) > 100
    assert ours == theirs


def test_tenhou_json_and_folders_of_logs(tmp_path: Path) -> None:
    """A folder of logs: mjlogs and a whole game in Tenhou's JSON (in a folder below),
    beside JSON that is no log (left alone); the same Tenhou log named on the
    command line; the players' names as the logs give them."""
    folder = tmp_path / "logs"
    (folder / "tenhou").mkdir(parents=True)
    for log in LOGS.glob("*.mjlog"):
        shutil.copy(log, folder / log.name)
    shutil.copy(LOGS / "tenhou6" / "ranked_game.json", folder / "tenhou" / "ranked_game.json")
    (folder / "settings.json").write_text('{"players": 4, "note": "no log"}\n')
    (folder / "list.json").write_text("[1, 2]\n")
    run = dataset(str(folder), "-o", str(tmp_path / "ds"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    rows = rows_of(tmp_path / "ds")
    games = {r["game"] for r in rows}
    assert len(games) == 5 and all(g.endswith("#1") for g in games)
    assert str(folder / "tenhou" / "ranked_game.json#1") in games
    run = dataset(str(LOGS / "tenhou6" / "ranked_game.json"), "-o", str(tmp_path / "one"),
                  cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    named = rows_of(tmp_path / "one")
    from_folder = [r for r in rows if r["game"].endswith("ranked_game.json#1")]
    assert [(r["seat"], r["action"], r["observation"]) for r in named] == [
        (r["seat"], r["action"], r["observation"]) for r in from_folder]
    assert all(r["player"] for r in rows)
    assert {r["variant"] for r in rows} == {"tenhou south"}


def test_filters(played: Path, tmp_path: Path) -> None:
    run = dataset(str(played / "tour"), "-o", str(tmp_path / "all"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    every = rows_of(tmp_path / "all")
    run = dataset(str(played / "tour"), "-o", str(tmp_path / "g1"), "--player", "g1",
                  "--result", "win", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    kept = rows_of(tmp_path / "g1")
    expected = []
    records = dict(dataset_records([played / "tour"], DATA))
    for row in every:
        if row["player"] != "g1":
            continue
        record = records[row["game"]]
        assert isinstance(record, GameRecord) and record.scores is not None
        if row["result"] > max(s for k, s in enumerate(record.scores) if k != row["seat"]):
            expected.append(row)
    assert kept == expected
    run = dataset(str(played / "tour"), str(played / "match"), "-o", str(tmp_path / "v"),
                  "--variant", "tenhou east", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert {r["game"].split("#")[0] for r in rows_of(tmp_path / "v")} == {
        str(played / "match" / "game-001.json")}


def test_bad_logs_are_skipped_and_counted(played: Path, tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(played / "match" / "game-001.json", folder / "game-001.json")
    lines = gzip.decompress((played / "match" / "game-001.mjson.gz").read_bytes()).splitlines()
    (folder / "cut.mjson").write_bytes(b"\n".join(lines[:200]) + b"\n")  # stops in a hand
    (folder / "junk.mjson").write_text("not json\n")
    shutil.copy(LOGS / "tenhou6" / "chankan.json", folder / "chankan.json")
    run = dataset(str(folder), "-o", str(tmp_path / "ds"), cwd=tmp_path)  # (the Tenhou
    # log too: a JSON object with a "log")
    assert run.returncode == 1
    skipped = [line for line in run.stderr.splitlines() if line.startswith("skipped ")]
    assert len(skipped) == 3, run.stderr
    assert any("cut.mjson#" not in s and "cut.mjson" in s and "does not end the game" in s
               for s in skipped), skipped  # (it stops in a hand: no result to learn from)
    assert any("junk.mjson" in s for s in skipped)
    assert any("chankan.json" in s and "does not end the game" in s for s in skipped)
    rows = rows_of(tmp_path / "ds")
    assert {r["game"] for r in rows} == {str(folder / "game-001.json")}
    assert "; 3 skipped" in run.stderr


def test_the_safe_defaults_answers_are_not_the_players(played: Path) -> None:
    """A pass the record counts as a failure (the safe default's answer to a question),
    a move marked as the default's, and a seat's decisions from its forfeit on: no row."""
    record = GameRecord.read(played / "match" / "game-001.json")
    rows = list(DATA.decisions(record))
    moved = 0  # the record's moves before each decision (a clean game: every non-pass)
    before = []
    for decision in rows:
        before.append(moved)
        moved += decision.action != O_SKIP
    k = next(k for k, d in enumerate(rows) if d.action == O_SKIP and k > len(rows) // 2)
    record.settings["failures"] = [{"seat": rows[k].seat, "moves": before[k]}]
    assert [d.action for d in DATA.decisions(record)] == [
        d.action for i, d in enumerate(rows) if i != k]
    del record.settings["failures"]
    record.moves[3].info["default"] = True
    assert len(list(DATA.decisions(record))) == len(rows) - 1
    del record.moves[3].info["default"]
    record.settings["forfeits"] = [{"seat": 1, "moves": before[k]}]
    kept = [(d.seat, d.action, d.observation.tobytes()) for d in DATA.decisions(record)]
    assert kept == [(d.seat, d.action, d.observation.tobytes()) for i, d in enumerate(rows)
                    if d.seat != 1 or before[i] < before[k]]
