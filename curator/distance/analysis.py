"""Running a distance analysis: sweep a permutation puzzle from its solved state and store it.

A finished table is kept unless forced; a long sweep is checkpointed every
CHECKPOINT_SECONDS, and a stopped one resumes from its last checkpoint. As for layered
analyses, one run at a time writes to a folder, and temporary files a killed run left are
removed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from curator.common.errors import StoreError
from curator.common.files import claimed
from curator.common.resources import Shortfall, shortfalls, threads, time_shortfalls
from curator.common.tables import must_recompute
from curator.distance.puzzle import PermutationPuzzle
from curator.distance.store import TABLE_FILE, DistanceStore
from curator.distance.sweep import expand, start_table
from curator.distance.tables import MAX_TABLE_ENTRIES, build_kernel

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
        if not store.complete or must_recompute(store, warn):
            _sweep(puzzle, store, distance_done)
    return store


NEIGHBOUR_SECONDS = {True: 30e-9, False: 80e-9}
"""Thread time of one neighbour looked up during the sweep, with and without transition tables
for every coordinate (about what 10- and 11-piece permutations and the pocket cube took here)."""


@dataclass(frozen=True)
class SweepNeeds:
    """What sweeping a permutation puzzle's distance table takes, estimated before it starts."""

    table_bytes: int
    """The table: in memory while it is swept, and on disk."""
    memory_bytes: int
    """The table and the transition tables of the coordinates that get one."""
    seconds: float
    """Wall time on the threads given: a rough figure, from the puzzle's size, its moves and
    the fewest distances its positions can span."""


def sweep_needs(puzzle: PermutationPuzzle, threads: int) -> SweepNeeds:
    """The memory, disk and time a sweep of `puzzle` on `threads` threads needs."""
    moves = len(puzzle.moves)
    sizes = [size for s in puzzle.sets
             for size in (s.permutations, s.orientation_states if s.orientations > 1 else 0) if size]
    tabled = [size for size in sizes if size * moves <= MAX_TABLE_ENTRIES]
    transitions = sum(size * moves * 4 for size in tabled) * 2  # the parts, then joined into one array
    table_bytes = (puzzle.size + 1) // 2
    neighbours = puzzle.size * moves * fewest_distances(puzzle.size, moves)
    seconds = neighbours * NEIGHBOUR_SECONDS[len(tabled) == len(sizes)] / max(threads, 1)
    return SweepNeeds(table_bytes, table_bytes + transitions, seconds)


def fewest_distances(size: int, moves: int) -> int:
    """The fewest distances `size` positions can spread over when each has `moves` moves and
    one of them undoes the move that led there (a lower bound on the depth of the sweep).

    >>> fewest_distances(3_674_160, 9), fewest_distances(362_880, 4)
    (8, 12)
    """
    reached, frontier, depth = 1, 1, 0
    while reached < size:
        frontier *= moves if depth == 0 else max(moves - 1, 1)
        reached += frontier
        depth += 1
    return max(depth, 1)


def table_shortfalls(puzzle: PermutationPuzzle, directory: Path, threads: int) -> list[Shortfall]:
    """What the sweep needs beyond the free memory and disk and the time allowed: it holds
    the table and the transition tables in memory, and an existing table file is replaced in
    place."""
    needs = sweep_needs(puzzle, threads)
    table = Path(directory) / TABLE_FILE
    written = min(table.stat().st_size, needs.table_bytes) if table.is_file() else 0
    return (shortfalls(needs.memory_bytes, needs.table_bytes - written, directory)
            + time_shortfalls(needs.seconds, threads))


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
