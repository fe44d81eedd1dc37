"""Sliding-block puzzles in the catalogue: distances to the goal, unique shortest solutions
and connected sets of every placement of the pieces.

Everything the command line and the workspace need of sliding-block tables goes through `KIND`;
what all goal tables answer alike is `curator.goals.GoalKind`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from curator.common.reading import PuzzleFile
from curator.common.variants import WANTS, Variants
from curator.goals import GoalKind
from curator.kind import Search
from curator.sliding.analysis import analyze_sliding, sweep_bytes
from curator.sliding.puzzle import FAMILY, SlidingPuzzle, sliding_puzzle_from
from curator.sliding.results import SlidingResults


class SlidingKind(GoalKind):
    """Distance, flag and connected-set tables over every placement of the pieces."""

    name = "sliding"
    puzzle_noun = "a sliding-block puzzle"
    held = "sliding-block tables"
    families = frozenset({FAMILY})
    exporter = "curator.export.sliding"
    results_class = SlidingResults
    analysis = analyze_sliding
    variant_wants = WANTS

    def parse(self, file: PuzzleFile) -> SlidingPuzzle:
        return sliding_puzzle_from(file)

    def sweep_bytes(self, puzzle: SlidingPuzzle) -> int:
        return sweep_bytes(puzzle)

    def variants(self, results: SlidingResults, position: Any, want: str, limit: int,
                 search: Search | None = None, progress: Callable[[int, int], None] | None = None,
                 ) -> Variants:
        return results.variation(position, want, limit)

    def blocks(self, puzzle: SlidingPuzzle) -> dict[str, Any]:
        board = puzzle.board
        return {"rows": board.rows, "cols": board.cols, "cells": list(board.cells),
                "pieces": [{"letter": s.letter, "cells": list(s.cells), "count": s.count, "fewest": s.fewest,
                            "along": s.along}
                           for s in puzzle.shapes],
                "goal_piece": puzzle.goal_letter or None,
                "goal_cells": [board.cells[c] for c in puzzle.goal_cells],
                "exits": [board.cells[c] for c in puzzle.exits], "out": list(puzzle.out),
                "keep": list(puzzle.keep),
                "move": puzzle.move, "metric": puzzle.metric, "edge": puzzle.edge,
                "rules": puzzle.rules_text,
                "start": None if puzzle.start is None else puzzle.draw(puzzle.start).replace("\n", "/")}


KIND = SlidingKind()
