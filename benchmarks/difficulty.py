"""How well difficulty orders the 248 shipped Fling! boards like the game's 35 published levels.

    python3 benchmarks/difficulty.py
    python3 benchmarks/difficulty.py --pack packs/fling-shipped.json   # also the boards as a pack

Every board is rated exactly (`curator.layered.metrics`); the two constants of the formula
are fitted again with leave-one-level-out cross-validation: for each published level, fit
on the boards of the other 34 and score the held-out boards. Printed: the cross-validated
Spearman correlation with the published level over all boards, the Spearman within each
ball count and their size-weighted mean, next to the ball-count and legal-move baselines,
and the constants of a fit on all boards beside the shipped ones.

The fit is a pairwise logistic (Bradley-Terry) model: for every pair of boards whose
published levels differ, the loss log(1 + exp(-(s_harder - s_easier))) with
s = w0 * m + w1 * (log2(search) - m) + w2 * log2(legal first moves) and w >= 0; pairs
with the same ball count weigh as much in all as the pairs across ball counts (the model
must order boards within a ball count, not only by it). The constants are w1 / w0, w2 / w0.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from curator.export.pack import save_pack
from curator.layered.metrics import LEGAL_WEIGHT, SEARCH_WEIGHT, solve_position, spearman
from curator.layered.puzzle import load_puzzle
from curator.layered.search import Explorer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))
from figures import write_figures  # noqa: E402
from reference import load_fling_levels  # noqa: E402


def rated_boards() -> list[dict]:
    """Every shipped board with its published level and the figures the formula uses."""
    puzzle = load_puzzle(ROOT / "puzzles" / "fling.toml")
    explorer = Explorer(puzzle)
    boards = []
    for number, balls in load_fling_levels(ROOT / "tests" / "data" / "fling_levels"):
        position = tuple(1 if cell in balls else 0 for cell in puzzle.board.cells)
        level = solve_position(puzzle, position, explorer)
        boards.append({"level": number, "balls": len(balls), "moves": len(level.solution),
                       "search": level.search, "legal": level.legal_moves, "difficulty": level.difficulty,
                       "rated": level})
    return boards


def features(boards: list[dict]) -> np.ndarray:
    """Columns: m, log2(search) - m, log2(legal first moves)."""
    m = np.array([b["moves"] for b in boards], dtype=float)
    search = np.log2([b["search"] for b in boards])
    legal = np.log2([b["legal"] for b in boards])
    return np.column_stack([m, search - m, legal])


def fit(x: np.ndarray, level: np.ndarray, balls: np.ndarray) -> np.ndarray:
    """The constants (w1 / w0, w2 / w0) of the pairwise logistic fit (see the module doc)."""
    harder, easier = np.nonzero(level[:, None] > level[None, :])
    same = balls[harder] == balls[easier]
    weight = np.ones(harder.shape[0])
    if same.any():
        weight[same] = (~same).sum() / same.sum()
    weight /= weight.sum()
    gaps = x[harder] - x[easier]

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = gaps @ w
        return float(np.sum(weight * np.logaddexp(0.0, -z))), -(weight / (1.0 + np.exp(z))) @ gaps

    w = minimize(loss, np.full(x.shape[1], 0.1), jac=True, method="L-BFGS-B",
                 bounds=[(0, None)] * x.shape[1]).x
    return w[1:] / w[0]


def score(x: np.ndarray, constants: np.ndarray) -> np.ndarray:
    return x[:, 0] + x[:, 1:] @ constants


def within(values: np.ndarray, level: np.ndarray, balls: np.ndarray) -> tuple[float, dict[int, tuple]]:
    """Spearman with the level per ball count, and their size-weighted mean (ball counts
    whose boards all share one level are left out: nothing to order)."""
    per = {}
    for k in sorted(set(balls.tolist())):
        mine = balls == k
        if len(set(level[mine].tolist())) < 2:
            continue
        rho = spearman(values[mine], level[mine]) if len(set(values[mine].tolist())) > 1 else 0.0
        per[int(k)] = (int(mine.sum()), rho)
    total = sum(n for n, _ in per.values())
    return sum(n * rho for n, rho in per.values()) / total, per


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="where to write the figures")
    parser.add_argument("--pack", type=Path, help="also write the boards as a level pack in the "
                        "published order (a curve for `curator pack`)")
    args = parser.parse_args()
    start = time.perf_counter()
    boards = rated_boards()
    rating_seconds = time.perf_counter() - start
    if args.pack:
        save_pack(load_puzzle(ROOT / "puzzles" / "fling.toml"), [b["rated"] for b in boards], args.pack)
    x = features(boards)
    level = np.array([b["level"] for b in boards])
    balls = np.array([b["balls"] for b in boards])
    held = np.empty(len(boards))
    folds = []
    for number in sorted(set(level.tolist())):
        out = level == number
        constants = fit(x[~out], level[~out], balls[~out])
        folds.append(constants)
        held[out] = score(x[out], constants)
    rows = {
        "difficulty, cross-validated": held,
        "difficulty as shipped": np.array([b["difficulty"] for b in boards]),
        "ball count": balls.astype(float),
        "legal first moves": x[:, 2],
    }
    counts = within(balls.astype(float), level, balls)[1]
    print(f"{len(boards)} boards rated in {rating_seconds:.1f} s\n")
    print(f"{'score':30s} overall  within  " + " ".join(f"{k:>5d}" for k in counts))
    sizes = " ".join(f"{n:>5d}" for n, _ in counts.values())
    print(f"{'(boards per ball count)':30s} {'':7s} {'':7s} {sizes}")
    figures = {}
    for name, values in rows.items():
        overall = spearman(values, level)
        mean, per = within(values, level, balls)
        cells = " ".join(f"{per[k][1]:+.2f}" if k in per else "    -" for k in counts)
        print(f"{name:30s} {overall:7.3f} {mean:7.3f} {cells}")
        figures[name] = {"overall": round(overall, 4), "within_mean": round(mean, 4),
                         "within": {k: round(rho, 4) for k, (_, rho) in per.items()}}
    full = fit(x, level, balls)
    low, high = np.min(folds, axis=0), np.max(folds, axis=0)
    print(f"\nconstants fitted on all boards: search {full[0]:.3f}, legal {full[1]:.3f} "
          f"(folds: {low[0]:.3f}..{high[0]:.3f}, {low[1]:.3f}..{high[1]:.3f}); "
          f"shipped: {SEARCH_WEIGHT}, {LEGAL_WEIGHT}")
    report = {"date": datetime.now(UTC).isoformat(), "boards": len(boards), "figures": figures,
              "constants": {"search": round(float(full[0]), 4), "legal": round(float(full[1]), 4)},
              "rating_seconds": round(rating_seconds, 2)}
    assert all(math.isfinite(b["difficulty"]) for b in boards)
    write_figures(report, "difficulty", args.json)


if __name__ == "__main__":
    main()
