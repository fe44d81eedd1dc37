"""Sweep benchmark: positions per second per layer for each rule family, peak memory, and
the speed-up over a plain-Python sweep of the same layer.

    python3 benchmarks/run.py            # the standard set (a few minutes)
    python3 benchmarks/run.py --quick    # smaller layers (under a minute)

Figures are printed and written as JSON to benchmarks/results/ (or --json PATH).
"""

from __future__ import annotations

import argparse
import platform
import resource
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numba
import numpy as np

from curator import __version__
from curator.layered.bits import LayerBits
from curator.layered.puzzle import load_puzzle
from curator.layered.space import StateSpace
from curator.layered.sweep import goal_layer, sweep_layer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from figures import write_figures  # noqa: E402
from python_sweep import python_sweep_layer  # noqa: E402

# (puzzle file, piece count of the timed level) for the standard and the quick runs.
CASES = {
    "standard": [("peg.toml", 13), ("fling.toml", 7), ("solitaire-chess.toml", 6)],
    "quick": [("peg.toml", 10), ("fling.toml", 5), ("solitaire-chess.toml", 5)],
}
BASELINE = ("peg.toml", 6)


def _levels_up_to(puzzle, pieces: int) -> tuple[list[LayerBits], float]:
    """Sweep every level below `pieces`, then time the `pieces` level alone."""
    space = StateSpace(puzzle)
    below: list[LayerBits] = []
    seconds = 0.0
    for level in space.tiers(pieces):
        start = time.perf_counter()
        bits = [sweep_layer(puzzle, layer, below) if below else goal_layer(puzzle, layer)
                for layer in level]
        seconds = time.perf_counter() - start
        below = bits
    return below, seconds


def _warm_up(puzzle) -> None:
    # Compile the kernels on the smallest levels so the timed level measures running time.
    _levels_up_to(puzzle, puzzle.goal.pieces + 2)


def measure_case(name: str, pieces: int) -> dict:
    puzzle = load_puzzle(ROOT / "puzzles" / name)
    _warm_up(puzzle)
    bits, seconds = _levels_up_to(puzzle, pieces)
    positions = sum(b.layer.size for b in bits)
    return {
        "puzzle": puzzle.name,
        "family": puzzle.rules.family,
        "pieces": pieces,
        "positions": positions,
        "seconds": round(seconds, 3),
        "positions_per_second": round(positions / seconds),
        "solvable": sum(b.counts()["solvable"] for b in bits),
    }


def measure_baseline() -> dict:
    """Plain Python against the compiled sweep on one small layer; results must agree."""
    name, pieces = BASELINE
    puzzle = load_puzzle(ROOT / "puzzles" / name)
    _warm_up(puzzle)
    below, _ = _levels_up_to(puzzle, pieces - 1)
    layer = StateSpace(puzzle).layers_with(pieces)[0]
    start = time.perf_counter()
    compiled = sweep_layer(puzzle, layer, below)
    compiled_seconds = time.perf_counter() - start
    ranks = [set(np.flatnonzero(np.unpackbits(w.view(np.uint8), bitorder="little")).tolist())
             for w in (below[0].solvable, below[0].unique)]
    start = time.perf_counter()
    plain = python_sweep_layer(puzzle, pieces, *ranks)
    plain_seconds = time.perf_counter() - start
    for words, expected in zip(compiled.arrays().values(), plain, strict=True):
        got = set(np.flatnonzero(np.unpackbits(words.view(np.uint8), bitorder="little")).tolist())
        if got != expected:
            raise SystemExit("the compiled and the plain-Python sweep disagree")
    return {
        "puzzle": puzzle.name,
        "pieces": pieces,
        "positions": layer.size,
        "python_seconds": round(plain_seconds, 3),
        "compiled_seconds": round(compiled_seconds, 4),
        "speedup": round(plain_seconds / compiled_seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller layers")
    parser.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    parser.add_argument("--json", type=Path, help="where to write the figures")
    args = parser.parse_args()
    numba.set_num_threads(args.threads)
    report = {
        "curator_version": __version__,
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": numba.config.NUMBA_NUM_THREADS, "threads": args.threads,
                    "python": platform.python_version(), "numba": numba.__version__},
        "layers": [],
    }
    for name, pieces in CASES["quick" if args.quick else "standard"]:
        case = measure_case(name, pieces)
        report["layers"].append(case)
        print(f"{case['puzzle']:>16} {case['pieces']:>2} pieces  {case['positions']:>13,} positions"
              f"  {case['seconds']:8.2f} s  {case['positions_per_second'] / 1e6:7.2f} M positions/s",
              flush=True)
    base = measure_baseline()
    report["baseline"] = base
    print(f"plain Python, {base['puzzle']} {base['pieces']} pieces ({base['positions']:,} positions): "
          f"{base['python_seconds']:.2f} s; compiled {base['compiled_seconds']:.4f} s; "
          f"speed-up {base['speedup']:.0f}x")
    report["peak_memory_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"peak memory {report['peak_memory_bytes'] / 2**30:.2f} GiB")
    write_figures(report, "sweep", args.json)


if __name__ == "__main__":
    main()
