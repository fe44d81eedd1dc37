"""Sliding-block tables on boards of more than 64 cells: four-word masks against the plain
reference on boards of 65 to 100 cells, and the wide code forced onto small boards giving the
one-word tables bit for bit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import curator
from curator.common import ranking
from curator.sliding.puzzle import METRICS, parse_sliding_puzzle
from curator.sliding.tables import build_kernel
from curator.sliding.wide import rank, unrank
from tests import sliding_reference as ref
from tests.test_sliding import (
    SLIDES,
    SPECS,
    TILT_SPECS,
    check_against_reference,
    check_count_range,
    swept,
    tilt_toml,
    toml_text,
)


def _grid(rows: int, cols: int, walls=()) -> frozenset:
    return frozenset((r, c) for r in range(rows) for c in range(cols)) - set(walls)


WIDE_SPECS = {
    # A robot and a helper on 9 x 9 (81 cells) with walls in the middle.
    "robots-9x9": ref.Spec(
        cells=_grid(9, 9, [(4, 4), (2, 6), (6, 1)]),
        shapes={"R": (((0, 0),), "any"), "H": (((0, 0),), "any")},
        counts={("R", None): 1, ("H", None): 1}, move="until_blocked", metric="line", goal_letter="R",
        goal_cells=frozenset({(4, 5)})),
    # A bar and a square on 10 x 10 (100 cells): masks of two words for the pieces, cells in the last word.
    "bar-10x10": ref.Spec(
        cells=_grid(10, 10), shapes={"A": (((0, 0), (0, 1)), "any"), "B": (((0, 0),), "any")},
        counts={("A", None): 1, ("B", None): 1}, move="line", metric="line", goal_letter="A",
        goal_cells=frozenset({(9, 8), (9, 9)})),
    # A car keeping its row and a free square on 5 x 13 (65 cells), one cell past one word.
    "car-5x13": ref.Spec(
        cells=_grid(5, 13), shapes={"X": (((0, 0), (0, 1)), "row"), "B": (((0, 0), (1, 0)), "any")},
        counts={("X", 2): 1, ("B", None): 1}, move="step", metric="step", goal_letter="X",
        goal_cells=frozenset({(2, 11), (2, 12)})),
}


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=[pytest.mark.slow] if name == "bar-10x10" else []) for name in WIDE_SPECS
])  # bar-10x10: 7 s; robots on 9 x 9 and a car on 5 x 13, also two words of cells, cover it
def test_wide_boards_match_brute_force(name):
    spec = WIDE_SPECS[name]
    puzzle = parse_sliding_puzzle(toml_text(spec, spec.move, spec.metric))
    assert puzzle.board.size > ranking.WORD_CELLS and build_kernel(puzzle).words == 4
    truth = check_against_reference(puzzle, spec)
    # Not trivial: some positions have one shortest solution, some several, and some are far.
    assert {1, 2} <= {min(n, 2) for n in truth.solutions.values()} and max(truth.distance.values()) >= 3


@pytest.mark.parametrize("move", ["step", pytest.param("until_blocked", marks=pytest.mark.slow)])
def test_a_count_range_on_the_wide_code_covers_each_count_as_its_own_puzzle(move, monkeypatch):
    monkeypatch.setattr(ranking, "_forced_words", 2)
    check_count_range(move)


def test_a_wide_robot_board_that_would_fly_off_matches_brute_force():
    spec = ref.Spec(**{**WIDE_SPECS["robots-9x9"].__dict__, "edge": "falls", "metric": "step"})
    check_against_reference(parse_sliding_puzzle(toml_text(spec, "until_blocked", "step")), spec)


def test_a_wide_tilt_board_matches_brute_force():
    spec = ref.Spec(
        cells=_grid(7, 10, [(3, 3), (1, 7)]), shapes={"G": (((0, 0),), "any"), "B": (((0, 0),), "any")},
        counts={("G", None): 1, ("B", None): 1}, move="tilt", metric="line", goal_letter="",
        goal_cells=frozenset(), exits=frozenset({(3, 6)}), out=("G",), keep=("B",))
    puzzle = parse_sliding_puzzle(tilt_toml(spec))
    assert puzzle.board.size == 68
    check_against_reference(puzzle, spec)


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(sorted(WIDE_SPECS)), data=st.data())
def test_wide_compiled_ranks_match_python(name, data):
    spec = WIDE_SPECS[name]
    puzzle = parse_sliding_puzzle(toml_text(spec, spec.move, spec.metric))
    k = build_kernel(puzzle)
    pos = np.zeros(k.first[-1], dtype=np.int64)
    r = data.draw(st.integers(0, puzzle.size - 1))
    expected = puzzle.unrank(r)
    assert (unrank(k, r, pos) != 0) == (expected is not None)
    if expected is not None:
        assert tuple(pos) == tuple(a for group in expected for a in group)
        assert rank(k, pos) == r == puzzle.rank(expected)


def _forced_pairs():
    for name in SPECS:
        for move in SLIDES:
            for metric in METRICS:
                yield name, move, metric


@pytest.mark.parametrize(("name", "move", "metric"), list(_forced_pairs()))
def test_the_wide_code_gives_the_one_word_tables(name, move, metric, monkeypatch):
    text = toml_text(ref.Spec(**{**SPECS[name].__dict__, "move": move, "metric": metric}), move, metric)
    narrow = swept(parse_sliding_puzzle(text))
    monkeypatch.setattr(ranking, "_forced_words", 2)
    puzzle = parse_sliding_puzzle(text)
    assert build_kernel(puzzle).words == 4
    for one, four in zip(narrow, swept(puzzle), strict=True):
        assert np.array_equal(one, four)


@pytest.mark.parametrize("name", TILT_SPECS)
def test_the_wide_tilt_code_gives_the_one_word_tables(name, monkeypatch):
    text = tilt_toml(TILT_SPECS[name])
    narrow = swept(parse_sliding_puzzle(text))
    monkeypatch.setattr(ranking, "_forced_words", 2)
    for one, four in zip(narrow, swept(parse_sliding_puzzle(text)), strict=True):
        assert np.array_equal(one, four)


def test_the_wide_path_writes_the_one_word_files(tmp_path, monkeypatch):
    path = "puzzles/tilt.toml"
    narrow = curator.analyze(path, tmp_path / "narrow")
    monkeypatch.setattr(ranking, "_forced_words", 2)
    wide = curator.analyze(path, tmp_path / "wide")
    assert build_kernel(wide.puzzle).words == 4
    for name in ("distances.u16", "flags.u8", "clusters.u32"):
        assert (tmp_path / "narrow" / name).read_bytes() == (tmp_path / "wide" / name).read_bytes(), name
    start = narrow.puzzle.draw(narrow.puzzle.start)
    assert wide.solve(start).solution == narrow.solve(start).solution
    assert not wide.verify().problems


# -- every command's path on a wide board with a range of helpers --------------------------------

SMALL_RICOCHET = '''name = "small-ricochet"
[board]
art = """
....#....
.........
.h.......
......#..
.........
.#..##...
.........
.....#...
...R...h.
"""
[rules]
family = "slide"
move = "until_blocked"
[pieces.R]
[pieces.h]
count = "0..2"
[goal]
piece = "R"
cells = [[4, 4]]
'''


@pytest.fixture(scope="module")
def ricochet(tmp_path_factory):
    directory = tmp_path_factory.mktemp("ricochet")
    (directory / "small-ricochet.toml").write_text(SMALL_RICOCHET)
    return curator.analyze(directory / "small-ricochet.toml", directory / "out")


def test_a_wide_board_selects_solves_and_verifies(ricochet):
    puzzle = ricochet.puzzle
    assert puzzle.board.size == 75 and [s.counts for s in puzzle.sections] == [(1, 2), (1, 1), (1, 0)]
    assert not ricochet.verify().problems
    start = ricochet.solve(puzzle.draw(puzzle.start))
    assert start.distance == len(start.solution) > 0
    hardest = ricochet.select(hardest=True, unique=True, limit=5)
    assert hardest and all(level.unique and level.distance for level in hardest)
    # Positions with fewer helpers are levels of their own.
    assert [g.letter for g in puzzle.groups] == ["R", "h"]
    alone = ricochet.solve((puzzle.start[0], ()))
    assert alone.position == (puzzle.start[0], ()) and alone.cluster <= 75 < start.cluster


def test_a_wide_board_exports_packs_and_is_served(ricochet, tmp_path):
    from fastapi.testclient import TestClient

    from curator.web.app import create_app

    levels = ricochet.select(unique=True, distance=(3, 99), sample=3, seed=3)
    for fmt in ("json", "csv", "svg", "ldtk", "tiled"):  # (a robot level reaches too many positions to play)
        assert ricochet.export(levels, tmp_path / fmt, format=fmt)
    assert len(ricochet.pack(3, pool=100).levels) == 3
    client = TestClient(create_app([ricochet.directory]), base_url="http://127.0.0.1:8000")
    pieces = client.get("/api/folders/0").json()["blocks"]["pieces"]
    assert [(p["letter"], p["fewest"], p["count"]) for p in pieces] == [("R", None, 1), ("h", 0, 2)]
    found = client.get("/api/folders/0/sliding/levels", params={"hardest": "true", "limit": 2})
    assert found.status_code == 200 and found.json()["levels"], found.text
    board = ricochet.puzzle.draw(ricochet.puzzle.start)
    report = client.post("/api/folders/0/sliding/position", json={"board": board})
    assert report.status_code == 200 and report.json()["distance"] == ricochet.solve(board).distance


@pytest.mark.slow
def test_the_bundled_ricochet_start_needs_8_moves(tmp_path):
    # Its two helpers' positions alone (6.7 million ranks): moves never change the number of
    # helpers, so they are the bundled file's two-helper section.
    text = (Path(__file__).resolve().parent.parent / "puzzles" / "ricochet.toml").read_text()
    path = tmp_path / "ricochet.toml"
    path.write_text(text.replace('count = "0..3"', 'count = "2..2"'))
    results = curator.analyze(path, tmp_path / "out")
    start = results.solve(results.puzzle.draw(results.puzzle.start))
    assert (start.distance, start.unique) == (8, True)
    assert results.select(hardest=True, unique=True)[0].distance == 8


def test_the_wide_code_measures_levels_as_the_one_word_code(tmp_path, monkeypatch):
    text = (Path(curator.__file__).parents[1] / "puzzles" / "lunar-lockout.toml").read_text()
    text = text.replace("....h\n..h..\n.h...\n", ".....\n..h..\n.....\n")  # two helpers
    (tmp_path / "lunar.toml").write_text(text)
    one = curator.analyze(tmp_path / "lunar.toml", tmp_path / "one")
    assert build_kernel(one.puzzle).words == 1
    monkeypatch.setattr(ranking, "_forced_words", 2)
    wide = curator.analyze(tmp_path / "lunar.toml", tmp_path / "wide")
    assert build_kernel(wide.puzzle).words == 4
    ranks = np.flatnonzero((one.distances > 0) & (one.distances < 0xFFFE))[::13]
    assert len(ranks) > 10
    assert np.array_equal(wide.measures(ranks), one.measures(ranks))
    assert [level.difficulty_terms for level in wide.select(hardest=True, limit=3)] == [
        level.difficulty_terms for level in one.select(hardest=True, limit=3)]
