"""Test helper: a stand-in for ``torch.utils.data``, for the datasets' tests without torch,
and torch hidden, for their tests of the plain classes where torch is installed."""

from __future__ import annotations

import sys
import types

import pytest


def install(monkeypatch: pytest.MonkeyPatch) -> types.SimpleNamespace:
    """Put a stand-in ``torch.utils.data`` in ``sys.modules`` (for the test): an
    ``IterableDataset`` base (``state.base``) and ``get_worker_info`` giving ``state.info``
    (None: the main process); returns ``state``."""
    torch = types.ModuleType("torch")
    utils = types.ModuleType("torch.utils")
    data = types.ModuleType("torch.utils.data")

    class IterableDataset:
        pass

    state = types.SimpleNamespace(info=None, base=IterableDataset)
    data.IterableDataset = IterableDataset  # type: ignore[attr-defined]
    data.get_worker_info = lambda: state.info  # type: ignore[attr-defined]
    torch.utils = utils  # type: ignore[attr-defined]
    utils.data = data  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "torch.utils", utils)
    monkeypatch.setitem(sys.modules, "torch.utils.data", data)
    return state


MODULES = ("torch", "torch.utils", "torch.utils.data")


def hide(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import torch`` (and its ``utils.data``) fail for the test, as where torch is
    not installed, even after the real one was imported."""
    for name in MODULES:
        monkeypatch.setitem(sys.modules, name, None)
