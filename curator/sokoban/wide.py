"""The compiled position code of Sokoban rooms of more than 64 floor cells: the functions of
`curator.sokoban.tables` over masks of four uint64 words (256 cells).

A mask here is a tuple of four words (`curator.common.wide_masks`); the kernel's masks are
rows of four words. `unrank` says only whether a rank is a position (1, or 0): the moves
rebuild the boxes' mask from `pos`.
"""

from __future__ import annotations

import numba
import numpy as np

from curator.common.goal_sweep import Graph
from curator.common.ranking import BINOMIAL_BY_SIZE, lowest_bit, unrank_colex_wide
from curator.common.wide_masks import (
    ONE,
    Mask,
    cell_mask,
    count_below,
    empty,
    has,
    lowest,
    mask_of,
    union,
    with_cell,
    without,
)
from curator.sokoban.tables import Kernel, room


@numba.njit(cache=True, inline="always")
def boxes_of(k: Kernel, pos: np.ndarray) -> Mask:
    """The mask of the boxes' cells pos[:B] (there is at least one box)."""
    out = cell_mask(pos[0])
    for i in range(1, k.boxes):
        out = with_cell(out, pos[i])
    return out


@numba.njit(cache=True, inline="always")
def _moved(boxes: Mask, source: int | np.int64, target: int | np.int64) -> Mask:
    """The boxes with the one on `source` moved to `target`."""
    return with_cell(without(boxes, cell_mask(source)), target)


@numba.njit(cache=True)
def region(k: Kernel, boxes: Mask, player: int | np.int64) -> Mask:
    """The free cells the player reaches from `player` without pushing (a flood fill)."""
    reached = cell_mask(player)
    frontier = reached
    while not empty(frontier):
        cell = lowest(frontier)
        frontier = without(frontier, cell_mask(cell))
        new = without(without(mask_of(k.adjacent[cell]), boxes), reached)
        reached = union(reached, new)
        frontier = union(frontier, new)
    return reached


@numba.njit(cache=True, inline="always")
def rank(k: Kernel, boxes: Mask, player: int | np.int64) -> np.int64:
    """The rank of the boxes' mask and the player's cell (not moved: see `normal_rank`): the
    colex rank of the boxes, the sum of C(c_i, i) over their cells c_1 < c_2 < ..., times the
    free cells, plus the player's place among them."""
    colex = np.int64(0)
    ones = 0
    for w in range(4):
        m = boxes[w]
        while m:
            ones += 1
            colex += BINOMIAL_BY_SIZE[ones, w * 64 + lowest_bit(m)]
            m &= m - ONE
    return colex * k.free + player - count_below(boxes, player)


@numba.njit(cache=True, inline="always")
def normal_rank(k: Kernel, boxes: Mask, player: int | np.int64) -> np.int64:
    """The rank of a position, its player first moved to the smallest cell of its region
    under the pushes metric."""
    if k.pushes:
        return rank(k, boxes, lowest(region(k, boxes, player)))
    return rank(k, boxes, player)


@numba.njit(cache=True)
def unrank(k: Kernel, r: int, pos: np.ndarray) -> np.uint64:
    """Fill `pos` (int64[B + 1]) with the boxes' cells and the player's cell of a rank; 1 if
    it is a position, 0 if not (the player is not on the smallest cell of its region)."""
    unrank_colex_wide(r // k.free, k.cells, k.boxes, pos)
    player = r % k.free
    for i in range(k.boxes):  # the player's place among the free cells, past the boxes below
        if pos[i] <= player:
            player += 1
    pos[k.boxes] = player
    if k.pushes and lowest(region(k, boxes_of(k, pos), player)) != player:
        return np.uint64(0)
    return ONE


@numba.njit(cache=True)
def is_goal(k: Kernel, pos: np.ndarray) -> bool:
    """Whether every box stands on a goal."""
    goals = mask_of(k.goals[0])
    for i in range(k.boxes):
        if not has(goals, pos[i]):
            return False
    return True


@numba.njit(cache=True, inline="always")
def _pushes(k: Kernel, pos: np.ndarray, boxes: Mask, ranks: np.ndarray, costs: np.ndarray,
            backward: bool) -> int:
    """`tables._pushes` on four words."""
    reach = region(k, boxes, pos[k.boxes])
    found = 0
    for i in range(k.boxes):
        box = pos[i]
        for d in range(4):
            behind = k.near[box, (d + 2) % 4]
            if behind < 0 or not has(reach, behind):
                continue
            if backward:
                moved, keeper = behind, k.near[behind, (d + 2) % 4]
                free = keeper
            else:
                moved, keeper = k.near[box, d], box
                free = moved
            if free < 0 or has(boxes, free):
                continue
            ranks[found] = normal_rank(k, _moved(boxes, box, moved), keeper)
            costs[found] = 1
            found += 1
    return found


@numba.njit(cache=True, inline="always")
def _steps(k: Kernel, pos: np.ndarray, boxes: Mask, ranks: np.ndarray, costs: np.ndarray,
           backward: bool) -> int:
    """`tables._steps` on four words."""
    player = pos[k.boxes]
    found = 0
    for d in range(4):
        target = k.near[player, (d + 2) % 4 if backward else d]
        if target < 0 or (backward and has(boxes, target)):
            continue
        ahead = k.near[player, d]
        if not backward and has(boxes, target):
            beyond = k.near[target, d]
            if beyond < 0 or has(boxes, beyond):
                continue
            ranks[found] = rank(k, _moved(boxes, target, beyond), target)
        else:
            ranks[found] = rank(k, boxes, target)
        costs[found] = 1
        found += 1
        if backward and ahead >= 0 and has(boxes, ahead):
            ranks[found] = rank(k, _moved(boxes, ahead, player), target)
            costs[found] = 1
            found += 1
    return found


@numba.njit(cache=True)
def children(k: Kernel, pos: np.ndarray, valid: np.uint64, ranks: np.ndarray, costs: np.ndarray,
             scratch: np.ndarray) -> int:
    """`tables.children` on four words."""
    if k.pushes:
        return _pushes(k, pos, boxes_of(k, pos), ranks, costs, False)
    return _steps(k, pos, boxes_of(k, pos), ranks, costs, False)


@numba.njit(cache=True)
def parents(k: Kernel, pos: np.ndarray, valid: np.uint64, ranks: np.ndarray, costs: np.ndarray,
            scratch: np.ndarray) -> int:
    """`tables.parents` on four words."""
    if k.pushes:
        return _pushes(k, pos, boxes_of(k, pos), ranks, costs, True)
    return _steps(k, pos, boxes_of(k, pos), ranks, costs, True)


WIDE_GRAPH = Graph(unrank=unrank, children=children, parents=parents, moves=children, room=room,
                   is_goal=is_goal)
"""The position code the goal sweep and its walks call in a room of more than 64 floor cells."""

__all__ = ["WIDE_GRAPH", "boxes_of", "children", "is_goal", "normal_rank", "parents", "rank", "region",
           "unrank"]
