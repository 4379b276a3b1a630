"""``keep_bots = true``: a tournament's programs play game after game without being
started again (Gomocup's RESTART), with real brains over real pipes.

The brains are ``chatty.py``: each process has a token of its own, which its ABOUT answer
gives (so each record says which process played each seat) and which starts every line it
writes on stderr (so each game's part of the log says which process wrote it, and what).
"""

from __future__ import annotations

import io
import os
import signal
import sqlite3
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest
from rich.console import Console
from test_runner import done_count, referee_cli

from proctags import left_behind, tagged
from referee.core.bot_pool import BotPool
from referee.core.errors import ConfigError
from referee.core.players import PlayerSpec, start_player
from referee.core.process import BotProcess
from referee.core.record import GameRecord
from referee.games.gomoku.protocol import Brain
from referee.games.registry import game_adapters
from referee.tournament.config import load_tournament
from referee.tournament.report.downloads import game_logs
from referee.tournament.runner import TournamentRunner
from referee.tournament.session import run_tournament
from referee.tournament.store import Store
from tournament_runs import run_quietly

CHATTY = Path(__file__).resolve().parents[1] / "brains" / "chatty.py"
FAULTY = Path(__file__).resolve().parents[1] / "brains" / "planowanie_faulty.py"


def tournament(players: dict[str, str], *, keep: bool = True, concurrency: int = 1,
               rounds: int = 2, game: str = "gomoku", sandbox: str = "auto") -> str:
    """A round robin of chatty brains (name -> extra arguments) on a 9x9 board."""
    lines = ['name = "kept"', f'game = "{game}"', "seed = 3", f"concurrency = {concurrency}",
             'output = "out"', f"keep_bots = {'true' if keep else 'false'}",
             f'sandbox = "{sandbox}"',
             "[schedule]", 'kind = "round-robin"', f"rounds = {rounds}",
             "[settings]", "size = 9" if game == "gomoku" else "", "timeout_turn = 5000"]
    for name, extra in players.items():
        lines += ["[[players]]", f'name = "{name}"',
                  f'command = "{sys.executable} {CHATTY} {extra}"'.rstrip()]
    return "\n".join(lines) + "\n"


def records(out: Path) -> list[GameRecord]:
    """The tournament's records in the order the games finished."""
    store = Store.open_existing(out)
    try:
        return list(store.records())
    finally:
        store.close()


def processes(games: list[GameRecord]) -> dict[str, list[str]]:
    """Each player's process (its token) in each of its games, in order."""
    found: dict[str, list[str]] = defaultdict(list)
    for record in games:
        for player in record.players:
            found[player.name].append(player.about["token"])
    return found


def expected_part(record: GameRecord, seat: int, first: bool) -> bytes:
    """What a chatty brain wrote on stderr during ``record`` in ``seat``: ``start`` in
    the first game of its process, ``restart`` in the others, then its moves; ``dying``
    if it crashed (a kept brain's END comes after its last game, in none)."""
    token = record.players[seat].about["token"]
    text = f"{token} {'start' if first else 'restart'}\n"
    text += "".join(f"{token} move {m.move}\n" for m in record.moves if m.seat == seat)
    if record.offender == seat:
        text += f"{token} dying\n"
    return text.encode()


def test_each_program_plays_all_its_games_and_each_game_gets_its_own_log_part(
        tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text(tournament({"ann": "", "bob": "", "cid": ""}))
    shown = io.StringIO()
    run_tournament(tmp_path / "t.toml", Console(file=shown, width=120))
    assert "keep_bots: programs kept running between games, up to 4 per game slot" \
        in shown.getvalue()
    out = tmp_path / "out"
    games = records(out)
    assert len(games) == 12 and all(r.offender is None for r in games)
    tokens = processes(games)
    for name in ("ann", "bob", "cid"):  # one slot, room for every idle program: one
        assert len(tokens[name]) == 8 and len(set(tokens[name])) == 1, name  # process
    seen: set[str] = set()
    for record in games:
        for log in game_logs(out, record):
            token = record.players[log.seat].about["token"]
            assert log.data == expected_part(record, log.seat, token not in seen)
            seen.add(token)
    for log in (out / "slots" / "1" / "logs").glob("*.stderr.log"):
        assert log.read_text().endswith(" end\n")  # ended with END when the run was over
    store = Store.open_existing(out)
    try:
        assert store.noted_bots() == []
    finally:
        store.close()


def test_where_nothing_can_be_pinned_a_kept_program_serves_any_seat(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import referee.core.bot_pool as bot_pool

    monkeypatch.setattr(bot_pool, "REFEREE_CPUS", None)  # (a system without affinity)
    player = PlayerSpec("a", [sys.executable, str(CHATTY)])
    b = Brain(start_player(player, tmp_path, seed=1), "a")
    pool = BotPool(4)
    pool.keep(player, b, b.process, lambda: b.end(1.0))
    assert pool.take(PlayerSpec("a", player.command, cpus=(4095,)), Brain) is b
    assert b.process.cpus == (4095,)
    b.end(1.0)


def test_with_a_cpu_per_player_a_kept_program_plays_either_seat(tmp_path: Path) -> None:
    """Not suspended, each seat of a game has a CPU of its own (``affinity``): a kept
    program whose next game seats it elsewhere is moved to that seat's CPU, and plays."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: no CPU per player")
    text = tournament({"ann": "", "bob": ""}).replace('sandbox = "auto"', "affinity = true")
    (tmp_path / "t.toml").write_text(text + '[sandbox]\nlevel = "auto"\nsuspend = false\n')
    shown = io.StringIO()
    run_tournament(tmp_path / "t.toml", Console(file=shown, width=120))
    assert "affinity: each player of each game on a CPU of its own" in shown.getvalue()
    games = records(tmp_path / "out")
    assert len(games) == 4 and all(r.offender is None for r in games)
    assert {r.players[0].name for r in games} == {"ann", "bob"}  # both seats, each
    assert all(len(set(ts)) == 1 for ts in processes(games).values())  # one process


def test_without_keep_bots_every_game_starts_its_programs(tmp_path: Path) -> None:
    out = run_quietly(tmp_path, tournament({"ann": "", "bob": ""}, keep=False))
    tokens = processes(records(out))
    assert all(len(set(ts)) == len(ts) == 4 for ts in tokens.values())


def test_a_program_that_faulted_or_refuses_restart_is_started_again(tmp_path: Path) -> None:
    out = run_quietly(tmp_path, tournament(
        {"ann": "", "crasher": "--crash-at 4", "old": "--no-restart"}))
    games = records(out)
    tokens = processes(games)
    assert len(set(tokens["ann"])) == 1
    crashes = [r for r in games if r.offender is not None]
    assert crashes and all(r.players[r.offender].name == "crasher" for r in crashes
                           if r.offender is not None)
    # crasher: a new process for each game after the one it crashed in
    by_game = [r.players[[p.name for p in r.players].index("crasher")].about["token"]
               for r in games if "crasher" in [p.name for p in r.players]]
    for before, after, record in zip(by_game, by_game[1:], [r for r in games if "crasher" in
                                                               [p.name for p in r.players]],
                                     strict=False):
        if record.offender is not None:
            assert after != before
    # old: kept, asked to RESTART, refuses, ended and started again for every game
    assert len(set(tokens["old"])) == len(tokens["old"]) == 8
    old_logs = (out / "slots" / "1" / "logs" / "old.stderr.log").read_text()
    assert old_logs.count(" refuse\n") == 7
    assert all(r.outcome is not None for r in games)


def test_kept_programs_are_noted_and_a_resumed_run_kills_them_after_a_kill_9(
        tmp_path: Path) -> None:
    tag = f"kept-{time.time_ns()}"
    path = tmp_path / "t.toml"
    # (not sandboxed: bubblewrap's programs die with the referee; these are left running:
    # the one waiting for its turn may be suspended, and either stays on when its input
    # ends, as a program that does not notice its referee's end)
    path.write_text(tournament({"ann": "--linger 60", "bob": "--linger 60"}, rounds=3,
                               sandbox="off"))
    proc = referee_cli("tournament", str(path), cwd=tmp_path, tag=tag)
    out = tmp_path / "out"
    try:
        limit = time.monotonic() + 60
        while done_count(out) < 3:
            assert proc.poll() is None and time.monotonic() < limit
            time.sleep(0.01)
        proc.kill()
        proc.wait()
        # the two programs, kept since their first game, outlive the referee
        orphans = {p.pid for p in tagged(tag)}
        with sqlite3.connect(out / "tournament.sqlite") as db:
            rows = db.execute("SELECT pid, game FROM processes").fetchall()
        assert len(rows) == 2 and {g for _, g in rows} == {"kept:1"}
        assert orphans == {pid for pid, _ in rows}
        run_tournament(path, Console(file=io.StringIO()), concurrency=1)
        assert done_count(out) == 6
        assert not orphans & {p.pid for p in tagged(tag)}
    finally:
        proc.kill()
    assert not left_behind(tag)


def test_ctrl_c_ends_the_kept_programs_too_and_the_run_resumes(tmp_path: Path) -> None:
    tag = f"kept-int-{time.time_ns()}"
    path = tmp_path / "t.toml"
    path.write_text(tournament({"ann": "", "bob": ""}, rounds=10, concurrency=2))
    out = tmp_path / "out"
    proc = referee_cli("tournament", str(path), cwd=tmp_path, tag=tag)
    try:
        limit = time.monotonic() + 60
        while done_count(out) < 3:
            assert proc.poll() is None and time.monotonic() < limit
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=30)
        assert proc.returncode == 130 and "resume" in stderr
        assert not left_behind(tag, 2.0), "programs left running after Ctrl-C"
        assert done_count(out) < 20
        run_tournament(path, Console(file=io.StringIO()))
        assert done_count(out) == 20
        store = Store.open_existing(out)
        try:
            assert store.noted_bots() == []
            assert len({r.settings["game_key"] for r in store.records()}) == 20
        finally:
            store.close()
    finally:
        proc.kill()
    assert not left_behind(tag)


def test_a_game_goes_to_the_free_slot_where_its_players_wait(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(tournament({"ann": "", "bob": "", "cid": ""}, concurrency=3))
    spec = load_tournament(path, game_adapters())
    store = Store(tmp_path / "store").open(spec.fingerprint(), spec.name)
    try:
        runner = TournamentRunner(spec, store, concurrency=3)
        game = runner.schedule.round_games(1, {}, {})[0]
        assert runner.slot_for(game, set()) == 1  # nobody waits anywhere: the first
        kept = []
        for slot, names in ((2, game.seats[:1]), (3, game.seats)):
            for name in names:
                b = brain(tmp_path / str(slot), name)
                kept.append(b)
                runner.pools[slot].keep(runner.players[name], b, b.process,
                                        lambda b=b: b.end(1.0))
        assert runner.slot_for(game, set()) == 3  # both players wait there
        assert runner.slot_for(game, {3}) == 2  # busy: the one where one waits
        assert runner.slot_for(game, {2, 3}) == 1
    finally:
        for pool in runner.pools.values():
            pool.close()
        store.close()
    assert not any(b.process.running for b in kept)


def test_games_played_elsewhere_start_their_programs(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(tournament({"ann": "", "bob": ""}))
    spec = load_tournament(path, game_adapters())
    store = Store(tmp_path / "store").open(spec.fingerprint(), spec.name)
    try:
        runner = TournamentRunner(spec, store, play=lambda task: GameRecord("gomoku", []))
        assert runner.pools == {}
        assert runner.keeping_text() == ("keep_bots: not on Ray workers (each game starts "
                                         "its programs)")
    finally:
        store.close()


def test_only_games_with_a_new_game_command_can_keep_their_programs(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(tournament({"ann": "", "bob": ""}, game="mahjong")
                    .replace("timeout_turn = 5000", ""))
    with pytest.raises(ConfigError, match="keep_bots: mahjong programs cannot play "
                                          "another game"):
        load_tournament(path, game_adapters())


def test_planowanie_programs_are_set_up_again_for_each_game(tmp_path: Path) -> None:
    """An ITPW tournament of 4 programs: each plays the 4 seat rotations of every round
    with one process, set up again for each game (``set_players`` with its new seat)."""
    lines = ['name = "cards"', 'game = "planowanie"', "seed = 5", "concurrency = 1",
             'output = "out"', "keep_bots = true", "[schedule]", 'kind = "itpw"',
             "rounds = 2", "random_rounds = 1", "[settings]", "time = 60000"]
    for name in ("p1", "p2", "p3", "p4"):
        lines += ["[[players]]", f'name = "{name}"',
                  f'command = "{sys.executable} {FAULTY} ok"']
    out = run_quietly(tmp_path, "\n".join(lines) + "\n")
    games = records(out)
    assert len(games) == 8 and all(r.offender is None for r in games)
    folders = sorted((out / "slots" / "1" / "work").iterdir())
    assert len(folders) == 4  # one process per player: started once, in its first seat
    for folder in folders:
        received = (folder / "received.txt").read_text().splitlines()
        seats = [line for line in received if line.startswith("set_players")]
        assert sorted(seats) == [f"set_players 4 {k}" for k in range(4) for _ in (1, 2)]
    for record in games:  # and each game's part of its log: that game's (nothing here)
        assert all(p.stderr is not None and p.stderr.start == p.stderr.end
                   for p in record.players)


# -- the pool ---------------------------------------------------------------------------
def brain(tmp_path: Path, name: str) -> Brain:
    """A chatty brain started as a tournament's slot starts one."""
    player = PlayerSpec(name, [sys.executable, str(CHATTY)])
    return Brain(start_player(player, tmp_path, seed=1), name)


def test_the_pool_keeps_its_capacity_ending_the_program_idle_longest(tmp_path: Path) -> None:
    pool = BotPool(2)
    players = [PlayerSpec(n, [sys.executable, str(CHATTY)]) for n in ("a", "b", "c")]
    brains = [brain(tmp_path, p.name) for p in players]
    ended: list[str] = []

    def stop(b: Brain) -> None:
        ended.append(b.name)
        b.end(1.0)

    for player, b in zip(players, brains, strict=True):
        pool.keep(player, b, b.process, lambda b=b: stop(b))
    assert ended == ["a"] and not brains[0].process.running
    assert all(b.process.suspended for b in brains[1:])  # idle: no CPU
    assert pool.holding(players) == 2
    assert pool.take(players[0], Brain) is None
    assert pool.take(players[1], Brain) is brains[1]
    assert pool.take(players[1], Brain) is None  # taken once
    brains[2].process.kill()  # died while idle: dropped, not handed out
    assert pool.take(players[2], Brain) is None
    pool.keep(players[1], brains[1], brains[1].process, lambda: stop(brains[1]))
    pool.close()
    assert ended == ["a", "b"] and not brains[1].process.running
    assert pool.processes() == [] and pool.taken == 1


THREADED = ("import runpy, sys, threading, time\n"
            "threading.Thread(target=time.sleep, args=(600,), daemon=True).start()\n"
            "sys.argv = [sys.argv[1]]\n"
            "runpy.run_path(sys.argv[0], run_name='__main__')\n")
"""A chatty brain with a second thread (asleep)."""


def cpus_of(process: BotProcess) -> list[set[int]]:
    """The CPUs of every thread of every process of ``process``."""
    return [os.sched_getaffinity(int(task)) for pid in process.alive_processes()
            for task in os.listdir(f"/proc/{pid}/task")]


def test_another_command_is_another_program_and_other_cpus_move_the_kept_one(
        tmp_path: Path) -> None:
    """A kept program is its player's with the same command; a seat pinned to other CPUs
    gets it moved there, every thread of it (``affinity`` with a CPU per player gives
    each seat its own)."""
    every = sorted(os.sched_getaffinity(0))
    player = PlayerSpec("a", [sys.executable, "-c", THREADED, str(CHATTY)])
    b = Brain(start_player(player, tmp_path, seed=1), "a")
    b.start(9, 9, time.monotonic() + 10)
    pool = BotPool(4)
    pool.keep(player, b, b.process, lambda: b.end(1.0))
    assert pool.take(PlayerSpec("a", [*player.command, "-x"]), Brain) is None
    pinned = PlayerSpec("a", player.command, cpus=(every[-1],))
    assert pool.holding([pinned]) == 1
    assert pool.take(pinned, Brain) is b
    threads = cpus_of(b.process)  # (its two threads, and its sandbox's processes if any)
    assert len(threads) >= 2 and threads == [{every[-1]}] * len(threads), threads
    pool.keep(pinned, b, b.process, lambda: b.end(1.0))
    assert pool.take(player, Brain) is b  # back to every CPU
    assert cpus_of(b.process) == [set(every)] * len(threads)
    assert b.restart(time.monotonic() + 10)  # it still plays, moved
    assert b.begin(1000, time.monotonic() + 10)
    pool.keep(player, b, b.process, lambda: b.end(1.0))
    assert pool.take(PlayerSpec("a", player.command, cpus=(4095,)), Brain) is None
    assert not b.process.running  # no such CPU: ended, and the game starts another
    c = Brain(start_player(player, tmp_path, seed=1), "a")
    pool.keep(player, c, c.process, lambda: c.end(1.0))
    assert pool.take(player, str) is None  # not what the game keeps: dropped
    assert not c.process.running
