"""Stored sliding-block tables: the goal tables of `curator.common.goal_tables` (distances,
flags and connected sets), with a manifest of kind "sliding" that records the move rule and
the metric.
"""

from __future__ import annotations

from pathlib import Path

from curator.common.files import manifest_kind
from curator.common.goal_tables import ENCODING, TABLES, GoalStore
from curator.sliding.puzzle import SlidingPuzzle, parse_sliding_puzzle

KIND = "sliding"
FORMAT = "curator-sliding/1"

__all__ = ["ENCODING", "FORMAT", "KIND", "TABLES", "SlidingStore", "holds_sliding"]


def holds_sliding(directory: Path) -> bool:
    """Whether `directory` has a manifest of kind "sliding"."""
    return manifest_kind(directory) == KIND


class SlidingStore(GoalStore):
    """The results folder of one sliding-block puzzle."""

    KIND = KIND
    FORMAT = FORMAT
    WHAT = "sliding-block tables"
    RULES = ("move", "metric")

    @staticmethod
    def parse_puzzle(text: str, source: str) -> SlidingPuzzle:
        return parse_sliding_puzzle(text, source)
