"""What the compiled sweep needs of a Sokoban puzzle, as plain arrays, and the compiled
functions that rank, unrank and move its positions (the goal sweep's slots, see
`curator.common.goal_sweep`).

Cells are bits of a uint64 mask. A room of more than 64 floor cells has masks of four words
and its own compiled code (`curator.sokoban.wide`); `build_kernel` makes the arrays of either.

A position is `pos` = the boxes' cells ascending, then the player's cell; `unrank` returns
the boxes' mask (never 0: there is a box). Under the pushes metric the player's region is
found by a flood fill over the free cells, and the player of a child is moved to the smallest
cell of its region before the child is ranked.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from curator.common.goal_sweep import Graph
from curator.common.ranking import bit_count, lowest_bit, rank_colex_mask, unrank_colex_mask
from curator.common.wide_masks import WIDE_WORDS, packed
from curator.sokoban.puzzle import SokobanPuzzle


class Kernel(NamedTuple):
    """A Sokoban puzzle as arrays: N floor cells, B boxes. In a wide room (`words` is
    WIDE_WORDS) every uint64 mask below is a row of that many words instead."""

    cells: int
    words: int
    """1, or WIDE_WORDS in a room of more than 64 floor cells."""
    boxes: int
    free: int
    """N - B: the player's places, the low digit of a rank."""
    pushes: bool
    """The pushes metric (positions are regions); else the moves metric."""
    near: np.ndarray
    """int64[N, 4]: the floor cell next to each cell up, right, down, left; -1 for none."""
    adjacent: np.ndarray
    """uint64[N]: the floor cells next to each cell."""
    goals: np.ndarray
    """uint64[1]: the goal cells."""


def build_kernel(puzzle: SokobanPuzzle) -> Kernel:
    """The arrays of `puzzle`; four-word masks in a room of more than 64 floor cells."""
    n = puzzle.board.size
    words = 1 if puzzle.words == 1 else WIDE_WORDS
    near = np.full((n, 4), -1, dtype=np.int64)
    adjacent = np.zeros(n, dtype=object)
    for cell in range(n):
        for d in range(4):
            other = puzzle.neighbour(cell, d)
            if other is not None:
                near[cell, d] = other
                adjacent[cell] |= 1 << other
    goals = np.array([sum(1 << g for g in puzzle.goals)], dtype=object)
    return Kernel(cells=n, words=words, boxes=puzzle.boxes, free=puzzle.free,
                  pushes=puzzle.metric == "pushes", near=near, adjacent=packed(adjacent, words),
                  goals=packed(goals, words))


ONE = np.uint64(1)


@numba.njit(cache=True, inline="always")
def _bit(cell: int | np.int64) -> np.uint64:
    return ONE << np.uint64(cell)


@numba.njit(cache=True)
def region(k: Kernel, boxes: np.uint64, player: int) -> np.uint64:
    """The free cells the player reaches from `player` without pushing (a flood fill)."""
    free = ~boxes
    reached = _bit(player)
    frontier = reached
    while frontier:
        cell = lowest_bit(frontier)
        frontier &= frontier - ONE
        new = k.adjacent[cell] & free & ~reached
        reached |= new
        frontier |= new
    return reached


@numba.njit(cache=True, inline="always")
def rank(k: Kernel, boxes: np.uint64, player: int | np.int64) -> np.int64:
    """The rank of the boxes' mask and the player's cell (not moved: see `normal_rank`)."""
    below = np.int64(bit_count(boxes & (_bit(player) - ONE)))
    return rank_colex_mask(boxes) * k.free + player - below


@numba.njit(cache=True, inline="always")
def normal_rank(k: Kernel, boxes: np.uint64, player: int) -> np.int64:
    """The rank of a position, its player first moved to the smallest cell of its region
    under the pushes metric."""
    if k.pushes:
        return rank(k, boxes, lowest_bit(region(k, boxes, player)))
    return rank(k, boxes, player)


@numba.njit(cache=True)
def unrank(k: Kernel, r: int, pos: np.ndarray) -> np.uint64:
    """Fill `pos` (int64[B + 1]) with the boxes' cells and the player's cell of a rank; return
    the boxes' mask, or 0 if the rank is not a position."""
    boxes = unrank_colex_mask(r // k.free, k.cells, k.boxes)
    place = r % k.free
    player = 0
    while True:
        if not boxes & _bit(player):
            if place == 0:
                break
            place -= 1
        player += 1
    if k.pushes and lowest_bit(region(k, boxes, player)) != player:
        return np.uint64(0)
    mask = boxes
    i = 0
    while mask:
        pos[i] = lowest_bit(mask)
        mask &= mask - ONE
        i += 1
    pos[k.boxes] = player
    return boxes


@numba.njit(cache=True)
def is_goal(k: Kernel, pos: np.ndarray) -> bool:
    """Whether every box stands on a goal."""
    for i in range(k.boxes):
        if not k.goals[0] & _bit(pos[i]):
            return False
    return True


@numba.njit(cache=True, inline="always")
def _pushes(k: Kernel, pos: np.ndarray, boxes: np.uint64, ranks: np.ndarray, costs: np.ndarray,
            backward: bool) -> int:
    """The pushes the keeper can walk to (boxes ascending, then up, right, down, left), or,
    `backward`, the pushes that end in this position, undone as pulls: the keeper stands
    behind the box, in its region, and the box moves on (or the box moves back onto that cell
    and the keeper one further back). Children are ranked with the keeper moved as
    `normal_rank` moves it."""
    reach = region(k, boxes, pos[k.boxes])
    found = 0
    for i in range(k.boxes):
        box = pos[i]
        for d in range(4):
            behind = k.near[box, (d + 2) % 4]
            if behind < 0 or not reach & _bit(behind):
                continue
            if backward:
                moved, keeper = behind, k.near[behind, (d + 2) % 4]
                free = keeper
            else:
                moved, keeper = k.near[box, d], box
                free = moved
            if free < 0 or boxes & _bit(free):
                continue
            ranks[found] = normal_rank(k, boxes ^ _bit(box) ^ _bit(moved), keeper)
            costs[found] = 1
            found += 1
    return found


@numba.njit(cache=True, inline="always")
def _steps(k: Kernel, pos: np.ndarray, boxes: np.uint64, ranks: np.ndarray, costs: np.ndarray,
           backward: bool) -> int:
    """The keeper's steps (up, right, down, left), pushing the box ahead where there is one;
    or, `backward`, the steps that end in this position: a step back onto a free cell, and
    with it the pull of a box ahead (the step that pushed it)."""
    player = pos[k.boxes]
    found = 0
    for d in range(4):
        target = k.near[player, (d + 2) % 4 if backward else d]
        if target < 0 or (backward and boxes & _bit(target)):
            continue
        ahead = k.near[player, d]
        pushed = (not backward) and (boxes & _bit(target)) != 0
        if pushed:
            beyond = k.near[target, d]
            if beyond < 0 or boxes & _bit(beyond):
                continue
            ranks[found] = rank(k, boxes ^ _bit(target) ^ _bit(beyond), target)
        else:
            ranks[found] = rank(k, boxes, target)
        costs[found] = 1
        found += 1
        if backward and ahead >= 0 and boxes & _bit(ahead):
            ranks[found] = rank(k, boxes ^ _bit(ahead) ^ _bit(player), target)
            costs[found] = 1
            found += 1
    return found


@numba.njit(cache=True)
def children(k: Kernel, pos: np.ndarray, boxes: np.uint64, ranks: np.ndarray, costs: np.ndarray,
             scratch: np.ndarray) -> int:
    """The children of a position under the metric, each at cost 1: every push the keeper can
    walk to (pushes), or every step (moves). Returns how many."""
    if k.pushes:
        return _pushes(k, pos, boxes, ranks, costs, False)
    return _steps(k, pos, boxes, ranks, costs, False)


@numba.njit(cache=True)
def parents(k: Kernel, pos: np.ndarray, boxes: np.uint64, ranks: np.ndarray, costs: np.ndarray,
            scratch: np.ndarray) -> int:
    """The parents of a position under the metric (the moves that end in it, undone as pulls
    and steps back), each at cost 1. Returns how many."""
    if k.pushes:
        return _pushes(k, pos, boxes, ranks, costs, True)
    return _steps(k, pos, boxes, ranks, costs, True)


@numba.njit(cache=True)
def room(k: Kernel) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Scratch for `children` and `parents` (one set per thread): pos, ranks, costs, scratch."""
    space = max(4 * k.boxes, 8)
    return (np.zeros(k.boxes + 1, dtype=np.int64), np.zeros(space, dtype=np.int64),
            np.zeros(space, dtype=np.int64), np.zeros(1, dtype=np.int64))


GRAPH = Graph(unrank=unrank, children=children, parents=parents, moves=children, room=room, is_goal=is_goal)
"""The position code the goal sweep and its walks call: the moves that all_moves and the
connected sets count are the metric's moves."""

__all__ = ["GRAPH", "Kernel", "build_kernel", "children", "is_goal", "normal_rank", "parents", "rank",
           "region", "room", "unrank"]
