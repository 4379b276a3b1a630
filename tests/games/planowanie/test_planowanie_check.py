"""``referee replay planowanie``: records replayed through the engine from their seed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_match import SMALL, faulty

from referee.core.record import GameRecord
from referee.games.planowanie.check import check_record
from referee.games.planowanie.match import PlanowanieSettings, play_planowanie


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> list[GameRecord]:
    """A whole small game, and one a bad card ended."""
    out = tmp_path_factory.mktemp("games")
    settings = PlanowanieSettings.from_options(**SMALL)
    return [play_planowanie([faulty("a"), faulty("b")], settings, 5, out / "a"),
            play_planowanie([faulty("a"), faulty("b", "not-in-hand")], settings, 5, out / "b")]


def test_records_replay_to_their_points_or_their_fault(games: list[GameRecord]) -> None:
    assert check_record(games[0]).endswith("deals played")
    assert check_record(games[1]).endswith("seat 1 lost by illegal-move")


def test_a_changed_card_or_seed_fails(games: list[GameRecord]) -> None:
    other = GameRecord.from_dict(games[0].to_dict())
    other.seed = 6  # other deals: some card played is not in its player's hand
    with pytest.raises(ValueError, match="is illegal"):
        check_record(other)
    swapped = GameRecord.from_dict(games[0].to_dict())
    swapped.scores = list(reversed(swapped.scores or []))
    if swapped.scores != games[0].scores:
        with pytest.raises(ValueError, match="recorded scores"):
            check_record(swapped)


def test_the_command_replays_records(games: list[GameRecord], tmp_path: Path) -> None:
    paths = [str(games[k].write(tmp_path / f"g{k}.json")) for k in (0, 1)]
    run = subprocess.run([sys.executable, "-m", "referee.cli", "replay", "planowanie", *paths,
                          "--json"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert [f["ok"] for f in json.loads(run.stdout)["files"]] == [True, True]
