"""The SQLite store: schedule, commit, recovery after a crash, foreign stores refused."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

import pytest

from referee.core.errors import ConfigError
from referee.core.outcome import Outcome
from referee.core.record import GameRecord, PlayerInfo
from referee.tournament.schedule import RoundRobin
from referee.tournament.store import Store, store_error_text


def record(key: str, scores: list[float]) -> GameRecord:
    r = GameRecord("gomoku", [PlayerInfo("a"), PlayerInfo("b")], settings={"game_key": key})
    r.add_move(0, "7,7", 0.001)
    r.finish(scores, Outcome.NORMAL, "five")
    return r


def opened(tmp_path: Path, gz: bool = False, fingerprint: str = "f1") -> Store:
    store = Store(tmp_path, gzip_records=gz).open(fingerprint, "t")
    store.add_games(RoundRobin(["a", "b"], 1, 1, 0).round_games(1, {}, {}))
    return store


@pytest.mark.parametrize("gz", [False, True])
def test_commit_and_read_back(tmp_path: Path, gz: bool) -> None:
    store = opened(tmp_path, gz)
    keys = [g.key for g in store.games()]
    assert [g.status for g in store.games()] == ["pending", "pending"]
    store.mark_running(keys[1])
    store.commit(keys[1], record(keys[1], [1.0, 0.0]))
    store.commit(keys[1], record(keys[1], [0.0, 1.0]))  # a second commit is ignored
    done = store.games(status="done")
    assert [g.key for g in done] == [keys[1]] and done[0].scores == (1.0, 0.0)
    assert store.record(keys[1]).settings["game_key"] == keys[1]
    store.commit(keys[0], record(keys[0], [0.5, 0.5]))
    assert [r.scores for r in store.records()] == [[1.0, 0.0], [0.5, 0.5]]
    raw = store.records_path.read_bytes()
    lines = (gzip.decompress(raw) if gz else raw).decode().splitlines()
    assert [json.loads(line)["scores"] for line in lines] == [[1.0, 0.0], [0.5, 0.5]]
    assert store.add_games(RoundRobin(["a", "b"], 1, 1, 0).round_games(1, {}, {})) == 0


def test_recovery_cuts_uncommitted_records_and_replays_running_games(tmp_path: Path) -> None:
    store = opened(tmp_path)
    first, second = (g.key for g in store.games())
    store.commit(first, record(first, [1.0, 0.0]))
    size = store.records_path.stat().st_size
    store.mark_running(second)
    with open(store.records_path, "ab") as handle:  # a crash after the append, before commit
        handle.write(b'{"half": ')
    store.close()
    again = Store(tmp_path).open("f1", "t")
    assert again.records_path.stat().st_size == size
    assert {g.key: g.status for g in again.games()} == {first: "done", second: "pending"}
    again.commit(second, record(second, [0.0, 1.0]))
    assert len(list(again.records())) == 2


def test_a_store_of_another_tournament_is_refused_untouched(tmp_path: Path) -> None:
    opened(tmp_path).close()
    before = (tmp_path / "tournament.sqlite").read_bytes()
    with pytest.raises(ConfigError, match="belongs to another tournament"):
        Store(tmp_path).open("f2", "t")
    assert (tmp_path / "tournament.sqlite").read_bytes() == before


def test_not_a_store(tmp_path: Path) -> None:
    (tmp_path / "tournament.sqlite").write_text("hello")
    with pytest.raises(ConfigError, match="not a tournament store"):
        Store(tmp_path).open("f", "t")
    with pytest.raises(ConfigError, match="no tournament store"):
        Store.open_existing(tmp_path / "elsewhere")


def test_gzip_choice_is_kept(tmp_path: Path) -> None:
    opened(tmp_path, gz=False).close()
    with pytest.raises(ConfigError, match="keep records_gzip"):
        Store(tmp_path, gzip_records=True).open("f1", "t")


def test_cancel_and_processes(tmp_path: Path) -> None:
    store = opened(tmp_path)
    assert store.cancel_pending() == 2
    store.note_process(123, 4.5, "g")
    assert store.noted_processes() == [(123, 4.5)]
    store.forget_processes("g")
    assert store.noted_processes() == []


def test_a_commit_forgets_the_games_processes_but_the_kept_ones(tmp_path: Path) -> None:
    store = opened(tmp_path)
    first, second = (g.key for g in store.games())
    for pid in (11, 12, 13):
        store.note_process(pid, 1.0, first, f"t{pid}")
    store.note_process(9, 1.0, "kept:1", "t9")  # kept from an earlier game
    store.note_process(8, 1.0, "kept:1", "t8")  # kept, then ended since
    store.note_process(21, 1.0, second, "t21")  # another game's, still running
    store.commit(first, record(first, [1.0, 0.0]), ("kept:1", [12, 9]))
    with sqlite3.connect(store.path) as db:
        rows = sorted(db.execute("SELECT pid, game, token FROM processes").fetchall())
    assert rows == [(9, "kept:1", "t9"), (12, "kept:1", "t12"), (21, second, "t21")]
    store.commit(second, record(second, [0.0, 1.0]))  # nothing kept: all its processes go
    assert sorted(p for p, _ in store.noted_processes()) == [9, 12]
    store.forget_processes("kept:1")  # the end of the run: the kept ones ended
    assert store.noted_processes() == []
    store.close()


def test_faults_a_replacement_survived_are_stored_and_counted(tmp_path: Path) -> None:
    from referee.tournament.results import standings

    store = opened(tmp_path)
    keys = [g.key for g in store.games()]
    faulty = record(keys[0], [1.0, 0.0])
    faulty.add_fault(1, Outcome.CRASH, "b: exit code 3")
    faulty.add_fault(1, Outcome.TIMEOUT, "b: no answer")
    store.commit(keys[0], faulty)
    store.commit(keys[1], record(keys[1], [0.5, 0.5]))
    rows = store.games(status="done")
    assert [row.faults for row in rows] == [((1, "crash"), (1, "timeout")), ()]
    seats = rows[0].seats
    lines = {line.name: line for line in standings(rows, ["a", "b"])}
    assert lines[seats[1]].faults == {"crash": 1, "timeout": 1}
    assert lines[seats[0]].faults == {}
    assert [f.reason for f in store.record(keys[0]).faults] == ["b: exit code 3",
                                                                "b: no answer"]


def test_a_store_from_before_the_faults_column_opens_and_gets_it(tmp_path: Path) -> None:
    import sqlite3

    store = opened(tmp_path)
    key = store.games()[0].key
    store.commit(key, record(key, [1.0, 0.0]))
    store.close()
    db = sqlite3.connect(tmp_path / "tournament.sqlite")
    db.execute("ALTER TABLE games DROP COLUMN faults")  # as an older referee made it
    db.commit()
    db.close()
    again = Store(tmp_path).open("f1", "t")
    assert [row.faults for row in again.games(status="done")] == [()]
    other = again.games(status="pending")[0].key
    played = record(other, [0.0, 1.0])
    played.add_fault(0, Outcome.CRASH, "a: gone")
    again.commit(other, played)
    assert [row.faults for row in again.games(status="done")] == [(), ((0, "crash"),)]


def test_orphans_are_found_by_their_mark_after_their_first_process_died(
        tmp_path: Path) -> None:
    import os
    import sqlite3
    import subprocess
    import time

    from referee.core.limits import TOKEN_VAR
    from referee.tournament.runner import kill_orphans

    store = opened(tmp_path)
    store.close()
    db = sqlite3.connect(tmp_path / "tournament.sqlite")
    db.execute("ALTER TABLE processes DROP COLUMN token")  # as an older referee made it
    db.commit()
    db.close()
    store = Store(tmp_path).open("f1", "t")
    token = f"orphan-{time.time_ns()}"
    first = subprocess.Popen(  # leaves a child behind, which its parent's death orphans
        ["sh", "-c", "sleep 60 & echo $!"], env=dict(os.environ, **{TOKEN_VAR: token}),
        stdout=subprocess.PIPE, text=True)
    assert first.stdout is not None
    orphan = int(first.stdout.readline())
    first.wait()
    store.note_process(first.pid, time.time(), "g1", token)
    assert store.noted_bots() == [(first.pid, store.noted_bots()[0][1], token)]
    kill_orphans(store)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{orphan}/stat") as stat:
                if stat.read().split(") ")[1].startswith("Z"):
                    break
        except FileNotFoundError:
            break
        time.sleep(0.02)
    else:
        os.kill(orphan, 9)
        raise AssertionError("the orphan carrying the mark was not killed")
    assert store.noted_processes() == []
    store.close()


def test_a_store_opened_to_read_is_read_only_and_its_errors_say_what_to_do(
        tmp_path: Path) -> None:
    store = opened(tmp_path / "t")
    store.commit(store.games()[0].key, record("k", [1.0, 0.0]))
    store.close()
    reader = Store.open_existing(tmp_path / "t")
    assert reader.count("done") == 1 and reader.meta("name") == "t"
    with pytest.raises(sqlite3.OperationalError) as caught:  # it cannot write by mistake
        reader.set_meta("name", "other")
    reader.close()
    text = store_error_text(caught.value)
    assert "read-only for this user" in text and "free space" not in text, text
    assert not list((tmp_path / "t").glob("*-wal")) and Store.open_existing(
        tmp_path / "t").meta("name") == "t"
    (tmp_path / "junk.sqlite").write_bytes(b"not a database, " * 512)
    with pytest.raises(sqlite3.DatabaseError) as damaged:
        sqlite3.connect(tmp_path / "junk.sqlite").execute("SELECT * FROM meta")
    assert "damaged or not a tournament store" in store_error_text(damaged.value)
