"""The project's build backend: setuptools', plus mypy (for mypyc) when ``REFEREE_COMPILE=1``
asks for the compiled build of a wheel or regular install (see ``setup.py``).

Only :func:`build_wheel` may compile. Every other hook runs ``setup.py`` pure: asking the
requirements (mypy may not be installed yet), the metadata (it needs no C code), the
sdist (sources only) and the editable install (compiled modules beside the sources would
shadow them, and an edited source would silently not take effect).

A wheel is built from a clean slate: setuptools packages whatever its ``build/lib*``
folder holds, so the modules an earlier build compiled (another configuration, or older
sources) would end up in the wheel and shadow the sources it was asked to build.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from setuptools import build_meta

__all__ = [
    "build_editable", "build_sdist", "build_wheel", "get_requires_for_build_editable",
    "get_requires_for_build_sdist", "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable", "prepare_metadata_for_build_wheel",
]

COMPILER = ["mypy==2.4.1"]
"""What compiling needs besides setuptools (mypyc ships with mypy)."""

PURE = "REFEREE_BUILD_PURE"
"""Set while ``setup.py`` must not compile (every hook but :func:`build_wheel`)."""

T = TypeVar("T")


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    """setuptools' requirements, and mypy for a compiled build."""
    requires: list[str] = _pure(build_meta.get_requires_for_build_wheel, config_settings)
    return requires + (COMPILER if os.environ.get("REFEREE_COMPILE", "") == "1" else [])


def build_wheel(wheel_directory: str, config_settings: dict[str, Any] | None = None,
                metadata_directory: str | None = None) -> str:
    """setuptools' wheel (compiled if ``REFEREE_COMPILE=1``), after forgetting what
    earlier builds left in ``build/``."""
    forget_earlier_builds(Path.cwd())
    name: str = build_meta.build_wheel(wheel_directory, config_settings, metadata_directory)
    return name


def forget_earlier_builds(source: Path) -> None:
    """Remove the folders of ``source/build`` that setuptools packages as they are
    (``lib*``: modules, compiled or not; ``bdist*``: the wheel's staging area); the C
    files mypyc writes there are written again at each compiled build."""
    build = source / "build"
    if not build.is_dir():
        return
    for folder in build.iterdir():
        if folder.is_dir() and folder.name.startswith(("lib", "bdist")):
            shutil.rmtree(folder)


def prepare_metadata_for_build_wheel(metadata_directory: str,
                                     config_settings: dict[str, Any] | None = None) -> str:
    """setuptools' metadata, without compiling."""
    name: str = _pure(build_meta.prepare_metadata_for_build_wheel, metadata_directory,
                      config_settings)
    return name


def get_requires_for_build_sdist(config_settings: dict[str, Any] | None = None) -> list[str]:
    """setuptools' requirements (an sdist holds sources only)."""
    requires: list[str] = _pure(build_meta.get_requires_for_build_sdist, config_settings)
    return requires


def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    """setuptools' sdist, without compiling."""
    name: str = _pure(build_meta.build_sdist, sdist_directory, config_settings)
    return name


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None
                                    ) -> list[str]:
    """setuptools' requirements (an editable install is never compiled)."""
    requires: list[str] = _pure(build_meta.get_requires_for_build_editable, config_settings)
    return requires


def prepare_metadata_for_build_editable(metadata_directory: str,
                                        config_settings: dict[str, Any] | None = None
                                        ) -> str:
    """setuptools' metadata, without compiling."""
    name: str = _pure(build_meta.prepare_metadata_for_build_editable, metadata_directory,
                      config_settings)
    return name


def build_editable(wheel_directory: str, config_settings: dict[str, Any] | None = None,
                   metadata_directory: str | None = None) -> str:
    """setuptools' editable wheel, pure Python."""
    name: str = _pure(build_meta.build_editable, wheel_directory, config_settings,
                      metadata_directory)
    return name


def _pure(hook: Callable[..., T], *args: Any) -> T:
    """``hook(*args)`` with :data:`PURE` set (as it was before, afterwards)."""
    before = os.environ.get(PURE)
    os.environ[PURE] = "1"
    try:
        return hook(*args)
    finally:
        if before is None:
            del os.environ[PURE]
        else:
            os.environ[PURE] = before
