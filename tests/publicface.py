"""A check of an engine's public face: a module that only re-exports names that live in
the engine's other modules."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from types import ModuleType


def check_public_face(face: ModuleType, names: set[str]) -> None:
    """``face`` exports exactly ``names`` (``__all__``); each is the object of the module
    it lives in, and the docstring names that module and the name."""
    assert set(face.__all__) == names
    package, _, stem = face.__name__.rpartition(".")
    source = Path(face.__file__ or "").with_name(f"{stem}.py")  # beside a compiled one too
    doc = ast.get_docstring(ast.parse(source.read_text())) or ""
    for name in names:
        value = getattr(face, name)
        assert f"{name}`" in doc, f"{name} is not named in the docstring"
        home = getattr(value, "__module__", "")
        if home.startswith(package):  # (constants and type aliases have no home of theirs)
            assert home != face.__name__, f"{name} is defined in the face itself"
            assert f"{home.rpartition('.')[2]}`" in doc, f"{home} is not named"
            assert getattr(importlib.import_module(home), name) is value
