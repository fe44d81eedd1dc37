"""The retrograde breadth-first sweep of a Sokoban room over all its ranks: the goal sweep of
`curator.common.goal_sweep` over pushes (or steps) undone as pulls, started by unranking every
rank (most ranks are positions: a box placement and a free cell for the player).
"""

from __future__ import annotations

from curator.common.goal_sweep import ALL_MOVES, INVALID, NO_CLUSTER, UNIQUE, UNSOLVABLE
from curator.sokoban.tables import GRAPH

__all__ = ["ALL_MOVES", "INVALID", "NO_CLUSTER", "UNIQUE", "UNSOLVABLE", "expand", "finish", "start"]

start = GRAPH.scan
"""The distance table before the sweep, the zeroed flags and the solved ranks."""
expand = GRAPH.expand
"""Sweep distances first, first + 1, ... (see `curator.common.goal_sweep.Graph.expand`)."""
finish = GRAPH.finish
"""Set the all_moves bits; return the clusters."""
