"""How well the player model's difficulty orders graded levels, cross-validated, next to
single figures: the 248 shipped Fling! boards (the game's 35 published levels), 20 graded
Solitaire Chess challenges (4 grades of 5, in the level order;
benchmarks/graded/solitaire-chess-levels.txt, with its source), 60 graded levels of another
Solitaire Chess game (4 grades of 15, kings safe; benchmarks/graded/solitaire-chess-60.txt,
with its source) and the 40 cards of the original Rush Hour (4 grades of 10 cards, in the card
order; benchmarks/graded/rush-hour-cards.txt, with its source).

    python3 benchmarks/difficulty.py
    python3 benchmarks/difficulty.py --pack packs/fling-shipped.json   # also the Fling! boards as a pack

Every Fling! board and Solitaire Chess challenge is measured exactly on its position graph
(`curator.layered.metrics.measure`),
every card along its shortest solution over its sliding-block tables (each card is analyzed into
a scratch folder: about two minutes), at every look-ahead of the calibration grid
(`curator.common.difficulty.grid`). The player's parameters are then fitted again with
leave-one-out cross-validation, as `curator calibrate` fits them (`curator.common.difficulty.fit`):
for each published level (each card), fit on the others and rate the held-out boards. Printed per
set: the cross-validated Spearman correlation with the published order over all levels, the
Spearman within each group (a ball count; a card grade) and their size-weighted mean, and for the
sets published in grades the Spearman with the grade alone and the mean within a grade, next
to the difficulty the shipped defaults give and single figures; the parameters fitted on the
whole set beside the shipped defaults of its kind; and for the Solitaire Chess sets, fits on
random halves rated on the other half (`halves`). What rating costs is
`benchmarks/rating_cost.py`'s.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

import curator
from curator.calibration import judged
from curator.common.difficulty import (
    WALKED_DEFAULT,
    Graded,
    Player,
    cross_validated,
    efforts,
    fit,
    grid,
    spearman,
)
from curator.export.pack import save_pack
from curator.export.universe import sliding_text
from curator.layered.level import Level
from curator.layered.metrics import GRAPH_LIMIT, measure, solve_position
from curator.layered.puzzle import Puzzle, load_puzzle, parse_puzzle
from curator.layered.search import Explorer
from curator.universe.puzzle import load_universe

ROOT = Path(__file__).resolve().parent.parent
CARDS = ROOT / "benchmarks" / "graded" / "rush-hour-cards.txt"
CHESS = ROOT / "benchmarks" / "graded" / "solitaire-chess-levels.txt"
CHESS_60 = ROOT / "benchmarks" / "graded" / "solitaire-chess-60.txt"
HALVES = 30
"""Random halves each Solitaire Chess set is calibrated on (the other half rated)."""
GRADES = ("beginner", "intermediate", "advanced", "expert")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))
from figures import write_figures  # noqa: E402
from reference import load_fling_levels  # noqa: E402


@dataclass
class GradedSet:
    """Levels in a published order, measured for the player model, with single figures."""

    name: str
    group_noun: str
    """What the levels are grouped by for the within-group figures."""
    group_names: tuple[str, ...] | None
    """The groups' names in the tables (None: their numbers)."""
    graded: Graded
    defaults: Player
    """The shipped defaults of the levels' kind or rule family."""
    figures: dict[str, np.ndarray]
    """Each single figure, and the difficulty with the shipped defaults, per level."""
    grades: np.ndarray | None = None
    """The published grade of each level, coarser than the order (None: the order is the
    grade): graded sets are often published, and checked, by grade alone."""


def measured_level(puzzle: Puzzle, explorer: Explorer, position: tuple[int, ...]) -> tuple[Level, np.ndarray]:
    """A solvable level as its puzzle's player rates it, and its measures at every look-ahead
    of the grid."""
    level = solve_position(puzzle, position, explorer)
    graph = explorer.graph(position, GRAPH_LIMIT)
    assert graph is not None and level.solution
    return level, measure(graph, puzzle.goal.pieces, level.report, grid())


def fling(pack: Path | None) -> GradedSet:
    """Every shipped Fling! board with its published level, measured at every look-ahead of the
    grid; `pack`: also write the boards as a level pack in the published order."""
    puzzle = load_puzzle(ROOT / "puzzles" / "fling.toml")
    explorer = Explorer(puzzle)
    boards = []
    for number, balls in load_fling_levels(ROOT / "tests" / "data" / "fling_levels"):
        position = tuple(1 if cell in balls else 0 for cell in puzzle.board.cells)
        level, found = measured_level(puzzle, explorer, position)
        boards.append({"level": number, "balls": len(balls), "search": level.search,
                       "legal": level.legal_moves, "rated": level, "measures": found})
    if pack:
        save_pack(puzzle, [b["rated"] for b in boards], pack)
    assert all(math.isfinite(b["rated"].difficulty) for b in boards)
    balls = np.array([b["balls"] for b in boards])
    search = np.array([b["search"] for b in boards], dtype=float)
    legal = np.array([b["legal"] for b in boards], dtype=float)
    moves = balls - 1.0
    return GradedSet(
        "the 248 shipped Fling! boards, by published level", "ball count", None,
        Graded(np.array([b["measures"] for b in boards]), np.array([b["level"] for b in boards], dtype=float),
               balls),
        puzzle.player,
        {"difficulty, shipped defaults": np.array([b["rated"].difficulty for b in boards]),
         "ball count (= solution length)": balls.astype(float),
         "legal first moves": legal,
         "search": search,
         "forced knock-ons": np.array([b["measures"][0, 3] for b in boards]),
         "earlier formula": moves + 0.432 * (np.log2(search) - moves) + 0.368 * np.log2(legal)})


def solitaire_chess(path: Path, name: str, king_safe: bool) -> GradedSet:
    """Graded Solitaire Chess levels (a file of benchmarks/graded/: level, grade, ..., board on
    each line) in the level order, measured at every look-ahead of the grid: the bundled 4 x 4
    puzzle with the set's rule for kings, its piece limit raised to the retail set's ten (the
    hardest levels hold eight) and each kind's count to the most a level holds."""
    rows = [line.split() for line in path.read_text().splitlines() if line and not line.startswith("#")]
    text = (ROOT / "puzzles" / "solitaire-chess.toml").read_text()
    text = text.replace("max_pieces = 6", "max_pieces = 10")
    text = text.replace("king_safe = false", f"king_safe = {str(king_safe).lower()}")
    most = {letter: max(row[-1].count(letter) for row in rows) for letter in "KQRBNP"}
    text = re.sub(r"^([KQRBNP]) = (\d+)$", lambda m: f"{m[1]} = {max(int(m[2]), most[m[1]])}", text,
                  flags=re.M)
    puzzle = parse_puzzle(text)
    explorer = Explorer(puzzle)
    grades = list(dict.fromkeys(row[1] for row in rows))
    measures, levels, legal = [], [], []
    for row in rows:
        level, found = measured_level(puzzle, explorer, puzzle.parse(row[-1]))
        measures.append(found)
        levels.append(level)
        legal.append(level.legal_moves)
    pieces = np.array([len(level.solution) + 1 for level in levels])
    return GradedSet(
        name, "piece count", None,
        Graded(np.array(measures), np.array([int(row[0]) for row in rows], dtype=float), pieces),
        puzzle.player,
        {"difficulty, shipped defaults": np.array([level.difficulty for level in levels]),
         "piece count (= solution length + 1)": pieces.astype(float),
         "legal first moves": np.array(legal, dtype=float),
         "search": np.array([level.search for level in levels], dtype=float)},
        np.array([grades.index(row[1]) for row in rows]))


def rush_hour_cards(scratch: Path) -> GradedSet:
    """The 40 original Rush Hour cards in the card order, each analyzed as a sliding-block
    puzzle in `scratch` and measured along its shortest solution at every look-ahead."""
    universe = load_universe(ROOT / "puzzles" / "rush-hour-no-walls.toml")
    rows = [line.split() for line in CARDS.read_text().splitlines() if line and not line.startswith("#")]
    measures, rated, size, legal, vehicles = [], [], [], [], []
    for card, _grade, _moves, board in rows:
        path = scratch / f"card-{card}.toml"
        path.write_text(sliding_text(universe, board, f"card-{card}", f"Rush Hour card {card}"))
        results = curator.analyze(path, scratch / f"card-{card}")
        drawing = board.replace("/", "\n")
        position = results.position(drawing)
        measures.append(results.measures(np.array([results.rank_of(position)]))[0])
        level = results.solve(drawing)
        rated.append(level)
        size.append(level.cluster)
        legal.append(len(results.moves(position)))
        vehicles.append(sum(len(anchors) for anchors in position))
    card = np.array([int(r[0]) for r in rows], dtype=float)
    grade = np.array([GRADES.index(r[1]) for r in rows])
    return GradedSet(
        "the 40 original Rush Hour cards, by card", "grade", tuple(g[:5] for g in GRADES),
        Graded(np.array(measures), card, grade),
        WALKED_DEFAULT,
        {"difficulty, shipped defaults": np.array([level.difficulty for level in rated]),
         "distance (= solution length)": np.array([level.distance for level in rated], dtype=float),
         "legal first moves": np.array(legal, dtype=float),
         "vehicles": np.array(vehicles, dtype=float),
         "positions in its set": np.array(size, dtype=float)},
        grade)


def within(values: np.ndarray, order: np.ndarray, groups: np.ndarray) -> tuple[float, dict[int, tuple]]:
    """Spearman with the published order per group, and their size-weighted mean (groups whose
    levels all share one place in the order are left out: nothing to order)."""
    per = {}
    for k in sorted(set(groups.tolist())):
        mine = groups == k
        if len(set(order[mine].tolist())) < 2:
            continue
        per[int(k)] = (int(mine.sum()), spearman(values[mine], order[mine]))
    total = sum(n for n, _ in per.values())
    return sum(n * rho for n, rho in per.values()) / total, per


def halves(found: GradedSet, draws: int, seed: int = 1) -> dict[str, float]:
    """Calibrate on a random half of the levels and rate the other half, `draws` times: the
    mean Spearman on the held-out halves of the fit, of what `curator calibrate` keeps (the fit,
    or the player in use when the fit orders its half worse, cross-validated), of the shipped
    defaults and of the group figure (the piece count or grade), and how often it kept them."""
    graded, rng = found.graded, np.random.default_rng(seed)
    scores: dict[str, list[float]] = {"fit": [], "calibrate": [], "defaults": [], "group figure": []}
    kept = 0
    for _ in range(draws):
        order = rng.permutation(len(graded.grades))
        fitted_on, rated = (np.sort(part) for part in np.array_split(order, 2))
        half, other = (Graded(graded.measures[i], graded.grades[i], graded.groups[i])
                       for i in (fitted_on, rated))
        keep = judged(half, found.defaults)[2]
        rating = {"fit": spearman(efforts(other, fit(half)), other.grades),
                  "defaults": spearman(efforts(other, found.defaults), other.grades),
                  "group figure": spearman(other.groups.astype(float), other.grades)}
        rating["calibrate"] = rating["defaults"] if keep else rating["fit"]
        kept += keep
        for name, value in rating.items():
            scores[name].append(value)
    means = {name: round(float(np.mean(values)), 4) for name, values in scores.items()}
    print(f"calibrated on a random half, rated on the other ({draws} draws): fit {means['fit']:.3f}, as "
          f"`calibrate` keeps it {means['calibrate']:.3f} (the defaults kept {kept} times), shipped "
          f"defaults {means['defaults']:.3f}, {found.group_noun} {means['group figure']:.3f}")
    return {**means, "draws": draws, "kept_defaults": kept}


def report(found: GradedSet, draws: int = 0) -> dict:
    """Print one set's table and fitted player, and with `draws` its calibrations on halves
    (see `halves`); its figures."""
    graded = found.graded
    order, groups = graded.grades, graded.groups
    rows = {"difficulty, cross-validated": cross_validated(graded, most=len(set(order.tolist()))),
            **found.figures}
    counts = within(order, order, groups)[1]
    print(f"\n{found.name}: Spearman overall and within a {found.group_noun}\n")
    names = found.group_names or tuple(str(k) for k in range(max(counts) + 1))
    coarse = found.grades
    width = max(32, *(len(name) for name in rows))
    print(f"{'score':{width}s} overall  within  " + " ".join(f"{names[k]:>5s}" for k in counts)
          + ("  by grade  in grade" if coarse is not None else ""))
    sizes = " ".join(f"{n:>5d}" for n, _ in counts.values())
    print(f"{'(levels per group)':{width}s} {'':7s} {'':7s} {sizes}")
    figures = {}
    for name, values in rows.items():
        overall = spearman(values, order)
        mean, per = within(values, order, groups)
        cells = " ".join(f"{per[k][1]:+.2f}" if k in per else "    -" for k in counts)
        graded_by = spearman(values, coarse) if coarse is not None else None
        in_grade = within(values, order, coarse)[0] if coarse is not None else None
        print(f"{name:{width}s} {overall:7.3f} {mean:7.3f} {cells}"
              + (f"  {graded_by:8.3f}  {in_grade:8.3f}" if graded_by is not None else ""))
        figures[name] = {"overall": round(overall, 4), "within_mean": round(mean, 4),
                         "within": {k: round(rho, 4) for k, (_, rho) in per.items()}}
        if graded_by is not None:
            figures[name]["by_grade"] = round(graded_by, 4)
            figures[name]["within_grade_mean"] = round(in_grade, 4)
    full = fit(graded)
    in_sample = efforts(graded, full)
    print(f"\nplayer fitted on all of them: {full.text()} (in-sample: {spearman(in_sample, order):.3f} "
          f"overall, {within(in_sample, order, groups)[0]:.3f} within)\nshipped defaults: "
          f"{found.defaults.text()} ({found.defaults.source})")
    out = {"levels": len(order), "figures": figures, "player": full.to_json()}
    if draws:
        out["halves"] = halves(found, draws)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="where to write the figures")
    parser.add_argument("--pack", type=Path, help="also write the Fling! boards as a level pack in the "
                        "published order (a curve for `curator pack`)")
    args = parser.parse_args()
    chess = solitaire_chess(CHESS, "20 graded Solitaire Chess challenges, by level", king_safe=False)
    chess_60 = solitaire_chess(CHESS_60, "60 graded Solitaire Chess levels, by level", king_safe=True)
    sets = {"fling": report(fling(args.pack)), "solitaire_chess": report(chess, HALVES),
            "solitaire_chess_60": report(chess_60, HALVES)}
    with tempfile.TemporaryDirectory() as scratch:
        sets["rush_hour_cards"] = report(rush_hour_cards(Path(scratch)))
    write_figures({"date": datetime.now(UTC).isoformat(), "sets": sets}, "difficulty", args.json)


if __name__ == "__main__":
    main()
