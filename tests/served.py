"""`curator serve` in a process of its own for the browser tests: started on a free port and
waited for until it answers, then stopped."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(*arguments: object) -> tuple[subprocess.Popen, str]:
    """`curator serve ARGUMENTS` on a free port (one numba thread), and its URL once it answers."""
    port = free_port()
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    process = subprocess.Popen([sys.executable, "-m", "curator", "serve", *map(str, arguments),
                                "--port", str(port)], env=env, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/folders", timeout=2).close()
            return process, url
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"curator serve did not start: {process.stderr.read()}")
            time.sleep(0.2)


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    process.wait(timeout=20)


def serving(*arguments: object) -> Iterator[str]:
    """The URL of `curator serve ARGUMENTS` while the caller (a fixture) is suspended."""
    process, url = start(*arguments)
    try:
        yield url
    finally:
        stop(process)


def fake_serving(monkeypatch: Any) -> list[tuple[str, int, Any]]:
    """What `curator serve` would serve, recorded instead of served: (host, port, app) per
    run; no port is taken."""
    import importlib

    import uvicorn

    served: list[tuple[str, int, Any]] = []
    asked: list[tuple[str, int]] = []

    def listening(host: str, port: int) -> socket.socket:
        asked.append((host, port))
        stand_in = socket.socket()
        stand_in.bind(("127.0.0.1", 0))
        return stand_in

    def run(server: Any, sockets: list[socket.socket]) -> None:
        for stand_in in sockets:
            stand_in.close()
        served.append((*asked[-1], server.config.app))

    monkeypatch.setattr(importlib.import_module("curator.cli.app"), "_listening", listening)
    monkeypatch.setattr(uvicorn.Server, "run", run)
    return served


def served_context(browser: Any, **options: Any) -> Any:
    """A browser context for pages of a server. The server's first request for a kind of
    table loads (on a fresh clone: compiles) its kernels while the other test process keeps
    the cores busy, which has taken longer than Playwright's default wait of 30 s."""
    context = browser.new_context(**options)
    context.set_default_timeout(120_000)
    return context


def watched_page(browser: Any, url: str, **context_options: Any) -> Iterator[Any]:
    """A page of `url` in a browser context of its own while the caller (a fixture) is
    suspended; afterwards, no script error or console error may have happened on it."""
    context = served_context(browser, viewport={"width": 1200, "height": 860}, **context_options)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.goto(url)
    yield page
    context.close()
    assert errors == []
