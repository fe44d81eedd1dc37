"""Single-position search agrees with the sweep, with the plain oracle and with the game."""

import numpy as np
import pytest
from reference import analyze as oracle
from reference import capture_children, jump_children, load_fling_levels

from curator.layered.puzzle import load_puzzle, parse_puzzle
from curator.layered.search import Explorer
from curator.layered.space import StateSpace
from curator.layered.sweep import goal_layer, sweep_layer

LEVELS = "tests/data/fling_levels"

CHESS = """
name = "chess3"
[board]
art = '''
...
...
...
'''
[rules]
family = "capture"
[pieces]
R = 1
B = 1
N = 1
P = 1
[goal]
pieces = 1
"""


def _sweep_all(puzzle):
    space = StateSpace(puzzle)
    bits, below = {}, []
    for tier in space.tiers(puzzle.max_pieces):
        done = [sweep_layer(puzzle, layer, below) if below else goal_layer(puzzle, layer) for layer in tier]
        bits.update({b.layer: b for b in done})
        below = done
    return space, bits


def _bit(words, i):
    return bool((int(words[i >> 6]) >> (i & 63)) & 1)


def test_every_shipped_fling_level_has_exactly_one_solution():
    puzzle = load_puzzle("puzzles/fling.toml")
    explorer = Explorer(puzzle)
    levels = load_fling_levels(LEVELS)
    assert len(levels) == 248
    for level, balls in levels:
        position = [0] * puzzle.board.size
        for cell in balls:
            position[puzzle.board.index[cell]] = 1
        report = explorer.report(position)
        assert report.solutions == 1, (level, sorted(balls))
        assert len(report.solution) == len(balls) - 1


@pytest.mark.parametrize("stride", [pytest.param(1, marks=pytest.mark.slow), 29])
def test_report_matches_sweep_bits(stride):
    puzzle = load_puzzle("puzzles/triangle.toml")
    space, bits = _sweep_all(puzzle)
    explorer = Explorer(puzzle)
    cells = frozenset(puzzle.board.cells)
    for layer, layer_bits in bits.items():
        for rank in range(0, layer.size, stride):
            position = space.unrank(layer, rank)
            report = explorer.report(position)
            assert report.solvable == _bit(layer_bits.solvable, rank)
            assert report.unique == _bit(layer_bits.unique, rank)
            assert report.all_moves == _bit(layer_bits.all_moves, rank)
            if layer.pieces in (9, 11):
                occupied = frozenset(c for c, v in zip(puzzle.board.cells, position) if v)
                expected = oracle(lambda p: jump_children(cells, triangle_directions(), p), occupied, 1)
                assert report.solutions == expected.solutions


def triangle_directions():
    return [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1)]


def test_capture_report_counts_solutions_like_the_oracle():
    puzzle = parse_puzzle(CHESS)
    space, bits = _sweep_all(puzzle)
    explorer = Explorer(puzzle)
    cells = frozenset(puzzle.board.cells)
    for layer in space.layers_with(4):
        for rank in range(0, layer.size, 3):
            position = space.unrank(layer, rank)
            board = frozenset(
                (cell, puzzle.piece_types[v - 1]) for cell, v in zip(puzzle.board.cells, position) if v
            )
            expected = oracle(lambda b: capture_children(cells, b), board, 1)
            report = explorer.report(position)
            assert report.solutions == expected.solutions
            assert report.all_moves == expected.all_moves
            assert report.solvable == _bit(bits[layer].solvable, rank)


def test_solution_replays_to_a_goal_and_pruning_keeps_counts():
    puzzle = load_puzzle("puzzles/triangle.toml")
    _, bits = _sweep_all(puzzle)
    plain = Explorer(puzzle)
    pruned = Explorer(puzzle, {layer: b.solvable for layer, b in bits.items() if layer.pieces < 10})
    start = tuple(0 if i == 0 else 1 for i in range(15))
    a, b = plain.report(start), pruned.report(start)
    assert a == b
    assert a.solutions > 1 and a.solvable and not a.unique
    occupied = {i for i, v in enumerate(start) if v}
    for src, dst in a.solution:
        (r0, c0), (r1, c1) = puzzle.board.cells[src], puzzle.board.cells[dst]
        over = puzzle.board.index[((r0 + r1) // 2, (c0 + c1) // 2)]
        assert src in occupied and over in occupied and dst not in occupied
        occupied -= {src, over}
        occupied.add(dst)
    assert len(occupied) == 1
    assert np.all(np.array(a.solution) >= 0)
