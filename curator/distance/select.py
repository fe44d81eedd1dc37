"""Picking positions by distance from a stored table, each with an optimal solution.

A solution walks down one distance (mod 15) per move to the solved state; its length is the
exact distance, which decodes entries of tables whose distances go past 14.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from curator.common.difficulty import FIGURES, WALKED_DEFAULT, Measure, Player, grid, walked_terms
from curator.common.errors import StoreError
from curator.common.kernels import build, kernel
from curator.common.threads import WALKS, chunks, spread
from curator.distance.store import DistanceStore
from curator.distance.sweep import UNREACHED, entry
from curator.distance.tables import Kernel, build_kernel, coordinates, neighbor, tabled_neighbor


@kernel
def _matching(table: np.ndarray, size: int, residues: int) -> np.ndarray:
    """Ranks whose entry e has bit e of `residues` set, ascending."""
    found = 0
    for i in range(size):
        if (residues >> entry(table, i)) & 1:
            found += 1
    out = np.empty(found, dtype=np.int64)
    found = 0
    for i in range(size):
        if (residues >> entry(table, i)) & 1:
            out[found] = i
            found += 1
    return out


@kernel(nogil=True)
def _descend(k: Kernel, table: np.ndarray, ranks: np.ndarray, solved: int, longest: int, lengths: np.ndarray,
             moves: np.ndarray, start: int, step: int) -> None:
    """Optimal solutions (move indices) of the positions `ranks` into `moves`, and their lengths
    into `lengths` (chunks start, start + step, ... of WALKS ranks: see `curator.common.threads`).

    Of the moves that lead one distance down, the first in the puzzle's move order is taken.
    A length of -1 (as given) means the walk got stuck: the table does not belong to these moves.
    """
    sizes, offsets, tables = k.sizes, k.offsets, k.tables
    tabled = (offsets >= 0).all()
    x = np.empty(len(k.sizes), dtype=np.int64)
    a = np.empty(k.sources.shape[3], dtype=np.int64)
    b = np.empty_like(a)
    for chunk in range(start, (len(ranks) + WALKS - 1) // WALKS, step):
        for i in range(chunk * WALKS, min(len(ranks), (chunk + 1) * WALKS)):
            rank = ranks[i]
            value = entry(table, rank)
            steps = 0
            while rank != solved and value != UNREACHED and steps < longest:
                coordinates(sizes, rank, x)
                below = (value + 14) % 15
                down = -1
                for m in range(k.movers.shape[1]):
                    j = tabled_neighbor(sizes, offsets, tables, x, m) if tabled else neighbor(k, x, m, a, b)
                    if j >= 0 and entry(table, j) == below:
                        down = j
                        moves[i, steps] = m
                        break
                if down < 0:
                    break
                rank = down
                value = below
                steps += 1
            if rank == solved:
                lengths[i] = steps


def descend(k: Kernel, table: np.ndarray, ranks: np.ndarray, solved: int, longest: int
            ) -> tuple[np.ndarray, np.ndarray]:
    """The lengths and the moves of the optimal solutions `_descend` walks, on threads."""
    ranks = np.ascontiguousarray(ranks, dtype=np.int64)
    lengths = np.full(len(ranks), -1, dtype=np.int64)
    moves = np.zeros((len(ranks), max(longest, 1)), dtype=np.uint8)
    spread(build(_descend), k, table, ranks, solved, longest, lengths, moves,
           shares=chunks(len(ranks), WALKS))
    return lengths, moves


def select_positions(
    store: DistanceStore,
    table: np.ndarray,
    lo: int,
    hi: int,
    sample: int | None = None,
    seed: int | None = None,
    limit: int | None = None,
    kernel: Kernel | None = None,
    player: Player = WALKED_DEFAULT,
) -> list[dict[str, Any]]:
    """Positions at distance lo..hi in a stored table, ordered by distance then rank.

    With `sample`, at most that many chosen at random (reproducibly for a given `seed`); with
    `limit`, only the first that many (after sampling) get a solution and are returned.
    Each is {"rank", "distance", "state", "solution"}: the solution lists move names that
    take the position to the solved state in `distance` moves.
    """
    puzzle = store.puzzle()
    kernel = kernel or build_kernel(puzzle)
    longest = len(store.counts) - 1
    residues = sum(1 << e for e in {d % UNREACHED for d in range(lo, min(hi, longest) + 1)})
    ranks = build(_matching)(table, puzzle.size, residues)
    if longest >= UNREACHED:
        solved = puzzle.rank(puzzle.solved_state)
        lengths, _ = descend(kernel, table, ranks, solved, longest)
        keep = (lengths >= lo) & (lengths <= hi)
        ranks, exact = ranks[keep], lengths[keep]
    else:
        exact = (table[ranks >> 1] >> ((ranks & 1) << 2)) & 15
    if sample is not None and sample < len(ranks):
        chosen = np.sort(np.random.default_rng(seed).choice(len(ranks), sample, replace=False))
        ranks, exact = ranks[chosen], exact[chosen]
    if limit is not None and limit < len(ranks):
        ranks = np.sort(ranks[np.lexsort((ranks, exact))[:limit]])
    return solved_positions(store, table, ranks, kernel, player)


def solved_positions(store: DistanceStore, table: np.ndarray, ranks: np.ndarray, kernel: Kernel | None = None,
                     player: Player = WALKED_DEFAULT) -> list[dict[str, Any]]:
    """The positions with these ranks, each with its distance, an optimal solution and its
    difficulty for `player` (with its terms), ordered by distance then rank; a position not
    reached has distance and difficulty None."""
    puzzle = store.puzzle()
    longest = len(store.counts) - 1
    solved = puzzle.rank(puzzle.solved_state)
    kernel = kernel or build_kernel(puzzle)
    lengths, moves = descend(kernel, table, ranks, solved, longest)
    found, terms = measure(kernel, table, ranks, lengths, grid(player), player.lookahead)
    unreached = np.array([entry.py_func(table, int(r)) == UNREACHED for r in ranks], dtype=bool)
    if ((lengths < 0) & ~unreached).any():
        raise StoreError(f"{store.directory}: the table does not match the puzzle's moves (damaged results)")
    names = [m.name for m in puzzle.moves]
    out = []
    for i in np.lexsort((ranks, lengths)):
        rank, length = int(ranks[i]), int(lengths[i])
        out.append(
            {
                "rank": rank,
                "distance": None if length < 0 else length,
                "state": puzzle.describe(puzzle.unrank(rank)),
                "solution": [names[m] for m in moves[i, : max(length, 0)]],
                "difficulty": None if length < 0 else player.effort(Measure(*found[i, 0])),
                "difficulty_terms": "" if length < 0 else walked_terms(terms[i]).text(),
            }
        )
    return out


def grid_measures(store: DistanceStore, table: np.ndarray, ranks: np.ndarray, kernel: Kernel,
                  sight: float) -> np.ndarray:
    """The player model's measures of these positions at every point of the calibration grid
    (`curator.common.difficulty.grid`): float[ranks, points, FIGURES], in the order of `ranks`."""
    puzzle = store.puzzle()
    solved = puzzle.rank(puzzle.solved_state)
    ranks = np.asarray(ranks, dtype=np.int64)
    lengths, _ = descend(kernel, table, ranks, solved, len(store.counts) - 1)
    return measure(kernel, table, ranks, lengths, grid(), sight)[0]


@kernel(nogil=True)
def _measure(k: Kernel, table: np.ndarray, ranks: np.ndarray, lengths: np.ndarray, lookaheads: np.ndarray,
             sight: float, out: np.ndarray, terms: np.ndarray, start: int, step: int) -> None:
    """The player model's measures of each position along the solution `_descend` walks
    (`lengths`: its distances, -1 where it has none) into `out`, float[ranks, lookaheads,
    FIGURES], and the counts of `curator.common.difficulty.walked_terms` into `terms`,
    int[ranks, 6] (see `measure`), in chunks of WALKS ranks as `_descend`."""
    sizes, offsets, tables = k.sizes, k.offsets, k.tables
    tabled = (offsets >= 0).all()
    x = np.empty(len(k.sizes), dtype=np.int64)
    a = np.empty(k.sources.shape[3], dtype=np.int64)
    b = np.empty_like(a)
    for chunk in range(start, (len(ranks) + WALKS - 1) // WALKS, step):
        for i in range(chunk * WALKS, min(len(ranks), (chunk + 1) * WALKS)):
            if lengths[i] < 0:
                continue
            rank = ranks[i]
            value = entry(table, rank)
            out[i, :, 0] = lengths[i]
            out[i, :, 1] = lengths[i]
            terms[i, 0] = lengths[i]
            for d in range(lengths[i], 0, -1):
                coordinates(sizes, rank, x)
                below = (value + 14) % 15
                down = -1
                right = 0
                legal = 0
                for m in range(k.movers.shape[1]):
                    j = tabled_neighbor(sizes, offsets, tables, x, m) if tabled else neighbor(k, x, m, a, b)
                    if j < 0:
                        continue
                    legal += 1
                    if entry(table, j) == below:
                        right += 1
                        if down < 0:
                            down = j
                if down < 0:
                    break
                if d == lengths[i]:
                    out[i, :, 2] = np.log2(legal)
                show = d - 1.0  # a wrong move shows once the goal is in sight
                hidden = min(max(sight - show, 0.0), 1.0) < 1.0
                for m in range(k.movers.shape[1]):
                    j = tabled_neighbor(sizes, offsets, tables, x, m) if tabled else neighbor(k, x, m, a, b)
                    if j < 0 or entry(table, j) == below:
                        continue
                    extra = 1.0 if entry(table, j) == value else 2.0  # as far, or a move farther
                    for g in range(len(lookaheads)):
                        out[i, g, 1] += (1.0 - min(max(lookaheads[g] - show, 0.0), 1.0)) * extra / (right + 1)
                    if hidden:
                        terms[i, 1] += 1
                        if extra >= 2:
                            terms[i, 2] += 1
                terms[i, 5] += legal
                if legal == 1:
                    terms[i, 4] += 1
                rank = down
                value = below


def measure(k: Kernel, table: np.ndarray, ranks: np.ndarray, lengths: np.ndarray, lookaheads: np.ndarray,
            sight: float) -> tuple[np.ndarray, np.ndarray]:
    """The player model (`curator.common.difficulty`) along each position's optimal solution
    (`lengths`: the distances `_descend` found): moves = its distance; at each step with R
    moves one distance down, every other move the player cannot see through (it shows once the
    solved state is in sight, d - 1 moves after the right move) adds its cost / (R + 1) to
    the positions tried: 1 for a move to a position as far, 2 for one a move farther (the
    player comes back the shortest way; every move here has an inverse, so there are no dead
    ends); first = log2(legal moves of the position). Returns float[ranks, lookaheads, FIGURES] and
    the counts int[ranks, 6] (as `curator.common.goal_sweep.Graph.measure`) for a player
    reading `sight` moves ahead."""
    ranks = np.ascontiguousarray(ranks, dtype=np.int64)
    lookaheads = np.ascontiguousarray(lookaheads, dtype=np.float64)
    out = np.zeros((len(ranks), len(lookaheads), FIGURES))  # no knock-ons: one piece a move
    terms = np.zeros((len(ranks), 6), dtype=np.int64)
    spread(build(_measure), k, table, ranks, np.ascontiguousarray(lengths, dtype=np.int64), lookaheads,
           float(sight), out, terms, shares=chunks(len(ranks), WALKS))
    return out, terms
