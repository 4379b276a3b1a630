"""The rules a log was played under (:mod:`referee.games.riichi.logrules`,
:mod:`referee.games.riichi.rulesets`): recorded in our own logs and read back, guessed for
foreign logs, named on the command line by a preset or a rules file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.games.riichi.logrules import guess_game_length, recorded_rules
from referee.games.riichi.mjai import MjaiError
from referee.games.riichi.replay import load_log, verify_log
from referee.games.riichi.rules import RiichiRules
from referee.games.riichi.rulesets import (
    rules_to_dict,
)
from referee.training.logs import annotate_logs
from referee.training.selfplay import selfplay

BUST_IN_EAST = 270
"""A seed whose south game of four greedy bots ends in East 4, 3 honba, by a bust, after
the dealer won East 4 as first (an east game would have ended there)."""


def referee(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True,
                          text=True, timeout=300)


@pytest.fixture(scope="module")
def bust_record(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The self-play annotations and the mjai record of the game :data:`BUST_IN_EAST`."""
    folder = tmp_path_factory.mktemp("bust")
    summary = selfplay(1, folder / "sp.txt", seed=BUST_IN_EAST, records=folder / "recs")
    assert summary.games == 1 and not summary.skipped
    return folder / "sp.txt", folder / "recs" / f"selfplay-{BUST_IN_EAST}.mjson"


def read_events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# --- item 9: our logs record their rules; the guess for foreign logs -----------------------

def test_the_bust_record_ends_in_east_by_a_bust(bust_record: tuple[Path, Path]) -> None:
    events = read_events(bust_record[1])
    last = [e for e in events if e["type"] == "start_kyoku"][-1]
    assert (last["bakaze"], last["kyoku"], last["honba"]) == ("E", 4, 3)
    assert min(events[-1]["scores"]) < 0


def test_our_logs_record_the_rules_and_read_them_back(bust_record: tuple[Path, Path]) -> None:
    start = read_events(bust_record[1])[0]
    assert start["kyoku_first"] == 0 and start["aka_flag"] is True
    assert start["rules"] == rules_to_dict(RiichiRules())
    assert recorded_rules(start) == RiichiRules()
    assert load_log(bust_record[1]).rules == RiichiRules()


def test_a_south_game_that_busts_in_east_replays_and_annotates_as_played(
        bust_record: tuple[Path, Path], tmp_path: Path) -> None:
    lines, record = bust_record
    done = referee("replay", "riichi", str(record))
    assert done.returncode == 0, done.stdout
    assert done.stdout.startswith("OK") and "10 kyoku" in done.stdout
    summary = annotate_logs([record], tmp_path / "again.txt")
    assert summary.games == 1 and not summary.skipped
    assert (tmp_path / "again.txt").read_text() == lines.read_text()  # half-length (6) too


def test_a_foreign_log_that_busts_in_east_is_guessed_a_south_game(
        bust_record: tuple[Path, Path]) -> None:
    events = read_events(bust_record[1])
    events[0] = {"type": "start_game", "names": events[0]["names"]}  # as Mortal writes it
    assert guess_game_length(events, None) == "south"
    report = verify_log(events)
    assert report.ended and report.rules.game_length == "south"
    busted = [e for e in events if e["type"] != "end_game"]
    assert guess_game_length(busted, None) == "south"  # a log that stops: south as before


def test_the_guess_for_games_without_a_bust() -> None:
    def log(*kyoku: tuple[str, int, list[int]], deltas: list[int] | None = None
            ) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"type": "start_game"}]
        for wind, number, scores in kyoku:
            out.append({"type": "start_kyoku", "bakaze": wind, "kyoku": number,
                        "scores": scores})
            out.append({"type": "ryukyoku", "deltas": deltas or [0, 0, 0, 0]})
        return [*out, {"type": "end_game"}]

    flat = [25000] * 4
    assert guess_game_length(log(("E", 4, flat)), None) == "east"
    assert guess_game_length(log(("S", 2, flat)), None) == "east"
    assert guess_game_length(log(("S", 4, flat)), None) == "south"
    assert guess_game_length(log(("E", 2, flat), deltas=[-26000, 26000, 0, 0]), None) == "south"
    assert guess_game_length(log(("E", 4, flat)), 0) == "south"
    assert guess_game_length(log(("S", 4, flat)), 4) == "east"


def test_a_bad_recorded_rule_set_is_named(bust_record: tuple[Path, Path]) -> None:
    events = read_events(bust_record[1])
    events[0]["rules"]["uma"] = [1, 2]
    with pytest.raises(MjaiError, match="start_game: .*uma must be four integers"):
        verify_log(events)
