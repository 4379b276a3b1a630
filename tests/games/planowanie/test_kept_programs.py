"""Planowanie programs kept between games (a tournament's ``keep_bots``): a kept program
is set up for the next game in its new seat, one that refuses a second game is started
again, and one that faulted is never kept; real programs over real pipes."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from referee.core.bot_pool import BotPool
from referee.core.outcome import Outcome
from referee.core.players import PlayerSpec, rotation
from referee.games.planowanie.match import PlanowanieSettings, play_planowanie
from referee.games.planowanie.protocol import PlayerProgram

FAULTY = Path(__file__).resolve().parents[2] / "brains" / "planowanie_faulty.py"
SMALL = PlanowanieSettings.from_options(values="9TJQKA", suits="SH", players=2,
                                        deals="3 1 0 2 1 3 0", time=0)


def player(name: str, mode: str = "ok") -> PlayerSpec:
    """The test player in ``mode`` (see tests/brains/planowanie_faulty.py)."""
    return PlayerSpec(name, [sys.executable, str(FAULTY), mode])


def kept_pids(pool: BotPool) -> set[int]:
    return {p.pid for p in pool.processes() if p.pid is not None}


def test_kept_programs_play_game_after_game_in_their_new_seats(tmp_path: Path) -> None:
    pool = BotPool(4)
    players = [player("a"), player("b")]
    try:
        records, pids = [], []
        for game in range(4):
            records.append(play_planowanie(rotation(players, game), SMALL, 7 + game // 2,
                                           tmp_path, pool=pool))
            pids.append(kept_pids(pool))
        assert all(r.outcome is Outcome.NORMAL for r in records)
        assert len(pids[0]) == 2 and all(p == pids[0] for p in pids)  # the same two
        assert pool.taken == 6
        assert [[p.name for p in r.players] for r in records] == [["a", "b"], ["b", "a"]] * 2
    finally:
        pool.close()
    assert not kept_pids(pool)
    # a's program started in seat 0 (its folder's name) and was set up for each game (its
    # working folder is written back to the host's once it has ended: docs/sandbox.md)
    lines = (tmp_path / "work" / "0-a" / "received.txt").read_text().splitlines()
    assert [line for line in lines if line.startswith("set_players")] == [
        "set_players 2 0", "set_players 2 1", "set_players 2 0", "set_players 2 1"]
    assert sum(line.startswith("set_game") for line in lines) == 4
    assert not (tmp_path / "work" / "1-a").exists()


def test_a_program_that_takes_one_game_only_is_started_again(tmp_path: Path) -> None:
    pool = BotPool(4)
    players = [player("a"), player("once", "one-game")]
    try:
        first = play_planowanie(players, SMALL, 7, tmp_path, pool=pool)
        before = kept_pids(pool)
        second = play_planowanie(players, SMALL, 7, tmp_path, pool=pool)
        after = kept_pids(pool)
        assert first.outcome is second.outcome is Outcome.NORMAL
        assert len(before & after) == 1  # a's; "once" refused and was started again
    finally:
        pool.close()
    lines = (tmp_path / "work" / "1-once" / "received.txt").read_text().splitlines()
    assert lines.count("set_deck 9TJQKA SH") == 3  # 1st game, refused, the new one's


def test_a_program_that_faulted_is_not_kept(tmp_path: Path) -> None:
    pool = BotPool(4)
    try:
        record = play_planowanie([player("a"), player("bad", "bad-declare")], SMALL, 7,
                                 tmp_path, pool=pool)
        assert record.offender == 1 and record.outcome is Outcome.ILLEGAL_MOVE
        kept = pool.processes()
        assert len(kept) == 1 and pool.holding([player("a")]) == 1
        assert pool.take(player("bad", "bad-declare"), PlayerProgram) is None
    finally:
        pool.close()


def test_a_game_that_fails_ends_its_programs_instead_of_keeping_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from referee.games.planowanie import match

    started: list[PlayerProgram] = []

    def broken(engine: object, seats: list[Any], record: object) -> None:
        started.extend(seat.program for seat in seats)
        raise RuntimeError("the referee broke")

    monkeypatch.setattr(match, "play_game", broken)
    pool = BotPool(4)
    with pytest.raises(RuntimeError, match="the referee broke"):
        play_planowanie([player("a"), player("b")], SMALL, 7, tmp_path, pool=pool)
    assert len(started) == 2 and not any(p.process.running for p in started)
    assert pool.processes() == []
