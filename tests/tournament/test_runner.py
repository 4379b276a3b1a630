"""Whole tournaments with real brains over real pipes: results, resume after a real kill,
Ctrl-C, concurrency, schedules, SPRT, and bad input refused before any game starts.

The built-in brains are seeded per game from the schedule, so a tournament played twice
(at any concurrency, interrupted or not) gives the same games move for move.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from proctags import TAG, kill_tagged, tagged
from referee.core.errors import ConfigError
from referee.tournament.session import run_tournament
from referee.tournament.store import Store

BROKEN = Path(__file__).resolve().parents[1] / "brains" / "faults" / "broken.py"


def tournament_file(folder: Path, *, name: str = "t", players: int = 3, rounds: int = 1,
                    kind: str = "round-robin", size: int = 9, extra: str = "",
                    settings: str = "", player_lines: str = "") -> Path:
    """A tournament of built-in random brains (``r1``, ``r2``...) on a small board."""
    lines = [f'name = "{name}"', 'game = "gomoku"', "seed = 11", extra,
             "[schedule]", f'kind = "{kind}"', f"rounds = {rounds}",
             "[settings]", f"size = {size}", "timeout_turn = 5000", settings]
    for number in range(1, players + 1):
        lines += ["[[players]]", f'name = "r{number}"', 'builtin = "random"']
    lines.append(player_lines)
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def run(path: Path, out: Path, concurrency: int = 1) -> str:
    """Run the tournament in this process; returns what it printed."""
    text = io.StringIO()
    run_tournament(path, Console(file=text, width=120), concurrency=concurrency, out_dir=out)
    return text.getvalue()


def played(out: Path) -> dict[str, tuple[list[str], list[float], str]]:
    """Every finished game of a store: key -> (moves, scores, outcome)."""
    store = Store.open_existing(out)
    try:
        return {r.settings["game_key"]: ([m.move for m in r.moves], r.scores or [],
                                         r.outcome.value if r.outcome else "")
                for r in store.records()}
    finally:
        store.close()


def referee_cli(*args: str, cwd: Path, tag: str) -> subprocess.Popen[str]:
    """``referee ARGS`` as a real process of its own (its bots carry ``tag``)."""
    env = dict(os.environ, **{TAG: tag})
    # Ctrl-C must raise KeyboardInterrupt in the referee even if something in this test
    # process (a library started earlier) ignores SIGINT, which a child would inherit
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from referee.cli import main; sys.exit(main())")
    return subprocess.Popen([sys.executable, "-c", code, *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def done_count(out: Path) -> int:
    """Finished games in the store, read without disturbing the running referee."""
    return Store.peek_done(out)


@pytest.fixture
def tag(tmp_path: Path) -> Iterator[str]:
    """A tag for this test's processes; any left at the end are killed."""
    value = f"runner-{time.time_ns()}"
    yield value
    kill_tagged(value)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, tuple]]:
    """One uninterrupted run of the standard tournament (3 players, 2 rounds, 12 games)."""
    folder = tmp_path_factory.mktemp("reference")
    path = tournament_file(folder, rounds=2)
    out = folder / "out"
    run(path, out, concurrency=1)
    return path, played(out)


# -- a whole tournament -----------------------------------------------------------------
def test_round_robin_plays_every_game_once_and_writes_everything(
        reference: tuple[Path, dict[str, tuple]], tmp_path: Path) -> None:
    path, games = reference
    assert len(games) == 12  # 3 pairs x 2 colours x 2 rounds
    out = tmp_path / "out"
    text = run(path, out)
    assert "12 games (0 already played)" in text
    assert "Final standings" in text and "Ratings (BayesElo)" in text
    records = (out / "records.jsonl").read_text().splitlines()
    keys = [json.loads(line)["settings"]["game_key"] for line in records]
    assert sorted(keys) == sorted(games) and len(set(keys)) == 12
    pgn = (out / "results.pgn").read_text()
    assert pgn.count("[White ") == 12
    assert (out / "slots" / "1" / "logs").is_dir()
    again = run(path, out)  # nothing left to play
    assert "12 games (12 already played)" in again
    assert len((out / "records.jsonl").read_text().splitlines()) == 12


def test_results_are_the_same_whatever_the_concurrency(
        reference: tuple[Path, dict[str, tuple]], tmp_path: Path) -> None:
    path, games = reference
    out = tmp_path / "out"
    run(path, out, concurrency=3)
    assert played(out) == games
    assert {p.name for p in (out / "slots").iterdir()} >= {"1", "2", "3"}


def test_kill_9_mid_tournament_then_resume_loses_and_repeats_nothing(
        reference: tuple[Path, dict[str, tuple]], tmp_path: Path, tag: str) -> None:
    path, games = reference
    out = tmp_path / "out"
    proc = referee_cli("tournament", str(path), "--out", str(out), "-j", "2",
                       cwd=tmp_path, tag=tag)
    limit = time.monotonic() + 60
    while done_count(out) < 4:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < limit, "no game finished in time"
        time.sleep(0.01)
    proc.kill()  # SIGKILL: no clean-up at all
    proc.wait()
    killed_at = done_count(out)
    assert 4 <= killed_at < 12
    resumed = referee_cli("tournament", str(path), "--out", str(out), "-j", "2",
                          cwd=tmp_path, tag=tag)
    stdout, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    assert f"({killed_at} already played)" in stdout
    assert played(out) == games
    lines = (out / "records.jsonl").read_text().splitlines()
    assert len(lines) == 12  # a record half-written at the kill was cut away
    assert not tagged(tag), "bots left running"
    store = Store.open_existing(out)
    try:
        assert store.count("done") == 12 and store.count() == 12
        assert store.noted_processes() == []
    finally:
        store.close()


def test_ctrl_c_stops_cleanly_and_the_same_command_resumes(
        reference: tuple[Path, dict[str, tuple]], tmp_path: Path, tag: str) -> None:
    path, games = reference
    out = tmp_path / "out"
    proc = referee_cli("tournament", str(path), "--out", str(out), cwd=tmp_path, tag=tag)
    limit = time.monotonic() + 60
    while done_count(out) < 3:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < limit
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert "run the same command again to resume" in stderr
    assert not tagged(tag), "bots left running after Ctrl-C"
    assert done_count(out) < 12
    resumed = referee_cli("tournament", str(path), "--out", str(out), cwd=tmp_path, tag=tag)
    _, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    assert played(out) == games


def test_sigterm_is_an_interrupt_too(tmp_path: Path, tag: str) -> None:
    path = tournament_file(tmp_path, rounds=3)
    out = tmp_path / "out"
    proc = referee_cli("tournament", str(path), "--out", str(out), cwd=tmp_path, tag=tag)
    limit = time.monotonic() + 60
    while done_count(out) < 2:
        assert proc.poll() is None and time.monotonic() < limit
        time.sleep(0.01)
    proc.terminate()
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "resume" in stderr
    assert not tagged(tag)


# -- schedules, records, SPRT -------------------------------------------------------------
def test_gauntlet_and_gzip_records(tmp_path: Path) -> None:
    path = tournament_file(tmp_path, players=4, kind="gauntlet",
                           extra="records_gzip = true")
    out = tmp_path / "out"
    run(path, out)
    games = played(out)
    assert len(games) == 6  # r1 against each of 3 others, both colours
    assert all("r1" in key.split(":") for key in games)
    raw = (out / "records.jsonl.gz").read_bytes()
    assert len(gzip.decompress(raw).decode().splitlines()) == 6


def test_swiss_pairs_each_round_from_the_standings(tmp_path: Path) -> None:
    path = tournament_file(tmp_path, players=5, kind="swiss", rounds=3)
    out = tmp_path / "out"
    run(path, out, concurrency=2)
    store = Store.open_existing(out)
    try:
        rows = store.games(status="done")
        assert len(rows) == 2 * 2 * 3  # 2 pairings (one bye) x 2 colours x 3 rounds
        for number in (1, 2, 3):
            in_round = [r for r in rows if r.round == number]
            seated = [p for r in in_round for p in r.seats]
            assert all(seated.count(p) == 2 for p in set(seated)) and len(set(seated)) == 4
        assert sum(store.byes().values()) == 3 and max(store.byes().values()) == 1
    finally:
        store.close()


def test_sprt_stops_the_match_with_its_verdict(tmp_path: Path) -> None:
    path = tournament_file(tmp_path, players=0, rounds=200, extra="""
[sprt]
elo0 = 0
elo1 = 100
alpha = 0.05
beta = 0.05
""", player_lines="""
[[players]]
name = "threat"
builtin = "threat"
[[players]]
name = "random"
builtin = "random"
""")
    out = tmp_path / "out"
    text = run(path, out, concurrency=2)
    assert "SPRT verdict: H1 accepted" in text
    assert "Ptnml(0-2):" in text and "LLR:" in text
    store = Store.open_existing(out)
    try:
        done = store.count("done")
        assert 4 <= done < 100 and store.count("cancelled") == 400 - done
        assert store.meta("sprt_verdict") == "H1 accepted"
    finally:
        store.close()
    again = run(path, out)
    assert f"({done} already played)" in again and played(out).keys() == played(out).keys()
    assert Store.open_existing(out).count("done") == done


# -- bad input: one clear message before any game ------------------------------------------
@pytest.mark.parametrize(("player", "words"), [
    ('builtin = "nosuch"', "players[3].builtin: unknown built-in 'nosuch' (known: random, "
                           "threat)"),
    ('command = "./missing-brain"', "missing-brain does not exist"),
    ('command = "no-such-program-anywhere"', "'no-such-program-anywhere' is not a built-in "
                                             "bot and is not found on PATH"),
    (f'command = "{sys.executable} {BROKEN} --mode crash-start"',
     "player bad cannot get ready for a game: crash"),
    (f'command = "{sys.executable} {BROKEN} --mode refuse-start"',
     "player bad: bad refuses the 9x9 board"),
])
def test_bad_players_are_refused_before_any_game(tmp_path: Path, player: str,
                                                  words: str) -> None:
    path = tournament_file(tmp_path, player_lines=f'[[players]]\nname = "bad"\n{player}\n')
    out = tmp_path / "out"
    with pytest.raises(ConfigError, match=None) as caught:
        run(path, out)
    assert words in str(caught.value)
    assert not (out / "tournament.sqlite").exists()


def test_errors_in_the_file_are_all_reported_with_their_keys(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('game = "gomoku"\nconcurrency = 0\n[schedule]\nkind = "league"\n'
                    '[settings]\nsize = 99\n[[players]]\nname = "a"\nbuiltin = "random"\n'
                    '[[players]]\nname = "a"\n')
    proc = subprocess.run([sys.executable, "-m", "referee.cli", "tournament", str(path)],
                          cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 2
    assert f"{path}: concurrency: must be at least 1, got 0" in proc.stderr
    assert f"{path}: schedule.kind:" in proc.stderr
    assert f"{path}: players[1]: give either command or builtin" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_store_of_another_tournament_is_refused_untouched(tmp_path: Path) -> None:
    first = tournament_file(tmp_path, name="one", players=2)
    out = tmp_path / "out"
    run(first, out)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    other = tournament_file(tmp_path, name="two", players=3)
    with pytest.raises(ConfigError, match="belongs to another tournament"):
        run(other, out)
    after = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert after == before
    assert not (out / "slots" / "check" / "logs" / "r3.stderr.log").exists()


def test_a_brain_refusing_the_board_is_named_before_any_game(tmp_path: Path) -> None:
    instant = Path(__file__).resolve().parents[1] / "brains" / "instant.py"
    path = tournament_file(tmp_path, size=12, player_lines=(
        f'[[players]]\nname = "picky"\ncommand = "{sys.executable} {instant} --refuse 12"\n'))
    with pytest.raises(ConfigError, match="picky refuses the 12x12 board"):
        run(path, tmp_path / "out")


def cpu_noting_brain(folder: Path) -> str:
    """The command line of a brain that notes the CPUs it may run on in ``cpus.txt`` of
    its working folder (the only one it may write in the sandbox), then becomes the
    instant brain; its script is written in ``folder``."""
    instant = Path(__file__).resolve().parents[1] / "brains" / "instant.py"
    folder.mkdir(parents=True, exist_ok=True)
    wrapper = folder / "pinned.py"
    wrapper.write_text(
        "import os, sys\n"
        "with open('cpus.txt', 'a') as f:\n"
        "    f.write(' '.join(map(str, sorted(os.sched_getaffinity(0)))) + '\\n')\n"
        "os.execv(sys.executable, [sys.executable, sys.argv[1]])\n")
    return f"{sys.executable} {wrapper} {instant}"


def test_players_are_pinned_to_their_cpus(tmp_path: Path) -> None:
    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("no CPU affinity on this system")
    path = tournament_file(tmp_path, players=1, player_lines=(
        f'[[players]]\nname = "pinned"\ncommand = "{cpu_noting_brain(tmp_path)}"\n'
        'cpus = [0]\n'))
    run(path, tmp_path / "out")
    seen = [line for notes in (tmp_path / "out").rglob("cpus.txt")
            for line in notes.read_text().split("\n")[:-1]]
    assert len(seen) == 3 and set(seen) == {"0"}  # the start-up check and both games


def test_a_game_of_suspended_players_and_its_referee_share_its_slots_cpu(
        tmp_path: Path) -> None:
    """With ``affinity = true`` and players suspended off turn (Gomoku's default), each
    game slot gets one CPU: its players run there, and so does the thread playing its
    game, during every move; other slots' games run on other CPUs."""
    from referee.tournament.affinity import available_cpus
    from referee.tournament.runner import TournamentRunner
    from referee.tournament.session import prepare

    cpus = available_cpus()
    if len(cpus) < 2:
        pytest.skip("one CPU: two slots cannot have CPUs of their own")
    path = tournament_file(tmp_path, players=1, rounds=2, extra="affinity = true", player_lines=(
        f'[[players]]\nname = "pinned"\ncommand = "{cpu_noting_brain(tmp_path)}"\n'))
    tournament, store = prepare(path, tmp_path / "out", 2, None)
    seen: dict[str, set[tuple[int, ...]]] = {}
    try:
        runner = TournamentRunner(tournament, store, concurrency=2)
        assert runner.affinity_text() == (
            "affinity: each game on a CPU of its own, shared by its players (suspended off "
            "turn: one runs at a time) and its referee")
        moved = runner.live.moved

        def noting(key: str, record: object) -> None:
            seen.setdefault(key, set()).add(tuple(sorted(os.sched_getaffinity(0))))
            moved(key, record)  # type: ignore[arg-type]

        runner.live.moved = noting  # type: ignore[method-assign]
        runner.run()
    finally:
        store.close()
    assert len(seen) == 4 and all(len(game) == 1 for game in seen.values()), seen
    assert {pinned for game in seen.values() for pinned in game} == {
        (cpus[0],), (cpus[1],)}, seen  # every move of a game on its slot's CPU
    for slot, cpu in ((1, cpus[0]), (2, cpus[1])):
        noted = [line for notes in (tmp_path / "out" / "slots" / str(slot)).rglob("cpus.txt")
                 for line in notes.read_text().split("\n")[:-1]]
        assert noted and set(noted) == {str(cpu)}, (slot, noted)  # its players' too
    assert os.sched_getaffinity(0) == set(cpus)  # this thread was never pinned


def test_json_summary_of_a_tournament(reference: tuple[Path, dict[str, tuple]],
                                      tmp_path: Path, tag: str) -> None:
    path, games = reference
    out = tmp_path / "out"
    proc = referee_cli("tournament", str(path), "--out", str(out), "--jobs", "2", "--json",
                       cwd=tmp_path, tag=tag)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    summary = json.loads(stdout)
    assert summary["games"] == {"done": len(games), "total": len(games)}
    assert sum(s["points"] for s in summary["standings"]) == len(games)
    assert {r["player"] for r in summary["ratings"]} == {s["player"]
                                                         for s in summary["standings"]}
    assert "Final standings" in stderr
