"""Sliding-block puzzles in the catalogue: distances to the goal, unique shortest solutions
and connected sets of every placement of the pieces.

Everything the command line and the workspace need of sliding-block tables goes through `KIND`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from curator.common.errors import SelectionError, StoreError
from curator.common.keywords import Naming, same_name
from curator.common.reading import PuzzleFile
from curator.common.report import Report, columns, yes
from curator.common.resources import Shortfall, bytes_text
from curator.kind import Kind, Run, Search, Verdict
from curator.sliding.analysis import analyze_sliding, disk_bytes, memory_bytes, sliding_shortfalls
from curator.sliding.puzzle import FAMILY, SlidingPuzzle, sliding_puzzle_from
from curator.sliding.results import SlidingLevel, SlidingResults
from curator.sliding.sweep import INVALID, UNSOLVABLE

SHOWN = 50
"""Bad ranks `verify` lists one by one."""
FIGURES = ("ranks", "invalid", "positions", "solvable", "unsolvable", "max_distance", "clusters",
           "largest_cluster")
"""The counts of a folder the workspace shows."""


class SlidingKind(Kind):
    """Distance, flag and connected-set tables over every placement of the pieces."""

    name = "sliding"
    puzzle_noun = "a sliding-block puzzle"
    held = "sliding-block tables"
    families = frozenset({FAMILY})
    exporter = "curator.export.sliding"
    selection_options = ("distance", "unique", "all_moves", "cluster", "hardest", "sample", "seed", "limit",
                         "count_only")
    pack_options = ("distance", "unique", "all_moves", "cluster", "hardest")
    workspace = "blocks"

    def parse(self, file: PuzzleFile) -> SlidingPuzzle:
        return sliding_puzzle_from(file)

    def estimate(self, puzzle: SlidingPuzzle, run: Run) -> str:
        memory, disk = memory_bytes(puzzle), disk_bytes(puzzle)
        where = (f"{bytes_text(memory)} in memory and on disk" if memory == disk
                 else f"{bytes_text(memory)} in memory, {bytes_text(disk)} on disk")
        return f"{puzzle.name}: {puzzle.size:,} ranks ({puzzle.rules_text}); {where}"

    def shortfalls(self, puzzle: SlidingPuzzle, run: Run) -> list[Shortfall]:
        return sliding_shortfalls(puzzle, run.directory)

    def analyze(self, puzzle: SlidingPuzzle, run: Run) -> None:
        analyze_sliding(puzzle, run.directory, run.workers, run.force, run.distance_done, run.warn)

    def open(self, directory: Path, name: Naming = same_name) -> SlidingResults:
        return SlidingResults(directory, name)

    def info(self, results: SlidingResults) -> Report:
        summary = results.summary()
        title = f"{summary['puzzle']} ({results.puzzle.rules_text})"
        if not summary["complete"]:
            title += " (incomplete)"
        caption = None
        if summary["complete"]:
            caption = (f"{summary['positions']:,} positions in {summary['clusters']:,} connected sets "
                       f"(largest {summary['largest_cluster']:,}); {summary['invalid']:,} of "
                       f"{summary['ranks']:,} ranks are not positions")
        rows = [(str(item["distance"]), f"{item['positions']:,}", f"{item.get('unique', 0):,}",
                 f"{item.get('all_moves', 0):,}") for item in summary["layers"]]
        if summary.get("unsolvable"):
            rows.append(("not solvable", f"{summary['unsolvable']:,}", "", ""))
        return Report(title, columns("distance", "positions", "unique", "all moves"), tuple(rows), caption)

    def verdict(self, results: SlidingResults, sample: int, seed: int) -> Verdict:
        found = results.verify(sample, seed)
        summary = f"{found.files} tables match their checksums, {found.ranks:,} ranks re-derived"
        failed = f"verification failed: {summary}, {len(found.bad_ranks)} bad ranks"
        outcome = failed if found.bad_ranks else f"ok ({summary})"
        return Verdict(tuple(str(bad) for bad in found.bad_ranks[:SHOWN]), found.ok, outcome,
                       error=found.problems[0] if found.problems else None)

    # -- selecting -----------------------------------------------------------------------------

    def _filters(self, results: SlidingResults, keywords: dict[str, Any]) -> dict[str, Any]:
        """The keywords with the flags' negations refused: these tables filter for a flag,
        never against it."""
        refused = [name for name in ("unique", "all_moves") if keywords.get(name) is False]
        if refused:
            raise SelectionError(
                f"{', '.join('no ' + name for name in refused)}: the sliding-block tables in "
                f"{results.directory} keep levels with a flag, never without it")
        return keywords

    def selection(self, results: SlidingResults, keywords: dict[str, Any]
                  ) -> tuple[list[SlidingLevel], int | None]:
        chosen = results.selection(**self._filters(results, keywords))
        return chosen.levels, chosen.matched

    def count(self, results: SlidingResults, keywords: dict[str, Any]) -> tuple[int, dict[str, int]]:
        return results.count(**self._filters(results, keywords)), {}

    def nearest(self, results: SlidingResults, keywords: dict[str, Any], name: Naming = same_name
                ) -> str | None:
        others = {k: v for k, v in self._filters(results, keywords).items()
                  if k in ("unique", "all_moves", "cluster", "hardest")}
        span = results.distance_span(**others)
        given = ", ".join(name(k) for k in others) or "no filter"
        if span is None:
            return f"no level matches {given} at any distance"
        return f"levels with {given} exist at distances {span[0]}..{span[1]}"

    def items_report(self, results: SlidingResults, items: Sequence[SlidingLevel], matched: int | None,
                     keywords: dict[str, Any]) -> Report:
        count = len(items)
        plural = "" if count == 1 else "s"
        title = f"{results.puzzle.name}: {count} level{plural} of {matched or 0:,} matching"
        rows = tuple((str(level.distance), yes(level.unique), yes(level.all_moves), f"{level.cluster:,}",
                      str(level.rank), "/".join(level.board)) for level in items)
        heads = columns("distance", "unique", "all moves", "cluster", "rank", "board", left=("board",))
        return Report(title, heads, rows, caption=f"{count} level{plural}", width=200)

    def item_text(self, puzzle: SlidingPuzzle, item: SlidingLevel) -> str:
        distance = "not solvable" if item.distance is None else f"distance {item.distance}"
        lines = [*item.board, "",
                 f"rank {item.rank}: {distance}; unique: {yes(item.unique)}; all moves: "
                 f"{yes(item.all_moves)}; connected set: {item.cluster:,} positions"]
        if item.solution:
            lines.append("solution: " + "; ".join(item.solution))
        return "\n".join(lines)

    def solve(self, puzzle: SlidingPuzzle, position: Any, directory: Path | None,
              name: Naming = same_name, search: Search | None = None) -> tuple[SlidingLevel, Path | None]:
        directory = directory or Path("output") / puzzle.name
        try:
            stored = SlidingResults(directory, name)
        except StoreError:
            raise SelectionError(f"no sliding-block tables in {directory}; analyze the puzzle first, or give "
                                 f"{name('results')} DIR") from None
        if stored.store.holds_other_puzzle(puzzle.sha256):
            raise SelectionError(f"{name('results')} {directory}: holds results of another puzzle file "
                                 f"({stored.store.manifest.get('puzzle')!r})")
        return stored.show(stored.puzzle.rank(position)), directory

    # -- packs ---------------------------------------------------------------------------------

    def pack(self, results: SlidingResults, size: int, curve: Any, pool: int | None, seed: int,
             keywords: dict[str, Any], progress: Callable[[int, int], None] | None = None) -> Any:
        chosen: dict[str, Any] = {"pool": pool} if pool is not None else {}
        return results.pack(size, curve, seed=seed, **chosen, **self._filters(results, keywords))

    def pack_report(self, results: SlidingResults, pack: Any) -> Report:
        title = f"{results.puzzle.name}: {len(pack)} levels along {pack.curve} from a pool of {pack.pool:,}"
        rows = tuple((str(number), f"{slot.target:.1f}", str(slot.level.distance), yes(slot.level.unique),
                      str(slot.level.connected_set), f"{slot.level.cluster:,}", str(slot.level.rank),
                      "/".join(slot.level.board)) for number, slot in enumerate(pack.slots, start=1))
        heads = columns("slot", "target", "distance", "unique", "set", "cluster", "rank", "board",
                        left=("board",))
        return Report(title, heads, rows, width=200)

    def measures(self, results: SlidingResults, items: Sequence[Any]) -> tuple[Any, Any, Any]:
        ranks = np.array([int(item) for item in items], dtype=np.int64)
        size = results.puzzle.size
        for rank in ranks.tolist():
            if not 0 <= rank < size or results.distances[rank] == INVALID:
                raise SelectionError(f"rank {rank} is not a position of {results.puzzle.name}")
        distances = results.distances[ranks].astype(np.int64)
        ok = (distances < UNSOLVABLE) & (distances > 0)
        return results.measures(ranks), ok, distances

    def detail(self, results: SlidingResults) -> dict[str, Any]:
        summary = results.summary()
        return {"layers": results.layers, "figures": {key: summary.get(key) for key in FIGURES},
                "blocks": _blocks(results.puzzle)}


def _blocks(puzzle: SlidingPuzzle) -> dict[str, Any]:
    """What the workspace needs to draw and play the puzzle's pieces."""
    board = puzzle.board
    return {"rows": board.rows, "cols": board.cols, "cells": list(board.cells),
            "pieces": [{"letter": s.letter, "cells": list(s.cells), "count": s.count, "along": s.along}
                       for s in puzzle.shapes],
            "goal_piece": puzzle.goal_letter or None,
            "goal_cells": [board.cells[c] for c in puzzle.goal_cells],
            "exits": [board.cells[c] for c in puzzle.exits], "out": list(puzzle.out),
            "keep": list(puzzle.keep),
            "move": puzzle.move, "metric": puzzle.metric, "edge": puzzle.edge,
            "rules": puzzle.rules_text,
            "start": None if puzzle.start is None else puzzle.draw(puzzle.start).replace("\n", "/")}


KIND = SlidingKind()
