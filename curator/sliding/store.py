"""Stored sliding-block tables: the goal tables of `curator.common.goal_tables` (distances,
flags and connected sets), with a manifest of kind "sliding" that records the move rule, the
metric and (for pieces that slide until blocked) what the board's edge does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from curator.common.errors import StoreError
from curator.common.files import manifest_kind
from curator.common.goal_tables import ENCODING, TABLES, GoalStore
from curator.sliding.puzzle import SlidingPuzzle, parse_sliding_puzzle

KIND = "sliding"
FORMAT = "curator-sliding/2"

__all__ = ["ENCODING", "FORMAT", "KIND", "TABLES", "SlidingStore", "holds_sliding"]


def holds_sliding(directory: Path) -> bool:
    """Whether `directory` has a manifest of kind "sliding"."""
    try:
        return manifest_kind(directory) == KIND
    except StoreError:
        return False


class SlidingStore(GoalStore):
    """The results folder of one sliding-block puzzle."""

    KIND = KIND
    FORMAT = FORMAT
    WHAT = "sliding-block tables"
    RULES = ("move", "metric", "edge")

    @classmethod
    def rules(cls, puzzle: SlidingPuzzle) -> dict[str, Any]:
        """The move rule and metric, and the edge where pieces slide until blocked (null else)."""
        return {"move": puzzle.move, "metric": puzzle.metric,
                "edge": puzzle.edge if puzzle.move == "until_blocked" else None}

    @staticmethod
    def parse_puzzle(text: str, source: str) -> SlidingPuzzle:
        return parse_sliding_puzzle(text, source)
