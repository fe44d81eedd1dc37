"""Metrics of one position: its report from the search, and its difficulty.

Difficulty
----------
For a solvable position with m = pieces - goal pieces moves to go, follow the reported
solution through positions p_0 (the position itself) .. p_{m-1}; at each, L_i is the number
of legal moves and S_i the number of safe moves (moves after which the position is still
solvable). Then

    difficulty = m + G / 2 + log2(B)
    G = sum_i log2(L_i / S_i)     guesswork: bits a player needs to stay on a solvable path
                                  along this solution (for a uniquely solvable position,
                                  2**-G is the chance that uniformly random moves solve it)
    B = (sum_i L_i) / m           branching: mean number of legal moves along the solution

A goal position has difficulty 0; an unsolvable position has difficulty infinity (null in
JSON). On the 248 shipped Fling! boards its Spearman rank correlation with the published
difficulty level (1-35) is about 0.93 (see tests/test_select.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from curator.common.errors import SelectionError
from curator.layered.puzzle import Puzzle
from curator.layered.search import Explorer
from curator.layered.space import Layer, StateSpace
from curator.level import Level, Report


def describe(puzzle: Puzzle, explorer: Explorer, layer: Layer, rank: int) -> Level:
    """The level at (layer, rank) with its report and difficulty."""
    position = StateSpace(puzzle).unrank(layer, rank)
    report = explorer.report(position)
    return Level(layer.key, rank, position, report, difficulty(explorer, position, report), puzzle)


def solve_position(puzzle: Puzzle, position: Sequence[int], explorer: Explorer | None = None) -> Level:
    """The level of an arbitrary position (e.g. one a designer drew); `explorer` may bring
    stored layers to prune the search with."""
    if len(position) != puzzle.board.size:
        raise SelectionError(f"a position has {puzzle.board.size} cells, got {len(position)}")
    if any(not isinstance(v, int | np.integer) or not 0 <= v <= len(puzzle.piece_types) for v in position):
        raise SelectionError(f"position entries are 0 (empty) to {len(puzzle.piece_types)} (a piece type)")
    explorer = explorer or Explorer(puzzle)
    layer, rank = StateSpace(puzzle).rank(position)
    report = explorer.report(position)
    return Level(layer.key, rank, tuple(position), report, difficulty(explorer, position, report), puzzle)


def difficulty(explorer: Explorer, position: Sequence[int], report: Report | None = None) -> float:
    """m + G/2 + log2(B) along the reported solution (see the module docstring)."""
    report = report if report is not None else explorer.report(position)
    if not report.solvable:
        return math.inf
    moves = len(report.solution)
    if moves == 0:
        return 0.0
    guess = 0.0
    legal = 0
    here, step = tuple(position), report
    for i, move in enumerate(report.solution):
        if i:
            step = explorer.report(here)
        guess += math.log2(step.legal_moves / step.safe_moves)
        legal += step.legal_moves
        here = apply_move(explorer, here, move)
    return moves + guess / 2 + math.log2(legal / moves)


def apply_move(explorer: Explorer, position: Sequence[int], move: tuple[int, int]) -> tuple[int, ...]:
    """The position after `move` (from_cell, to_cell); ValueError if it is not legal."""
    for played, child in explorer.rules.moves_from(tuple(position), explorer.tables):
        if played == tuple(move):
            return child
    raise ValueError(f"move {move} is not legal here")


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman rank correlation (ties get their average rank)."""
    return float(np.corrcoef(_average_ranks(x), _average_ranks(y))[0, 1])


def _average_ranks(values: Sequence[float]) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(values, kind="stable")
    ranks = np.empty(values.shape[0], dtype=np.float64)
    ranks[order] = np.arange(values.shape[0])
    _, group = np.unique(values, return_inverse=True)
    return (np.bincount(group, weights=ranks) / np.bincount(group))[group]
