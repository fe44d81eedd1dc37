"""Running a sliding-block analysis: sweep every rank from the goal positions and store the
tables. A finished analysis is kept unless forced; the sweep is checkpointed every
CHECKPOINT_SECONDS and resumes from its last checkpoint, as distance tables do.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from curator.common.errors import StoreError
from curator.common.files import claimed
from curator.common.resources import Shortfall, shortfalls, threads
from curator.sliding import sweep
from curator.sliding.puzzle import SlidingPuzzle
from curator.sliding.store import TABLES, SlidingStore
from curator.sliding.tables import build_kernel

CHECKPOINT_SECONDS = 60.0
BYTES_PER_RANK = sum(np.dtype(dtype).itemsize for _, dtype in TABLES.values())
"""Memory and disk per rank: the three tables (the connected sets reuse the union-find array)."""

DistanceDone = Callable[[int, int], None]
"""Called with (distance, positions) after each distance is swept."""


def analyze_sliding(
    puzzle: SlidingPuzzle,
    directory: Path,
    workers: int | None = None,
    force: bool = False,
    distance_done: DistanceDone | None = None,
    warn: Callable[[str], None] | None = None,
) -> SlidingStore:
    """Compute (or keep, or finish) the tables of `puzzle` in `directory`.

    StoreError if another analysis is writing to `directory`; `warn` gets one line per
    temporary file of an interrupted run that is removed.
    """
    directory = Path(directory)
    with threads(workers), claimed(directory, lambda: SlidingStore.for_puzzle(directory, puzzle, force),
                                   warn) as store:
        if not store.complete:
            _sweep(puzzle, store, distance_done)
    return store


def memory_bytes(puzzle: SlidingPuzzle) -> int:
    """Memory the analysis takes: its tables, and under tilt moves the table of every
    position's children (the sweep pulls distances through it)."""
    extra = sweep.TILT_TABLE_BYTES if puzzle.move == "tilt" else 0
    return puzzle.size * (BYTES_PER_RANK + extra)


def disk_bytes(puzzle: SlidingPuzzle) -> int:
    """Disk the stored tables take."""
    return puzzle.size * BYTES_PER_RANK


def sliding_shortfalls(puzzle: SlidingPuzzle, directory: Path) -> list[Shortfall]:
    """What the analysis needs beyond the free memory and disk: its tables (and children),
    in memory, and its tables written to `directory`."""
    return shortfalls(memory_bytes(puzzle), disk_bytes(puzzle), directory)


def _sweep(puzzle: SlidingPuzzle, store: SlidingStore, distance_done: DistanceDone | None) -> None:
    began = time.perf_counter()
    k = build_kernel(puzzle)
    resumed = _checkpoint(store)
    if resumed is None:
        distances, flags, solved = sweep.start(k, puzzle.size)
        first, counts, earlier = 0, {}, 0.0
    else:
        distances, flags, first = resumed
        solved = None
        counts = {item["distance"]: item["positions"] for item in store.manifest.get("distances", [])}
        earlier = store.seconds
    saved = time.perf_counter()
    for distance, found in sweep.expand(k, distances, flags, first, solved):
        counts[distance] = found
        if distance_done:
            distance_done(distance, found)
        if time.perf_counter() - saved >= CHECKPOINT_SECONDS:
            store.save({"distances": distances, "flags": flags}, complete=False, swept={"next": distance + 1},
                       seconds=round(earlier + time.perf_counter() - began, 3),
                       distances=[{"distance": d, "positions": n} for d, n in sorted(counts.items())])
            saved = time.perf_counter()
    clusters = sweep.finish(k, distances, flags)
    store.save({"distances": distances, "flags": flags, "clusters": clusters}, complete=True, swept=None,
               seconds=round(earlier + time.perf_counter() - began, 3), **facts(distances, flags, clusters))


def facts(distances: np.ndarray, flags: np.ndarray, clusters: np.ndarray) -> dict:
    """The manifest's counts: per distance, and of ranks, positions and connected sets."""
    solvable = distances < sweep.UNSOLVABLE
    reached = distances[solvable]
    longest = int(reached.max()) if len(reached) else -1
    per = np.bincount(reached, minlength=longest + 1)
    unique = np.bincount(reached, weights=(flags[solvable] & sweep.UNIQUE) > 0, minlength=longest + 1)
    every = np.bincount(reached, weights=(flags[solvable] & sweep.ALL_MOVES) > 0, minlength=longest + 1)
    valid = clusters[clusters != sweep.NO_CLUSTER]
    sizes = np.bincount(valid) if len(valid) else np.zeros(0, dtype=np.int64)
    return {
        "invalid": int(len(distances) - len(valid)),
        "positions": int(len(valid)),
        "solvable": int(solvable.sum()),
        "unsolvable": int((distances == sweep.UNSOLVABLE).sum()),
        "max_distance": longest,
        "clusters": int(len(sizes)),
        "largest_cluster": int(sizes.max()) if len(sizes) else 0,
        "distances": [{"distance": d, "positions": int(per[d]), "unique": int(unique[d]),
                       "all_moves": int(every[d])} for d in range(longest + 1) if per[d]],
    }


def _checkpoint(store: SlidingStore) -> tuple[np.ndarray, np.ndarray, int] | None:
    """The tables and the next distance to sweep of an unfinished earlier run, or None if
    none verifies."""
    swept = store.manifest.get("swept")
    if not swept:
        return None
    try:
        return store.load("distances"), store.load("flags"), swept["next"]
    except (StoreError, KeyError, TypeError):
        return None
