"""Universe tables in the workspace end to end: `curator serve` on the 4x4 universe in its own
process, driven in headless Chromium by Playwright (Debian's chromium; skipped when none is
installed). The table by distance, the puzzles a filter lists, and play: a vehicle clicked and
slid one move closer lowers the distance shown by one, `u` undoes it and `n` plays the next
puzzle of the list. A pack arranged in the Pack tab from the Levels tab's filters is the one
`pack` arranges, its curve is drawn and downloaded, it is kept in the database by the puzzles'
drawings, and a puzzle added by hand ends its curve.
"""

from __future__ import annotations

import io
import json
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

import curator
from tests.served import serving, watched_page

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
    yield from watched_page(browser, server)


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
    assert not page.locator("#filters").is_visible() and page.locator(".tab[data-tab=pack]").is_visible()
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


def kept(url: str, count: int) -> dict:
    """The pack the server keeps, once it holds `count` puzzles."""
    deadline = time.monotonic() + 10
    while True:
        with urllib.request.urlopen(f"{url}/api/folders/0/packs", timeout=10) as answer:
            packs = json.load(answer)
        if packs and len(packs[0]["levels"]) == count:
            return packs[0]
        assert time.monotonic() < deadline, packs
        time.sleep(0.1)


def test_arrange_a_pack_download_it_and_keep_it(page, server, universe):
    page.locator("#layer-table tbody tr").first.wait_for()
    page.click(".tab[data-tab=levels]")
    page.select_option("#universe-filters [name=minimal]", "true")
    page.fill("#universe-filters [name=walls]", "0..1")
    page.fill("#universe-filters [name=limit]", "3")
    page.click("#universe-find")
    page.wait_for_selector("figure.level")
    expected = universe.pack(6, "ease-in", pool=400, seed=2, minimal=True, walls=(0, 1))

    page.click(".tab[data-tab=pack]")
    assert page.locator("#arrange [name=variety]").is_visible()
    assert not page.locator("#download-html").is_visible()
    page.fill("#arrange [name=size]", "6")
    page.select_option("#arrange [name=curve]", "ease-in")
    page.fill("#arrange [name=pool]", "400")
    page.fill("#arrange [name=seed]", "2")
    page.click("#arrange-go")
    page.wait_for_function("() => document.querySelector('#message').textContent"
                           ".startsWith('Arranged 6 puzzles')")
    items = page.locator("#pack-list li")
    assert items.count() == 6 and page.inner_text("#pack-count") == "6"
    assert [int(items.nth(i).get_attribute("data-rank")) for i in range(6)] == [p.rank for p in expected]
    assert items.first.locator(".picture svg .piece").count() == expected[0].pieces
    assert page.inner_text("#curve-title") == "Distance curve"
    points = page.locator("#curve circle.point")
    assert [float(points.nth(i).get_attribute("data-difficulty")) for i in range(6)] == [
        p.distance for p in expected]
    targets = page.locator("#curve polyline.target").get_attribute("data-targets")
    assert [float(t) for t in targets.split(",")] == [slot.target for slot in expected.slots]

    with page.expect_download() as download:
        page.click("#download-json")
    assert download.value.suggested_filename == "rush-hour-4x4-pack.json"
    pack = json.loads(Path(download.value.path()).read_text())
    assert pack["format"] == "curator-universe-puzzles/1" and pack["curve"] == expected.record().to_json()
    assert [p["rank"] for p in pack["puzzles"]] == [p.rank for p in expected]
    with page.expect_download() as download:
        page.click("#download-toml")
    assert download.value.suggested_filename == "rush-hour-4x4-pack.zip"
    with zipfile.ZipFile(io.BytesIO(Path(download.value.path()).read_bytes())) as archive:
        assert archive.namelist() == [f"puzzle-{n:04d}.toml" for n in range(1, 7)]
    with page.expect_download() as download:
        page.click("#download-csv")
    assert download.value.suggested_filename == "rush-hour-4x4-pack.csv"

    stored = kept(server, 6)
    assert [item["level"] for item in stored["levels"]] == [p.board for p in expected]
    assert stored["curve"]["targets"] == [slot.target for slot in expected.slots]

    page.click(".tab[data-tab=levels]")
    listed = universe.select(minimal=True, walls=(0, 1), limit=3)
    page.locator("figure.level").nth(2).locator("button.add").click()
    assert page.inner_text("#pack-count") == "7"
    stored = kept(server, 7)
    assert stored["levels"][-1]["level"] == listed[2].board and stored["curve"] is None
    page.click(".tab[data-tab=pack]")
    assert page.locator("#curve polyline.target").count() == 0
    with page.expect_download() as download:
        page.click("#download-json")
    pack = json.loads(Path(download.value.path()).read_text())
    assert "curve" not in pack and pack["puzzles"][-1]["rank"] == listed[2].rank

    page.reload()  # the kept pack is drawn again from the database
    page.locator("#layer-table tbody tr").first.wait_for()
    page.click(".tab[data-tab=pack]")
    page.wait_for_function("() => document.querySelectorAll('#pack-list li').length === 7")
    assert page.locator("#pack-list li .picture svg").count() == 7
