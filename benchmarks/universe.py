"""Time the universe search on a few pieces of work of the wall-free Rush Hour universe (the
pieces of the kinds of five rows), in one process: seconds and nanoseconds a position.

    python3 benchmarks/universe.py                  # pieces 3, 10 and 11
    PYTHONPATH=../other-checkout python3 benchmarks/universe.py   # the same pieces, other code
"""

from __future__ import annotations

import argparse
import time

from curator.universe.puzzle import load_universe
from curator.universe.space import build_space
from curator.universe.sweep import search


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pieces", default="3,10,11", help="pieces of work to time, by number")
    parser.add_argument("--file", default="puzzles/rush-hour-no-walls.toml")
    args = parser.parse_args()
    space = build_space(load_universe(args.file))
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
