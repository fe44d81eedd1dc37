"""Metrics of one position: its report from the search, what a player meets, its difficulty.

`play` follows every position reachable from the level (exact, no sampling) for the figures
a player feels: the chance of winning by random play, how long a mistake stays hidden,
decision points, the information the solution takes, and how much a backtracking player
searches. `measure` reads the same walk along the solution for the player model
(`curator.common.difficulty`) whose effort is the difficulty. Definitions: docs/metrics.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from curator.common.bounds import Search
from curator.common.difficulty import DEFAULT, Measure, Player, Terms, grid, seen
from curator.common.difficulty import spearman as common_spearman
from curator.common.errors import SelectionError
from curator.layered.classes import class_size
from curator.layered.level import Level, Play, Report
from curator.layered.puzzle import Puzzle
from curator.layered.search import Explorer, Graph
from curator.layered.space import Layer, StateSpace
from curator.rules.base import encode_move

GRAPH_LIMIT = 2_000_000
"""Most reachable positions `play` follows; beyond it a level gets no player figures."""


def describe(puzzle: Puzzle, explorer: Explorer, layer: Layer, rank: int, player: Player | None = None
             ) -> Level:
    """The level at (layer, rank) with its report, player figures and difficulty for `player`
    (None: the puzzle's own, `Puzzle.player`)."""
    return _level(puzzle, explorer, layer, rank, StateSpace(puzzle).unrank(layer, rank), player=player)


def solve_position(puzzle: Puzzle, position: Sequence[int], explorer: Explorer | None = None,
                   search: Search | None = None, player: Player | None = None) -> Level:
    """The level of an arbitrary position (e.g. one a designer drew); `explorer` may bring
    stored layers to prune the search with; `search` bounds the search above them (see
    `curator.common.bounds.Search`); `player` rates it (None: the puzzle's own)."""
    check_position(puzzle, position)
    layer, rank = StateSpace(puzzle).rank(position)
    return _level(puzzle, explorer or Explorer(puzzle), layer, rank, tuple(int(v) for v in position), search,
                  player)


def check_position(puzzle: Puzzle, position: Sequence[int]) -> None:
    """SelectionError unless `position` has one entry per cell, each empty or a piece type."""
    if len(position) != puzzle.board.size:
        raise SelectionError(f"a position has {puzzle.board.size} cells, got {len(position)}")
    types = len(puzzle.piece_types)
    if any(not isinstance(v, int | np.integer) or not 0 <= v <= types for v in position):
        raise SelectionError(f"position entries are 0 (empty) to {types} (a piece type)")


def _level(puzzle: Puzzle, explorer: Explorer, layer: Layer, rank: int, position: tuple[int, ...],
           search: Search | None = None, player: Player | None = None) -> Level:
    player = puzzle.player if player is None else player
    report = explorer.report(position, search=search)
    graph = explorer.graph(position, GRAPH_LIMIT)
    figures, terms, rating = None, None, None
    if graph is not None:
        figures, terms, found = _figures(graph, explorer.puzzle.goal.pieces, report, grid(player), player)
        rating = None if found is None else Measure(*found[0])
    size = class_size(puzzle, position)
    return Level(layer.key, rank, position, report, difficulty(report, rating, player), puzzle, figures, size,
                 "" if terms is None else terms.text())


# -- what a player meets ---------------------------------------------------------------------


def play(explorer: Explorer, position: Sequence[int], report: Report, limit: int = GRAPH_LIMIT,
         ) -> Play | None:
    """The player figures of a position (see `Play`), from every position reachable from it;
    None if more than `limit` positions are reachable."""
    graph = explorer.graph(position, limit)
    return None if graph is None else _figures(graph, explorer.puzzle.goal.pieces, report, grid())[0]


def measure(graph: Graph, goal_pieces: int, report: Report, lookaheads: np.ndarray) -> np.ndarray | None:
    """The level at the root of `graph` for the player model (`curator.common.difficulty`) at
    each look-ahead: float[lookaheads, FIGURES] of moves, tried, first, knock-ons (see `Measure`),
    along the reported solution; None if it is not solvable. At step d, with S safe moves,
    each wrong move into a dead end c (it shows after longest(c) moves, the most a player
    can make there) adds (1 - seen(longest(c))) * reach(c) / (S + 1) positions tried."""
    return _figures(graph, goal_pieces, report, lookaheads)[2]


def _figures(graph: Graph, goal_pieces: int, report: Report, lookaheads: np.ndarray,
             player: Player = DEFAULT) -> tuple[Play, Terms | None, np.ndarray | None]:
    """The player figures of the root of `graph` (see `Play`), the terms of its difficulty for
    `player` and its measures at each look-ahead (see `measure`) along the reported solution
    (None if it is not solvable)."""
    solvable, chance, fewest = _backward(graph, goal_pieces)
    if not report.solvable:  # no random play wins either (below the goal's pieces too)
        return Play(0.0, None, None, None, None, None, None), None, None
    steps = _steps(graph, solvable, report)
    # After a wrong move into c (d + 1 moves in), the moves left: pieces there - fewest reachable.
    wrong = np.array([(d, _reach(graph, d + 1, c), graph.pieces - d - 1 - int(fewest[d + 1][c]))
                      for d, step in enumerate(steps) for c in step.wrong], dtype=np.float64).reshape(-1, 3)
    odds = np.array([1.0 / (step.safe + 1) for step in steps])[wrong[:, 0].astype(np.int64)]
    tempting = [graph.pieces - d - 1 - int(fewest[d + 1][c]) for d, step in enumerate(steps)
                for c in set(step.wrong)]
    tempting = [depth for depth in tempting if seen(depth, player.lookahead) < 1]
    knock_ons = _knock_ons(graph, solvable)
    terms = Terms(moves=len(steps), dead_ends=len(tempting), hidden=max(tempting, default=0),
                  forced=sum(1 for step in steps if step.distinct <= 1), knock_ons=knock_ons,
                  choices=float(np.mean([step.legal for step in steps])) if steps else 0.0)
    missed = 1 - seen(wrong[:, 2][:, None], lookaheads[None, :])
    tried = len(steps) + (wrong[:, 1] * odds) @ missed
    found = np.column_stack([np.full(len(lookaheads), len(steps)), tried,
                             np.full(len(lookaheads), math.log2(steps[0].legal) if steps else 0.0),
                             np.full(len(lookaheads), knock_ons)])
    depths = wrong[:, 2].astype(np.int64).tolist()
    return Play(
        win_chance=float(chance[0][0]),
        mistake_depth=float(np.mean(depths)) if depths else 0.0,
        mistake_depth_max=max(depths, default=0),
        decisions=sum(1 for step in steps if step.distinct > 1),
        forced=sum(1 for step in steps if step.distinct <= 1),
        information=sum(math.log2(step.legal / step.safe) for step in steps),
        search=len(steps) + float(wrong[:, 1] @ odds),
    ), terms, found


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


def _knock_ons(graph: Graph, solvable: list[np.ndarray]) -> int:
    """The fewest knock-ons of any solution from the root of `graph` (solvable): a move's
    knock-ons are the cells it leaves empty beyond two, the moved piece's and the removed
    piece's (a capture leaves one), each one a piece it set moving."""
    unsolvable = np.iinfo(np.int64).max // 2
    fewest = np.where(solvable[-1], 0, unsolvable)
    for d in range(len(graph.edges) - 1, -1, -1):
        edges = graph.edges[d]
        through = np.maximum(graph.vacated(d) - 2, 0) + fewest[edges.children]
        fewest = np.full(graph.sizes[d], unsolvable)
        np.minimum.at(fewest, edges.parents, through)
    return int(fewest[0])


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


def difficulty(report: Report, found: Measure | None, player: Player = DEFAULT) -> float:
    """How hard a level is: the effort, in moves, of `player` solving it (`Player.effort`
    of the level's `measure`). A goal position has difficulty 0, an unsolvable one infinity,
    and one with too many reachable positions to follow NaN.
    """
    if not report.solvable:
        return math.inf
    if not report.solution:
        return 0.0
    if found is None:
        return math.nan
    return player.effort(found)


def apply_move(explorer: Explorer, position: Sequence[int], move: tuple[int, int]) -> tuple[int, ...]:
    """The position after `move` (from_cell, to_cell); ValueError if it is not legal."""
    for played, child in explorer.rules.moves_from(tuple(position), explorer.tables):
        if played == tuple(move):
            return child
    raise ValueError(f"move {move} is not legal here")


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman rank correlation (ties get their average rank)."""
    return common_spearman(x, y)
