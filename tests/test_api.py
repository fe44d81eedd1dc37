"""The public Python API: `curator.load`, `curator.analyze`, `curator.open`, the two kinds of
results (`LayeredResults`, `DistanceResults`) and the `Level`s they return.

Answers are checked against independent references where there is one: `reference.py`'s
plain brute-force solver, colex ranks and symmetries worked out here from the board art,
a breadth-first search of the 8-puzzle, the stored bit files read directly, and the command
line's JSON (which must agree with the API it is built on).
"""

from __future__ import annotations

import csv
import gc
import hashlib
import itertools
import json
import math
import os
import random
import re
import shutil
import weakref
from collections import deque
from math import comb
from pathlib import Path

import jsonschema
import numba
import numpy as np
import pytest
import reference as ref
from cli_helpers import invoke
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import curator
import curator.common.resources
from curator.common.files import manifest_text
from curator.export.pack import load_pack
from curator.layered.level import Level, replay
from curator.layered.metrics import solve_position
from curator.layered.search import Explorer
from curator.layered.space import StateSpace
from curator.layered.store import LayerStore

ROOT = Path(__file__).resolve().parent.parent
PUZZLES = ROOT / "puzzles"
TRIANGLE = PUZZLES / "triangle.toml"
FLING = PUZZLES / "fling.toml"
CHESS = PUZZLES / "solitaire-chess.toml"
EIGHT = PUZZLES / "eight-puzzle.toml"
SCHEMAS = ROOT / "schemas"

TRIANGLE_CELLS = [(r, c) for r in range(5) for c in range(r + 1)]
TRIANGLE_DIRECTIONS = ref.TRIANGULAR
CHESS_CELLS = [(r, c) for r in range(4) for c in range(4)]
FLING_MAX = 5
CHESS_MAX = 5

FILTER_NAMES = ("solvable", "unique", "all_moves", "pieces", "counts", "must_include", "must_exclude",
                "canonical")
CHOICE_NAMES = ("sample", "seed", "sort", "limit", "difficulty")
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


# -- stores, each analyzed once ------------------------------------------------------------------


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tmp_path_factory.mktemp("api")


@pytest.fixture(scope="module")
def triangle(base):
    return curator.analyze(TRIANGLE, output=base / "triangle", workers=1)


@pytest.fixture(scope="module")
def fling(base):
    return curator.analyze(FLING, output=base / "fling", max_pieces=FLING_MAX, workers=1)


@pytest.fixture(scope="module")
def chess(base):
    return curator.analyze(CHESS, output=base / "chess", max_pieces=CHESS_MAX, workers=2)


@pytest.fixture(scope="module")
def eight(base):
    return curator.analyze(EIGHT, output=base / "eight", workers=1)


@pytest.fixture(autouse=True)
def elsewhere(tmp_path, monkeypatch):
    # Nothing may read or write output/ under the repository.
    monkeypatch.chdir(tmp_path)


def cli_json(*args):
    result = invoke(*args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# -- independent references ------------------------------------------------------------------


def colex_rank(cells: tuple[int, ...]) -> int:
    """Colex rank of a set of cell indices (docs/results-format.md), computed directly."""
    return sum(comb(c, i + 1) for i, c in enumerate(sorted(cells)))


def unpack(words: np.ndarray, size: int) -> np.ndarray:
    return np.unpackbits(np.asarray(words).view(np.uint8), bitorder="little")[:size].astype(bool)


class TriangleTable:
    """Every stored triangle position with its stored bits, by piece count, with ranks worked
    out here (colex) rather than by the package, and each position's class (by the plain
    closure of `reference.position_class`)."""

    def __init__(self, directory: Path) -> None:
        store = LayerStore.open(directory)
        puzzle = store.puzzle()
        symmetric = ref.Symmetric(puzzle)
        self.layers = {}
        for record in store.records():
            k = record.layer.pieces
            combos = list(itertools.combinations(range(15), k))
            ranks = np.array([colex_rank(c) for c in combos])
            order = np.argsort(ranks)
            assert (ranks[order] == np.arange(len(combos))).all()
            masks = np.array([sum(1 << c for c in combos[i]) for i in order], dtype=np.int64)
            rank_of = {int(m): r for r, m in enumerate(masks)}
            classes = np.full(len(masks), -1)
            for r, mask in enumerate(masks):  # each position's class, by the plain closure
                if classes[r] < 0:
                    position = tuple((int(mask) >> c) & 1 for c in range(15))
                    for member in ref.position_class(symmetric, position):
                        classes[rank_of[sum(1 << c for c, v in enumerate(member) if v)]] = r
            bits = store.load(record.layer)
            props = {p: unpack(getattr(bits, p), len(combos)) for p in ("solvable", "unique", "all_moves")}
            offsets = np.array([ref.centre_offset(puzzle, tuple((int(m) >> c) & 1 for c in range(15)))
                                for m in masks])
            self.layers[k] = (record.layer.key, masks, classes, props, offsets)

    def matches(self, *, solvable=None, unique=None, all_moves=None, pieces=None, must_include=(),
                must_exclude=(), canonical=False) -> dict[str, np.ndarray]:
        """Ranks matching the filters per layer key (README, "Selecting levels")."""
        lo, hi = (1, 15) if pieces is None else (pieces, pieces) if isinstance(pieces, int) else pieces
        inc = sum(1 << TRIANGLE_CELLS.index(tuple(c)) for c in must_include)
        exc = sum(1 << TRIANGLE_CELLS.index(tuple(c)) for c in must_exclude)
        out = {}
        for k, (key, masks, classes, props, offsets) in sorted(self.layers.items()):
            if not lo <= k <= hi:
                continue
            ok = np.ones(len(masks), dtype=bool)
            for name, wanted in (("solvable", solvable), ("unique", unique), ("all_moves", all_moves)):
                if wanted is not None:
                    ok &= props[name] == wanted
            ok &= ((masks & inc) == inc) & ((masks & exc) == 0)
            if canonical:  # the most centred matching member of each class wins, then the smallest rank
                ranks = np.arange(len(masks))
                keys = np.round(offsets * 4).astype(np.int64) * len(masks) + ranks
                smallest = np.full(len(masks), np.iinfo(np.int64).max)
                np.minimum.at(smallest, classes[ok], keys[ok])
                ok &= smallest[classes] == keys
            out[key] = np.flatnonzero(ok)
        return out

    def count(self, **filters) -> int:
        return sum(len(v) for v in self.matches(**filters).values())


@pytest.fixture(scope="module")
def table(triangle):
    return TriangleTable(triangle.directory)


def ref_state(puzzle, position):
    cells = puzzle.board.cells
    if len(puzzle.piece_types) > 1:
        return frozenset((cells[i], puzzle.piece_types[v - 1]) for i, v in enumerate(position) if v)
    return frozenset(cells[i] for i, v in enumerate(position) if v)


def ref_children(puzzle):
    cells = frozenset(puzzle.board.cells)
    family = puzzle.rules.family
    if family == "jump":
        return lambda s: ref.jump_children(cells, TRIANGLE_DIRECTIONS, s)
    if family == "fling":
        return lambda s: ref.fling_children(puzzle.board.rows, puzzle.board.cols, s)
    return lambda s: ref.capture_children(cells, s)


def brute(puzzle, position, memo):
    """reference.py's solver on a position: Result(solvable, solutions, all_moves)."""
    return ref.analyze(ref_children(puzzle), ref_state(puzzle, position), puzzle.goal.pieces, None,
                       puzzle.goal.final_step_once, memo)


def pairs(matches: dict[str, np.ndarray]) -> list[tuple[str, int]]:
    return [(key, int(rank)) for key, ranks in matches.items() for rank in ranks]


def one_line_naming(exc: BaseException, keyword: str) -> None:
    """The error is one line that names `keyword` as Python spells it (not as an option)."""
    message = str(exc)
    assert "\n" not in message and message.strip(), message
    assert keyword in message, (keyword, message)
    assert "--" + keyword.replace("_", "-") not in message, message


# -- 1. load ------------------------------------------------------------------------------------


def test_load_layered_and_permutation_files():
    triangle = curator.load(TRIANGLE)
    assert isinstance(triangle, curator.Puzzle)
    assert triangle.name == "triangle" and triangle.board.size == 15
    assert sorted(triangle.board.cells) == TRIANGLE_CELLS
    chess = curator.load(str(CHESS))
    assert isinstance(chess, curator.Puzzle) and chess.piece_types == ("K", "Q", "R", "B", "N", "P")
    eight = curator.load(EIGHT)
    assert isinstance(eight, curator.PermutationPuzzle)
    assert eight.size == math.factorial(9) and eight.move_names == ["up", "down", "left", "right"]


BAD_FILES = [
    ('name = "x"\n[board]\ngrid = "square"\nart = """\n...\n"""\n[rules]\nfamily = "jump"\n'
     '[goal]\npieces = "one"\n', "goal.pieces"),
    ('name = "x"\n[board]\ngrid = "hex"\nart = "..."\n[rules]\nfamily = "jump"\n[goal]\npieces = 1\n',
     "board.grid"),
    ('name = "x"\n[board]\ngrid = "square"\nart = "..."\n[rules]\nfamily = "leap"\n[goal]\npieces = 1\n',
     "rules.family"),
    ('name = "p"\n[rules]\nfamily = "permutation"\n[pieces.t]\ncount = "nine"\n', "pieces.t.count"),
    ("name = [\n", "toml"),
]


@pytest.mark.parametrize("text, key", BAD_FILES)
def test_malformed_file_is_one_puzzle_error_naming_file_and_key(tmp_path, text, key):
    path = tmp_path / "bad-puzzle.toml"
    path.write_text(text)
    with pytest.raises(curator.PuzzleError) as info:
        curator.load(path)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert "\n" not in message and "bad-puzzle.toml" in message and key in message, message
    with pytest.raises(curator.PuzzleError):
        curator.load(tmp_path / "missing.toml")


# -- 2. analyze ---------------------------------------------------------------------------------


def test_analyze_returns_results_of_each_kind(triangle, fling, chess, eight):
    for results in (triangle, fling, chess):
        assert type(results) is curator.LayeredResults and results.complete
    assert type(eight) is curator.DistanceResults and eight.complete
    assert [layer["pieces"] for layer in fling.layers] == list(range(1, FLING_MAX + 1))
    assert [layer["positions"] for layer in fling.layers] == [comb(56, k) for k in range(1, FLING_MAX + 1)]
    assert [layer["pieces"] for layer in triangle.layers] == list(range(1, 16))
    assert max(layer["pieces"] for layer in chess.layers) == CHESS_MAX
    assert sum(layer["positions"] for layer in eight.layers) == math.factorial(9) // 2


class ThreadSpy:
    """A reporter that notes numba's thread count while layers are computed."""

    def __init__(self):
        self.threads = []
        self.finished = []

    def layer_started(self, layer):
        self.threads.append(numba.get_num_threads())

    def advance(self, positions):
        pass

    def layer_finished(self, layer, entry, kept):
        self.finished.append((layer.key, kept))


needs_two_threads = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 numba threads")


@needs_two_threads
@pytest.mark.parametrize("before, workers", [(1, 2), (2, 1)])
def test_analyze_restores_numba_thread_count(tmp_path, before, workers):
    numba.set_num_threads(before)
    try:
        spy = ThreadSpy()
        curator.analyze(TRIANGLE, output=tmp_path / "tri", max_pieces=6, workers=workers, reporter=spy)
        assert spy.threads and set(spy.threads) == {workers}
        assert numba.get_num_threads() == before
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


@needs_two_threads
def test_distance_analysis_restores_thread_count_and_ignores_limits(tmp_path, monkeypatch):
    monkeypatch.setattr(curator.common.resources, "free_memory", lambda: 1000)
    with pytest.raises(curator.ResourceError) as info:
        curator.analyze(EIGHT, output=tmp_path / "refused")
    assert "memory: needs about" in str(info.value) and "1000 B available" in str(info.value)
    assert not (tmp_path / "refused").exists()
    numba.set_num_threads(1)
    try:
        seen = []
        results = curator.analyze(EIGHT, output=tmp_path / "eight", workers=2, ignore_limits=True,
                                  distance_done=lambda d, n: seen.append(numba.get_num_threads()))
        assert numba.get_num_threads() == 1
        assert seen and set(seen) == {2}
        assert type(results) is curator.DistanceResults and results.count() == math.factorial(9) // 2
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def test_progress_without_terminal_prints_one_line_per_layer_and_force_recomputes(tmp_path, capsys):
    out = tmp_path / "tri"
    first = curator.analyze(TRIANGLE, output=out, max_pieces=4, workers=1, progress=True)
    err = capsys.readouterr().err
    for k, size in ((1, 15), (2, 105), (3, 455), (4, 1365)):
        assert f"k{k:02d}: {size:,} positions (" in err, err
    assert "(kept)" not in err and "\x1b[" not in err  # no bars, no cursor codes
    files = {p.name: p.stat().st_mtime_ns for p in out.glob("*.bits")}
    assert len(files) == 12

    spy = ThreadSpy()
    again = curator.analyze(TRIANGLE, output=out, max_pieces=4, workers=1, reporter=spy)
    assert sorted(spy.finished) == [(f"k{k:02d}", True) for k in range(1, 5)]
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("*.bits")} == files
    assert again.summary() == first.summary()

    spy = ThreadSpy()
    forced = curator.analyze(TRIANGLE, output=out, max_pieces=4, workers=1, force=True, reporter=spy)
    assert sorted(spy.finished) == [(f"k{k:02d}", False) for k in range(1, 5)]
    assert all(p.stat().st_mtime_ns != files[p.name] for p in out.glob("*.bits"))
    strip = [{k: v for k, v in layer.items() if k != "seconds"} for layer in forced.layers]
    assert strip == [{k: v for k, v in layer.items() if k != "seconds"} for layer in first.layers]


def test_resource_error_when_memory_is_tiny(tmp_path, monkeypatch):
    monkeypatch.setattr(curator.common.resources, "free_memory", lambda: 1000)
    with pytest.raises(curator.ResourceError) as info:
        curator.analyze(TRIANGLE, output=tmp_path / "tri", workers=1)
    assert isinstance(info.value, curator.StoreError)
    assert "memory: needs about" in str(info.value) and "1000 B available" in str(info.value)
    assert [s.resource for s in info.value.shortfalls] == ["memory"]
    assert not (tmp_path / "tri").exists()
    results = curator.analyze(TRIANGLE, output=tmp_path / "tri", workers=1, ignore_limits=True)
    assert results.complete and len(results.layers) == 15


@pytest.mark.parametrize("keywords, name", [
    ({"workers": 0}, "workers"),
    ({"workers": 99}, "workers"),
    ({"max_pieces": 0}, "max_pieces"),
    ({"max_pieces": "3"}, "max_pieces"),
])
def test_analyze_refuses_bad_workers_and_max_pieces(tmp_path, keywords, name):
    with pytest.raises(curator.SelectionError) as info:
        curator.analyze(TRIANGLE, output=tmp_path / "tri", **keywords)
    one_line_naming(info.value, name)
    assert not (tmp_path / "tri").exists()


# -- 3. open ------------------------------------------------------------------------------------


def test_open_gives_the_class_of_each_kind(triangle, chess, eight, tmp_path):
    for results, kind in ((triangle, curator.LayeredResults), (chess, curator.LayeredResults),
                          (eight, curator.DistanceResults)):
        opened = curator.open(results.directory)
        assert type(opened) is kind
        assert opened.summary() == results.summary()
        assert repr(opened) == f"{kind.__name__}({str(results.directory)!r})"
    assert isinstance(curator.open(str(triangle.directory)), curator.LayeredResults)


def test_open_without_results_is_a_store_error(tmp_path):
    (tmp_path / "empty").mkdir()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.json").write_text("{not json")
    for folder in (tmp_path / "empty", tmp_path / "missing", broken, TRIANGLE):
        with pytest.raises(curator.StoreError) as info:
            curator.open(folder)
        assert "\n" not in str(info.value) and str(folder) in str(info.value)


# -- 4. one shape -------------------------------------------------------------------------------


SHAPE = ("puzzle", "layers", "summary", "count", "select", "solve", "show", "verify", "export")


def test_both_kinds_have_the_same_shape_and_info_json(triangle, chess, eight):
    for cls in (curator.LayeredResults, curator.DistanceResults):
        for name in SHAPE:
            assert hasattr(cls, name), (cls, name)
    for results in (triangle, chess, eight):
        info = cli_json("info", results.directory, "--json")
        assert results.summary() == info
        assert info["puzzle"] == results.puzzle.name and info["complete"] is True
    assert triangle.summary()["layers"] == triangle.layers
    assert chess.summary()["layers"] == chess.layers
    assert all(set(layer["counts"]) == set("KQRBNP") for layer in chess.layers)
    assert eight.summary()["layers"] == eight.layers
    assert eight.layers[-1] == {"distance": 31, "positions": 2}
    assert isinstance(triangle.puzzle, curator.Puzzle) and isinstance(eight.puzzle, curator.PermutationPuzzle)


# -- 5. count, select, Level --------------------------------------------------------------------


def test_count_equals_select_and_cli_count(triangle, table):
    cases = [
        # Every match is selected and rated: 42 here (the README's 486 below are counted only),
        # over three layers, the last without a match.
        {"unique": True, "pieces": (8, 10)},
        {"unique": True, "pieces": (5, 7), "canonical": True},
        {"all_moves": True, "pieces": 6, "must_include": [(2, 1)]},
        {"solvable": False, "pieces": (3, 4), "must_exclude": [(0, 0), (4, 4)], "canonical": True},
    ]
    for filters in cases:
        n = triangle.count(**filters)
        assert n == table.count(**filters)
        levels = triangle.select(**filters)
        assert len(levels) == n
        expected = table.matches(**filters)
        assert [(lv.layer, lv.rank) for lv in levels] == pairs(expected)
        args = ["select", triangle.directory, "--count", "--json"]
        for name, value in filters.items():
            flag = "--" + name.replace("_", "-")
            if value is True:
                args.append(flag)
            elif value is False:
                args.append(flag.replace("--", "--no-"))
            elif name == "pieces":
                args += [flag, f"{value[0]}..{value[1]}" if isinstance(value, tuple) else value]
            else:
                args += [flag, ";".join(f"{r},{c}" for r, c in value)]
        data = cli_json(*args)
        assert data["matched"] == n
        assert data["layers"] == {k: len(v) for k, v in expected.items()}
        assert triangle.count_by_layer(**filters) == data["layers"]
    # The README's example figures.
    assert triangle.count(unique=True, pieces=(5, 7)) == 486
    assert triangle.count(unique=True, pieces=(5, 7), canonical=True) == 81


def check_level(level, results, memo):
    """Every documented attribute of a level, against the store and reference.py."""
    puzzle = results.puzzle
    assert isinstance(level, Level)
    assert level.pieces == sum(1 for v in level.position if v) == len(level.to_json()["cells"])
    layer, rank = StateSpace(puzzle).rank(level.position)
    assert (layer.key, rank) == (level.layer, level.rank)
    assert StateSpace(puzzle).unrank(layer, rank) == tuple(level.position)
    stored = LayerStore.open(results.directory).load(layer).at(rank)
    assert stored == {"solvable": level.solvable, "unique": level.unique, "all_moves": level.all_moves}
    expect = brute(puzzle, level.position, memo)
    assert (level.solvable, level.unique, level.all_moves, level.solutions) == (
        expect.solvable, expect.unique, expect.all_moves, expect.solutions)
    if puzzle.rules.family == "jump":  # each jump gives a different position
        kids = ref_children(puzzle)(ref_state(puzzle, level.position))
        assert level.legal_moves == len(kids)
        goal = puzzle.goal.pieces
        assert level.safe_moves == sum(
            ref.analyze(ref_children(puzzle), kid, goal, memo=memo).solvable for kid in kids)
    art = puzzle.board.draw(puzzle.piece_types[v - 1] if v else "." for v in level.position)
    assert level.board == art.split("\n")
    if level.solvable:
        assert math.isfinite(level.difficulty) and level.difficulty >= 0
        positions = replay(puzzle, level.position, level.solution)
        assert len(level.solution) == level.pieces - puzzle.goal.pieces
        assert sum(1 for v in positions[-1] if v) == puzzle.goal.pieces
    else:
        assert level.difficulty == math.inf and level.solution == []
        assert level.to_json()["difficulty"] is None
    svg = level._repr_svg_()
    assert isinstance(svg, str) and "<svg" in svg and svg.rstrip().endswith("</svg>")


def test_select_levels_have_every_attribute_and_match_cli_json(triangle, chess):
    memo: dict = {}
    for results, options, cli in (
        (triangle, {"unique": True, "pieces": (4, 7), "sample": 6, "seed": 5},
         ["--unique", "--pieces", "4..7", "--sample", "6", "--seed", "5"]),
        (triangle, {"solvable": False, "pieces": 5, "sample": 3, "seed": 1},
         ["--no-solvable", "--pieces", "5", "--sample", "3", "--seed", "1"]),
        (triangle, {"pieces": 1, "limit": 2}, ["--pieces", "1", "--limit", "2"]),
        (chess, {"solvable": True, "pieces": (3, 4), "counts": {"K": 1, "R": (0, 2)}, "sample": 4, "seed": 2},
         ["--solvable", "--pieces", "3..4", "--counts", "K=1,R=0..2", "--sample", "4", "--seed", "2"]),
    ):
        levels = results.select(**options)
        assert levels
        for level in levels:
            check_level(level, results, memo if results is triangle else {})
        data = cli_json("select", results.directory, *cli, "--json")
        assert [level.to_json() for level in levels] == data["levels"]
        if "limit" not in options:
            filters = {k: v for k, v in options.items() if k not in CHOICE_NAMES}
            assert data["matched"] == results.count(**filters)
    goal = triangle.select(pieces=1, limit=1)[0]
    assert goal.difficulty == 0 and goal.solution == [] and goal.solutions == 1


# -- 6. filter keywords -------------------------------------------------------------------------


def test_pieces_counts_and_cells_on_chess(chess):
    layers = chess.layers

    def expected(prop, counts):
        return sum(layer[prop] for layer in layers
                   if all(lo <= layer["counts"][t] <= hi for t, (lo, hi) in counts.items()))

    assert chess.count() == expected("positions", {})
    assert chess.count(pieces=3) == sum(layer["positions"] for layer in layers if layer["pieces"] == 3)
    assert chess.count(counts={"K": 1, "R": (0, 2)}) == expected("positions", {"K": (1, 1), "R": (0, 2)})
    assert chess.count(solvable=True, counts={"Q": 1, "N": (1, 2)}) == expected(
        "solvable", {"Q": (1, 1), "N": (1, 2)})
    assert chess.count(unique=True, pieces=(2, 4), counts={"P": 2}) == sum(
        layer["unique"] for layer in layers if 2 <= layer["pieces"] <= 4 and layer["counts"]["P"] == 2)

    # Cells and canonical forms against every stored position of up to 3 kings, rooks and bishops.
    only = {"Q": 0, "N": 0, "P": 0}
    store = LayerStore.open(chess.directory)
    space = StateSpace(chess.puzzle)
    index = {cell: i for i, cell in enumerate(CHESS_CELLS)}
    rows = []
    for record in store.records():
        if record.layer.pieces > 3 or any(record.entry["counts"][t] for t in only):
            continue
        bits = store.load(record.layer)
        solvable = unpack(bits.solvable, record.layer.size)
        for rank in range(record.layer.size):
            rows.append((record.layer, rank, space.unrank(record.layer, rank), bool(solvable[rank])))
    rank_of = {pos: (layer.key, rank) for layer, rank, pos, _ in rows}
    solvable_of = {pos: s for _, _, pos, s in rows}
    layer_order = {layer.key: (layer.pieces, layer.counts) for layer, _, _, _ in rows}
    classes: dict = {}  # each position's class, by the plain closure, worked out once
    symmetric = ref.Symmetric(chess.puzzle)
    for inc, exc in (([(0, 0)], []), ([(1, 2), (3, 3)], [(0, 1)]), ([], [(2, 2), (1, 1), (0, 3)])):
        def cells_ok(pos):
            return all(pos[index[c]] for c in inc) and not any(pos[index[c]] for c in exc)

        def ok(pos):
            return solvable_of[pos] and cells_ok(pos)

        plain = [rank_of[p] for _, _, p, _ in rows if ok(p)]
        canon = []  # the most centred matching member of each class, then the smallest rank
        for _, rank, p, _ in rows:
            if ok(p):
                if p not in classes:  # the same class for every member (as in TriangleTable)
                    found = ref.position_class(symmetric, p)
                    classes.update(dict.fromkeys(found, found))
                members = [q for q in classes[p] if q in rank_of and ok(q)]
                if min((ref.centre_offset(chess.puzzle, q), rank_of[q][1]) for q in members)[1] == rank:
                    canon.append(rank_of[p])
        keywords = {"solvable": True, "pieces": (1, 3), "counts": only, "must_include": inc,
                    "must_exclude": exc}
        assert chess.count(**keywords) == len(plain)
        assert chess.count(canonical=True, **keywords) == len(canon)
        if len(canon) <= 300:
            picked = chess.select(canonical=True, **keywords)
            assert [(lv.layer, lv.rank) for lv in picked] == sorted(
                canon, key=lambda kr: (*layer_order[kr[0]], kr[1]))


def test_sample_seed_sort_and_limit(triangle, table):
    filters = {"unique": True, "pieces": (5, 8)}
    everything = {(k, int(r)) for k, rs in table.matches(**filters).items() for r in rs}
    one = triangle.select(sample=12, seed=7, **filters)
    again = triangle.select(sample=12, seed=7, **filters)
    assert [lv.to_json() for lv in again] == [lv.to_json() for lv in one]
    picked = [(lv.layer, lv.rank) for lv in one]
    assert len(set(picked)) == 12 and set(picked) <= everything
    assert picked == sorted(picked, key=lambda kr: (int(kr[0][1:]), kr[1]))  # layer, then rank order
    other = [(lv.layer, lv.rank) for lv in triangle.select(sample=12, seed=8, **filters)]
    assert other != picked
    # More than match: all of them.
    every = triangle.select(unique=True, pieces=9, sample=100, seed=1)
    assert len(every) == table.count(unique=True, pieces=9)

    hard = triangle.select(sample=12, seed=7, sort="difficulty:desc", **filters)
    assert sorted((lv.layer, lv.rank) for lv in hard) == sorted(picked)
    values = [lv.difficulty for lv in hard]
    assert values == sorted(values, reverse=True)
    easy = triangle.select(sample=12, seed=7, sort="difficulty", **filters)
    assert [lv.difficulty for lv in easy] == sorted(values)
    top = triangle.select(sample=12, seed=7, sort="difficulty:desc", limit=3, **filters)
    assert [lv.difficulty for lv in top] == values[:3]
    by_solutions = triangle.select(pieces=(5, 6), solvable=True, sample=10, seed=3, sort="solutions:desc")
    counts = [lv.solutions for lv in by_solutions]
    assert counts == sorted(counts, reverse=True)

    first = triangle.select(limit=4, **filters)
    ordered = sorted(everything, key=lambda kr: (int(kr[0][1:]), kr[1]))
    assert [(lv.layer, lv.rank) for lv in first] == ordered[:4]
    sampled_limited = triangle.select(sample=12, seed=7, limit=5, **filters)
    assert [(lv.layer, lv.rank) for lv in sampled_limited] == picked[:5]


TRI_CELLS = st.sampled_from(TRIANGLE_CELLS)
TRI_STATE = st.sampled_from([None, True, False])
PIECE_SPAN = st.one_of(
    st.none(),
    st.integers(1, 15),
    st.tuples(st.integers(1, 15), st.integers(1, 15)).map(lambda t: (min(t), max(t))),
    st.lists(st.integers(1, 15), min_size=2, max_size=2).map(sorted),
)


@SETTINGS
@given(solvable=TRI_STATE, unique=TRI_STATE, all_moves=TRI_STATE, pieces=PIECE_SPAN,
       include=st.lists(TRI_CELLS, max_size=3, unique=True),
       exclude=st.lists(TRI_CELLS, max_size=3, unique=True), canonical=st.booleans())
def test_valid_filter_values_count_like_the_reference(triangle, table, solvable, unique, all_moves, pieces,
                                                     include, exclude, canonical):
    keywords = {"solvable": solvable, "unique": unique, "all_moves": all_moves, "pieces": pieces,
                "must_include": include, "must_exclude": exclude, "canonical": canonical}
    if set(include) & set(exclude):
        with pytest.raises(curator.SelectionError) as info:
            triangle.count(**keywords)
        one_line_naming(info.value, "must_include")
        return
    span = pieces if pieces is None or isinstance(pieces, int) else tuple(pieces)
    expected = table.matches(**{**keywords, "pieces": span})
    assert triangle.count_by_layer(**keywords) == {k: len(v) for k, v in expected.items()}
    total = sum(len(v) for v in expected.values())
    assert triangle.count(**keywords) == total
    if total <= 20:
        levels = triangle.select(**keywords)
        assert [(lv.layer, lv.rank) for lv in levels] == pairs(expected)


def off_triangle(cell):
    return tuple(cell) not in TRIANGLE_CELLS


NOT_A_WHOLE = st.one_of(st.floats(allow_nan=False), st.text(max_size=3), st.booleans(),
                        st.integers(max_value=-1), st.none().map(lambda _: [1, 2, 3]))
BAD_SPAN = st.one_of(
    NOT_A_WHOLE,
    st.tuples(st.integers(2, 15), st.integers(1, 14)).filter(lambda t: t[0] > t[1]),
    st.tuples(st.integers(1, 15), NOT_A_WHOLE),
)
BAD_CELL_LIST = st.one_of(
    st.lists(st.tuples(st.integers(-3, 8), st.integers(-3, 8)).filter(off_triangle), min_size=1, max_size=2),
    st.lists(st.one_of(st.tuples(st.integers(0, 4)), st.tuples(st.integers(0, 4), st.integers(0, 4),
                                                                  st.integers(0, 4)), st.text(max_size=2)),
             min_size=1, max_size=2),
)
TRIANGLE_BAD = st.one_of(
    st.tuples(st.just("pieces"), BAD_SPAN),
    st.tuples(st.sampled_from(["solvable", "unique", "all_moves"]),
              st.one_of(st.integers(), st.text(max_size=3), st.floats(allow_nan=False))),
    st.tuples(st.sampled_from(["must_include", "must_exclude"]), BAD_CELL_LIST),
    st.tuples(st.just("counts"), st.dictionaries(st.sampled_from("oKQ"), st.integers(0, 2), min_size=1)),
    st.tuples(st.just("sort"), st.text(max_size=8).filter(
        lambda s: s.strip().partition(":")[0].replace("-", "_") not in
        ("pieces", "legal_moves", "safe_moves", "solutions", "difficulty", "rank"))),
    st.tuples(st.just("sort"),
              st.sampled_from(["difficulty:up", "rank:x", "pieces:DESC", "solutions:asc:desc"])),
    st.tuples(st.just("canonical"),
              st.one_of(st.integers(), st.text(max_size=3), st.floats(allow_nan=False))),
    st.tuples(st.just("difficulty"), st.one_of(
        st.text(max_size=3), st.booleans(), st.sampled_from([math.nan, math.inf, -math.inf, (1,), (1, 2, 3)]),
        st.tuples(st.floats(1, 9), st.floats(-9, 0.5)),
        st.tuples(st.floats(allow_nan=False), st.sampled_from([math.nan, math.inf, "2", None])),
    )),
)
UNKNOWN_KEYWORD = st.from_regex(r"[a-z][a-z_]{0,12}", fullmatch=True).filter(
    lambda k: k not in FILTER_NAMES + CHOICE_NAMES)


@SETTINGS
@given(item=TRIANGLE_BAD, method=st.sampled_from(["count", "select"]))
def test_bad_filter_values_are_selection_errors_naming_the_keyword(triangle, item, method):
    keyword, value = item
    if keyword in ("sort", "difficulty") and method == "count":
        method = "select"
    with pytest.raises(curator.SelectionError) as info:
        getattr(triangle, method)(**{keyword: value})
    assert isinstance(info.value, ValueError)
    one_line_naming(info.value, keyword)


CHESS_BAD = st.one_of(
    st.dictionaries(st.text(max_size=2).filter(lambda s: s not in "KQRBNP" or not s), st.integers(0, 2),
                    min_size=1),
    st.dictionaries(st.sampled_from("KQRBNP"), BAD_SPAN, min_size=1),
    st.dictionaries(st.sampled_from("KQRBNP"), st.integers(3, 20), min_size=1),
    st.just({}),
)


@SETTINGS
@given(counts=CHESS_BAD)
def test_bad_counts_on_chess_are_selection_errors(chess, counts):
    with pytest.raises(curator.SelectionError) as info:
        chess.count(counts=counts)
    one_line_naming(info.value, "counts")


@SETTINGS
@given(keyword=UNKNOWN_KEYWORD, value=st.one_of(st.integers(), st.text(max_size=3), st.none()))
def test_unknown_keywords_are_selection_errors(triangle, eight, keyword, value):
    for call in (triangle.count, triangle.select, eight.select):
        with pytest.raises(curator.SelectionError) as info:
            call(**{keyword: value})
        one_line_naming(info.value, keyword)


def test_keywords_of_the_other_kind_and_seed_without_sample(triangle, eight):
    with pytest.raises(curator.SelectionError) as info:
        triangle.select(unique=True, pieces=3, seed=4)
    one_line_naming(info.value, "seed")
    for call in (triangle.count, triangle.select):
        with pytest.raises(curator.SelectionError) as info:
            call(distance=(3, 4))
        one_line_naming(info.value, "distance")
    for keyword, value in (("pieces", 3), ("unique", True), ("canonical", True), ("sort", "difficulty"),
                           ("counts", {"K": 1}), ("must_include", [(0, 0)])):
        with pytest.raises(curator.SelectionError) as info:
            eight.select(distance=3, **{keyword: value})
        one_line_naming(info.value, keyword)
    with pytest.raises(curator.SelectionError) as info:
        eight.select(distance=3, seed=1)
    one_line_naming(info.value, "seed")
    with pytest.raises(curator.SelectionError) as info:
        eight.select()
    one_line_naming(info.value, "distance")


@SETTINGS
@given(distance=BAD_SPAN, method=st.sampled_from(["count", "select"]))
def test_bad_distances_are_selection_errors(eight, distance, method):
    with pytest.raises(curator.SelectionError) as info:
        getattr(eight, method)(distance=distance)
    one_line_naming(info.value, "distance")


@pytest.mark.parametrize("keywords, name", [
    ({"sample": 0}, "sample"),
    ({"sample": -2}, "sample"),
    ({"limit": 0}, "limit"),
])
def test_distance_sample_and_limit_below_one(eight, keywords, name):
    with pytest.raises(curator.SelectionError) as info:
        eight.select(distance=5, **keywords)
    one_line_naming(info.value, name)


@SETTINGS
@given(keyword=st.sampled_from(["sample", "limit", "seed", "cap"]),
       value=st.one_of(NOT_A_WHOLE, st.integers(max_value=0)))
def test_bad_sample_limit_seed_and_cap_are_selection_errors(triangle, eight, keyword, value):
    if keyword == "seed" and value == 0:
        value = -1
    keywords = {keyword: value}
    if keyword == "seed":
        keywords["sample"] = 2
    calls = [lambda: triangle.select(pieces=3, **keywords)]
    if keyword != "cap":
        calls.append(lambda: eight.select(distance=3, **keywords))
    for call in calls:
        with pytest.raises(curator.SelectionError) as info:
            call()
        one_line_naming(info.value, keyword)


def test_cap_is_checked(triangle):
    for cap in ("x", 0, 1.5):
        with pytest.raises(curator.SelectionError, match="^cap must be "):
            triangle.select(pieces=3, cap=cap)


@pytest.mark.parametrize("method, keywords, name", [
    ("count", {"pieces": (1, 99)}, "pieces"),
    ("select", {"pieces": 0}, "pieces"),
    ("select", {}, "sample"),  # 32,767 matches: more than get metrics ("add --limit N or --sample N")
])
def test_layered_errors_name_python_keywords(triangle, method, keywords, name):
    with pytest.raises(curator.SelectionError) as info:
        getattr(triangle, method)(**keywords)
    one_line_naming(info.value, name)


WRONG_TYPES = [
    pytest.param("count", {"must_include": 5}, "must_include", id="must_include=5"),
    pytest.param("count", {"must_exclude": None}, "must_exclude", id="must_exclude=None"),
    pytest.param("count", {"must_include": [([0], 0)]}, "must_include", id="must_include=[([0],0)]"),
    pytest.param("count", {"must_include": [(True, False)]}, "must_include",
                 id="must_include=[(True,False)]"),
    pytest.param("count", {"canonical": "no"}, "canonical", id="canonical='no'"),
    pytest.param("select", {"pieces": 3, "sort": 3}, "sort", id="sort=3"),
]


@pytest.mark.parametrize("method, keywords, name", WRONG_TYPES)
def test_wrong_types_on_layered_results_are_selection_errors(triangle, method, keywords, name):
    with pytest.raises(curator.SelectionError) as info:
        getattr(triangle, method)(**keywords)
    one_line_naming(info.value, name)


@pytest.mark.parametrize("counts", [[("K", 1)], "K=1"])
def test_counts_not_a_mapping_is_a_selection_error(chess, counts):
    with pytest.raises(curator.SelectionError) as info:
        chess.count(counts=counts)
    one_line_naming(info.value, "counts")


@pytest.mark.parametrize("keywords, name", [
    ({"sample": "2"}, "sample"),
    ({"sample": True}, "sample"),
    ({"limit": 1.5}, "limit"),
    ({"sample": 2, "seed": "a"}, "seed"),
])
def test_wrong_types_on_distance_results_are_selection_errors(eight, keywords, name):
    with pytest.raises(curator.SelectionError) as info:
        eight.select(distance=3, **keywords)
    one_line_naming(info.value, name)


def test_layered_keywords_on_distance_count(eight):
    with pytest.raises(curator.SelectionError) as info:
        eight.count(pieces=3)
    one_line_naming(info.value, "pieces")


# -- 7. solve -----------------------------------------------------------------------------------


def drawing_of(puzzle, position):
    return "/".join(puzzle.board.draw(puzzle.piece_types[v - 1] if v else "." for v in position).split("\n"))


def test_solve_drawing_and_tuple_agree_with_brute_force(triangle, fling, chess):
    rng = random.Random(11)
    memo_of = {}
    boards = [(triangle, "    ./   o o/  o o o/ o o o o/o o o o o")]
    for _ in range(4):
        cells = rng.sample(range(15), rng.randint(3, 9))
        boards.append((triangle, tuple(int(i in cells) for i in range(15))))
    for k in (3, 5, 6):  # 6 balls: above the stored layers
        cells = rng.sample(range(56), k)
        boards.append((fling, tuple(int(i in cells) for i in range(56))))
    boards.append((fling, "......./......./..o..../......./......./......./......./.o....o"))
    for k in (3, 5, 6):
        pool = [t + 1 for t, n in enumerate(chess.puzzle.piece_limits) for _ in range(n)]
        rng.shuffle(pool)
        cells = rng.sample(range(16), k)
        position = [0] * 16
        for cell, t in zip(cells, pool):
            position[cell] = t
        boards.append((chess, tuple(position)))
    boards.append((chess, "KQ../.R../..N./P..B"))
    for results, board in boards:
        puzzle = results.puzzle
        level = results.solve(board)
        position = level.position
        if isinstance(board, str):
            assert level.board == board.split("/")
        else:
            assert tuple(position) == board
            assert results.solve(drawing_of(puzzle, board)) == level
        assert results.solve(list(position)) == level
        assert results.solve(drawing_of(puzzle, position)).to_json() == level.to_json()
        expect = brute(puzzle, position, memo_of.setdefault(puzzle.name, {}))
        assert (level.solvable, level.unique, level.all_moves, level.solutions) == (
            expect.solvable, expect.unique, expect.all_moves, expect.solutions), (puzzle.name, position)
        fresh = solve_position(puzzle, position)  # no stored layers, no pruning
        assert fresh.report == level.report and fresh.to_json() == level.to_json()
    readme = triangle.solve("    ./   o o/  o o o/ o o o o/o o o o o")
    assert (readme.solvable, readme.unique, readme.solutions, readme.legal_moves) == (True, False, 29760, 2)


def test_solve_rejects_bad_boards(triangle, eight):
    for board in ("xx", "o/o", (0, 0, 0), (2,) * 15, (0.5,) * 15):
        with pytest.raises(curator.SelectionError) as info:
            triangle.solve(board)
        assert "\n" not in str(info.value)
    with pytest.raises(curator.SelectionError):
        eight.solve("x")


@pytest.mark.parametrize("call", [
    pytest.param(lambda t, e: t.solve(5), id="solve(5)"),
    pytest.param(lambda t, e: t.solve(None), id="solve(None)"),
    pytest.param(lambda t, e: e.solve(None), id="distance-solve(None)"),
    pytest.param(lambda t, e: t.show("1", pieces=3), id="show('1')"),
    pytest.param(lambda t, e: e.show("1"), id="distance-show('1')"),
    pytest.param(lambda t, e: e.show(1.5), id="distance-show(1.5)"),
])
def test_single_position_questions_check_their_arguments(triangle, eight, call):
    with pytest.raises(curator.SelectionError):
        call(triangle, eight)


# -- 8. show ------------------------------------------------------------------------------------


def test_show_gives_the_stored_bits(triangle, chess, table):
    memo: dict = {}
    store = LayerStore.open(triangle.directory)
    rng = random.Random(3)
    for k in (1, 4, 7, 12, 15):
        key, masks, _, props, _ = table.layers[k]
        for rank in {0, len(masks) - 1, rng.randrange(len(masks))}:
            found = triangle.show(rank, pieces=k)
            assert isinstance(found, curator.StoredPosition)
            assert (found.layer, found.rank, found.pieces) == (key, rank, k)
            assert found.position == tuple(int(masks[rank] >> i & 1) for i in range(15))
            bits = {p: bool(props[p][rank]) for p in props}
            assert {"solvable": found.solvable, "unique": found.unique, "all_moves": found.all_moves} == bits
            layer = next(r.layer for r in store.records() if r.layer.key == key)
            assert store.load(layer).at(rank) == bits
            expect = brute(triangle.puzzle, found.position, memo)
            assert (found.solvable, found.unique, found.all_moves) == (
                expect.solvable, expect.unique, expect.all_moves)
            assert triangle.show(rank, layer=key) == found
            assert found.to_json() == cli_json("show", triangle.directory, rank, "--pieces", k, "--json")
            assert "<svg" in found._repr_svg_()
    assert repr(triangle.show(0, pieces=1)) == (
        "StoredPosition(layer='k01', rank=0, position=(1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), "
        "solvable=True, unique=True, all_moves=False)")

    chess_store = LayerStore.open(chess.directory)
    space = StateSpace(chess.puzzle)
    for record in chess_store.records()[::37]:
        layer = record.layer
        for rank in (0, layer.size // 2, layer.size - 1):
            found = chess.show(rank, layer=layer.key)
            assert found.position == space.unrank(layer, rank)
            assert {"solvable": found.solvable, "unique": found.unique,
                    "all_moves": found.all_moves} == chess_store.load(layer).at(rank)
            assert found.to_json() == cli_json("show", chess.directory, rank, "--layer", layer.key, "--json")


def test_show_refuses_ranks_and_layers_that_do_not_exist(triangle, chess, eight):
    for rank, keywords in ((-1, {"pieces": 3}), (455, {"pieces": 3}), (10**12, {"layer": "k05"}),
                           (0, {"pieces": 16}), (0, {}), (0, {"layer": "k99"})):
        with pytest.raises(curator.SelectionError) as info:
            triangle.show(rank, **keywords)
        assert "\n" not in str(info.value)
    with pytest.raises(curator.SelectionError):
        chess.show(0, pieces=2)  # several layers have 2 pieces
    assert triangle.show(454, pieces=3).rank == 454
    for rank in (-1, math.factorial(9)):
        with pytest.raises(curator.SelectionError) as info:
            eight.show(rank)
        assert "rank" in str(info.value)
    with pytest.raises(curator.SelectionError):
        eight.show(0, pieces=1)


# -- distance tables against a breadth-first search ---------------------------------------------


def test_distance_table_against_breadth_first_search(eight):
    puzzle = eight.puzzle
    depth = 9
    seen = {puzzle.solved_state: 0}
    queue = deque([puzzle.solved_state])
    while queue:
        state = queue.popleft()
        if seen[state] == depth:
            continue
        for name in puzzle.move_names:
            try:
                nxt = puzzle.apply(state, name)
            except ValueError:
                continue
            if nxt not in seen:
                seen[nxt] = seen[state] + 1
                queue.append(nxt)
    near = eight.select(distance=(0, depth))
    assert [(p.distance, p.rank) for p in near] == sorted((n, puzzle.rank(s)) for s, n in seen.items())
    for d in range(depth + 1):
        assert eight.count(distance=d) == sum(1 for n in seen.values() if n == d)
    assert eight.count(distance=(0, depth)) == len(seen)
    assert [p.rank for p in eight.select(distance=(0, depth), limit=5)] == [p.rank for p in near[:5]]
    sampled = eight.select(distance=(20, 31), sample=6, seed=4)
    for level in sampled + near[::40]:
        assert isinstance(level, curator.DistanceLevel)
        assert level.state == puzzle.unrank(level.rank) == level.position
        assert len(level.solution) == level.distance and level.solvable
        state = level.state
        for name in level.solution:
            state = puzzle.apply(state, name)
        assert state == puzzle.solved_state
        assert level.to_json()["state"] == puzzle.describe(level.state)
        assert level.board == [f"tiles {' '.join(map(str, level.state[0][0]))}"]
        assert "<svg" in level._repr_svg_()
    level = sampled[0]
    assert eight.solve(level.state) == level == eight.show(level.rank) == eight.solve(level.board[0])
    data = cli_json("select", eight.directory, "--distance", "20..31", "--sample", "6", "--seed", "4",
                    "--json")
    assert data["positions"] == [p.to_json() for p in sampled]
    assert data["matched"] == eight.count(distance=(20, 31)) == sum(
        layer["positions"] for layer in eight.layers if layer["distance"] >= 20)
    unreached = eight.show(puzzle.rank((((1, 0, 2, 3, 4, 5, 6, 7, 8), (0,) * 9),)))
    assert unreached.distance is None and not unreached.solvable and unreached.solution == []


# -- 9. verify ----------------------------------------------------------------------------------


def test_verify_fresh_and_damaged_results(triangle, eight, tmp_path):
    result = triangle.verify(sample=50)
    assert result.ok and not result.problems and not result.bad_ranks
    assert eight.verify().ok

    copy = tmp_path / "triangle"
    shutil.copytree(triangle.directory, copy)
    target = copy / "k07.solvable.bits"
    data = bytearray(target.read_bytes())
    data[100] ^= 0x10
    target.write_bytes(bytes(data))
    damaged = curator.open(copy).verify(sample=0)
    assert not damaged.ok and any("k07.solvable.bits" in p for p in damaged.problems), damaged.problems

    # A flipped bit whose checksum is updated too: only re-deriving the ranks finds it.
    sneaky = tmp_path / "sneaky"
    shutil.copytree(triangle.directory, sneaky)
    target = sneaky / "k08.unique.bits"
    data = bytearray(target.read_bytes())
    solvable = unpack(np.frombuffer((sneaky / "k08.solvable.bits").read_bytes(), dtype="<u8"), 6435)
    rank = int(np.flatnonzero(solvable)[0])
    data[rank // 8] ^= 1 << (rank % 8)
    target.write_bytes(bytes(data))
    manifest = json.loads((sneaky / "manifest.json").read_text())
    entry = next(e for e in manifest["layers"] if e["key"] == "k08")
    entry["files"]["unique"]["sha256"] = hashlib.sha256(bytes(data)).hexdigest()
    entry["unique"] += 1 if data[rank // 8] >> (rank % 8) & 1 else -1
    (sneaky / "manifest.json").write_text(manifest_text(manifest))
    result = curator.open(sneaky).verify(sample=6435)
    assert not result.ok and result.bad_ranks, (result.problems, result.bad_ranks)

    table_copy = tmp_path / "eight"
    shutil.copytree(eight.directory, table_copy)
    nib = table_copy / "distances.nib"
    data = bytearray(nib.read_bytes())
    data[1234] ^= 0x01
    nib.write_bytes(bytes(data))
    assert not curator.open(table_copy).verify().ok


# -- 10. export ---------------------------------------------------------------------------------


def test_export_every_format(triangle, chess, tmp_path):
    schema = json.loads((SCHEMAS / "level-pack.schema.json").read_text())
    for results in (triangle, chess):
        levels = results.select(solvable=True, pieces=(3, 4), sample=4, seed=9)
        assert len(levels) == 4
        out = tmp_path / results.puzzle.name
        (pack,) = results.export(levels, out / "pack.json", format="json")
        data = json.loads(pack.read_text())
        jsonschema.validate(data, schema)
        header, back = load_pack(pack)
        assert header.name == results.puzzle.name
        # Figures are written rounded (3 decimals, 4 significant digits): equal as JSON shows them.
        assert [(lv.layer, lv.rank, lv.position, lv.report, lv.class_size) for lv in back] == \
            [(lv.layer, lv.rank, lv.position, lv.report, lv.class_size) for lv in levels]
        assert [lv.to_json() for lv in back] == [lv.to_json() for lv in levels]
        (table_file,) = results.export(levels, out / "levels.csv", format="csv")
        rows = list(csv.reader(table_file.open()))
        assert len(rows) == 1 + len(levels)
        (page,) = results.export(levels, out / "gallery.html", format="html")
        assert page.read_text().count("<svg") >= len(levels)
        svgs = results.export(levels, out / "svg", format="svg")
        assert len(svgs) == 4 and all(p.read_text().lstrip().startswith("<?xml") for p in svgs)
        pngs = results.export(levels, out / "png", format="png")
        assert len(pngs) == 4 and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
        (single,) = results.export(levels[:1], out / "one.svg", format="svg")
        assert single == out / "one.svg" and "<svg" in single.read_text()
    with pytest.raises(ValueError) as info:
        triangle.export(levels, tmp_path / "x.txt", format="txt")
    assert "format" in str(info.value) and "\n" not in str(info.value)


def test_export_distance_positions(eight, tmp_path):
    schema = json.loads((SCHEMAS / "distance-pack.schema.json").read_text())
    positions = eight.select(distance=(10, 12), sample=3, seed=1)
    (pack,) = eight.export(positions, tmp_path / "d.json", format="json")
    data = json.loads(pack.read_text())
    jsonschema.validate(data, schema)
    assert [p["rank"] for p in data["positions"]] == [p.rank for p in positions]
    (table_file,) = eight.export(positions, tmp_path / "d.csv", format="csv")
    assert len(list(csv.reader(table_file.open()))) == 4
    (page,) = eight.export(positions, tmp_path / "d.html", format="html")
    assert page.read_text().count("<svg") >= 3
    assert len(eight.export(positions, tmp_path / "svg", format="svg")) == 3
    pngs = eight.export(positions, tmp_path / "png", format="png")
    assert len(pngs) == 3 and all(p.read_bytes()[:4] == b"\x89PNG" for p in pngs)


def test_documented_pack_reading_imports():
    """Every `from curator... import ...` line of docs/level-pack.md imports."""
    doc = (ROOT / "docs" / "level-pack.md").read_text(encoding="utf-8")
    lines = re.findall(r"^\s*(from curator[\w.]* import [\w, ]+)$", doc, flags=re.M)
    assert lines
    for line in lines:
        exec(line, {})


# -- 11. memory in a long-lived process ----------------------------------------------------------


def resident_bytes() -> int:
    gc.collect()
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def chess_boards(puzzle, count, pieces, seed):
    rng = random.Random(seed)
    pool = [t + 1 for t, n in enumerate(puzzle.piece_limits) for _ in range(n)]
    boards = []
    for _ in range(count):
        rng.shuffle(pool)
        position = [0] * puzzle.board.size
        for cell, t in zip(rng.sample(range(puzzle.board.size), pieces), pool):
            position[cell] = t
        boards.append(tuple(position))
    return boards


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads /proc/self/statm")
def test_solving_many_boards_keeps_memory_flat(chess, monkeypatch):
    """Solving 6-piece boards with layers stored up to 5 pieces: every search reads the
    5-piece tier's solvable words laid end to end, a copy of about 2 MiB for Solitaire Chess
    (whose tiers hold many layers; a one-layer tier such as Fling!'s stays a mapped file, so
    a leak would barely show there). A search that kept every explorer alive (as a
    process-wide functools.cache on an explorer method did) leaks one such copy per results
    object; the last part of this test puts such a cache back and sees the growth."""
    puzzle = chess.puzzle
    tier = sum(layer.words * 8 for layer in StateSpace(puzzle).layers_with(CHESS_MAX))
    assert tier > 1 << 20
    boards = chess_boards(puzzle, 12, CHESS_MAX + 1, seed=5)

    one = curator.open(chess.directory)
    one.solve(boards[0])  # compiles and reads the tier once
    before = resident_bytes()
    for board in boards:
        one.solve(board)
    grown = resident_bytes() - before
    assert grown < 0.25 * len(boards) * tier, (grown, tier)

    fresh = boards  # each open maps every layer file again: about 0.1 s
    curator.open(chess.directory).solve(boards[0])
    alive = []
    original = Explorer.__init__

    def tracked(self, *args, **kwargs):
        original(self, *args, **kwargs)
        alive.append(weakref.ref(self))

    monkeypatch.setattr(Explorer, "__init__", tracked)
    before = resident_bytes()
    for board in fresh:
        level = curator.open(chess.directory).solve(board)
        assert level == one.solve(board)
    grown = resident_bytes() - before
    assert len(alive) == len(fresh)
    assert not [ref for ref in alive if ref() is not None]  # every explorer is gone
    assert grown < 0.25 * len(fresh) * tier, (grown, tier)

    # The measurement catches a leak: keep every explorer, as a process-wide cache would.
    kept = []

    def leaking(self, *args, **kwargs):
        original(self, *args, **kwargs)
        kept.append(self)

    monkeypatch.setattr(Explorer, "__init__", leaking)
    leak_boards = boards[:6]
    before = resident_bytes()
    for board in leak_boards:
        curator.open(chess.directory).solve(board)
    leaked = resident_bytes() - before
    assert leaked > 0.25 * len(leak_boards) * tier, (
        f"keeping every explorer grew memory by only {leaked} bytes for {len(leak_boards)} boards: if "
        "explorers no longer copy the tier's words, this measurement needs another leak to show")


# -- 12. the package's names ------------------------------------------------------------------


def test_all_lists_exactly_the_exports():
    import types

    public = {name for name, value in vars(curator).items()
              if not name.startswith("_") and not isinstance(value, types.ModuleType)}
    assert public | {"__version__"} == set(curator.__all__)
    assert len(curator.__all__) == len(set(curator.__all__))
    for name in curator.__all__:
        assert getattr(curator, name) is not None
    namespace: dict = {}
    exec("from curator import *", namespace)
    assert {k for k in namespace if k != "__builtins__"} == set(curator.__all__)
    assert issubclass(curator.SelectionError, ValueError) and issubclass(curator.PuzzleError, ValueError)
    assert issubclass(curator.ResourceError, curator.StoreError)
    assert curator.Results == (curator.LayeredResults | curator.DistanceResults | curator.SlidingResults
                               | curator.SokobanResults)
    assert (Path(curator.__file__).parent / "py.typed").is_file()
    assert curator.__version__ == "0.1.0"
