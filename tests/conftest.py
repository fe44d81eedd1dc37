"""Fixtures the test modules share: headless Chromium for the end-to-end tests (`browser`),
driven by Playwright: Debian's chromium, or the test is skipped when none is installed; and a
data folder of their own, where `curator serve` keeps its database unless told otherwise."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest


@pytest.fixture(scope="session", autouse=True)
def data_home(tmp_path_factory):
    """$XDG_DATA_HOME in a temporary folder for the whole run (servers started in their own
    process inherit it), so that no test touches the user's workspace database."""
    before = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("data-home"))
    yield Path(os.environ["XDG_DATA_HOME"])
    if before is None:
        os.environ.pop("XDG_DATA_HOME", None)
    else:
        os.environ["XDG_DATA_HOME"] = before


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
