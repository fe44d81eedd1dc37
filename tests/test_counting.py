"""Solution counting over stored layers: the compiled pass agrees with plain sums, with the
search that stores nothing and with the brute-force oracle, on every family; its bitmaps and
indexes agree with sorting; sums past 2**64 are counted exactly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import reference as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sample_puzzles import CHESS_5_PIECES, FLING_5X3, TRIANGLE_APEX

import curator
from curator.common.ranking import rank_colex_mask
from curator.layered import counting
from curator.layered.analysis import analyze
from curator.layered.puzzle import load_puzzle, parse_puzzle
from curator.layered.search import Explorer
from curator.layered.space import StateSpace

ROOT = Path(__file__).resolve().parent.parent
TRIANGLE_DIRECTIONS = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1)]



NAMES = ["triangle", "apex", "fling", "chess"]


class Case:
    """A small puzzle analyzed in full, with explorers that use its store and one that does not."""

    def __init__(self, puzzle, directory):
        self.puzzle = puzzle
        self.store = analyze(puzzle, directory, puzzle.max_pieces)
        self.space = StateSpace(puzzle)
        self.layers = [r.layer for r in self.store.records()]
        self.stored = Explorer(puzzle, self.store.solvable_words())
        self.plain = Explorer(puzzle)
        self.memo = {}

    def oracle(self, position):
        cells = self.puzzle.board.cells
        family = self.puzzle.rules.family
        if family == "jump":
            state = frozenset(cells[i] for i, v in enumerate(position) if v)
            children = lambda p: ref.jump_children(frozenset(cells), TRIANGLE_DIRECTIONS, p)  # noqa: E731
        elif family == "fling":
            state = frozenset(cells[i] for i, v in enumerate(position) if v)
            children = lambda p: ref.fling_children(self.puzzle.board.rows, self.puzzle.board.cols, p)  # noqa: E731
        else:
            types = self.puzzle.piece_types
            state = frozenset((cells[i], types[v - 1]) for i, v in enumerate(position) if v)
            children = lambda b: ref.capture_children(frozenset(cells), b)  # noqa: E731
        goal = self.puzzle.goal
        is_goal = None
        if goal.cells is not None:
            allowed = {cells[c] for c in goal.cells}
            is_goal = lambda p: all((x[0] if self.puzzle.typed else x) in allowed for x in p)  # noqa: E731
        return ref.analyze(children, state, goal.pieces, is_goal, goal.final_step_once, self.memo)


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    base = tmp_path_factory.mktemp("counting")
    puzzles = {
        "triangle": load_puzzle(ROOT / "puzzles" / "triangle.toml"),
        "apex": parse_puzzle(TRIANGLE_APEX),
        "fling": parse_puzzle(FLING_5X3),
        "chess": parse_puzzle(CHESS_5_PIECES),
    }
    return {name: Case(puzzle, base / name) for name, puzzle in puzzles.items()}


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_counts_agree_with_plain_sums_the_unpruned_search_and_the_oracle(cases, name, data):
    case = cases[name]
    layer = data.draw(st.sampled_from(case.layers))
    position = case.space.unrank(layer, data.draw(st.integers(0, layer.size - 1)))
    report = case.stored.report(position)
    assert report == case.stored.report(position, exact=True)
    assert report == case.plain.report(position, exact=True)
    assert report.solutions == case.oracle(position).solutions


def test_the_triangle_start_has_its_published_count(cases):
    start = (0,) + (1,) * 14
    assert cases["triangle"].stored.report(start).solutions == 29760
    assert cases["apex"].stored.report(start).solutions == 6816


@pytest.mark.parametrize("name", NAMES)
def test_counts_past_64_bits_are_exact(cases, name):
    """Goal counts of 2**63 make every count that many times the true one: sums pass 2**64
    and must be taken over by Python integers."""
    case = cases[name]
    explorer = case.stored
    layers = sorted(case.layers, key=lambda layer: -layer.pieces)
    positions = (case.space.unrank(layer, r) for layer in layers for r in range(layer.size))
    position = next(p for p in positions if explorer.report(p).solutions > 2)
    solutions = explorer.report(position).solutions
    tiers = explorer._tiers(explorer._states(position), sum(1 for v in position if v))
    goals = explorer._goal(tiers[-1].states).astype(np.uint64) << np.uint64(63)
    counts = explorer._count(tiers, goals, exact=False)
    assert counts[0][0] == solutions * 2**63 > 2**64


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_marked_children_are_the_sorted_solvable_children(data):
    puzzle = load_puzzle(ROOT / "puzzles" / "triangle.toml")
    space = StateSpace(puzzle)
    pieces = data.draw(st.integers(2, 14))
    layer = space.layers_with(pieces)[0]
    ranks = data.draw(st.lists(st.integers(0, layer.size - 1), max_size=30))
    below = space.layers_with(pieces - 1)[0]
    solvable = np.array(data.draw(st.lists(st.integers(0, 2**64 - 1), min_size=below.words,
                                           max_size=below.words)), dtype=np.uint64)
    solvable[-1] &= np.uint64((1 << (below.size - 64 * (below.words - 1))) - 1)  # padding stays 0
    masks = np.array([_mask(space.unrank(layer, r)) for r in ranks], dtype=np.uint64)
    rules = puzzle.rules
    keys, kids = counting.reachable_masks(rules.children, rules.tables(), masks, solvable, space.cells,
                                          pieces - 1)
    expected = sorted({rank_colex_mask(np.uint64(_mask(child)))
                       for r in ranks for _, child in rules.moves_from(space.unrank(layer, r))})
    expected = [k for k in expected if int(solvable[k >> 6]) >> (k & 63) & 1]
    assert keys.tolist() == expected
    assert [space.rank(_position(int(m), space.cells))[1] for m in kids] == expected


@settings(max_examples=60, deadline=None)
@given(keys=st.sets(st.integers(0, 64 * 40 - 1), max_size=60), queries=st.lists(st.integers(0, 64 * 40 - 1)),
       words=st.sampled_from([40, 40 * counting.DENSE_WORDS * 64]))
def test_index_finds_each_key_by_bitmap_and_by_search(keys, queries, words):
    ordered = np.array(sorted(keys), dtype=np.int64)
    index = counting.Index.of(ordered, words)
    assert (index.words.shape[0] > 0) == (len(keys) * counting.DENSE_WORDS >= words)
    place = {k: i for i, k in enumerate(ordered.tolist())}
    for key in queries + sorted(keys):
        assert counting.find(np.int64(key), index.keys, index.words) == place.get(key, -1)


def test_a_sum_past_64_bits_is_reported():
    puzzle = load_puzzle(ROOT / "puzzles" / "triangle.toml")
    rules = puzzle.rules
    start = np.array([_mask((0,) + (1,) * 14)], dtype=np.uint64)
    space = StateSpace(puzzle)
    keys = np.arange(space.layers_with(13)[0].size, dtype=np.int64)
    index = counting.Index.of(keys, space.layers_with(13)[0].words)
    half = np.full(keys.shape[0], 2**63, dtype=np.uint64)
    assert counting.count_masks(rules.children, rules.tables(), start, index, half, False) is None
    ones = np.ones(keys.shape[0], dtype=np.uint64)
    assert counting.count_masks(rules.children, rules.tables(), start, index, ones, False).tolist() == [2]
    assert counting.count_masks(rules.children, rules.tables(), start, index, half, True).tolist() == [2**63]


def test_a_tier_of_several_chunks_counts_as_its_positions_one_by_one():
    """Tiers over one chunk run on threads, smaller ones in the caller's thread: both ways
    give the same counts, and an overflow in any chunk is reported."""
    rng = np.random.default_rng(7)
    puzzle = load_puzzle(ROOT / "puzzles" / "triangle.toml")
    space = StateSpace(puzzle)
    layer, below = space.layers_with(7)[0], space.layers_with(6)[0]
    masks = np.array([_mask(space.unrank(layer, r)) for r in range(layer.size)], dtype=np.uint64)
    keys = np.arange(below.size, dtype=np.int64)
    index = counting.Index.of(keys, below.words)
    assert masks.shape[0] > 1.5 * counting.CHUNK
    counts = rng.integers(0, 1000, below.size, dtype=np.uint64)
    rules = puzzle.rules
    whole = counting.count_masks(rules.children, rules.tables(), masks, index, counts, False)
    alone = [counting.count_masks(rules.children, rules.tables(), masks[i:i + 1], index, counts, False)[0]
             for i in range(masks.shape[0])]
    assert whole.tolist() == alone
    # Only the last chunk's positions reach a count of 2**63 twice.
    late = {rank_colex_mask(np.uint64(_mask(child)))
            for _, child in rules.moves_from(space.unrank(layer, layer.size - 1))}
    counts[sorted(late)] = 2**63
    assert counting.count_masks(rules.children, rules.tables(), masks, index, counts, False) is None

    chess = load_puzzle(ROOT / "puzzles" / "solitaire-chess.toml")
    space = StateSpace(chess)
    layer = max(space.layers_with(4), key=lambda item: item.size)
    tier = space.layers_with(3)
    boards = np.array([space.unrank(layer, r) for r in range(0, layer.size, 4)], dtype=np.int8)
    assert boards.shape[0] > 1.5 * counting.CHUNK
    explorer = Explorer(chess)
    radix, offsets = explorer._key_tables(3)
    words = sum(item.words for item in tier)
    index = counting.Index.of(np.arange(words * 64, dtype=np.int64), words)
    counts = rng.integers(0, 1000, words * 64, dtype=np.uint64)
    rules = chess.rules
    tables = rules.tables()
    whole = counting.count_boards(rules.children, tables, boards, radix, offsets, index, counts, False)
    alone = [counting.count_boards(rules.children, tables, boards[i:i + 1], radix, offsets, index,
                                   counts, False)[0] for i in range(boards.shape[0])]
    assert whole.tolist() == alone
    assert len(set(alone)) > 100  # the counts tell positions apart


@pytest.mark.slow
def test_english_centre_start_count(tmp_path):
    """The published number of games from the English centre start to a peg in the centre
    (about four minutes: the whole store is analyzed first)."""
    puzzle = load_puzzle(ROOT / "puzzles" / "peg-centre.toml")
    analyze(puzzle, tmp_path, 32)
    board = [1] * 33
    board[16] = 0
    assert curator.open(tmp_path).solve(board).solutions == 40_861_647_040_079_968


def _mask(position) -> int:
    return sum(1 << i for i, v in enumerate(position) if v)


def _position(mask: int, cells: int) -> tuple[int, ...]:
    return tuple(mask >> i & 1 for i in range(cells))


SEARCH_THREADS = """
import os, sys
from curator.layered import search
from curator.layered.results import LayeredResults

calls = []
marked = search.reachable_masks
search.reachable_masks = lambda *args: calls.append(1) or marked(*args)
explorer = LayeredResults(sys.argv[1]).explorer
threads = len(os.listdir("/proc/self/task"))
explorer.report((0,) + (1,) * 14)
explorer.report((1,) * 10 + (0,) * 5)
print(len(calls), threads, len(os.listdir("/proc/self/task")))
"""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_a_search_over_stored_layers_starts_no_threads(cases):
    """Rating a pack's pool searches every level, marking each tier's children in a bitmap:
    those passes run in the caller's thread, as starting threads for each small tier cost
    far more than the work (and more still when other processes hold the cores)."""
    directory = cases["triangle"].store.directory
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    found = subprocess.run([sys.executable, "-c", SEARCH_THREADS, str(directory)], capture_output=True,
                           text=True, env=env, check=True)
    marked, before, after = map(int, found.stdout.split())
    assert marked > 0 and after == before, found.stdout
