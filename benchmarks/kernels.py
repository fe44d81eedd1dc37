"""Fast kernels against the general ones they replace, in one process on the same layer.

    python3 benchmarks/kernels.py                # Solitaire Chess 8-10, English 11, 13, 16, French 13,
                                                 # Fling! 7, 8
    python3 benchmarks/kernels.py --quick        # fewer words per layer
    python3 benchmarks/kernels.py --against REV  # also the fast kernels of REV's sweep.py
    python3 benchmarks/kernels.py --only fling.toml  # the layers of one puzzle file

The layers below are random bits (a quarter solvable), so no lower layer has to be swept
first; the kernels must give the same bits. The words timed are spread over the layer in 8
windows (low ranks alone would leave the high cells empty); each window is timed for every
kernel in turn, the order alternating, and the best of --repeats times counts. Prints
positions per second of each kernel and their ratios, and writes the figures as JSON to
benchmarks/results/ (or --json PATH).

--against loads curator/layered/sweep.py as of a git revision beside this tree's (the rest
of the package is this tree's, so it must still import) and times its fast kernel too (its
general one for a family it had no fast kernel for): the ratio of a kernel against the one
it replaced, in one process.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import numba
import numpy as np
from figures import write_figures

from curator.layered import sweep
from curator.layered.bits import LayerBits
from curator.layered.puzzle import Puzzle, load_puzzle
from curator.layered.space import StateSpace

ROOT = Path(__file__).resolve().parent.parent
# (puzzle file, piece count, the general kernel the family's fast kernel replaces)
CASES = [
    ("solitaire-chess.toml", 8, "boards"),
    ("solitaire-chess.toml", 9, "boards"),
    ("solitaire-chess.toml", 10, "boards"),
    ("peg.toml", 11, "masks"),
    ("peg.toml", 13, "masks"),
    ("peg.toml", 16, "masks"),
    ("french.toml", 13, "masks"),
    ("fling.toml", 7, "masks"),
    ("fling.toml", 8, "masks"),
]
WINDOWS = 8


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


def sweep_at(revision: str, directory: Path) -> tuple[ModuleType, str]:
    """curator/layered/sweep.py as of `revision`, loaded as a module of its own, and the
    revision's short hash."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout

    commit = git("rev-parse", "--short", revision).strip()
    path = directory / f"sweep_at_{commit}.py"
    path.write_text(git("show", f"{commit}:curator/layered/sweep.py"))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module, commit


def measure(name: str, pieces: int, general_kernel: str, words: int, repeats: int,
            older: ModuleType | None) -> dict:
    puzzle = load_puzzle(ROOT / "puzzles" / name)
    below = random_tier(puzzle, pieces - 1, np.random.default_rng(pieces))
    layer = max(StateSpace(puzzle).layers_with(pieces), key=lambda item: item.size)
    sweeps = {"fast": sweep.LayerSweep(puzzle, layer, below),
              "general": sweep.LayerSweep(puzzle, layer, below, general_kernel)}
    if older is not None:
        # The kernel REV ran for the family: the general one if REV had no fast one yet.
        kind = puzzle.rules.sweep_kernel
        sweeps["older"] = older.LayerSweep(puzzle, layer, below,
                                           kind if kind in older.KERNELS else general_kernel)
    for each in sweeps.values():
        each.compute(0, 1)  # compile outside the timing
    span = max(min(words, layer.words) // WINDOWS, 1)
    starts = sorted({i * (layer.words - span) // (WINDOWS - 1) for i in range(WINDOWS)})
    best = {kind: [float("inf")] * len(starts) for kind in sweeps}
    order = list(sweeps)
    for repeat in range(repeats):
        for w, first in enumerate(starts):
            for kind in order if repeat % 2 == 0 else order[::-1]:
                start = time.perf_counter()
                bits = sweeps[kind].compute(first, first + span)
                best[kind][w] = min(best[kind][w], time.perf_counter() - start)
                if repeat == 0 and kind != "fast":
                    reference = sweeps["fast"].compute(first, first + span)
                    if not all(np.array_equal(a, b) for a, b in zip(bits, reference, strict=True)):
                        raise SystemExit(f"{name} {pieces}: the {kind} and the fast kernel disagree")
    positions = len(starts) * span * 64
    rate = {kind: positions / sum(times) for kind, times in best.items()}
    case = {"puzzle": puzzle.name, "layer": layer.key, "positions": positions,
            "fast_positions_per_second": round(rate["fast"]),
            "general_positions_per_second": round(rate["general"]),
            "ratio": round(rate["fast"] / rate["general"], 2)}
    if older is not None:
        case["older_positions_per_second"] = round(rate["older"])
        case["ratio_to_older"] = round(rate["fast"] / rate["older"], 2)
    return case


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer words per layer")
    parser.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    parser.add_argument("--repeats", type=int, default=3, help="timings per window and kernel")
    parser.add_argument("--against", metavar="REV", help="also time the fast kernels of REV's sweep.py")
    parser.add_argument("--json", type=Path, help="where to write the figures")
    parser.add_argument("--only", metavar="FILE", help="only this puzzle file's layers (fling.toml)")
    args = parser.parse_args()
    numba.set_num_threads(args.threads)
    words = 20_000 if args.quick else 150_000
    report = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "threads": args.threads,
              "repeats": args.repeats, "layers": []}
    with tempfile.TemporaryDirectory(prefix="kernels-") as directory:
        older = None
        if args.against:
            older, report["against"] = sweep_at(args.against, Path(directory))
        for name, pieces, general in CASES:
            if args.only and name != args.only:
                continue
            case = measure(name, pieces, general, words, args.repeats, older)
            report["layers"].append(case)
            rate = {kind: case[f"{kind}_positions_per_second"] / 1e6
                    for kind in ("fast", "general", "older") if f"{kind}_positions_per_second" in case}
            line = (f"{case['puzzle']:>16} {case['layer']:<18} fast {rate['fast']:6.2f} M/s"
                    f"  general {rate['general']:6.2f} M/s  ratio {case['ratio']:.2f}")
            if older is not None:
                line += f"  {report['against']} {rate['older']:6.2f} M/s  ratio {case['ratio_to_older']:.2f}"
            print(line, flush=True)
    write_figures(report, "kernels", args.json)


if __name__ == "__main__":
    main()
