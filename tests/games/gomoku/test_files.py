"""Openings files, Piskvork .psq export, and the game record file format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.core.errors import ConfigError
from referee.core.outcome import Outcome
from referee.core.record import GameRecord, PlayerInfo
from referee.games.gomoku.openings import parse_openings, place_opening, read_openings
from referee.games.gomoku.psq import record_to_psq


def test_openings_parse_pairs_comments_and_spacing() -> None:
    text = "# freestyle\n0,0, 1,0, 0,1\n\n  -1, -1,2,2 \n3 3\n"
    assert parse_openings(text) == [[(0, 0), (1, 0), (0, 1)], [(-1, -1), (2, 2)], [(3, 3)]]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0,0, 1\n", "openings:1: odd count"),
        ("0,0\n1,x\n", "openings:2: 'x' is not a whole number"),
        ("0,0, 0,0\n", "openings:1: the same point appears twice"),
        ("# nothing\n", "no openings found"),
    ],
)
def test_openings_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_openings(text)


def test_openings_file_and_placement(tmp_path: Path) -> None:
    path = tmp_path / "openings.txt"
    path.write_text("0,0, -1,1\n")
    [offsets] = read_openings(path)
    assert place_opening(offsets, 15, 15) == [(7, 7), (6, 8)]
    assert place_opening(offsets, 20, 10) == [(10, 5), (9, 6)]
    with pytest.raises(ConfigError, match="falls off the 5x5 board"):
        place_opening([(3, 0)], 5, 5)
    with pytest.raises(ConfigError, match="cannot read openings"):
        read_openings(tmp_path / "missing.txt")


def sample_record() -> GameRecord:
    record = GameRecord(
        game="gomoku",
        players=[PlayerInfo("alpha", ["./pbrain-a"]), PlayerInfo("beta", ["./pbrain-b"])],
        settings={"width": 15, "height": 15, "rule": "freestyle"},
        seed=42,
        opening=[[7, 7], [8, 7]],
        index=3,
    )
    record.add_move(0, "9,9", 0.0123)
    record.add_move(1, "SWAP", 0.002)
    record.add_move(1, "1,2 3,4", 0.5)
    record.add_move(0, "20,20", 0.1, illegal=True)
    record.add_note(0, "MESSAGE", "hello")
    record.finish([0.0, 1.0], Outcome.ILLEGAL_MOVE, "alpha: 20,20 is outside", offender=0)
    return record


def test_record_round_trip(tmp_path: Path) -> None:
    record = sample_record()
    path = record.write(tmp_path / "g.json")
    data = json.loads(path.read_text())
    assert data["format"] == "referee-game/1"
    assert data["moves"][0] == {"seat": 0, "move": "9,9", "ms": 12.3}
    back = GameRecord.read(path)
    assert back == record
    assert back.result_text() == "0-1" and back.winner == 1


def test_record_read_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match="bad.json: not JSON"):
        GameRecord.read(bad)
    bad.write_text('{"format": "other"}')
    with pytest.raises(ConfigError, match="bad.json: not a valid game record"):
        GameRecord.read(bad)
    with pytest.raises(ConfigError, match="cannot read"):
        GameRecord.read(tmp_path / "missing.json")


def test_notes_are_bounded() -> None:
    record = sample_record()
    for _ in range(5000):
        record.add_note(1, "DEBUG", "x" * 10_000)
    assert len(record.notes) == 2000 and record.notes_dropped == 3001
    assert all(len(n.text) <= 2000 for n in record.notes)


def test_psq_export_lists_stones_one_based_with_times() -> None:
    text = record_to_psq(sample_record())
    assert text.splitlines() == [
        "Piskvorky 15x15, 11:11, 0",
        "8,8,0",
        "9,8,0",
        "10,10,12",
        "2,3,500",
        "4,5,0",
        "alpha",
        "beta",
        "-1",
    ]


def test_psq_refuses_other_games() -> None:
    record = sample_record()
    record.game = "planowanie"
    with pytest.raises(ConfigError, match="planowanie record cannot be written as .psq"):
        record_to_psq(record)
