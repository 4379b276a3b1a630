"""Deliberately broken brains against a real Gomoku match, over real pipes.

Each test runs ``GomokuMatch`` with one brain of ``tests/brains/faults/broken.py`` (one
misbehaviour per ``--mode``) against the well-behaved instant brain and checks what the
referee made of it: the outcome, the offending seat, a reason that says what happened,
the record file on disk, and that no process of either brain is left running.

Every process a test starts is tagged with an environment variable of its own, so a
leftover is found by its environment even when it left the brain's session and lost its
parent; the broken brain also lists its pid and its children's pids in ``pids.txt``.

The brains run without the sandbox (``--sandbox off``), whose own process cleanup (a pid
namespace) is tested in ``test_sandbox.py`` and ``tests/hostile/``: here the referee's
cleanup of ordinary process trees is checked, pid by pid.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from proctags import TAG, kill_tagged, running, tagged
from referee.core.clock import TimeControl
from referee.core.errors import MatchAborted
from referee.core.outcome import Outcome
from referee.core.players import PlayerSpec
from referee.core.process import DEFAULT_STDERR_CAP
from referee.core.record import GameRecord
from referee.core.sandbox import SandboxConfig, SandboxLevel
from referee.games.gomoku.board import Rule
from referee.games.gomoku.match import GomokuMatch, GomokuSettings
from referee.games.gomoku.openings import Offsets

BRAINS = Path(__file__).resolve().parents[1] / "brains"
BROKEN = BRAINS / "faults" / "broken.py"
INSTANT = BRAINS / "instant.py"
MB = 2**20

FAST = TimeControl(turn=1.0, tolerance=0.5, startup=4.0)
"""Short limits; a well-behaved python brain answers in a few milliseconds, and has 1.5 s."""
FAST_DEADLINE_MS = 1500

RENJU_DOUBLE_THREE: Offsets = [(1, 0), (-5, -5), (2, 0), (5, -5), (0, 1), (-5, 5), (0, 2), (5, 5)]
"""Black at +1,0 +2,0 and 0,+1 0,+2 (white far away), black to move: the centre makes two
open threes at once, a forbidden double three."""


@dataclass
class Played:
    """What a match left behind."""

    records: list[GameRecord]
    out: Path
    seconds: float
    tag: str

    @property
    def work(self) -> Path:
        """The broken brain's working directory."""
        return self.out / "work" / "broken"

    def broken_pids(self, what: str | None = None) -> list[int]:
        """Pids the broken brain wrote to ``pids.txt`` (only lines of kind ``what``)."""
        pids = []
        for line in (self.work / "pids.txt").read_text().splitlines():
            pid, kind = line.split(" ", 1)
            if what is None or kind == what:
                pids.append(int(pid))
        return pids

    def received(self) -> list[str]:
        """Every command line the broken brain read."""
        return (self.work / "received.txt").read_text().splitlines()


UNSANDBOXED = SandboxConfig(SandboxLevel.OFF)

def assert_no_leftovers(played: Played, wait: float = 5.0) -> None:
    """Within ``wait`` seconds, no process of either brain (nor their children) runs."""
    pids = played.broken_pids()
    assert pids, "the broken brain did not record its pid: nothing was checked"
    limit = time.monotonic() + wait
    while True:
        left = running(pids)
        stray = tagged(played.tag)
        if not left and not stray:
            return
        if time.monotonic() > limit:
            names = [" ".join(p.cmdline()) for p in stray if p.is_running()]
            raise AssertionError(f"left running: pids {left}, tagged {names}")
        time.sleep(0.05)


@pytest.fixture
def tag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A tag unique to this test, in the environment every brain inherits.

    At teardown, any process still carrying it (left by a failed test) is killed.
    """
    value = f"faults-{time.time_ns()}-{tmp_path.name}"
    monkeypatch.setenv(TAG, value)
    yield value
    kill_tagged(value)


def play(
    tmp_path: Path,
    tag: str,
    mode: str,
    *,
    seat: int = 0,
    games: int = 1,
    rule: Rule = Rule.FREESTYLE,
    openings: Sequence[Offsets] = (),
    time_control: TimeControl = FAST,
    memory_limit: int | None = None,
    end_grace: float = 0.5,
) -> Played:
    """Play a match of the broken brain (in ``seat``) against the instant brain."""
    broken = PlayerSpec("broken", [sys.executable, str(BROKEN), "--mode", mode])
    instant = PlayerSpec(
        "instant", [sys.executable, str(INSTANT), "--log", "instant-in.txt"]
    )
    players = [broken, instant] if seat == 0 else [instant, broken]
    settings = GomokuSettings(
        rule=rule, time=time_control, memory_limit=memory_limit, games=games,
        openings=list(openings), end_grace=end_grace, sandbox=UNSANDBOXED,
    )
    out = tmp_path / "out"
    started = time.monotonic()
    result = GomokuMatch(players, settings, out).run()
    return Played(result.records, out, time.monotonic() - started, tag)


def assert_forfeit(played: Played, outcome: Outcome, words: str, seat: int) -> GameRecord:
    """The first game was lost by ``seat`` with ``outcome``, and the reason says ``words``."""
    record = played.records[0]
    assert record.outcome is outcome, record.reason
    assert record.offender == seat
    assert record.reason.startswith("broken: "), record.reason
    assert words in record.reason, record.reason
    assert record.scores == ([0.0, 1.0] if seat == 0 else [1.0, 0.0])
    written = GameRecord.read(played.out / "game-001.json")
    assert (written.outcome, written.offender, written.reason) == (outcome, seat, record.reason)
    assert (played.out / "game-001.psq").is_file()
    return record


def assert_normal(played: Played) -> None:
    """Every game ended by the rules, with the broken brain's moves in it."""
    for number, record in enumerate(played.records, start=1):
        assert record.outcome is Outcome.NORMAL, record.reason
        assert record.offender is None
        assert "five in a row" in record.reason
        assert sum(m.seat == 0 for m in record.moves) > 5
        written = GameRecord.read(played.out / f"game-{number:03d}.json")
        assert written.outcome is Outcome.NORMAL
        assert [m.move for m in written.moves] == [m.move for m in record.moves]


def no_answer_ms(reason: str) -> int:
    """The wait a TIMEOUT reason reports (``no answer within N ms``)."""
    found = re.search(r"no answer within (\d+) ms", reason)
    assert found is not None, reason
    return int(found.group(1))


# -- faults: the brain loses the game -------------------------------------------------
@pytest.mark.parametrize(
    ("mode", "seat", "outcome", "words"),
    [
        ("crash-start", 0, Outcome.CRASH, "exit code 3"),
        ("crash-mid", 1, Outcome.CRASH, "exit code 4"),
        # lines that are not moves are notes (as GomocupJudge skips them): the clock ends
        # the wait, and the reason quotes the last such line
        ("garbage", 0, Outcome.TIMEOUT, "its last line, 'hello referee', is not a move"),
        ("bad-utf8", 1, Outcome.TIMEOUT, "'\ufffd\ufffd,\ufffd\ufffd', is not a move"),
        ("off-board", 0, Outcome.ILLEGAL_MOVE, "15,15 is outside the 15x15 board"),
        ("occupied", 1, Outcome.ILLEGAL_MOVE, "is already occupied"),
        ("unknown-turn", 0, Outcome.TIMEOUT, "its last line, 'UNKNOWN', is not a move"),
        ("error-turn", 1, Outcome.TIMEOUT, "'ERROR cannot play now', is not a move"),
        ("two-moves", 0, Outcome.PROTOCOL_ERROR, "answered '2,0 3,0' to TURN"),
    ],
)
def test_fault_loses_the_game_and_leaves_no_process(
    tmp_path: Path, tag: str, mode: str, seat: int, outcome: Outcome, words: str
) -> None:
    played = play(tmp_path, tag, mode, seat=seat)
    assert_forfeit(played, outcome, words, seat)
    assert_no_leftovers(played)


def test_crash_mid_game_keeps_the_moves_played(tmp_path: Path, tag: str) -> None:
    played = play(tmp_path, tag, "crash-mid")
    record = assert_forfeit(played, Outcome.CRASH, "exit code 4", 0)
    assert [m.seat for m in record.moves] == [0, 1] * 3  # 3 moves each, then the crash
    assert_no_leftovers(played)


def test_illegal_move_is_recorded_as_illegal(tmp_path: Path, tag: str) -> None:
    played = play(tmp_path, tag, "occupied")
    record = assert_forfeit(played, Outcome.ILLEGAL_MOVE, "already occupied", 0)
    # black opened, white answered; black's TURN answer repeats white's stone
    assert record.moves[-1].move == record.moves[-2].move
    assert record.moves[-1].info == {"illegal": True}
    assert_no_leftovers(played)


@pytest.mark.parametrize("mode", ["hang", "slow"])
def test_no_answer_in_time_is_a_timeout_at_the_deadline(
    tmp_path: Path, tag: str, mode: str
) -> None:
    played = play(tmp_path, tag, mode)
    record = assert_forfeit(played, Outcome.TIMEOUT, "no answer within", 0)
    waited = no_answer_ms(record.reason)
    # the referee gives up at turn + tolerance: it does not wait for a late answer
    # (the slow brain answers at 3 s) nor for the end of a line that never ends
    assert FAST_DEADLINE_MS <= waited < FAST_DEADLINE_MS + 1000, record.reason
    assert_no_leftovers(played)


@pytest.mark.parametrize("mode", ["long-line-eol", "long-line-eof"])
def test_a_ten_megabyte_line_is_a_protocol_error_at_once(tmp_path: Path, tag: str,
                                                        mode: str) -> None:
    # with or without its line end: the referee neither waits for the end of a line
    # that never ends nor keeps more than 64 KB of it
    played = play(tmp_path, tag, mode)
    record = assert_forfeit(played, Outcome.PROTOCOL_ERROR, "sent a line over 64 KB", 0)
    assert not any(n.kind == "TEXT" for n in record.notes)  # none of the line is kept
    assert_no_leftovers(played)


def test_forbidden_renju_point_is_an_illegal_move_for_black(tmp_path: Path, tag: str) -> None:
    played = play(tmp_path, tag, "centre", rule=Rule.RENJU, openings=[RENJU_DOUBLE_THREE])
    record = assert_forfeit(played, Outcome.ILLEGAL_MOVE,
                            "7,7 is a forbidden point for black (double-three)", 0)
    assert record.opening == [[8, 7], [2, 2], [9, 7], [12, 2], [7, 8], [2, 12], [7, 9], [12, 12]]
    assert [(m.seat, m.move) for m in record.moves] == [(0, "7,7")]
    board = [line for line in played.received() if re.fullmatch(r"\d+,\d+,[12]", line)]
    assert board[:2] == ["8,7,1", "2,2,2"]  # it was told the opening, in played order
    assert_no_leftovers(played)


def test_memory_hog_is_killed_with_memory_limit(tmp_path: Path, tag: str) -> None:
    # a long turn limit: only the memory watchdog can end this game early
    generous = TimeControl(turn=20.0, tolerance=0.5, startup=4.0)
    played = play(tmp_path, tag, "memory", memory_limit=100 * MB, time_control=generous)
    record = assert_forfeit(played, Outcome.MEMORY_LIMIT, "over the limit of 100.0 MB", 0)
    used = re.search(r"memory ([\d.]+) MB", record.reason)
    assert used is not None and float(used.group(1)) > 100.0
    assert played.seconds < 12.0  # well before the turn limit
    assert_no_leftovers(played)


def test_children_of_a_crashed_brain_are_killed(tmp_path: Path, tag: str) -> None:
    played = play(tmp_path, tag, "spawn-exit")
    assert_forfeit(played, Outcome.CRASH, "exit code 5", 0)
    children = played.broken_pids("sleep") + played.broken_pids("setsid-sleep")
    assert len(children) == 2
    assert_no_leftovers(played)
    assert not running(children)


def test_refused_board_size_aborts_the_match_naming_brain_and_size(
    tmp_path: Path, tag: str
) -> None:
    with pytest.raises(MatchAborted) as caught:
        play(tmp_path, tag, "refuse-start")
    message = str(caught.value)
    assert "broken refuses the 15x15 board (START 15)" in message
    assert "ERROR unsupported size 15" in message
    played = Played([], tmp_path / "out", 0.0, tag)
    assert not (played.out / "game-001.json").exists()
    assert_no_leftovers(played)


@pytest.mark.parametrize(
    ("mode", "outcome"),
    [("crash-mid", Outcome.CRASH), ("hang", Outcome.TIMEOUT),
     ("two-moves", Outcome.PROTOCOL_ERROR)],
)
def test_opponent_plays_on_in_the_next_game_after_a_fault(
    tmp_path: Path, tag: str, mode: str, outcome: Outcome
) -> None:
    played = play(tmp_path, tag, mode, games=2)
    first, second = played.records
    assert (first.outcome, first.offender) == (outcome, 0)
    # game 2: the broken brain was started afresh (a new process) and faulted again,
    # while the instant brain, RESTARTed in the same process, played its moves
    assert (second.outcome, second.offender) == (outcome, 0)
    assert second.settings["colors"] == ["white", "black"]
    assert any(m.seat == 1 for m in second.moves)
    assert (played.out / "game-002.json").is_file()
    brains = played.broken_pids("brain")
    assert len(brains) == 2 and brains[0] != brains[1]
    wire = tmp_path / "out" / "work" / "instant" / "instant-in.txt"
    commands = re.findall(r"^b'(\w+)", wire.read_text(), re.MULTILINE)
    assert commands.count("START") == 1 and commands.count("RESTART") == 1
    assert "BEGIN" in commands[commands.index("RESTART"):]
    assert_no_leftovers(played)


# -- not faults: the game goes on ------------------------------------------------------
@pytest.mark.parametrize("mode", ["eol-cr", "eol-crlf", "chatty", "suggest"])
def test_protocol_variations_play_a_normal_game(tmp_path: Path, tag: str, mode: str) -> None:
    played = play(tmp_path, tag, mode)
    assert_normal(played)
    assert_no_leftovers(played)


def test_message_and_debug_lines_are_kept_as_notes(tmp_path: Path, tag: str) -> None:
    played = play(tmp_path, tag, "chatty")
    assert_normal(played)
    record = played.records[0]
    own = sum(m.seat == 0 for m in record.moves)
    messages = [n for n in record.notes if n.kind == "MESSAGE"]
    debugs = [n for n in record.notes if n.kind == "DEBUG"]
    assert len(messages) == len(debugs) == own
    assert all(n.seat == 0 for n in messages + debugs)
    assert messages[0].text == f"thinking about {record.moves[0].move}"
    written = GameRecord.read(played.out / "game-001.json")
    assert len(written.notes) == 2 * own
    assert_no_leftovers(played)


def test_suggest_is_answered_with_play_of_the_same_point(tmp_path: Path, tag: str) -> None:
    played = play(tmp_path, tag, "suggest")
    assert_normal(played)
    plays = [line.removeprefix("PLAY ") for line in played.received() if line.startswith("PLAY")]
    own = [m.move for m in played.records[0].moves if m.seat == 0]
    assert plays == own
    assert_no_leftovers(played)


def test_brain_ignoring_end_is_killed_after_the_grace(tmp_path: Path, tag: str) -> None:
    played = play(tmp_path, tag, "ignore-end", end_grace=0.5)
    assert_normal(played)
    assert played.received()[-1] == "END"
    assert played.broken_pids("ignoring-end"), "the brain did not get to ignore END"
    assert played.seconds < 15.0  # not the 30 s the brain wanted
    assert_no_leftovers(played)


def test_stderr_flood_is_capped_and_not_a_fault(tmp_path: Path, tag: str) -> None:
    played = play(tmp_path, tag, "flood-stderr")
    assert_normal(played)
    log = played.out / "logs" / "broken.stderr.log"
    size = log.stat().st_size
    assert DEFAULT_STDERR_CAP - 1024 <= size <= DEFAULT_STDERR_CAP
    with log.open("rb") as f:
        f.seek(-200, 2)
        assert b"[referee: stderr cut at" in f.read()
    assert_no_leftovers(played)


def test_restart_unknown_gets_end_and_a_fresh_process(tmp_path: Path, tag: str) -> None:
    played = play(tmp_path, tag, "restart-unknown", games=2)
    assert_normal(played)
    assert played.records[1].settings["colors"] == ["white", "black"]
    brains = played.broken_pids("brain")
    assert len(brains) == 2 and brains[0] != brains[1]
    received = played.received()
    assert received.count("START 15") == 2
    restart = received.index("RESTART")
    assert received[restart + 1] == "END"  # the referee ended the old process
    assert_no_leftovers(played)


# -- the referee's own memory ---------------------------------------------------------
PEAK_RSS = """
import json, re, sys
from referee.cli import main
for args in json.loads(sys.argv[1]):
    main(args=args, standalone_mode=False)
status = open("/proc/self/status").read()
print("peak-rss-kb", re.search(r"VmHWM:\\s+(\\d+) kB", status).group(1))
"""
"""The referee's own peak (VmHWM: ru_maxrss would also count the memory of the process
that started it, which Linux carries over the exec)."""


def referee_peak_rss(runs: list[list[str]]) -> int:
    """Run CLI commands in one fresh referee process; its peak resident memory in bytes."""
    done = subprocess.run([sys.executable, "-c", PEAK_RSS, json.dumps(runs)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    found = re.search(r"^peak-rss-kb (\d+)$", done.stdout, re.MULTILINE)
    assert found is not None, done.stdout
    return int(found.group(1)) * 1024


def cli_match(out: Path, brain1: str, brain2: str, games: int) -> list[str]:
    return ["match", "gomoku", brain1, brain2, "--games", str(games), "--seed", "1",
            "--move-time", "1000ms", "--tolerance", "1000ms", "--startup", "4000ms",
            "--out", str(out)]


def test_referee_memory_stays_bounded_under_long_lines_and_stderr_floods(
    tmp_path: Path, tag: str
) -> None:
    broken = f"{sys.executable} {BROKEN} --mode"
    instant = f"{sys.executable} {INSTANT}"
    lines, flood, calm = tmp_path / "lines", tmp_path / "flood", tmp_path / "calm"
    baseline = referee_peak_rss([cli_match(calm, instant, instant, 1)])
    peak = referee_peak_rss([
        # each game: one brain sends a 10 MB line (with / without a line end) at a TURN
        cli_match(lines, f"{broken} long-line-eof", f"{broken} long-line-eol", 2),
        # 50 MB of stderr during a full game
        cli_match(flood, f"{broken} flood-stderr", instant, 1),
    ])
    outcomes = [GameRecord.read(lines / f"game-00{i}.json").outcome for i in (1, 2)]
    assert outcomes == [Outcome.PROTOCOL_ERROR, Outcome.PROTOCOL_ERROR]
    assert GameRecord.read(flood / "game-001.json").outcome is Outcome.NORMAL
    assert (flood / "logs" / "broken.stderr.log").stat().st_size <= DEFAULT_STDERR_CAP
    assert peak < 120 * MB, f"referee peak RSS {peak / MB:.1f} MB"
    # 10 MB held once would already show; the flood alone is 50 MB
    assert peak - baseline < 8 * MB, f"peak {peak / MB:.1f} MB, baseline {baseline / MB:.1f} MB"
    assert not tagged(tag)
