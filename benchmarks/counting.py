"""Seconds, solution count and peak memory of solving one position over stored layers.

    python3 benchmarks/counting.py RESULTS                # every cell full but the goal's cells
    python3 benchmarks/counting.py RESULTS --board FILE   # a drawing, as `curator solve` takes it

For the English centre start, RESULTS holds `puzzles/peg-centre.toml` analyzed in full
(`curator analyze puzzles/peg-centre.toml --max-pieces 32 --output RESULTS`); the count is
40,861,647,040,079,968. The first solve includes compiling (unless numba's cache holds the
kernels); it is timed apart from a second one in the same process.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import curator


def start_position(results) -> tuple[int, ...]:
    """Every cell holds a piece but the cells the goal names (all cells if it names none)."""
    puzzle = results.puzzle
    goal_cells = puzzle.goal.cells or frozenset()
    return tuple(0 if cell in goal_cells else 1 for cell in range(puzzle.board.size))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, help="results folder of an analyzed puzzle")
    parser.add_argument("--board", type=Path, help="file with a drawing of the position")
    args = parser.parse_args()
    results = curator.open(args.results)
    board = args.board.read_text() if args.board else start_position(results)
    for run in ("first", "second"):
        began = time.perf_counter()
        level = results.solve(board)
        seconds = time.perf_counter() - began
        print(f"{run} solve: {seconds:.1f} s, {level.solutions:,} solutions")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory: {peak:,.0f} MiB")


if __name__ == "__main__":
    main()
