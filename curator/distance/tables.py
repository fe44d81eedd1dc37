"""Coordinates and transition tables: how each move changes each part of a position's rank.

Coordinates that fit get a table of their value after every move; larger ones are unranked,
moved and ranked again inside the compiled kernels.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from curator.common.kernels import build, kernel
from curator.common.ranking import (
    rank_orientation_array,
    rank_permutation_array,
    unrank_orientation_array,
    unrank_permutation_array,
)
from curator.common.threads import chunks, spread
from curator.distance.puzzle import PermutationPuzzle

PERMUTATION = 0
ORIENTATION = 1
MAX_TABLE_ENTRIES = 1 << 26
"""A coordinate gets a table when its size times the number of moves is at most this
(256 MiB of int32 entries)."""
CHUNK = 1 << 14
"""Coordinate values (or positions) per chunk of a kernel's work that threads share (see
`curator.common.threads`); even, so that no two chunks share a byte of a distance table."""


class Kernel(NamedTuple):
    """Everything the compiled code needs to move a position, as plain arrays.

    C coordinates, M moves, K cases at most per move and set, N pieces at most per set.
    """

    sizes: np.ndarray
    """int64[C]: number of values of each coordinate; the rank is their mixed-radix number."""
    offsets: np.ndarray
    """int64[C]: where coordinate c's table (M rows of sizes[c]) starts in `tables`, or -1."""
    tables: np.ndarray
    """int32: the transition tables, entry -1 where the move is not legal."""
    kinds: np.ndarray
    """int64[C]: PERMUTATION or ORIENTATION."""
    counts: np.ndarray
    """int64[C]: pieces in the coordinate's set."""
    orientations: np.ndarray
    """int64[C]: twists per piece of the coordinate's set."""
    zero_sums: np.ndarray
    """bool[C]: whether the set's twists add up to a multiple of its orientations."""
    movers: np.ndarray
    """int64[C, M]: the piece that selects the case, or -1 for a single unconditional case."""
    cases: np.ndarray
    """int64[C, M]: number of cases."""
    at: np.ndarray
    """int64[C, M, K]: where the mover stands for each case."""
    sources: np.ndarray
    """int64[C, M, K, N]: position p takes the piece from sources[..., p]."""
    twists: np.ndarray
    """int64[C, M, K, N]: twist added to the piece arriving on position p."""


@numba.njit(cache=True)
def move_coordinate(k: Kernel, c: int, m: int, x: int, a: np.ndarray, b: np.ndarray) -> int:
    """Value of coordinate c after move m from value x, or -1 if the move is not legal.

    `a` and `b` are scratch arrays of at least N entries.
    """
    n = k.counts[c]
    before = a[:n]
    after = b[:n]
    if k.kinds[c] == PERMUTATION:
        unrank_permutation_array(x, before)
        case = 0
        if k.movers[c, m] >= 0:
            case = -1
            for j in range(k.cases[c, m]):
                if before[k.at[c, m, j]] == k.movers[c, m]:
                    case = j
                    break
            if case < 0:
                return -1
        for p in range(n):
            after[p] = before[k.sources[c, m, case, p]]
        return rank_permutation_array(after)
    v = k.orientations[c]
    unrank_orientation_array(x, v, k.zero_sums[c], before)
    for p in range(n):
        after[p] = (before[k.sources[c, m, 0, p]] + k.twists[c, m, 0, p]) % v
    return rank_orientation_array(after, v, k.zero_sums[c])


@numba.njit(cache=True, inline="always")
def coordinates(sizes: np.ndarray, rank: int, x: np.ndarray) -> None:
    """Split a rank into its coordinate values (written into x)."""
    for c in range(len(sizes) - 1, -1, -1):
        x[c] = rank % sizes[c]
        rank //= sizes[c]


@numba.njit(cache=True, inline="always")
def tabled_neighbor(sizes: np.ndarray, offsets: np.ndarray, tables: np.ndarray, x: np.ndarray, m: int) -> int:
    """Rank after move m from coordinates x when every coordinate has a table, or -1."""
    rank = 0
    for c in range(len(sizes)):
        y = tables[offsets[c] + m * sizes[c] + x[c]]
        if y < 0:
            return -1
        rank = rank * sizes[c] + y
    return rank


@numba.njit(cache=True)
def neighbor(k: Kernel, x: np.ndarray, m: int, a: np.ndarray, b: np.ndarray) -> int:
    """Rank after move m from the position with coordinates x, or -1 if it is not legal.

    Works with or without tables. Hot loops call `tabled_neighbor` instead when every
    coordinate has a table: numba runs code that takes plain arrays much faster than code
    that reads them from the Kernel tuple.
    """
    rank = 0
    for c in range(len(k.sizes)):
        if k.offsets[c] >= 0:
            y = k.tables[k.offsets[c] + m * k.sizes[c] + x[c]]
        else:
            y = move_coordinate(k, c, m, x[c], a, b)
        if y < 0:
            return -1
        rank = rank * k.sizes[c] + y
    return rank


@kernel(nogil=True)
def _fill(k: Kernel, c: int, out: np.ndarray, start: int, step: int) -> None:
    """Write coordinate c's value after move m from value x into out[m, x] (chunks start,
    start + step, ...: see `curator.common.threads`)."""
    size = k.sizes[c]
    moves = k.movers.shape[1]
    width = k.sources.shape[3]
    a = np.empty(width, dtype=np.int64)
    b = np.empty(width, dtype=np.int64)
    for chunk in range(start, (size + CHUNK - 1) // CHUNK, step):
        for x in range(chunk * CHUNK, min(size, (chunk + 1) * CHUNK)):
            for m in range(moves):
                out[m, x] = move_coordinate(k, c, m, x, a, b)


def build_kernel(puzzle: PermutationPuzzle) -> Kernel:
    """The puzzle's coordinates and moves as arrays, with a table for each coordinate that fits."""
    coords = []
    for i, s in enumerate(puzzle.sets):
        coords.append((i, PERMUTATION, s.permutations))
        if s.orientations > 1:
            coords.append((i, ORIENTATION, s.orientation_states))
    shape = (
        len(coords),
        len(puzzle.moves),
        max(len(e.cases) for m in puzzle.moves for e in m.effects),
        max(s.count for s in puzzle.sets),
    )
    movers = np.full(shape[:2], -1, dtype=np.int64)
    cases = np.zeros(shape[:2], dtype=np.int64)
    at = np.full(shape[:3], -1, dtype=np.int64)
    sources = np.zeros(shape, dtype=np.int64)
    twists = np.zeros(shape, dtype=np.int64)
    for c, (i, _, _) in enumerate(coords):
        for m, move in enumerate(puzzle.moves):
            effect = move.effects[i]
            movers[c, m] = effect.mover
            cases[c, m] = len(effect.cases)
            for j, case in enumerate(effect.cases):
                n = len(case.source)
                at[c, m, j] = case.at
                sources[c, m, j, :n] = case.source
                twists[c, m, j, :n] = case.twist
    sets = [puzzle.sets[i] for i, _, _ in coords]
    kernel = Kernel(
        sizes=np.array([size for _, _, size in coords], dtype=np.int64),
        offsets=np.full(len(coords), -1, dtype=np.int64),
        tables=np.zeros(0, dtype=np.int32),
        kinds=np.array([kind for _, kind, _ in coords], dtype=np.int64),
        counts=np.array([s.count for s in sets], dtype=np.int64),
        orientations=np.array([s.orientations for s in sets], dtype=np.int64),
        zero_sums=np.array([s.zero_sum for s in sets], dtype=np.bool_),
        movers=movers,
        cases=cases,
        at=at,
        sources=sources,
        twists=twists,
    )
    return _with_tables(kernel)


def _with_tables(kernel: Kernel) -> Kernel:
    moves = kernel.movers.shape[1]
    offsets = np.full(len(kernel.sizes), -1, dtype=np.int64)
    parts = []
    start = 0
    for c, size in enumerate(kernel.sizes):
        if size * moves <= MAX_TABLE_ENTRIES:
            table = np.empty((moves, size), dtype=np.int32)
            spread(build(_fill), kernel, c, table, shares=chunks(size, CHUNK))
            parts.append(table.ravel())
            offsets[c] = start
            start += table.size
    tables = np.concatenate(parts) if parts else kernel.tables
    return kernel._replace(offsets=offsets, tables=tables)
