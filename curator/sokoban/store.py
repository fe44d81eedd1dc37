"""Stored Sokoban tables: the goal tables of `curator.common.goal_tables` (distances, flags and
connected sets), with a manifest of kind "sokoban" that records the metric.
"""

from __future__ import annotations

from curator.common.goal_tables import ENCODING, TABLES, GoalStore
from curator.sokoban.puzzle import SokobanPuzzle, parse_sokoban_puzzle

KIND = "sokoban"
FORMAT = "curator-sokoban/1"

__all__ = ["ENCODING", "FORMAT", "KIND", "TABLES", "SokobanStore"]


class SokobanStore(GoalStore):
    """The results folder of one Sokoban room."""

    KIND = KIND
    FORMAT = FORMAT
    WHAT = "Sokoban tables"
    RULES = ("metric", "boxes")

    @staticmethod
    def parse_puzzle(text: str, source: str) -> SokobanPuzzle:
        return parse_sokoban_puzzle(text, source)
