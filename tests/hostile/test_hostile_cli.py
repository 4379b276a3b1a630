"""The hostile-bot suite through the real command line: ``referee match gomoku`` and
``referee match planowanie`` run as programs of their own, each with one hostile bot
(``tests/brains/hostile``) against a built-in opponent.

Each test asserts the outcome the referee RECORDED (the game's JSON record in the output
folder) and what the hostile bot reported (a Gomocup brain's ``MESSAGE`` notes in the
record, a Planowanie player's stderr log), then that the host is untouched: no process
started by the match is left (every process the referee and its bots start carries the
test's tag in its environment, which counts them on a machine shared with other work),
and no file outside the output folder changed (the test's whole folder, the referee's
working folder, the fake ``$HOME``, the hostile programs' folder; Python's bytecode
caches left out).

The acts only isolation can stop (reading others' files, the network, signalling other
processes, a fork bomb: without bubblewrap there is no process limit) are skipped, with
the reason, where ``sandbox_support().usable`` is false. The limits that need no
isolation (file size, folder size, endless lines, daemons, SIGTERM, suspension) run both
ways: isolated, and with the limits only, as on a machine without bubblewrap (the
referee's ``PATH`` then has no ``bwrap``).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from proctags import TAG, kill_tagged, tagged
from referee.core.sandbox import sandbox_support

BRAINS = Path(__file__).resolve().parents[1] / "brains"
HOSTILE = BRAINS / "hostile"
NATIVE = BRAINS / "native" / "pbrain_native.c"
SUPPORT = sandbox_support()
needs_isolation = pytest.mark.skipif(
    not SUPPORT.usable, reason=f"needs the sandbox's isolation (bubblewrap): {SUPPORT.problem}")
SANDBOXES = [pytest.param("isolated", marks=needs_isolation), "limits-only"]
"""How the referee confines the bots: isolated (bubblewrap) or with the limits only."""
REFEREE_PID = "{REFEREE_PID}"
"""Replaced, in the referee's arguments, by the referee's own process id."""
LAUNCH = ("import os, sys; "
          f"sys.argv[1:] = [a.replace({REFEREE_PID!r}, str(os.getpid())) for a in sys.argv[1:]]; "
          "from referee.cli import main; sys.exit(main())")


@dataclass(frozen=True)
class Game:
    """How one game's match is run and read."""

    name: str
    program: Path
    """The hostile bot of this game."""
    options: tuple[str, ...]
    """A short match: one game."""
    hostile: str
    """The hostile bot's name in the record."""
    opponent_work: str
    """The opponent's working folder, under ``work/`` of the output folder."""
    log: str
    """The hostile bot's stderr log, under ``logs/``."""


GOMOKU = Game("gomoku", HOSTILE / "hostile_gomoku.py",
              ("--size", "10", "--games", "1", "--seed", "1", "--move-time", "5s", "--no-psq"),
              "hostile_gomoku", "random", "hostile_gomoku.stderr.log")
PLANOWANIE = Game("planowanie", HOSTILE / "hostile_planowanie.py",
                  ("--games", "1", "--seed", "1", "--deals", "2 1 0 2 1"),
                  "hostile_planowanie", "1-random", "0-hostile_planowanie.stderr.log")
GAMES = [pytest.param(GOMOKU, id="gomoku"), pytest.param(PLANOWANIE, id="planowanie")]


@dataclass
class Played:
    """One finished match: its record, what the hostile bot reported, what was printed."""

    record: dict[str, Any]
    reports: list[str]
    log: str
    run: subprocess.CompletedProcess[str]

    @property
    def outcome(self) -> str:
        """The recorded outcome."""
        return str(self.record["outcome"])

    @property
    def reason(self) -> str:
        """The recorded reason."""
        return str(self.record["reason"])

    def said(self, prefix: str) -> dict[str, str]:
        """The reports ``PREFIX THING: WHAT`` as {THING: WHAT}."""
        found = {}
        for line in self.reports:
            if line.startswith(prefix + " "):
                thing, _, what = line.removeprefix(prefix + " ").partition(": ")
                found[thing] = what
        return found


class Arena:
    """One test's world: the output folder, a fake ``$HOME`` and a folder every bot may
    read (``--sandbox-read``) holding both, secrets in them and in the opponent's folder,
    the test's tag; it runs matches and checks the host after each."""

    def __init__(self, root: Path, tag: str) -> None:
        self.root = root
        self.tag = tag
        self.secret = f"secret-{secrets.token_hex(8)}"
        self.shared = root / "shared"
        self.out = self.shared / "out"
        self.home = self.shared / "home"
        self.cwd = root / "cwd"
        for folder in (self.home, self.cwd, self.out):
            folder.mkdir(parents=True)
        (self.shared / "public.txt").write_text("public words\n")
        (self.home / "secret.txt").write_text(self.secret)
        (self.home / ".ssh").mkdir()
        (self.home / ".ssh" / "id_ed25519").write_text(self.secret)

    def hostile(self, game: Game, mode: str, *args: str) -> str:
        """The hostile bot's command line."""
        return " ".join([sys.executable, str(game.program), "--mode", mode, *args])

    def slow(self, game: Game, seconds: float) -> str:
        """An opponent that takes ``seconds`` a turn: the hostile bot in ``slow`` mode,
        under a name of its own."""
        folder = self.root / "slow"
        folder.mkdir(exist_ok=True)
        program = folder / f"slow_{game.name}.py"
        shutil.copy(game.program, program)
        shutil.copy(HOSTILE / "hostility.py", folder)
        return " ".join([sys.executable, str(program), "--mode", "slow", str(seconds)])

    def plant(self, game: Game) -> list[Path]:
        """Secrets in the output folder and the opponent's working folder."""
        opponent = self.out / "work" / game.opponent_work
        opponent.mkdir(parents=True, exist_ok=True)
        planted = [self.out / "secret.txt", opponent / "secret.txt"]
        for path in planted:
            path.write_text(self.secret)
        return planted

    def match(self, game: Game, *players: str, sandbox: str = "isolated",
              options: tuple[str, ...] = ()) -> Played:
        """``referee match GAME PLAYERS --out ... OPTIONS`` as a program; the host is
        checked after it (no process left, no file changed outside the output folder)."""
        env = dict(os.environ, HOME=str(self.home), ORGANISER_SECRET=self.secret,
                   **{TAG: self.tag})
        if sandbox == "limits-only":  # as on a machine without bubblewrap
            env["PATH"] = str(Path(sys.executable).parent)
            assert shutil.which("bwrap", path=env["PATH"]) is None
        args = ["match", game.name, *players, *game.options, "--out", str(self.out),
                "--overwrite", "--sandbox-read", str(self.shared), *options]
        before = self.files()
        run = subprocess.run([sys.executable, "-c", LAUNCH, *args], cwd=self.cwd, env=env,
                             capture_output=True, text=True, timeout=90)
        assert run.returncode == 0, run.stderr
        self.check_host(before)
        record = json.loads((self.out / "game-001.json").read_text())
        log_file = self.out / "logs" / game.log
        log = log_file.read_text(errors="replace") if log_file.exists() else ""
        if game is GOMOKU:
            reports = [n["text"] for n in record["notes"] if n["seat"] == 0]
        else:
            reports = log.splitlines()
        expected = "limits only" if sandbox == "limits-only" else (
            "sandbox: off" if sandbox == "off" else SUPPORT.version)
        assert expected in record["sandbox"], record["sandbox"]
        return Played(record, reports, log, run)

    def files(self) -> dict[str, tuple[int, int]]:
        """Every file and folder outside the output folder that a bot could touch: path ->
        (size, modification time)."""
        found = {}
        for top in (self.root, HOSTILE, NATIVE.parent):
            for folder, dirs, files in os.walk(top):
                dirs[:] = [d for d in dirs if d != "__pycache__"
                           and Path(folder, d) != self.out]
                for name in [*dirs, *files]:
                    path = Path(folder, name)
                    info = path.lstat()
                    found[str(path)] = (info.st_size if path.is_file() else 0,
                                        info.st_mtime_ns)
        return found

    def check_host(self, before: dict[str, tuple[int, int]]) -> None:
        """No process of the match is left (a killed one may take a moment to go) and no
        file outside the output folder changed."""
        deadline = time.monotonic() + 5
        while (left := tagged(self.tag)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not left, f"left running: {[(p.pid, p.name()) for p in left]}"
        assert self.files() == before


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[Arena]:
    """The test's world; whatever it left running is killed (and failed on) at the end."""
    world = Arena(tmp_path, f"hostile-cli-{time.time_ns()}")
    yield world
    kill_tagged(world.tag)


# -- limits: the bot's fault, recorded -----------------------------------------------------

@needs_isolation
@pytest.mark.parametrize("game", GAMES)
def test_a_fork_bomb_loses_by_the_process_limit(arena: Arena, game: Game) -> None:
    # without bubblewrap there is no process limit (docs/sandbox.md): not run that way
    started = time.monotonic()
    played = arena.match(game, arena.hostile(game, "fork-bomb"), "random",
                         options=("--max-processes", "16", "--memory", "0"))
    assert played.outcome == "process-limit", played.reason
    assert "limit of 16 processes" in played.reason
    assert played.record["scores"][1] == 1.0
    assert time.monotonic() - started < 30  # the host stayed responsive


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("game", GAMES)
def test_a_bot_filling_its_folder_loses_by_the_folder_limit(
        arena: Arena, game: Game, sandbox: str) -> None:
    played = arena.match(game, arena.hostile(game, "big-folder", str(1200 << 10)), "random",
                         sandbox=sandbox, options=("--max-folder", "1M"))
    assert played.outcome == "folder-limit", played.reason
    assert "over the limit of 1 MB" in played.reason
    assert played.record["scores"][1] == 1.0


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("game", GAMES)
def test_a_bot_cannot_write_a_file_past_the_file_size_limit(
        arena: Arena, game: Game, sandbox: str) -> None:
    played = arena.match(game, arena.hostile(game, "big-file"), "random", sandbox=sandbox,
                         options=("--max-file-size", "1M"))
    # the limit stops the write: SIGXFSZ kills it (bubblewrap's exit status 128 + N for
    # a bot killed by signal N is read back as the signal)
    assert played.outcome == "crash", played.reason
    assert "killed by signal SIGXFSZ" in played.reason, played.reason
    assert not any("wrote 1 GB" in line for line in played.reports)
    big = arena.out / "work" / (("0-" if game is PLANOWANIE else "") + game.hostile) / "big.bin"
    assert big.stat().st_size == 1 << 20


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("game", GAMES)
def test_an_endless_line_is_a_protocol_error(arena: Arena, game: Game, sandbox: str) -> None:
    played = arena.match(game, arena.hostile(game, "endless-line"), "random", sandbox=sandbox)
    assert played.outcome == "protocol-error", played.reason
    assert "sent a line over 64 KB" in played.reason


# -- isolation: it learns nothing, reaches nothing, harms nobody -----------------------------

@needs_isolation
@pytest.mark.parametrize("game", GAMES)
def test_a_snooping_bot_learns_nothing(arena: Arena, game: Game) -> None:
    planted = arena.plant(game)
    looked = [*planted, planted[1].parent, arena.out, arena.home, arena.home / "secret.txt",
              arena.home / ".ssh" / "id_ed25519", arena.shared, arena.shared / "public.txt",
              Path("/etc/shadow"), Path("/proc/self/environ")]
    # "@": paths the bot has built in, not files its command line gives it to read
    played = arena.match(game, arena.hostile(game, "snoop", *(f"@{p}" for p in looked)),
                         "random")
    assert played.outcome == "normal", played.reason
    seen = played.said("snoop")
    assert set(map(str, looked)) <= set(seen), seen
    everything = json.dumps(played.record) + played.log + played.run.stdout + played.run.stderr
    assert arena.secret not in everything
    # the contrast: what it may read, it reads (so the snooping itself works)
    assert seen[str(arena.shared / "public.txt")] == "read b'public words\\n'"
    for path in (*planted, arena.home / "secret.txt", arena.home / ".ssh" / "id_ed25519",
                 Path("/etc/shadow")):
        assert seen[str(path)].startswith("refused"), (path, seen[str(path)])
    for folder in (arena.out, arena.home, planted[1].parent):  # empty, or not there
        assert seen[str(folder)] in ("listed []", "listed ['work']") or \
            seen[str(folder)].startswith("refused"), (folder, seen[str(folder)])
    assert "secret.txt" not in seen[str(arena.shared)]
    assert "ORGANISER_SECRET" not in seen["/proc/self/environ"]
    for path in planted:  # and it changed nothing
        assert path.read_text() == arena.secret


@pytest.mark.parametrize(("game", "sandbox"), [
    pytest.param(GOMOKU, "isolated", id="gomoku", marks=needs_isolation),
    pytest.param(PLANOWANIE, "isolated", id="planowanie", marks=needs_isolation),
    pytest.param(GOMOKU, "off", id="gomoku-unsandboxed-contrast")])
def test_a_bot_cannot_reach_a_server_on_the_host(arena: Arena, game: Game,
                                                 sandbox: str) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.5)
    accepted: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(2)
                accepted.append(conn.recv(100))

    thread = threading.Thread(target=serve)
    thread.start()
    address = f"127.0.0.1:{server.getsockname()[1]}"
    try:
        played = arena.match(game, arena.hostile(game, "net", address), "random",
                             options=("--sandbox", "auto" if sandbox == "isolated" else "off"),
                             sandbox=sandbox)
    finally:
        stop.set()
        thread.join(5)
        server.close()
    assert played.outcome == "normal", played.reason
    if sandbox == "off":  # the contrast: the server and the bot's attempt both work
        assert played.said("net")[address] == "connected"
        assert accepted == [b"hello from a bot\n"]
    else:
        assert played.said("net")[address].startswith("refused"), played.reports
        assert accepted == []


@needs_isolation
@pytest.mark.parametrize("game", GAMES)
def test_a_bot_killing_every_process_harms_nobody(arena: Arena, game: Game) -> None:
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        targets = [f"@{pid}" for pid in (REFEREE_PID, os.getpid(), bystander.pid)]
        played = arena.match(game, arena.hostile(game, "kill-all", *targets), "random")
        assert bystander.poll() is None  # the host's process lives
    finally:
        bystander.kill()
        bystander.wait()
    # the referee lived to record the game, which the opponent played to its end
    assert played.outcome == "normal", played.reason
    assert any(line.startswith("kill-all hit") for line in played.reports), played.reports
    assert len(played.record["moves"]) >= 4
    assert played.record["players"][1]["name"] == "random"


# -- clean end --------------------------------------------------------------------------------

@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("game", GAMES)
def test_a_daemon_does_not_survive_the_match(arena: Arena, game: Game, sandbox: str) -> None:
    played = arena.match(game, arena.hostile(game, "daemon"), "random", sandbox=sandbox)
    assert played.outcome == "crash", played.reason  # it left before its answer
    assert "exit code 0" in played.reason
    # Arena.match checked that the daemon it started is gone


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("game", GAMES)
def test_a_bot_ignoring_sigterm_is_killed_at_the_end(
        arena: Arena, game: Game, sandbox: str) -> None:
    played = arena.match(game, arena.hostile(game, "ignore-term"), "random", sandbox=sandbox)
    assert played.outcome == "normal", played.reason
    # Arena.match checked that it is gone


# -- fair time --------------------------------------------------------------------------------

@pytest.mark.parametrize("suspend", [True, False], ids=["suspended", "not-suspended"])
@pytest.mark.parametrize("game", GAMES)
def test_a_busy_bot_gets_no_cpu_on_its_opponents_turn_when_suspended(
        arena: Arena, game: Game, suspend: bool) -> None:
    # the busy bot computes all the time it may; the opponent takes its time each turn.
    # A Planowanie player also acknowledges every card and declaration (=), and runs
    # while its acknowledgment is awaited (a few ms each): it gets a longer opponent
    # turn and a bound that leaves room for those (/proc counts CPU in ticks of 10 ms, and
    # a loaded machine once took 50 ms to stop a Gomoku bot)
    think, bound = (0.2, 80) if game is GOMOKU else (0.25, 100)
    options = ("--suspend" if suspend else "--no-suspend", "--sandbox", "auto")
    if game is GOMOKU:
        options += ("--size", "5")  # a short game: at most 25 moves
    played = arena.match(game, arena.hostile(game, "busy"), arena.slow(game, think),
                         options=options,
                         sandbox="isolated" if SUPPORT.usable else "limits-only")
    off_turn = [int(line.split()[-1]) for line in played.reports
                if line.startswith("busy-cpu-ms")][1:]  # the first covers its start
    assert len(off_turn) >= 2, played.reports
    if suspend:
        assert max(off_turn) <= bound, off_turn
        assert sum(off_turn) / len(off_turn) <= think * 1000 * 0.2, off_turn
    else:  # the contrast: free, it computes on the opponent's time
        assert max(off_turn) >= think * 1000 * 0.6, off_turn
    moves = played.record["moves"]  # the record has each move's time and CPU time
    assert moves and all("ms" in m and "cpu_ms" in m["info"] for m in moves), moves[:3]


# -- real programs play normally inside ---------------------------------------------------------

@needs_isolation
def test_a_native_gomocup_brain_plays_normally_in_the_sandbox(arena: Arena) -> None:
    compiler = shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler (cc) to build the native brain")
    brain = arena.root / "native" / "pbrain_native"
    brain.parent.mkdir()
    subprocess.run([compiler, "-O2", "-o", str(brain), str(NATIVE)], check=True, timeout=60)
    brain.parent.chmod(0o755)
    played = arena.match(GOMOKU, str(brain), "random",
                         options=("--sandbox", "strict", "--games", "2"))
    for index in (1, 2):
        record = json.loads((arena.out / f"game-00{index}.json").read_text())
        assert record["outcome"] == "normal", record["reason"]
        assert len(record["moves"]) >= 9
    assert played.record["players"][0]["about"].get("name")


@needs_isolation
@pytest.mark.parametrize(("game", "players"), [
    pytest.param(GOMOKU, ("random", "threat"), id="gomoku"),
    pytest.param(PLANOWANIE, ("random", "heuristic"), id="planowanie")])
def test_the_built_in_bots_play_normally_in_the_sandbox(
        arena: Arena, game: Game, players: tuple[str, str]) -> None:
    played = arena.match(game, *players, options=("--sandbox", "strict"))
    assert played.outcome == "normal", played.reason
    assert "network off, private filesystem, pid namespace" in played.record["sandbox"]
    assert "sandbox: " + SUPPORT.version in played.run.stdout + played.run.stderr
