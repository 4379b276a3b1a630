"""Shared test set-up: this folder is on ``sys.path``, so helpers such as ``proctags``
can be imported by the tests of every subfolder."""

import os
from pathlib import Path

import pytest


@pytest.fixture
def tmp_path(tmp_path: Path) -> Path:
    """pytest's temporary folder, open to other users (0755): when the tests run as root,
    sandboxed bots run as users of their own and must read the programs a test writes
    there, as an organiser's bot folders must be readable (docs/sandbox.md)."""
    os.chmod(tmp_path, 0o755)
    return tmp_path
