"""The retrograde breadth-first sweep of a sliding-block puzzle over all its ranks: the goal
sweep of `curator.common.goal_sweep` over the puzzle's slides, started from an enumeration of
the placements that skips every rank after an overlapping group (on a board of more than 64
cells, a scan of every rank). Tilt moves have no cheap parents: their sweep pulls each
distance from the one before through a table of children (`curator.common.goal_sweep.Graph.pull`).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from curator.common.goal_sweep import ALL_MOVES, INVALID, NO_CLUSTER, UNIQUE, UNSOLVABLE, Graph
from curator.common.kernels import build, kernel
from curator.sliding.tables import GRAPH, TILT, Kernel, is_goal, place
from curator.sliding.wide import WIDE_GRAPH

__all__ = ["ALL_MOVES", "INVALID", "NO_CLUSTER", "TILT_TABLE_BYTES", "UNIQUE", "UNSOLVABLE", "expand",
           "finish", "graph", "start"]


def graph(k: Kernel) -> Graph:
    """The compiled position code of the kernel's board: one-word masks, or four words."""
    return GRAPH if k.words == 1 else WIDE_GRAPH


@kernel
def _start(k: Kernel, distances: np.ndarray) -> np.ndarray:
    """Mark every position solved (0) or not yet solvable, the other ranks staying invalid;
    return the solved ranks. Placements are enumerated group by group, so a group that
    overlaps skips every rank that begins with it."""
    groups = len(k.counts)
    digits = np.zeros(groups, dtype=np.int64)
    covered = np.zeros(groups + 1, dtype=np.uint64)
    pos = np.zeros(k.first[-1], dtype=np.int64)
    solved = np.empty(1024, dtype=np.int64)
    found = 0
    for s in range(len(k.offsets) - 1):
        covered[0] = k.exits[0]
        g = 0
        digits[0] = -1
        while g >= 0:
            digits[g] += 1
            if digits[g] >= k.radices[s, g]:
                g -= 1
                continue
            occupied = place(k, s, g, digits[g], covered[g], pos)
            if occupied == 0:
                continue
            if g + 1 < groups:
                covered[g + 1] = occupied
                g += 1
                digits[g] = -1
                continue
            r = k.offsets[s] + (digits * k.weights[s]).sum()
            if is_goal(k, pos):
                distances[r] = 0
                if found == len(solved):
                    solved = np.concatenate((solved, np.empty_like(solved)))
                solved[found] = r
                found += 1
            else:
                distances[r] = UNSOLVABLE
    return solved[:found].copy()


def start(k: Kernel, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distance table before the sweep, the zeroed flags and the solved ranks."""
    if k.words > 1:
        return WIDE_GRAPH.scan(k, size)
    distances = np.full(size, INVALID, dtype=np.uint16)
    solved = build(_start)(k, distances)
    return distances, np.zeros(size, dtype=np.uint8), solved


TILT_CHILDREN = 4
"""Most children of a position under tilt moves: one per direction."""
TILT_TABLE_BYTES = TILT_CHILDREN * np.dtype(np.int32).itemsize
"""Memory per rank of the children table of tilt moves."""


def expand(k: Kernel, distances: np.ndarray, flags: np.ndarray, first: int,
           solved: np.ndarray | None = None) -> Iterator[tuple[int, int]]:
    """Sweep distances first, first + 1, ... (see `curator.common.goal_sweep.Graph.expand`;
    under tilt moves, `Graph.pull`)."""
    if k.move == TILT:
        return graph(k).pull(k, distances, flags, first, solved, TILT_CHILDREN)
    return graph(k).expand(k, distances, flags, first, solved)


def finish(k: Kernel, distances: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """Set the all_moves bits; return the clusters."""
    return graph(k).finish(k, distances, flags)
