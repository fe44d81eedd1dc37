"""Variants (the positions one edit away that are uniquely solvable, solvable or harder)
against brute force: on the triangle with a plain solver and plain classes of equivalent
positions, on small sliding-block puzzles with the sliding reference, on a small permutation
puzzle with a plain breadth-first search. Then the command line's `curator variants`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import curator
from curator.common.errors import SelectionError
from tests import reference as ref
from tests import sliding_reference as sref
from tests.cli_helpers import error_line, invoke
from tests.test_distance import SLIDING_2X3, Reference
from tests.test_sliding import SPECS, toml_text

ROOT = Path(__file__).resolve().parent.parent
WANTS = ("unique", "solvable", "harder")


@pytest.fixture(scope="module")
def triangle(tmp_path_factory):
    return curator.analyze(ROOT / "puzzles" / "triangle.toml", output=tmp_path_factory.mktemp("v") / "t",
                           workers=1)


def one_edit(position: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Every position one peg added, removed or moved away, by the plain definition: one cell
    changed, or two cells changed with one peg leaving one and arriving on the other."""
    out = set()
    cells = range(len(position))
    for i in cells:
        out.add(position[:i] + (1 - position[i],) + position[i + 1:])
        for j in cells:
            if position[i] and not position[j]:
                moved = list(position)
                moved[i], moved[j] = 0, 1
                out.add(tuple(moved))
    return out


def truth(puzzle, position: tuple[int, ...], memo: dict) -> ref.Result:
    cells = frozenset(puzzle.board.cells)
    occupied = frozenset(puzzle.board.cells[i] for i, v in enumerate(position) if v)
    return ref.analyze(lambda p: ref.jump_children(cells, ref.TRIANGULAR, p), occupied, 1, memo=memo)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bits=st.lists(st.booleans(), min_size=15, max_size=15), want=st.sampled_from(WANTS))
def test_triangle_variants_match_brute_force(triangle, bits, want):
    puzzle = triangle.puzzle
    position = tuple(int(b) for b in bits)
    memo: dict = {}
    found = triangle.variation(position, want, limit=10_000)
    base = found.base
    own = ref.position_class(puzzle, position) if any(position) else {position}
    wanted: dict[frozenset, set] = {}
    for child in one_edit(position):
        result = truth(puzzle, child, memo)
        pieces = sum(child)
        if pieces <= 1 or not result.solvable or (want == "unique" and result.solutions != 1):
            continue
        if want == "harder" and not triangle.solve(child).difficulty > base.difficulty:
            continue
        if child in own:
            continue
        key = frozenset(ref.position_class(puzzle, child))
        wanted.setdefault(key, set()).add(child)
    assert found.matched == len(found.variants) == len(wanted)
    seen = set()
    for variant in found.variants:
        key = next(k for k in wanted if variant.position in k)  # one of the wanted positions' classes
        assert key not in seen
        seen.add(key)
        assert variant.position in one_edit(position)
        assert variant.item.solvable and (want != "unique" or variant.item.solutions == 1)
        edit = variant.edit
        index = puzzle.board.index
        if edit.action == "add":
            assert variant.position[index[edit.target]] == 1 and position[index[edit.target]] == 0
        elif edit.action == "remove":
            assert variant.position[index[edit.source]] == 0 and position[index[edit.source]] == 1
        else:
            assert (position[index[edit.source]], position[index[edit.target]]) == (1, 0)
            assert (variant.position[index[edit.source]], variant.position[index[edit.target]]) == (0, 1)
    ratings = [v.item.difficulty for v in found.variants]
    assert ratings == sorted(ratings, key=lambda d: -d if math.isfinite(d) else math.inf)


def test_triangle_variants_of_a_start_and_the_limit(triangle):
    start = "    ./   o o/  o o o/ o o o o/o o o o o"
    found = triangle.variation(start, "solvable", limit=3)
    assert found.considered == 1 + 14 + 14  # a peg added on the empty cell, one removed, one moved there
    assert len(found.variants) == 3 < found.matched
    assert all(v.item.solvable for v in found.variants)
    assert triangle.variants(start, "solvable", limit=3) == found.variants
    harder = triangle.variation(start, "harder", limit=100)
    assert 0 < harder.matched < found.matched and triangle.variation(start, "unique").matched == 0
    assert all(v.item.difficulty > found.base.difficulty for v in harder.variants)
    json.dumps(found.to_json())
    for wrong, line in [({"want": "easier"}, "want must be one of unique, solvable, harder"),
                        ({"limit": 0}, "limit must be a whole number of at least 1")]:
        with pytest.raises(SelectionError, match=line):
            triangle.variants(start, **wrong)


@pytest.mark.parametrize("name", ["robots", "ell", "cars"])
def test_sliding_variants_match_brute_force(tmp_path, name):
    spec = SPECS[name]
    (tmp_path / "p.toml").write_text(toml_text(spec, spec.move, spec.metric))
    results = curator.analyze(tmp_path / "p.toml", output=tmp_path / "out", workers=1)
    known = sref.analyze(spec)
    everything = sref.positions(spec)
    for position in everything[:: max(1, len(everything) // 12)]:
        drawing = sref.draw(spec, position)
        for want in WANTS:
            found = results.variation(drawing, want, limit=10_000)
            here = known.distance.get(position)
            expected = set()
            for other in everything:
                gone, came = position - other, other - position
                if len(gone) != 1 or len(came) != 1 or next(iter(gone))[0] != next(iter(came))[0]:
                    continue
                d = known.distance.get(other)
                if not d or (want == "unique" and known.solutions[other] != 1):
                    continue
                if want == "harder" and (here is None or d <= here):
                    continue
                expected.add(sref.draw(spec, other))
            got = ["\n".join(v.item.board) for v in found.variants]
            assert sorted(got) == sorted(expected) and found.matched == len(expected), (drawing, want)
            distances = [v.item.distance for v in found.variants]
            assert distances == sorted(distances, reverse=True)
            for variant in found.variants:
                assert variant.edit.action == "move" and variant.edit.piece in spec.shapes


def test_distance_variants_match_brute_force(tmp_path):
    (tmp_path / "p.toml").write_text(SLIDING_2X3)
    results = curator.analyze(tmp_path / "p.toml", output=tmp_path / "out", workers=1)
    plain = Reference(SLIDING_2X3)
    distances = plain.distances()
    for state in list(distances)[::60]:
        perm = state[0][0]
        swapped = set()
        for p in range(6):
            for q in range(p + 1, 6):
                new = list(perm)
                new[p], new[q] = new[q], new[p]
                swapped.add(((tuple(new), (0,) * 6),))
        for want in ("solvable", "harder"):
            found = results.variation(state, want, limit=100)
            expected = {s for s in swapped if distances.get(s)
                        and (want == "solvable" or distances[s] > distances[state])}
            assert {v.item.state for v in found.variants} == expected
            assert all(v.item.distance == distances[v.item.state] for v in found.variants)
    with pytest.raises(SelectionError, match="want must be one of solvable, harder"):
        results.variants(state, "unique")


def test_variants_command(triangle, tmp_path):
    start = "    ./   o o/  o o o/ o o o o/o o o o o"
    done = invoke("variants", triangle.directory, "--board", start, "--want", "solvable", "--limit", "2",
                  "--json")
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    expected = triangle.variation(start, "solvable", limit=2)
    assert data["matched"] == expected.matched and data["want"] == "solvable"
    assert [v["edit"]["text"] for v in data["variants"]] == [v.edit.text for v in expected.variants]
    assert data["position"]["solutions"] == expected.base.solutions
    table = invoke("variants", triangle.directory, "--board", start, "--want", "solvable", "--limit", "2")
    assert table.exit_code == 0 and "solvable variants of" in table.stdout, table.output
    assert expected.variants[0].edit.text in table.stdout
    for args, line in [(["--want", "easier"], "--want must be one of unique, solvable, harder"),
                       (["--limit", "0"], "--limit"),
                       (["--search-limit", "0"], "--search-limit must be at least 1"),
                       (["--board", "./o"], "--board")]:
        bad = invoke("variants", triangle.directory, "--board", start, *args)
        assert bad.exit_code == 2 and line in error_line(bad.stderr)
