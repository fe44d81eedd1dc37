"""curator's English sweep against a plain pull sweep in C (benchmarks/pull_sweep.c), as whole
processes: `curator analyze puzzles/peg.toml --max-pieces K --force` against the compiled C
program, both computing the same three properties of every position up to K pegs.

    python3 benchmarks/pull_ratio.py              # K = 11, 3 alternating runs of each
    python3 benchmarks/pull_ratio.py --cold       # curator compiles its kernels in each run

The ratio is curator's median wall time over the C program's (below 1: curator is faster).
The per-layer counts of both must agree, or the run stops. Needs a C compiler (`cc`).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from figures import write_figures

ROOT = Path(__file__).resolve().parents[1]


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    began = time.perf_counter()
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    return time.perf_counter() - began, done.stdout


def c_counts(output: str) -> dict[str, list[int]]:
    """Per layer (k01, ...): positions, solvable, unique, all_moves, as the C program prints them."""
    return {key: [int(v) for v in rest] for key, *rest in (line.split() for line in output.splitlines())}


def curator_counts(folder: Path) -> dict[str, list[int]]:
    manifest = json.loads((folder / "manifest.json").read_text())
    return {item["key"]: [item[k] for k in ("positions", "solvable", "unique", "all_moves")]
            for item in manifest["layers"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pegs", type=int, default=11, help="sweep up to this many pegs [11]")
    parser.add_argument("--runs", type=int, default=3, help="runs of each, alternating [3]")
    parser.add_argument("--cold", action="store_true", help="a new numba cache for every curator run")
    parser.add_argument("--json", type=Path, help="where to write the figures")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="curator-pull-") as scratch:
        scratch = Path(scratch)
        program = scratch / "pull_sweep"
        source = ROOT / "benchmarks" / "pull_sweep.c"
        subprocess.run(["cc", "-O2", "-march=native", "-o", str(program), str(source)], check=True)
        folder = scratch / "peg"
        analyze = [sys.executable, "-m", "curator", "analyze", str(ROOT / "puzzles" / "peg.toml"),
                   "--max-pieces", str(args.pegs), "--force", "--output", str(folder)]
        c_times, curator_times = [], []
        for run in range(args.runs):
            env = dict(os.environ)
            if args.cold:
                env["NUMBA_CACHE_DIR"] = str(scratch / f"cache-{run}")
            seconds, output = timed([str(program), str(args.pegs)])
            c_times.append(seconds)
            curator_times.append(timed(analyze, env)[0])
            mine, theirs = curator_counts(folder), c_counts(output)
            if any(mine.get(key) != value for key, value in theirs.items()):
                sys.exit(f"the counts differ: curator {mine}, C {theirs}")
            print(f"run {run + 1}: C {seconds:.2f} s, curator {curator_times[-1]:.2f} s", flush=True)
    ratio = statistics.median(curator_times) / statistics.median(c_times)
    print(f"curator / C, medians of {args.runs}: {ratio:.3f}")
    report = {"date": datetime.datetime.now().isoformat(), "pegs": args.pegs, "cold": args.cold,
              "c_seconds": c_times, "curator_seconds": curator_times, "ratio": ratio}
    write_figures(report, "pull-ratio", args.json)


if __name__ == "__main__":
    main()
