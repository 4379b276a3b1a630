"""Network mode with real processes and real TCP on 127.0.0.1: a `referee mahjong serve`
subprocess, wrappers (`referee mahjong connect`) running AI programs, raw sockets for the
logins the server must refuse, a wrapper killed mid-game, a silent connection, a person
(`--human`) typing on a pipe, and a hostile AI in the wrapper's sandbox."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from proctags import TAG, kill_tagged, tagged
from referee.core.errors import BotFault
from referee.core.outcome import Outcome
from referee.core.players import PlayerSpec, builtin_command
from referee.core.sandbox import sandbox_support
from referee.games.mahjong.match import MahjongSettings, play_mahjong
from referee.games.mahjong.rules import Rules
from referee.games.mahjong.scoring import TaiwanTable
from referee.games.mahjong.server import SocketChannel

PY = sys.executable
BRAIN = Path(__file__).resolve().parents[2] / "brains" / "mahjong_faulty.py"
HOSTILE = Path(__file__).resolve().parents[2] / "brains" / "hostile" / "hostile_mahjong.py"
SUPPORT = sandbox_support()
GREEDY = "referee.games.mahjong.bots.greedy_ai"


class Server:
    """A server subprocess; a thread collects its stderr lines as they come."""

    def __init__(self, out: Path, *options: str) -> None:
        self.out = out
        self.proc = subprocess.Popen(
            [PY, "-m", "referee.cli", "serve", "mahjong", "--port", "0", "--out", str(out),
             *options], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        self._changed = threading.Condition()
        threading.Thread(target=self._collect, daemon=True).start()
        self.port = int(self.wait_for(r"ICGA Mahjong server on 127\.0\.0\.1:(\d+)").group(1))

    def _collect(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self.lines.append("<eof>")
            self._changed.notify_all()

    def wait_for(self, pattern: str, timeout: float = 15.0) -> re.Match[str]:
        """The first stderr line matching ``pattern`` (waits for it)."""
        end = time.monotonic() + timeout
        with self._changed:
            while True:
                for line in self.lines:
                    if (found := re.search(pattern, line)) is not None:
                        return found
                left = end - time.monotonic()
                if left <= 0 or "<eof>" in self.lines:
                    raise AssertionError(f"no {pattern!r} in {self.lines}")
                self._changed.wait(left)

    def finish(self, timeout: float = 30.0) -> tuple[int, str]:
        """Its exit status and standard output."""
        stdout, _ = self.proc.communicate(timeout=timeout)
        self.wait_for("<eof>")
        return self.proc.returncode, stdout

    def record(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.out / "game-001.json").read_text())
        return data


class Raw:
    """A hand-made client on a raw socket."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.file = self.sock.makefile("rb")

    def send(self, text: str) -> None:
        self.sock.sendall(text.encode())

    def line(self) -> str:
        """The next line, '' once the server closed the connection."""
        return self.file.readline().decode().rstrip("\n")

    def login(self, seat: int | str, account: str) -> str:
        self.send(f"/login {seat} {account}\n")
        return self.line()


@pytest.fixture
def tag(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A tag every process the test starts inherits (the server, the wrappers, their
    AIs); any left running at the end is a failure."""
    value = f"connect-{time.time_ns()}"
    monkeypatch.setenv(TAG, value)
    yield value
    left = gone(value)
    kill_tagged(value)
    assert not left, f"left running: {[(p.pid, p.name()) for p in left]}"


def gone(value: str, within: float = 5.0) -> list[Any]:
    """Wait up to ``within`` seconds for the processes tagged ``value`` to end; the ones
    still running."""
    deadline = time.monotonic() + within
    while (left := tagged(value)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[Any]]]:
    """Every process a test starts; any still running at the end is killed."""
    started: list[subprocess.Popen[Any]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def serve(tmp_path: Path, procs: list[subprocess.Popen[Any]], *options: str) -> Server:
    server = Server(tmp_path / "out", *options)
    procs.append(server.proc)
    return server


def connect(procs: list[subprocess.Popen[Any]], port: int, seat: int, *ai: str,
            folder: Path, human_input: str | None = None,
            options: tuple[str, ...] = ()) -> subprocess.Popen[Any]:
    """A wrapper subprocess; its output goes to files in ``folder``, its AI's folders to
    ``folder/out``."""
    folder.mkdir(parents=True, exist_ok=True)
    argv = [PY, "-m", "referee.cli", "connect", "mahjong", "--port", str(port),
            "--id", str(seat), "--out", str(folder / "out"), *options]
    argv += ["--human"] if human_input is not None else ["--", *ai]
    with open(folder / "stdout.txt", "wb") as out, open(folder / "stderr.txt", "wb") as err:
        proc = subprocess.Popen(argv, cwd=folder, stdout=out, stderr=err,
                                stdin=subprocess.PIPE if human_input is not None else None)
    procs.append(proc)
    if human_input is not None:
        assert proc.stdin is not None
        proc.stdin.write(human_input.encode())
        proc.stdin.close()
    return proc


def test_four_wrappers_play_the_game_local_mode_plays_and_a_fifth_is_refused(
        tmp_path: Path, procs: list[subprocess.Popen[Any]]) -> None:
    server = serve(tmp_path, procs, "--seed", "7", "--hands", "2", "--scoring", "taiwan")
    ais = [("greedy",), (PY, "-m", GREEDY), ("greedy",), ("greedy",)]
    wrappers = [connect(procs, server.port, seat, *ai, folder=tmp_path / f"w{seat}")
                for seat, ai in enumerate(ais, 1)]
    server.wait_for("the table is full: the game starts")
    late = Raw(server.port)
    assert late.login(1, "latecomer") == "/refused the table is full"
    assert late.line() == ""
    code, stdout = server.finish()
    assert code == 0, server.lines
    assert "Match result" in stdout and "game-001.json" in stdout
    for seat, wrapper in enumerate(wrappers, 1):
        assert wrapper.wait(timeout=10) == 0
        assert "closed the connection after 2 hand(s)" in \
            (tmp_path / f"w{seat}" / "stderr.txt").read_text()
    record = server.record()
    assert [p["name"] for p in record["players"]] == ["greedy-1", "greedy_ai-2", "greedy-3",
                                                      "greedy-4"]
    assert record["notes"] == [] and record["outcome"] == "normal"
    assert len(record["settings"]["hands_played"]) == 2
    assert record["settings"]["lines_from_clients"] == len(record["moves"])
    assert record["settings"]["scoring"] == "taiwan"
    # the same game as local mode plays with the same AIs and seed, answer for answer
    players = [PlayerSpec(f"g{k}", builtin_command(GREEDY)) for k in range(4)]
    local = play_mahjong(players, MahjongSettings(Rules(hands=2, table=TaiwanTable()), seed=7),
                         tmp_path / "local")
    assert [m["move"] for m in record["moves"]] == [m.move for m in local.moves]
    assert record["scores"] == local.scores


def test_a_policy_bot_behind_a_wrapper_logs_in_under_its_name(
        tmp_path: Path, procs: list[subprocess.Popen[Any]]) -> None:
    """`connect mahjong -- referee bot mahjong ... --name mine`: the account is its name
    and seat (it was referee-N), whether or not a referee is on PATH (issue 37, item 11)."""
    policies = Path(__file__).resolve().parents[2] / "policies"
    server = serve(tmp_path, procs, "--seed", "3", "--hands", "1")
    bot = ("referee", "bot", "mahjong", "--hands", "1", "--policy", "first_legal:policy",
           "--path", str(policies), "--name", "mine")
    wrappers = [connect(procs, server.port, 1, *bot, folder=tmp_path / "w1")]
    wrappers += [connect(procs, server.port, seat, "greedy", folder=tmp_path / f"w{seat}")
                 for seat in (2, 3, 4)]
    code, _ = server.finish()
    assert code == 0, server.lines
    record = server.record()
    assert [p["name"] for p in record["players"]] == ["mine-1", "greedy-2", "greedy-3",
                                                      "greedy-4"]
    assert record["outcome"] == "normal" and not record["faults"]
    for wrapper in wrappers:
        assert wrapper.wait(timeout=10) == 0


def test_the_same_account_twice_kicks_both_and_the_seats_are_free_again(
        tmp_path: Path, procs: list[subprocess.Popen[Any]]) -> None:
    server = serve(tmp_path, procs, "--seed", "1")
    first = Raw(server.port)
    assert first.login(1, "alice") == "/ok"
    second = Raw(server.port)
    refusal = second.login(2, "alice")
    assert refusal.startswith("/refused") and "both" in refusal and "account" in refusal
    assert first.line().startswith("/refused")
    assert first.line() == "" and second.line() == ""  # both disconnected
    again, other = Raw(server.port), Raw(server.port)
    assert again.login(1, "alice") == "/ok"
    assert other.login(2, "bob") == "/ok"
    server.proc.terminate()
    assert server.finish()[0] == 130


def test_the_same_seat_twice_kicks_both(tmp_path: Path,
                                        procs: list[subprocess.Popen[Any]]) -> None:
    server = serve(tmp_path, procs, "--seed", "1")
    first, second = Raw(server.port), Raw(server.port)
    assert first.login(3, "carol") == "/ok"
    refusal = second.login(3, "dave")
    assert refusal.startswith("/refused") and "seat" in refusal
    assert first.line().startswith("/refused") and first.line() == ""
    assert second.line() == ""
    assert Raw(server.port).login(3, "erin") == "/ok"  # the seat is free again
    server.proc.terminate()
    server.finish()


def test_bad_logins_and_silence_are_refused(tmp_path: Path,
                                            procs: list[subprocess.Popen[Any]]) -> None:
    server = serve(tmp_path, procs, "--seed", "1", "--login-time", "0.5s")
    silent = Raw(server.port)
    for seat, account, why in [(5, "x", "no seat 5"), (0, "x", "no seat 0"),
                               ("one", "x", "seat number"), (1, "bad/name", "account")]:
        client = Raw(server.port)
        answer = client.login(seat, account)
        assert answer.startswith("/refused") and why in answer, answer
        assert client.line() == ""
    for line in ("hello", "/login 1", "/login 1 a b"):
        client = Raw(server.port)
        client.send(line + "\n")
        assert client.line().startswith("/refused expected /login <id> <account>")
    wrapper = subprocess.run([PY, "-m", "referee.cli", "connect", "mahjong", "--port",
                              str(server.port), "--id", "2", "--account", "no/slash", "--",
                              "greedy"], capture_output=True, text=True, timeout=30)
    assert wrapper.returncode == 1
    assert "refused by the server: the account must be" in wrapper.stderr
    start = time.monotonic()
    assert silent.line() == "/refused no login within 0.5 s"
    assert silent.line() == ""
    assert time.monotonic() - start < 3
    server.proc.terminate()
    server.finish()


def test_a_port_in_use_is_one_clear_error(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        run = subprocess.run([PY, "-m", "referee.cli", "serve", "mahjong", "--port",
                              str(port), "--seed", "1", "--out", str(tmp_path)],
                             capture_output=True, text=True, timeout=30)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        f"referee: error: cannot serve on 127.0.0.1:{port}: Address already in use; "
        "choose another --port (0: any free one) or --host"]


def test_a_wrapper_killed_mid_game_is_replaced_by_the_dummy(
        tmp_path: Path, procs: list[subprocess.Popen[Any]]) -> None:
    server = serve(tmp_path, procs, "--seed", "3", "--hands", "2", "--move-time", "3s")
    wrappers = {seat: connect(procs, server.port, seat, "greedy", folder=tmp_path / f"w{seat}")
                for seat in (1, 3, 4)}
    victim = connect(procs, server.port, 2, PY, str(BRAIN), "--mode", "ok",
                     folder=tmp_path / "w2")
    log = tmp_path / "w2" / "out" / "logs" / "mahjong_faulty-2.stderr.log"
    end = time.monotonic() + 15
    while not (log.exists() and "asked" in log.read_text()):
        assert time.monotonic() < end, "the AI in seat 2 was never asked anything"
        time.sleep(0.02)
    victim.kill()
    code, _ = server.finish()
    assert code == 0, server.lines
    for wrapper in wrappers.values():
        assert wrapper.wait(timeout=10) == 0
    record = server.record()
    takeovers = [n for n in record["notes"] if n["kind"] == "takeover-at"]
    assert [(n["seat"], "hand 1" in n["text"]) for n in takeovers] == [(1, True)]
    # the connection is lost: the dummy keeps the seat to the end of the game (one fault)
    assert "to the end of the game" in takeovers[0]["text"]
    assert [f["seat"] for f in record["faults"]] == [1]
    fault = [n for n in record["notes"] if n["kind"] == "takeover"]
    assert fault and re.search("disconnected|connection lost", fault[0]["text"])
    assert record["outcome"] == "normal" and len(record["settings"]["hands_played"]) == 2


def test_an_ai_that_cannot_start_is_reported_and_the_dummy_plays(
        tmp_path: Path, procs: list[subprocess.Popen[Any]]) -> None:
    server = serve(tmp_path, procs, "--seed", "2", "--hands", "1", "--move-time", "1.5s")
    for seat in (1, 2, 3):
        connect(procs, server.port, seat, "greedy", folder=tmp_path / f"w{seat}")
    ai = tmp_path / "broken-ai"  # there and executable (checked before the login), but
    ai.write_text("#!/no/such/interpreter\n")  # it cannot run
    ai.chmod(0o755)
    broken = connect(procs, server.port, 4, str(ai), folder=tmp_path / "w4")
    assert server.finish()[0] == 0, server.lines
    assert broken.wait(timeout=10) == 0
    said = (tmp_path / "w4" / "stderr.txt").read_text()
    assert "cannot start the AI" in said or "the AI closed its output" in said, said
    record = server.record()
    notes = {(n["seat"], n["kind"]) for n in record["notes"]}
    assert {(3, "takeover"), (3, "takeover-at")} <= notes
    assert record["players"][3]["name"] == "broken-ai-4"


def test_a_wrapper_without_a_server_is_one_clear_error(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]  # free once closed: nobody listens there
    run = subprocess.run([PY, "-m", "referee.cli", "connect", "mahjong", "--port", str(port),
                          "--id", "1", "--", "greedy"], capture_output=True, text=True,
                         timeout=30, cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.splitlines()[-1] == (
        f"referee: error: cannot connect to the server at 127.0.0.1:{port}: Connection "
        "refused")
    assert "working folder" not in run.stderr  # none said, none made: nothing played
    assert list(tmp_path.iterdir()) == []


def test_a_client_that_never_logs_in_does_not_hold_up_the_table(
        tmp_path: Path, procs: list[subprocess.Popen[Any]]) -> None:
    server = serve(tmp_path, procs, "--seed", "5", "--hands", "1", "--login-time", "8s")
    silent = Raw(server.port)
    wrappers = [connect(procs, server.port, seat, "greedy", folder=tmp_path / f"w{seat}")
                for seat in range(1, 5)]
    server.wait_for("the table is full: the game starts")
    code, _ = server.finish()
    assert code == 0
    assert not any("no login within" in line for line in server.lines)  # no need to wait
    assert silent.line() in ("", "/refused the table is full")  # dropped with the server
    assert all(w.wait(timeout=10) == 0 for w in wrappers)
    assert server.record()["notes"] == []


def test_a_person_plays_a_hand_on_the_console(tmp_path: Path,
                                               procs: list[subprocess.Popen[Any]]) -> None:
    server = serve(tmp_path, procs, "--seed", "7", "--hands", "1")
    for seat in (1, 2, 3):
        connect(procs, server.port, seat, "greedy", folder=tmp_path / f"w{seat}")
    typed = "hello\n99\n/bogus\n/pass\n" + "1\n" * 300
    person = connect(procs, server.port, 4, folder=tmp_path / "human", human_input=typed)
    code, _ = server.finish()
    assert code == 0, server.lines
    assert person.wait(timeout=10) == 0
    shown = (tmp_path / "human" / "stdout.txt").read_text()
    assert "=== Hand 1: you are seat 4 ===" in shown
    assert re.search(r"Your hand: (\S+\[\d+\] ){15}\S+\[\d+\]\n", shown)  # 16 tiles, named
    assert " 1. /throw " in shown and "Hand over." in shown
    assert "Type a number 1 to" in shown  # hello
    assert "There is no answer 99" in shown
    assert "Not an instruction: unknown instruction '/bogus'" in shown
    assert "/pass is not an answer to /ask" in shown  # a throw is required
    record = server.record()
    assert record["notes"] == []  # every answer legal and in time: no takeover
    answers = [m for m in record["moves"] if m["seat"] == 3]
    assert shown.count("Your choice") == len(answers) + 4  # the four bad inputs re-asked


# ------------------------------------------------------------ the AI in the wrapper's sandbox


def hostile_hand(tmp_path: Path, procs: list[subprocess.Popen[Any]], *acts: str,
                 options: tuple[str, ...] = (),
                 server_options: tuple[str, ...] = ()) -> tuple[Server, Path]:
    """One hand: greedy AIs in seats 1-3, the hostile AI doing ``acts`` in seat 4 (its
    wrapper run with ``options``); the server and seat 4's wrapper folder, once all
    ended."""
    server = serve(tmp_path, procs, "--seed", "4", "--hands", "1", *server_options)
    wrappers = [connect(procs, server.port, seat, "greedy", folder=tmp_path / f"w{seat}")
                for seat in (1, 2, 3)]
    folder = tmp_path / "w4"
    wrappers.append(connect(procs, server.port, 4, PY, str(HOSTILE), *acts, folder=folder,
                            options=options))
    code, _ = server.finish()
    assert code == 0, server.lines
    assert all(w.wait(timeout=10) == 0 for w in wrappers)
    return server, folder


def secret_in(folder: Path) -> Path:
    """A file in the wrapper's output folder, which its AI must not see."""
    secret = folder / "out" / "secret.txt"
    secret.parent.mkdir(parents=True)
    secret.write_text("the organiser's secret")
    return secret


@pytest.mark.skipif(not SUPPORT.usable, reason=f"no isolation: {SUPPORT.problem}")
def test_the_ai_plays_in_the_sandbox_and_learns_nothing(
        tmp_path: Path, procs: list[subprocess.Popen[Any]], tag: str) -> None:
    secret = secret_in(tmp_path / "w4")
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        server, folder = hostile_hand(tmp_path, procs, "--mode", "snoop", f"@{secret}",
                                      "--mode", "net", f"127.0.0.1:{port}")
        listener.settimeout(0.3)
        with pytest.raises(TimeoutError):
            listener.accept()  # nobody called
    said = (folder / "stderr.txt").read_text().splitlines()
    assert said[0].startswith("referee: sandbox: bubblewrap") and "network off" in said[0]
    assert said[1] == f"referee: the AI's working folder and standard error log are in " \
                      f"{folder / 'out'}"
    log = (folder / "out" / "logs" / "hostile_mahjong-4.stderr.log").read_text()
    assert f"snoop {secret}: refused (ENOENT)" in log
    assert f"net 127.0.0.1:{port}: refused" in log
    assert "organiser" not in log and "secret.txt" not in log.replace(str(secret), "")
    assert (folder / "out" / "work" / "hostile_mahjong-4").is_dir()
    assert server.record()["notes"] == []  # it played every answer legally, in time
    assert gone(tag) == []  # no process of any AI is left


def test_with_sandbox_off_the_ai_plays_unconfined(
        tmp_path: Path, procs: list[subprocess.Popen[Any]], tag: str) -> None:
    secret = secret_in(tmp_path / "w4")
    server, folder = hostile_hand(tmp_path, procs, "--mode", "snoop", f"@{secret}",
                                  options=("--sandbox", "off"))
    off = "sandbox: off" + (" — as root" if os.geteuid() == 0 else "")
    assert (folder / "stderr.txt").read_text().startswith(f"referee: {off}\n")
    log = (folder / "out" / "logs" / "hostile_mahjong-4.stderr.log").read_text()
    assert f"snoop {secret}: read b\"the organiser's secret\"" in log  # nothing hides it
    assert server.record()["notes"] == []


def test_the_ai_is_killed_with_its_daemons_at_exit(
        tmp_path: Path, procs: list[subprocess.Popen[Any]], tag: str) -> None:
    # unconfined, the hardest case: no pid namespace ends the daemon with the AI
    server, folder = hostile_hand(tmp_path, procs, "--mode", "daemon",
                                  options=("--sandbox", "off"),
                                  server_options=("--move-time", "1s"))
    log = (folder / "out" / "logs" / "hostile_mahjong-4.stderr.log").read_text()
    assert "daemon: started, leaving" in log
    takeovers = [n for n in server.record()["notes"] if n["kind"] == "takeover-at"]
    assert [n["seat"] for n in takeovers] == [3]  # the AI left: the dummy played on
    assert gone(tag) == []  # the daemon, which left the AI's session, too


def running(value: str, program: Path, besides: int) -> list[psutil.Process]:
    """The processes tagged ``value`` whose command line names ``program`` (but the
    process ``besides``)."""
    found = []
    for proc in tagged(value):
        with contextlib.suppress(psutil.Error):
            if str(program) in proc.cmdline() and proc.pid != besides:
                found.append(proc)
    return found


@pytest.mark.parametrize("sig", [
    signal.SIGTERM, signal.SIGKILL,
], ids=["sigterm", "sigkill"])
def test_an_ai_dies_with_its_wrapper_killed_mid_hand(
        tmp_path: Path, procs: list[subprocess.Popen[Any]], sig: signal.Signals,
        monkeypatch: pytest.MonkeyPatch) -> None:
    value = f"connect-{time.time_ns()}"
    monkeypatch.setenv(TAG, value)
    server = serve(tmp_path, procs, "--seed", "4", "--hands", "1", "--move-time", "30s")
    for seat in (1, 2, 3):
        connect(procs, server.port, seat, "greedy", folder=tmp_path / f"w{seat}")
    # an AI that ignores SIGTERM, thinks 30 s at each question and stays after its input
    victim = connect(procs, server.port, 4, PY, str(HOSTILE), "--mode", "ignore-term",
                     "--mode", "slow", "30", folder=tmp_path / "w4")
    try:
        end = time.monotonic() + 15
        while not (ai := running(value, HOSTILE, besides=victim.pid)):
            assert time.monotonic() < end, "the AI never started"
            time.sleep(0.05)
        time.sleep(0.5)
        assert not any("game is over" in line for line in server.lines)  # mid-hand
        victim.send_signal(sig)
        assert victim.wait(timeout=10) == (130 if sig == signal.SIGTERM else -sig)
        left = psutil.wait_procs(ai, timeout=5)[1]
    finally:
        for stray in running(value, HOSTILE, besides=victim.pid):
            stray.kill()  # a survivor (a failure) is not left behind
    assert left == []
    assert server.finish()[0] == 0, server.lines  # the dummy played the seat


def test_strict_without_isolation_stops_before_connecting(tmp_path: Path) -> None:
    empty = tmp_path / "bin"  # a PATH without bwrap
    empty.mkdir()
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        run = subprocess.run([PY, "-m", "referee.cli", "connect", "mahjong", "--port",
                              str(port), "--id", "1", "--out", str(tmp_path / "out"),
                              "--sandbox", "strict", "--", "greedy"],
                             capture_output=True, text=True, timeout=30,
                             env={"PATH": str(empty)})
        listener.settimeout(0.3)
        with pytest.raises(TimeoutError):
            listener.accept()
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        "referee: error: --sandbox strict: bubblewrap is not installed (Debian and Ubuntu: "
        "apt install bubblewrap; Fedora: dnf install bubblewrap); it is needed for network "
        "off, private filesystem, pid namespace, process limit (--sandbox auto runs "
        "without them)"]


@pytest.mark.parametrize("ai", ["./nope", "no-such-program-anywhere"])
def test_an_ai_that_does_not_exist_stops_before_connecting(tmp_path: Path, ai: str) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        run = subprocess.run([PY, "-m", "referee.cli", "connect", "mahjong", "--port",
                              str(port), "--id", "2", "--out", str(tmp_path / "out"),
                              "--", ai], capture_output=True, text=True, timeout=30,
                             cwd=tmp_path)
        listener.settimeout(0.3)
        with pytest.raises(TimeoutError):  # it never took a seat
            listener.accept()
    assert run.returncode == 2
    (line,) = run.stderr.splitlines()
    assert line.startswith("referee: error: player ")
    assert "does not exist" in line or "not found on PATH" in line


# -------------------------------------------------------------- the channel's own faults


@pytest.fixture
def pair() -> Iterator[tuple[SocketChannel, socket.socket]]:
    """A server-side channel and the client's socket, over TCP on 127.0.0.1."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.create_connection(listener.getsockname()[:2])
        accepted, _ = listener.accept()
    yield SocketChannel(accepted, "client", "client"), client
    client.close()
    accepted.close()


def test_the_channel_reads_lines_and_names_its_faults(
        pair: tuple[SocketChannel, socket.socket]) -> None:
    channel, client = pair
    client.sendall(b"stale\n")
    time.sleep(0.05)
    channel.open(0)  # a new session drops what came before it
    client.sendall(b"/throw 110\r\n\r\n/pass\r/hu\n")
    lines = [channel.read_line(time.monotonic() + 2) for _ in range(3)]
    assert lines == ["/throw 110", "/pass", "/hu"]
    with pytest.raises(BotFault) as late:
        channel.read_line(time.monotonic() + 0.1)
    assert late.value.outcome is Outcome.TIMEOUT
    client.sendall(b"x" * (64 * 1024 + 10))
    with pytest.raises(BotFault) as long:
        channel.read_line(time.monotonic() + 2)
    assert long.value.outcome is Outcome.PROTOCOL_ERROR
    channel.send("/ask throw\n", time.monotonic() + 1)
    assert client.recv(100) == b"/ask throw\n"


def test_the_channel_reports_a_closed_connection(
        pair: tuple[SocketChannel, socket.socket]) -> None:
    channel, client = pair
    client.close()
    with pytest.raises(BotFault) as gone:
        channel.read_line(time.monotonic() + 2)
    assert gone.value.outcome is Outcome.CRASH and "disconnected" in gone.value.reason


def test_a_stray_line_through_a_wrapper_is_the_fault_named(
        tmp_path: Path, procs: list[subprocess.Popen[Any]]) -> None:
    """An AI behind its wrapper writes one line more than asked: the server names that
    line as the seat's fault (it was taken for its next answer)."""
    server = serve(tmp_path, procs, "--seed", "2", "--hands", "1")
    wrappers = [connect(procs, server.port, seat, "random", folder=tmp_path / f"w{seat}")
                for seat in (1, 3, 4)]
    wrappers.append(connect(procs, server.port, 2, PY, str(BRAIN), "--mode", "extra",
                            folder=tmp_path / "w2"))
    code, _ = server.finish()
    assert code == 0, server.lines
    assert all(w.wait(timeout=10) == 0 for w in wrappers)
    faults = server.record()["faults"]
    assert [(f["seat"], f["outcome"]) for f in faults] == [(1, "protocol-error")]
    assert re.search(r"sent '/pass' when it was asked nothing \(after its answer "
                     r"'/throw \d+' to /ask throw\)", faults[0]["reason"]), faults[0]


def person(procs: list[subprocess.Popen[Any]], port: int, seat: int,
           folder: Path) -> subprocess.Popen[Any]:
    """A wrapper for a person (``--human``) whose standard input stays open: the test
    types into it (or not) when it wants; its output goes to ``folder/stdout.txt``."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "stdout.txt", "wb") as out, open(folder / "stderr.txt", "wb") as err:
        proc = subprocess.Popen([PY, "-m", "referee.cli", "connect", "mahjong", "--port",
                                 str(port), "--id", str(seat), "--out", str(folder / "out"),
                                 "--human"], cwd=folder, stdout=out, stderr=err,
                                stdin=subprocess.PIPE)
    procs.append(proc)
    return proc


def test_a_slow_person_is_told_the_dummy_ai_took_the_seat(
        tmp_path: Path, procs: list[subprocess.Popen[Any]]) -> None:
    """A person who does not answer within the server's time for a person: the console
    says the dummy AI took the seat and why, mid-hand, with no "Hand over" line for that
    hand; the person plays again in the next hand (and is late again)."""
    server = serve(tmp_path, procs, "--seed", "7", "--hands", "2", "--human-time", "1s")
    for seat in (1, 2, 3):
        connect(procs, server.port, seat, "greedy", folder=tmp_path / f"w{seat}")
    slow = person(procs, server.port, 4, tmp_path / "human")
    code, _ = server.finish(timeout=60)
    assert code == 0, server.lines
    assert slow.stdin is not None
    slow.stdin.close()
    assert slow.wait(timeout=10) == 0
    shown = (tmp_path / "human" / "stdout.txt").read_text()
    told = ("*** The server's dummy AI has taken your seat for the rest of this hand: no "
            "answer of yours reached it within the 1 s it gives you. You play again from "
            "the next hand.")
    assert "You have 1 s for each answer; past it the server's dummy AI plays your seat " \
           "for the rest of the hand." in shown
    assert shown.count(told) == 2, shown[-3000:]
    assert "Hand over" not in shown  # the hands went on without this seat: no scores
    hands = shown.split("=== Hand ")
    assert len(hands) == 3 and all(told in hand for hand in hands[1:])
    record = server.record()
    assert [(f["seat"], f["outcome"]) for f in record["faults"]] == [(3, "timeout")] * 2
    assert record["settings"]["human_time"] == 1.0
    assert record["settings"]["human_seats"] == [4]
    assert record["players"][3]["command"][0].startswith("person at 127.0.0.1:")


LATE_ANSWERS = 4
"""The person's answers that come later than the AIs' --move-time."""


@pytest.mark.slow
def test_a_person_has_the_server_s_time_for_a_person_not_the_move_time(
        tmp_path: Path, procs: list[subprocess.Popen[Any]]) -> None:
    """With --move-time 0.5s, a person's answers 0.8 s after a question are in time
    (the default --human-time is 120 s): no takeover; the AIs keep their 0.5 s. (The
    first few answers are late so; the rest come at once, to play the hand out.)"""
    server = serve(tmp_path, procs, "--seed", "7", "--hands", "1", "--move-time", "0.5s")
    for seat in (1, 2, 3):
        connect(procs, server.port, seat, "greedy", folder=tmp_path / f"w{seat}")
    thinker = person(procs, server.port, 4, tmp_path / "human")
    assert thinker.stdin is not None
    out = tmp_path / "human" / "stdout.txt"
    answered = 0
    deadline = time.monotonic() + 120
    while thinker.poll() is None and time.monotonic() < deadline:
        asked = out.read_text().count("Your choice")
        if asked > answered:
            if answered < LATE_ANSWERS:
                time.sleep(0.8)  # longer than --move-time, well within --human-time
            with contextlib.suppress(BrokenPipeError):
                thinker.stdin.write(b"1\n")
                thinker.stdin.flush()
            answered = asked
        elif server.proc.poll() is not None:
            break
        time.sleep(0.05)
    code, _ = server.finish(timeout=60)
    assert code == 0, server.lines
    with contextlib.suppress(BrokenPipeError):
        thinker.stdin.close()
    assert thinker.wait(timeout=10) == 0
    record = server.record()
    assert record["faults"] == [] and record["notes"] == [], record["faults"]
    moves = [m for m in record["moves"] if m["seat"] == 3]
    assert len(moves) > LATE_ANSWERS and min(m["ms"] for m in moves[:LATE_ANSWERS]) > 500
    assert "You have 120 s for each answer" in out.read_text()
