"""The project's build backend: setuptools', plus mypy (for mypyc) when ``REFEREE_COMPILE=1``
asks for the compiled build of a wheel or regular install (see ``setup.py``).

An editable install is always pure Python: compiled modules beside the sources would
shadow them, and an edited source would silently not take effect.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from setuptools import build_meta
from setuptools.build_meta import (
    build_sdist,
    build_wheel,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_wheel,
)

__all__ = [
    "build_editable", "build_sdist", "build_wheel", "get_requires_for_build_editable",
    "get_requires_for_build_sdist", "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable", "prepare_metadata_for_build_wheel",
]

COMPILER = ["mypy==2.4.1"]
"""What compiling needs besides setuptools (mypyc ships with mypy)."""

PURE = "REFEREE_BUILD_PURE"
"""Set while ``setup.py`` must not compile: when setuptools runs it only to learn the build
requirements (mypy may not be installed yet), and for an editable install."""


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    """setuptools' requirements, and mypy for a compiled build."""
    with _pure():
        requires: list[str] = build_meta.get_requires_for_build_wheel(config_settings)
    return requires + (COMPILER if os.environ.get("REFEREE_COMPILE", "") == "1" else [])


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None
                                    ) -> list[str]:
    """setuptools' requirements (an editable install is never compiled)."""
    with _pure():
        requires: list[str] = build_meta.get_requires_for_build_editable(config_settings)
    return requires


def prepare_metadata_for_build_editable(metadata_directory: str,
                                        config_settings: dict[str, Any] | None = None
                                        ) -> str:
    """setuptools' metadata, never compiling."""
    with _pure():
        name: str = build_meta.prepare_metadata_for_build_editable(metadata_directory,
                                                                   config_settings)
    return name


def build_editable(wheel_directory: str, config_settings: dict[str, Any] | None = None,
                   metadata_directory: str | None = None) -> str:
    """setuptools' editable wheel, pure Python."""
    with _pure():
        name: str = build_meta.build_editable(wheel_directory, config_settings,
                                              metadata_directory)
    return name


@contextlib.contextmanager
def _pure() -> Iterator[None]:
    before = os.environ.get(PURE)
    os.environ[PURE] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ[PURE]
        else:
            os.environ[PURE] = before
