"""Picking positions from stored sliding-block tables: filters over whole tables, one level per
connected set (`hardest`), a shortest solution for each pick, and rechecking stored entries
against the rules.

A solution walks from a position to a child whose distance plus the move's cost is the
position's distance, taking the first such move in the puzzle's move order.
"""

from __future__ import annotations

import numba
import numpy as np

from curator.common.kernels import build, kernel
from curator.sliding.puzzle import DIRECTION_NAMES, Position, SlidingPuzzle
from curator.sliding.sweep import ALL_MOVES, INVALID, NO_CLUSTER, UNIQUE, UNSOLVABLE
from curator.sliding.tables import LINE_METRIC, Kernel, is_goal, moves, room, unrank


@kernel(parallel=True)
def _paths(k: Kernel, distances: np.ndarray, ranks: np.ndarray, longest: int):
    """The ranks each position's shortest solution passes through (after it), and their
    number; -1 for a position not solvable, -2 if the walk gets stuck (damaged tables)."""
    lengths = np.full(len(ranks), -1, dtype=np.int64)
    steps = np.zeros((len(ranks), max(longest, 1)), dtype=np.int64)
    for i in numba.prange(len(ranks)):
        pos, children, costs, scratch = room(k)
        r = ranks[i]
        d = np.int64(distances[r])
        if d >= UNSOLVABLE:
            continue
        s = 0
        while d > 0 and s < longest:
            occupied = unrank(k, r, pos)
            n = moves(k, pos, occupied, k.metric, False, children, costs, scratch)
            following = -1
            for j in range(n):
                c = children[j]
                if distances[c] < UNSOLVABLE and distances[c] + costs[j] == d:
                    following = c
                    break
            if following < 0:
                break
            steps[i, s] = following
            s += 1
            r = following
            d = np.int64(distances[r])
        lengths[i] = s if d == 0 else -2
    return lengths, steps


def solutions(k: Kernel, distances: np.ndarray, ranks: np.ndarray, longest: int) -> list[list[int] | None]:
    """For each rank, the ranks its shortest solution passes through (None if it has none).
    ValueError if a walk gets stuck: the tables do not belong to these moves."""
    lengths, steps = build(_paths)(k, distances, np.asarray(ranks, dtype=np.int64), longest)
    if (lengths == -2).any():
        raise ValueError("a stored distance has no move leading one step closer")
    return [None if n < 0 else steps[i, :n].tolist() for i, n in enumerate(lengths)]


def move_text(puzzle: SlidingPuzzle, before: Position, after: Position) -> str:
    """The move between two positions one move apart, as 'V 2,0 -> 3,0' (the piece's letter,
    its anchor cell before and after), or for tilt moves 'tilt up' (the first direction, in
    the order of DIRECTIONS, that leads there)."""
    if puzzle.move == "tilt":
        for d, name in enumerate(DIRECTION_NAMES):
            if puzzle.tilt(before, d) == after:
                return f"tilt {name}"
        raise ValueError("no tilt leads from one position to the other")
    for group, old, new in zip(puzzle.groups, before, after):
        if old != new:
            (source,) = set(old) - set(new)
            (target,) = set(new) - set(old)
            (r0, c0), (r1, c1) = puzzle.board.cells[source], puzzle.board.cells[target]
            return f"{group.letter} {r0},{c0} -> {r1},{c1}"
    raise ValueError("the positions are the same")


def matching(distances: np.ndarray, flags: np.ndarray, clusters: np.ndarray, sizes: np.ndarray,
             distance: tuple[int, int], unique: bool, all_moves: bool, cluster: tuple[int, int] | None,
             hardest: bool) -> np.ndarray:
    """The ranks of the solvable positions that pass the filters, farthest first then by rank;
    with `hardest`, only the first of each connected set."""
    keep = (distances >= distance[0]) & (distances <= distance[1]) & (distances < UNSOLVABLE)
    if unique:
        keep &= (flags & UNIQUE) > 0
    if all_moves:
        keep &= (flags & ALL_MOVES) > 0
    ranks = np.flatnonzero(keep)
    if cluster is not None:
        size = sizes[clusters[ranks]]
        ranks = ranks[(size >= cluster[0]) & (size <= cluster[1])]
    order = np.lexsort((ranks, -distances[ranks].astype(np.int64)))
    ranks = ranks[order]
    if hardest:
        _, first = np.unique(clusters[ranks], return_index=True)
        ranks = ranks[np.sort(first)]
    return ranks


def cluster_sizes(clusters: np.ndarray) -> np.ndarray:
    """The number of positions in each connected set."""
    return np.bincount(clusters[clusters != NO_CLUSTER])


@kernel(parallel=True)
def _recheck(k: Kernel, distances: np.ndarray, flags: np.ndarray, clusters: np.ndarray,
             ranks: np.ndarray) -> np.ndarray:
    """For each rank, what of its stored entries does not follow from its children's under the
    rules: bit 0 validity, 1 distance, 2 unique, 3 all_moves, 4 connected set (0: all agree)."""
    wrong = np.zeros(len(ranks), dtype=np.int64)
    for i in numba.prange(len(ranks)):
        pos, children, costs, scratch = room(k)
        r = ranks[i]
        occupied = unrank(k, r, pos)
        if (occupied == 0) != (distances[r] == INVALID) or (occupied == 0) != (clusters[r] == NO_CLUSTER):
            wrong[i] = 1
            continue
        if occupied == 0:
            continue
        n = moves(k, pos, occupied, k.metric, False, children, costs, scratch)
        d = np.int64(distances[r])
        best = np.int64(UNSOLVABLE)
        on_path = 0
        last = -1
        for j in range(n):
            c = children[j]
            if distances[c] < UNSOLVABLE:
                best = min(best, np.int64(distances[c]) + costs[j])
                if np.int64(distances[c]) + costs[j] == d:
                    on_path += 1
                    last = c
        goal = is_goal(k, pos)
        if (goal and d != 0) or (not goal and d != best):
            wrong[i] |= 2
        unique = goal or (d < UNSOLVABLE and on_path == 1 and (flags[last] & UNIQUE) != 0)
        if unique != ((flags[r] & UNIQUE) != 0):
            wrong[i] |= 4
        n = moves(k, pos, occupied, LINE_METRIC, False, children, costs, scratch)
        every = n > 0 and not goal
        for j in range(n):
            every &= distances[children[j]] < UNSOLVABLE
            if clusters[children[j]] != clusters[r]:
                wrong[i] |= 16
        if every != ((flags[r] & ALL_MOVES) != 0):
            wrong[i] |= 8
    return wrong


RECHECKED = ("valid", "distance", "unique", "all_moves", "connected set")
"""What each bit of a rechecked rank names."""


def recheck(k: Kernel, distances: np.ndarray, flags: np.ndarray, clusters: np.ndarray,
            ranks: np.ndarray) -> list[tuple[int, list[str]]]:
    """The ranks whose stored entries do not follow from their children's, each with what is
    wrong (see RECHECKED)."""
    wrong = build(_recheck)(k, distances, flags, clusters, np.asarray(ranks, dtype=np.int64))
    return [(int(r), [name for bit, name in enumerate(RECHECKED) if w >> bit & 1])
            for r, w in zip(ranks, wrong) if w]


@kernel(parallel=True)
def _measure(k: Kernel, distances: np.ndarray, ranks: np.ndarray, longest: int, lookaheads: np.ndarray,
             notices: np.ndarray, sight: float):
    """The player model's measures of each position (see `measure`): float[ranks, points, 3],
    and its terms int[ranks, 5] (tempting detours, long ones, tempting dead ends, forced steps,
    legal moves) for a player reading `sight` moves ahead."""
    points = len(lookaheads)
    out = np.zeros((len(ranks), points, 3))
    terms = np.zeros((len(ranks), 5), dtype=np.int64)
    for i in numba.prange(len(ranks)):
        pos, children, costs, scratch = room(k)
        r = ranks[i]
        d = np.int64(distances[r])
        if d >= UNSOLVABLE:
            continue
        out[i, :, 0] = d
        s = 0
        while d > 0 and s < longest:
            occupied = unrank(k, r, pos)
            n = moves(k, pos, occupied, k.metric, False, children, costs, scratch)
            following = -1
            right = 0
            for j in range(n):
                c = children[j]
                if distances[c] < UNSOLVABLE and distances[c] + costs[j] == d:
                    right += 1
                    if following < 0:
                        following = c
            if following < 0:
                break
            show = d - 1.0  # a wrong move shows once the goal is in sight
            hidden = min(max(sight - show, 0.0), 1.0) < 1.0
            for j in range(n):
                c = children[j]
                if distances[c] < UNSOLVABLE and distances[c] + costs[j] == d:
                    continue
                dead = distances[c] >= UNSOLVABLE
                extra = 0.0 if dead else float(distances[c] + costs[j] - d)
                for g in range(points):
                    missed = 1.0 - min(max(lookaheads[g] - show, 0.0), 1.0)
                    cost = 1.0 + notices[g] if dead else extra
                    out[i, g, 1] += missed * cost / right
                if hidden:
                    if dead:
                        terms[i, 2] += 1
                    else:
                        terms[i, 0] += 1
                        if extra >= 2:
                            terms[i, 1] += 1
            if n == 1:
                terms[i, 3] += 1
            terms[i, 4] += n
            for g in range(points):
                out[i, g, 2] += np.log2(n)
            s += 1
            r = following
            d = np.int64(distances[r])
    return out, terms


def measure(k: Kernel, distances: np.ndarray, ranks: np.ndarray, longest: int, lookaheads: np.ndarray,
            notices: np.ndarray, sight: float) -> tuple[np.ndarray, np.ndarray]:
    """The player model (`curator.common.difficulty`) along each position's shortest solution
    (as `solutions` walks it): moves = its distance; at each step with R moves that start a
    shortest solution, every other move the player cannot see through (it shows once the goal
    is in sight, d - 1 moves after the right move) adds its cost / R to the wasted moves: a
    detour what it adds to the distance (the player comes back the shortest way), a move into
    a position that cannot be solved 1 + notice; choices add log2(legal moves). Returns
    float[ranks, points, 3] (zeros for a position not solvable) and the terms int[ranks, 5]:
    tempting detours, long ones (two moves or more), tempting dead ends, forced steps, legal
    moves along the solution, for a player reading `sight` moves ahead."""
    return build(_measure)(k, distances, np.asarray(ranks, dtype=np.int64), longest,
                           np.asarray(lookaheads, dtype=np.float64), np.asarray(notices, dtype=np.float64),
                           float(sight))
