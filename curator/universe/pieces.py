"""Pieces of work of a universe: the kinds of its first rows (no slide changes a lane's kind, so
each connected set falls in one piece), split deeper where a piece holds many packed positions,
so that no piece outgrows a worker's memory and the workers share the pieces evenly.

A piece is a prefix: the kind of each of its first depths of `Space.order`. Its packed
positions are counted without exploring: for every choice of the rows, the product of each
column's choices (an upper bound, exact unless the vehicle counts' ranges bind a column).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product

import numba
import numpy as np

from curator.universe.space import Space

Prefix = tuple[int, ...]

MOST_PACKED = 1 << 23
"""A piece holding more packed positions is split by the kinds of its next row (a piece's
memory grows with them, see `BYTES_PER_PACKED`)."""
BYTES_PER_PACKED = 128
"""Memory a worker holds per packed position of its piece, for the sets found and the packed
positions met: 125 and 128 bytes measured (peak resident growth) on Rush Hour pieces of a
million packed positions, without walls and with; the largest set explored adds its own."""
FEWEST_PIECES = 32
"""A piece holding more than this share of the packed positions is split as well, for the
workers to share the pieces evenly."""


def split(space: Space, most_packed: int = MOST_PACKED, counted: Callable[[int], None] | None = None
          ) -> tuple[list[Prefix], list[int]]:
    """The pieces of work and their packed positions (counted), in order: a prefix is split by
    the kinds of its next row while it holds more than `most_packed` packed positions or more
    than 1/FEWEST_PIECES of them all, and has a row left; pieces holding none are left out.
    `counted(1)` hears of each pair of kinds of the first two rows counted (see `counting`)."""
    radix, ids, weights = packed_pieces(space, space.universe.rows, counted)
    kinds = prefixes(radix, ids)
    before = np.concatenate(([0], np.cumsum(weights)))
    most = min(most_packed, -(-int(before[-1]) // FEWEST_PIECES))
    pieces: list[Prefix] = []
    packed: list[int] = []

    def visit(lo: int, hi: int, depth: int) -> None:
        count = int(before[hi] - before[lo])
        if count <= most or depth == len(radix):
            pieces.append(tuple(int(d) for d in kinds[lo, :depth]))
            packed.append(count)
            return
        column = kinds[lo:hi, depth]
        starts = np.flatnonzero(np.diff(column)) + 1 + lo
        for a, b in zip((lo, *starts.tolist()), (*starts.tolist(), hi)):
            visit(a, b, depth + 1)

    if len(ids):
        visit(0, len(ids), 0)
    return pieces, packed


def counting(space: Space) -> int:
    """How many steps `split` tells `counted` of: the pairs of kinds of the first two rows."""
    return space.kinds(0) * (space.kinds(1) if space.universe.rows > 1 else 1)


def prefixes(radix: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The pieces numbered as `packed_pieces` numbers them, as int64[piece, depth] kinds."""
    out = np.zeros((len(ids), len(radix)), np.int64)
    rest = np.asarray(ids, np.int64)
    for depth in reversed(range(len(radix))):
        rest, out[:, depth] = np.divmod(rest, radix[depth])
    return out


def uniform(space: Space, lanes: int) -> list[Prefix]:
    """Every piece of the kinds of the first `lanes` rows, empty or not (how a universe was
    split before the split followed the pieces' sizes)."""
    return list(product(*(range(space.kinds(depth)) for depth in range(lanes))))


def piece_ranges(space: Space, prefix: Prefix) -> np.ndarray:
    """The piece as int64[depth, 2] ranges of the stacked configurations (see
    `curator.universe.sweep.search_item`): the prefix's depths narrowed to their kinds."""
    ranges = np.stack(space.ranges(), axis=1)
    for depth, kind in enumerate(prefix):
        ranges[depth] = space.kind_span(depth, kind)
    return ranges


def packed_pieces(space: Space, lanes: int, counted: Callable[[int], None] | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kinds of each of the first `lanes` depths (the radix), the pieces holding packed
    positions as numbers in that radix (the first depth the most significant digit), ascending,
    and their packed positions; counted a kind of the first two rows at a time, each told to
    `counted(1)`."""
    u = space.universe
    radix = np.array([space.kinds(depth) for depth in range(lanes)], np.int64)
    width = max(space.kinds(depth) for depth in range(u.rows)) + 1  # one kind past the last: no rows
    spans = np.array([[space.kind_span(depth, kind) for kind in range(width)] for depth in range(u.rows)],
                     np.int64)
    kind_lo, kind_hi = np.ascontiguousarray(spans[:, :, 0]), np.ascontiguousarray(spans[:, :, 1])
    most = np.array([v.most for v in u.vehicles] + [u.walls[1]], np.int64)
    col_lo, col_hi, _ = space.column_choices()
    configs = np.concatenate(space.configs)
    ids, weights = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    for first in range(space.kinds(0)):
        for second in range(space.kinds(1) if u.rows > 1 else 1):
            fixed = np.array([first, second][:min(2, u.rows)], np.int64)
            found = _packed(fixed, kind_lo, kind_hi, configs, most, u.rows, u.cols, radix, col_lo, col_hi)
            ids.append(found[0])
            weights.append(found[1])
            if counted is not None:
                counted(1)
    return radix, np.concatenate(ids), np.concatenate(weights)


@numba.njit(cache=True)
def _rows_packed(ranges: np.ndarray, configs: np.ndarray, rows: int, cols: int, col_lo: np.ndarray,
                 col_hi: np.ndarray) -> int:
    """The packed positions whose rows (depths 0 to rows - 1) take configurations within
    `ranges`: over every choice of the rows, the product of each column's choices."""
    mask_t = np.zeros(rows + 1, np.int64)
    require_t = np.zeros(rows + 1, np.int64)
    chosen = np.zeros(rows, np.int64)
    bits = (1 << rows) - 1
    total = 0
    k = 0
    chosen[0] = ranges[0, 0] - 1
    while k >= 0:
        chosen[k] += 1
        if chosen[k] >= ranges[k, 1]:
            k -= 1
            continue
        mask_t[k + 1] = mask_t[k] | configs[chosen[k], 7]
        require_t[k + 1] = require_t[k] | configs[chosen[k], 8]
        if k + 1 < rows:
            k += 1
            chosen[k] = ranges[k, 0] - 1
            continue
        product = 1
        for c in range(cols):
            taken = (mask_t[rows] >> (c * rows)) & bits
            needed = (require_t[rows] >> (c * rows)) & bits
            product *= col_hi[c, taken, needed] - col_lo[c, taken, needed]
        total += product
    return total


@numba.njit(cache=True)
def _packed(fixed: np.ndarray, kind_lo: np.ndarray, kind_hi: np.ndarray, configs: np.ndarray,
            most: np.ndarray, rows: int, cols: int, radix: np.ndarray, col_lo: np.ndarray, col_hi: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """The pieces whose first depths take the kinds `fixed` holding packed positions, ascending, and
    their packed positions. A piece is the kinds of the first len(radix) depths, as a number in
    the radix of each depth's kinds; kind j of depth d takes configurations kind_lo[d, j] to
    kind_hi[d, j] (an empty range past the last kind). The kinds of all rows are chosen first,
    within `most`."""
    kinds = most.shape[0]
    counts = np.zeros((rows + 1, kinds), np.int64)
    chosen = np.zeros(rows, np.int64)
    ranges = np.zeros((rows, 2), np.int64)
    ids, weights = np.zeros(1024, np.int64), np.zeros(1024, np.int64)
    n = 0
    k = 0
    chosen[0] = fixed[0] - 1
    while k >= 0:
        chosen[k] += 1
        if kind_lo[k, chosen[k]] == kind_hi[k, chosen[k]] or (k < len(fixed) and chosen[k] > fixed[k]):
            k -= 1
            continue
        ranges[k] = kind_lo[k, chosen[k]], kind_hi[k, chosen[k]]
        fits = True
        for i in range(kinds):  # a kind's vehicles and walls: those of any of its configurations
            counts[k + 1, i] = counts[k, i] + configs[ranges[k, 0], 9 + i]
            fits &= counts[k + 1, i] <= most[i]
        if not fits:
            continue
        if k + 1 < rows:
            k += 1
            chosen[k] = fixed[k] - 1 if k < len(fixed) else -1
            continue
        packed = _rows_packed(ranges, configs, rows, cols, col_lo, col_hi)
        if packed == 0:
            continue
        piece = 0
        for d in range(len(radix)):
            piece = piece * radix[d] + chosen[d]
        if n == 0 or ids[n - 1] != piece:
            if n == len(ids):
                ids, weights = np.concatenate((ids, ids)), np.concatenate((weights, weights))
            ids[n], weights[n] = piece, 0
            n += 1
        weights[n - 1] += packed
    return ids[:n], weights[:n]
