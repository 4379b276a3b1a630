"""``referee replay mahjong``: records replayed through the engine from their seed, the
dummy AI's answers after a takeover included."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_mahjong_match import builtin, faulty

from referee.core.record import GameRecord
from referee.games.mahjong.check import check_record
from referee.games.mahjong.match import MahjongSettings, play_mahjong
from referee.games.mahjong.rules import Rules
from referee.games.mahjong.scoring import preset


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> list[GameRecord]:
    """Two hands of reference AIs (taiwan table), two with an AI the dummy replaces."""
    out = tmp_path_factory.mktemp("games")
    fine = [builtin("greedy"), builtin("random"), builtin("random"), builtin("greedy")]
    taken = [builtin("random"), faulty("not-held"), builtin("random"), builtin("random")]
    return [play_mahjong(fine, MahjongSettings(Rules(hands=2, table=preset("taiwan")),
                                               seed=4), out / "a"),
            play_mahjong(taken, MahjongSettings(Rules(hands=2), seed=2, move_time=1.5),
                         out / "b")]


def test_records_replay_with_their_takeovers(games: list[GameRecord]) -> None:
    assert check_record(games[0]).startswith(f"{len(games[0].moves)} moves, 2 hands")
    assert [f.seat for f in games[1].faults] == [1, 1]
    assert any(m.info.get("illegal") for m in games[1].moves)  # the move before a takeover
    assert check_record(games[1]).startswith(f"{len(games[1].moves)} moves")


def test_changed_payments_or_walls_fail(games: list[GameRecord]) -> None:
    paid = GameRecord.from_dict(games[0].to_dict())
    paid.settings["hands_played"][0]["payments"][0] += 100
    with pytest.raises(ValueError, match="hand 1: the record has"):
        check_record(paid)
    walls = GameRecord.from_dict(games[0].to_dict())
    walls.seed = 99
    with pytest.raises(ValueError, match="move "):
        check_record(walls)


def test_the_command_replays_records(games: list[GameRecord], tmp_path: Path) -> None:
    path = games[1].write(tmp_path / "g.json")
    run = subprocess.run([sys.executable, "-m", "referee.cli", "replay", "mahjong", str(path)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(f"OK {path} (record): ")
