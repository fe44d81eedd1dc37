"""What the workspace keeps, end to end: `curator serve --db` in its own process, driven in
headless Chromium by Playwright (Debian's chromium; skipped when none is installed).

Build two named packs and a note, drag a level to another place, stop the server and start
another on the same database: the packs, their order and the note are there. Play a level
to the goal by the hint, then give up on it once: the Levels tab shows its playtest figures,
and orders the levels by them; the sort chooses by any metric.
"""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

import pytest

import curator
from tests.served import served_context, start, stop

ROOT = Path(__file__).resolve().parent.parent
MOVES_MADE = "n => document.querySelector('#moves-made').textContent.startsWith(n + ' move')"

pytestmark = pytest.mark.browser


def get(url: str):
    with urllib.request.urlopen(url, timeout=10) as answer:
        return json.load(answer)


@pytest.fixture(scope="module")
def triangle(tmp_path_factory):
    output = tmp_path_factory.mktemp("studio") / "triangle"
    return curator.analyze(ROOT / "puzzles" / "triangle.toml", output=output, max_pieces=7, workers=1)


@pytest.fixture
def open_page(browser):
    """A function opening a URL in a new page; no script errors allowed on any of them."""
    contexts, errors = [], []

    def opened(url: str):
        context = served_context(browser, viewport={"width": 1200, "height": 900})
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda message: message.type == "error" and errors.append(message.text))
        page.goto(url)
        page.wait_for_selector("#layer-table tbody tr")
        return page

    yield opened
    for context in contexts:
        context.close()
    assert errors == []


def find_levels(page, **fields) -> None:
    page.click(".tab[data-tab=levels]")
    for name, value in fields.items():
        selector = f"#filters [name={name}]"
        if page.locator(selector).evaluate("e => e.tagName") == "SELECT":
            page.select_option(selector, value)
        else:
            page.fill(selector, value)
    page.locator("#level-list").evaluate("e => e.replaceChildren()")
    page.click("#find")
    page.wait_for_selector("figure.level .playtests")


def new_pack(page, name: str) -> None:
    """Make a pack on the Pack tab, and wait until it is the one shown."""
    page.fill("#pack-name", name)
    page.click("#pack-new")
    page.wait_for_function("name => { const s = document.querySelector('#pack-select'); "
                           "return s.selectedOptions.length > 0 && "
                           "s.selectedOptions[0].text === `${name} (0 levels)`; }", arg=name)


def kept_levels(url: str, name: str, count: int) -> list[str]:
    """The levels of the pack called `name`, once the server keeps `count` of them."""
    deadline = time.monotonic() + 10
    while True:
        packs = {pack["name"]: pack for pack in get(f"{url}/api/packs")}
        if name in packs and len(packs[name]["levels"]) == count:
            return [item["level"] for item in packs[name]["levels"]]
        assert time.monotonic() < deadline, packs
        time.sleep(0.1)


def test_named_packs_and_notes_last_across_a_restart(triangle, open_page, tmp_path):
    db = tmp_path / "workspace.sqlite"
    process, url = start(triangle.directory, "--db", db)
    try:
        page = open_page(url)
        find_levels(page, solvable="true", pieces="4..6", sample="6", seed="3")
        cards = page.locator("figure.level")
        keys = [cards.nth(i).get_attribute("data-level") for i in range(6)]

        page.click(".tab[data-tab=pack]")
        new_pack(page, "starters")
        page.click(".tab[data-tab=levels]")
        for i in (0, 1):
            cards.nth(i).locator("button.add").click()
        assert kept_levels(url, "starters", 2) == keys[:2]

        page.click(".tab[data-tab=pack]")
        new_pack(page, "finale")
        assert page.locator("#pack-list li").count() == 0
        page.click(".tab[data-tab=levels]")
        for i in (2, 3, 4):
            cards.nth(i).locator("button.add").click()
        assert kept_levels(url, "finale", 3) == keys[2:5]
        page.click(".tab[data-tab=pack]")
        items = page.locator("#pack-list li")
        items.nth(2).drag_to(items.nth(0))  # the last level first
        page.wait_for_function("() => document.querySelector('#pack-saved').textContent.startsWith('kept')")
        deadline = time.monotonic() + 10
        while kept_levels(url, "finale", 3) != [keys[4], keys[2], keys[3]]:
            assert time.monotonic() < deadline
            time.sleep(0.1)

        page.click(".tab[data-tab=levels]")
        card = page.locator(f"figure.level[data-level='{keys[5]}']")
        card.locator("details.note summary").click()
        card.locator("details.note textarea").fill("a good first level")
        card.locator("details.note input").fill("intro, short")
        card.locator("button.save-note").click()
        page.wait_for_function("() => document.querySelector('#message').textContent === 'Note kept.'")
    finally:
        stop(process)

    process, url = start(triangle.directory, "--db", db)
    try:
        page = open_page(url)
        page.click(".tab[data-tab=pack]")
        page.wait_for_function("() => document.querySelectorAll('#pack-select option').length === 2")
        names = page.locator("#pack-select option").all_inner_texts()
        assert names == ["finale (3 levels)", "starters (2 levels)"]
        items = page.locator("#pack-list li")
        assert items.count() == 3 and page.inner_text("#pack-count") == "3"
        pictures = [items.nth(i).locator("img").get_attribute("src") for i in range(3)]
        assert [src.split("position=")[1] for src in pictures] == [keys[4], keys[2], keys[3]]
        page.select_option("#pack-select", label="starters (2 levels)")
        page.wait_for_function("() => document.querySelectorAll('#pack-list li').length === 2")

        page.fill("#pack-name", "openers")
        page.click("#pack-rename")
        page.wait_for_function("() => document.querySelector('#message').textContent.startsWith('Renamed')")
        assert [pack["name"] for pack in get(f"{url}/api/packs")] == ["finale", "openers"]

        find_levels(page, solvable="true", pieces="4..6", sample="6", seed="3")
        card = page.locator(f"figure.level[data-level='{keys[5]}']")
        assert card.locator("details.note summary").inner_text() == "#intro #short a good first level"
    finally:
        stop(process)


def test_a_played_level_shows_its_playtest_figures(triangle, open_page, tmp_path):
    process, url = start(triangle.directory, "--db", tmp_path / "workspace.sqlite")
    try:
        page = open_page(url)
        find_levels(page, solvable="true", pieces="4", sample="4", seed="1")
        cards = page.locator("figure.level")
        played = cards.nth(2).get_attribute("data-level")
        assert cards.nth(2).locator(".playtests").inner_text() == "no playtests yet"

        cards.nth(2).locator("button.play").click()
        page.wait_for_selector("#board svg")
        page.click("#hint")
        for move in (1, 2, 3):
            page.locator("#board .hint-from").first.click()
            page.locator("#board .hint-to").first.click()
            page.wait_for_function(MOVES_MADE, arg=move)
        assert page.locator("#solved").is_visible()

        page.click(".tab[data-tab=levels]")
        figures = page.locator(f"figure.level[data-level='{played}'] .playtests")
        page.wait_for_function("key => document.querySelector(`figure.level[data-level='${key}'] .playtests`)"
                               ".dataset.plays === '1'", arg=played)
        assert figures.inner_text().startswith("1 play, median ")
        assert figures.inner_text().endswith(" s to solve, 0% given up")

        page.locator(f"figure.level[data-level='{played}'] button.play").click()
        page.wait_for_selector("#board svg")
        page.locator("#board .hint-from").first.click()
        page.locator("#board .hint-to").first.click()
        page.wait_for_function(MOVES_MADE, arg=1)
        page.click("#give-up")
        page.wait_for_function(MOVES_MADE, arg=0)
        page.click(".tab[data-tab=levels]")
        page.wait_for_function("key => document.querySelector(`figure.level[data-level='${key}'] .playtests`)"
                               ".dataset.plays === '2'", arg=played)
        assert figures.inner_text().endswith(" s to solve, 50% given up")

        (level,) = get(f"{url}/api/folders/0/playtests")["levels"]
        assert (level["level"], level["plays"], level["solved"], level["gave_up"]) == (played, 2, 1, 1)
        assert level["median_moves"] == 3 and level["mean_hints"] == 0.5

        page.select_option("#order", "plays:desc")
        assert cards.first.get_attribute("data-level") == played
        page.select_option("#order", "")
        assert cards.nth(2).get_attribute("data-level") == played

        expected = triangle.select(solvable=True, pieces=(4, 5), sample=8, seed=2, sort="search:desc")
        find_levels(page, solvable="true", pieces="4..5", sample="8", seed="2", sort="search:desc")
        assert [int(cards.nth(i).get_attribute("data-rank")) for i in range(cards.count())] == [
            level.rank for level in expected]
        page.select_option("#order", "win_chance")
        chances = [next(level.win_chance for level in expected if level.rank == int(rank))
                   for rank in (cards.nth(i).get_attribute("data-rank") for i in range(cards.count()))]
        assert chances == sorted(chances)
    finally:
        stop(process)


def test_a_play_finished_while_another_program_locks_the_database_is_sent_again(triangle, browser, tmp_path):
    import sqlite3

    database = tmp_path / "workspace.sqlite"
    process, url = start(triangle.directory, "--db", database)
    context = served_context(browser, viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(url)
        page.wait_for_selector("#layer-table tbody tr")
        find_levels(page, solvable="true", pieces="2", sample="1", seed="1")
        page.locator("figure.level button.play").first.click()
        page.wait_for_selector("#board svg")
        page.click("#hint")
        other = sqlite3.connect(database, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # held past the server's wait for it
        page.locator("#board .hint-from").first.click()
        page.locator("#board .hint-to").first.click()
        page.wait_for_function("() => document.querySelector('#message').textContent"
                               ".includes('locked by another program')")
        assert "the play is sent again in 2 s" in page.locator("#message").inner_text()
        assert get(f"{url}/api/folders/0/playtests")["levels"] == []
        other.execute("ROLLBACK")
        other.close()
        deadline = time.monotonic() + 20
        while not get(f"{url}/api/folders/0/playtests")["levels"]:
            assert time.monotonic() < deadline, "the play was not sent again"
            time.sleep(0.2)
        (level,) = get(f"{url}/api/folders/0/playtests")["levels"]
        assert (level["plays"], level["solved"]) == (1, 1)
        assert errors == []
    finally:
        context.close()
        stop(process)
        assert "Traceback" not in process.stderr.read()
