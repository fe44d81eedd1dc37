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

import numpy as np

from curator.universe.pieces import Prefix, packed_pieces, piece_ranges, prefixes, uniform
from curator.universe.puzzle import load_universe
from curator.universe.space import Space, build_space
from curator.universe.sweep import search


def prefix(radix: np.ndarray, piece: int) -> Prefix:
    """A piece numbered as `packed_pieces` numbers it, as its kinds."""
    return tuple(int(k) for k in prefixes(radix, np.array([piece]))[0])


def sample(space: Space, lanes: int, draws: int, seed: int) -> None:
    """Time `draws` pieces drawn by their share of the packed positions; print the sample's
    figures and the universe's estimated totals (± one standard error)."""
    started = time.process_time()
    radix, ids, weights = packed_pieces(space, lanes)
    total = int(weights.sum())
    print(f"{len(ids):,} pieces of {int(np.prod(radix)):,} hold {total:,} packed positions "
          f"(counted in {time.process_time() - started:.1f} s CPU)")
    picks = np.random.default_rng(seed).choice(len(ids), size=draws, p=weights / total)
    search(space, piece_ranges(space, prefix(radix, int(ids[np.argmin(weights)]))))  # compile, warm up
    figures: dict[int, tuple[float, int, int, int]] = {}
    for pick in sorted(set(picks.tolist())):
        ranges = piece_ranges(space, prefix(radix, int(ids[pick])))
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
    items = [piece_ranges(space, p) for p in uniform(space, 5)]
    search(space, items[4])  # compile and warm up on a small piece
    started = time.perf_counter()
    positions = 0
    for piece in (int(p) for p in args.pieces.split(",")):
        positions += int(search(space, items[piece]).figures[:, 0].sum())
    seconds = time.perf_counter() - started
    print(f"{seconds:.2f} s, {positions:,} positions, {seconds * 1e9 / positions:.0f} ns a position")


if __name__ == "__main__":
    main()
