"""Fast kernels against the general ones they replace, in one process on the same layer.

    python3 benchmarks/kernels.py            # Solitaire Chess layers 8-10, English layer 16
    python3 benchmarks/kernels.py --quick    # fewer words per layer

The layers below are random bits (a quarter solvable), so no lower layer has to be swept
first; both kernels must give the same bits. Prints positions per second of each kernel and
their ratio, and writes the figures as JSON to benchmarks/results/ (or --json PATH).
"""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime
from pathlib import Path

import numba
import numpy as np
from figures import write_figures

from curator.layered.bits import LayerBits
from curator.layered.puzzle import Puzzle, load_puzzle
from curator.layered.space import StateSpace
from curator.layered.sweep import LayerSweep

ROOT = Path(__file__).resolve().parent.parent
# (puzzle file, piece count, the general kernel the family's fast kernel replaces)
CASES = [
    ("solitaire-chess.toml", 8, "boards"),
    ("solitaire-chess.toml", 9, "boards"),
    ("solitaire-chess.toml", 10, "boards"),
    ("peg.toml", 16, "masks"),
]


def random_tier(puzzle: Puzzle, pieces: int, rng: np.random.Generator) -> list[LayerBits]:
    """Bits for every layer with `pieces` pieces: about 1/4 solvable, half of those unique."""
    def words(layer, ands):
        out = rng.integers(0, 2**64, layer.words, dtype=np.uint64, endpoint=False)
        for _ in range(ands):
            out &= rng.integers(0, 2**64, layer.words, dtype=np.uint64, endpoint=False)
        return out

    tier = []
    for layer in StateSpace(puzzle).layers_with(pieces):
        solvable = words(layer, 1)
        unique = solvable & words(layer, 0)
        tier.append(LayerBits(layer, solvable, unique, np.zeros(layer.words, dtype=np.uint64)))
    return tier


def timed(puzzle: Puzzle, pieces: int, below: list[LayerBits], words: int, kernel: str | None = None):
    layer = max(StateSpace(puzzle).layers_with(pieces), key=lambda item: item.size)
    sweep = LayerSweep(puzzle, layer, below, kernel)
    sweep.compute(0, 1)  # compile outside the timing
    last = min(words, layer.words)
    start = time.perf_counter()
    bits = sweep.compute(0, last)
    return last * 64 / (time.perf_counter() - start), bits, layer


def measure(name: str, pieces: int, general_kernel: str, words: int) -> dict:
    puzzle = load_puzzle(ROOT / "puzzles" / name)
    below = random_tier(puzzle, pieces - 1, np.random.default_rng(pieces))
    fast, fast_bits, layer = timed(puzzle, pieces, below, words)
    general, general_bits, _ = timed(puzzle, pieces, below, words, general_kernel)
    if not all(np.array_equal(a, b) for a, b in zip(fast_bits, general_bits, strict=True)):
        raise SystemExit(f"{name} {pieces}: the fast and the general kernel disagree")
    return {"puzzle": puzzle.name, "layer": layer.key, "positions": min(words, layer.words) * 64,
            "fast_positions_per_second": round(fast), "general_positions_per_second": round(general),
            "ratio": round(fast / general, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer words per layer")
    parser.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    parser.add_argument("--json", type=Path, help="where to write the figures")
    args = parser.parse_args()
    numba.set_num_threads(args.threads)
    words = 20_000 if args.quick else 150_000
    report = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "threads": args.threads,
              "layers": []}
    for name, pieces, general in CASES:
        case = measure(name, pieces, general, words)
        report["layers"].append(case)
        print(f"{case['puzzle']:>16} {case['layer']:<18} fast {case['fast_positions_per_second'] / 1e6:6.2f}"
              f" M/s  general {case['general_positions_per_second'] / 1e6:6.2f} M/s"
              f"  ratio {case['ratio']:.2f}", flush=True)
    write_figures(report, "kernels", args.json)


if __name__ == "__main__":
    main()
