"""The playable page (`export --format play`) end to end: written from stored results, opened
from disk in headless Chromium by Playwright (Debian's chromium; skipped when none is
installed), played to the end by the hint alone, with undo and reset.

A layered puzzle (the triangle, swept up to 6 pieces) and a sliding-block one (Klotski). The
page must fetch nothing: every request but the file itself fails the test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import curator

ROOT = Path(__file__).resolve().parent.parent
MOVES_MADE = ("n => document.querySelector('#moves-made').textContent === "
              "`${n} move${n === 1 ? '' : 's'} played`")
"""Waits until the page says n moves were played."""

pytestmark = pytest.mark.browser


def open_page(browser, path: Path):
    """The page at `path`, with a list that collects script errors and requests elsewhere."""
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    url = path.resolve().as_uri()
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.on("console", lambda message: message.type == "error" and problems.append(message.text))
    page.on("request", lambda request: request.url != url and problems.append(f"request {request.url}"))
    page.goto(url)
    return context, page, problems


def self_contained(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for pattern in (r"<link", r"<img", r"\bsrc\s*=", r"\bhref\s*=", r"url\(", r"@import", r"fetch\(",
                    r"XMLHttpRequest", r"https?://(?!www\.w3\.org/2000/svg)"):
        assert not re.search(pattern, text, re.IGNORECASE), pattern


def play_by_hints(page, moves: int, before_each) -> None:
    """Play `moves` moves, each the hint's: the hinted piece, then the hinted place."""
    for move in range(1, moves + 1):
        before_each(move)
        page.click("#hint")
        page.locator("#board .hint-from").first.click()
        page.locator("#board .hint-to").first.click()
        page.wait_for_function(MOVES_MADE, arg=move)


@pytest.fixture(scope="module")
def triangle(tmp_path_factory):
    output = tmp_path_factory.mktemp("play") / "triangle"
    return curator.analyze(ROOT / "puzzles" / "triangle.toml", output=output, max_pieces=6, workers=1)


@pytest.fixture(scope="module")
def klotski(tmp_path_factory):
    output = tmp_path_factory.mktemp("play") / "klotski"
    return curator.analyze(ROOT / "puzzles" / "klotski.toml", output=output, workers=1)


def test_layered_levels_play_to_the_goal_by_hints(browser, triangle, tmp_path):
    levels = triangle.select(solvable=True, pieces=(5, 6), sample=3, seed=2, sort="difficulty:desc")
    (path,) = triangle.export(levels, tmp_path / "play.html", "play")
    self_contained(path)
    context, page, problems = open_page(browser, path)
    try:
        assert page.locator("#level option").count() == 3
        first = levels[0]
        assert page.inner_text("#level-title").endswith(f"level 1 ({first.pieces} pieces)")
        assert page.locator("#board circle.piece").count() == first.pieces
        assert page.locator("#undo").is_disabled()

        def still_solvable(move):
            assert page.inner_text("#status").startswith("Still solvable"), move
            assert not page.locator("#solved").is_visible()

        play_by_hints(page, first.pieces - 1, still_solvable)
        assert page.locator("#solved").is_visible()
        assert page.inner_text("#solved") == f"Solved in {first.pieces - 1} moves!"
        assert page.inner_text("#status") == "Solved: the goal is reached."
        assert page.locator("#board circle.piece").count() == 1
        assert page.locator("#hint").is_disabled()

        page.click("#undo")
        assert not page.locator("#solved").is_visible()
        page.wait_for_function(MOVES_MADE, arg=first.pieces - 2)
        assert page.locator("#board circle.piece").count() == 2

        page.click("#reset")
        page.wait_for_function(MOVES_MADE, arg=0)
        assert page.locator("#board circle.piece").count() == first.pieces

        page.click("#next")
        assert page.inner_text("#level-title").endswith(f"level 2 ({levels[1].pieces} pieces)")
        assert page.locator("#board circle.piece").count() == levels[1].pieces
    finally:
        context.close()
    assert problems == []


def test_a_move_that_loses_says_so(browser, triangle, tmp_path):
    level = next(lv for lv in triangle.select(solvable=True, pieces=6, sample=40, seed=1)
                 if lv.safe_moves < lv.legal_moves)
    (path,) = triangle.export([level], tmp_path / "play.html", "play")
    outcome = next(o for o in triangle.moves(level.position) if not o.solvable)
    context, page, problems = open_page(browser, path)
    try:
        source, target = (triangle.puzzle.board.cells.index(cell) for cell in outcome.move)
        page.locator(f"#board circle.piece[data-cell='{source}']").click()
        page.locator(f"#board .target[data-cell='{target}']").click()
        page.wait_for_function(MOVES_MADE, arg=1)
        assert page.inner_text("#status").startswith(("No way to the goal", "No moves left"))
        assert page.locator("#hint").is_disabled()
        page.click("#undo")
        assert page.inner_text("#status").startswith("Still solvable")
    finally:
        context.close()
    assert problems == []


def test_sliding_levels_play_to_the_goal_by_hints(browser, klotski, tmp_path):
    levels = klotski.select(hardest=True, cluster=(1, 3000), limit=2)
    (path,) = klotski.export(levels, tmp_path / "play.html", "play")
    self_contained(path)
    context, page, problems = open_page(browser, path)
    try:
        first = levels[0]
        assert page.inner_text("#level-title").endswith(f"level 1 (distance {first.distance})")
        assert page.locator("#board .piece").count() == sum(g.count for g in klotski.puzzle.groups)

        def closer(move):
            away = first.distance - move + 1
            assert page.inner_text("#status") == (
                f"Still solvable: the goal is {away} move{'' if away == 1 else 's'} away at best.")

        # A block picked by hand shows its moves as buttons; one played, then taken back.
        movable = {o.source for o in klotski.moves(first.position)}
        index = klotski.puzzle.board.index
        anchor = index[sorted(movable)[0]]
        page.locator(f"#board .piece[data-cell='{anchor}']").click()
        buttons = page.locator("#move-list button")
        assert buttons.count() == sum(1 for o in klotski.moves(first.position) if index[o.source] == anchor)
        buttons.first.click()
        page.wait_for_function(MOVES_MADE, arg=1)
        page.click("#undo")
        page.wait_for_function(MOVES_MADE, arg=0)

        play_by_hints(page, first.distance, closer)
        assert page.inner_text("#solved") == f"Solved in {first.distance} moves!"
        page.click("#undo")
        assert not page.locator("#solved").is_visible()
        closer(first.distance)
    finally:
        context.close()
    assert problems == []
