"""A file that is not quite a game record is refused in the record's own words: the key
that is unknown, missing or of the wrong kind, never a Python message (``GameRecord.__init__()
got an unexpected keyword argument``, ``KeyError``)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.core.errors import ConfigError
from referee.core.outcome import Outcome
from referee.core.record import GameRecord, PlayerInfo


def recorded() -> dict[str, Any]:
    """A real record's JSON: two players, two moves, a note, a finished result."""
    record = GameRecord("gomoku", [PlayerInfo("a", ["a"]), PlayerInfo("b", ["b"])], seed=3)
    record.add_move(0, "7,7", 0.01)
    record.add_move(1, "7,8", 0.02)
    record.add_note(0, "MESSAGE", "hello")
    record.finish([1.0, 0.0], Outcome.NORMAL, "five")
    data: dict[str, Any] = json.loads(record.to_json())
    return data


def changed(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    data = recorded()
    change(data)
    return data


BROKEN: dict[str, tuple[dict[str, Any] | list[Any], str]] = {
    "unknown key": (changed(lambda d: d.update(bogus=1)), "unknown key 'bogus'"),
    "unknown move key": (changed(lambda d: d["moves"][1].update(extra=2)),
                         "moves[1]: unknown key 'extra'"),
    "no players": (changed(lambda d: d.pop("players")), "missing key 'players'"),
    "a move without its move": (changed(lambda d: d["moves"][0].pop("move")),
                                "moves[0]: missing key 'move'"),
    "moves not a list": (changed(lambda d: d.update(moves="7,7")),
                         "moves: expected a list, got '7,7'"),
    "a player not an object": (changed(lambda d: d.update(players=["a", "b"])),
                               "players[0]: expected an object, got 'a'"),
    "an unknown player key": (changed(lambda d: d["players"][1].update(rating=3)),
                              "players[1]: unknown key 'rating'"),
    "a note without its text": (changed(lambda d: d["notes"][0].pop("text")),
                                "notes[0]: missing key 'text'"),
    "a fault not an object": (changed(lambda d: d.update(faults=[7])),
                              "faults[0]: expected an object, got 7"),
    "an unknown outcome": (changed(lambda d: d.update(outcome="won")),
                           "unknown outcome 'won'"),
    "not an object": ([1, 2], "expected a JSON object"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_record_names_what_is_wrong(tmp_path: Path, case: str) -> None:
    data, reason = BROKEN[case]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigError) as caught:
        GameRecord.read(path)
    assert str(caught.value) == f"{path}: not a valid game record: {reason}"


def test_replay_says_it_in_one_verdict_per_file(tmp_path: Path) -> None:
    files = {f"{case.replace(' ', '-')}.json": reason for case, (_, reason) in BROKEN.items()}
    for case, (data, _) in BROKEN.items():
        (tmp_path / f"{case.replace(' ', '-')}.json").write_text(json.dumps(data))
    run = subprocess.run([sys.executable, "-m", "referee.cli", "replay", "gomoku", *files],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 1 and not run.stderr, run.stderr
    assert run.stdout.splitlines() == [f"FAIL {name}: not a valid game record: {reason}"
                                       for name, reason in files.items()]
