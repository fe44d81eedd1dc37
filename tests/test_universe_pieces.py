"""The split of a universe into pieces of work: every connected set falls in one piece, the
pieces' packed positions are counted right, and a split of any depth finds the same sets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from curator.common.errors import PuzzleError
from curator.universe.analysis import analyze_universe
from curator.universe.pieces import packed_pieces, piece_ranges, prefixes, split, uniform
from curator.universe.puzzle import parse_universe
from curator.universe.results import UniverseResults
from curator.universe.space import build_space
from curator.universe.store import MOST_DISTANCE, UniverseStore, records
from curator.universe.sweep import search

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def space():
    return build_space(parse_universe((DATA / "rush-hour-4x4.toml").read_text(), "rush-hour-4x4.toml"))


def sets_of(space, pieces) -> tuple[np.ndarray, list[int]]:
    """Every set the pieces find, sorted, and each piece's packed positions enumerated."""
    found = [search(space, piece_ranges(space, p)) for p in pieces]
    table = np.concatenate([records(f, space) for f in found])
    return np.sort(table, order=["walls", "first"]), [f.seeds for f in found]


@pytest.mark.parametrize("most_packed", [1, 40, 300])
def test_a_split_finds_the_sets_one_row_finds_and_counts_each_piece(space, most_packed):
    whole, seeds = sets_of(space, uniform(space, 1))
    pieces, packed = split(space, most_packed)
    table, counted = sets_of(space, pieces)
    assert np.array_equal(table, whole)
    assert counted == packed  # no count range of the 4 x 4 universe binds
    assert sum(packed) == sum(seeds)
    rows = space.universe.rows
    assert all(n <= most_packed or len(p) == rows for p, n in zip(pieces, packed))
    assert all(n > 0 for n in packed)
    assert len(set(pieces)) == len(pieces)
    assert all(a[:len(b)] != b and b[:len(a)] != a for a, b in zip(pieces, pieces[1:]))  # none holds another


def test_pieces_are_split_where_they_hold_many_packed_positions(space):
    pieces, packed = split(space, 40)
    shallow = [p for p, n in zip(pieces, packed) if len(p) < space.universe.rows]
    assert shallow and len(shallow) < len(pieces)  # some pieces stop early, some go to every row
    radix, ids, weights = packed_pieces(space, space.universe.rows)
    kinds = prefixes(radix, ids)
    for prefix, n in zip(pieces, packed):
        inside = np.all(kinds[:, :len(prefix)] == prefix, axis=1)
        assert int(weights[inside].sum()) == n


def test_an_older_folder_split_by_rows_resumes_with_that_split(tmp_path, space):
    store = analyze_universe(space.universe, tmp_path, 1, force=False)
    before = UniverseResults(store).summary()
    store.manifest.pop("pieces")
    store.manifest.update(item_lanes=2, chunks={}, complete=False)
    store.write_manifest()
    for path in tmp_path.glob("sets-*"):
        path.unlink()
    again = analyze_universe(space.universe, tmp_path, 1, force=False)
    assert len(list(tmp_path.glob("sets-*"))) == len(uniform(space, 2))
    assert again.manifest["pieces"] == [list(p) for p in uniform(space, 2)]
    assert "item_lanes" not in again.manifest
    assert UniverseResults(again).summary() | {"seconds": 0} == before | {"seconds": 0}


def test_stored_pieces_are_read_in_the_order_of_their_numbers(tmp_path, space):
    store = analyze_universe(space.universe, tmp_path, 1, force=False)
    dtype = UniverseResults(store).dtype
    entry = {"bytes": 0, "sha256": "", "sets": 0, "seeds": 0, "positions": 0, "seconds": 0}
    store.manifest["chunks"] = {"100000": entry, "99999": entry, "7": entry}
    assert [path.name for path, _ in store.files(dtype)] == [
        "sets-00007.sets", "sets-99999.sets", "sets-100000.sets"]
    store.manifest["chunks"] = {"x7": entry}
    with pytest.raises(Exception, match="'x7' is not a number"):
        store.files(dtype)
    assert isinstance(store, UniverseStore)


def test_a_set_farther_than_a_record_holds_is_refused_not_wrapped(space):
    (found,) = [search(space, piece_ranges(space, p)) for p in uniform(space, 1)[:1]]
    assert len(found.figures) and records(found, space)["distance"].max() < MOST_DISTANCE
    figures = found.figures.copy()
    figures[0, 1] = MOST_DISTANCE
    assert records(found._replace(figures=figures), space)["distance"][0] == MOST_DISTANCE
    figures[0, 1] = MOST_DISTANCE + 1
    refused = f"rush-hour-4x4.toml: board: a connected set needs {MOST_DISTANCE + 1} moves, more than"
    with pytest.raises(PuzzleError, match=refused):
        records(found._replace(figures=figures), space)
