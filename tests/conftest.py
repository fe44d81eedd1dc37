"""Fixtures the test modules share: headless Chromium for the end-to-end tests (`browser`),
driven by Playwright: Debian's chromium, or the test is skipped when none is installed."""

from __future__ import annotations

import shutil

import pytest


@pytest.fixture(scope="module")
def browser():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("no chromium on PATH (Debian: apt-get install -y chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield launched
        launched.close()
