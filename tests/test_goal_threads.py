"""Goal tables (sliding blocks, Sokoban) computed on two threads are those of one thread, bit
for bit: the sweep, the tilts' pulled distances, all_moves, and the walks that rate levels."""

from __future__ import annotations

from pathlib import Path

import numba
import numpy as np
import pytest

import curator
from curator.common.goal_sweep import CHUNK
from curator.common.resources import threads
from curator.common.threads import WALKS

PUZZLES = Path(__file__).resolve().parents[1] / "puzzles"
LUNAR_THREE_HELPERS = (PUZZLES / "lunar-lockout.toml").read_text().replace("...h.\n", ".....\n", 1)
CASES = {
    "lunar-lockout": LUNAR_THREE_HELPERS,  # slides until blocked: parents listed (50,600 ranks)
    "tilt": (PUZZLES / "tilt.toml").read_text(),  # tilts: children tabled, distances pulled
    "sokoban": (PUZZLES / "sokoban.toml").read_text(),  # pushes
}


@pytest.mark.parametrize("name", CASES)
def test_two_threads_give_the_tables_and_ratings_of_one(tmp_path, name):
    if numba.config.NUMBA_NUM_THREADS < 2:  # type: ignore[attr-defined]
        pytest.skip("needs numba to allow 2 threads")
    path = tmp_path / f"{name}.toml"
    path.write_text(CASES[name])
    results = {workers: curator.analyze(path, tmp_path / f"out-{workers}", workers=workers)
               for workers in (1, 2)}
    one, two = results[1], results[2]
    assert len(one.distances) > CHUNK  # several chunks to share
    for table in ("distances", "flags", "clusters"):
        assert np.array_equal(getattr(one, table), getattr(two, table)), table
    for file in sorted((tmp_path / "out-1").glob("*.u*")):
        assert file.read_bytes() == (tmp_path / "out-2" / file.name).read_bytes(), file.name
    levels = {}
    for workers in (1, 2):
        with threads(workers):
            levels[workers] = [(level.rank, level.distance, level.solution, level.difficulty,
                                level.difficulty_terms) for level in one.select(limit=3 * WALKS)]
    assert len(levels[1]) > WALKS  # the walks too are shared among the threads
    assert levels[1] == levels[2]
