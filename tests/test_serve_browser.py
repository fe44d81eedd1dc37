"""The workspace end to end: `curator serve` in its own process, driven in headless Chromium
by Playwright (Debian's chromium; skipped when none is installed).

Open the page, filter levels, play one to the goal by the hint alone, build a three-level
pack, reorder it and download it; the download must be a valid level pack in that order.
Arrange a pack from the filters: the download keeps its curve until the order is changed.
On sliding-block tables (Klotski, the second folder): the distance table, the hardest levels,
a move that brings a level closer lowers the distance shown by one, undo, and a pack. On
Sokoban tables (the third folder): a level played to the goal with the arrow keys.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

import curator
from tests.served import serving, watched_page

ROOT = Path(__file__).resolve().parent.parent
PACK_SCHEMA = json.loads((ROOT / "schemas" / "level-pack.schema.json").read_text())

MOVES_MADE = "n => document.querySelector('#moves-made').textContent.startsWith(n + ' move')"
"""Waits until the page says n moves were played."""

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def triangle(tmp_path_factory):
    output = tmp_path_factory.mktemp("e2e") / "triangle"
    return curator.analyze(ROOT / "puzzles" / "triangle.toml", output=output, workers=1)


@pytest.fixture(scope="module")
def klotski(tmp_path_factory):
    output = tmp_path_factory.mktemp("e2e") / "klotski"
    return curator.analyze(ROOT / "puzzles" / "klotski.toml", output=output, workers=1)


@pytest.fixture(scope="module")
def tilt(tmp_path_factory):
    output = tmp_path_factory.mktemp("e2e") / "tilt"
    return curator.analyze(ROOT / "puzzles" / "tilt.toml", output=output, workers=1)


@pytest.fixture(scope="module")
def sokoban(tmp_path_factory):
    output = tmp_path_factory.mktemp("e2e") / "sokoban"
    return curator.analyze(ROOT / "puzzles" / "sokoban.toml", output=output, workers=1)


@pytest.fixture(scope="module")
def server(triangle, klotski, tilt, sokoban):
    """The URL of `curator serve` on the triangle (folder 0), Klotski (folder 1), Tilt (folder
    2) and the Sokoban storeroom (folder 3), running on a free port in its own process."""
    db = triangle.directory.parent / "workspace.sqlite"
    yield from serving(triangle.directory, klotski.directory, tilt.directory, sokoban.directory,
                       "--db", db)


@pytest.fixture
def page(browser, server):
    yield from watched_page(browser, server, accept_downloads=True)


def find_levels(page, **fields):
    page.click(".tab[data-tab=levels]")
    for name, value in fields.items():
        selector = f"#filters [name={name}]"
        if page.locator(selector).evaluate("e => e.tagName") == "SELECT":
            page.select_option(selector, value)
        else:
            page.fill(selector, value)
    page.click("#find")
    page.wait_for_selector("figure.level")


def test_layer_table_and_chart(page, triangle):
    rows = page.locator("#layer-table tbody tr")
    rows.first.wait_for()
    assert rows.count() == len(triangle.layers)
    assert rows.nth(7).locator("td").nth(2).inner_text() == f"{triangle.layers[7]['solvable']:,}"
    assert page.locator("#chart rect[data-series=unique]").count() == len(triangle.layers)


def test_filter_play_by_hint_and_download_a_pack(page, triangle):
    find_levels(page, solvable="true", pieces="5..6", sample="6", seed="4")
    expected = triangle.selection(solvable=True, pieces=(5, 6), sample=6, seed=4)
    cards = page.locator("figure.level")
    assert cards.count() == 6
    assert page.inner_text("#matched") == f"6 levels of {expected.matched:,} matching"
    ranks = [int(cards.nth(i).get_attribute("data-rank")) for i in range(6)]
    assert ranks == [level.rank for level in expected.levels]

    cards.first.locator("button.play").click()
    page.wait_for_selector("#board svg")
    first = expected.levels[0]
    page.click("#hint")
    for move in range(1, first.pieces):
        assert page.inner_text("#status").startswith("Still solvable")
        page.locator("#board .hint-from").first.click()
        page.locator("#board .hint-to").first.click()
        page.wait_for_function(MOVES_MADE, arg=move)
    assert page.locator("#solved").is_visible()
    assert page.inner_text("#solved-moves") == f"in {first.pieces - 1} moves"
    page.click("#undo")
    assert not page.locator("#solved").is_visible()
    page.click("#reset")
    assert page.inner_text("#moves-made").startswith("0 moves played")

    page.click(".tab[data-tab=levels]")
    for i in (0, 1, 2):
        cards.nth(i).locator("button.add").click()
    page.click(".tab[data-tab=pack]")
    items = page.locator("#pack-list li")
    assert items.count() == 3 and page.inner_text("#pack-count") == "3"
    items.first.locator("button.down").click()
    order = [int(items.nth(i).get_attribute("data-rank")) for i in range(3)]
    assert order == [ranks[1], ranks[0], ranks[2]]
    points = page.locator("#curve circle.point")
    assert [float(points.nth(i).get_attribute("data-difficulty")) for i in range(3)] == [
        expected.levels[i].to_json()["difficulty"] for i in (1, 0, 2)]

    with page.expect_download() as download:
        page.click("#download-json")
    assert download.value.suggested_filename == "triangle-pack.json"
    pack = json.loads(Path(download.value.path()).read_text())
    jsonschema.validate(pack, PACK_SCHEMA)
    assert [level["rank"] for level in pack["levels"]] == order
    with page.expect_download() as gallery:
        page.click("#download-html")
    assert Path(gallery.value.path()).read_text().count("<svg") == 3


def test_arrange_a_pack_and_download_its_curve(page, triangle):
    find_levels(page, solvable="true", pieces="5..8", sample="3", sort="difficulty", limit="2")
    expected = triangle.pack(4, "ease-in", pool=200, seed=1, solvable=True, pieces=(5, 8))
    page.click(".tab[data-tab=pack]")
    page.fill("#arrange [name=size]", "4")
    page.select_option("#arrange [name=curve]", "ease-in")
    page.fill("#arrange [name=pool]", "200")
    page.fill("#arrange [name=seed]", "1")
    page.click("#arrange-go")
    page.wait_for_function("() => document.querySelector('#message').textContent.startsWith('Arranged')")
    items = page.locator("#pack-list li")
    assert items.count() == 4 and page.inner_text("#pack-count") == "4"
    assert [int(items.nth(i).get_attribute("data-rank")) for i in range(4)] == [x.rank for x in expected]
    targets = page.locator("#curve polyline.target")
    assert targets.count() == 1
    assert [float(t) for t in targets.get_attribute("data-targets").split(",")] == [
        s.target for s in expected.slots]
    assert page.locator("#curve circle.point").count() == 4

    with page.expect_download() as download:
        page.click("#download-json")
    pack = json.loads(Path(download.value.path()).read_text())
    jsonschema.validate(pack, PACK_SCHEMA)
    assert pack["curve"] == expected.record().to_json()
    assert [level["rank"] for level in pack["levels"]] == [x.rank for x in expected]

    items.first.locator("button.down").click()  # a hand-made order no longer follows the curve
    assert page.locator("#curve polyline.target").count() == 0
    with page.expect_download() as download:
        page.click("#download-json")
    assert "curve" not in json.loads(Path(download.value.path()).read_text())


def test_illegal_clicks_are_refused(page, triangle):
    find_levels(page, solvable="true", pieces="6", sample="1", seed="2")
    page.locator("figure.level button.play").first.click()
    page.wait_for_selector("#board svg .piece")
    level = triangle.selection(solvable=True, pieces=(6, 6), sample=1, seed=2).levels[0]
    index = triangle.puzzle.board.index
    movable = {index[a] for a, _ in (o.move for o in triangle.moves(level.position))}
    stuck = [i for i, v in enumerate(level.position) if v and i not in movable]
    start = page.locator("#board svg").inner_html()
    page.locator(f"#board .piece[data-cell='{min(movable)}']").click()
    assert page.locator("#board .selected").count() == 1 and page.locator("#board .target").count() >= 1
    away = next(i for i, v in enumerate(level.position)
                if not v and all((index[o.move[0]], index[o.move[1]]) != (min(movable), i)
                                 for o in triangle.moves(level.position)))
    page.locator(f"#board [data-cell='{away}']").last.click()
    assert page.inner_text("#message") == "That move is not legal here."
    assert page.locator("#board svg").inner_html() == start
    assert page.inner_text("#moves-made").startswith("0 moves")
    for cell in stuck[:1]:
        page.locator(f"#board .piece[data-cell='{cell}']").click()
        assert page.locator("#board .selected").count() == 0


def open_sliding(page):
    page.locator("#layer-table tbody tr").first.wait_for()
    page.select_option("#folder", "1")
    page.wait_for_function("() => document.body.classList.contains('sliding')")


def test_sliding_distance_table(page, klotski):
    open_sliding(page)
    rows = page.locator("#layer-table tbody tr")
    assert rows.count() == len(klotski.layers) == klotski.summary()["max_distance"] + 1
    headings = page.locator("#layer-table thead th").all_inner_texts()
    assert headings == ["distance", "positions", "unique", "all moves"]
    assert rows.nth(81).locator("td").all_inner_texts() == [
        f"{klotski.layers[81][key]:,}" for key in ("distance", "positions", "unique", "all_moves")]
    assert page.inner_text("#figures").startswith("65,880 positions (4,302,120 of 4,368,000 ranks")
    assert page.locator("#chart rect[data-series=unique]").count() == len(klotski.layers)
    assert not page.locator("#filters").is_visible()


def test_sliding_hardest_levels_play_closer_and_pack(page, klotski):
    open_sliding(page)
    page.click(".tab[data-tab=levels]")
    page.check("#sliding-filters [name=hardest]")
    page.fill("#sliding-filters [name=limit]", "5")
    page.click("#sliding-find")
    page.wait_for_selector("figure.level")
    expected = klotski.selection(hardest=True, limit=5)
    cards = page.locator("figure.level")
    assert cards.count() == 5
    assert page.inner_text("#matched") == f"5 levels of {expected.matched:,} matching"
    ranks = [int(cards.nth(i).get_attribute("data-rank")) for i in range(5)]
    assert ranks == [x.rank for x in expected.levels]
    assert cards.first.locator(".picture svg .piece").count() == 10

    level = expected.levels[1]
    cards.nth(1).locator("button.play").click()
    page.wait_for_selector("#board svg .piece")
    assert page.inner_text("#distance-now") == str(level.distance)
    closer = page.locator("#move-list button.closer")
    assert closer.count() == sum(m.closer for m in klotski.moves(level.position)) > 0
    closer.first.click()
    page.wait_for_function(MOVES_MADE, arg=1)
    assert page.inner_text("#distance-now") == str(level.distance - 1)
    page.click("#undo")
    page.wait_for_function(MOVES_MADE, arg=0)
    assert page.inner_text("#distance-now") == str(level.distance)
    losing = page.locator("#move-list button.loses")
    assert losing.count() == sum(not m.solvable for m in klotski.moves(level.position))

    page.click(".tab[data-tab=levels]")
    cards.nth(2).locator("button.add").click()
    cards.nth(0).locator("button.add").click()
    page.click(".tab[data-tab=pack]")
    assert page.locator("#pack-list li").count() == 2 and page.inner_text("#curve-title") == "Distance curve"
    with page.expect_download() as download:
        page.click("#download-json")
    assert download.value.suggested_filename == "klotski-pack.json"
    pack = json.loads(Path(download.value.path()).read_text())
    assert pack["format"] == "curator-sliding-pack/1"
    assert [x["rank"] for x in pack["levels"]] == [expected.levels[2].rank, expected.levels[0].rank]

    # kept in the database: after a reload the pack is drawn and downloads as sliding levels again
    page.wait_for_function("() => [...document.querySelectorAll('#pack-select option')]"
                           ".some((o) => o.textContent.endsWith('(2 levels)'))")
    page.reload()
    open_sliding(page)
    page.click(".tab[data-tab=pack]")
    page.wait_for_function("() => document.querySelectorAll('#pack-list li .picture svg').length === 2")
    assert page.inner_text("#curve-title") == "Distance curve" and page.inner_text("#message") == ""
    with page.expect_download() as download:
        page.click("#download-json")
    kept = json.loads(Path(download.value.path()).read_text())
    assert kept["format"] == "curator-sliding-pack/1" and kept["levels"] == pack["levels"]


ARROWS = {"u": "ArrowUp", "r": "ArrowRight", "d": "ArrowDown", "l": "ArrowLeft"}


def test_sokoban_plays_with_the_arrow_keys(page, sokoban):
    page.locator("#layer-table tbody tr").first.wait_for()
    page.select_option("#folder", "3")
    page.wait_for_function("() => document.body.classList.contains('sliding')")
    assert page.inner_text("#puzzle-title").endswith("Sokoban tables")
    page.click(".tab[data-tab=levels]")
    page.fill("#sliding-filters [name=distance]", "5")
    page.fill("#sliding-filters [name=limit]", "1")
    page.click("#sliding-find")
    page.wait_for_selector("figure.level")
    level = sokoban.select(distance=5, limit=1)[0]
    assert not page.locator("figure.level button.edit").is_visible()  # the editor draws no rooms
    page.locator("figure.level button.play").click()
    page.wait_for_selector("#board svg .piece")
    assert page.inner_text("#distance-now") == "5"
    assert not page.locator("#edit-this").is_visible()
    letters = "".join(level.solution)
    legal = {move.text.lower() for move in sokoban.moves(level.position)}
    for letter in [letter for letter in ARROWS if letter not in legal][:1]:
        page.keyboard.press(ARROWS[letter])
        page.wait_for_function("() => document.querySelector('#message').textContent.includes('No move')")
    for played, letter in enumerate(letters, start=1):
        page.keyboard.press(ARROWS[letter.lower()])
        page.wait_for_function(MOVES_MADE, arg=played)
    assert page.locator("#solved").is_visible()
    assert page.inner_text("#distance-now") == "0"
    # The room's own start, drawn with spaces outside its walls, loads as it is.
    assert page.input_value("#load-board [name=board]").startswith(" #")
    page.click("#load-board button[type=submit]")
    page.wait_for_function("() => document.querySelector('#distance-now').textContent === '26'")


def test_tilt_is_played_with_its_tilts(page, tilt):
    page.locator("#layer-table tbody tr").first.wait_for()
    page.select_option("#folder", "2")
    page.wait_for_function("() => document.body.classList.contains('sliding')")
    assert "tilt moves, 1 exit, out G, keep B" in page.inner_text("#figures")
    page.click(".tab[data-tab=play]")
    start = tilt.puzzle.draw(tilt.puzzle.start).replace("\n", "/")
    assert page.input_value("#load-board [name=board]") == start
    page.click("#load-board button[type=submit]")
    page.wait_for_selector("#board svg .hole")
    assert page.inner_text("#distance-now") == "14"
    buttons = page.locator("#move-list button")
    tilts = sorted(buttons.nth(i).get_attribute("data-tilt") for i in range(buttons.count()))
    assert tilts == ["left", "right"]
    page.click("#move-list button[data-tilt=left]")
    page.wait_for_function(MOVES_MADE, arg=1)
    assert page.inner_text("#distance-now") == "13"
    # The arrow keys tilt the board their way.
    way = tilt.moves(tilt.tilt(start, "left").position)[0].direction
    page.keyboard.press(ARROWS[way[0]])
    page.wait_for_function(MOVES_MADE, arg=2)
