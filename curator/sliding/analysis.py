"""Running a sliding-block analysis: sweep every rank from the goal positions and store the
tables (`curator.common.goal_tables.analyze_tables`, checkpointed and resumable).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from curator.common.goal_tables import BYTES_PER_RANK, analyze_tables, table_shortfalls
from curator.common.resources import Shortfall
from curator.sliding import sweep
from curator.sliding.puzzle import SlidingPuzzle
from curator.sliding.store import SlidingStore
from curator.sliding.tables import build_kernel

__all__ = ["BYTES_PER_RANK", "analyze_sliding", "sliding_shortfalls"]

analyze_sliding = partial(analyze_tables, SlidingStore, sweep, build_kernel)
"""analyze_sliding(puzzle, directory, workers=None, force=False, distance_done=None, warn=None):
compute (or keep, or finish) the tables of `puzzle` in `directory` (see `analyze_tables`)."""


def sliding_shortfalls(puzzle: SlidingPuzzle, directory: Path) -> list[Shortfall]:
    """What the analysis needs beyond the free memory and disk: its tables, in memory and
    written to `directory`."""
    return table_shortfalls(puzzle.size, directory)
