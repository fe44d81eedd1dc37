"""Running a Sokoban analysis: sweep every rank from the goal positions and store the tables
(`curator.common.goal_tables.analyze_tables`, checkpointed and resumable).
"""

from __future__ import annotations

from functools import partial

from curator.common.goal_tables import analyze_tables
from curator.sokoban import sweep
from curator.sokoban.store import SokobanStore
from curator.sokoban.tables import build_kernel

analyze_sokoban = partial(analyze_tables, SokobanStore, sweep, build_kernel)
"""analyze_sokoban(puzzle, directory, workers=None, force=False, distance_done=None, warn=None):
compute (or keep, or finish) the tables of `puzzle` in `directory` (see `analyze_tables`)."""
