"""The sweep on boards of more than 64 cells against the one-word general kernels.

    python3 benchmarks/wide.py --threads 1        # every case below
    python3 benchmarks/wide.py --quick            # fewer words per layer, no robots sweep
    python3 benchmarks/wide.py --kinds goal       # the sliding-block and Sokoban sweeps only

Each case times one layer two ways in one process, in turn on the same windows, on random bits
below (a quarter solvable, as in benchmarks/kernels.py): the general kernel of a family on a board of at most
64 cells (one-word masks), and the multi-word kernel on a comparable board: the same board
taken through the two-word path ("forced"), or a board of more than 64 cells with the same
pieces. Sliding-block and Sokoban puzzles are timed as whole sweeps (start, every distance,
all_moves and connected sets) of a bundled puzzle, through its one-word code and through the
four-word code of boards of more than 64 cells forced onto it. Prints positions per second and the cost per
position of the wide code relative to the one-word one, and writes the figures as JSON to
benchmarks/results/ (or --json PATH).
"""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numba
import numpy as np
from figures import write_figures
from kernels import random_tier

from curator.common import ranking
from curator.layered import sweep
from curator.layered.puzzle import Puzzle, parse_puzzle
from curator.layered.space import StateSpace
from curator.sliding import sweep as sliding_sweep
from curator.sliding import tables as sliding_tables
from curator.sliding.puzzle import parse_sliding_puzzle
from curator.sokoban import sweep as sokoban_sweep
from curator.sokoban import tables as sokoban_tables
from curator.sokoban.puzzle import parse_sokoban_puzzle

ROOT = Path(__file__).resolve().parent.parent


def board(rows: int, cols: int) -> str:
    return "\n".join(["." * cols] * rows)


def text(art: str, family: str, pieces: dict[str, int] | None = None) -> str:
    lines = ['name = "bench"', "[board]", f'art = """\n{art}\n"""', "[rules]", f'family = "{family}"']
    if pieces:
        lines += ["[pieces]"] + [f"{letter} = {count}" for letter, count in pieces.items()]
    return "\n".join(lines) + "\n"


CHESS = {"K": 1, "Q": 1, "R": 1, "B": 1, "N": 1}
# (name, one-word board, wide board, family, pieces, piece count of the layer timed); a wide
# board of None is the one-word board through the two-word path.
CASES = [
    ("jump, 8x8 forced", board(8, 8), None, "jump", None, 5),
    ("jump, 8x8 vs 9x9", board(8, 8), board(9, 9), "jump", None, 5),
    ("fling, 8x8 forced", board(8, 8), None, "fling", None, 5),
    ("fling, 8x8 vs 8x9", board(8, 8), board(8, 9), "fling", None, 5),
    ("capture, 8x8 forced", board(8, 8), None, "capture", CHESS, 4),
    ("capture, 8x8 vs 9x9", board(8, 8), board(9, 9), "capture", CHESS, 4),
]


GOAL_TABLES = {
    "lunar-lockout": (parse_sliding_puzzle, sliding_tables.build_kernel, sliding_sweep),
    "klotski": (parse_sliding_puzzle, sliding_tables.build_kernel, sliding_sweep),
    "sokoban": (parse_sokoban_puzzle, sokoban_tables.build_kernel, sokoban_sweep),
    "robots": (parse_sliding_puzzle, sliding_tables.build_kernel, sliding_sweep),
}
"""Bundled puzzles with goal tables timed whole, and how to read, compile and sweep them
(robots is left out with --quick)."""


def sweep_seconds(name: str, puzzle: Any) -> float:
    """Seconds of one whole sweep of the puzzle's tables (compiled beforehand by the caller)."""
    _, build_kernel, goal_sweep = GOAL_TABLES[name]
    start = time.perf_counter()
    k = build_kernel(puzzle)
    distances, flags, solved = goal_sweep.start(k, puzzle.size)
    for _ in goal_sweep.expand(k, distances, flags, 0, solved):
        pass
    goal_sweep.finish(k, distances, flags)
    return time.perf_counter() - start


def goal_rates(name: str, repeats: int) -> dict[str, float]:
    """Positions per second of the one-word and the forced four-word sweep of a bundled
    puzzle, timed in turn, the best of `repeats` runs each (after one run to compile)."""
    parse, build_kernel, _ = GOAL_TABLES[name]
    text = (ROOT / "puzzles" / f"{name}.toml").read_text()
    puzzles = {}
    for path, forced in (("narrow", None), ("wide", 2)):
        ranking._forced_words = forced
        try:
            puzzles[path] = parse(text, name)
        finally:
            ranking._forced_words = None
    assert build_kernel(puzzles["wide"]).words > 1 == build_kernel(puzzles["narrow"]).words
    best = {path: sweep_seconds(name, p) for path, p in puzzles.items()}  # the first run compiles
    for repeat in range(repeats):
        for path in (("narrow", "wide") if repeat % 2 == 0 else ("wide", "narrow")):
            best[path] = min(best[path], sweep_seconds(name, puzzles[path]))
    return {path: puzzles[path].size / seconds for path, seconds in best.items()}


def setup(puzzle: Puzzle, pieces: int, general: str | None) -> sweep.LayerSweep:
    """The sweep of the largest layer of `pieces` pieces on random bits below (`general`: the
    one-word general kernel by name; None: the puzzle's own choice, here the wide one),
    compiled."""
    below = random_tier(puzzle, pieces - 1, np.random.default_rng(pieces))
    layer = max(StateSpace(puzzle).layers_with(pieces), key=lambda item: item.size)
    run = sweep.LayerSweep(puzzle, layer, below, general)
    run.compute(0, 1)  # compile outside the timing
    return run


def rates(runs: dict[str, sweep.LayerSweep], words: int, repeats: int) -> dict[str, float]:
    """Positions per second of each sweep: 4 windows spread over its layer, the sweeps timed in
    turn on each (the order alternating), the best of `repeats` times per window counting."""
    best: dict[str, list[float]] = {name: [float("inf")] * 4 for name in runs}
    order = list(runs)
    positions = {}
    for repeat in range(repeats):
        for w in range(4):
            for name in order if repeat % 2 == 0 else order[::-1]:
                run = runs[name]
                span = min(words, run.layer.words)
                first = w * (run.layer.words - span) // 3
                start = time.perf_counter()
                run.compute(first, first + span)
                best[name][w] = min(best[name][w], time.perf_counter() - start)
                positions[name] = 4 * span * 64
    return {name: positions[name] / sum(times) for name, times in best.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer words per layer")
    parser.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    parser.add_argument("--repeats", type=int, default=5, help="timings per window and kernel")
    parser.add_argument("--json", type=Path, help="where to write the figures")
    parser.add_argument("--kinds", choices=("all", "layered", "goal"), default="all",
                        help="time the layered families' layers, the goal tables' whole sweeps, or both")
    args = parser.parse_args()
    numba.set_num_threads(args.threads)
    words = 1_000 if args.quick else 8_000
    report = {"date": datetime.now(UTC).isoformat(timespec="seconds"), "threads": args.threads,
              "repeats": args.repeats, "cases": []}
    for name, narrow_art, wide_art, family, pieces, count in CASES if args.kinds != "goal" else []:
        general = "boards" if pieces else "masks"
        narrow = setup(parse_puzzle(text(narrow_art, family, pieces), "bench"), count, general)
        ranking._forced_words = 2 if wide_art is None else None
        try:
            wide = setup(parse_puzzle(text(wide_art or narrow_art, family, pieces), "bench"), count, None)
        finally:
            ranking._forced_words = None
        figures = rates({"narrow": narrow, "wide": wide}, words, args.repeats)
        narrow_rate, wide_rate, layer = figures["narrow"], figures["wide"], narrow.layer.key
        case = {"case": name, "layer": layer, "one_word_positions_per_second": round(narrow_rate),
                "wide_positions_per_second": round(wide_rate),
                "cost_ratio": round(narrow_rate / wide_rate, 2)}
        report["cases"].append(case)
        print(f"{name:<22} {layer:<14} one word {narrow_rate / 1e6:6.2f} M/s  "
              f"wide {wide_rate / 1e6:6.2f} M/s  "
              f"cost per position x{case['cost_ratio']:.2f}", flush=True)
    names = list(GOAL_TABLES)
    for name in [] if args.kinds == "layered" else names[:-1] if args.quick else names:
        figures = goal_rates(name, args.repeats if not args.quick else 2)
        ratio = figures["narrow"] / figures["wide"]
        report["cases"].append({"case": name, "layer": "whole sweep",
                                "one_word_positions_per_second": round(figures["narrow"]),
                                "wide_positions_per_second": round(figures["wide"]),
                                "cost_ratio": round(ratio, 2)})
        print(f"{name:<22} {'whole sweep':<14} one word {figures['narrow'] / 1e6:6.2f} M/s  "
              f"wide {figures['wide'] / 1e6:6.2f} M/s  cost per position x{ratio:.2f}", flush=True)
    write_figures(report, "wide", args.json)


if __name__ == "__main__":
    main()
