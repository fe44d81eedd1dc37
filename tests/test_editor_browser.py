"""The editor, watching solutions and the keys, end to end: `curator serve` in its own process
on Fling! (swept up to 5 balls) and Klotski, driven in headless Chromium by Playwright
(Debian's chromium; skipped when none is installed).

Draw a level on an empty board, see its analysis (the figures `solve` gives), take a
suggested variant (the one `variants` lists first), play it, step through its solution with
the arrow keys (each move drawn as an arrow), and use the other keys.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import curator
from curator.web.app import create_app
from tests.served import served_context, serving

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.browser

FLING_BALLS = [(1, 1), (1, 4), (4, 4)]
"""A three-ball Fling! level drawn by clicks."""
KLOTSKI = {"V": [(0, 0), (0, 3), (2, 0), (2, 3)], "S": [(0, 1)], "H": [(2, 1)],
           "N": [(3, 1), (3, 2), (4, 0), (4, 3)]}
"""The classic Klotski start, piece by piece (anchor cells)."""


@pytest.fixture(scope="module")
def fling(tmp_path_factory):
    output = tmp_path_factory.mktemp("editor") / "fling"
    return curator.analyze(ROOT / "puzzles" / "fling.toml", output=output, max_pieces=5, workers=1)


@pytest.fixture(scope="module")
def klotski(tmp_path_factory):
    output = tmp_path_factory.mktemp("editor") / "klotski"
    return curator.analyze(ROOT / "puzzles" / "klotski.toml", output=output, workers=1)


@pytest.fixture(scope="module")
def eight(tmp_path_factory):
    output = tmp_path_factory.mktemp("editor") / "eight"
    results = curator.analyze(ROOT / "puzzles" / "eight-puzzle.toml", output=output, workers=1)
    # Compile what the editor's requests run into the kernel cache here: compiled by the
    # server inside a request, on a fresh clone with the cores busy, it outlasted the 20 s a
    # request may take (503).
    here = TestClient(create_app([output]), base_url="http://127.0.0.1:8000")
    for path, body in (("distance/position", {"board": "tiles 1 0 2 3 4 5 6 7 8"}),
                       ("variants", {"board": "tiles 1 0 2 3 4 5 6 7 8", "want": "harder"})):
        here.post(f"/api/folders/0/{path}", json=body).raise_for_status()
    return results


@pytest.fixture(scope="module")
def triangle(tmp_path_factory):
    output = tmp_path_factory.mktemp("editor") / "triangle"
    return curator.analyze(ROOT / "puzzles" / "triangle.toml", output=output, max_pieces=6, workers=1)


@pytest.fixture(scope="module")
def server(fling, klotski, triangle):
    """The URL of `curator serve` on Fling! (folder 0), Klotski (folder 1) and the triangle
    (folder 2)."""
    yield from serving(fling.directory, klotski.directory, triangle.directory)


@pytest.fixture(scope="module")
def eight_server(eight):
    """The URL of `curator serve` on the 8-puzzle's distance table (folder 0)."""
    yield from serving(eight.directory)


@pytest.fixture
def page(browser, server):
    yield from opened(browser, server)


@pytest.fixture
def eight_page(browser, eight_server):
    yield from opened(browser, eight_server)


def opened(browser, url):
    context = served_context(browser, viewport={"width": 1300, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: message.type == "error" and "422" not in message.text
            and errors.append(message.text))
    page.goto(url)
    page.locator("#layer-table tbody tr").first.wait_for()
    yield page
    context.close()
    assert errors == []


def open_editor(page, folder: int, kind: str) -> None:
    if folder:
        page.select_option("#folder", str(folder))
        sliding = str(kind == "sliding").lower()
        page.wait_for_function(f"() => document.body.classList.contains('sliding') === {sliding}")
    page.click(".tab[data-tab=editor]")
    page.wait_for_selector("#editor-board svg")


def settled(page) -> None:
    """Wait until the analysis and the variants of the last edit are shown."""
    page.wait_for_function("() => !document.querySelector('#editor').dataset.busy")


def at_step(page, step: int) -> None:
    """Wait until the page says it shows step `step` of the solution watched."""
    page.wait_for_function(f"() => document.querySelector('#step-at').textContent.startsWith('step {step} ')")


def figure(page, name: str) -> str:
    return page.inner_text(f"#analysis dd[data-figure='{name}']")


def test_draw_a_fling_level_take_a_variant_and_watch_its_solution(page, fling):
    open_editor(page, 0, "layers")
    index = fling.puzzle.board.index
    page.click("#edit-empty")
    settled(page)
    for cell in FLING_BALLS:
        page.locator(f"#editor-board [data-cell='{index[cell]}']").last.click()
        settled(page)
    assert page.locator("#editor-board .piece.drawn").count() == 3
    drawn = tuple(int(c in FLING_BALLS) for c in fling.puzzle.board.cells)
    level = fling.solve(drawn)
    assert figure(page, "solutions") == f"{level.solutions:,}"
    shown = figure(page, "difficulty")
    if math.isfinite(level.difficulty):
        assert abs(float(shown) - level.difficulty) < 0.006
    else:
        assert shown == "-"
    said = "solvable" if level.solvable else "not solvable"
    assert page.inner_text("#legal").startswith(f"Legal: {said}")

    expected = fling.variation(drawn, "unique", limit=12)
    items = page.locator("#variant-list li")
    assert items.count() == len(expected.variants) > 0
    assert items.first.get_attribute("data-edit") == expected.variants[0].edit.text
    items.first.locator("button.take").click()
    settled(page)
    taken = expected.variants[0].item
    assert page.locator("#editor-board .piece.drawn").count() == taken.pieces
    assert figure(page, "solutions") == "1" and page.inner_text("#legal") == "Legal: solvable, uniquely."

    page.keyboard.press("u")  # undo the edit: the drawn level again
    settled(page)
    assert page.locator("#editor-board .piece.drawn").count() == 3
    page.keyboard.press("Control+z")
    settled(page)
    assert page.locator("#editor-board .piece.drawn").count() == 2
    page.locator(f"#editor-board [data-cell='{index[FLING_BALLS[-1]]}']").last.click()
    settled(page)
    assert items.first.get_attribute("data-edit") == expected.variants[0].edit.text
    items.first.locator("button.take").click()
    settled(page)

    page.click("#edit-play")
    page.wait_for_selector("#board svg .piece")
    page.keyboard.press("w")
    page.wait_for_selector("#board svg line.watch-arrow", state="attached")
    moves = len(taken.solution)
    assert page.inner_text("#step-at").startswith(f"step 0 of {moves}")
    first = taken.solution[0]
    arrow = page.locator("#board svg line.watch-arrow")
    assert arrow.get_attribute("data-from") == f"{first[0][0]},{first[0][1]}"
    assert arrow.get_attribute("data-to") == f"{first[1][0]},{first[1][1]}"
    for step in range(1, moves + 1):
        page.keyboard.press("ArrowRight")
        at_step(page, step)
    assert page.locator("#board svg line.watch-arrow").count() == 0  # at the goal: nothing to draw
    assert page.locator("#board svg .piece").count() == 1
    page.keyboard.press("ArrowLeft")
    at_step(page, moves - 1)
    assert page.locator("#board svg line.watch-arrow").count() == 1

    page.keyboard.press("?")
    assert page.locator("#keys").is_visible() and "Ctrl+Z" in page.inner_text("#keys")
    page.keyboard.press("?")
    assert not page.locator("#keys").is_visible()
    page.keyboard.press("Escape")  # stop watching: the level in play again
    assert page.inner_text("#step-at") == ""
    page.keyboard.press("h")
    page.wait_for_selector("#board svg line.hint-arrow", state="attached")
    assert page.inner_text("#hint-move").startswith("Hint: move ")
    page.locator("#board .hint-from").first.click()
    page.locator("#board .hint-to").first.click()
    page.wait_for_function("() => document.querySelector('#moves-made').textContent.startsWith('1 move')")
    page.keyboard.press("u")
    page.wait_for_function("() => document.querySelector('#moves-made').textContent.startsWith('0 moves')")
    page.keyboard.press("h")
    assert page.locator("#board svg line.hint-arrow").count() == 0


def test_an_empty_board_is_not_played(page, fling):
    open_editor(page, 0, "layers")
    page.click("#edit-empty")
    settled(page)
    page.click("#edit-play")
    page.wait_for_function("() => document.querySelector('#message').textContent"
                           ".startsWith('The board is empty')")
    assert page.locator("#editor").is_visible()


def test_a_typed_drawing_keeps_the_spaces_that_place_its_first_row(page, triangle):
    level = triangle.select(unique=True, pieces=4, limit=1)[0]
    assert level.board[0].startswith("    ")  # the triangle's apex, drawn where it stands
    open_editor(page, 2, "layers")
    page.fill("#edit-drawing [name=board]", "/".join(level.board))
    page.click("#edit-drawing button[type=submit]")
    page.wait_for_function("() => document.querySelectorAll('#editor-board .piece').length === 4")
    page.wait_for_function("() => (document.querySelector(\"#analysis dd[data-figure='solutions']\") || {})"
                           ".textContent === '1'")


def test_draw_klotski_from_an_empty_board(page, klotski):
    open_editor(page, 1, "sliding")
    page.click("#edit-empty")
    settled(page)
    assert page.inner_text("#legal").startswith("Not a legal position here: ")
    index = klotski.puzzle.board.index
    for letter, anchors in KLOTSKI.items():
        page.click(f"#palette .tool[data-tool='{letter}']")
        for anchor in anchors:
            page.locator(f"#editor-board .board [data-cell='{index[anchor]}']").click()
            settled(page)
    assert page.locator("#editor-board .piece").count() == 4 + 4 * 2 + 2 + 4  # cells of S, V, H, N
    start = klotski.solve(klotski.puzzle.start)
    assert figure(page, "distance") == str(start.distance) == "81"
    assert figure(page, "connected set") == f"{start.cluster:,}"

    page.select_option("#want", "solvable")
    settled(page)
    expected = klotski.variation(klotski.puzzle.start, "solvable", limit=12)
    items = page.locator("#variant-list li")
    assert items.count() == len(expected.variants) > 0
    assert [items.nth(i).get_attribute("data-edit") for i in range(items.count())] == [
        v.edit.text for v in expected.variants]

    # Drag the N at 3,1 down one cell, then take it back with the key.
    source = page.locator(f"#editor-board .piece[data-cell='{index[(3, 1)]}']").bounding_box()
    target = page.locator(f"#editor-board .board [data-cell='{index[(4, 1)]}']").bounding_box()
    page.mouse.move(source["x"] + source["width"] / 2, source["y"] + source["height"] / 2)
    page.mouse.down()
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2, steps=4)
    page.mouse.up()
    settled(page)
    moved = klotski.solve("VSSV/VSSV/VHHV/V.NV/NN.N")
    assert figure(page, "distance") == str(moved.distance)
    page.keyboard.press("u")
    settled(page)
    assert figure(page, "distance") == "81"

    items.first.locator("button.take").click()
    settled(page)
    taken = expected.variants[0].item
    assert figure(page, "distance") == str(taken.distance)
    page.click("#edit-play")
    page.wait_for_selector("#board svg .piece")
    page.click("#watch")
    page.wait_for_selector("#board svg line.watch-arrow", state="attached")
    assert page.inner_text("#step-at").startswith(f"step 0 of {taken.distance}")
    for step in (1, 2):
        page.keyboard.press("ArrowRight")
        at_step(page, step)
    assert taken.solution[2] in page.inner_text("#step-at")
    page.keyboard.press("ArrowLeft")
    at_step(page, 1)

    page.keyboard.press("Escape")
    page.evaluate("window.hints = 0; document.addEventListener('curator:play', "
                  "e => { if (e.detail.event === 'hint') window.hints += 1; })")
    page.check("#spoiler-free")
    assert not page.locator("#distance-now").is_visible()
    page.keyboard.press("h")  # the ticked box does not keep the keys
    page.wait_for_selector("#board svg line.hint-arrow", state="attached")
    closer = next(m for m in klotski.moves(taken.position) if m.closer)
    assert page.inner_text("#hint-move") == f"Hint: {closer.text}"
    assert page.locator("#distance-now").is_visible()  # a hint shows the figures
    assert page.evaluate("window.hints") == 1  # and goes into the playtest's record
    page.keyboard.press("h")
    assert not page.locator("#distance-now").is_visible()
    page.click("#reveal")
    assert page.locator("#distance-now").is_visible()
    page.keyboard.press("h")
    page.wait_for_selector("#board svg line.hint-arrow", state="attached")
    page.locator("#move-list button").first.click()
    page.wait_for_function("() => document.querySelector('#moves-made').textContent.startsWith('1 move')")
    page.keyboard.press("r")
    page.wait_for_function("() => document.querySelector('#moves-made').textContent.startsWith('0 moves')")

    page.click(".tab[data-tab=editor]")
    page.keyboard.press("r")  # the drawing as it was started: an empty board
    settled(page)
    assert page.locator("#editor-board .piece").count() == 0
    assert page.inner_text("#legal").startswith("Not a legal position here: ")


def at_editor_step(page, step: int) -> None:
    """Wait until the editor says it shows step `step` of the solution stepped through."""
    page.wait_for_function(
        f"() => document.querySelector('#edit-step-at').textContent.startsWith('step {step} ')")


def cell_of_piece(page, piece: int) -> str:
    return page.locator(f"#editor-board .piece[data-piece='{piece}']").get_attribute("data-cell")


def test_edit_an_eight_puzzle_state_take_a_variant_and_step_through_its_solution(eight_page, eight):
    page = eight_page
    # A distance table has no levels to list, play or pack: only its tables and the editor.
    assert [tab.get_attribute("data-tab") for tab in page.locator(".tab").all() if tab.is_visible()] == [
        "layers", "editor"]
    open_editor(page, 0, "distance")
    settled(page)
    assert page.inner_text("#legal") == "Legal: the solved state."
    assert figure(page, "distance") == "0"
    assert page.locator("#editor-board .piece").count() == 8  # the blank's tile stays empty

    # Swap the blank (on position 8) with the tile above it by two clicks (the blank's empty
    # tile, then the tile): one move away.
    page.locator("#editor-board .board [data-cell='8']").click()
    page.locator("#editor-board .piece[data-cell='5']").click()
    settled(page)
    assert figure(page, "distance") == "1" and figure(page, "solution") == "down"
    assert page.inner_text("#legal") == "Legal: solvable in 1 move."
    assert not page.locator("#edit-play").is_visible() and not page.locator("#edit-from-play").is_visible()
    assert page.input_value("#edit-drawing [name=board]") == "tiles 0 1 2 3 4 8 6 7 5"
    assert cell_of_piece(page, 5) == "8" and page.locator("#editor-board .piece[data-cell='5']").count() == 0

    # Two tiles swapped: the odd half of the arrangements, which the moves never reach; two
    # more swapped, and it is solvable again.
    page.locator("#editor-board .piece[data-cell='0']").click()
    page.locator("#editor-board .piece[data-cell='1']").click()
    settled(page)
    assert page.inner_text("#legal").startswith("Legal, but not solvable")
    assert figure(page, "distance") == "not solvable"
    page.locator("#editor-board .piece[data-cell='3']").click()
    page.locator("#editor-board .piece[data-cell='4']").click()
    settled(page)
    swapped = eight.solve(eight.puzzle.parse("tiles 1 0 2 4 3 8 6 7 5"))
    assert swapped.distance is not None and figure(page, "distance") == str(swapped.distance)
    assert page.inner_text("#legal") == f"Legal: solvable in {swapped.distance} moves."
    assert figure(page, "solution") == " ".join(swapped.solution)

    # A typed state that is no state says why; undo takes it back.
    page.fill("#edit-drawing [name=board]", "tiles 0 1 2 3 4 5 6 7 7")
    page.click("#edit-drawing button[type=submit]")
    settled(page)
    assert page.inner_text("#legal") == ("Not a legal position here: board: not a state of eight-puzzle "
                                         "(duplicate item 7)")
    page.keyboard.press("u")
    settled(page)
    assert figure(page, "distance") == str(swapped.distance)

    page.select_option("#want", "harder")
    settled(page)
    expected = eight.variation(swapped.state, "harder", limit=12)
    items = page.locator("#variant-list li")
    assert items.count() == len(expected.variants) > 0
    assert [items.nth(i).get_attribute("data-edit") for i in range(items.count())] == [
        v.edit.text for v in expected.variants]
    items.first.locator("button.take").click()
    settled(page)
    taken = expected.variants[0].item
    assert figure(page, "distance") == str(taken.distance) and taken.distance > swapped.distance

    page.click("#edit-watch")
    assert page.inner_text("#edit-step-at") == f"step 0 of {taken.distance}; next: {taken.solution[0]}"
    state = taken.state
    for step in range(1, taken.distance + 1):
        state = eight.puzzle.apply(state, taken.solution[step - 1])
        page.keyboard.press("ArrowRight")
        at_editor_step(page, step)
        blank = state[0][0].index(8)
        assert page.locator(f"#editor-board .piece[data-cell='{blank}']").count() == 0
    assert page.inner_text("#edit-step-at").endswith(": solved")
    assert page.locator("#editor-board .board [fill='#c8e6c0']").count() == 8  # every tile home
    page.keyboard.press("ArrowLeft")
    at_editor_step(page, taken.distance - 1)
    page.keyboard.press("w")  # stop: the state edited again
    assert page.inner_text("#edit-step-at") == ""
    assert figure(page, "distance") == str(taken.distance)
    assert page.locator("#editor-board .board [fill='#c8e6c0']").count() < 8
