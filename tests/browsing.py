"""What the browser tests share: Debian's Chromium driven by Playwright (never a browser
downloaded), its flags, the folder of screenshots a person can look at (tests/artifacts/,
not in git), and a page with its errors collected that clicks its downloads."""

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


class Tab:
    """A page in a browser context of its own, with its console errors and warnings,
    page errors and dialogs (dismissed) collected in ``errors``."""

    def __init__(self, browser: Any, javascript: bool = True,
                 viewport: dict[str, int] | None = None) -> None:
        options: dict[str, Any] = {"java_script_enabled": javascript}
        if viewport is not None:
            options["viewport"] = viewport
        self.context = browser.new_context(**options)
        self.page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(f"console {m.type}: {m.text}")
                     if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.on("dialog", lambda d: (self.errors.append(f"dialog: {d.message}"),
                                          d.dismiss()))

    def close(self) -> None:
        """Close its browser context."""
        self.context.close()

    def shot(self, name: str) -> None:
        """A full-page screenshot in tests/artifacts/."""
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / name), full_page=True)

    def download_labels(self) -> list[str]:
        """The labels of the links the page offers in its ``<ul class="downloads">``."""
        return [text.strip() for text in
                self.page.locator("ul.downloads a").all_text_contents()]

    def download(self, label: str) -> tuple[str, bytes]:
        """Click the link ``label`` of the page's ``<ul class="downloads">`` as a person
        would: the name the browser saves the file as, and its bytes."""
        with self.page.expect_download() as waiting:
            self.page.locator("ul.downloads").get_by_role("link", name=label,
                                                          exact=True).click()
        got = waiting.value
        return got.suggested_filename, Path(got.path()).read_bytes()
