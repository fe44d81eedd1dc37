"""Metrics of one position: its report from the search, what a player meets, its difficulty.

`play` follows every position reachable from the level (exact, no sampling) for the figures
a player feels: the chance of winning by random play, how long a mistake stays hidden,
decision points, the information the solution takes, and how much a backtracking player
searches. `difficulty` combines the move count with two of them by a formula fitted on the
shipped Fling! levels (`benchmarks/difficulty.py`). Definitions: docs/metrics.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from curator.common.errors import SelectionError
from curator.layered.classes import class_size
from curator.layered.level import Level, Play, Report
from curator.layered.puzzle import Puzzle
from curator.layered.search import Bound, Explorer, Graph
from curator.layered.space import Layer, StateSpace
from curator.rules.base import encode_move

GRAPH_LIMIT = 2_000_000
"""Most reachable positions `play` follows; beyond it a level gets no player figures."""
SEARCH_WEIGHT = 0.432
"""Difficulty per bit of search beyond one per move (fitted, see `difficulty`)."""
LEGAL_WEIGHT = 0.368
"""Difficulty per bit of legal first moves (fitted, see `difficulty`)."""


def describe(puzzle: Puzzle, explorer: Explorer, layer: Layer, rank: int) -> Level:
    """The level at (layer, rank) with its report, player figures and difficulty."""
    return _level(puzzle, explorer, layer, rank, StateSpace(puzzle).unrank(layer, rank))


def solve_position(puzzle: Puzzle, position: Sequence[int], explorer: Explorer | None = None,
                   bound: Bound | None = None) -> Level:
    """The level of an arbitrary position (e.g. one a designer drew); `explorer` may bring
    stored layers to prune the search with; `bound` limits the search above them (see
    `curator.layered.search.Bound`)."""
    check_position(puzzle, position)
    layer, rank = StateSpace(puzzle).rank(position)
    return _level(puzzle, explorer or Explorer(puzzle), layer, rank, tuple(int(v) for v in position), bound)


def check_position(puzzle: Puzzle, position: Sequence[int]) -> None:
    """SelectionError unless `position` has one entry per cell, each empty or a piece type."""
    if len(position) != puzzle.board.size:
        raise SelectionError(f"a position has {puzzle.board.size} cells, got {len(position)}")
    types = len(puzzle.piece_types)
    if any(not isinstance(v, int | np.integer) or not 0 <= v <= types for v in position):
        raise SelectionError(f"position entries are 0 (empty) to {types} (a piece type)")


def _level(puzzle: Puzzle, explorer: Explorer, layer: Layer, rank: int, position: tuple[int, ...],
           bound: Bound | None = None) -> Level:
    report = explorer.report(position, bound=bound)
    figures = play(explorer, position, report)
    size = class_size(puzzle, position)
    return Level(layer.key, rank, position, report, difficulty(report, figures), puzzle, figures, size)


# -- what a player meets ---------------------------------------------------------------------


def play(explorer: Explorer, position: Sequence[int], report: Report, limit: int = GRAPH_LIMIT,
         ) -> Play | None:
    """The player figures of a position (see `Play`), from every position reachable from it;
    None if more than `limit` positions are reachable."""
    graph = explorer.graph(position, limit)
    if graph is None:
        return None
    solvable, chance, fewest = _backward(graph, explorer.puzzle.goal.pieces)
    if not report.solvable:
        return Play(float(chance[0][0]), None, None, None, None, None, None)
    steps = _steps(graph, solvable, report)
    # After a wrong move into c (d + 1 moves in), the moves left: pieces there - fewest reachable.
    depths = [graph.pieces - d - 1 - int(fewest[d + 1][c]) for d, step in enumerate(steps)
              for c in step.wrong]
    return Play(
        win_chance=float(chance[0][0]),
        mistake_depth=float(np.mean(depths)) if depths else 0.0,
        mistake_depth_max=max(depths, default=0),
        decisions=sum(1 for step in steps if step.distinct > 1),
        forced=sum(1 for step in steps if step.distinct <= 1),
        information=sum(math.log2(step.legal / step.safe) for step in steps),
        search=len(steps) + sum(
            sum(_reach(graph, d + 1, c) for c in step.wrong) / (step.safe + 1) for d, step in enumerate(steps)
        ),
    )


def _backward(graph: Graph, goal_pieces: int) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """Per depth: whether each position is solvable, its chance of being won by uniformly
    random moves, and the fewest pieces reachable from it."""
    last = graph.goals
    solvable, chance = [last], [last.astype(np.float64)]
    fewest = [np.full(last.shape[0], goal_pieces, dtype=np.int64)]
    for d in range(len(graph.edges) - 1, -1, -1):
        edges, size = graph.edges[d], graph.sizes[d]
        ok = np.zeros(size, dtype=bool)
        np.logical_or.at(ok, edges.parents, solvable[0][edges.children])
        total = np.zeros(size, dtype=np.float64)
        np.add.at(total, edges.parents, chance[0][edges.children])
        legal = np.bincount(edges.parents, minlength=size)
        low = np.full(size, graph.pieces - d, dtype=np.int64)
        np.minimum.at(low, edges.parents, fewest[0][edges.children])
        solvable.insert(0, ok)
        chance.insert(0, np.divide(total, legal, out=np.zeros(size), where=legal > 0))
        fewest.insert(0, low)
    return solvable, chance, fewest


class _Step:
    """One step of the solution: its legal and safe moves, distinct results, wrong moves."""

    def __init__(self, legal: int, safe: int, distinct: int, wrong: list[int]) -> None:
        self.legal, self.safe, self.distinct, self.wrong = legal, safe, distinct, wrong


def _steps(graph: Graph, solvable: list[np.ndarray], report: Report) -> list[_Step]:
    """The steps of the reported solution, followed through the graph."""
    steps, node = [], 0
    for d, (a, b) in enumerate(report.solution):
        edges = graph.edges[d]
        mine = np.flatnonzero(edges.parents == node)
        children = edges.children[mine]
        ok = solvable[d + 1][children]
        steps.append(_Step(len(mine), int(ok.sum()), len(np.unique(children)), children[~ok].tolist()))
        node = int(children[np.flatnonzero(edges.moves[mine] == encode_move(a, b))[0]])
    return steps


def _reach(graph: Graph, depth: int, index: int) -> int:
    """Distinct positions reachable from position `index` of `depth` (itself included)."""
    marked = np.zeros(graph.sizes[depth], dtype=bool)
    marked[index] = True
    total = 1
    for edges, size in zip(graph.edges[depth:], graph.sizes[depth + 1:]):
        after = np.zeros(size, dtype=bool)
        after[edges.children[marked[edges.parents]]] = True
        total += int(after.sum())
        marked = after
    return total


# -- difficulty ------------------------------------------------------------------------------


def difficulty(report: Report, figures: Play | None) -> float:
    """How hard a level is to a player, in moves:

        difficulty = m + 0.432 * (log2(search) - m) + 0.368 * log2(legal first moves)

    with m = the moves to the goal and `search` the positions a backtracking player visits
    (see `Play`). The move count carries the scale; the search beyond one bit per move and the
    first choice refine it. The constants come from a pairwise fit to the 248 shipped
    Fling! boards and their 35 published difficulty levels (`benchmarks/difficulty.py`
    reproduces them with leave-one-level-out cross-validation). A goal position has
    difficulty 0, an unsolvable one infinity, and one with too many reachable positions to
    follow NaN.
    """
    if not report.solvable:
        return math.inf
    moves = len(report.solution)
    if moves == 0:
        return 0.0
    if figures is None or figures.search is None:
        return math.nan
    return moves + SEARCH_WEIGHT * (math.log2(figures.search) - moves) + LEGAL_WEIGHT * math.log2(
        report.legal_moves
    )


def apply_move(explorer: Explorer, position: Sequence[int], move: tuple[int, int]) -> tuple[int, ...]:
    """The position after `move` (from_cell, to_cell); ValueError if it is not legal."""
    for played, child in explorer.rules.moves_from(tuple(position), explorer.tables):
        if played == tuple(move):
            return child
    raise ValueError(f"move {move} is not legal here")


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman rank correlation (ties get their average rank)."""
    return float(np.corrcoef(_average_ranks(x), _average_ranks(y))[0, 1])


def _average_ranks(values: Sequence[float] | np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(values, kind="stable")
    ranks = np.empty(values.shape[0], dtype=np.float64)
    ranks[order] = np.arange(values.shape[0])
    _, group = np.unique(values, return_inverse=True)
    return (np.bincount(group, weights=ranks) / np.bincount(group))[group]
