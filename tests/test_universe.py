"""The universe engine against the plain reference (`universe_reference`): every connected set
of small boards, with its size, distance, farthest position, minimality and uniqueness; the
store, resuming, parallel runs and the files it reads."""

from __future__ import annotations

import shutil
from collections import deque
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import universe_reference as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from curator.common.errors import PuzzleError, StoreError
from curator.universe import results as universe_results
from curator.universe.analysis import analyze_universe
from curator.universe.puzzle import Universe, parse_universe
from curator.universe.results import UniverseResults
from curator.universe.store import UniverseStore

DATA = Path(__file__).parent / "data"
LENGTHS = {"h": (0, 2), "H": (0, 3), "v": (1, 2), "V": (1, 3)}


def universe(rows: int, cols: int, goal_row: int, counts: dict[str, tuple[int, int]],
             walls: tuple[int, int]) -> Universe:
    """A universe file's text read back: R in `goal_row`, the kinds of `counts` that can move."""
    art = "\n".join("RR" + "." * (cols - 2) if r == goal_row else "." * cols for r in range(rows))
    lines = ['name = "test"', "[board]", f'art = """\n{art}\n"""', f'walls = "{walls[0]}..{walls[1]}"',
             "[rules]", 'family = "slide"', "open_lines = true",
             "[pieces.R]", "cells = [[0, 0], [0, 1]]", 'along = "row"']
    for letter, (axis, length) in LENGTHS.items():
        low, high = counts.get(letter, (0, 0))
        if high and length < (cols if axis == 0 else rows):
            cells = [[0, i] if axis == 0 else [i, 0] for i in range(length)]
            along = "row" if axis == 0 else "column"
            lines += [f"[pieces.{letter}]", f"cells = {cells}", f'along = "{along}"',
                      f'count = "{low}..{high}"']
    lines += ["[goal]", 'piece = "R"', f"cells = [[{goal_row}, {cols - 2}], [{goal_row}, {cols - 1}]]"]
    return parse_universe("\n".join(lines) + "\n", "test.toml")


def shortest_solutions(rows: int, cols: int, drawing: str, cap: int = 2) -> int:
    """Shortest solutions of a drawing, counted up to `cap` (plain breadth-first search)."""
    distance = {drawing: 0}
    ways = {drawing: 1}
    queue = deque([drawing])
    best = None
    found = 0
    while queue:
        here = queue.popleft()
        if best is not None and distance[here] > best:
            break
        if ref.is_goal(rows, cols, here):
            best = distance[here]
            found = min(cap, found + ways[here])
            continue
        for there in ref.neighbours(rows, cols, here):
            if there not in distance:
                distance[there] = distance[here] + 1
                ways[there] = ways[here]
                queue.append(there)
            elif distance[there] == distance[here] + 1:
                ways[there] = min(cap, ways[there] + ways[here])
    return found


def engine_sets(tmp_path: Path, u: Universe, workers: int = 1) -> dict[str, dict]:
    store = analyze_universe(u, tmp_path / "out", workers, force=False)
    results = UniverseResults(store)
    out = {}
    with pytest.MonkeyPatch.context() as patch:
        # The puzzles' difficulty terms are no figures of the reference: not worked out here
        # (test_universe_play.py checks them).
        patch.setattr(universe_results, "EXPLAINED_MOST", 0)
        levels = [results.level(rank) for rank in range(results.sets)]
    for level in levels:
        first = level.first.replace("/", "")
        assert first not in out, f"set of {first} found twice"
        out[first] = {"size": level.cluster, "solvable": level.distance is not None,
                      "distance": level.distance,
                      "farthest": level.board.replace("/", "") if level.distance is not None else None,
                      "minimal": level.minimal, "unique": level.unique,
                      "counts": {k: v for k, v in level.counts.items() if k != "R"}}
    return out


def reference_sets(rows: int, cols: int, goal_row: int, counts: dict[str, tuple[int, int]],
                   walls: tuple[int, int]) -> dict[str, dict]:
    out = {}
    with pytest.MonkeyPatch.context() as patch:
        # The reference explores each set twice (to find it, then to measure it): the moves of
        # each drawing are listed once and kept.
        patch.setattr(ref, "neighbours", cache(ref.neighbours))
        records = ref.universe(rows, cols, goal_row, counts, walls)
        uniques = [None if r["farthest"] is None else shortest_solutions(rows, cols, str(r["farthest"])) == 1
                   for r in records]
    for record, unique in zip(records, uniques):
        farthest = record["farthest"]
        out[str(record["first"])] = {
            "size": record["size"], "solvable": record["solvable"], "distance": record["distance"],
            "farthest": farthest, "minimal": record["minimal"], "unique": unique,
            "counts": {k: n for k, n in dict(record["counts"]).items() if n}}
    return out


def assert_same(engine: dict[str, dict], reference: dict[str, dict]) -> None:
    assert engine.keys() == reference.keys()
    for first, want in reference.items():
        assert engine[first] == want, first


@pytest.mark.parametrize(("rows", "cols", "goal_row", "sets", "hardest"), [
    pytest.param(4, 4, 2, 26509, 7, marks=pytest.mark.slow),  # 21 s; the 5 x 3 board covers it
    (5, 3, 1, 7730, 5),
])
def test_every_set_of_a_universe_with_up_to_two_walls_matches_the_reference(tmp_path, rows, cols, goal_row,
                                                                             sets, hardest):
    counts = {"h": (0, 8), "H": (0, 8), "v": (0, 8), "V": (0, 8)}
    engine = engine_sets(tmp_path, universe(rows, cols, goal_row, counts, (0, 2)))
    reference = reference_sets(rows, cols, goal_row, counts, (0, 2))
    assert len(reference) == sets  # the reference's own figures
    assert sum(first.count("x") == 2 for first in reference) > sets // 2
    assert_same(engine, reference)
    assert max(v["distance"] or 0 for v in engine.values()) == hardest


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(size=st.sampled_from([(3, 3), (3, 4), (3, 5), (4, 3), (4, 4), (5, 3)]), data=st.data())
def test_random_small_universes_match_the_reference(tmp_path_factory, size, data):
    rows, cols = size
    goal_row = data.draw(st.integers(0, rows - 1))
    counts = {}
    for letter in LENGTHS:
        low = data.draw(st.integers(0, 1))
        counts[letter] = (low, data.draw(st.integers(low, 3)))
    walls = (0, data.draw(st.integers(0, 1)))
    tmp = tmp_path_factory.mktemp("universe")
    u = universe(rows, cols, goal_row, counts, walls)
    kept = {v.letter: (v.fewest, v.most) for v in u.vehicles[1:]}
    assert_same(engine_sets(tmp, u), reference_sets(rows, cols, goal_row, kept, walls))


@pytest.fixture(scope="module")
def four(tmp_path_factory) -> UniverseStore:
    """The tables of the 4x4 universe with up to two walls, analysed once by one worker (only
    read, or copied before a change)."""
    u = parse_universe((DATA / "rush-hour-4x4.toml").read_text(), "rush-hour-4x4.toml")
    return analyze_universe(u, tmp_path_factory.mktemp("universe") / "one", 1, force=False)


def test_parallel_workers_store_the_same_bytes_as_one(tmp_path, four):
    u = parse_universe((DATA / "rush-hour-4x4.toml").read_text(), "rush-hour-4x4.toml")
    one = four
    two = analyze_universe(u, tmp_path / "two", 2, force=False)
    names = sorted(p.name for p in one.directory.glob("sets-*"))
    assert names and names == sorted(p.name for p in two.directory.glob("sets-*"))
    for name in names:
        assert (one.directory / name).read_bytes() == (two.directory / name).read_bytes()


def test_an_analysis_resumes_and_recomputes_a_damaged_piece(tmp_path, four):
    u = parse_universe((DATA / "rush-hour-4x4.toml").read_text(), "rush-hour-4x4.toml")
    shutil.copytree(four.directory, tmp_path, dirs_exist_ok=True)
    store = analyze_universe(u, tmp_path, 1, force=False)  # finished: opened as it is
    files = sorted(store.directory.glob("sets-*"))
    before = {p.name: p.read_bytes() for p in files}
    files[0].write_bytes(b"\0" + files[0].read_bytes()[1:])
    files[1].unlink()
    with pytest.raises(StoreError, match="checksum"):
        list(store.load(UniverseResults(store).dtype))
    analyze_universe(u, tmp_path, 1, force=False)
    assert {p.name: p.read_bytes() for p in sorted(store.directory.glob("sets-*"))} == before


def test_a_universe_can_be_limited_by_counts(tmp_path):
    counts = {"h": (1, 1), "v": (0, 2)}
    u = universe(4, 4, 2, counts, (1, 1))
    engine = engine_sets(tmp_path, u)
    assert engine
    for figures in engine.values():
        assert figures["counts"].get("h") == 1 and figures["counts"].get("x") == 1
        assert figures["counts"].get("v", 0) <= 2 and "H" not in figures["counts"]
    assert_same(engine, reference_sets(4, 4, 2, counts, (1, 1)))


def test_select_filters_the_stored_sets(four):
    results = UniverseResults(four)
    table = np.concatenate(list(results.store.load(results.dtype)))
    minimal = results.select(minimal=True)
    assert len(minimal) == int((table["minimal"] == 1).sum()) == 32
    assert [p.distance for p in minimal] == sorted((p.distance for p in minimal), reverse=True)
    walled = results.select(walls=(2, 2), distance=(3, 9))
    assert walled and all(p.walls == 2 and p.distance is not None and p.distance >= 3 for p in walled)
    hardest = results.select(hardest=True)
    solvable = table[table["distance"] >= 0]
    farthest: dict[tuple, int] = {}
    for counts, distance in zip(map(tuple, solvable["counts"]), solvable["distance"]):
        farthest[counts] = max(farthest.get(counts, -1), int(distance))
    letters = [*"RhHvVx"]
    chosen = {tuple(p.counts.get(k, 0) for k in letters) for p in hardest}
    assert chosen == set(farthest)
    assert all(p.distance == farthest[tuple(p.counts.get(k, 0) for k in letters)] for p in hardest)
    assert results.select(unique=True, minimal=True, limit=3)[0].unique is True


UNIVERSE_FILE = Path(__file__).parent.parent / "puzzles" / "rush-hour-universe.toml"


@pytest.mark.parametrize(("old", "new", "key"), [
    ('walls = "0..2"', 'walls = "2..1"', "board.walls"),
    ('walls = "0..2"', 'walls = "29..31"', "board.walls: 29 walls do not fit: at most 28 cells"),
    ('count = "0..18"', 'count = "lots"', "pieces.h.count"),
    ("cells = [[2, 4], [2, 5]]", "cells = [[2, 3], [2, 4]]", "goal.cells"),
    ('along = "column"', 'along = "any"', "pieces.v.along"),
    ("open_lines = true", "open_line = true", "rules.open_line"),
    ("RR....", "RRh...", "board.art"),
])
def test_a_malformed_universe_file_names_the_key(old, new, key):
    text = UNIVERSE_FILE.read_text()
    assert old in text
    with pytest.raises(PuzzleError, match=key.replace(".", r"\.")):
        parse_universe(text.replace(old, new, 1), "universe.toml")


def test_vehicles_of_one_length_and_line_share_a_letter():
    text = UNIVERSE_FILE.read_text()
    twin = text + '\n[pieces.c]\ncells = [[0, 0], [0, 1]]\nalong = "row"\ncount = "0..2"\n'
    with pytest.raises(PuzzleError, match=r"pieces\.c: has the length and line of 'h'"):
        parse_universe(twin, "universe.toml")


def test_the_bundled_universe_reads_as_rush_hour():
    text = UNIVERSE_FILE.read_text()
    u = parse_universe(text, "rush-hour-universe.toml")
    assert (u.rows, u.cols, u.goal_row, u.walls, u.open_lines) == (6, 6, 2, (0, 2), True)
    assert [(v.letter, v.axis, v.length) for v in u.vehicles] == [
        ("R", 0, 2), ("h", 0, 2), ("H", 0, 3), ("v", 1, 2), ("V", 1, 3)]
    assert np.all([v.most >= 12 for v in u.vehicles[1:]])


@pytest.mark.parametrize(("rows", "goal_row", "most_walls", "packed"), [
    (4, 1, 1, 9804), (4, 1, 2, 33953), (4, 1, 3, 76838),
    pytest.param(5, 2, 1, 2988670, marks=pytest.mark.slow),
    pytest.param(5, 2, 2, 16330430, marks=pytest.mark.slow)])
def test_packed_positions_with_walls_agree_with_the_published_enumeration(
        tmp_path, rows, goal_row, most_walls, packed):
    """Fogleman's enumeration with single-cell walls in the rows (none right of the red car)
    numbers its packed boards from 0 to 9,803, 33,952 and 76,837 on 4 x 4 with up to one, two
    and three walls, and to 2,988,669 and 16,330,429 on 5 x 5 with up to one and two."""
    counts = {"h": (0, 12), "H": (0, 12), "v": (0, 12), "V": (0, 12)}
    u = universe(rows, rows, goal_row, counts, (0, most_walls))
    results = UniverseResults(analyze_universe(u, tmp_path, 1, force=False))
    assert results.summary()["packed_positions"] == packed


@pytest.mark.parametrize(("rows", "goal_row", "packed"), [(4, 1, 1349), (4, 2, 1150), (5, 2, 268109)])
def test_packed_positions_agree_with_the_published_enumeration(tmp_path, rows, goal_row, packed):
    """Fogleman's enumeration of wall-free Rush Hour boards (2018) numbers its packed boards
    from 0 to 1,348 on 4 x 4 (red car in row 1) and to 268,108 on 5 x 5 (row 2). With the
    red car in row 2 of 4 x 4 (no published figure) the README gives curator's 1,150."""
    counts = {"h": (0, 12), "H": (0, 12), "v": (0, 12), "V": (0, 12)}
    u = universe(rows, rows, goal_row, counts, (0, 0))
    results = UniverseResults(analyze_universe(u, tmp_path, 1, force=False))
    assert results.summary()["packed_positions"] == packed
    # The largest sets outgrow the search's first buffers (512 positions): they grow, and the
    # sets come out as the plain reference explores them.
    table = np.concatenate(list(results.store.load(results.dtype)))
    largest = np.argsort(-table["size"].astype(np.int64), kind="stable")[:2]
    assert rows == 4 or table["size"][largest[-1]] > 512
    for rank in largest:
        level = results.level(int(rank))
        drawing = level.first.replace("/", "")
        seen, queue = {drawing}, deque([drawing])
        while queue:
            for there in ref.neighbours(rows, rows, queue.popleft()):
                if there not in seen:
                    seen.add(there)
                    queue.append(there)
        assert len(seen) == level.cluster
        assert ref.fewest_moves(rows, rows, level.board.replace("/", "")) == level.distance


@pytest.mark.parametrize("keep", ["solvable", "minimal"])
def test_tables_keeping_some_sets_hold_those_of_the_full_tables_and_count_every_set(tmp_path, four, keep):
    u = parse_universe((DATA / "rush-hour-4x4.toml").read_text(), "rush-hour-4x4.toml")
    every = UniverseResults(four)
    some = UniverseResults(analyze_universe(u, tmp_path / keep, 1, force=False, keep=keep))
    table = np.concatenate(list(every.store.load(every.dtype)))
    want = table[table["distance"] >= 0] if keep == "solvable" else table[table["minimal"] == 1]
    assert 0 < len(want) < len(table)
    assert np.array_equal(np.concatenate(list(some.store.load(some.dtype))), want)
    full, part = every.summary(), some.summary()
    assert (full["keep"], part["keep"]) == ("all", keep)
    same = ("sets", "positions", "solvable_sets", "solvable_positions", "minimal", "packed_positions")
    assert {k: part[k] for k in same} == {k: full[k] for k in same}
    assert part["farthest"] == int(want["distance"].max())
    assert [p.board for p in some.select(hardest=True)] == [p.board for p in every.select(hardest=True, **(
        {"solvable": True} if keep == "solvable" else {"minimal": True}))]
