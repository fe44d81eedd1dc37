"""Checking a stored distance table: the file against its checksum, its entries against the
manifest's counts, and a sample of ranks re-derived from the moves of the stored puzzle.

A checksum only says the file is the one that was written. Whether the table belongs to the
puzzle's moves is checked the way breadth-first tables allow: moves are undone by moves, so
the two ends of a move lie at most one move apart; a position at distance d > 0 has a
neighbour at d - 1 and none nearer or farther than one move; the solved position is at 0; a
position that was not reached has no reached neighbour. Entries are distances mod 15, and
the checks read them so.
"""

from __future__ import annotations

import numpy as np

from curator.common.errors import StoreError
from curator.common.files import Verification
from curator.common.kernels import build, kernel
from curator.distance.puzzle import PermutationPuzzle
from curator.distance.store import DistanceStore, totals
from curator.distance.sweep import UNREACHED, entry
from curator.distance.tables import Kernel, coordinates, neighbor

OK, NOT_AT_ZERO, FAKE_ZERO, JUMP, NO_NEARER, STRANDED = range(6)
WHY = {
    NOT_AT_ZERO: "it is the solved position, but its distance is not 0",
    FAKE_ZERO: "its distance is 0, but it is not the solved position",
    JUMP: "a move leads to a position more than one move nearer or farther",
    NO_NEARER: "no move leads to a position one move nearer",
    STRANDED: "it was not reached, but a move leads to a reached position",
}
"""What a re-derived rank's code says is wrong with its entry."""


@kernel
def _recheck(k: Kernel, table: np.ndarray, ranks: np.ndarray, solved: int, deep: bool) -> np.ndarray:
    """A code (see WHY) per rank: whether its entry follows from its neighbours' entries.
    `deep`: the table holds distances of 15 and more, so an entry 0 may be one of them."""
    codes = np.zeros(len(ranks), dtype=np.int64)
    x = np.empty(len(k.sizes), dtype=np.int64)
    a = np.empty(k.sources.shape[3], dtype=np.int64)
    b = np.empty_like(a)
    for i in range(len(ranks)):
        rank = ranks[i]
        value = entry(table, rank)
        if rank == solved:
            if value != 0:
                codes[i] = NOT_AT_ZERO
            continue
        if value == 0 and not deep:
            codes[i] = FAKE_ZERO
            continue
        below = (value + 14) % 15
        above = (value + 1) % 15
        nearer = False
        coordinates(k.sizes, rank, x)
        for m in range(k.movers.shape[1]):
            j = neighbor(k, x, m, a, b)
            if j < 0:
                continue
            other = entry(table, j)
            if value == UNREACHED:
                if other != UNREACHED:
                    codes[i] = STRANDED
                    break
                continue
            if other == below:
                nearer = True
            elif other != value and other != above:
                codes[i] = JUMP
                break
        if codes[i] == OK and value != UNREACHED and not nearer:
            codes[i] = NO_NEARER
    return codes


@kernel
def _tally(table: np.ndarray, size: int) -> np.ndarray:
    """How many entries of each value 0..15 the table holds."""
    counts = np.zeros(16, dtype=np.int64)
    for i in range(size):
        counts[entry(table, i)] += 1
    return counts


def verify_table(store: DistanceStore, puzzle: PermutationPuzzle, kernel_: Kernel, sample: int,
                 seed: int = 0) -> Verification:
    """Check the table file of `store` against its checksum and, when the table is finished,
    its entries against the manifest's counts and `sample` random ranks (and the solved
    position) against their neighbours under the moves of `puzzle`."""
    result = Verification(store.directory, files=1)
    manifest = store.manifest
    moves = [m.name for m in puzzle.moves]
    if manifest.get("moves") != moves or manifest.get("positions") != puzzle.size:
        result.problems.append(f"{store.manifest_path}: its moves and positions are not those of the stored "
                               f"puzzle ({len(moves)} moves, {puzzle.size:,} positions)")
        return result
    try:
        table = store.load()
    except StoreError as exc:
        result.problems.append(str(exc))
        return result
    if not store.complete:
        return result
    _check_counts(store, table, puzzle.size, result)
    solved = puzzle.rank(puzzle.solved_state)
    rng = np.random.default_rng(seed)
    picked = (rng.choice(puzzle.size, min(sample, puzzle.size), replace=False) if sample
              else np.empty(0, np.int64))
    ranks = np.unique(np.concatenate(([solved], np.asarray(picked, dtype=np.int64)))).astype(np.int64)
    codes = build(_recheck)(kernel_, table, ranks, solved, len(store.counts) > UNREACHED)
    result.ranks = len(ranks)
    for rank, code in zip(ranks.tolist(), codes.tolist()):
        if code != OK:
            result.bad_ranks.append(f"rank {rank}: entry {entry.py_func(table, rank)}: {WHY[code]}")
    return result


def _check_counts(store: DistanceStore, table: np.ndarray, size: int, result: Verification) -> None:
    """The manifest's totals against its positions per distance, then the table's entries per
    value against those."""
    counts = store.counts
    derived = totals(counts, size)
    result.problems += [f"{store.manifest_path}: {key} is {store.manifest.get(key)!r}, its positions per "
                        f"distance make it {value!r}"
                        for key, value in derived.items() if store.manifest.get(key) != value]
    if [row["distance"] for row in store.rows] != list(range(len(counts))):
        result.problems.append(f"{store.manifest_path}: distances are not listed as 0, 1, 2, ...")
    found = build(_tally)(table, size)
    expected = np.zeros(16, dtype=np.int64)
    for distance, count in enumerate(counts):
        expected[distance % UNREACHED] += count
    expected[UNREACHED] = derived["unreached"]
    wrong = np.flatnonzero(found != expected)
    if len(wrong):
        value = int(wrong[0])
        what = "not reached" if value == UNREACHED else f"at distances {value} mod 15"
        path = store.directory / store.manifest["file"]["path"]
        result.problems.append(f"{path}: holds {int(found[value]):,} positions {what}, the manifest says "
                               f"{int(expected[value]):,}")
