"""The retrograde breadth-first sweep of a Sokoban room over all its ranks: the goal sweep of
`curator.common.goal_sweep` over pushes (or steps) undone as pulls, started by unranking every
rank (most ranks are positions: a box placement and a free cell for the player).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from curator.common.goal_sweep import ALL_MOVES, INVALID, NO_CLUSTER, UNIQUE, UNSOLVABLE, Graph
from curator.sokoban.tables import GRAPH, Kernel
from curator.sokoban.wide import WIDE_GRAPH

__all__ = ["ALL_MOVES", "INVALID", "NO_CLUSTER", "UNIQUE", "UNSOLVABLE", "expand", "finish", "graph", "start"]


def graph(k: Kernel) -> Graph:
    """The compiled position code of the kernel's room: one-word masks, or four words."""
    return GRAPH if k.words == 1 else WIDE_GRAPH


def start(k: Kernel, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distance table before the sweep, the zeroed flags and the solved ranks."""
    return graph(k).scan(k, size)


def expand(k: Kernel, distances: np.ndarray, flags: np.ndarray, first: int,
           solved: np.ndarray | None = None) -> Iterator[tuple[int, int]]:
    """Sweep distances first, first + 1, ... (see `curator.common.goal_sweep.Graph.expand`)."""
    return graph(k).expand(k, distances, flags, first, solved)


def finish(k: Kernel, distances: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """Set the all_moves bits; return the clusters."""
    return graph(k).finish(k, distances, flags)
