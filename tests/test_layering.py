"""The layers stay as docs/architecture.md draws them: the core never imports a game;
tournaments, training and the command line find games only through the registry; no game
imports another; modules stay small."""

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


@pytest.mark.parametrize("layer", ["core", "tournament", "training", "cli", "output.py",
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
