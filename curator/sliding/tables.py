"""What the compiled sweep needs of a sliding-block puzzle, as plain arrays, and the compiled
functions that rank, unrank and move positions with them.

Cells are bits of a uint64 occupancy mask. A piece stands at an anchor cell; `masks` gives the
cells it covers there and `steps` where its anchor goes one cell in each direction.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from curator.common.goal_sweep import Graph
from curator.common.ranking import bit_count, rank_colex_mask, unrank_colex_mask
from curator.sliding.puzzle import DIRECTIONS, METRICS, MOVES, STEERING, SlidingPuzzle

STEP, LINE, UNTIL_BLOCKED = (MOVES.index(m) for m in ("step", "line", "until_blocked"))
STEP_METRIC, LINE_METRIC, PIECE_METRIC = (METRICS.index(m) for m in ("step", "line", "piece"))
OPPOSITE = np.array([2, 3, 0, 1], dtype=np.int64)
"""The direction opposite each of DIRECTIONS (up, right, down, left)."""


class Kernel(NamedTuple):
    """A sliding-block puzzle as arrays: G groups, P pieces, N cells."""

    cells: int
    move: int
    """STEP, LINE or UNTIL_BLOCKED."""
    metric: int
    """STEP_METRIC, LINE_METRIC or PIECE_METRIC."""
    free: np.ndarray
    """bool[G]: the group's pieces go anywhere (else they keep one line)."""
    counts: np.ndarray
    """int64[G]: pieces in the group."""
    first: np.ndarray
    """int64[G + 1]: the group's pieces are pieces first[g] .. first[g + 1] - 1."""
    anchors: np.ndarray
    """int64[G, N]: a lined group's anchors in order (its ranks count them), -1 after."""
    anchor_count: np.ndarray
    """int64[G]: how many anchors a lined group has."""
    index: np.ndarray
    """int64[G, N]: where a cell is in the lined group's `anchors`, -1 if it is not one."""
    radices: np.ndarray
    """int64[G]: values of each group's part of the rank."""
    weights: np.ndarray
    """int64[G]: place value of each group's part of the rank."""
    masks: np.ndarray
    """uint64[G, N]: the cells a piece covers at each anchor, 0 where it cannot stand."""
    steps: np.ndarray
    """int64[G, N, 4]: the anchor one cell away in each direction, -1 where the piece may not
    go (off its line, off the board, or not a direction it slides in)."""
    steer: np.ndarray
    """bool[G, 4]: the directions the group's pieces slide in."""
    goal_groups: np.ndarray
    """bool[G]: groups of the goal's letter."""
    goal: np.ndarray
    """uint64[1]: the goal cells, which one such piece covers in a solved position."""
    group_of: np.ndarray
    """int64[P]: each piece's group."""


def build_kernel(puzzle: SlidingPuzzle) -> Kernel:
    """The arrays of `puzzle`."""
    n = puzzle.board.size
    groups = puzzle.groups
    g_count = len(groups)
    anchors = np.full((g_count, n), -1, dtype=np.int64)
    index = np.full((g_count, n), -1, dtype=np.int64)
    masks = np.zeros((g_count, n), dtype=np.uint64)
    steps = np.full((g_count, n, 4), -1, dtype=np.int64)
    for gi, g in enumerate(groups):
        anchors[gi, : len(g.anchors)] = g.anchors
        if not g.free:
            index[gi, list(g.anchors)] = np.arange(len(g.anchors))
        for a in range(n):
            cells = puzzle.piece_cells(g, a)
            if cells is not None:
                masks[gi, a] = sum(1 << c for c in cells)
        for a in range(n):
            if not masks[gi, a]:
                continue
            r, c = puzzle.board.cells[a]
            for d in STEERING[g.shape.along]:
                target = puzzle.board.index.get((r + DIRECTIONS[d][0], c + DIRECTIONS[d][1]))
                if target is not None and masks[gi, target]:
                    steps[gi, a, d] = target
    radices = np.array(puzzle.radices, dtype=np.int64)
    weights = np.ones(g_count, dtype=np.int64)
    for gi in range(g_count - 2, -1, -1):
        weights[gi] = weights[gi + 1] * radices[gi + 1]
    counts = np.array([g.count for g in groups], dtype=np.int64)
    return Kernel(
        cells=n,
        move=MOVES.index(puzzle.move),
        metric=METRICS.index(puzzle.metric),
        free=np.array([g.free for g in groups], dtype=np.bool_),
        counts=counts,
        first=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        anchors=anchors,
        anchor_count=np.array([len(g.anchors) for g in groups], dtype=np.int64),
        index=index,
        radices=radices,
        weights=weights,
        masks=masks,
        steps=steps,
        steer=np.array([[d in STEERING[g.shape.along] for d in range(4)] for g in groups], dtype=np.bool_),
        goal_groups=np.array([g.letter == puzzle.goal_letter for g in groups], dtype=np.bool_),
        goal=np.array([sum(1 << c for c in puzzle.goal_cells)], dtype=np.uint64),
        group_of=np.repeat(np.arange(g_count), counts).astype(np.int64),
    )


@numba.njit(cache=True, inline="always")
def _nth_free(occupied: np.uint64, nth: int) -> int:
    """The cell of the nth (from 0) zero bit of `occupied`."""
    cell = 0
    while True:
        if not (occupied >> np.uint64(cell)) & np.uint64(1):
            if nth == 0:
                return cell
            nth -= 1
        cell += 1


@numba.njit(cache=True, inline="always")
def place(k: Kernel, g: int, digit: int, covered: np.uint64, pos: np.ndarray) -> np.uint64:
    """Put group g's pieces where its part of the rank, `digit`, says, on a board whose cells
    `covered` the groups before it hold: fill their entries of `pos` and return the cells
    covered now, or 0 if a piece overlaps or leaves the board."""
    n = k.cells - np.int64(bit_count(covered)) if k.free[g] else k.anchor_count[g]
    chosen = unrank_colex_mask(digit, n, k.counts[g])
    occupied = covered
    p = k.first[g]
    while chosen:
        i = np.int64(0)
        while not (chosen >> np.uint64(i)) & np.uint64(1):
            i += 1
        chosen &= chosen - np.uint64(1)
        a = _nth_free(covered, i) if k.free[g] else k.anchors[g, i]
        m = k.masks[g, a]
        if m == 0 or (m & occupied):
            return np.uint64(0)
        occupied |= m
        pos[p] = a
        p += 1
    return occupied


@numba.njit(cache=True, inline="always")
def unrank(k: Kernel, rank: int, pos: np.ndarray) -> np.uint64:
    """Fill `pos` (int64[P]) with the anchors of a rank; return the occupied cells, or 0 if the
    rank is invalid (pieces overlap or leave the board)."""
    covered = np.uint64(0)
    for g in range(len(k.counts)):
        covered = place(k, g, (rank // k.weights[g]) % k.radices[g], covered, pos)
        if covered == 0:
            break
    return covered


@numba.njit(cache=True, inline="always")
def rank(k: Kernel, pos: np.ndarray) -> np.int64:
    """The rank of a valid position; each group's anchors in `pos` must be ascending."""
    out = np.int64(0)
    covered = np.uint64(0)
    for g in range(len(k.counts)):
        chosen = np.uint64(0)
        for p in range(k.first[g], k.first[g + 1]):
            a = pos[p]
            if k.free[g]:
                below = (np.uint64(1) << np.uint64(a)) - np.uint64(1)
                i = a - np.int64(bit_count(covered & below))
            else:
                i = k.index[g, a]
            chosen |= np.uint64(1) << np.uint64(i)
        out += rank_colex_mask(chosen) * k.weights[g]
        for p in range(k.first[g], k.first[g + 1]):
            covered |= k.masks[g, pos[p]]
    return out


@numba.njit(cache=True, inline="always")
def is_goal(k: Kernel, pos: np.ndarray) -> bool:
    goal = k.goal[0]
    for p in range(len(pos)):
        g = k.group_of[p]
        if k.goal_groups[g] and (k.masks[g, pos[p]] & goal) == goal:
            return True
    return False


@numba.njit(cache=True, inline="always")
def _settle(k: Kernel, pos: np.ndarray, g: int, q: int) -> int:
    """Move the anchor at pos[q] to its place among group g's ascending anchors; return it."""
    while q > k.first[g] and pos[q - 1] > pos[q]:
        pos[q - 1], pos[q] = pos[q], pos[q - 1]
        q -= 1
    while q + 1 < k.first[g + 1] and pos[q + 1] < pos[q]:
        pos[q + 1], pos[q] = pos[q], pos[q + 1]
        q += 1
    return q


@numba.njit(cache=True, inline="always")
def _moved_rank(k: Kernel, pos: np.ndarray, p: int, target: int) -> np.int64:
    """The rank after piece p moves to anchor `target`; `pos` is as it was afterwards."""
    g = k.group_of[p]
    source = pos[p]
    pos[p] = target
    q = _settle(k, pos, g, p)
    out = rank(k, pos)
    pos[q] = source
    _settle(k, pos, g, q)
    return out


@numba.njit(cache=True, inline="always")
def _slides(k: Kernel, g: int, a: int, others: np.uint64, rule: int, backward: bool,
            targets: np.ndarray, costs: np.ndarray) -> int:
    """The anchors one slide takes a piece at anchor a to (or, `backward`, comes from) under
    the move `rule`, with the cells moved; returns how many."""
    steps, masks = k.steps, k.masks
    found = 0
    for d in range(4):
        if not k.steer[g, d]:
            continue
        if rule == UNTIL_BLOCKED and backward:
            # It arrived going the other way, so that way is blocked here, and it started
            # anywhere behind it.
            t = steps[g, a, OPPOSITE[d]]
            if t >= 0 and (masks[g, t] & others) == 0:
                continue
        x = a
        cells = 0
        while True:
            t = steps[g, x, d]
            if t < 0 or (masks[g, t] & others) != 0:
                break
            x = t
            cells += 1
            if rule == STEP:
                break
            if rule == LINE or backward:
                targets[found] = x
                costs[found] = cells
                found += 1
        if cells > 0 and (rule == STEP or (rule == UNTIL_BLOCKED and not backward)):
            targets[found] = x
            costs[found] = cells
            found += 1
    return found


@numba.njit(cache=True)
def piece_moves(k: Kernel, g: int, a: int, others: np.uint64, metric: int, backward: bool,
                targets: np.ndarray, costs: np.ndarray, seen: np.ndarray, todo: np.ndarray) -> int:
    """The moves of one piece under `metric` (or, `backward`, the moves that end with it at
    a): target anchors and costs; returns how many. `seen` is int64[N] of zeros, left zero;
    `todo` is int64[N] scratch; `targets` and `costs` hold 4 N entries."""
    if metric == LINE_METRIC:
        found = _slides(k, g, a, others, k.move, backward, targets, costs)
        costs[:found] = 1
        return found
    if metric == STEP_METRIC:
        return _slides(k, g, a, others, k.move if k.move == UNTIL_BLOCKED else STEP, backward, targets, costs)
    # Piece metric: every anchor one piece reaches by slides, each costing 1.
    seen[a] = 1
    todo[0] = a
    waiting = 1
    found = 0
    while waiting:
        waiting -= 1
        x = todo[waiting]
        n = _slides(k, g, x, others, k.move, backward, targets[found:], costs[found:])
        for j in range(found, found + n):
            t = targets[j]
            if not seen[t]:
                seen[t] = 1
                todo[waiting] = t
                waiting += 1
                targets[found] = t
                costs[found] = 1
                found += 1
    seen[a] = 0
    for j in range(found):
        seen[targets[j]] = 0
    return found


@numba.njit(cache=True)
def moves(k: Kernel, pos: np.ndarray, occupied: np.uint64, metric: int, backward: bool,
          ranks: np.ndarray, costs: np.ndarray, scratch: np.ndarray) -> int:
    """The children (or, `backward`, parents) of a position under `metric`: their ranks and
    the cost of the move; returns how many. `scratch` is int64[4, 4 N] of zeros (row 2 is
    left zero), `ranks` and `costs` hold P * 4 N entries.

    Callers pass `backward`, and `metric` where it is fixed, as literals: numba compiles a
    copy for each literal value (about 3 s in a fresh cache), whose dead branches are gone.
    Taking them as values instead compiled once but made the robots analysis 1.2x slower."""
    found = 0
    for p in range(len(pos)):
        g = k.group_of[p]
        a = pos[p]
        others = occupied & ~k.masks[g, a]
        n = piece_moves(k, g, a, others, metric, backward, scratch[0], scratch[1], scratch[2], scratch[3])
        for j in range(n):
            ranks[found] = _moved_rank(k, pos, p, scratch[0, j])
            costs[found] = scratch[1, j]
            found += 1
    return found


@numba.njit(cache=True)
def children(k: Kernel, pos: np.ndarray, occupied: np.uint64, ranks: np.ndarray, costs: np.ndarray,
             scratch: np.ndarray) -> int:
    """The children of a position under the puzzle's metric (the goal sweep's `children`)."""
    return moves(k, pos, occupied, k.metric, False, ranks, costs, scratch)


@numba.njit(cache=True)
def parents(k: Kernel, pos: np.ndarray, occupied: np.uint64, ranks: np.ndarray, costs: np.ndarray,
            scratch: np.ndarray) -> int:
    """The parents of a position under the puzzle's metric (the goal sweep's `parents`)."""
    return moves(k, pos, occupied, k.metric, True, ranks, costs, scratch)


@numba.njit(cache=True)
def slides(k: Kernel, pos: np.ndarray, occupied: np.uint64, ranks: np.ndarray, costs: np.ndarray,
           scratch: np.ndarray) -> int:
    """Every position one slide of the move rule away: what all_moves and the connected sets
    count (the goal sweep's `moves`)."""
    return moves(k, pos, occupied, LINE_METRIC, False, ranks, costs, scratch)


@numba.njit(cache=True)
def room(k: Kernel) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Scratch for `moves` (one set per thread): pos, ranks, costs, scratch."""
    pieces = k.first[-1]
    space = 4 * k.cells
    return (np.zeros(pieces, dtype=np.int64), np.zeros(pieces * space, dtype=np.int64),
            np.zeros(pieces * space, dtype=np.int64), np.zeros((4, space), dtype=np.int64))


GRAPH = Graph(unrank=unrank, children=children, parents=parents, moves=slides, room=room, is_goal=is_goal)
"""The position code the goal sweep and its walks call."""

__all__ = ["GRAPH", "Kernel", "build_kernel", "children", "is_goal", "moves", "parents", "place", "rank",
           "room", "slides", "unrank"]
