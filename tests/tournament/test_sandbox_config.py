"""The sandbox and CPU pinning of a tournament: the file's ``sandbox`` (a level or a
table) and ``affinity``, the command line's override, what reaches each game's settings,
and how the game slots are given CPUs."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

import pytest
from test_runner import cpu_noting_brain

from referee.core.adapter import GameTask
from referee.core.errors import ConfigError
from referee.core.limits import MemoryWatchdog, ProcessTree
from referee.core.players import PlayerSpec
from referee.core.sandbox import MB, SandboxLevel
from referee.games.registry import game_adapters
from referee.tournament.affinity import (
    available_cpus,
    describe_plan,
    pin_task,
    pinned_thread,
    slot_cpus,
    thread_cpus,
)
from referee.tournament.config import load_tournament
from referee.tournament.store import Store

HEAD = """
name = "sb"
game = "{game}"
output = "out"
{top}
[schedule]
kind = "{kind}"

[[players]]
name = "a"
builtin = "{builtin}"

[[players]]
name = "b"
builtin = "{builtin}"
"""

GAMES = {"gomoku": ("round-robin", "random"), "planowanie": ("itpw", "random"),
         "mahjong": ("itpw", "random"), "riichi": ("itpw", "tsumogiri")}


def load(tmp_path: Path, top: str = "", game: str = "gomoku"):  # type: ignore[no-untyped-def]
    kind, builtin = GAMES[game]
    path = tmp_path / "t.toml"
    path.write_text(HEAD.format(game=game, top=top, kind=kind, builtin=builtin))
    return load_tournament(path, game_adapters())


def settings_sandbox(tournament):  # type: ignore[no-untyped-def]
    """The sandbox that the game's settings carry (riichi nests it)."""
    settings = tournament.settings
    return settings.match.sandbox if hasattr(settings, "match") else settings.sandbox


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_gets_the_tournaments_sandbox_with_the_output_hidden(
        tmp_path: Path, game: str) -> None:
    (tmp_path / "books").mkdir()
    tournament = load(tmp_path, '[sandbox]\nlevel = "strict"\nmax_processes = 32\n'
                      'max_file_size = "8M"\nmax_folder = 3\nread = ["books"]\n'
                      'suspend = true\n', game)
    config = settings_sandbox(tournament)
    assert config == tournament.sandbox
    assert config.level is SandboxLevel.STRICT
    assert (config.limits.processes, config.limits.file_size, config.limits.folder) == (
        32, 8 * MB, 3 * MB)
    assert config.readable == (tmp_path / "books",)
    assert config.suspend is True
    assert config.hidden == (tmp_path / "out",)


def test_a_level_alone_and_the_default(tmp_path: Path) -> None:
    assert settings_sandbox(load(tmp_path, 'sandbox = "off"\n')).level is SandboxLevel.OFF
    default = settings_sandbox(load(tmp_path))
    assert default.level is SandboxLevel.AUTO and default.suspend is None


def test_the_command_lines_level_overrides_the_files_and_keeps_its_limits(
        tmp_path: Path) -> None:
    tournament = load(tmp_path, '[sandbox]\nlevel = "strict"\nmax_processes = 32\n')
    moved = tournament.confined(SandboxLevel.OFF)
    config = settings_sandbox(moved)
    assert config.level is SandboxLevel.OFF and config.limits.processes == 32
    assert moved.fingerprint() == tournament.fingerprint()  # still the same tournament


@pytest.mark.parametrize(("top", "complaint"), [
    ('sandbox = "loose"', "sandbox.level: must be one of 'auto', 'strict' or 'off', got 'loose'"),
    ('[sandbox]\nmax_processes = 2', "sandbox.max_processes: must be at least 4, got 2"),
    ('[sandbox]\nmax_folder = "lots"', "sandbox.max_folder: not a size: 'lots'"),
    ('[sandbox]\nmax_file_size = "10B"', "sandbox.max_file_size: '10B' is too small"),
    ('[sandbox]\nread = ["nowhere"]', "sandbox.read: sandbox: readable path"),
    ('[sandbox]\nnetwork = true', "sandbox.network: unknown key (check its spelling)"),
    ('affinity = "maybe"', "affinity: must be true or false, got 'maybe'"),
])
def test_mistakes_name_the_key(tmp_path: Path, top: str, complaint: str) -> None:
    with pytest.raises(ConfigError) as error:
        load(tmp_path, top)
    assert complaint in str(error.value)
    assert str(tmp_path / "t.toml") in str(error.value)


def test_slots_get_a_cpu_per_player_when_there_are_enough() -> None:
    plan = slot_cpus([0, 1, 2, 3, 4, 5], slots=3, seats=2)
    assert plan == {1: ((0,), (1,)), 2: ((2,), (3,)), 3: ((4,), (5,))}
    every = [cpu for seats in plan.values() for cpus in seats for cpu in cpus]
    assert len(every) == len(set(every))
    assert describe_plan(plan, [0, 1, 2, 3, 4, 5], 3) == (
        "affinity: each player of each game on a CPU of its own")


def test_slots_share_a_cpu_per_game_with_fewer_and_none_with_too_few() -> None:
    plan = slot_cpus([2, 5], slots=2, seats=4)
    assert plan == {1: ((2,),) * 4, 2: ((5,),) * 4}
    assert describe_plan(plan, [2, 5], 2) == (
        "affinity: each game on a CPU of its own, shared by its players and its referee")
    assert slot_cpus([0, 1], slots=3, seats=2) is None
    assert "fewer CPUs than games" in describe_plan(None, [0, 1], 3)


def test_players_taking_turns_share_one_cpu_a_slot_with_their_referee() -> None:
    plan = slot_cpus([0, 1, 2, 3, 4, 5], slots=3, seats=2, turns=True)
    assert plan == {1: ((0,), (0,)), 2: ((1,), (1,)), 3: ((2,), (2,))}
    free, own = PlayerSpec("free", ["x"]), PlayerSpec("own", ["y"], cpus=(7,))
    assert thread_cpus(pin_task(GameTask("k", (free, free), seed=1, slot=2), plan),
                       plan) == {1}
    assert describe_plan(plan, [0, 1, 2, 3, 4, 5], 3, turns=True) == (
        "affinity: each game on a CPU of its own, shared by its players (suspended off "
        "turn: one runs at a time) and its referee")
    assert slot_cpus([0, 1], slots=3, seats=2, turns=True) is None
    apart = slot_cpus([0, 1, 2, 3], slots=2, seats=2)
    task = pin_task(GameTask("k", (free, own), seed=1, slot=1), apart)
    assert thread_cpus(task, apart) == {0, 7}  # where its players run, its own CPUs too
    assert thread_cpus(GameTask("k", (free, own), seed=1, slot=1), None) is None


def test_a_pinned_thread_gets_its_cpus_back_and_the_watchdog_never_keeps_them() -> None:
    """``pinned_thread`` pins the calling thread alone, for its block; the memory
    watchdog's thread, if a pinned game's thread starts it, runs on the referee's CPUs."""
    cpus = available_cpus()
    if len(cpus) < 2 or not hasattr(os, "sched_setaffinity"):
        pytest.skip("one CPU: pinned and unpinned threads look the same")
    seen: dict[str, set[int]] = {}
    watchdog = MemoryWatchdog(interval=0.01)
    sleeper = subprocess.Popen(["sleep", "60"])
    tree = ProcessTree(sleeper.pid)

    def over(kind: str, text: str) -> None:
        raise AssertionError(f"a sleep is not over a terabyte: {kind} {text}")

    def game() -> None:
        with pinned_thread({cpus[1]}):
            seen["in"] = os.sched_getaffinity(0)
            seen["main"] = os.sched_getaffinity(threading.main_thread().native_id or 0)
            watchdog.watch(tree, 1 << 40, over)
            thread = watchdog._thread
            assert thread is not None and thread.native_id is not None
            deadline = time.monotonic() + 10
            while sleeper.pid not in watchdog.peaks and time.monotonic() < deadline:
                time.sleep(0.005)  # (its first look comes after it set its CPUs)
            seen["watchdog"] = os.sched_getaffinity(thread.native_id)
        seen["after"] = os.sched_getaffinity(0)

    try:
        thread = threading.Thread(target=game)
        thread.start()
        thread.join()
    finally:
        watchdog.unwatch(tree)
        sleeper.kill()
        sleeper.wait()
    with pinned_thread({4095}):  # no such CPU: the game is played, not pinned
        assert os.sched_getaffinity(0) == set(cpus)
    assert seen == {"in": {cpus[1]}, "main": set(cpus), "watchdog": set(cpus),
                    "after": set(cpus)}


def test_a_task_is_pinned_to_its_slots_cpus_unless_a_player_names_its_own() -> None:
    free, own = PlayerSpec("free", ["x"]), PlayerSpec("own", ["y"], cpus=(7,))
    task = GameTask("k", (free, own), seed=1, slot=2)
    pinned = pin_task(task, slot_cpus([0, 1, 2, 3], slots=2, seats=2))
    assert [p.cpus for p in pinned.seats] == [(2,), (7,)]
    assert pin_task(task, None) is task


def test_affinity_reaches_the_bots_and_the_sandbox_the_store(tmp_path: Path) -> None:
    from rich.console import Console

    from referee.tournament.session import run_tournament

    brain = cpu_noting_brain(tmp_path / "bot")
    path = tmp_path / "t.toml"
    path.write_text(f'name = "pin"\ngame = "gomoku"\nconcurrency = 1\naffinity = true\n'
                    f'output = "out"\n[settings]\nsize = 10\n'
                    f'[[players]]\nname = "a"\ncommand = "{brain}"\n'
                    f'[[players]]\nname = "b"\nbuiltin = "random"\n')
    console = Console(record=True, width=200)
    run_tournament(path, console, sandbox=SandboxLevel.AUTO)
    shown = console.export_text()
    assert "affinity: each player of each game on a CPU of its own" in shown or (
        "shared by its players" in shown)
    seen = {line for f in (tmp_path / "out" / "slots").rglob("cpus.txt")
            for line in f.read_text().splitlines()}
    check = {line for f in (tmp_path / "out" / "slots" / "check").rglob("cpus.txt")
             for line in f.read_text().splitlines()}
    games = seen - check if seen != check else seen
    assert games and all(len(line.split()) == 1 for line in games), seen  # one CPU
    store = Store.open_existing(tmp_path / "out")
    try:
        meta = store.meta("tournament") or ""
    finally:
        store.close()
    assert '"sandbox": "sandbox: ' in meta
