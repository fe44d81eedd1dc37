"""The retrograde breadth-first sweep of a sliding-block puzzle over all its ranks.

Every goal position starts at distance 0; distance d's positions are taken from their bucket,
their unique bits set from their children, and their parents get distance d + cost when that
is shorter and go into that distance's bucket (moves cost 1, or the cells slid under the step
metric of robots on ice, as in Dial's algorithm). Tilt moves have no cheap parents: their
children are tabled once and each distance pulls from the one before (`_expand_pulling`).
Then all_moves, and the connected sets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numba
import numpy as np

from curator.common.kernels import build, kernel
from curator.sliding.tables import LINE_METRIC, TILT, Kernel, is_goal, moves, place, room, unrank

INVALID = 0xFFFF
"""Distance entry of a rank whose pieces overlap or leave the board."""
UNSOLVABLE = 0xFFFE
"""Distance entry of a valid position with no way to the goal."""
MAX_DISTANCE = 0xFFFD
UNIQUE, ALL_MOVES = 1, 2
"""Bits of a position's flags byte."""
NO_CLUSTER = 0xFFFFFFFF
"""Cluster entry of an invalid rank."""
CHUNK = 1 << 14
"""Ranks per parallel task."""

Progress = Callable[[int, int], None]
"""Called with (distance, positions) as each distance is finished."""


@kernel
def _start(k: Kernel, distances: np.ndarray) -> np.ndarray:
    """Mark every position solved (0) or not yet solvable, the other ranks staying invalid;
    return the solved ranks. Placements are enumerated group by group, so a group that
    overlaps skips every rank that begins with it."""
    groups = len(k.counts)
    digits = np.zeros(groups, dtype=np.int64)
    covered = np.zeros(groups + 1, dtype=np.uint64)
    pos = np.zeros(k.first[-1], dtype=np.int64)
    solved = np.empty(1024, dtype=np.int64)
    found = 0
    for s in range(len(k.offsets) - 1):
        covered[0] = k.exits[0]
        g = 0
        digits[0] = -1
        while g >= 0:
            digits[g] += 1
            if digits[g] >= k.radices[s, g]:
                g -= 1
                continue
            occupied = place(k, s, g, digits[g], covered[g], pos)
            if occupied == 0:
                continue
            if g + 1 < groups:
                covered[g + 1] = occupied
                g += 1
                digits[g] = -1
                continue
            r = k.offsets[s] + (digits * k.weights[s]).sum()
            if is_goal(k, pos):
                distances[r] = 0
                if found == len(solved):
                    solved = np.concatenate((solved, np.empty_like(solved)))
                solved[found] = r
                found += 1
            else:
                distances[r] = UNSOLVABLE
    return solved[:found].copy()


@kernel(parallel=True)
def _pending(distances: np.ndarray, first: int) -> np.ndarray:
    """The ranks whose distance is at least `first` (given, not yet swept), ascending."""
    size = len(distances)
    chunks = (size + CHUNK - 1) // CHUNK
    counts = np.zeros(chunks + 1, dtype=np.int64)
    for chunk in numba.prange(chunks):
        for r in range(chunk * CHUNK, min(size, (chunk + 1) * CHUNK)):
            if first <= distances[r] < UNSOLVABLE:
                counts[chunk + 1] += 1
    starts = np.cumsum(counts)
    out = np.empty(starts[-1], dtype=np.int64)
    for chunk in numba.prange(chunks):
        at = starts[chunk]
        for r in range(chunk * CHUNK, min(size, (chunk + 1) * CHUNK)):
            if first <= distances[r] < UNSOLVABLE:
                out[at] = r
                at += 1
    return out


@kernel(parallel=True)
def _unique(k: Kernel, distances: np.ndarray, flags: np.ndarray, ranks: np.ndarray, distance: int) -> None:
    """Set the unique bit of the positions `ranks`, all at `distance`: exactly one child lies
    on a shortest solution, and it is unique itself (solved positions are unique)."""
    chunks = (len(ranks) + CHUNK - 1) // CHUNK
    for chunk in numba.prange(chunks):
        pos, children, costs, scratch = room(k)
        for i in range(chunk * CHUNK, min(len(ranks), (chunk + 1) * CHUNK)):
            r = ranks[i]
            if distance == 0:
                flags[r] |= UNIQUE
                continue
            occupied = unrank(k, r, pos)
            n = moves(k, pos, occupied, k.metric, False, children, costs, scratch)
            on_path = 0
            last = -1
            for j in range(n):
                c = children[j]
                if distances[c] < UNSOLVABLE and distances[c] + costs[j] == distance:
                    on_path += 1
                    last = c
            if on_path == 1 and flags[last] & UNIQUE:
                flags[r] |= UNIQUE


@kernel
def _relax(k: Kernel, distances: np.ndarray, ranks: np.ndarray, distance: int, given: np.ndarray) -> int:
    """Give the parents of the positions `ranks` (at `distance`) distance + cost where that is
    shorter; write their ranks into `given` and return how many."""
    pos, parents, costs, scratch = room(k)
    found = 0
    for i in range(len(ranks)):
        occupied = unrank(k, ranks[i], pos)
        n = moves(k, pos, occupied, k.metric, True, parents, costs, scratch)
        for j in range(n):
            p = parents[j]
            d = distance + costs[j]
            if distances[p] > d:
                distances[p] = d
                given[found] = p
                found += 1
    return found


@kernel(parallel=True)
def _all_moves(k: Kernel, distances: np.ndarray, flags: np.ndarray) -> None:
    """Set the all_moves bit of the positions not solved with a move, all of whose moves keep
    them solvable."""
    size = len(distances)
    chunks = (size + CHUNK - 1) // CHUNK
    for chunk in numba.prange(chunks):
        pos, children, costs, scratch = room(k)
        for r in range(chunk * CHUNK, min(size, (chunk + 1) * CHUNK)):
            if distances[r] == INVALID or distances[r] == 0:
                continue
            occupied = unrank(k, r, pos)
            n = moves(k, pos, occupied, LINE_METRIC, False, children, costs, scratch)
            ok = n > 0
            for j in range(n):
                ok &= distances[children[j]] < UNSOLVABLE
            if ok:
                flags[r] |= ALL_MOVES


@numba.njit(cache=True)
def _root(parent: np.ndarray, x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@kernel
def _clusters(k: Kernel, distances: np.ndarray) -> np.ndarray:
    """Each rank's connected set, numbered 0, 1, ... in order of its smallest rank
    (NO_CLUSTER for invalid ranks). Moves join positions in both directions."""
    size = len(distances)
    parent = np.arange(size, dtype=np.uint32)
    pos, children, costs, scratch = room(k)
    for r in range(size):
        if distances[r] == INVALID:
            continue
        occupied = unrank(k, r, pos)
        n = moves(k, pos, occupied, LINE_METRIC, False, children, costs, scratch)
        for j in range(n):
            a = _root(parent, r)
            b = _root(parent, children[j])
            if a != b:
                parent[max(a, b)] = min(a, b)
    # Every set's root is its smallest rank and every parent is a smaller rank. In ascending
    # order a rank's parent has already been replaced by its set's number: copy it.
    count = 0
    for r in range(size):
        if distances[r] == INVALID:
            parent[r] = NO_CLUSTER
        elif parent[r] == r:
            parent[r] = count
            count += 1
        else:
            parent[r] = parent[parent[r]]
    return parent


def start(k: Kernel, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distance table before the sweep, the zeroed flags and the solved ranks."""
    distances = np.full(size, INVALID, dtype=np.uint16)
    solved = build(_start)(k, distances)
    return distances, np.zeros(size, dtype=np.uint8), solved


RELAX_ENTRIES = 1 << 21
"""Parents gathered per call of the relaxing kernel (a buffer of int64)."""


def expand(k: Kernel, distances: np.ndarray, flags: np.ndarray, first: int,
           solved: np.ndarray | None = None) -> Iterator[tuple[int, int]]:
    """Sweep distances first, first + 1, ... (those before are done; `solved` lists the ranks
    at distance 0 when first is 0, else the given distances are read from the table): yield
    (distance, positions) for each distance that has positions."""
    if k.move == TILT:
        yield from _expand_pulling(k, distances, flags, first, solved)
        return
    buckets: dict[int, list[np.ndarray]] = {}
    waiting = solved if solved is not None else build(_pending)(distances, first)
    _file(buckets, distances, waiting)
    per_call = max(1, RELAX_ENTRIES // (int(k.first[-1]) * 4 * k.cells))
    given = np.empty(per_call * int(k.first[-1]) * 4 * k.cells, dtype=np.int64)
    while buckets:
        distance = min(buckets)
        if distance > MAX_DISTANCE - 64:
            raise OverflowError(f"distances beyond {MAX_DISTANCE - 64} are not supported")
        ranks = np.unique(np.concatenate(buckets.pop(distance)))
        ranks = ranks[distances[ranks] == distance]  # those given a shorter distance since left
        if not len(ranks):
            continue
        build(_unique)(k, distances, flags, ranks, distance)
        for at in range(0, len(ranks), per_call):
            found = build(_relax)(k, distances, ranks[at:at + per_call], distance, given)
            _file(buckets, distances, given[:found].copy())
        yield distance, len(ranks)


TILT_TABLE_BYTES = 4 * np.dtype(np.int32).itemsize
"""Memory per rank of the children table of tilt moves (four int32 per rank)."""


@kernel(parallel=True)
def _children(k: Kernel, distances: np.ndarray, table: np.ndarray) -> None:
    """Every position's children (tilt moves, at most four; -1 after them)."""
    size = len(distances)
    chunks = (size + CHUNK - 1) // CHUNK
    for chunk in numba.prange(chunks):
        pos, children, costs, scratch = room(k)
        for r in range(chunk * CHUNK, min(size, (chunk + 1) * CHUNK)):
            table[r, :] = -1
            if distances[r] == INVALID:
                continue
            occupied = unrank(k, r, pos)
            n = moves(k, pos, occupied, LINE_METRIC, False, children, costs, scratch)
            for j in range(n):
                table[r, j] = children[j]


@kernel(parallel=True)
def _pull(table: np.ndarray, distances: np.ndarray, distance: int) -> None:
    """Give `distance` to every position not reached yet with a child at distance - 1 (the
    entries written now are neither, so the threads need not wait for each other)."""
    size = len(distances)
    chunks = (size + CHUNK - 1) // CHUNK
    for chunk in numba.prange(chunks):
        for r in range(chunk * CHUNK, min(size, (chunk + 1) * CHUNK)):
            if distances[r] != UNSOLVABLE:
                continue
            for j in range(4):
                c = table[r, j]
                if c >= 0 and distances[c] == distance - 1:
                    distances[r] = distance
                    break


def _expand_pulling(k: Kernel, distances: np.ndarray, flags: np.ndarray, first: int,
                    solved: np.ndarray | None) -> Iterator[tuple[int, int]]:
    """`expand` for tilt moves, whose parents are not enumerated: every position's children
    are tabled once, then each distance d takes the positions not reached yet that have a
    child at d - 1."""
    table = np.empty((len(distances), 4), dtype=np.int32)
    build(_children)(k, distances, table)
    distance = first
    if first == 0:
        ranks = solved if solved is not None else np.flatnonzero(distances == 0)
        build(_unique)(k, distances, flags, ranks, 0)
        if len(ranks):
            yield 0, len(ranks)
        distance = 1
    while True:
        if distance > MAX_DISTANCE - 64:
            raise OverflowError(f"distances beyond {MAX_DISTANCE - 64} are not supported")
        build(_pull)(table, distances, distance)
        ranks = np.flatnonzero(distances == distance)
        if not len(ranks):
            return
        build(_unique)(k, distances, flags, ranks, distance)
        yield distance, len(ranks)
        distance += 1


def _file(buckets: dict[int, list[np.ndarray]], distances: np.ndarray, ranks: np.ndarray) -> None:
    """Put ranks into the buckets of their (tentative) distances."""
    values = distances[ranks]
    for value in np.unique(values):
        buckets.setdefault(int(value), []).append(ranks[values == value])


def finish(k: Kernel, distances: np.ndarray, flags: np.ndarray) -> np.ndarray:
    """Set the all_moves bits; return the clusters."""
    build(_all_moves)(k, distances, flags)
    return build(_clusters)(k, distances)

