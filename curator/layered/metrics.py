"""Metrics of one position: its report from the search, what a player meets, its difficulty.

`play` follows every position reachable from the level (exact, no sampling) for the figures
a player feels: the chance of winning by random play, how long a mistake stays hidden,
decision points, the information the solution takes, and how much a backtracking player
searches. `measure` reads the same graph for the player model (`curator.common.difficulty`)
whose expected effort is the difficulty. Definitions: docs/metrics.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from curator.common.difficulty import DEFAULT, Measure, Player, Terms, seen
from curator.common.difficulty import spearman as common_spearman
from curator.common.errors import SelectionError
from curator.layered.classes import class_size
from curator.layered.level import Level, Play, Report
from curator.layered.puzzle import Puzzle
from curator.layered.search import Bound, Explorer, Graph
from curator.layered.space import Layer, StateSpace
from curator.rules.base import encode_move

GRAPH_LIMIT = 2_000_000
"""Most reachable positions `play` follows; beyond it a level gets no player figures."""


def describe(puzzle: Puzzle, explorer: Explorer, layer: Layer, rank: int, player: Player = DEFAULT) -> Level:
    """The level at (layer, rank) with its report, player figures and difficulty for `player`."""
    return _level(puzzle, explorer, layer, rank, StateSpace(puzzle).unrank(layer, rank), player=player)


def solve_position(puzzle: Puzzle, position: Sequence[int], explorer: Explorer | None = None,
                   bound: Bound | None = None, player: Player = DEFAULT) -> Level:
    """The level of an arbitrary position (e.g. one a designer drew); `explorer` may bring
    stored layers to prune the search with; `bound` limits the search above them (see
    `curator.layered.search.Bound`); `player` rates it."""
    check_position(puzzle, position)
    layer, rank = StateSpace(puzzle).rank(position)
    return _level(puzzle, explorer or Explorer(puzzle), layer, rank, tuple(int(v) for v in position), bound,
                  player)


def check_position(puzzle: Puzzle, position: Sequence[int]) -> None:
    """SelectionError unless `position` has one entry per cell, each empty or a piece type."""
    if len(position) != puzzle.board.size:
        raise SelectionError(f"a position has {puzzle.board.size} cells, got {len(position)}")
    types = len(puzzle.piece_types)
    if any(not isinstance(v, int | np.integer) or not 0 <= v <= types for v in position):
        raise SelectionError(f"position entries are 0 (empty) to {types} (a piece type)")


def _level(puzzle: Puzzle, explorer: Explorer, layer: Layer, rank: int, position: tuple[int, ...],
           bound: Bound | None = None, player: Player = DEFAULT) -> Level:
    report = explorer.report(position, bound=bound)
    graph = explorer.graph(position, GRAPH_LIMIT)
    figures, terms, rating = None, None, None
    if graph is not None:
        figures, terms = _figures(graph, explorer.puzzle.goal.pieces, report, player)
        if report.solvable:
            rating = Measure(*measure(graph, np.array([player.lookahead]), np.array([player.notice]))[0])
    size = class_size(puzzle, position)
    return Level(layer.key, rank, position, report, difficulty(report, rating, player), puzzle, figures, size,
                 "" if terms is None else terms.text())


# -- what a player meets ---------------------------------------------------------------------


def play(explorer: Explorer, position: Sequence[int], report: Report, limit: int = GRAPH_LIMIT,
         ) -> Play | None:
    """The player figures of a position (see `Play`), from every position reachable from it;
    None if more than `limit` positions are reachable."""
    graph = explorer.graph(position, limit)
    return None if graph is None else _figures(graph, explorer.puzzle.goal.pieces, report)[0]


def _figures(graph: Graph, goal_pieces: int, report: Report, player: Player = DEFAULT,
             ) -> tuple[Play, Terms | None]:
    """The player figures of the root of `graph` (see `Play`), and the terms of its
    difficulty for `player` along the reported solution (None if it is not solvable)."""
    solvable, chance, fewest = _backward(graph, goal_pieces)
    if not report.solvable:
        return Play(float(chance[0][0]), None, None, None, None, None, None), None
    steps = _steps(graph, solvable, report)
    # After a wrong move into c (d + 1 moves in), the moves left: pieces there - fewest reachable.
    depths = [graph.pieces - d - 1 - int(fewest[d + 1][c]) for d, step in enumerate(steps)
              for c in step.wrong]
    tempting = [graph.pieces - d - 1 - int(fewest[d + 1][c]) for d, step in enumerate(steps)
                for c in set(step.wrong)]
    tempting = [depth for depth in tempting if seen(depth, player.lookahead) < 1]
    terms = Terms(moves=len(steps), dead_ends=len(tempting), hidden=max(tempting, default=0),
                  forced=sum(1 for step in steps if step.distinct <= 1),
                  choices=float(np.mean([step.legal for step in steps])) if steps else 0.0)
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
    ), terms


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


# -- the player model ----------------------------------------------------------------------


def measure(graph: Graph, lookaheads: np.ndarray, notices: np.ndarray) -> np.ndarray:
    """The level at the root of `graph` for the player model (`curator.common.difficulty`), at
    each pair (lookaheads[g], notices[g]): float[g, 3] of moves, wasted, choices.

    One pass from the goal depth back up to the root, over every reachable position x that
    can still be solved (S safe moves, into the children s; wrong moves into dead ends c,
    each showing as wrong after longest(c) more moves, the most a player can make there;
    tried(c, n) the positions a player tries from c when it follows every line n moves deep,
    1 + the sum of tried(child, n - 1) over c's moves):

        moves(x)   = mean over s of (1 + moves(s))
        wasted(x)  = mean over s of wasted(s)
                     + sum over c of (1 - seen(longest(c))) * tried(c, notice) / S
        choices(x) = mean over s of choices(s) + log2(legal moves at x)

    (the right move is one of the S safe moves, each as likely; a wrong move it cannot see
    through is tried as often as a right one). Notice depths are whole moves (rounded).
    """
    points = lookaheads.shape[0]
    depths = np.rint(notices).astype(np.int64)
    deepest = int(depths.max(initial=0))
    size = graph.sizes[-1]
    solvable = graph.goals
    longest = np.zeros(size, dtype=np.float64)
    tried = np.ones((size, deepest + 1))
    moves = np.zeros(size)
    wasted = np.zeros((size, points))
    choices = np.zeros(size)
    for depth in range(len(graph.edges) - 1, -1, -1):
        edges, size = graph.edges[depth], graph.sizes[depth]
        parents, children = edges.parents, edges.children
        ok = solvable[children]
        safe = np.bincount(parents, weights=ok, minlength=size)
        share = 1.0 / np.maximum(safe, 1)
        legal = np.bincount(parents, minlength=size)
        deeper = np.zeros(size)
        np.maximum.at(deeper, parents, longest[children] + 1)
        dead = children[~ok]
        cost = (1 - seen(longest[dead][:, None], lookaheads[None, :])) * tried[dead][:, depths]
        wrong, right = parents[~ok], parents[ok]
        kept = wasted[children[ok]]
        wasted = np.stack([np.bincount(wrong, weights=cost[:, g], minlength=size)
                           + np.bincount(right, weights=kept[:, g], minlength=size) for g in range(points)],
                          axis=1) * share[:, None]
        moves = np.bincount(right, weights=1 + moves[children[ok]], minlength=size) * share
        choices = (np.bincount(right, weights=choices[children[ok]], minlength=size) * share
                   + np.log2(np.maximum(legal, 1)))
        below = tried
        tried = np.ones((size, deepest + 1))
        for n in range(1, deepest + 1):
            tried[:, n] += np.bincount(parents, weights=below[children, n - 1], minlength=size)
        solvable, longest = safe > 0, deeper
    return np.column_stack([np.full(points, moves[0]), wasted[0], np.full(points, choices[0])])


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
