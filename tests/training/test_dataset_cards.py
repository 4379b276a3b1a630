"""``referee dataset planowanie`` and ``referee dataset mahjong``: the decisions of real
games (a tournament store, match folders, games lost or taken over by a fault) as Parquet
rows that give the environment's observation, mask and action back; filters; bad records
skipped and counted."""

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
from referee.games.mahjong.env import EnvMahjongGame  # noqa: E402
from referee.games.mahjong.protocol import parse_action  # noqa: E402
from referee.games.planowanie.env import EnvPlanowanieGame  # noqa: E402
from referee.games.planowanie.replay import parse_move  # noqa: E402

POLICIES = Path(__file__).resolve().parents[1] / "policies"
DEALS = "3 2 0 3 1 1 0"
TOURNAMENT = "\n".join([
    'game = "planowanie"', "seed = 5", "[schedule]", 'kind = "itpw"', "rounds = 1",
    "random_rounds = 1", "[settings]", f'deals = "{DEALS}"',
    *[line for name, bot in (("h1", "heuristic"), ("r1", "random"), ("r2", "random"),
                             ("r3", "random"))
      for line in ("[[players]]", f'name = "{name}"', f'builtin = "{bot}"')]]) + "\n"


def referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


def policy_bot(game: str, policy: str, *options: str) -> str:
    return " ".join([sys.executable, "-m", "referee.cli", "bot", game, *options, "--policy",
                     f"first_legal:{policy}", "--path", str(POLICIES)])


def rows_of(folder: Path) -> Any:
    return ds.dataset(folder, format="parquet").to_table()


def records_in(folder: Path) -> dict[str, GameRecord]:
    return {str(path): GameRecord.read(path) for path in sorted(folder.glob("game-*.json"))}


# -- Planowanie ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cards")
    (root / "t.toml").write_text(TOURNAMENT)
    run = referee("tournament", "t.toml", "--out", "tour", cwd=root)
    assert run.returncode == 0, run.stderr
    run = referee("match", "planowanie", "heuristic", "random", "random", "random",
                  "--games", "2", "--deals", "3 2 1 3 2 1 3", "--out", "match", cwd=root)
    assert run.returncode == 0, run.stderr
    run = referee("match", "planowanie", policy_bot("planowanie", "illegal"), "random",
                  "random", "random", "--games", "1", "--deals", DEALS, "--out", "lost",
                  cwd=root)  # declares 0, then plays no card: an illegal move ends it
    assert run.returncode == 0, run.stderr
    return root


def test_planowanie_rows_give_the_environments_view_back(cards: Path, tmp_path: Path) -> None:
    run = referee("dataset", "planowanie", str(cards / "tour"), str(cards / "match"),
                  str(cards / "lost"), "-o", str(tmp_path / "ds"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    table = rows_of(tmp_path / "ds")
    meta = json.loads(table.schema.metadata[b"referee"])
    env = make("planowanie", deals=DEALS)
    assert meta["game"] == "planowanie" and meta["actions"] == 4 + 52
    assert meta["observation_shape"] == list(env.game.observation_shape)
    assert set(table.column("variant").to_pylist()) == {
        f"4 players 23456789TJQKA/CDHS deals {DEALS}",
        "4 players 23456789TJQKA/CDHS deals 3 2 1 3 2 1 3"}
    records = records_in(cards / "match") | records_in(cards / "lost")
    rows = [r for r in table.to_pylist() if r["game"] in records]
    assert len(rows) == sum(len(r.moves) for r in records.values())
    for label, record in records.items():
        env = make("planowanie", deals=[tuple(d) for d in record.settings["deals"]])
        env.reset(seed=0)
        engine = env.engine = EnvPlanowanieGame(env.game.layout, record.seed)
        mine = [r for r in rows if r["game"] == label]
        assert record.scores is not None
        for row, move in zip(mine, record.moves, strict=False):
            seen = env.observe(env.possible_agents[move.seat])
            observation = np.frombuffer(row["observation"], np.uint8)
            assert np.array_equal(observation, seen["observation"])
            assert np.array_equal(np.frombuffer(row["action_mask"], np.uint8),
                                  seen["action_mask"])
            action = parse_move(move.move, engine.rules.deck)
            assert row["action"] == env.game.index(engine, move.seat, action)
            assert row["seat"] == move.seat and row["result"] == record.scores[move.seat]
            assert row["agent"] == row["seat"]  # the environment seats as the record
            engine.apply(move.seat, action)
        assert len(mine) == len(record.moves)
    lost = next(iter(records_in(cards / "lost").values()))
    assert lost.offender == 0 and lost.outcome is not None  # (the card it could not name
    assert lost.outcome.value == "illegal-move"  # is not a move of the record)


def test_planowanie_rows_environments_are_their_games_at_those_decisions(
        cards: Path, tmp_path: Path) -> None:
    """referee.envs.at_decision(game, row): each row's environment (a store's games, a
    match's, one an illegal move ended) selects its agent and shows it its observation
    and mask; its action there gives the next row (issue 37, item 9)."""
    run = referee("dataset", "planowanie", "tour", "match", "lost", "-o",
                  str(tmp_path / "ds"), cwd=cards)
    assert run.returncode == 0, run.stderr
    rows = rows_of(tmp_path / "ds").to_pylist()
    assert {r["game"].split("/")[0].split("#")[0] for r in rows} == {"tour", "match", "lost"}
    assert len(rows) > 200
    assert check_positions("planowanie", rows, cards, every=3, whole=True) == len(rows[::3])


def test_planowanie_filters_and_bad_records(cards: Path, tmp_path: Path) -> None:
    run = referee("dataset", "planowanie", str(cards / "tour"), "-o", str(tmp_path / "ds"),
                  "--player", "h1", "--result", "win", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    rows = rows_of(tmp_path / "ds").to_pylist()
    run = referee("dataset", "planowanie", str(cards / "tour"), "-o", str(tmp_path / "all"),
                  cwd=tmp_path)
    results: dict[str, dict[str, float]] = {}
    for row in rows_of(tmp_path / "all").to_pylist():
        results.setdefault(row["game"], {})[row["player"]] = row["result"]
    won = {game for game, scores in results.items()
           if scores["h1"] > max(s for p, s in scores.items() if p != "h1")}
    assert rows and all(r["player"] == "h1" for r in rows)
    assert {r["game"] for r in rows} == won != set(results)
    run = referee("dataset", "planowanie", str(cards / "tour"), str(cards / "match"),
                  "-o", str(tmp_path / "ds2"), "--variant",
                  "4 players 23456789TJQKA/CDHS deals 3 2 1 3 2 1 3", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert rows_of(tmp_path / "ds2").num_rows == sum(
        len(r.moves) for r in records_in(cards / "match").values())
    (tmp_path / "in").mkdir()
    data = json.loads((cards / "match" / "game-001.json").read_text())
    card = next(m for m in data["moves"] if not m["move"].startswith("declare"))
    card["move"] = "declare 9"  # a declaration while playing
    (tmp_path / "in" / "game-001.json").write_text(json.dumps(data))
    (tmp_path / "in" / "game-002.json").write_text("{not json")
    data = json.loads((cards / "match" / "game-002.json").read_text())
    engine = EnvPlanowanieGame(make("planowanie", deals="3 2 1 3 2 1 3").game.layout,
                               data["seed"])
    for move in data["moves"][:6]:
        engine.apply(move["seat"], parse_move(move["move"], engine.rules.deck))
    seat = engine.to_play()
    held = engine.hands[seat]
    stranger = next(c for c in range(52) if not held >> c & 1)
    data["moves"] = [*data["moves"][:6], {"seat": seat, "move": engine.notation(stranger),
                                          "ms": 1, "info": {"illegal": True}}]
    (tmp_path / "in" / "game-003.json").write_text(json.dumps(data))  # lost on a card
    run = referee("dataset", "planowanie", str(tmp_path / "in"), "-o", str(tmp_path / "ds3"),
                  cwd=tmp_path)
    assert run.returncode == 1, run.stderr  # something was skipped: the status says so
    assert "game-001.json: move " in run.stderr and "is not legal" in run.stderr
    assert "game-002.json: " in run.stderr
    assert rows_of(tmp_path / "ds3").num_rows == 6  # up to the illegal card


# -- ICGA Mahjong -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiles(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tiles")
    run = referee("match", "mahjong", "greedy", "random", "random", "random", "--hands", "2",
                  "--rotations", "2", "--seed", "3", "--out", "match", cwd=root)
    assert run.returncode == 0, run.stderr
    for hands, takeover in ((3, "hand"), (2, "game")):  # five answers, then an illegal
        run = referee("match", "mahjong", policy_bot("mahjong", "illegal_later", "--hands",
                                                     str(hands)),
                      "greedy", "random", "random", "--hands", str(hands), "--seed", "4",
                      "--takeover", takeover, "--out", f"faulty/{takeover}", cwd=root)
        assert run.returncode == 0, run.stderr  # the dummy AI takes the seat over
    return root


def players_own(record: GameRecord) -> list[bool]:
    """Which answers were the player's own: a program's (timed on its CPU), not the dummy
    AI's, and legal."""
    return ["cpu_ms" in m.info and not m.info.get("illegal") for m in record.moves]


def test_mahjong_rows_give_the_environments_view_back(tiles: Path, tmp_path: Path) -> None:
    run = referee("dataset", "mahjong", str(tiles / "match"), str(tiles / "faulty"),
                  "-o", str(tmp_path / "ds"), cwd=tmp_path)  # (a folder of match folders)
    assert run.returncode == 0, run.stderr
    table = rows_of(tmp_path / "ds")
    meta = json.loads(table.schema.metadata[b"referee"])
    assert meta["game"] == "mahjong" and meta["observation_shape"] == [12, 34]
    assert set(table.column("variant").to_pylist()) == {"icga 2 hands", "icga 3 hands"}
    records = (records_in(tiles / "match") | records_in(tiles / "faulty" / "hand")
               | records_in(tiles / "faulty" / "game"))
    faults = [(r.settings["takeover"], f.seat) for r in records.values() for f in r.faults]
    assert sorted(set(faults)) == [("game", 0), ("hand", 0)]
    assert len(faults) > 2  # the hand's: one a hand (the program starts afresh)
    assert table.num_rows == sum(sum(players_own(r)) for r in records.values())
    rows = table.to_pylist()
    for label, record in records.items():
        env = make("mahjong", hands=record.settings["hands"])
        env.reset(seed=0)
        engine = env.engine = EnvMahjongGame(record.seed, env.game.rules)
        assert record.scores is not None
        mine = iter([r for r in rows if r["game"] == label])
        for move, own in zip(record.moves, players_own(record), strict=True):
            seat = engine.to_play()
            assert seat == move.seat and engine.hand.question is not None
            action = parse_action(move.move, engine.hand.question.ask)
            if move.info.get("illegal"):
                continue
            if own:
                row = next(mine)
                seen = env.observe(env.possible_agents[seat])
                observation = np.frombuffer(row["observation"], np.uint8).reshape(12, 34)
                assert np.array_equal(observation, seen["observation"])
                assert np.array_equal(np.frombuffer(row["action_mask"], np.uint8),
                                      seen["action_mask"])
                assert row["action"] == env.game.index(engine, seat, action)
                assert row["seat"] == seat and row["result"] == record.scores[seat]
                assert row["agent"] == seat
            engine.apply(seat, action)
        assert next(mine, None) is None  # no row for the dummy AI's answers
        if record.faults:  # the player's own rows: before its fault (and in later hands)
            assert 0 < sum(r["seat"] == 0 for r in rows if r["game"] == label) < sum(
                m.seat == 0 for m in record.moves)


def test_mahjong_rows_environments_are_their_games_at_those_decisions(
        tiles: Path, tmp_path: Path) -> None:
    """The same for Mahjong, where the dummy AI's answers are no rows: the environment is
    at each row's decision with every answer before it played, the dummy's too."""
    run = referee("dataset", "mahjong", "match", "faulty", "-o", str(tmp_path / "ds"),
                  cwd=tiles)
    assert run.returncode == 0, run.stderr
    rows = rows_of(tmp_path / "ds").to_pylist()
    faulty = [r for r in rows if r["game"].startswith("faulty/")]
    assert faulty and check_positions("mahjong", faulty, tiles) == len(faulty)
    assert check_positions("mahjong", rows, tiles, every=17) == len(rows[::17]) > 30
    last = max((r for r in faulty if r["seat"] == 0), key=lambda r: r["ply"])
    env = at_decision("mahjong", last, root=tiles)
    assert env.moves > last["ply"] - 1  # the dummy AI's answers before it: no rows


def test_mahjong_filters_and_bad_records(tiles: Path, tmp_path: Path) -> None:
    run = referee("dataset", "mahjong", str(tiles / "match"), str(tiles / "faulty"), "-o",
                  str(tmp_path / "ds"), "--player", "greedy", "--variant", "icga 2 hands",
                  cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    rows = rows_of(tmp_path / "ds").to_pylist()
    assert rows and {(r["player"], r["variant"]) for r in rows} == {("greedy", "icga 2 hands")}
    (tmp_path / "in").mkdir()
    data = json.loads((tiles / "match" / "game-001.json").read_text())
    first = next(m for m in data["moves"] if m["move"].startswith("/throw"))
    first["move"] = "/throw 999"
    (tmp_path / "in" / "game-001.json").write_text(json.dumps(data))
    data["settings"]["scoring"] = "nonsense"
    (tmp_path / "in" / "game-002.json").write_text(json.dumps(data))
    run = referee("dataset", "mahjong", str(tmp_path / "in"), "-o", str(tmp_path / "ds2"),
                  cwd=tmp_path)
    assert run.returncode == 1
    assert "game-001.json: move " in run.stderr and "999" in run.stderr
    assert "game-002.json: mahjong record: unknown scoring 'nonsense'" in run.stderr
