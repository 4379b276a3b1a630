"""The layers stay as docs/architecture.md draws them: the core never imports a game;
tournaments, training and the command line find games only through the registry; no game
imports another; no game starts a program but through the core (issue 21: every bot runs
in the sandbox); modules stay small."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "referee"
GAMES = sorted(p.name for p in (PACKAGE / "games").iterdir()
               if p.is_dir() and (p / "__init__.py").exists())


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports (at any depth: inside functions too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def sources(*parts: str) -> list[Path]:
    """The Python files under ``src/referee/<parts>`` (a folder or one file)."""
    where = PACKAGE.joinpath(*parts)
    return sorted(where.rglob("*.py")) if where.is_dir() else [where]


def game_imports(path: Path) -> set[str]:
    """The games ``path`` imports by name (``referee.games.<game>...``)."""
    return {name.split(".")[2] for name in imports(path)
            if name.startswith("referee.games.") and name.split(".")[2] in GAMES}


def test_there_are_games_to_check() -> None:
    assert {"gomoku", "planowanie", "mahjong", "riichi", "gohr"} <= set(GAMES)


@pytest.mark.parametrize("layer", ["core", "tournament", "training", "cli", "web", "output.py",
                                   "__init__.py"])
def test_shared_layers_import_no_particular_game(layer: str) -> None:
    for path in sources(layer):
        assert not game_imports(path), f"{path.relative_to(PACKAGE)} imports a game"
        if layer == "core":
            assert not any(n.startswith("referee.games") for n in imports(path)), \
                f"{path.relative_to(PACKAGE)}: the core imports nothing of games/"


@pytest.mark.parametrize("game", GAMES)
def test_no_game_imports_another(game: str) -> None:
    for path in sources("games", game):
        assert game_imports(path) <= {game}, f"{path.relative_to(PACKAGE)} imports another game"


LAUNCHERS = {
    "subprocess": {"Popen", "run", "call", "check_call", "check_output", "getoutput",
                   "getstatusoutput"},
    "os": {"fork", "forkpty", "system", "popen", "posix_spawn", "posix_spawnp", "execv",
           "execve", "execvp", "execvpe", "execl", "execle", "execlp", "execlpe", "spawnv",
           "spawnve", "spawnvp", "spawnvpe", "spawnl", "spawnle", "spawnlp", "spawnlpe"},
    "pty": {"fork", "spawn"},
    "asyncio": {"create_subprocess_exec", "create_subprocess_shell"},
}
"""What starts a program, by module (``os.exec*``, ``os.spawn*`` by name)."""

NOT_A_BOT = {"games/gohr/client.py"}
"""Where a game may start a program itself: the GOHR client starts the referee, no bot."""


def program_starts(path: Path) -> list[str]:
    """Where ``path`` starts a program without the core: ``line: module.name`` for every
    use of a launcher of :data:`LAUNCHERS` (``subprocess.Popen``, ``os.fork``, a name
    imported from them, or one of them under another name)."""
    tree = ast.parse(path.read_text())
    modules: dict[str, str] = {}
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in LAUNCHERS:
                    modules[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module in LAUNCHERS:
            for alias in node.names:
                if alias.name in LAUNCHERS[node.module]:
                    names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in modules \
                and node.attr in LAUNCHERS[modules[node.value.id]]:
            found.append(f"{node.lineno}: {modules[node.value.id]}.{node.attr}")
        elif isinstance(node, ast.Name) and node.id in names:
            found.append(f"{node.lineno}: {names[node.id]}")
    return sorted(found, key=lambda where: int(where.split(":")[0]))


@pytest.mark.parametrize("game", GAMES)
def test_games_start_programs_only_through_the_core(game: str) -> None:
    for path in sources("games", game):
        where = str(path.relative_to(PACKAGE))
        if where not in NOT_A_BOT:
            assert not program_starts(path), \
                f"{where} starts a program without core.process: {program_starts(path)}"


def test_the_check_sees_every_way_of_starting_a_program(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import subprocess\nimport os as system\nfrom os import execvp as ex\n"
                   "def f() -> None:\n    subprocess.Popen(['x'])\n    system.fork()\n"
                   "    ex('x', ['x'])\n    subprocess.TimeoutExpired\n")
    assert program_starts(bad) == ["5: subprocess.Popen", "6: os.fork", "7: os.execvp"]
    assert program_starts(PACKAGE / "games" / "gohr" / "client.py")  # seen, and excepted


def test_modules_stay_small() -> None:
    long = {str(p.relative_to(PACKAGE)): n for p in sources(".")
            if (n := len(p.read_text().splitlines())) > 800}
    assert not long, f"modules over 800 lines: {long}"
    assert len((PACKAGE / "cli" / "__init__.py").read_text().splitlines()) < 300


def test_the_checks_see_an_import_of_a_game(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f() -> None:\n    from referee.games.riichi.tiles import kind_of\n")
    assert game_imports(bad) == {"riichi"}
    bad.write_text("from referee.games import gomoku\n")
    assert game_imports(bad) == {"gomoku"}
