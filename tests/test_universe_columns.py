"""Universe tables read as columns (`curator.universe.columns`) against a plain reading of the
same files: every stored record concatenated, and filters, sorts, the hardest set of each piece
set and the histogram worked out row by row in Python. On the 4x4 universe, and on small random
universes; with piece sets numbered by their key and by their rank among the keys stored."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_universe import LENGTHS, universe

from curator.common.errors import StoreError
from curator.universe import columns
from curator.universe.analysis import analyze_universe
from curator.universe.puzzle import WALL, Universe, parse_universe
from curator.universe.results import SORTS, UniverseLevel, UniverseResults

DATA = Path(__file__).parent / "data"


class Plain:
    """The stored sets as plain Python rows, from the concatenated records."""

    def __init__(self, results: UniverseResults) -> None:
        self.results = results
        self.records = np.concatenate(list(results.store.load(results.dtype)))
        self.letters = [v.letter for v in results.puzzle.vehicles] + [WALL]
        self.rows = [{"distance": int(r["distance"]), "size": int(r["size"]),
                      "minimal": int(r["minimal"]) == 1, "unique": int(r["unique"]) == 1,
                      "counts": tuple(int(n) for n in r["counts"])} for r in self.records]
        for row in self.rows:
            row["solvable"] = row["distance"] >= 0
            row["figures"] = {"distance": row["distance"], "cluster": row["size"],
                              "pieces": sum(row["counts"][:-1]), "walls": row["counts"][-1]}
        self.levels: dict[int, UniverseLevel] = {}

    def passes(self, row: dict[str, Any], keywords: dict[str, Any]) -> bool:
        solvable = row["solvable"]
        for flag, value in (("solvable", solvable), ("minimal", row["minimal"]), ("unique", row["unique"])):
            if keywords.get(flag) is not None and keywords[flag] != value:
                return False
        for name, figure in row["figures"].items():
            if keywords.get(name) is not None and not keywords[name][0] <= figure <= keywords[name][1]:
                return False
        if keywords.get("distance") is not None and not solvable:
            return False
        for letter, (low, high) in (keywords.get("counts") or {}).items():
            if not low <= row["counts"][self.letters.index(letter)] <= high:
                return False
        return True

    def hardest(self, ranks: list[int]) -> list[int]:
        """Of these ranks, those at the largest distance of their piece set among them."""
        farthest: dict[tuple[int, ...], int] = {}
        for rank in ranks:
            row = self.rows[rank]
            if row["distance"] >= 0:
                farthest[row["counts"]] = max(farthest.get(row["counts"], -1), row["distance"])
        return [rank for rank in ranks
                if self.rows[rank]["distance"] >= 0
                and self.rows[rank]["distance"] == farthest[self.rows[rank]["counts"]]]

    def passing(self, keywords: dict[str, Any]) -> list[int]:
        """The ranks that pass the filters."""
        return [rank for rank, row in enumerate(self.rows) if self.passes(row, keywords)]

    def selection(self, keywords: dict[str, Any], passing: list[int] | None = None) -> tuple[list[int], int]:
        """The ranks `select` lists, and how many sets matched (of `passing`, the ranks that pass
        the filters, when given)."""
        ranks = self.passing(keywords) if passing is None else passing
        if keywords.get("hardest"):
            ranks = self.hardest(ranks)
        matched = len(ranks)
        sample = keywords.get("sample")
        if sample is not None and sample < len(ranks):
            rng = np.random.default_rng(keywords.get("seed") or 0)
            drawn = rng.choice(np.array(ranks), sample, replace=False)
            ranks = sorted(int(r) for r in drawn)
        metric, _, direction = (keywords.get("sort") or "distance").partition(":")
        figure = {"distance": lambda row: row["distance"], "cluster": lambda row: row["size"],
                  "pieces": lambda row: sum(row["counts"][:-1]),
                  "walls": lambda row: row["counts"][-1]}[metric]
        ranks = sorted(ranks, key=lambda rank: figure(self.rows[rank]), reverse=direction != "asc")
        limit = keywords.get("limit")
        return (ranks if limit is None else ranks[:limit]), matched

    def layers(self) -> list[dict[str, Any]]:
        out: dict[int, dict[str, Any]] = {}
        for row in self.rows:
            if row["distance"] >= 0:
                at = out.setdefault(row["distance"], {"distance": row["distance"], "puzzles": 0, "minimal": 0,
                                                      "positions": 0})
                at["puzzles"] += 1
                at["minimal"] += row["minimal"]
                at["positions"] += row["size"]
        return [out[d] for d in sorted(out)]

    def level(self, rank: int) -> UniverseLevel:
        if rank not in self.levels:
            self.levels[rank] = self.drawn(rank)
        return self.levels[rank]

    def drawn(self, rank: int) -> UniverseLevel:
        r = self.records[rank]
        solvable = int(r["distance"]) >= 0
        draw = self.results.draw
        return UniverseLevel(rank, draw(r, int(r["farthest"] if solvable else r["first"])),
                             draw(r, int(r["first"])),
                             int(r["distance"]) if solvable else None, int(r["size"]),
                             {k: int(n) for k, n in zip(self.letters, r["counts"]) if n},
                             bool(r["minimal"] == 1) if solvable else None,
                             bool(r["unique"] == 1) if solvable else None)


def unexplained(level: UniverseLevel) -> UniverseLevel:
    """The level without its difficulty terms, which the records do not hold (they are checked
    against the puzzle's shown solution in test_universe_play.py)."""
    return replace(level, difficulty_terms="")


def read_once(results: UniverseResults) -> None:
    """Makes `results` read each set as a puzzle once, and give that puzzle again whenever the
    set is asked for (by `level`, and in the lists of `selection` and `pack`)."""
    read = results.level
    levels: dict[int, UniverseLevel] = {}

    def level(rank: int) -> UniverseLevel:
        if rank not in levels:
            levels[rank] = read(rank)
        return levels[rank]

    results.level = level


def ranges(low: int, high: int) -> st.SearchStrategy[tuple[int, int] | None]:
    return st.none() | st.tuples(st.integers(low, high), st.integers(low, high))


def keywords_for(u: Universe) -> st.SearchStrategy[dict[str, Any]]:
    """Keywords of `select`, with ranges that reach past what is stored."""
    letters = [v.letter for v in u.vehicles] + [WALL]
    bounds = st.tuples(st.integers(0, 3), st.integers(0, 5))
    counts = st.none() | st.dictionaries(st.sampled_from(letters), bounds, max_size=2)
    sorts = st.none() | st.sampled_from([f"{m}{d}" for m in SORTS for d in ("", ":asc", ":desc")])
    return st.fixed_dictionaries({
        "solvable": st.none() | st.booleans(), "minimal": st.none() | st.booleans(),
        "unique": st.none() | st.booleans(), "distance": ranges(-2, 9), "cluster": ranges(0, 300),
        "pieces": ranges(0, 8), "walls": ranges(0, 3), "counts": counts, "hardest": st.booleans(),
        "sort": sorts, "sample": st.none() | st.integers(0, 40), "seed": st.integers(0, 3),
        "limit": st.none() | st.integers(0, 30) | st.just(10**6)})


def assert_same(results: UniverseResults, plain: Plain, keywords: dict[str, Any]) -> None:
    found, matched = results.selection(keywords)
    passing = plain.passing(keywords)
    ranks, want = plain.selection(keywords, passing)
    assert (matched, [level.rank for level in found]) == (want, ranks)
    assert [unexplained(level) for level in found] == [plain.level(rank) for rank in ranks]
    mask = results.mask(keywords)
    assert np.flatnonzero(mask).tolist() == passing
    hardest = results.hardest_of_piece_set(mask)
    assert np.flatnonzero(hardest).tolist() == plain.hardest(np.flatnonzero(mask).tolist())


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> tuple[UniverseResults, Plain]:
    """The 4x4 universe, analysed once for the module, and its records read plainly.

    Each set is read as a puzzle once, and that puzzle given again whenever the set is asked
    for: how a set reads does not depend on how piece sets are numbered, and
    test_every_set_reads_as_its_record checks every set read this way against its record."""
    u = parse_universe((DATA / "rush-hour-4x4.toml").read_text(), "rush-hour-4x4.toml")
    results = UniverseResults(analyze_universe(u, tmp_path_factory.mktemp("universe"), 1, force=False))
    read_once(results)
    return results, Plain(results)


@pytest.fixture(scope="module", params=["keyed", "ranked"])
def four(request, tables) -> tuple[UniverseResults, Plain]:
    """The 4x4 universe, its piece sets numbered by key, or by rank among the keys stored."""
    analysed, plain = tables
    results = UniverseResults(analysed.store)
    results.level = analysed.level
    with pytest.MonkeyPatch.context() as patch:
        if request.param == "ranked":
            patch.setattr(columns, "KEYED", 0)
        stored = len(results.columns.keys)
    assert (stored == columns.PieceSets.of(results.puzzle).keys) == (request.param == "keyed")
    return results, plain


def test_every_set_reads_as_its_record(tables):
    results, plain = tables
    assert results.sets == len(plain.records) == 26509
    for rank in range(results.sets):
        assert unexplained(results.level(rank)) == plain.level(rank)


def test_a_set_read_alone_is_its_record_and_its_file_is_checked_first(four, tmp_path):
    results, plain = four
    files = columns.SetFiles.of(results.store, results.dtype)
    last = len(files) - 1
    ranks = (last, 0, 1, last)
    assert [files.record(rank) for rank in ranks] == [plain.records[rank] for rank in ranks]
    assert files.record(0) != files.record(1)
    path, entry = files.files[0]
    damaged = tmp_path / path.name
    data = bytearray(path.read_bytes())
    data[-1] ^= 1  # the same size, other contents
    damaged.write_bytes(bytes(data))
    fresh = replace(files, files=[(damaged, entry), *files.files[1:]], verified=set())
    with pytest.raises(StoreError, match="checksum does not match"):
        fresh.record(0)


def test_the_totals_and_the_histogram_are_those_of_the_records(four):
    results, plain = four
    layers = plain.layers()
    assert results.layers == layers
    assert results.histogram() == [(at["distance"], at["puzzles"], at["minimal"]) for at in layers]
    summary = results.summary()
    rows = plain.rows
    assert summary["sets"] == len(rows)
    assert summary["positions"] == sum(row["size"] for row in rows)
    assert summary["solvable_sets"] == sum(row["distance"] >= 0 for row in rows)
    assert summary["solvable_positions"] == sum(row["size"] for row in rows if row["distance"] >= 0)
    assert summary["minimal"] == sum(row["minimal"] for row in rows)
    assert summary["farthest"] == max(row["distance"] for row in rows)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_selections_match_a_plain_filter_of_the_records(four, data):
    results, plain = four
    assert_same(results, plain, data.draw(keywords_for(results.puzzle)))


@pytest.mark.parametrize("keywords", [
    {}, {"hardest": True}, {"sort": "cluster", "limit": 10}, {"sort": "walls", "limit": 7},
    {"sort": "pieces:asc", "limit": 1}, {"minimal": True, "hardest": True, "limit": 10},
    {"solvable": False, "sort": "cluster:asc", "limit": 5},
    {"counts": {"x": (1, 1), "V": (1, 9)}, "limit": 0},
    {"distance": (7, 7)}, {"cluster": (10**12, 10**13)}, {"distance": (-(10**9), 10**9), "limit": -3},
])
def test_chosen_selections_match_a_plain_filter_of_the_records(four, keywords):
    results, plain = four
    assert_same(results, plain, keywords)


def test_packs_number_piece_sets_as_rows_of_counts_do(four):
    """A pack groups its candidates by piece set: the same pack by key as by rank."""
    results, _ = four
    pack = results.pack(10, "ease-in", hardest=False, minimal=None, seed=2, pool=300)
    letters = [v.letter for v in results.puzzle.vehicles] + [WALL]
    assert len({tuple(level.counts.get(k, 0) for k in letters) for level in pack}) == 10


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(size=st.sampled_from([(3, 3), (3, 4), (4, 3), (4, 4)]), ranked=st.booleans(), data=st.data())
def test_small_universes_select_as_a_plain_filter_of_their_records(tmp_path_factory, size, ranked, data):
    rows, cols = size
    counts = {}
    for letter in LENGTHS:
        low = data.draw(st.integers(0, 1))
        counts[letter] = (low, data.draw(st.integers(low, 3)))
    u = universe(rows, cols, data.draw(st.integers(0, rows - 1)), counts, (0, data.draw(st.integers(0, 2))))
    results = UniverseResults(analyze_universe(u, tmp_path_factory.mktemp("universe"), 1, force=False))
    read_once(results)  # every set is read (and checked) below: the selections list the same puzzles
    with pytest.MonkeyPatch.context() as patch:
        if ranked:
            patch.setattr(columns, "KEYED", 0)
        plain = Plain(results)
        for rank in range(results.sets):
            assert unexplained(results.level(rank)) == plain.level(rank)
        assert results.layers == plain.layers()
        for _ in range(5):
            assert_same(results, plain, data.draw(keywords_for(u)))


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.integers(0, 6), max_size=60), descending=st.booleans(),
       limit=st.none() | st.integers(-3, 70), dtype=st.sampled_from(["i1", "u1", "u4", "i8"]))
def test_the_first_of_an_order_are_those_of_a_stable_sort(values, descending, limit, dtype):
    column = np.array(values, dtype)
    order = sorted(range(len(values)), key=lambda i: values[i], reverse=descending)
    assert columns.leading(column, descending, limit).tolist() == order[:limit]


def test_counts_outside_the_universe_are_refused(tmp_path):
    u = parse_universe((DATA / "rush-hour-4x4.toml").read_text(), "rush-hour-4x4.toml")
    piece_sets = columns.PieceSets.of(u)
    assert piece_sets.radix == (1, 9, 6, 9, 6, 3)
    good = np.array([[1, 8, 0, 2, 5, 2], [1, 0, 1, 0, 0, 0]], np.uint8)
    keys = piece_sets.key(good, np.dtype(np.uint32))
    assert [[int(piece_sets.count(keys, kind)[i]) for kind in range(6)] for i in range(2)] == good.tolist()
    with pytest.raises(StoreError, match="outside the universe"):
        piece_sets.key(np.array([[1, 9, 0, 0, 0, 0]], np.uint8), np.dtype(np.uint32))
    with pytest.raises(StoreError, match="outside the universe"):
        piece_sets.key(np.array([[0, 0, 0, 0, 0, 0]], np.uint8), np.dtype(np.uint32))
