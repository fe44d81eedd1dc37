"""Running a distance analysis: sweep a permutation puzzle from its solved state and store it.

A finished table is kept unless forced; a long sweep is checkpointed every
CHECKPOINT_SECONDS, and a stopped one resumes from its last checkpoint. As for layered
analyses, one run at a time writes to a folder, and temporary files a killed run left are
removed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from curator.common.errors import StoreError
from curator.common.files import claimed
from curator.common.resources import Shortfall, shortfalls, threads
from curator.distance.puzzle import PermutationPuzzle
from curator.distance.store import TABLE_FILE, DistanceStore
from curator.distance.sweep import expand, start_table
from curator.distance.tables import build_kernel

CHECKPOINT_SECONDS = 60.0

DistanceDone = Callable[[int, int], None]
"""Called with (distance, positions) after each distance is swept."""


def analyze_distances(
    puzzle: PermutationPuzzle,
    directory: Path,
    workers: int | None = None,
    force: bool = False,
    distance_done: DistanceDone | None = None,
    warn: Callable[[str], None] | None = None,
) -> DistanceStore:
    """Compute (or keep, or finish) the distance table of `puzzle` in `directory`.

    StoreError if another analysis is writing to `directory`; `warn` gets one line per
    temporary file of an interrupted run that is removed.
    """
    directory = Path(directory)
    with threads(workers), claimed(directory, lambda: DistanceStore.for_puzzle(directory, puzzle, force),
                                   warn) as store:
        if not store.complete:
            _sweep(puzzle, store, distance_done)
    return store


def table_shortfalls(puzzle: PermutationPuzzle, directory: Path) -> list[Shortfall]:
    """What the sweep needs beyond the free memory and disk: it holds the table in memory,
    and an existing table file is replaced in place."""
    table_bytes = (puzzle.size + 1) // 2
    table = Path(directory) / TABLE_FILE
    written = min(table.stat().st_size, table_bytes) if table.is_file() else 0
    return shortfalls(table_bytes, table_bytes - written, directory)


def _sweep(puzzle: PermutationPuzzle, store: DistanceStore, distance_done: DistanceDone | None) -> None:
    start = time.perf_counter()
    kernel = build_kernel(puzzle)
    resumed = _checkpoint(store)
    if resumed is None:
        table, counts = start_table(puzzle.size, puzzle.rank(puzzle.solved_state))
        earlier = 0.0
    else:
        table, counts = resumed, store.counts
        earlier = store.seconds
    saved = time.perf_counter()
    for found in expand(kernel, table, counts, puzzle.size):
        if distance_done:
            distance_done(len(counts) - 1, found)
        if time.perf_counter() - saved >= CHECKPOINT_SECONDS:
            store.save(table, counts, False, earlier + time.perf_counter() - start)
            saved = time.perf_counter()
    store.save(table, counts, True, earlier + time.perf_counter() - start)


def _checkpoint(store: DistanceStore) -> np.ndarray | None:
    """The table of an unfinished earlier run, or None if there is none that verifies."""
    if not store.counts:
        return None
    try:
        return store.load()
    except StoreError:
        return None
