"""Time opening a universe folder and a few selections on it, in one process: seconds for
`curator.open` with the first selection, then for each selection after it, and the peak
memory. `--dump` writes what the selections, a pack and the totals gave, as JSON, so that
two versions of the code can be compared on the same folder.

    python3 benchmarks/universe_tables.py output/rush-hour-no-walls
    PYTHONPATH=../other-checkout python3 benchmarks/universe_tables.py DIR --dump other.json
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path
from typing import Any

import curator

TIMED: list[tuple[str, dict[str, Any]]] = [
    ("minimal, hardest, limit 10", dict(minimal=True, hardest=True, limit=10)),
    ("distance 40..60, limit 20", dict(distance=(40, 60), limit=20)),
    ("sort cluster, limit 10", dict(sort="cluster", limit=10)),
]
"""The selections timed, in this order (the first one pays for opening the tables)."""

COMPARED: list[tuple[str, dict[str, Any]]] = [
    ("hardest, limit 30", dict(hardest=True, limit=30)),
    ("sort pieces:asc, limit 15", dict(sort="pieces:asc", limit=15)),
    ("sort cluster:asc, unsolvable, limit 15", dict(sort="cluster:asc", solvable=False, limit=15)),
    ("sort walls, unique, minimal, limit 15", dict(sort="walls", unique=True, minimal=True, limit=15)),
    ("counts h=4..9 V=0..1, distance 30..99", dict(counts={"h": (4, 9), "V": (0, 1)}, distance=(30, 99),
                                                   limit=40)),
    ("pieces 5..6, cluster 100..200, sort cluster", dict(pieces=(5, 6), cluster=(100, 200), sort="cluster",
                                                          limit=25)),
    ("hardest, sample 25, seed 3", dict(hardest=True, sample=25, seed=3)),
    ("minimal, unique, distance 20..30, hardest, sort distance:asc",
     dict(minimal=True, unique=False, distance=(20, 30), hardest=True, sort="distance:asc", limit=25)),
]
"""Selections only compared (with --dump), not timed."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directory", type=Path, help="a universe folder (only read)")
    parser.add_argument("--dump", type=Path, help="write the selections' puzzles and the totals here (JSON)")
    args = parser.parse_args()
    dump: dict[str, Any] = {}
    started = time.perf_counter()
    results = curator.open(args.directory)
    print(f"open: {time.perf_counter() - started:.2f} s")
    for label, keywords in TIMED:
        began = time.perf_counter()
        levels = results.select(**keywords)
        print(f"select({label}): {time.perf_counter() - began:.2f} s, {len(levels)} puzzles")
        dump[label] = [level.to_json() for level in levels]
    print(f"open and the three selections: {time.perf_counter() - started:.2f} s")
    if args.dump:
        for label, keywords in COMPARED:
            began = time.perf_counter()
            found, matched = results.selection({"hardest": False, **keywords})
            print(f"select({label}): {time.perf_counter() - began:.2f} s, {matched:,} matched")
            dump[label] = {"matched": matched, "puzzles": [level.to_json() for level in found]}
        began = time.perf_counter()
        pack = results.pack(10, "linear", minimal=True, distance=(10, 40))
        dump["pack"] = [level.to_json() for level in pack]
        hardest = results.pack(12, "ease-in", hardest=True, seed=4)
        dump["pack hardest"] = [level.to_json() for level in hardest]
        print(f"two packs: {time.perf_counter() - began:.2f} s")
        began = time.perf_counter()
        dump["summary"] = results.summary()
        dump["histogram"] = results.histogram()
        dump["layers"] = results.layers
        print(f"summary, histogram and layers: {time.perf_counter() - began:.2f} s")
        args.dump.write_text(json.dumps(dump, indent=1) + "\n")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory: {peak:,.0f} MB")


if __name__ == "__main__":
    main()
