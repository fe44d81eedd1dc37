"""Universe tables in the workspace end to end: `curator serve` on the 4x4 universe in its own
process, driven in headless Chromium by Playwright (Debian's chromium; skipped when none is
installed). The table by distance, the puzzles a filter lists, and play: a vehicle clicked and
slid one move closer lowers the distance shown by one, `u` undoes it and `n` plays the next
puzzle of the list.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import curator
from tests.served import serving

UNIVERSE = Path(__file__).parent / "data" / "rush-hour-4x4.toml"
MOVES_MADE = "n => document.querySelector('#moves-made').textContent.startsWith(n + ' move')"

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def universe(tmp_path_factory):
    return curator.analyze(UNIVERSE, output=tmp_path_factory.mktemp("e2e") / "universe", workers=1)


@pytest.fixture(scope="module")
def server(universe):
    yield from serving(universe.directory, "--db", universe.directory.parent / "workspace.sqlite")


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1200, "height": 860})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    page.goto(server)
    yield page
    context.close()
    assert errors == []


def far_end(move) -> tuple[int, int]:
    """The cell a move's vehicle reaches last: a click there plays that slide."""
    (r, c), (r2, c2) = move.source, move.target
    if (r2, c2) < (r, c):
        return r2, c2
    return max(move.position.vehicle_at((r2, c2)).cells)


def test_list_puzzles_and_play_one_closer(page, universe):
    page.locator("#layer-table tbody tr").first.wait_for()
    headings = page.locator("#layer-table thead th").all_inner_texts()
    assert headings == ["distance", "puzzles", "minimal", "positions"]
    assert page.locator("#layer-table tbody tr").count() == len(universe.layers)
    assert page.inner_text("#figures").startswith("26,509 puzzles (connected sets)")

    page.click(".tab[data-tab=levels]")
    assert not page.locator("#filters").is_visible() and not page.locator(".tab[data-tab=pack]").is_visible()
    page.select_option("#universe-filters [name=minimal]", "true")
    page.fill("#universe-filters [name=limit]", "5")
    page.click("#universe-find")
    page.wait_for_selector("figure.level")
    expected = universe.select(minimal=True, limit=5)
    cards = page.locator("figure.level")
    assert page.inner_text("#matched") == "5 puzzles of 32 matching"
    assert [int(cards.nth(i).get_attribute("data-rank")) for i in range(5)] == [p.rank for p in expected]

    first = expected[0]
    cards.first.locator("button.play").click()
    page.wait_for_selector("#board svg .piece")
    assert page.inner_text("#distance-now") == str(first.distance)
    moves = universe.play(first.board).moves
    assert page.locator("#move-list button.closer").count() == sum(m.closer for m in moves)
    move = next(m for m in moves if m.closer)
    cols = universe.puzzle.cols
    page.locator(f"#board .piece[data-cell='{move.source[0] * cols + move.source[1]}']").click()
    vehicle = universe.position(first.board).vehicle_at(move.source)
    assert page.locator("#board .selected").count() == len(vehicle.cells)
    r, c = far_end(move)
    page.locator(f"#board .board [data-cell='{r * cols + c}']").last.click()
    page.wait_for_function(MOVES_MADE, arg=1)
    assert page.inner_text("#distance-now") == str(first.distance - 1)
    page.keyboard.press("u")
    page.wait_for_function(MOVES_MADE, arg=0)
    assert page.inner_text("#distance-now") == str(first.distance)
    page.keyboard.press("n")
    page.wait_for_function("t => document.querySelector('#play-title').textContent.startsWith(t)",
                           arg=f"set #{expected[1].rank}:")
    assert page.inner_text("#distance-now") == str(expected[1].distance)
