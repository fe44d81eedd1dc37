"""The compiled sweep agrees bit for bit with the plain reference solver in tests/reference.py.

Every position of small boards is checked for all three properties (some boards only up to
a piece count by default, in full with -m slow); bigger boards are spot-checked, and the
compiled move generators are compared with the reference rules on random positions. Bits
of a layer are compared as arrays indexed by rank, where rank r is the position
`unrank_placement(r, cells, counts)` and cell i is `puzzle.board.cells[i]`.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numba
import numpy as np
import pytest
import reference as ref

from curator.common.ranking import rank_placement, unrank_placement
from curator.common.resources import threads
from curator.common.threads import Threads
from curator.layered import sweep
from curator.layered.bits import PROPERTIES, LayerBits
from curator.layered.gather import gather_bytes
from curator.layered.puzzle import Puzzle, load_puzzle, parse_puzzle
from curator.layered.space import Layer, StateSpace
from curator.layered.sweep import goal_layer, sweep_layer
from curator.rules import MAX_CHILDREN
from curator.rules.base import decode_move

PUZZLES = Path(__file__).resolve().parent.parent / "puzzles"

# --------------------------------------------------------------------------------------------
# Building puzzles and their reference counterparts from one description
# --------------------------------------------------------------------------------------------


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)):
        return repr(value) if isinstance(value, int) else '"' + value + '"'
    return "[" + ", ".join(_toml(v) for v in value) + "]"


@dataclass(frozen=True)
class Case:
    """A small puzzle, written once and turned into both a puzzle file and an oracle."""

    id: str
    art: str
    family: str
    grid: str = "square"
    rules: dict = field(default_factory=dict)
    goal: dict = field(default_factory=dict)
    pieces: dict | None = None
    max_pieces: int | None = None

    def text(self) -> str:
        lines = [f'name = "{self.id}"']
        if self.max_pieces is not None:
            lines.append(f"max_pieces = {self.max_pieces}")
        lines += ["[board]", f'grid = "{self.grid}"', f'art = """\n{self.art}\n"""']
        lines += ["[rules]", f'family = "{self.family}"']
        lines += [f"{k} = {_toml(v)}" for k, v in self.rules.items()]
        lines += ["[goal]"] + [f"{k} = {_toml(v)}" for k, v in self.goal.items()]
        if self.pieces is not None:
            lines += ["[pieces]"] + [f"{k} = {v}" for k, v in self.pieces.items()]
        return "\n".join(lines) + "\n"

    def puzzle(self) -> Puzzle:
        return parse_puzzle(self.text(), self.id)


def art_cells(art: str, grid: str) -> list[tuple[int, int]]:
    """Cells of a drawing computed independently of curator.common.board (row-major order)."""
    lines = art.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    raw = [(y, x) for y, line in enumerate(lines) for x, ch in enumerate(line) if ch in ".o"]
    if grid == "triangular":
        raw = [(y, (x + y) // 2) for y, x in raw]
    r0 = min(r for r, _ in raw)
    c0 = min(c for _, c in raw)
    return sorted((r - r0, c - c0) for r, c in raw)


@dataclass
class Oracle:
    """The reference rules of one puzzle, working on frozensets of (row, col) cells."""

    cells: tuple[tuple[int, int], ...]
    letters: tuple[str, ...] | None
    children: Callable[[frozenset], set]
    is_goal: Callable[[frozenset], bool] | None
    goal_pieces: int
    final_step_once: bool
    memo: dict = field(default_factory=dict)

    def position(self, board: tuple[int, ...]) -> frozenset:
        if self.letters is None:
            return frozenset(self.cells[i] for i, t in enumerate(board) if t)
        return frozenset((self.cells[i], self.letters[t - 1]) for i, t in enumerate(board) if t)

    def board(self, position: frozenset) -> tuple[int, ...]:
        index = {cell: i for i, cell in enumerate(self.cells)}
        out = [0] * len(self.cells)
        for item in position:
            if self.letters is None:
                out[index[item]] = 1
            else:
                out[index[item[0]]] = self.letters.index(item[1]) + 1
        return tuple(out)

    def result(self, position: frozenset) -> ref.Result:
        return ref.analyze(
            self.children, position, self.goal_pieces, self.is_goal, self.final_step_once, self.memo
        )


def oracle_for(case: Case, puzzle: Puzzle) -> Oracle:
    """The reference solver set up from the case description (not from the parsed puzzle)."""
    if case.grid == "triangular" and case.id == "triangle":
        cells = tuple(sorted(ref.triangle(5)))
    else:
        cells = tuple(art_cells(case.art, case.grid))
    assert puzzle.board.cells == cells, "cell numbering is not row-major order of the drawing"
    board = frozenset(cells)
    letters = tuple(case.pieces) if case.pieces else None
    if case.family == "jump":
        if case.grid == "triangular":
            directions = ref.TRIANGULAR
        elif case.rules.get("diagonal"):
            directions = ref.ORTHOGONAL + ref.DIAGONAL
        else:
            directions = ref.ORTHOGONAL
        children = partial(ref.jump_children, board, directions)
    elif case.family == "fling":
        rows = max(r for r, _ in cells) + 1
        cols = max(c for _, c in cells) + 1
        assert len(cells) == rows * cols, "the reference plays Fling! on rectangles only"
        children = partial(ref.fling_children, rows, cols)
    else:
        children = partial(ref.capture_children, board, king_safe=case.rules.get("king_safe", False))

    goal_cells = case.goal.get("cells")
    goal_cells = None if goal_cells is None else {tuple(c) for c in goal_cells}
    goal_piece = case.goal.get("piece")

    def is_goal(position: frozenset) -> bool:
        for item in position:
            cell, letter = (item, None) if letters is None else item
            if goal_cells is not None and cell not in goal_cells:
                return False
            if goal_piece is not None and letter != goal_piece:
                return False
        return True

    restricted = goal_cells is not None or goal_piece is not None
    return Oracle(
        cells,
        letters,
        children,
        is_goal if restricted else None,
        case.goal.get("pieces", 1),
        case.goal.get("final_step_once", False),
    )


# --------------------------------------------------------------------------------------------
# Running the sweep and comparing
# --------------------------------------------------------------------------------------------


def sweep_all(puzzle: Puzzle, max_pieces: int | None = None) -> dict[Layer, LayerBits]:
    """Every layer's bits, computed in memory tier by tier from the goal up."""
    max_pieces = puzzle.max_pieces if max_pieces is None else max_pieces
    out: dict[Layer, LayerBits] = {}
    below: list[LayerBits] | None = None
    for tier in StateSpace(puzzle).tiers(max_pieces):
        here = []
        for layer in tier:
            bits = goal_layer(puzzle, layer) if below is None else sweep_layer(puzzle, layer, below)
            assert bits.layer == layer
            out[layer] = bits
            here.append(bits)
        below = here
    return out


def unpack(words: np.ndarray, layer: Layer) -> np.ndarray:
    """A layer's bits as a bool array by rank; the padding bits must be zero."""
    assert words.dtype == np.uint64 and words.shape == (layer.words,)
    flat = np.unpackbits(words.astype("<u8").view(np.uint8), bitorder="little").astype(bool)
    assert not flat[layer.size :].any(), f"{layer.key}: padding bits are set"
    return flat[: layer.size]


def expected_bits(oracle: Oracle, layer: Layer) -> dict[str, np.ndarray]:
    want = {name: np.zeros(layer.size, dtype=bool) for name in PROPERTIES}
    for rank in range(layer.size):
        result = oracle.result(oracle.position(unrank_placement(rank, layer.cells, layer.counts)))
        want["solvable"][rank] = result.solvable
        want["unique"][rank] = result.unique
        want["all_moves"][rank] = result.all_moves
    return want


def describe(puzzle: Puzzle, layer: Layer, rank: int) -> str:
    board = unrank_placement(rank, layer.cells, layer.counts)
    symbols = ["." if t == 0 else puzzle.piece_types[t - 1] for t in board]
    return f"{layer.key} rank {rank}:\n{puzzle.board.draw(symbols)}"


def assert_matches(puzzle: Puzzle, oracle: Oracle, computed: dict[Layer, LayerBits]) -> None:
    problems = []
    for layer, bits in computed.items():
        want = expected_bits(oracle, layer)
        for name in PROPERTIES:
            got = unpack(getattr(bits, name), layer)
            for rank in np.flatnonzero(got != want[name])[:3]:
                problems.append(
                    f"{name}: sweep {bool(got[rank])}, reference {bool(want[name][rank])} at "
                    + describe(puzzle, layer, int(rank))
                )
    assert not problems, "\n".join(problems[:12])


def assert_not_trivial(computed: dict[Layer, LayerBits]) -> None:
    """The layers with the most pieces hold solvable and unsolvable positions (a case cut
    short at a piece count still decides something there)."""
    top = max(layer.pieces for layer in computed)
    solvable = sum(bits.counts()["solvable"] for layer, bits in computed.items() if layer.pieces == top)
    assert 0 < solvable < sum(layer.size for layer in computed if layer.pieces == top)


def check_case(case: Case, max_pieces: int | None = None) -> dict[Layer, LayerBits]:
    puzzle = case.puzzle()
    oracle = oracle_for(case, puzzle)
    computed = sweep_all(puzzle, max_pieces)
    tiers = StateSpace(puzzle).tiers(puzzle.max_pieces if max_pieces is None else max_pieces)
    assert list(computed) == [layer for tier in tiers for layer in tier]
    assert_matches(puzzle, oracle, computed)
    return computed


# --------------------------------------------------------------------------------------------
# Every position of small boards
# --------------------------------------------------------------------------------------------

RECT_3x4 = "....\n....\n...."
OCTAGON = " ..\n....\n....\n .."
HOLED = "....\n.#..\n...."
PARALLELOGRAM = ". . . .\n . . . .\n  . . . ."
RECT_4x4 = "....\n....\n....\n...."

JUMP_CASES = [
    Case("jump-3x4", RECT_3x4, "jump"),
    Case("jump-3x4-diagonal-cells", RECT_3x4, "jump", rules={"diagonal": True},
         goal={"cells": [[1, 1], [1, 2]]}),
    Case("jump-3x4-cells", RECT_3x4, "jump", rules={"diagonal": False}, goal={"cells": [[0, 0]]}),
    Case("jump-octagon", OCTAGON, "jump"),
    Case("jump-octagon-diagonal-cells", OCTAGON, "jump", rules={"diagonal": True},
         goal={"cells": [[0, 1], [3, 2], [2, 0]]}),
    Case("jump-holed-diagonal", HOLED, "jump", rules={"diagonal": True}),
    Case("jump-3x4-two-left-once", RECT_3x4, "jump",
         goal={"pieces": 2, "final_step_once": True}),
    Case("jump-3x4-two-on-cells", RECT_3x4, "jump", rules={"diagonal": True},
         goal={"pieces": 2, "cells": [[0, 0], [0, 3], [2, 0], [2, 3], [1, 1]]}),
    Case("jump-parallelogram", PARALLELOGRAM, "jump", grid="triangular",
         goal={"cells": [[1, 1], [1, 2]]}),
]


def test_triangle_every_layer_matches_reference():
    text = (PUZZLES / "triangle.toml").read_text()
    puzzle = parse_puzzle(text, "triangle.toml")
    case = Case("triangle", "", "jump", grid="triangular")
    oracle = oracle_for(case, puzzle)
    computed = sweep_all(puzzle)
    assert [layer.pieces for layer in computed] == list(range(1, 16))
    assert_matches(puzzle, oracle, computed)
    # Hand-checkable: every single-vacancy start of the 15-hole triangle is solvable.
    full = next(layer for layer in computed if layer.pieces == 14)
    assert unpack(computed[full].solvable, full).all()


@pytest.mark.parametrize("case", JUMP_CASES, ids=lambda c: c.id)
def test_jump_every_position_matches_reference(case):
    check_case(case)


FLING_CASES = [
    Case("fling-3x4", RECT_3x4, "fling"),
    Case("fling-3x4-once", RECT_3x4, "fling", goal={"final_step_once": True}),
    # 16 cells: more than LINE_LOW_BITS, so the line kernel's layers come in several blocks.
    # Up to 6 balls by default (an eighth of the positions), every layer with -m slow.
    Case("fling-4x4-to-6", RECT_4x4, "fling", max_pieces=6),
    Case("fling-4x4-once-to-6", RECT_4x4, "fling", goal={"final_step_once": True}, max_pieces=6),
    pytest.param(Case("fling-4x4", RECT_4x4, "fling"), marks=pytest.mark.slow),
    pytest.param(Case("fling-4x4-once", RECT_4x4, "fling", goal={"final_step_once": True}),
                 marks=pytest.mark.slow),
    Case("fling-2x6-two-left-once", "......\n......", "fling",
         goal={"pieces": 2, "final_step_once": True}),
    Case("fling-1x9-cells", ".........", "fling", goal={"cells": [[0, 4]]}),
    Case("fling-3x4-cells-once", RECT_3x4, "fling",
         goal={"cells": [[0, 0], [1, 2], [2, 3]], "final_step_once": True}),
]


@pytest.mark.parametrize("case", FLING_CASES, ids=lambda c: c.id)
def test_fling_every_position_matches_reference(case):
    computed = check_case(case)
    if case.max_pieces is not None:
        assert_not_trivial(computed)


CAPTURE_CASES = [
    # Up to 4 pieces by default (half the positions of 5: every kind of piece still meets
    # every other), up to 5 with -m slow; likewise the holed board below up to 3 and 4.
    Case("capture-3x3", "...\n...\n...", "capture", rules={"king_safe": False},
         pieces={"K": 1, "Q": 1, "B": 1, "N": 1, "P": 2}, max_pieces=4),
    Case("capture-3x3-king-safe-king-left", "...\n...\n...", "capture", rules={"king_safe": True},
         pieces={"P": 2, "R": 1, "K": 1, "N": 1}, goal={"piece": "K"}),
    # 4 pieces of 4 types on 16 cells: the top layer (43,680 positions) spans several chunks.
    Case("capture-4x4-king-safe", RECT_4x4, "capture", rules={"king_safe": True},
         pieces={"K": 1, "R": 1, "N": 1, "P": 1}),
    # One kind of piece; three rooks on a line give the same board by two different captures.
    Case("capture-3x3-rooks", "...\n...\n...", "capture", pieces={"R": 5}),
    Case("capture-3x3-pawns-two-left-once", "...\n...\n...", "capture", rules={"king_safe": True},
         pieces={"P": 3, "K": 1, "B": 1}, goal={"pieces": 2, "final_step_once": True}),
    Case("capture-4x4-holes-on-cells", ".##.\n....\n....\n.#..", "capture",
         pieces={"Q": 1, "B": 1, "P": 2, "K": 1}, goal={"cells": [[0, 0], [3, 0], [2, 2]]},
         max_pieces=3),
    pytest.param(Case("capture-3x3-to-5", "...\n...\n...", "capture", rules={"king_safe": False},
                      pieces={"K": 1, "Q": 1, "B": 1, "N": 1, "P": 2}, max_pieces=5),
                 marks=pytest.mark.slow),
    pytest.param(Case("capture-4x4-holes-on-cells-to-4", ".##.\n....\n....\n.#..", "capture",
                      pieces={"Q": 1, "B": 1, "P": 2, "K": 1},
                      goal={"cells": [[0, 0], [3, 0], [2, 2]]}, max_pieces=4),
                 marks=pytest.mark.slow),
]


@pytest.mark.parametrize("case", CAPTURE_CASES, ids=lambda c: c.id)
def test_capture_every_position_matches_reference(case):
    computed = check_case(case)
    if case.max_pieces is not None:
        assert_not_trivial(computed)


BOARD_8x8 = "\n".join(["........"] * 8)
JUMP_8x8 = Case("jump-8x8", BOARD_8x8, "jump", rules={"diagonal": True},
                goal={"cells": [[7, 7], [0, 0], [3, 4]]})


@pytest.mark.parametrize(("case", "max_pieces"), [
    # Pegs jump onto and over cell 63 with two pegs already; three (41,664 positions for
    # the reference) only with -m slow.
    (JUMP_8x8, 2),
    pytest.param(JUMP_8x8, 3, marks=pytest.mark.slow),
    (Case("fling-8x8", BOARD_8x8, "fling", goal={"final_step_once": True}), 3),
], ids=lambda c: getattr(c, "id", None))
def test_64_cell_boards_match_reference(case, max_pieces):
    """Bit 63 is a cell: masks and goal cells use the whole 64-bit word."""
    computed = check_case(case, max_pieces=max_pieces)
    assert any(unpack(b.solvable, b.layer)[-1] for b in computed.values() if b.layer.pieces == 1)
    assert_not_trivial(computed)


def test_typed_sweep_with_large_piece_limits():
    # Piece limits whose largest layers could never be swept must not stop the small ones.
    board = "\n".join(["........"] * 8)
    pieces = {"Q": 21, "N": 21, "P": 21}
    check_case(Case("capture-8x8-many", board, "capture", pieces=pieces, max_pieces=2))


SLOW_CASES = [
    Case("fling-4x5", "....\n....\n....\n....\n....", "fling"),
    Case("fling-4x5-once", "....\n....\n....\n....\n....", "fling", goal={"final_step_once": True}),
    Case("jump-4x5-diagonal", ".....\n.....\n.....\n.....", "jump", rules={"diagonal": True}),
    Case("capture-4x4-mixed", RECT_4x4, "capture", rules={"king_safe": False},
         pieces={"K": 1, "Q": 1, "R": 1, "B": 1, "N": 1, "P": 2}, max_pieces=4),
    Case("capture-3x3-full", "...\n...\n...", "capture", rules={"king_safe": True},
         pieces={"K": 1, "Q": 1, "B": 1, "N": 1, "P": 2}),
]


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW_CASES, ids=lambda c: c.id)
def test_bigger_boards_match_reference(case):
    check_case(case)


# --------------------------------------------------------------------------------------------
# Big layers: spot checks against the reference, and threads do not change a bit
# --------------------------------------------------------------------------------------------


def _threads() -> int:
    return min(2, numba.config.NUMBA_NUM_THREADS)


def sweep_with_threads(puzzle: Puzzle, max_pieces: int, threads: int) -> dict[Layer, LayerBits]:
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        return sweep_all(puzzle, max_pieces)
    finally:
        numba.set_num_threads(before)


def assert_identical(a: dict[Layer, LayerBits], b: dict[Layer, LayerBits]) -> None:
    assert list(a) == list(b)
    for layer in a:
        for name in PROPERTIES:
            x, y = getattr(a[layer], name), getattr(b[layer], name)
            assert x.dtype == y.dtype and x.shape == y.shape
            assert np.array_equal(x, y), f"{layer.key} {name} differs"


@pytest.fixture(scope="module")
def fling_7x8_to_5():
    if _threads() < 2:
        pytest.skip("needs numba to allow 2 threads")
    puzzle = load_puzzle(PUZZLES / "fling.toml")
    return (
        puzzle,
        sweep_with_threads(puzzle, 5, 1),
        sweep_with_threads(puzzle, 5, 2),
    )


def test_parallel_equals_serial_fling(fling_7x8_to_5):
    puzzle, serial, parallel = fling_7x8_to_5
    biggest = max(serial, key=lambda layer: layer.size)
    # 3.8 million positions: many chunks of 256 words and several compiled calls.
    assert biggest.size == 3819816 and biggest.words > 64 * 256
    assert_identical(serial, parallel)


def test_fling_7x8_known_counts(fling_7x8_to_5):
    puzzle, serial, _ = fling_7x8_to_5
    by_pieces = {layer.pieces: bits for layer, bits in serial.items()}
    counts = by_pieces[2].counts()
    # Two balls in a line with a gap: 8 rows * 15 + 7 columns * 21; the final step counts once.
    assert counts == {"solvable": 267, "unique": 267, "all_moves": 267}
    assert by_pieces[1].counts() == {"solvable": 56, "unique": 56, "all_moves": 0}


def test_fling_7x8_spot_checks(fling_7x8_to_5):
    puzzle, serial, _ = fling_7x8_to_5
    case = Case("fling", "\n".join(["......."] * 8), "fling", goal={"final_step_once": True})
    oracle = oracle_for(case, puzzle)
    rng = random.Random(7)
    problems = []
    for layer, bits in serial.items():
        if layer.pieces < 3:
            continue
        arrays = {name: unpack(getattr(bits, name), layer) for name in PROPERTIES}
        # Include the ranks around block and chunk boundaries, and the very last one.
        edges = [16383, 16384, 1048575, 1048576, 2097152, layer.size - 1]
        ranks = [r for r in edges if r < layer.size] + rng.sample(range(layer.size), 120)
        solvable = np.flatnonzero(arrays["solvable"])
        ranks += [int(r) for r in rng.sample(list(solvable), min(60, len(solvable)))]
        for rank in ranks:
            result = oracle.result(oracle.position(unrank_placement(rank, layer.cells, layer.counts)))
            for name in PROPERTIES:
                if bool(arrays[name][rank]) != getattr(result, name):
                    problems.append(f"{name} at {describe(puzzle, layer, rank)}")
    assert not problems, "\n".join(problems[:6])


def test_fling_shipped_levels_are_unique_in_the_sweep(fling_7x8_to_5):
    """Shipped boards with at most 5 balls are uniquely solvable in the computed bits."""
    puzzle, serial, _ = fling_7x8_to_5
    space = StateSpace(puzzle)
    levels = ref.load_fling_levels(Path(__file__).parent / "data" / "fling_levels")
    checked = 0
    for _, balls in levels:
        if len(balls) > 5:
            continue
        board = tuple(1 if cell in balls else 0 for cell in puzzle.board.cells)
        layer, rank = space.rank(board)
        bits = serial[layer]
        assert unpack(bits.solvable, layer)[rank] and unpack(bits.unique, layer)[rank]
        checked += 1
    assert checked > 0


@pytest.mark.slow
def test_parallel_equals_serial_peg():
    if _threads() < 2:
        pytest.skip("needs numba to allow 2 threads")
    puzzle = load_puzzle(PUZZLES / "peg.toml")
    serial = sweep_with_threads(puzzle, 8, 1)
    parallel = sweep_with_threads(puzzle, 8, 2)
    assert max(layer.size for layer in serial) == 13884156
    assert_identical(serial, parallel)


def test_parallel_equals_serial_typed():
    if _threads() < 2:
        pytest.skip("needs numba to allow 2 threads")
    puzzle = load_puzzle(PUZZLES / "solitaire-chess.toml")
    serial = sweep_with_threads(puzzle, 4, 1)
    parallel = sweep_with_threads(puzzle, 4, 2)
    assert max(layer.size for layer in serial) == 43680
    assert_identical(serial, parallel)


@pytest.mark.parametrize("king_safe", [False, True])
def test_capture_kernel_equals_board_building_kernel(monkeypatch, king_safe):
    """The capture fast path against the typed kernel that builds every child's board."""
    text = (PUZZLES / "solitaire-chess.toml").read_text()
    puzzle = parse_puzzle(text.replace("king_safe = false", f"king_safe = {str(king_safe).lower()}"),
                          "solitaire-chess.toml")
    assert puzzle.rules.options["king_safe"] is king_safe
    fast = sweep_all(puzzle, 4)
    monkeypatch.setattr(puzzle.rules, "sweep_kernel", "boards")
    slow = sweep_all(puzzle, 4)
    assert max(layer.size for layer in slow) == 43680  # four different pieces on 16 cells: 16 * 15 * 14 * 13
    assert_identical(fast, slow)


@pytest.mark.parametrize(("art", "pieces", "images"), [
    (RECT_4x4, {"K": 1, "Q": 1, "R": 1, "N": 1, "P": 1}, 1),  # pawns: the mirror image only
    (RECT_4x4, {"Q": 1, "R": 1, "B": 1, "N": 2}, 7),  # every symmetry of the square
    (".##.\n....\n....\n.#..", {"Q": 1, "B": 1, "N": 1, "K": 1}, 0),  # holes: none
    ("....\n....\n....", {"K": 1, "R": 1, "B": 1, "N": 2}, 3),
])
def test_sweeping_canonical_masks_and_filling_the_rest_equals_sweeping_all(art, pieces, images):
    """`run` skips the masks a symmetry maps to smaller ones and copies their positions'
    bits from the images; `compute` sweeps every position. Both, on every layer."""
    lines = "\n".join(f"{letter} = {count}" for letter, count in pieces.items())
    puzzle = parse_puzzle(f"name = \"sym\"\n[board]\nart = \"\"\"\n{art}\n\"\"\"\n"
                          f"[rules]\nfamily = \"capture\"\n[pieces]\n{lines}\n[goal]\npieces = 1\n")
    assert len(puzzle.symmetries()) == images + 1
    layers = sweep_all(puzzle)
    skipped = 0
    for layer, bits in layers.items():
        if layer.pieces == 1:
            continue
        below = [layers[child] for child in StateSpace(puzzle).layers_with(layer.pieces - 1)]
        each = sweep.LayerSweep(puzzle, layer, below)
        assert (each.images is None) == (images == 0)
        full = each.compute(0, layer.words)
        for name, words in zip(PROPERTIES, full, strict=True):
            assert np.array_equal(words, getattr(bits, name)), f"{layer.key} {name}"
        done: list[int] = []
        each.run(done.append)
        assert sum(done) == layer.size  # both passes' progress together
        if images:
            args = (*each.args[:-1], each.images)  # the canonical masks alone
            with Threads() as threads:
                canonical = sweep._words(threads, each.run_chunks, args, layer.size, 0, layer.words)
            skipped += int(np.bitwise_count(full[0] & ~canonical[0]).sum())
    assert (skipped > 0) == (images > 0)  # some solvable positions came from the fill


def test_a_share_that_fails_fails_the_whole_range():
    if _threads() < 2:
        pytest.skip("needs numba to allow 2 threads")

    def run(args, size, first, last, *out_and_share):
        if out_and_share[-2] == 1:  # the start of the helper's share
            raise RuntimeError("the helper's share failed")

    words = 4 * sweep.CHUNK_WORDS
    with threads(2), Threads() as two, pytest.raises(RuntimeError, match="helper's share"):
        sweep._words(two, run, (), words * 64, 0, words)


@pytest.mark.slow
def test_parallel_equals_serial_typed_big():
    if _threads() < 2:
        pytest.skip("needs numba to allow 2 threads")
    puzzle = load_puzzle(PUZZLES / "solitaire-chess.toml")
    serial = sweep_with_threads(puzzle, 5, 1)
    parallel = sweep_with_threads(puzzle, 5, 2)
    assert max(layer.size for layer in serial) == 524160
    assert_identical(serial, parallel)


@pytest.mark.slow
def test_solitaire_chess_spot_checks():
    puzzle = load_puzzle(PUZZLES / "solitaire-chess.toml")
    computed = sweep_all(puzzle, 5)
    case = Case("solitaire-chess", RECT_4x4, "capture", rules={"king_safe": False},
                pieces={"K": 1, "Q": 1, "R": 2, "B": 2, "N": 2, "P": 2})
    oracle = oracle_for(case, puzzle)
    rng = random.Random(11)
    for layer, bits in computed.items():
        if layer.pieces < 4:
            continue
        arrays = {name: unpack(getattr(bits, name), layer) for name in PROPERTIES}
        for rank in rng.sample(range(layer.size), min(40, layer.size)):
            result = oracle.result(oracle.position(unrank_placement(rank, layer.cells, layer.counts)))
            for name in PROPERTIES:
                assert bool(arrays[name][rank]) == getattr(result, name), describe(puzzle, layer, rank)


# --------------------------------------------------------------------------------------------
# Compiled move generation against the reference rules
# --------------------------------------------------------------------------------------------


def compiled_children(puzzle: Puzzle, board: tuple[int, ...]):
    """(children as boards, moves as (src, dst), removed types or None) of the compiled rules,
    called as curator/rules/base.py documents."""
    rules = puzzle.rules
    tables = rules.tables()
    n = puzzle.board.size
    mask = np.uint64(sum(1 << i for i, t in enumerate(board) if t))
    masks = np.zeros(MAX_CHILDREN, dtype=np.uint64)
    moves = np.zeros(MAX_CHILDREN, dtype=np.int64)
    if not rules.typed:
        count = rules.children(mask, tables, masks, moves)
        kids = [tuple(int(m) >> i & 1 for i in range(n)) for m in masks[:count]]
        return kids, [decode_move(m) for m in moves[:count]], None
    arr = np.array(board, dtype=np.int8)
    boards = np.zeros((MAX_CHILDREN, n), dtype=np.int8)
    removed = np.zeros(MAX_CHILDREN, dtype=np.int64)
    count = rules.children(mask, arr, tables, masks, boards, removed, moves)
    assert np.array_equal(arr, np.array(board, dtype=np.int8)), "children changed its input"
    kids = [tuple(int(t) for t in row) for row in boards[:count]]
    for kid, kid_mask in zip(kids, masks[:count]):
        assert int(kid_mask) == sum(1 << i for i, t in enumerate(kid) if t), "mask and board differ"
    return kids, [decode_move(m) for m in moves[:count]], [int(t) for t in removed[:count]]


def random_boards(oracle: Oracle, rng: random.Random, count: int, types: int = 1):
    n = len(oracle.cells)
    for _ in range(count):
        k = rng.randint(0, n)
        cells = rng.sample(range(n), k)
        board = [0] * n
        for cell in cells:
            board[cell] = rng.randint(1, types)
        yield tuple(board)


def check_children(case: Case, trials: int, seed: int, typed_limits: bool = False):
    puzzle = case.puzzle()
    oracle = oracle_for(case, puzzle)
    rng = random.Random(seed)
    types = len(puzzle.piece_types)
    for board in random_boards(oracle, rng, trials, types):
        kids, moves, removed = compiled_children(puzzle, board)
        want = oracle.children(oracle.position(board))
        got = {oracle.position(kid) for kid in kids}
        assert got == want, (
            f"{case.id}: children differ from the reference for\n"
            + puzzle.board.draw("." if t == 0 else puzzle.piece_types[t - 1] for t in board)
        )
        pieces = sum(1 for t in board if t)
        assert len(set(moves)) == len(moves), "a move is listed twice"
        for j, (kid, (src, dst)) in enumerate(zip(kids, moves)):
            assert sum(1 for t in kid if t) == pieces - 1
            assert board[src] and not kid[src] and kid[dst]
            if removed is not None:
                assert removed[j] == board[dst] and kid[dst] == board[src]
        if case.family == "jump":
            # Every jump removes a different pair of pegs.
            assert len(set(kids)) == len(kids)


CHILDREN_CASES = [
    (Case("english", (PUZZLES / "peg.toml").read_text().split('"""')[1].strip("\n"), "jump"), 300),
    (Case("french", (PUZZLES / "french.toml").read_text().split('"""')[1].strip("\n"), "jump"), 300),
    (Case("english-diagonal", "  ...\n  ...\n.......\n.......\n.......\n  ...\n  ...", "jump",
          rules={"diagonal": True}), 300),
    (Case("square-8x8-diagonal", "\n".join(["........"] * 8), "jump", rules={"diagonal": True}), 300),
    (Case("hexagon", "  . . .\n . . . .\n. . . . .\n . . . .\n  . . .", "jump", grid="triangular"),
     300),
    (Case("fling-7x8", "\n".join(["......."] * 8), "fling"), 400),
    (Case("fling-8x8", "\n".join(["........"] * 8), "fling"), 300),
    (Case("fling-1x7", ".......", "fling"), 200),
    # The reference's captures on 64 cells are the slowest: 100 boards, 300 with -m slow.
    (Case("chess-8x8", "\n".join(["........"] * 8), "capture",
          pieces={"K": 8, "Q": 8, "R": 8, "B": 8, "N": 8, "P": 8}), 100),
    pytest.param(Case("chess-8x8-more", "\n".join(["........"] * 8), "capture",
                      pieces={"K": 8, "Q": 8, "R": 8, "B": 8, "N": 8, "P": 8}), 300,
                 marks=pytest.mark.slow),
    (Case("chess-holes-king-safe", "..#...\n......\n.#..#.\n......\n...#..", "capture",
          rules={"king_safe": True}, pieces={"P": 5, "K": 3, "N": 4, "B": 4, "Q": 3, "R": 3}), 300),
]


@pytest.mark.parametrize(("case", "trials"), CHILDREN_CASES, ids=lambda c: getattr(c, "id", ""))
def test_compiled_children_match_reference(case, trials):
    check_children(case, trials, seed=zlib.crc32(case.id.encode()))


def _fling_with_holes(cells: frozenset, occupied: frozenset) -> set[frozenset]:
    """Fling on any square board: every maximal run of cells in a row or column is a line of
    its own (a hole ends it like the edge does), played by the reference's `fling_line`."""
    children = set()
    for axis in (0, 1):
        for fixed in {cell[axis] for cell in cells}:
            along = sorted(cell[1 - axis] for cell in cells if cell[axis] == fixed)
            runs, run = [], [along[0]]
            for x in along[1:]:
                if x == run[-1] + 1:
                    run.append(x)
                else:
                    runs.append(run)
                    run = [x]
            runs.append(run)
            for run in runs:
                def at(x, fixed=fixed, axis=axis):
                    return (fixed, x) if axis == 0 else (x, fixed)
                balls = tuple(i for i, x in enumerate(run) if at(x) in occupied)
                rest = occupied - {at(x) for x in run}
                for after in ref.fling_line(len(run), balls):
                    children.add(rest | {at(run[i]) for i in after})
    return children


def test_fling_children_on_a_board_with_holes():
    case = Case("fling-holes", "..#....\n.......\n...#..#\n.#.....\n....#..\n..", "fling")
    puzzle = case.puzzle()
    cells = tuple(art_cells(case.art, "square"))
    assert puzzle.board.cells == cells
    rng = random.Random(5)
    for _ in range(400):
        board = tuple(int(rng.random() < 0.4) for _ in cells)
        occupied = frozenset(cells[i] for i, t in enumerate(board) if t)
        kids, moves, _ = compiled_children(puzzle, board)
        got = {frozenset(cells[i] for i, t in enumerate(kid) if t) for kid in kids}
        assert got == _fling_with_holes(frozenset(cells), occupied), puzzle.board.draw(
            "o" if t else "." for t in board
        )


def test_fling_children_known_line():
    """o.o..o. on one row: the four distinct results of the reference's worked example."""
    case = Case("row", ".......", "fling")
    puzzle = case.puzzle()
    kids, moves, _ = compiled_children(puzzle, (1, 0, 1, 0, 0, 1, 0))
    assert set(kids) == {
        (0, 1, 0, 0, 1, 0, 0),
        (0, 1, 0, 0, 0, 1, 0),
        (1, 0, 0, 0, 1, 0, 0),
        (0, 1, 0, 1, 0, 0, 0),
    }
    assert set(moves) == {(0, 1), (2, 1), (2, 4), (5, 3)}


def test_rank_mapping_round_trips_with_state_space():
    puzzle = CAPTURE_CASES[0].puzzle()
    space = StateSpace(puzzle)
    for layer in space.layers_with(3):
        for rank in (0, layer.size // 2, layer.size - 1):
            board = space.unrank(layer, rank)
            assert board == unrank_placement(rank, layer.cells, layer.counts)
            assert space.rank(board) == (layer, rank) and rank_placement(board, layer.counts) == rank


# --------------------------------------------------------------------------------------------
# The split-rank kernel against the general kernel, on random bits below
# --------------------------------------------------------------------------------------------


def random_child_bits(layer: Layer, rng: np.random.Generator, density: float) -> LayerBits:
    """Bits of a child layer: solvable with this density, unique drawn on its own (the
    kernels must ignore it on unsolvable children); padding bits zero."""
    def draw(p):
        flat = rng.random(layer.words * 64) < p
        flat[layer.size:] = False
        return np.packbits(flat, bitorder="little").view("<u8").astype(np.uint64)

    zeros = np.zeros(layer.words, dtype=np.uint64)
    return LayerBits(layer, draw(density), draw(0.5), zeros)


def kernel_bits(puzzle: Puzzle, layer: Layer, below: LayerBits, kind: str, step_once: bool,
                first: int = 0, last: int | None = None) -> tuple[np.ndarray, ...]:
    """Words first..last-1 of `layer` by the sweep kernel `kind`, with step_once forced (the
    child's words read-only, as `LayerSweep` passes them: one compiled copy serves both)."""
    below = below.decoded(("solvable", "unique"))
    run, args = sweep.KERNELS[kind][1](puzzle.rules, layer, [below], step_once)
    last = layer.words if last is None else last
    with Threads() as threads:
        return sweep._words(threads, run, args, layer.size, first, last)


DRAWS = [(density, step_once) for density in (0.25, 0.5, 0.75) for step_once in (False, True)]


def assert_kernels_agree(puzzle: Puzzle, pieces: list[int], seed: int, first_word: int = 0,
                         fast: str = "patterns", every: bool = True) -> int:
    """The fast kernel (the split-rank one unless told) gives the general kernel's words on
    every layer of `pieces`, for step_once both ways and children a quarter, half and three
    quarters solvable: all six on every layer, or with every=False one of the six per layer
    in turn from one the seed picks (each of them on some layer when there are six layers or
    more). Returns how many positions were compared."""
    rng = np.random.default_rng(seed)
    space = StateSpace(puzzle)
    compared = 0
    for i, k in enumerate(pieces):
        (layer,) = space.layers_with(k)
        (child_layer,) = space.layers_with(k - 1)
        draws = DRAWS if every else [DRAWS[(seed + i) % len(DRAWS)]]
        for density in dict.fromkeys(d for d, _ in draws):
            below = random_child_bits(child_layer, rng, density)
            for step_once in (s for d, s in draws if d == density):
                first = min(first_word, layer.words - 1)
                want = kernel_bits(puzzle, layer, below, "masks", step_once, first)
                got = kernel_bits(puzzle, layer, below, fast, step_once, first)
                for name, w, g in zip(PROPERTIES, want, got, strict=True):
                    assert np.array_equal(w, g), (
                        f"{puzzle.name} k={k} density {density} step_once {step_once}: {name} "
                        f"differs first at word {first + int(np.flatnonzero(w != g)[0])}")
                compared += layer.size - first * 64
    return compared


ENGLISH = (PUZZLES / "peg.toml").read_text().split('"""')[1].strip("\n")
FRENCH = (PUZZLES / "french.toml").read_text().split('"""')[1].strip("\n")


def test_split_kernel_equals_general_kernel_on_the_english_board():
    # Blocks of C(16, c) positions: 1, 16, 120, 560, ... never a whole number of words.
    puzzle = Case("english", ENGLISH, "jump").puzzle()
    assert assert_kernels_agree(puzzle, [2, 3, 4, 5, 31, 32], seed=1) > 6 * 237336


def test_split_kernel_equals_general_kernel_from_a_later_word():
    # Chunks that start inside a block and inside a run.
    puzzle = Case("french-diagonal", FRENCH, "jump", rules={"diagonal": True}).puzzle()
    assert_kernels_agree(puzzle, [4, 5], seed=2, first_word=1001)


SMALL_SPLITS = [
    # (board, rules, (low_bits, run_bits)): blocks and runs of a few positions each
    (Case("square-4x5-diagonal", ".....\n.....\n.....\n.....", "jump", rules={"diagonal": True}),
     [(9, 4), (5, 0)]),
    (Case("hexagon", "  . . .\n . . . .\n. . . . .\n . . . .\n  . . .", "jump", grid="triangular"),
     [(10, 5), (6, 2), (16, 7)]),
    (Case("octagon-diagonal", OCTAGON, "jump", rules={"diagonal": True}), [(5, 3), (8, 1)]),
]


# Every layer of the board with one of the six draws of child bits each by default, all six
# on every layer with -m slow (the slowest of these kernel comparisons).
EVERY_DRAW = pytest.mark.parametrize("every", [False, pytest.param(True, marks=pytest.mark.slow)],
                                     ids=["sampled", "every-draw"])


@EVERY_DRAW
@pytest.mark.parametrize(("case", "splits"), SMALL_SPLITS, ids=lambda c: getattr(c, "id", ""))
def test_split_kernel_equals_general_kernel_with_small_blocks(monkeypatch, case, splits, every):
    puzzle = case.puzzle()
    cells = puzzle.board.size
    for low_bits, run_bits in splits:
        monkeypatch.setattr(sweep, "LOW_BITS", low_bits)
        monkeypatch.setattr(sweep, "RUN_BITS", run_bits)
        assert_kernels_agree(puzzle, list(range(1, cells + 1)), seed=low_bits * 10 + run_bits,
                             every=every)


def test_split_kernel_with_byte_gather_equals_general_kernel(monkeypatch):
    """The gather every processor has, whichever one this processor picks."""
    monkeypatch.setattr(sweep, "fast_gather", lambda: gather_bytes)
    puzzle = Case("english", ENGLISH, "jump").puzzle()
    assert_kernels_agree(puzzle, [4, 30], seed=3)
    monkeypatch.setattr(sweep, "LOW_BITS", 9)
    monkeypatch.setattr(sweep, "RUN_BITS", 5)
    assert_kernels_agree(Case("octagon", OCTAGON, "jump").puzzle(), list(range(1, 13)), seed=4)


def test_split_moves_drop_repeated_moves():
    puzzle = Case("english", ENGLISH, "jump").puzzle()
    moves = puzzle.rules.mask_moves()
    once = sweep.SplitMoves(moves, puzzle.board.size)
    twice = sweep.SplitMoves(moves + moves[::-1], puzzle.board.size)
    for x, y in zip(once.args(), twice.args(), strict=True):
        assert np.array_equal(x, y)
    with pytest.raises(ValueError, match="do not fit in a word"):
        sweep.SplitMoves(moves, puzzle.board.size, run_bits=8)


# --------------------------------------------------------------------------------------------
# The line kernel (Fling!) against the general kernel, on random bits below
# --------------------------------------------------------------------------------------------

FLING_7X8 = (PUZZLES / "fling.toml").read_text().split('"""')[1].strip("\n")
FLING_HOLES = "..#..\n.....\n...#.\n#....\n..."


def test_line_kernel_equals_general_kernel_on_the_fling_board():
    puzzle = Case("fling", FLING_7X8, "fling").puzzle()
    assert puzzle.rules.sweep_kernel == "lines"
    assert assert_kernels_agree(puzzle, [2, 3, 4, 53, 54, 55, 56], seed=6, fast="lines") > 6 * 367290


def test_line_kernel_equals_general_kernel_from_a_later_word():
    puzzle = Case("fling", FLING_7X8, "fling").puzzle()
    assert_kernels_agree(puzzle, [5], seed=7, first_word=58000, fast="lines")


@EVERY_DRAW
@pytest.mark.parametrize(("art", "pieces"), [
    (FLING_HOLES, range(2, 21)),  # segments cut by holes, and rows of two lengths
    (".........", range(2, 10)),  # one segment of 9 cells
    ("\n".join(["........"] * 8), [2, 3, 61, 62, 63, 64]),  # bit 63 is a cell
], ids=["holes", "1x9", "8x8"])
def test_line_kernel_equals_general_kernel_on_other_boards(art, pieces, every):
    puzzle = Case("fling", art, "fling").puzzle()
    assert_kernels_agree(puzzle, list(pieces), seed=len(art), fast="lines", every=every)


@EVERY_DRAW
@pytest.mark.parametrize("low_bits", [0, 1, 4, 7, 12, 25])
def test_line_kernel_equals_general_kernel_with_other_blocks(monkeypatch, low_bits, every):
    # Blocks of every position alone (0) up to one block for the whole layer (25).
    monkeypatch.setattr(sweep, "LINE_LOW_BITS", low_bits)
    assert_kernels_agree(Case("fling", FLING_HOLES, "fling").puzzle(), [2, 5, 11, 19], seed=low_bits,
                         fast="lines", every=every)
    assert_kernels_agree(Case("fling", RECT_4x4, "fling").puzzle(), list(range(2, 17)),
                         seed=low_bits + 100, first_word=3, fast="lines", every=every)


def test_line_kernel_with_byte_gather_equals_general_kernel(monkeypatch):
    monkeypatch.setattr(sweep, "fast_gather", lambda: gather_bytes)
    assert_kernels_agree(Case("fling", FLING_HOLES, "fling").puzzle(), [3, 9, 15], seed=8, fast="lines")


def test_line_kernel_falls_back_on_long_lines(monkeypatch):
    puzzle = Case("fling", RECT_4x4, "fling").puzzle()
    (layer,) = StateSpace(puzzle).layers_with(5)
    (child_layer,) = StateSpace(puzzle).layers_with(4)
    below = random_child_bits(child_layer, np.random.default_rng(9), 0.5)

    def driver():
        return sweep.KERNELS["lines"][1](puzzle.rules, layer, [below], False)[0]

    general = sweep.KERNELS["masks"][1](puzzle.rules, layer, [below], False)[0]
    assert driver() is not general
    monkeypatch.setattr(sweep, "LINE_BITS", 3)
    assert driver() is general
    assert_kernels_agree(puzzle, [2, 8, 15], seed=10, fast="lines")


def test_line_moves_keep_a_child_once():
    # o.o: either ball flung at the other leaves one ball in the middle.
    puzzle = Case("fling", "...", "fling").puzzle()
    assert [kid for _, kid in puzzle.rules.moves_from((1, 0, 1))] == [(0, 1, 0), (0, 1, 0)]
    lines = sweep.LineMoves(puzzle.rules, puzzle.rules.line_segments())
    assert lines.flips[lines.start[0, 0b101]:lines.start[0, 0b110]].tolist() == [0b111]


def test_line_moves_reject_a_move_off_its_segment():
    puzzle = Case("fling", RECT_4x4, "fling").puzzle()
    with pytest.raises(ValueError, match="leaves the segment"):
        sweep.LineMoves(puzzle.rules, [0b1111, 0b0101])  # cells 0 and 2: a ball stops on 1


@pytest.mark.parametrize("kind", ["patterns", "lines"])
def test_fast_kernels_threads_do_not_change_a_bit(kind):
    if _threads() < 2:
        pytest.skip("needs numba to allow 2 threads")
    board, family, pieces = (ENGLISH, "jump", 6) if kind == "patterns" else (FLING_7X8, "fling", 5)
    puzzle = Case(kind, board, family).puzzle()
    (layer,) = StateSpace(puzzle).layers_with(pieces)
    (child_layer,) = StateSpace(puzzle).layers_with(pieces - 1)
    below = random_child_bits(child_layer, np.random.default_rng(5), 0.5)
    assert layer.words > 8 * sweep.CHUNK_WORDS  # several chunks per thread
    runs = {}
    before = numba.get_num_threads()
    try:
        for threads in (1, 2):
            numba.set_num_threads(threads)
            runs[threads] = kernel_bits(puzzle, layer, below, kind, True)
    finally:
        numba.set_num_threads(before)
    for name, one, two in zip(PROPERTIES, runs[1], runs[2], strict=True):
        assert np.array_equal(one, two), f"{name} differs between 1 and 2 threads"
