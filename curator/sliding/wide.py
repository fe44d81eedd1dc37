"""The compiled position code of sliding-block puzzles on boards of more than 64 cells: the
functions of `curator.sliding.tables` over masks of four uint64 words (256 cells).

A mask here is a tuple of four words (`curator.common.wide_masks`); the kernel's masks are
rows of four words. `unrank` says only whether a rank is a position: the moves rebuild
the occupied cells from the anchors.
"""

from __future__ import annotations

import numba
import numpy as np

from curator.common.goal_sweep import Graph
from curator.common.ranking import BINOMIAL_BY_SIZE, unrank_colex_wide
from curator.common.wide_masks import (
    ONE,
    Mask,
    count,
    count_below,
    empty,
    has,
    mask_of,
    meets,
    union,
    with_cell,
    without,
)
from curator.sliding.tables import (
    LINE,
    LINE_METRIC,
    OPPOSITE,
    STEP,
    STEP_METRIC,
    TILT,
    UNTIL_BLOCKED,
    Kernel,
    room,
    section_of,
    settle,
)


@numba.njit(cache=True, inline="always")
def _occupied(k: Kernel, pos: np.ndarray) -> Mask:
    """The exits and the cells the pieces of a valid position cover."""
    out = mask_of(k.exits[0])
    for p in range(len(pos)):
        if pos[p] >= 0:
            out = union(out, mask_of(k.masks[k.group_of[p], pos[p]]))
    return out


@numba.njit(cache=True, inline="always")
def _place(k: Kernel, s: int, g: int, digit: int, covered: Mask, pos: np.ndarray) -> tuple[bool, Mask]:
    """`tables.place` on four words: fill group g's entries of `pos` from its part of the
    rank; whether its pieces fit, and the cells covered now."""
    pieces = k.section_counts[s, g]
    p = k.first[g]
    for _ in range(k.counts[g] - pieces):
        pos[p] = -1
        p += 1
    chosen = pos[p:p + pieces]
    if k.free[g]:
        unrank_colex_wide(digit, k.cells - count(covered), pieces, chosen)
        cell = 0
        free = 0  # free cells below `cell`
        for j in range(pieces):
            while has(covered, cell) or free < chosen[j]:
                if not has(covered, cell):
                    free += 1
                cell += 1
            chosen[j] = cell
            cell += 1
            free += 1
    else:
        unrank_colex_wide(digit, k.anchor_count[g], pieces, chosen)
        for j in range(pieces):
            chosen[j] = k.anchors[g, chosen[j]]
    occupied = covered
    for j in range(pieces):
        m = mask_of(k.masks[g, chosen[j]])
        if empty(m) or meets(m, occupied):
            return False, covered
        occupied = union(occupied, m)
    return True, occupied


@numba.njit(cache=True, inline="always")
def fill(k: Kernel, s: int, g: int, digit: int, covered: np.ndarray, pos: np.ndarray) -> bool:
    """`_place` group g on the cells of row covered[g], writing row covered[g + 1]; whether
    it fits."""
    fits, occupied = _place(k, s, g, digit, mask_of(covered[g]), pos)
    for w in range(4):
        covered[g + 1, w] = occupied[w]
    return fits


@numba.njit(cache=True)
def unrank(k: Kernel, rank: int, pos: np.ndarray) -> np.uint64:
    """Fill `pos` (int64[P]) with the anchors of a rank; 1 if it is a position, 0 if pieces
    overlap or leave the board."""
    s = section_of(k, rank)
    local = rank - k.offsets[s]
    covered = mask_of(k.exits[0])
    for g in range(len(k.counts)):
        fits, covered = _place(k, s, g, (local // k.weights[s, g]) % k.radices[s, g], covered, pos)
        if not fits:
            return np.uint64(0)
    return ONE


@numba.njit(cache=True)
def rank(k: Kernel, pos: np.ndarray) -> np.int64:
    """The rank of a valid position; each group's entries in `pos` must be ascending."""
    s = 0
    if len(k.offsets) > 2:
        for g in range(len(k.counts)):
            for p in range(k.first[g], k.first[g + 1]):
                if pos[p] < 0:
                    s += k.spans[g]
    out = k.offsets[s]
    covered = mask_of(k.exits[0])
    for g in range(len(k.counts)):
        part = np.int64(0)
        j = 0
        for p in range(k.first[g], k.first[g + 1]):
            a = pos[p]
            if a < 0:
                continue
            j += 1
            part += BINOMIAL_BY_SIZE[j, a - count_below(covered, a) if k.free[g] else k.index[g, a]]
        out += part * k.weights[s, g]
        for p in range(k.first[g], k.first[g + 1]):
            if pos[p] >= 0:
                covered = union(covered, mask_of(k.masks[g, pos[p]]))
    return out


@numba.njit(cache=True)
def is_goal(k: Kernel, pos: np.ndarray) -> bool:
    for p in range(len(pos)):
        if pos[p] >= 0 and k.goal_out[k.group_of[p]]:
            return False
    goal = mask_of(k.goal[0])
    if empty(goal):
        return True
    for p in range(len(pos)):
        g = k.group_of[p]
        if pos[p] >= 0 and k.goal_groups[g] and empty(without(goal, mask_of(k.masks[g, pos[p]]))):
            return True
    return False


@numba.njit(cache=True, inline="always")
def _slides(k: Kernel, g: int, a: int, others: Mask, rule: int, backward: bool,
            targets: np.ndarray, costs: np.ndarray) -> int:
    """`tables._slides` on four words."""
    steps, masks = k.steps, k.masks
    found = 0
    for d in range(4):
        if not k.steer[g, d]:
            continue
        if rule == UNTIL_BLOCKED and backward:
            back = OPPOSITE[d]
            t = steps[g, a, back]
            if t >= 0 and not meets(mask_of(masks[g, t]), others):
                continue
            if t < 0 and k.falls[g, a, back] and not meets(mask_of(k.ahead[g, a, back]), others):
                continue
        x = a
        cells = 0
        while True:
            t = steps[g, x, d]
            if t < 0 or meets(mask_of(masks[g, t]), others):
                break
            x = t
            cells += 1
            if rule == STEP:
                break
            if rule == LINE or backward:
                targets[found] = x
                costs[found] = cells
                found += 1
        if cells > 0 and rule == UNTIL_BLOCKED and not backward and k.falls[g, x, d] \
                and not meets(mask_of(k.ahead[g, x, d]), others):
            continue
        if cells > 0 and (rule == STEP or (rule == UNTIL_BLOCKED and not backward)):
            targets[found] = x
            costs[found] = cells
            found += 1
    return found


@numba.njit(cache=True)
def piece_moves(k: Kernel, g: int, a: int, others: Mask, metric: int, backward: bool,
                targets: np.ndarray, costs: np.ndarray, seen: np.ndarray, todo: np.ndarray) -> int:
    """`tables.piece_moves` on four words."""
    if metric == LINE_METRIC:
        found = _slides(k, g, a, others, k.move, backward, targets, costs)
        costs[:found] = 1
        return found
    if metric == STEP_METRIC:
        return _slides(k, g, a, others, k.move if k.move == UNTIL_BLOCKED else STEP, backward, targets, costs)
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
def tilts(k: Kernel, pos: np.ndarray, occupied: Mask, ranks: np.ndarray, costs: np.ndarray,
          scratch: np.ndarray) -> int:
    """`tables.tilts` on four words."""
    after = scratch[0]
    slot = scratch[1]
    pieces = k.first[-1]
    for p in range(pieces):
        if pos[p] >= 0:
            slot[pos[p]] = p
    exits = mask_of(k.exits[0])
    standing = without(occupied, exits)
    found = 0
    for d in range(4):
        for p in range(pieces):
            after[p] = pos[p]
        stopped = (np.uint64(0), np.uint64(0), np.uint64(0), np.uint64(0))
        moved = False
        legal = True
        for j in range(k.cells):
            a = j if d == 0 or d == 3 else k.cells - 1 - j
            if not has(standing, a):
                continue
            p = slot[a]
            x = a
            dropped = False
            while True:
                t = k.neighbours[x, d]
                if t < 0 or has(stopped, t):
                    break
                x = t
                if has(exits, x):
                    dropped = True
                    break
            if x != a:
                moved = True
            if dropped:
                if k.keep[k.group_of[p]]:
                    legal = False
                    break
                after[p] = -1
            else:
                after[p] = x
                stopped = with_cell(stopped, x)
        if not legal or not moved:
            continue
        for g in range(len(k.counts)):
            for q in range(k.first[g] + 1, k.first[g + 1]):
                x = after[q]
                i = q
                while i > k.first[g] and after[i - 1] > x:
                    after[i] = after[i - 1]
                    i -= 1
                after[i] = x
        r = rank(k, after)
        fresh = True
        for j in range(found):
            fresh &= ranks[j] != r
        if fresh:
            ranks[found] = r
            costs[found] = 1
            found += 1
    return found


@numba.njit(cache=True)
def moves(k: Kernel, pos: np.ndarray, metric: int, backward: bool, ranks: np.ndarray, costs: np.ndarray,
          scratch: np.ndarray) -> int:
    """`tables.moves` on four words, the occupied cells taken from the anchors."""
    occupied = _occupied(k, pos)
    if k.move == TILT:
        return tilts(k, pos, occupied, ranks, costs, scratch)
    found = 0
    for p in range(len(pos)):
        a = pos[p]
        if a < 0:
            continue
        g = k.group_of[p]
        others = without(occupied, mask_of(k.masks[g, a]))
        n = piece_moves(k, g, a, others, metric, backward, scratch[0], scratch[1], scratch[2], scratch[3])
        for j in range(n):
            source = pos[p]
            pos[p] = scratch[0, j]
            q = settle(k, pos, g, p)
            ranks[found] = rank(k, pos)
            pos[q] = source
            settle(k, pos, g, q)
            costs[found] = scratch[1, j]
            found += 1
    return found


@numba.njit(cache=True)
def children(k: Kernel, pos: np.ndarray, valid: np.uint64, ranks: np.ndarray, costs: np.ndarray,
             scratch: np.ndarray) -> int:
    return moves(k, pos, k.metric, False, ranks, costs, scratch)


@numba.njit(cache=True)
def parents(k: Kernel, pos: np.ndarray, valid: np.uint64, ranks: np.ndarray, costs: np.ndarray,
            scratch: np.ndarray) -> int:
    return moves(k, pos, k.metric, True, ranks, costs, scratch)


@numba.njit(cache=True)
def slides(k: Kernel, pos: np.ndarray, valid: np.uint64, ranks: np.ndarray, costs: np.ndarray,
           scratch: np.ndarray) -> int:
    # typed, not the constant: numba would compile another copy of `moves` for a literal
    return moves(k, pos, np.int64(LINE_METRIC), False, ranks, costs, scratch)  # type: ignore[arg-type]


WIDE_GRAPH = Graph(unrank=unrank, children=children, parents=parents, moves=slides, room=room,
                   is_goal=is_goal)
"""The position code the goal sweep and its walks call on a board of more than 64 cells."""

__all__ = ["WIDE_GRAPH", "children", "fill", "is_goal", "moves", "parents", "rank", "slides", "tilts",
           "unrank"]
