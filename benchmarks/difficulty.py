"""How well the player model's difficulty orders the 248 shipped Fling! boards like the game's
35 published levels, cross-validated, next to single figures.

    python3 benchmarks/difficulty.py
    python3 benchmarks/difficulty.py --pack packs/fling-shipped.json   # also the boards as a pack

Every board is measured exactly on its position graph (`curator.layered.metrics.measure`) at
every look-ahead of the calibration grid (`curator.common.difficulty.grid`). The player's
parameters are then fitted again with leave-one-level-out cross-validation, as `curator
calibrate` fits them (`curator.common.difficulty.fit`): for each published level, fit on the
boards of the other 34 and rate the held-out boards. Printed: the cross-validated Spearman
correlation with the published level over all boards, the Spearman within each ball count
and their size-weighted mean, next to single figures (ball count, which is also the solution
length here, legal first moves, the backtracking search) and the earlier per-game formula
(which the defaults are); the parameters fitted on all boards beside the shipped defaults.
What rating costs is `benchmarks/rating_cost.py`'s.
"""

from __future__ import annotations

import argparse
import math
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from curator.common.difficulty import DEFAULT, Graded, cross_validated, efforts, fit, grid, spearman
from curator.export.pack import save_pack
from curator.layered.metrics import GRAPH_LIMIT, measure, solve_position
from curator.layered.puzzle import load_puzzle
from curator.layered.search import Explorer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))
from figures import write_figures  # noqa: E402
from reference import load_fling_levels  # noqa: E402


def rated_boards() -> list[dict]:
    """Every shipped board with its published level, its level as curator rates it and its
    measures at every look-ahead of the grid."""
    puzzle = load_puzzle(ROOT / "puzzles" / "fling.toml")
    explorer = Explorer(puzzle)
    boards = []
    for number, balls in load_fling_levels(ROOT / "tests" / "data" / "fling_levels"):
        position = tuple(1 if cell in balls else 0 for cell in puzzle.board.cells)
        level = solve_position(puzzle, position, explorer)
        graph = explorer.graph(position, GRAPH_LIMIT)
        assert graph is not None
        found = measure(graph, puzzle.goal.pieces, explorer.report(position), grid())
        boards.append({"level": number, "balls": len(balls), "moves": len(level.solution),
                       "search": level.search, "legal": level.legal_moves, "rated": level, "measures": found})
    return boards


def within(values: np.ndarray, level: np.ndarray, balls: np.ndarray) -> tuple[float, dict[int, tuple]]:
    """Spearman with the level per ball count, and their size-weighted mean (ball counts
    whose boards all share one level are left out: nothing to order)."""
    per = {}
    for k in sorted(set(balls.tolist())):
        mine = balls == k
        if len(set(level[mine].tolist())) < 2:
            continue
        per[int(k)] = (int(mine.sum()), spearman(values[mine], level[mine]))
    total = sum(n for n, _ in per.values())
    return sum(n * rho for n, rho in per.values()) / total, per


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="where to write the figures")
    parser.add_argument("--pack", type=Path, help="also write the boards as a level pack in the "
                        "published order (a curve for `curator pack`)")
    args = parser.parse_args()
    boards = rated_boards()
    if args.pack:
        save_pack(load_puzzle(ROOT / "puzzles" / "fling.toml"), [b["rated"] for b in boards], args.pack)
    level = np.array([b["level"] for b in boards], dtype=float)
    balls = np.array([b["balls"] for b in boards])
    graded = Graded(np.array([b["measures"] for b in boards]), level, balls)
    held = cross_validated(graded, most=len(set(level.tolist())))
    moves = np.array([b["moves"] for b in boards], dtype=float)
    search = np.array([b["search"] for b in boards], dtype=float)
    legal = np.array([b["legal"] for b in boards], dtype=float)
    rows = {
        "difficulty, cross-validated": held,
        "difficulty, shipped defaults": np.array([b["rated"].difficulty for b in boards]),
        "ball count (= solution length)": balls.astype(float),
        "legal first moves": legal,
        "search": search,
        "earlier formula (in-sample)": moves + 0.432 * (np.log2(search) - moves) + 0.368 * np.log2(legal),
    }
    counts = within(balls.astype(float), level, balls)[1]
    print(f"{len(boards)} boards rated and measured\n")
    print(f"{'score':32s} overall  within  " + " ".join(f"{k:>5d}" for k in counts))
    sizes = " ".join(f"{n:>5d}" for n, _ in counts.values())
    print(f"{'(boards per ball count)':32s} {'':7s} {'':7s} {sizes}")
    figures = {}
    for name, values in rows.items():
        overall = spearman(values, level)
        mean, per = within(values, level, balls)
        cells = " ".join(f"{per[k][1]:+.2f}" if k in per else "    -" for k in counts)
        print(f"{name:32s} {overall:7.3f} {mean:7.3f} {cells}")
        figures[name] = {"overall": round(overall, 4), "within_mean": round(mean, 4),
                         "within": {k: round(rho, 4) for k, (_, rho) in per.items()}}
    full = fit(graded)
    print(f"\nplayer fitted on all boards: {full.text()}\nshipped defaults: {DEFAULT.text()}")
    in_sample = spearman(efforts(graded, full), level)
    print(f"(fitted on all boards, in-sample: {in_sample:.3f} overall, "
          f"{within(efforts(graded, full), level, balls)[0]:.3f} within)")
    report = {"date": datetime.now(UTC).isoformat(), "boards": len(boards), "figures": figures,
              "player": full.to_json()}
    assert all(math.isfinite(b["rated"].difficulty) for b in boards)
    write_figures(report, "difficulty", args.json)


if __name__ == "__main__":
    main()
