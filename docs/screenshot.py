"""Take the README's picture of the workspace (docs/workspace.png) in headless Chromium.

Analyzes the triangle puzzle into a temporary folder, runs `curator serve` on it, fills a
small pack and plays one move with the hint on, then photographs the page:

    python3 docs/screenshot.py [OUT.png]
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

import curator

ROOT = Path(__file__).resolve().parent.parent
VIEWPORT = {"width": 900, "height": 520}


def serve(directory: Path) -> tuple[subprocess.Popen, str]:
    """`curator serve directory` on a free port, once it answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "curator", "serve", str(directory), "--port", str(port),
               "--db", str(directory.parent / "workspace.sqlite")]  # not the designer's own packs
    process = subprocess.Popen(command, env={**os.environ, "NUMBA_NUM_THREADS": "1"})
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(f"{url}/api/folders", timeout=2).close()
            return process, url
        except OSError:
            time.sleep(0.2)
    process.terminate()
    raise SystemExit("curator serve did not start")


def photograph(url: str, out: Path) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(url)
        page.click(".tab[data-tab=levels]")
        page.select_option("[name=solvable]", "true")
        page.fill("[name=pieces]", "7..8")
        page.fill("[name=sample]", "6")
        page.fill("[name=seed]", "3")
        page.click("#find")
        cards = page.locator("figure.level")
        cards.first.wait_for()
        for i in (0, 1, 2):
            cards.nth(i).locator("button.add").click()
        cards.first.locator("button.play").click()
        page.wait_for_selector("#board svg")
        page.click("#hint")
        page.locator("#board .hint-from").first.click()
        page.locator("#board .hint-to").first.click()
        page.wait_for_function("() => document.querySelector('#moves-made').textContent.startsWith('1 move')")
        page.locator("#message").evaluate("e => { e.textContent = ''; }")
        page.screenshot(path=str(out))
        browser.close()


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "workspace.png"
    with tempfile.TemporaryDirectory() as scratch:
        output = Path(scratch) / "triangle"
        results = curator.analyze(ROOT / "puzzles" / "triangle.toml", output=output, workers=1)
        process, url = serve(results.directory)
        try:
            photograph(url, out)
        finally:
            process.terminate()
            process.wait(timeout=20)
    print(f"{out}: {out.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
