"""Breadth-first sweep over the index space: fills the 4-bit distance table one distance at a time.

Small frontiers are expanded forwards (serial), large ones found backwards (on threads); the
table is the same for any number of threads.
"""

from __future__ import annotations

from collections.abc import Iterator

import numba
import numpy as np

from curator.common.kernels import build, kernel
from curator.common.threads import chunks, spread
from curator.distance.tables import CHUNK, Kernel, coordinates, neighbor, tabled_neighbor

UNREACHED = 15
"""Entry of a position not reached; distances are stored mod 15."""


@numba.njit(cache=True, inline="always")
def entry(table: np.ndarray, i: int) -> int:
    """Entry i: the low nibble of byte i // 2 for even i, the high one for odd i."""
    return (table[i >> 1] >> ((i & 1) << 2)) & 15


@numba.njit(cache=True, inline="always")
def _put(table: np.ndarray, i: int, value: int) -> None:
    shift = (i & 1) << 2
    table[i >> 1] = (table[i >> 1] & (0xF0 >> shift)) | (value << shift)


@kernel
def _forward(k: Kernel, table: np.ndarray, size: int, distance: int) -> int:
    """Mark the unreached neighbors of the positions on `distance`; return how many."""
    here = distance % 15
    after = (distance + 1) % 15
    sizes, offsets, tables = k.sizes, k.offsets, k.tables
    tabled = (offsets >= 0).all()
    x = np.empty(len(k.sizes), dtype=np.int64)
    a = np.empty(k.sources.shape[3], dtype=np.int64)
    b = np.empty_like(a)
    found = 0
    for i in range(size):
        if entry(table, i) != here:
            continue
        coordinates(sizes, i, x)
        for m in range(k.movers.shape[1]):
            j = tabled_neighbor(sizes, offsets, tables, x, m) if tabled else neighbor(k, x, m, a, b)
            if j >= 0 and entry(table, j) == UNREACHED:
                _put(table, j, after)
                found += 1
    return found


@kernel(nogil=True)
def _backward(k: Kernel, table: np.ndarray, size: int, distance: int, found: np.ndarray, start: int,
              step: int) -> None:
    """Mark the unreached positions with a neighbor on `distance`; count them per chunk in
    `found` (chunks start, start + step, ...: see `curator.common.threads`).

    Moves are undone by moves, so such a neighbor is one move away in either direction. A
    neighbor marked meanwhile by another thread reads as unreached or distance+1, never as
    `distance`, so the outcome does not depend on timing; chunks hold whole bytes of the table.
    """
    here = distance % 15
    after = (distance + 1) % 15
    sizes, offsets, tables = k.sizes, k.offsets, k.tables
    tabled = (offsets >= 0).all()
    x = np.empty(len(k.sizes), dtype=np.int64)
    a = np.empty(k.sources.shape[3], dtype=np.int64)
    b = np.empty_like(a)
    for chunk in range(start, (size + CHUNK - 1) // CHUNK, step):
        for i in range(chunk * CHUNK, min(size, (chunk + 1) * CHUNK)):
            if entry(table, i) != UNREACHED:
                continue
            coordinates(sizes, i, x)
            for m in range(k.movers.shape[1]):
                j = tabled_neighbor(sizes, offsets, tables, x, m) if tabled else neighbor(k, x, m, a, b)
                if j >= 0 and entry(table, j) == here:
                    _put(table, i, after)
                    found[chunk] += 1
                    break


def forward_is_cheaper(frontier: int, unreached: int, threads: int) -> bool:
    """Expanding a frontier costs about its size; searching back about the unreached, shared."""
    return frontier * threads < unreached


def expand(k: Kernel, table: np.ndarray, counts: list[int], size: int) -> Iterator[int]:
    """Sweep on from the last distance in `counts` (counts[d] = positions at distance d).

    Each step marks the next distance in `table`, appends its count to `counts` and yields it;
    the sweep ends when a distance has no positions (not recorded) or nothing is left unreached.
    """
    while sum(counts) < size:
        distance = len(counts) - 1
        unreached = size - sum(counts)
        if forward_is_cheaper(counts[distance], unreached, numba.get_num_threads()):
            found = build(_forward)(k, table, size, distance)
        else:
            per_chunk = np.zeros(chunks(size, CHUNK), dtype=np.int64)
            spread(build(_backward), k, table, size, distance, per_chunk, shares=len(per_chunk))
            found = per_chunk.sum()
        if not found:
            return
        counts.append(int(found))
        yield int(found)


def start_table(size: int, solved: int) -> tuple[np.ndarray, list[int]]:
    """The table and counts before the sweep: only the solved position, at distance 0."""
    table = np.full((size + 1) // 2, 0xFF, dtype=np.uint8)
    _put(table, solved, 0)
    return table, [1]
