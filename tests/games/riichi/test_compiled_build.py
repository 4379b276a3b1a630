"""The optional compiled build (``REFEREE_COMPILE=1``, mypyc): the build backend asks for
mypy only then, and the compiled package writes exactly the pure package's annotations."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "riichi"
GAMES = [DATA / "2010091009gm-00a9-0000-83af2648.mjlog", DATA / "kan4.mjlog",
         DATA / "nm.mjlog", DATA / "yao9.mjlog", DATA / "tenhou6" / "ranked_game.json"]


def _backend() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "referee_build", ROOT / "build_backend" / "referee_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.filterwarnings("ignore:Support for .*tool.setuptools")  # an older setuptools
def test_the_backend_asks_for_mypy_only_for_a_compiled_build(
        monkeypatch: pytest.MonkeyPatch) -> None:
    backend = _backend()
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("REFEREE_COMPILE", raising=False)
    plain = backend.get_requires_for_build_wheel()
    assert not any(r.startswith("mypy") for r in plain)
    monkeypatch.setenv("REFEREE_COMPILE", "1")
    # setup.py runs here without mypyc (made unimportable): only the requirements are asked.
    monkeypatch.setitem(sys.modules, "mypyc", None)
    compiled = backend.get_requires_for_build_wheel()
    assert compiled == [*plain, *backend.COMPILER]
    # An editable install is never compiled: no mypy, and setup.py is told so.
    assert not any(r.startswith("mypy") for r in backend.get_requires_for_build_editable())
    assert backend.PURE not in os.environ


def test_only_build_wheel_may_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    backend = _backend()
    seen: dict[str, str | None] = {}

    def spy(name: str) -> object:
        def hook(*args: object) -> str:
            seen[name] = os.environ.get(backend.PURE)
            return name
        return hook

    hooks = ["prepare_metadata_for_build_wheel", "get_requires_for_build_sdist",
             "build_sdist", "get_requires_for_build_editable",
             "prepare_metadata_for_build_editable", "build_editable"]
    for name in hooks:
        monkeypatch.setattr(backend.build_meta, name, spy(name))
        assert getattr(backend, name)("folder") == name
    assert seen == dict.fromkeys(hooks, "1")
    assert backend.PURE not in os.environ
    monkeypatch.setattr(backend.build_meta, "build_wheel", spy("build_wheel"))
    monkeypatch.setattr(backend, "forget_earlier_builds", lambda source: None)
    assert backend.build_wheel("folder") == "build_wheel"
    assert seen["build_wheel"] is None  # it compiles when asked


def _source_copy(target: Path) -> Path:
    """A copy of what a wheel is built from (the build leaves its files beside it)."""
    shutil.copytree(ROOT / "src", target / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info"))
    shutil.copytree(ROOT / "build_backend", target / "build_backend",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, target / name)
    return target


def test_a_wheel_holds_nothing_an_earlier_build_left(tmp_path: Path) -> None:
    """setuptools packages what ``build/lib*`` holds: a module compiled by an earlier
    build (another configuration, older sources) would shadow its source in the wheel,
    and a module since removed from the sources would still be shipped."""
    source = _source_copy(tmp_path / "source")
    stale = source / "build" / "lib" / "referee" / "core"  # (a pure build's folder)
    stale.mkdir(parents=True)
    (stale / "clock.cpython-311-x86_64-linux-gnu.so").write_bytes(b"stale")
    (stale / "gone.py").write_text("STALE = True\n")
    (source / "build" / "kept.c").write_text("/* mypyc's C files stay */\n")
    wheels = tmp_path / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(wheels), str(source)], env={
            k: v for k, v in os.environ.items() if k != "REFEREE_COMPILE"},
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = wheels.glob("referee-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert "referee/core/clock.py" in names
    assert not [n for n in names if n.endswith(".so") or n.endswith("gone.py")], names
    assert (source / "build" / "kept.c").exists()


def _run(args: list[str], package: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(package))
    return subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def _played(folder: Path) -> str:
    """The games of a match folder as text: each move, then the scores, reason and notes
    (not the times, which differ from run to run)."""
    text = ""
    for game in sorted(folder.glob("game-*.json")):
        played = json.loads(game.read_text())
        text += "".join(f"{m['seat']} {m['move']}\n" for m in played["moves"])
        text += json.dumps([played["scores"], played["reason"], played["notes"]]) + "\n"
    assert text, f"no game in {folder}"
    return text


def _outputs(package: Path, out: Path, cwd: Path) -> list[str]:
    """What the package at ``package`` writes in ``out``: kanachan's annotations of the
    logs, a selfplay's and its records' own, the records of an mjai match, a Gomoku
    match and a Planowanie game (each chain of commands beside the others)."""
    out.mkdir()

    def chain(*commands: list[str]) -> None:
        for args in commands:
            done = _run(["-m", "referee.cli", *args], package, cwd)
            assert done.returncode == 0, f"{args}: {done.stderr}"

    chains = [
        [["annotate", "riichi", *map(str, GAMES), "-o", str(out / "logs.txt")]],
        # Worker processes get the tasks pickled (a compiled Context among them); our own
        # logs record their rules in start_game: read back (the compiled reader once took
        # the rules' types from annotations that mypyc keeps as classes).
        [["selfplay", "riichi", "--games", "2", "-j", "2", "--seed", "5", "-o",
          str(out / "selfplay.txt"), "--records", str(out / "records")],
         ["annotate", "riichi", str(out / "records"), "-o", str(out / "own.txt")]],
        # The mjai referee (compiled too) plays a game over pipes with built-in bots.
        [["match", "riichi", *["tsumogiri"] * 4, "--game", "east", "--seed", "5",
          "--sandbox", "off", "--out", str(out / "match")]],
        # The compiled bot processes and records, in the other games' matches too: a
        # Gomoku match (brains suspended off turn) and a Planowanie game.
        [["match", "gomoku", "random", "random", "--size", "9", "--games", "2", "--seed",
          "3", "--sandbox", "off", "--out", str(out / "gomoku")]],
        [["match", "planowanie", *["random"] * 4, "--seed", "3", "--sandbox", "off",
          "--out", str(out / "planowanie")]],
    ]
    with ThreadPoolExecutor(len(chains)) as pool:
        for running in [pool.submit(chain, *commands) for commands in chains]:
            running.result()
    return [(out / name).read_text() for name in ("logs.txt", "selfplay.txt", "own.txt")] + [
        _played(out / folder) for folder in ("match", "gomoku", "planowanie")]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_compiled_build_annotates_exactly_as_the_pure_package(tmp_path: Path) -> None:
    headers = Path(sysconfig.get_paths()["include"], "Python.h")
    if shutil.which("cc") is None or not headers.exists():
        pytest.skip("the compiled build needs a C compiler and Python's headers")
    source = _source_copy(tmp_path / "source")
    wheels = tmp_path / "wheels"
    with ThreadPoolExecutor(1) as pool:  # the pure package's outputs while it compiles
        pure = pool.submit(_outputs, ROOT / "src", tmp_path / "pure", tmp_path)
        # (mypy and setuptools as the test environment has them, pinned as the build's)
        build = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
             "-w", str(wheels), str(source)],
            env=dict(os.environ, REFEREE_COMPILE="1", REFEREE_COMPILE_OPT="0"),
            cwd=tmp_path, capture_output=True, text=True, timeout=900)
        assert build.returncode == 0, build.stderr[-3000:]
        (wheel,) = wheels.glob("referee-*.whl")
        compiled = tmp_path / "package"
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(compiled)
        where = ("import referee.games.riichi.rules as r, referee.games.riichi.match as m, "
                 "referee.games.riichi.kanachan.annotate as a, referee.core.process as p; "
                 "print(r.__file__, m.__file__, a.__file__, p.__file__)")
        files = _run(["-c", where], compiled, tmp_path).stdout.split()
        assert files and all(not f.endswith(".py") for f in files)
        outputs = {"compiled": _outputs(compiled, tmp_path / "compiled", tmp_path),
                   "pure": pure.result()}
    assert outputs["compiled"] == outputs["pure"]
    assert outputs["pure"][2] == outputs["pure"][1]  # a log's annotation is selfplay's
    assert len(outputs["pure"][0].splitlines()) == 3073  # kanachan's points (3005 real choices)
