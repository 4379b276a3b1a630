"""The project's build backend: setuptools', plus mypy (for mypyc) when ``REFEREE_COMPILE=1``
asks for the compiled build (see ``setup.py``)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from setuptools import build_meta
from setuptools.build_meta import (
    build_editable,
    build_sdist,
    build_wheel,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

__all__ = [
    "build_editable", "build_sdist", "build_wheel", "get_requires_for_build_editable",
    "get_requires_for_build_sdist", "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable", "prepare_metadata_for_build_wheel",
]

COMPILER = ["mypy==2.4.1"]
"""What compiling needs besides setuptools (mypyc ships with mypy)."""

ASKING = "REFEREE_BUILD_REQUIRES_ONLY"
"""Set while setuptools runs ``setup.py`` only to learn the build requirements."""


def _compiler() -> list[str]:
    return COMPILER if os.environ.get("REFEREE_COMPILE", "") == "1" else []


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    """setuptools' requirements, and mypy for a compiled build."""
    with _asking():
        return build_meta.get_requires_for_build_wheel(config_settings) + _compiler()


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None
                                    ) -> list[str]:
    """setuptools' requirements, and mypy for a compiled build."""
    with _asking():
        return build_meta.get_requires_for_build_editable(config_settings) + _compiler()


@contextlib.contextmanager
def _asking() -> Iterator[None]:
    """Tell ``setup.py`` that only the requirements are asked (mypy may not be there yet)."""
    os.environ[ASKING] = "1"
    try:
        yield
    finally:
        del os.environ[ASKING]
