"""Universes in the catalogue: every puzzle over every set of vehicles and walls a sliding-block
file's count ranges allow, one per connected set.

A `slide` file is a universe when its board has `walls` or a vehicle that keeps its line has a
range of counts (`curator.universe.puzzle.is_universe_file`); the catalogue asks `claims`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from curator.arrange import Pack
from curator.common.errors import SelectionError
from curator.common.files import Verification
from curator.common.keywords import Naming, same_name
from curator.common.reading import PuzzleFile
from curator.common.report import Column, Report, columns
from curator.common.resources import Shortfall
from curator.kind import Kind, Run
from curator.universe.analysis import UniverseCluster, analyze_universe
from curator.universe.puzzle import FAMILY, Universe, is_universe_file, universe_from
from curator.universe.results import UniverseLevel, UniverseResults
from curator.universe.store import KEEP

BAR = 30
"""Characters of the longest bar of `curator info`'s histogram."""


def yes(flag: bool | None) -> str:
    return "-" if flag is None else ("yes" if flag else "no")


def _keep(run: Run) -> str:
    """The sets a run keeps (see `KEEP`); SelectionError naming the option if it is not one."""
    keep = run.keep or "all"
    if keep not in KEEP:
        raise SelectionError(f"{run.name('keep')} must be one of {', '.join(KEEP)}, not {keep!r}")
    return keep


class UniverseKind(Kind):
    """Connected sets of every piece set of a sliding-block universe, with their hardest puzzle."""

    name = "universe"
    puzzle_noun = "a sliding-block universe"
    held = "universe tables"
    item_noun = "puzzle"
    families = frozenset()
    exporter = "curator.export.universe"
    analysis_options = frozenset({"executor", "keep"})
    selection_options = ("solvable", "unique", "minimal", "pieces", "counts", "walls", "distance", "cluster",
                         "hardest", "sample", "seed", "sort", "limit", "count_only")
    pack_options = ("solvable", "unique", "minimal", "pieces", "counts", "walls", "distance", "cluster",
                    "hardest")
    solves = False
    workspace = "universe"

    def family_names(self) -> list[str]:
        return []

    def claims(self, file: PuzzleFile) -> bool:
        return file.family == FAMILY and is_universe_file(file)

    def parse(self, file: PuzzleFile) -> Universe:
        return universe_from(file)

    def estimate(self, puzzle: Universe, run: Run) -> str:
        return (f"{puzzle.name}: {puzzle.describe()}; split into pieces of work by its packed positions "
                "(counted first), each stored as it finishes")

    def subject(self, puzzle: Universe, run: Run) -> str:
        return f"{puzzle.name}'s universe"

    def shortfalls(self, puzzle: Universe, run: Run) -> list[Shortfall]:
        return []  # known once the pieces of work are counted: `analyze` checks them (`run.limits`)

    def analyze(self, puzzle: Universe, run: Run) -> None:
        keep = _keep(run)
        analyze_universe(puzzle, run.directory, run.workers, run.force, run.reporter, run.executor, keep,
                         run.limits)

    def open(self, directory: Path, name: Naming = same_name) -> UniverseResults:
        return UniverseResults.open(directory, name)

    def info(self, results: UniverseResults) -> Report:
        s = results.summary()
        title = f"{s['puzzle']}: {results.puzzle.describe()}" + ("" if s["complete"] else " (incomplete)")
        layers = results.layers
        top = max((row["puzzles"] for row in layers), default=1)
        rows = tuple((str(row["distance"]), f"{row['puzzles']:,}", f"{row['minimal']:,}",
                      f"{row['positions']:,}", "█" * max(1, round(BAR * row["puzzles"] / top)))
                     for row in layers)
        caption = (f"{s['sets']:,} connected sets of {s['positions']:,} positions; "
                   f"{s['solvable_sets']:,} can be solved ({s['solvable_positions']:,} positions), "
                   f"{s['minimal']:,} of them minimal; "
                   + (f"farthest {s['farthest']} moves" if s["farthest"] >= 0 else "none can be solved")
                   + ("" if s["keep"] == "all" else f"; the tables keep the {s['keep']} sets, which the "
                      "rows count"))
        heads = (*columns("distance", "puzzles", "minimal", "positions"),
                 Column("puzzles by distance", right=False))
        return Report(title, heads, rows, caption=caption, width=120)

    def checked(self, results: UniverseResults, sample: int, seed: int) -> tuple[Verification, str]:
        found = results.verify(sample, seed)
        return found, f"{found.files:,} files of sets"

    def selection(self, results: UniverseResults,
                  keywords: dict[str, Any]) -> tuple[Sequence[Any], int | None]:
        return results.selection(keywords)

    def count(self, results: UniverseResults, keywords: dict[str, Any]) -> tuple[int, dict[str, int]]:
        keep = results.mask(keywords)
        if keywords.get("hardest"):
            keep &= results.hardest_of_piece_set(keep)
        return int(keep.sum()), {}

    def items_report(self, results: UniverseResults, items: Sequence[Any], matched: int | None,
                     keywords: dict[str, Any]) -> Report:
        count = len(items)
        plural = "" if count == 1 else "s"
        title = f"{results.puzzle.name}: {count} puzzle{plural} of {matched or 0:,} matching"
        rows = tuple((str(p.distance if p.distance is not None else "-"), f"{p.cluster:,}", str(p.pieces),
                      str(p.walls), yes(p.minimal), yes(p.unique), str(p.rank), p.board.replace("/", "\n"))
                     for p in items)
        heads = columns("distance", "cluster", "pieces", "walls", "minimal", "unique", "rank", "board",
                        left=("board",))
        return Report(title, heads, rows, caption=f"{count} puzzle{plural}", lines=True, width=200)

    def item_text(self, puzzle: Any, item: UniverseLevel) -> str:
        distance = "cannot be solved" if item.distance is None else f"{item.distance} moves"
        return "\n".join([*item.board.split("/"), "",
                          f"set {item.rank}: {distance}; {item.cluster:,} positions; "
                          f"minimal: {yes(item.minimal)}; unique: {yes(item.unique)}"])

    def pack(self, results: UniverseResults, size: int, curve: Any, pool: int | None, seed: int,
             keywords: dict[str, Any], progress: Callable[[int, int], None] | None = None) -> Pack:
        chosen: dict[str, Any] = {"pool": pool} if pool is not None else {}
        return results.pack(size, curve, seed=seed, **chosen, **keywords)

    def pack_report(self, results: UniverseResults, pack: Pack) -> Report:
        title = (f"{results.puzzle.name}: {len(pack)} puzzles along {pack.curve} from a pool of "
                 f"{pack.pool:,}")
        rows = []
        for number, slot in enumerate(pack.slots, start=1):
            p = cast(UniverseLevel, slot.level)
            rows.append((str(number), f"{slot.target:.1f}", str(p.distance), f"{p.cluster:,}", str(p.pieces),
                         str(p.walls), yes(p.minimal), p.board.replace("/", "\n")))
        heads = columns("slot", "target", "distance", "cluster", "pieces", "walls", "minimal", "board",
                        left=("board",))
        return Report(title, heads, tuple(rows), lines=True, width=200)

    def solvable(self, results: UniverseResults, key: str) -> bool:
        return results.distance(key) is not None

    def detail(self, results: UniverseResults) -> dict[str, Any]:
        """Puzzles by distance, and what the workspace needs to draw and play positions: the
        board, the vehicles' shapes and counts, the goal, the walls, and the totals of `info`."""
        u = results.puzzle
        s = results.summary()
        vehicles = [{"letter": v.letter, "along": "row" if v.axis == 0 else "column",
                     "cells": [[0, i] if v.axis == 0 else [i, 0] for i in range(v.length)],
                     "fewest": v.fewest, "most": v.most} for v in u.vehicles]
        totals = ("sets", "positions", "solvable_sets", "solvable_positions", "minimal", "farthest")
        figures = {key: s[key] for key in totals}
        return {"layers": results.layers, "universe": {
            "rows": u.rows, "cols": u.cols, "cells": [[r, c] for r in range(u.rows) for c in range(u.cols)],
            "vehicles": vehicles, "goal_piece": u.goal_letter,
            "goal_cells": [[u.goal_row, c] for c in range(u.cols - u.goal_length, u.cols)],
            "walls": list(u.walls), "open_lines": u.open_lines, "rules": u.describe(), "figures": figures}}

    def executor(self, address: str) -> Any:
        from curator.layered.cluster import ClusterExecutor  # needs the cluster extra

        try:
            connected = ClusterExecutor.connect(address)
        except ValueError as exc:
            raise SelectionError(str(exc)) from None
        return UniverseCluster(connected.client, owns_client=True)


KIND = UniverseKind()
