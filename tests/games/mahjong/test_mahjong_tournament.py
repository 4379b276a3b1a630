"""Duplicate Mahjong tournaments: ITPW groups play every seat rotation on the same walls,
rated with pairwise BayesElo; the player check; the replay from a record."""

from __future__ import annotations

import html
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from referee.core.errors import ConfigError
from referee.core.players import PlayerSpec, builtin_command
from referee.games.mahjong.adapter import MahjongAdapter, hand_sentence, mahjong_replay
from referee.games.mahjong.match import MahjongSettings, play_mahjong
from referee.games.mahjong.rules import Rules
from referee.games.mahjong.scoring import TaiTable, TaiwanTable

HAND_END = re.compile(r">Hand \d+: ")
"""The line of a step's picture that says how its hand ended (the first says "hand N")."""

BRAIN = Path(__file__).resolve().parents[2] / "brains" / "mahjong_faulty.py"


def test_a_duplicate_tournament_plays_every_rotation_on_the_same_walls(tmp_path: Path) -> None:
    toml = tmp_path / "mj.toml"
    toml.write_text("\n".join([
        'name = "mj"', 'game = "mahjong"', "seed = 8",
        "[schedule]", 'kind = "itpw"', "rounds = 1", "random_rounds = 1",
        "[settings]", "hands = 2", "move_time = 10.0",
        *[line for name, ai in (("g", "greedy"), ("r1", "random"), ("r2", "random"),
                                ("r3", "random"))
          for line in ("[[players]]", f'name = "{name}"', f'builtin = "{ai}"')],
    ]) + "\n")
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "referee.cli", "tournament", str(toml),
                          "--out", str(out), "-j", "2"], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Ratings (BayesElo)" in run.stdout
    with sqlite3.connect(out / "tournament.sqlite") as db:
        tables = {r[0] for r in db.execute("select name from sqlite_master")}
        assert "games" in tables
        columns = [r[1] for r in db.execute("pragma table_info(games)")]
        rows = db.execute("select * from games").fetchall()
    assert len(rows) == 4  # one group of four, every cyclic rotation
    seeds = {row[columns.index("seed")] for row in rows}
    assert len(seeds) == 1  # the same walls for every rotation
    assert (out / "report" / "games" / "g00001.html").exists()


def test_the_player_check_names_a_program_that_cannot_play(tmp_path: Path) -> None:
    adapter = MahjongAdapter()
    settings = MahjongSettings(Rules(hands=1), move_time=2.0)
    good = PlayerSpec("greedy", builtin_command("referee.games.mahjong.bots.greedy_ai"), True)
    adapter.check_player(settings, good, tmp_path)
    for mode, message in (("crash", "cannot play a hand"), ("garbage", "cannot play a hand"),
                          ("not-held", "not a /throw of one of its tiles")):
        bad = PlayerSpec(f"bad-{mode}", [sys.executable, str(BRAIN), "--mode", mode])
        with pytest.raises(ConfigError, match=message):
            adapter.check_player(settings, bad, tmp_path)


def test_the_replay_follows_the_record_to_each_hand_s_end(tmp_path: Path) -> None:
    players = [PlayerSpec(f"g{k}", builtin_command("referee.games.mahjong.bots.greedy_ai"),
                          True) for k in range(4)]
    record = play_mahjong(players, MahjongSettings(Rules(hands=2), seed=6), tmp_path)
    view = mahjong_replay(record)
    assert len(view.steps) == len(record.moves)
    assert all(step.note == "" for step in view.steps)
    ends = [step for step in view.steps if HAND_END.search(step.mark)]
    assert len(ends) == 2  # both hands end in the replay as they did in the game
    for number, (step, hand) in enumerate(zip(ends, record.settings["hands_played"],
                                              strict=True), 1):
        assert html.escape(hand_sentence(number, hand)) in step.mark  # in words
    assert "hand 2:" in view.steps[-1].mark
    assert view.svg().startswith("<svg")
    # every kind has its own short name: Tiao (bamboo) and Tong (dots) no longer share "t"
    from referee.games.mahjong.tiles import SHORT_NAMES_KEY, short_name, tids_of_kind

    names = {short_name(tids_of_kind(kind)[0]) for kind in range(34)}
    assert len(names) == 34 and {"5c", "5b", "5d", "E", "Rd"} <= names
    assert SHORT_NAMES_KEY in view.svg(0)


def test_framework_choices_in_the_settings_table_and_the_records(tmp_path: Path) -> None:
    adapter = MahjongAdapter()
    default = adapter.parse_settings({}, tmp_path, "t.toml")
    assert (default.rules.kong_from_previous, default.takeover, default.start_path) == (
        False, "hand", "program")
    assert adapter.describe(default) == {"hands": 16, "reserve": 16, "move_time": 10.0,
                                         "base": 100, "per_tai": 20}
    chosen = adapter.parse_settings({"kong_from_previous": True, "takeover": "game",
                                     "start_path": "command"}, tmp_path, "t.toml")
    assert adapter.describe(chosen)["takeover"] == "game" and chosen.rules.kong_from_previous
    with pytest.raises(ConfigError, match="settings.takeover"):
        adapter.parse_settings({"takeover": "forever"}, tmp_path, "t.toml")


def test_a_record_from_before_the_kong_setting_replays_with_kongs_allowed(
        tmp_path: Path) -> None:
    from referee.games.mahjong.adapter import record_rules as _rules

    assert _rules({}).kong_from_previous is True  # how older referees played
    assert _rules({"kong_from_previous": False}).kong_from_previous is False
    with pytest.raises(ValueError, match="kong_from_previous"):
        _rules({"kong_from_previous": "yes"})


def test_the_settings_name_the_tai_table(tmp_path: Path) -> None:
    adapter = MahjongAdapter()
    chosen = adapter.parse_settings({"scoring": "taiwan"}, tmp_path, "t.toml")
    assert chosen.rules.table == TaiwanTable()
    assert adapter.describe(chosen)["scoring"] == "taiwan"
    default = adapter.parse_settings({}, tmp_path, "t.toml")
    assert default.rules.table == TaiTable()
    # The default table is left out, so the fingerprints of older tournaments stay.
    assert adapter.describe(default) == {"hands": 16, "reserve": 16, "move_time": 10.0,
                                         "base": 100, "per_tai": 20}
    with pytest.raises(ConfigError, match="t.toml: settings.scoring: .*'icga' or 'taiwan'"):
        adapter.parse_settings({"scoring": "hk"}, tmp_path, "t.toml")


def test_the_replay_scores_with_the_record_s_table(tmp_path: Path) -> None:
    players = [PlayerSpec(f"g{k}", builtin_command("referee.games.mahjong.bots.greedy_ai"),
                          True) for k in range(4)]
    settings = MahjongSettings(Rules(hands=3, table=TaiwanTable()), seed=10)
    record = play_mahjong(players, settings, tmp_path)
    assert record.settings["scoring"] == "taiwan"
    said = [html.escape(hand_sentence(k, hand))
            for k, hand in enumerate(record.settings["hands_played"], 1)]
    ends = [step.mark for step in mahjong_replay(record).steps if HAND_END.search(step.mark)]
    assert len(ends) == 3
    assert all(words in mark for words, mark in zip(said, ends, strict=True))
    # A record from before the tables had names is replayed with icga.
    del record.settings["scoring"]
    ends = [step.mark for step in mahjong_replay(record).steps if HAND_END.search(step.mark)]
    assert not all(words in mark for words, mark in zip(said, ends, strict=True))
    record.settings["scoring"] = "hk"
    with pytest.raises(ValueError, match="unknown scoring 'hk'"):
        mahjong_replay(record)
