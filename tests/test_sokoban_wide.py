"""Sokoban tables of rooms of more than 64 floor cells: the four-word code against the plain
reference on rooms of 65 to 100 floor cells, its ranks against the Python ones on a room of
more than 192, a whole run (select, solve, verify, export) on one of more than 128, and the
four-word code forced onto small rooms giving the one-word tables bit for bit."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import curator
from curator.common import ranking
from curator.sokoban import sweep
from curator.sokoban.puzzle import METRICS, parse_sokoban_puzzle
from curator.sokoban.tables import build_kernel, room
from curator.sokoban.wide import normal_rank, rank, unrank
from tests.engine_readers import FLOOR, GOAL, read_ldtk, read_tiled
from tests.sokoban_reference import Reference
from tests.test_sokoban import ROOMS, check_against_reference, toml_text

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = ("sokoban", "sokoban-hall")


def hall(rows: int, cols: int, marks: dict, walls=()) -> str:
    """The XSB of a room of rows x cols floor cells, less `walls`, inside walls; `marks` draws
    the keeper, boxes and goals ({(row, col): sign}, in the floor's frame)."""
    def sign(r: int, c: int) -> str:
        return "#" if (r, c) in walls else marks.get((r, c), " ")

    inside = ["#" + "".join(sign(r, c) for c in range(cols)) + "#" for r in range(rows)]
    return "\n".join(["#" * (cols + 2), *inside, "#" * (cols + 2)])


WIDE_ROOMS = {
    # One box in a 10 x 10 hall with a pillar: 99 floor cells, the last 35 past the first word.
    "one-box": hall(10, 10, {(0, 0): "@", (2, 2): "$", (7, 7): "."}, walls={(4, 5)}),
    # Two boxes in a 6 x 11 hall with a pillar: 65 floor cells, one past the first word.
    "two-boxes": hall(6, 11, {(0, 0): "@", (1, 2): "$", (3, 2): "$", (3, 8): ".", (4, 4): "."},
                      walls={(1, 8)}),
}
LARGE = hall(14, 15, {(0, 0): "@", (3, 4): "$", (9, 10): "$", (12, 3): "$", (1, 1): ".", (6, 6): ".",
                      (13, 14): "."}, walls={(5, 5), (7, 11), (10, 2)})
"""207 floor cells and three boxes: masks reaching the fourth word (too many ranks to sweep)."""
WIDE_HALL = hall(12, 14, {(0, 0): "@", (5, 6): "$", (10, 12): ".", (2, 11): "."},
                 walls={(3, 3), (7, 9), (8, 2)})
"""165 floor cells and one box, the room of a whole run."""


def tables(puzzle) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distances, flags and clusters of a puzzle, swept in memory."""
    k = build_kernel(puzzle)
    distances, flags, solved = sweep.start(k, puzzle.size)
    for _ in sweep.expand(k, distances, flags, 0, solved):
        pass
    return distances, flags, sweep.finish(k, distances, flags)


# -- the four-word code forced onto small rooms -------------------------------------------------


def _small_rooms():
    for name, xsb in ROOMS.items():
        for metric in METRICS:
            yield pytest.param(toml_text(xsb, metric), id=f"{name}-{metric}")
    for name in BUNDLED:
        text = (ROOT / "puzzles" / f"{name}.toml").read_text()
        for metric in METRICS:
            changed = re.sub(r'(?m)^metric = ".*"$', f'metric = "{metric}"', text)
            # The hall by moves (3.3 million ranks, swept twice) is slow; the hall by pushes
            # and the other rooms by moves cover it.
            slow = [pytest.mark.slow] if (name, metric) == ("sokoban-hall", "moves") else []
            yield pytest.param(changed, id=f"{name}-{metric}", marks=slow)


@pytest.mark.parametrize("text", list(_small_rooms()))
def test_the_wide_code_gives_the_one_word_tables(text, monkeypatch):
    narrow = tables(parse_sokoban_puzzle(text))
    monkeypatch.setattr(ranking, "_forced_words", 2)
    puzzle = parse_sokoban_puzzle(text)
    assert build_kernel(puzzle).words == 4
    for one, four in zip(narrow, tables(puzzle), strict=True):
        assert np.array_equal(one, four)


def test_the_wide_path_writes_the_one_word_files(tmp_path, monkeypatch):
    path = ROOT / "puzzles" / "sokoban.toml"
    narrow = curator.analyze(path, tmp_path / "narrow", workers=1)
    monkeypatch.setattr(ranking, "_forced_words", 2)
    wide = curator.analyze(path, tmp_path / "wide", workers=1)
    assert build_kernel(wide.puzzle).words == 4
    for name in ("distances.u16", "flags.u8", "clusters.u32"):
        assert (tmp_path / "narrow" / name).read_bytes() == (tmp_path / "wide" / name).read_bytes(), name
    start = narrow.puzzle.draw(narrow.puzzle.start)
    assert wide.solve(start).solution == narrow.solve(start).solution
    assert not wide.verify().problems


# -- rooms of more than 64 floor cells -----------------------------------------------------------


class Remembered(Reference):
    """The reference with its positions and each position's children worked out once: the
    plain search below and `check_against_reference` ask for them three times over."""

    def __init__(self, xsb: str, metric: str) -> None:
        super().__init__(xsb, metric)
        self.found: dict = {}
        self.every: set | None = None

    def positions(self) -> set:
        if self.every is None:
            self.every = super().positions()
        return self.every

    def children(self, position: tuple) -> set:
        if position not in self.found:
            self.found[position] = super().children(position)
        return self.found[position]


def searched(ref: Reference):
    """`ref.search` of every position at once (a search from each would take too long here):
    distances breadth-first backwards from the solved positions over the reference's moves,
    then the shortest solutions counted nearest first."""
    children = {p: ref.children(p) for p in ref.positions()}
    parents: dict = {p: [] for p in children}
    for p, found in children.items():
        for child in found:
            parents[child].append(p)
    distance = {p: 0 for p in children if ref.solved(p)}
    layer = list(distance)
    while layer:
        following = []
        for child in layer:
            for p in parents[child]:
                if p not in distance:
                    distance[p] = distance[child] + 1
                    following.append(p)
        layer = following
    solutions = {}
    for p in sorted(distance, key=distance.__getitem__):
        solutions[p] = 1 if distance[p] == 0 else sum(
            solutions[c] for c in children[p] if distance.get(c) == distance[p] - 1)
    return lambda position: (distance.get(position), solutions.get(position, 0))


@pytest.mark.parametrize(("name", "metric"), [
    pytest.param(name, metric, marks=[pytest.mark.slow] if (name, metric) == ("two-boxes", "moves") else [])
    for name in WIDE_ROOMS for metric in METRICS  # two boxes by moves: 131,040 positions, 13 s;
])                                                 # two by pushes, and one box by moves, cover it
def test_wide_rooms_match_a_plain_search(name, metric):
    puzzle = parse_sokoban_puzzle(toml_text(WIDE_ROOMS[name], metric))
    assert 64 < puzzle.board.size <= 100 and build_kernel(puzzle).words == 4
    ref = Remembered(WIDE_ROOMS[name], metric)
    check_against_reference(puzzle, tables(puzzle), ref, searched(ref))


def words(cells) -> tuple:
    """The four-word mask of `cells` as the compiled code takes it (a tuple of four uint64)."""
    return tuple(ranking.to_words(sum(1 << c for c in cells), 4))


@settings(max_examples=60, deadline=None)
@given(metric=st.sampled_from(METRICS), data=st.data())
def test_wide_compiled_ranks_match_python(metric, data):
    puzzle = parse_sokoban_puzzle(toml_text(LARGE, metric))
    n, b = puzzle.board.size, puzzle.boxes
    assert n > 192 and b == 3
    k = build_kernel(puzzle)
    pos = room(k)[0]
    # A rank, position or not.
    r = data.draw(st.integers(0, puzzle.size - 1))
    expected = puzzle.unrank(r)
    assert (unrank(k, r, pos) != 0) == (expected is not None)
    if expected is not None:
        assert tuple(pos) == (*expected[0], expected[1])
        assert rank(k, words(expected[0]), expected[1]) == r == puzzle.rank(expected)
    # A position drawn anywhere, its keeper moved as the metric moves it.
    cells = data.draw(st.lists(st.integers(0, n - 1), min_size=b + 1, max_size=b + 1, unique=True))
    position = (tuple(sorted(cells[:b])), cells[b])
    r = puzzle.rank(position)
    assert normal_rank(k, words(position[0]), position[1]) == r
    assert unrank(k, r, pos) == 1 and tuple(pos) == (*position[0], puzzle.normal(position)[1])


# -- a whole run on a room of more than 128 floor cells ------------------------------------------


@pytest.fixture(scope="module")
def wide_hall(tmp_path_factory):
    folder = tmp_path_factory.mktemp("wide-hall")
    (folder / "hall.toml").write_text(toml_text(WIDE_HALL, "pushes"))
    return curator.analyze(folder / "hall.toml", folder / "out", workers=1)


def test_a_wide_room_selects_solves_and_verifies(wide_hall):
    puzzle = wide_hall.puzzle
    assert puzzle.board.size == 165 and build_kernel(puzzle).words == 4
    assert not wide_hall.verify().problems
    ref = Reference(WIDE_HALL, "pushes")
    start = wide_hall.solve(puzzle.draw(puzzle.start))
    assert start.distance == len(start.solution) == ref.search(ref.start())[0] > 0
    boxes, pushes = ref.replay("".join(start.solution))
    assert boxes <= ref.goals and pushes == start.distance
    hardest = wide_hall.select(hardest=True, unique=True, limit=5)
    assert hardest and all(level.unique and level.distance for level in hardest)
    # A box in the last corner (cell 164, in the third word) never moves again.
    far = ((puzzle.board.size - 1,), 0)
    assert wide_hall.solve(far).distance is None


def test_a_wide_room_exports(wide_hall, tmp_path):
    levels = wide_hall.select(distance=(5, 99), sample=3, seed=1)
    assert len(levels) == 3
    (pack,) = wide_hall.export(levels, tmp_path / "levels.json", format="json")
    assert len(json.loads(pack.read_text())["levels"]) == 3
    assert len(wide_hall.export(levels, tmp_path / "svg", format="svg")) == 3
    (project,) = wide_hall.export(levels, tmp_path / "levels.ldtk", format="ldtk")
    maps = wide_hall.export(levels, tmp_path / "maps", format="tiled")
    for found in (read_ldtk(project), read_tiled(maps[:-1])):
        assert len(found) == 3
        for level in found:
            assert sum(row.count(FLOOR) + row.count(GOAL) for row in level["cells"]) == 165
            assert [piece[2] for piece in level["pieces"]].count("$") == 1
