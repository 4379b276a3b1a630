"""Where an isolated bot may write, and how much: only its own folders and the private,
size-limited /tmp and /dev/shm. Checked both ways bubblewrap runs: as root (each bot has
its own user id) and as a normal user (a user namespace, where the bot owns every empty
folder bubblewrap makes: they must be read-only, not memory it can fill)."""

from __future__ import annotations

import dataclasses
import os
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from proctags import TAG, left_behind
from referee.core.process import BotProcess
from referee.core.sandbox import (
    SandboxConfig,
    SandboxLimits,
    SandboxSupport,
    plan_sandbox,
    sandbox_support,
)

MB = 1 << 20
SUPPORT = sandbox_support()
pytestmark = pytest.mark.skipif(not SUPPORT.usable, reason=f"no isolation: {SUPPORT.problem}")

PROBE = """
    import os, sys
    for folder in (arg.removeprefix("@") for arg in sys.argv[1:]):
        try:
            with open(os.path.join(folder, "probe.bin"), "wb") as f:
                f.write(b"x" * (1 << 20))
            st = os.statvfs(folder)
            print(folder, "wrote", st.f_blocks * st.f_frsize, flush=True)
        except OSError as exc:
            print(folder, "refused", exc.errno, flush=True)
    print("done", flush=True)
"""


def modes() -> list[str]:
    """As root both ways (a user namespace too, as a normal user has it); else as a user."""
    return ["root", "user-namespace"] if os.geteuid() == 0 else ["user-namespace"]


@pytest.fixture
def tag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A tag the bots inherit; none may be left running."""
    value = f"writes-{time.time_ns()}"
    monkeypatch.setenv(TAG, value)
    yield value
    left = left_behind(value)
    assert not left


@pytest.mark.parametrize("mode", modes())
def test_an_isolated_bot_writes_only_its_folders_and_bounded_memory(
        tmp_path: Path, tag: str, mode: str) -> None:
    support: SandboxSupport = SUPPORT if mode == "root" else dataclasses.replace(
        SUPPORT, root=False)
    tmp_path.chmod(0o755)  # a bot of its own user id may enter it
    out = tmp_path / "out"
    (out / "work" / "other").mkdir(parents=True)
    program = tmp_path / "probe.py"
    program.write_text(textwrap.dedent(PROBE))
    tmp_limit = 8 * MB
    # tmp_path readable: the hidden output folder inside it is covered by an empty folder
    config = SandboxConfig(limits=SandboxLimits(tmp=tmp_limit), readable=(tmp_path,))
    cwd = out / "work" / "bot"
    targets = ["/", "/dev", "/dev/shm", "/tmp", str(out), str(out / "work"), str(cwd)]
    # "@": not a path on its command line, which would make it readable
    process = BotProcess([sys.executable, str(program), *("@" + t for t in targets)],
                         name="probe", cwd=cwd,
                         sandbox=plan_sandbox(config, support), hidden=[out],
                         stderr_log=tmp_path / "probe.log")
    process.start()
    said = {}
    try:
        while (line := process.read_line(time.monotonic() + 20)) != "done":
            folder, verdict, figure = line.rsplit(" ", 2)
            said[folder] = (verdict, int(figure))
    finally:
        process.kill()
    for folder in ("/tmp", "/dev/shm"):  # private, and no larger than the limit
        assert said[folder][0] == "wrote" and said[folder][1] <= tmp_limit, (folder, said)
    assert said[str(cwd)][0] == "wrote"
    for folder in ("/", "/dev", str(out), str(out / "work")):
        assert said[folder][0] == "refused", (folder, said)
    assert not (out / "probe.bin").exists() and (cwd / "probe.bin").stat().st_size == MB


def test_a_command_line_naming_tmp_or_dev_shows_the_bot_none_of_the_hosts(
        tmp_path: Path, tag: str) -> None:
    # a program directly in /tmp and an argument /dev/null: each shows itself only, never
    # the host's /tmp (other programs' files and sockets) or /dev (its shared memory)
    name = f"referee-test-{tag}"
    program = Path("/tmp") / f"{name}.py"
    markers = [Path("/tmp") / f"{name}.marker", Path("/dev/shm") / f"{name}.marker"]
    program.write_text(textwrap.dedent("""
        import os, sys
        print("tmp", sorted(os.listdir("/tmp")), flush=True)
        print("shm", sorted(os.listdir("/dev/shm")), flush=True)
        with open(sys.argv[1], "w") as null, open("/tmp/mine", "w") as mine:
            print("wrote", null.write("x"), mine.write("y"), flush=True)
    """))
    program.chmod(0o644)
    try:
        for marker in markers:
            marker.write_text("host")
        process = BotProcess([sys.executable, str(program), "/dev/null"], name="probe",
                             cwd=tmp_path / "work", sandbox=plan_sandbox(SandboxConfig()),
                             stderr_log=tmp_path / "probe.log")
        process.start()
        try:
            said = [process.read_line(time.monotonic() + 20) for _ in range(3)]
        finally:
            process.kill()
    finally:
        for path in (program, *markers):
            path.unlink(missing_ok=True)
    seen_in_tmp = said[0].removeprefix("tmp ")
    assert program.name in seen_in_tmp and "marker" not in seen_in_tmp, said
    assert said[1:] == ["shm []", "wrote 1 1"], said
