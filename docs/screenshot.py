"""Take the README's picture of the workspace (docs/workspace.png) in headless Chromium.

Analyzes Klotski into a temporary folder, runs `curator serve` on it, types the classic start
into the editor and waits for its analysis and its nearest solvable
variants, then photographs the page:

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
VIEWPORT = {"width": 1040, "height": 720}
START = "VSSV/VSSV/VHHV/VNNV/N..N"
"""The classic Klotski start, as the editor's drawing takes it."""


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
        page.locator("#layer-table tbody tr").first.wait_for()
        page.click(".tab[data-tab=editor]")
        page.wait_for_selector("#editor-board svg")
        settled(page)
        page.fill("#edit-drawing [name=board]", START)
        page.click("#edit-drawing button[type=submit]")
        settled(page)
        page.select_option("#want", "solvable")
        settled(page)
        page.locator("#variant-list li").first.wait_for()
        page.locator("#message").evaluate("e => { e.textContent = ''; }")
        page.screenshot(path=str(out))
        browser.close()


def settled(page) -> None:
    """Wait until the editor shows the analysis and the variants of its last edit."""
    page.wait_for_function("() => !document.querySelector('#editor').dataset.busy")


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "workspace.png"
    with tempfile.TemporaryDirectory() as scratch:
        output = Path(scratch) / "klotski"
        results = curator.analyze(ROOT / "puzzles" / "klotski.toml", output=output, workers=1)
        process, url = serve(results.directory)
        try:
            photograph(url, out)
        finally:
            process.terminate()
            process.wait(timeout=20)
    print(f"{out}: {out.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
