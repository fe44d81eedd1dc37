"""What rating levels costs: seconds to rate the 248 shipped Fling! boards (search, player
figures, difficulty), best of a few rounds, after one round that fills the caches.

    python3 benchmarks/rating_cost.py [--rounds 3]

Run it against two checkouts (PYTHONPATH=...) to compare what a change costs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from curator.layered.metrics import solve_position
from curator.layered.puzzle import load_puzzle
from curator.layered.search import Explorer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from reference import load_fling_levels  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    puzzle = load_puzzle(ROOT / "puzzles" / "fling.toml")
    positions = [tuple(1 if cell in balls else 0 for cell in puzzle.board.cells)
                 for _, balls in load_fling_levels(ROOT / "tests" / "data" / "fling_levels")]
    best = []
    for _ in range(args.rounds + 1):
        explorer = Explorer(puzzle)
        start = time.process_time()
        for position in positions:
            solve_position(puzzle, position, explorer)
        best.append(time.process_time() - start)
    print(f"{len(positions)} boards rated: best of {args.rounds} rounds {min(best[1:]):.2f} s of CPU "
          f"({1000 * min(best[1:]) / len(positions):.1f} ms a board)")


if __name__ == "__main__":
    main()
