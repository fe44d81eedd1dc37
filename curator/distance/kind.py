"""Permutation puzzles in the catalogue: one table of distances to the solved state (God's
algorithm), positions picked by distance.

Everything the command line and the workspace need of distance tables goes through `KIND`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from curator.common.errors import SelectionError
from curator.common.files import Verification
from curator.common.keywords import METRICS_CAP, Naming, same_name
from curator.common.reading import PuzzleFile
from curator.common.report import Report, columns
from curator.common.resources import Shortfall, bytes_text, seconds_text
from curator.common.variants import Variants
from curator.distance.analysis import analyze_distances, sweep_needs, table_shortfalls
from curator.distance.puzzle import FAMILY, PermutationPuzzle, permutation_puzzle_from, state_text
from curator.distance.results import DistanceLevel, DistanceResults
from curator.kind import Kind, Run, Search


class DistanceKind(Kind):
    """A table of distances to the solved state."""

    name = "distance"
    puzzle_noun = "a permutation puzzle"
    held = "a distance table"
    item_noun = "position"
    families = frozenset({FAMILY})
    exporter = "curator.export.distance"
    selection_options = ("distance", "sample", "seed", "limit")
    solves = False
    variant_wants = ("solvable", "harder")
    calibrates = True

    def parse(self, file: PuzzleFile) -> PermutationPuzzle:
        return permutation_puzzle_from(file)

    def estimate(self, puzzle: PermutationPuzzle, run: Run) -> str:
        needs = sweep_needs(puzzle, run.workers)
        return (f"{puzzle.name}: {puzzle.size:,} positions, {len(puzzle.moves)} moves "
                f"({puzzle.metric} metric); {bytes_text(needs.table_bytes)} on disk, about "
                f"{bytes_text(needs.memory_bytes)} of memory and {seconds_text(needs.seconds)}")

    def subject(self, puzzle: PermutationPuzzle, run: Run) -> str:
        return f"{puzzle.name}'s distance table"

    def shortfalls(self, puzzle: PermutationPuzzle, run: Run) -> list[Shortfall]:
        return table_shortfalls(puzzle, run.directory, run.workers)

    def analyze(self, puzzle: PermutationPuzzle, run: Run) -> None:
        analyze_distances(puzzle, run.directory, run.workers, run.force, run.distance_done, run.warn)

    def open(self, directory: Path, name: Naming = same_name) -> DistanceResults:
        return DistanceResults(directory, name)

    def info(self, results: DistanceResults) -> Report:
        summary, manifest = results.summary(), results.store.manifest
        title = f"{summary['puzzle']} ({manifest['metric']} metric)"
        if not summary["complete"]:
            title += " (incomplete)"
        rows = [(str(item["distance"]), f"{item['positions']:,}") for item in summary["layers"]]
        if manifest.get("unreached"):
            rows.append(("not reached", f"{manifest['unreached']:,}"))
        return Report(title, columns("distance", "positions"), tuple(rows),
                      caption=f"{manifest.get('seconds', 0.0):.1f} s")

    def checked(self, results: DistanceResults, sample: int, seed: int) -> tuple[Verification, str]:
        found = results.verify(sample, seed)
        return found, f"the distance table, {found.ranks:,} ranks re-derived"

    def selection(self, results: DistanceResults, keywords: dict[str, Any]
                  ) -> tuple[list[DistanceLevel], int | None]:
        items = results.select(**keywords, cap=METRICS_CAP)
        return items, results.count(keywords.get("distance"))

    def warm(self, results: DistanceResults) -> None:
        farthest = len(results.store.counts) - 1
        self.selection(results, {"distance": (farthest, farthest), "limit": 1})

    def nearest(self, results: DistanceResults, keywords: dict[str, Any], name: Naming = same_name) -> str:
        reached = [d for d, count in enumerate(results.store.counts) if count]
        return f"positions exist at distances {reached[0]}..{reached[-1]}"

    def items_report(self, results: DistanceResults, items: Sequence[DistanceLevel], matched: int | None,
                     keywords: dict[str, Any]) -> Report:
        distance = keywords.get("distance")
        count = len(items)
        title = f"{results.puzzle.name}: {count} position{'' if count == 1 else 's'} of {matched or 0:,}"
        if distance is not None:
            lo, hi = distance if isinstance(distance, tuple) else (distance, distance)
            title += f" at distance {lo if lo == hi else f'{lo}..{hi}'}"
        rows = tuple((str(item.distance), str(item.rank), state_text(item.to_json()["state"]),
                      " ".join(item.solution)) for item in items)
        heads = columns("distance", "rank", "state", "solution", left=("state", "solution"))
        return Report(title, heads, rows, caption=f"{count} positions")

    def variants(self, results: DistanceResults, position: Any, want: str, limit: int,
                 search: Search | None = None, progress: Callable[[int, int], None] | None = None,
                 ) -> Variants:
        return results.variation(position, want, limit)

    def detail(self, results: DistanceResults) -> dict[str, Any]:
        """The table per distance, and what the workspace's editor needs to draw and edit the
        puzzle's states: its piece sets and the solved state as a line of text."""
        states = {**_states(results.puzzle), "wants": list(self.variant_wants)}
        return {"layers": results.layers, "states": states}

    def measures(self, results: DistanceResults, items: Sequence[Any]) -> tuple[Any, Any, Any]:
        ranks = np.array([int(item) for item in items], dtype=np.int64)
        for rank in ranks.tolist():
            if not 0 <= rank < results.puzzle.size:
                raise SelectionError(f"rank {rank} is not a position of {results.puzzle.name}")
        found = results.measures(ranks)
        distances = found[:, 0, 0].astype(np.int64)  # 0 for the solved state and positions not reached
        return found, distances > 0, distances

    def item_text(self, puzzle: PermutationPuzzle, item: DistanceLevel) -> str:
        distance = "not reached" if item.distance is None else item.distance
        return "\n".join([*item.board, "", f"rank {item.rank}: distance {distance}",
                          "solution: " + (" ".join(item.solution) or "-")])


def _states(puzzle: PermutationPuzzle) -> dict[str, Any]:
    """The piece sets as the editor edits them: their names, sizes and twists; the mover (the
    8-puzzle's blank), whose tile draws empty; the solved state as `state_text` writes it."""
    return {"sets": [{"name": s.name, "count": s.count, "orientations": s.orientations,
                      "zero_sum": s.zero_sum, "layout": list(s.layout) if s.layout else None,
                      "mover": mover, "stickers": s.stickers is not None}
                     for s, mover in zip(puzzle.sets, puzzle.movers)],
            "moves": puzzle.move_names, "metric": puzzle.metric,
            "solved": state_text(puzzle.describe(puzzle.solved_state))}


KIND = DistanceKind()
