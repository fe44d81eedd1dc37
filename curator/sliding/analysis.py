"""Running a sliding-block analysis: sweep every rank from the goal positions and store the
tables (`curator.common.goal_tables.analyze_tables`, checkpointed and resumable).
"""

from __future__ import annotations

from functools import partial

from curator.common.goal_tables import BYTES_PER_RANK, analyze_tables
from curator.sliding import sweep
from curator.sliding.puzzle import SlidingPuzzle
from curator.sliding.store import SlidingStore
from curator.sliding.tables import build_kernel

__all__ = ["BYTES_PER_RANK", "analyze_sliding", "sweep_bytes"]

analyze_sliding = partial(analyze_tables, SlidingStore, sweep, build_kernel)
"""analyze_sliding(puzzle, directory, workers=None, force=False, distance_done=None, warn=None):
compute (or keep, or finish) the tables of `puzzle` in `directory` (see `analyze_tables`)."""


def sweep_bytes(puzzle: SlidingPuzzle) -> int:
    """Memory per rank the sweep takes beside the tables: under tilt moves the table of every
    position's children, through which it pulls the distances."""
    return sweep.TILT_TABLE_BYTES if puzzle.move == "tilt" else 0
