"""Time the universe search on a few pieces of work of a Rush Hour universe (the pieces of the
kinds of five rows), in one process: seconds and nanoseconds a position. Or time a random
sample of pieces and extrapolate to the whole universe.

    python3 benchmarks/universe.py                  # pieces 3, 10 and 11
    PYTHONPATH=../other-checkout python3 benchmarks/universe.py   # the same pieces, other code
    python3 benchmarks/universe.py --sample 40 --seed 1 --file puzzles/rush-hour-universe.toml

--sample splits the universe by the kinds of every row (--lanes), the finest split the search
takes. A piece's packed positions are counted without exploring it: for every choice of the
rows, the product of each column's choices (exact unless the columns' vehicle counts bind;
each piece searched checks it against `Found.seeds`). Pieces are drawn with replacement, each
with probability its share of the packed positions; a figure's total is estimated as the
packed positions of the universe times the mean of the figure per packed position over the
draws (Hansen-Hurwitz), with its standard error from the spread of that mean. The figures per
packed position vary far less between pieces than the pieces' sizes do. CPU seconds are the
process's (`time.process_time`); other work on the machine still slows them.

On the wall-free universe, whose stored tables give every piece's positions and sets, 20,000
simulated samples of 150 draws gave no bias and standard errors that hold (68% of the estimates
within one, 95% within two); the kinds of every row left a third of the variance the kinds of
five rows leave for the same positions searched.
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from curator.universe.puzzle import load_universe
from curator.universe.space import Space, build_space
from curator.universe.sweep import search


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
def _packed(kind_lo: np.ndarray, kind_hi: np.ndarray, configs: np.ndarray, most: np.ndarray, rows: int,
            cols: int, radix: np.ndarray, col_lo: np.ndarray, col_hi: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """The pieces of work holding packed positions, ascending, and their packed positions. A
    piece is the kinds of the first len(radix) depths, as a number in the radix of each depth's
    kinds; kind j of depth d takes configurations kind_lo[d, j] to kind_hi[d, j] (an empty
    range past the last kind). The kinds of all rows are chosen first, within `most`."""
    kinds = most.shape[0]
    counts = np.zeros((rows + 1, kinds), np.int64)
    chosen = np.zeros(rows, np.int64)
    ranges = np.zeros((rows, 2), np.int64)
    ids, weights = np.zeros(1024, np.int64), np.zeros(1024, np.int64)
    n = 0
    k = 0
    chosen[0] = -1
    while k >= 0:
        chosen[k] += 1
        if kind_lo[k, chosen[k]] == kind_hi[k, chosen[k]]:
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
            chosen[k] = -1
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


def packed_pieces(space: Space, lanes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kinds of each of the first `lanes` depths (the radix), the pieces holding packed
    positions (numbered as `Space.items(lanes)` numbers them) and their packed positions."""
    u = space.universe
    lo, _ = space.ranges()
    kinds = [c[:, 6] for c in space.configs[:u.rows]]
    radix = np.array([int(k.max(initial=0)) + 1 for k in kinds[:lanes]], np.int64)
    kind_lo = np.zeros((u.rows, max(int(k.max(initial=0)) for k in kinds) + 2), np.int64)
    kind_hi = np.zeros_like(kind_lo)
    for depth, k in enumerate(kinds):
        every = np.arange(kind_lo.shape[1])
        kind_lo[depth] = lo[depth] + np.searchsorted(k, every)
        kind_hi[depth] = lo[depth] + np.searchsorted(k, every, side="right")
    most = np.array([v.most for v in u.vehicles] + [u.walls[1]], np.int64)
    col_lo, col_hi, _ = space.column_choices()
    ids, weights = _packed(kind_lo, kind_hi, np.concatenate(space.configs), most, u.rows, u.cols, radix,
                           col_lo, col_hi)
    return radix, ids, weights


def piece_ranges(space: Space, radix: np.ndarray, piece: int) -> np.ndarray:
    """`Space.items(len(radix))[piece]`, without listing the other pieces."""
    lo, hi = space.ranges()
    ranges = np.stack([lo, hi], axis=1)
    for depth in reversed(range(len(radix))):
        piece, kind = divmod(piece, int(radix[depth]))
        kinds = space.configs[depth][:, 6]
        ranges[depth] = (lo[depth] + np.searchsorted(kinds, kind),
                         lo[depth] + np.searchsorted(kinds, kind, side="right"))
    return ranges


def sample(space: Space, lanes: int, draws: int, seed: int) -> None:
    """Time `draws` pieces drawn by their share of the packed positions; print the sample's
    figures and the universe's estimated totals (± one standard error)."""
    started = time.process_time()
    radix, ids, weights = packed_pieces(space, lanes)
    total = int(weights.sum())
    print(f"{len(ids):,} pieces of {int(np.prod(radix)):,} hold {total:,} packed positions "
          f"(counted in {time.process_time() - started:.1f} s CPU)")
    picks = np.random.default_rng(seed).choice(len(ids), size=draws, p=weights / total)
    search(space, piece_ranges(space, radix, int(ids[np.argmin(weights)])))  # compile, warm up
    figures: dict[int, tuple[float, int, int, int]] = {}
    for pick in sorted(set(picks.tolist())):
        ranges = piece_ranges(space, radix, int(ids[pick]))
        started = time.process_time()
        found = search(space, ranges)
        seconds = time.process_time() - started
        figures[pick] = (seconds, int(found.figures[:, 0].sum()), len(found.figures), found.seeds)
        note = "" if found.seeds == weights[pick] else f"  (counted {int(weights[pick]):,})"
        print(f"piece {int(ids[pick])}: {seconds:.2f} s, {figures[pick][1]:,} positions, "
              f"{figures[pick][2]:,} sets, {found.seeds:,} packed{note}")
    seconds, positions, sets, seeds = (sum(f[i] for f in figures.values()) for i in range(4))
    print(f"sample: {draws} draws, {len(figures)} pieces: {seconds:.1f} s CPU, {positions:,} positions, "
          f"{sets:,} sets, {seeds:,} packed, {seconds * 1e9 / positions:.0f} ns a position")
    per = np.array([figures[p] for p in picks.tolist()], np.float64) / weights[picks, None]
    mean, error = per.mean(axis=0) * total, per.std(axis=0, ddof=1) * total / np.sqrt(draws)
    names = ("CPU seconds", "positions", "sets", "packed positions")
    for name, m, e in zip(names, mean, error):
        print(f"all pieces: {m:,.0f} {name} ± {e:,.0f} ({100 * e / m:.1f}%)")
    print(f"all pieces: {mean[0] / 3600:,.1f} ± {error[0] / 3600:,.1f} core-hours, "
          f"{mean[0] * 1e9 / mean[1]:.0f} ns a position")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pieces", default="3,10,11", help="pieces of work to time, by number")
    parser.add_argument("--file", default="puzzles/rush-hour-no-walls.toml")
    parser.add_argument("--sample", type=int, default=0, help="time this many pieces drawn at random")
    parser.add_argument("--seed", type=int, default=1, help="seed of the --sample draws")
    parser.add_argument("--lanes", type=int, help="--sample's pieces: the kinds of this many rows (all)")
    args = parser.parse_args()
    space = build_space(load_universe(args.file))
    if args.sample:
        sample(space, args.lanes or space.universe.rows, args.sample, args.seed)
        return
    items = space.items(5)
    search(space, items[4])  # compile and warm up on a small piece
    started = time.perf_counter()
    positions = 0
    for piece in (int(p) for p in args.pieces.split(",")):
        positions += int(search(space, items[piece]).figures[:, 0].sum())
    seconds = time.perf_counter() - started
    print(f"{seconds:.2f} s, {positions:,} positions, {seconds * 1e9 / positions:.0f} ns a position")


if __name__ == "__main__":
    main()
