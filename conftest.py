"""Runs every doctest (the README's examples and the modules' docstrings) in a scratch folder
that holds the bundled puzzles, so that a test run writes nothing into the checkout."""

from __future__ import annotations

from pathlib import Path

import pytest
from _pytest.doctest import DoctestItem

ROOT = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def doctests_in_scratch(request: pytest.FixtureRequest, tmp_path: Path,
                        monkeypatch: pytest.MonkeyPatch) -> None:
    if isinstance(request.node, DoctestItem):
        (tmp_path / "puzzles").symlink_to(ROOT / "puzzles")
        monkeypatch.chdir(tmp_path)
