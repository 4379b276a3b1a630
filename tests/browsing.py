"""What the browser tests share: Debian's Chromium driven by Playwright (never a browser
downloaded), its flags, and the folder of screenshots a person can look at
(tests/artifacts/, not in git)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
MISSING = (f"{CHROMIUM} is not installed (Debian package chromium); the browser tests use "
           "it through Playwright and never download a browser")


def playwright_api() -> Any:
    """Playwright's sync API; the calling test module is skipped, saying why, without
    Chromium or Playwright."""
    if not CHROMIUM.exists():
        pytest.skip(MISSING, allow_module_level=True)
    return pytest.importorskip("playwright.sync_api",
                               reason="playwright is not installed (pip install '.[test]')")


@contextlib.contextmanager
def chromium(api: Any) -> Iterator[Any]:
    """A headless Chromium for the block."""
    with api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()
